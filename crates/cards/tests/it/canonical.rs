//! `facedown cards fmt`: canonical formatting keeps the protocol and its comments, is
//! idempotent, and is exactly the printer's text when there are no comments.

use facedown_cards::canonical::{format_source, is_canonical};
use facedown_cards::library::builtins;
use facedown_cards::parse::parse;
use facedown_cards::print::same_up_to_spans;
use proptest::prelude::*;

/// The comments of a text, in order (everything from a `#` that is not a card `#n`).
fn comments(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let chars: Vec<char> = l.chars().collect();
            let at = (0..chars.len()).find(|&i| {
                chars[i] == '#' && !chars.get(i + 1).is_some_and(char::is_ascii_digit)
            })?;
            Some(chars[at..].iter().collect::<String>().trim_end().to_owned())
        })
        .collect()
}

#[test]
fn every_library_file_formats_to_the_same_protocol_with_the_same_comments() {
    for b in builtins() {
        let formatted = format_source(b.source).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        let before = parse(b.source).expect("parses");
        let after = parse(&formatted).unwrap_or_else(|e| panic!("{}: {e}\n{formatted}", b.name));
        assert!(
            same_up_to_spans(&before, &after),
            "{}:\n{formatted}",
            b.name
        );
        assert_eq!(comments(&formatted), comments(b.source), "{}", b.name);
        assert!(
            is_canonical(&formatted).expect("parses"),
            "{}: idempotent",
            b.name
        );
    }
}

#[test]
fn a_messy_file_gets_the_canonical_layout_and_keeps_its_comments() {
    let messy = "# A test protocol.\n\
                 function xor\n\
                 protocol   messy   # the name\n\
                 inputs a b\n\
                 layout a  b\n\
                 claim perfect correct\n\
                 \n\
                 \n\
                 perm (2 3) ; shuffle { id , (1 3)(2 4) }\n\
                 # turn the first pair\n\
                 perm (2 3)\n\
                 turn 1 2 {\n\
                 CH: result 3 4   # a = r\n\
                 \x20   hc: {\n\
                 \x20   # read swapped\n\
                 \x20   result 4 3 }\n\
                 }\n\
                 # the end\n";
    let want = "# A test protocol.\n\
                protocol messy  # the name\n\
                inputs a b\n\
                function xor\n\
                layout a b\n\
                claim correct perfect\n\
                \n\
                perm (2 3)\n\
                shuffle {id, (1 3)(2 4)}\n\
                # turn the first pair\n\
                perm (2 3)\n\
                turn 1 2 {\n  \
                  ♣♥: result 3 4  # a = r\n  \
                  ♥♣: {\n    \
                    # read swapped\n    \
                    result 4 3\n  \
                  }\n\
                }\n\
                # the end\n";
    let got = format_source(messy).expect("formats");
    assert_eq!(got, want);
    assert!(is_canonical(want).expect("parses"));
    assert!(same_up_to_spans(
        &parse(messy).expect("parses"),
        &parse(want).expect("parses")
    ));
}

#[test]
fn formatting_a_malformed_file_is_the_parse_error() {
    let e = format_source("protocol p\ninputs a\nfunction copy\nlayout a\nturn 3\n")
        .expect_err("position 3 of 2 cards");
    assert_eq!((e.line, e.col), (5, 6));
}

proptest! {
    #[test]
    fn without_comments_the_format_is_the_printers_text(seed in any::<u64>()) {
        let p = crate::format::random_protocol(seed);
        let text = p.to_string();
        let formatted = format_source(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(formatted, text);
    }
}
