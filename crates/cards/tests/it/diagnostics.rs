//! Parse errors for people: the source line with the offending token underlined (a snapshot of
//! one rendered error), and "did you mean" for misspelt keywords, functions, claim items and
//! protocol names.

use facedown_cards::library::load;
use facedown_cards::parse::{parse, ParseErrorKind};

const MISSPELT: &str = "protocol bad\ninputs a b\nfunction and\nlayout a b\n\
                        suffle {id, (1 3)(2 4)}\nturn 1 2\n";

#[test]
fn a_rendered_parse_error_shows_the_line_and_underlines_the_token() {
    let e = parse(MISSPELT).expect_err("no keyword `suffle`");
    let shown = e.render("bad.cards", MISSPELT, false);
    let want = "\
error: line 5, column 1: unknown keyword `suffle` (expected protocol, inputs, function, layout, \
claim, perm, shuffle, turn, result, label, goto or restart); did you mean `shuffle`?
   ╭─[ bad.cards:5:1 ]
   │
 5 │ suffle {id, (1 3)(2 4)}
   │ ───┬──  
   │    ╰──── did you mean `shuffle`?
───╯
";
    assert_eq!(shown, want);
    assert!(!shown.contains('\u{1b}'), "no colour when not asked");
    assert!(e.render("bad.cards", MISSPELT, true).contains('\u{1b}'));
}

#[test]
fn errors_at_the_end_of_a_line_and_of_the_file_still_render() {
    for text in [
        "protocol p\ninputs a\nfunction copy\nlayout a\nturn 1 {\n",
        "protocol p\ninputs a\nfunction copy\nlayout",
        "protocol p\ninputs a\nfunction copy\nlayout a\nturn 3",
    ] {
        let e = parse(text).expect_err("malformed");
        let shown = e.render("f.cards", text, false);
        assert!(shown.starts_with("error: line "), "{shown}");
        assert!(shown.contains(&format!("f.cards:{}:", e.line)), "{shown}");
    }
}

#[test]
fn misspellings_get_a_suggestion() {
    let cases = [
        (MISSPELT, "shuffle"),
        ("protocol p\ninputs a b\nfunction nad\nlayout a b\n", "and"),
        (
            "protocol p\ninputs a\nfunction copy\nlayout a\nclaim corect\n",
            "correct",
        ),
    ];
    for (text, want) in cases {
        let e = parse(text).expect_err("misspelt");
        assert!(
            e.to_string().contains(&format!("did you mean `{want}`?")),
            "{e}"
        );
        assert!(matches!(
            e.kind,
            ParseErrorKind::UnknownKeyword { .. }
                | ParseErrorKind::UnknownFunction { .. }
                | ParseErrorKind::Claim(_)
        ));
    }
    let e = load("mks-four-card-adn").expect_err("no such protocol");
    assert!(
        e.to_string().contains("did you mean `mks-four-card-and`?"),
        "{e}"
    );
}
