//! The format specification (`docs/format.md`, rendered as `facedown_cards::spec`) means what
//! it says: every protocol it shows parses, analyses as its claim states, and is the library's
//! protocol of that name; and it documents every keyword the parser knows.

use facedown_cards::analyze::analyze;
use facedown_cards::claim::check;
use facedown_cards::library::find;
use facedown_cards::parse::{parse, protocols_in_markdown};
use facedown_cards::print::same_up_to_spans;

const SPEC: &str = include_str!("../../docs/format.md");

#[test]
fn every_protocol_of_the_spec_parses_and_analyses_as_it_claims() {
    let blocks = protocols_in_markdown(SPEC);
    assert!(blocks.len() >= 8, "the spec shows its examples");
    for text in blocks {
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let claim = p
            .claim()
            .unwrap_or_else(|| panic!("{} states a claim", p.name()));
        assert!(claim.is_complete(), "{}", p.name());
        let c = check(analyze(&p).expect("analyses"), Some(claim), None);
        assert!(c.holds(), "{}: {:?}", p.name(), c.mismatches);
        if let Some(b) = find(p.name()) {
            assert!(
                same_up_to_spans(&p, &b.protocol()),
                "{} is the library's",
                p.name()
            );
        } else {
            assert!(
                ["xor-standard-deck", "ms09-xor-four-colours", "private-three-card-and"]
                    .contains(&p.name()),
                "{}: only the standard-deck, multiset and private-model examples are not in the library",
                p.name()
            );
        }
    }
}

#[test]
fn the_spec_documents_every_keyword_and_claim_item() {
    for word in [
        "protocol", "inputs", "function", "layout", "claim", "perm", "shuffle", "turn", "result",
        "label", "goto", "restart", "cut", "bisect", "copy", "xnor", "private", "outputs",
    ] {
        assert!(SPEC.contains(&format!("`{word}")), "{word}");
    }
    for item in facedown_cards::claim::ClaimItem::WORDS {
        assert!(SPEC.contains(item), "{item}");
    }
    for status in ["| 0 |", "| 1 |", "| 2 |", "| 3 |"] {
        assert!(SPEC.contains(status), "exit status {status}");
    }
}
