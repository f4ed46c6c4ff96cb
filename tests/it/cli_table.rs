//! Unit tests of `src/cli/table.rs`, run from the integration binary:
//! the package builds no unit-test binaries.

use facedown::cli::table::*;

fn sample() -> Table {
    let mut t = Table::new(&["name", "bits"]).right_aligned([1]);
    t.row(vec!["a, b".into(), "0.5".into()]);
    t.row(vec!["x|y \"q\"".into(), "12.25".into()]);
    t
}

#[test]
fn csv_quotes_commas_and_quotes() {
    assert_eq!(
        sample().render(Format::Csv),
        "name,bits\n\"a, b\",0.5\n\"x|y \"\"q\"\"\",12.25\n"
    );
}

#[test]
fn an_absent_value_is_a_dash_in_text_and_an_empty_field_in_csv() {
    let mut t = Table::new(&["name", "E[shuf]", "max"]);
    t.row(vec!["p".into(), EMPTY.into(), "∞".into()]);
    assert_eq!(t.render(Format::Csv), "name,E[shuf],max\np,,∞\n");
    assert!(t.render(Format::Text).contains(EMPTY));
    assert!(t.render(Format::Markdown).contains(EMPTY));
}

#[test]
fn markdown_has_a_separator_line_and_escapes_bars() {
    let md = sample().render(Format::Markdown);
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines.len(), 4, "{md}");
    assert!(lines[0].starts_with("| name"), "{md}");
    assert!(
        lines[1].starts_with("|-") && lines[1].ends_with('|'),
        "{md}"
    );
    assert!(lines[3].contains("x\\|y"), "{md}");
}

#[test]
fn text_right_aligns_numbers() {
    let text = sample().render(Format::Text);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("name"), "{text:?}");
    assert!(lines[1].ends_with("  0.5"), "{text:?}");
    assert!(lines[2].ends_with("12.25"), "{text:?}");
}
