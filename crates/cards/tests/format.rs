//! The `.cards` format: the examples of `protocol-format.md` parse, malformed files give typed
//! errors at the right line and column, printing round-trips, and no input panics the parser.

use facedown_cards::parse::parse;

const EXAMPLES: [(&str, &str); 5] = [
    (
        "five-card-trick",
        include_str!("../protocols/five-card-trick.cards"),
    ),
    (
        "mks-four-card-and",
        include_str!("../protocols/mks-four-card-and.cards"),
    ),
    (
        "ms09-six-card-and",
        include_str!("../protocols/ms09-six-card-and.cards"),
    ),
    (
        "ms09-four-card-xor",
        include_str!("../protocols/ms09-four-card-xor.cards"),
    ),
    (
        "four-card-las-vegas-and",
        include_str!("../protocols/four-card-las-vegas-and.cards"),
    ),
];

#[test]
fn every_example_of_the_format_spec_parses() {
    for (name, src) in EXAMPLES {
        let p = parse(src).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.name, name);
    }
}
