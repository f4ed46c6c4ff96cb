//! [MS09] Mizuki–Sone committed protocols: six-card AND, four-card XOR, COPY.

use facedown::cards::analyze::{analyze, Analysis, Runtime, Security};
use facedown::cards::library::find;

fn check_committed_one_shuffle(name: &str, function: &str) -> Analysis {
    let a = analyze(&find(name).expect("built in").protocol()).expect("analyzes");
    assert!(a.correct, "{name}: {:?}", a.errors());
    assert_eq!(a.function.to_string(), function);
    assert!(a.committed, "{name} outputs a commitment");
    assert_eq!(a.security, Security::Perfect, "{name}");
    assert_eq!(a.runtime, Runtime::Finite, "{name}");
    assert_eq!(
        a.expected_shuffles
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("1"),
        "{name}"
    );
    assert_eq!(a.max_shuffles, Some(1), "{name}");
    assert_eq!(
        a.mutual_information_bits,
        Some(0.0),
        "{name}: the view says nothing"
    );
    // Both observations of the single turn have probability 1/2 for every input.
    assert_eq!(a.branches.len(), 2, "{name}");
    for b in &a.branches {
        assert!(
            b.probability
                .iter()
                .all(|p| p.as_ref().map(ToString::to_string).as_deref() == Some("1/2")),
            "{name}: {b:?}"
        );
    }
    a
}

#[test]
fn six_card_and_is_committed_perfect_with_one_shuffle() {
    let a = check_committed_one_shuffle("ms09-six-card-and", "and");
    assert_eq!(a.cards, 6);
}

#[test]
fn four_card_xor_is_committed_perfect_with_one_shuffle() {
    let a = check_committed_one_shuffle("ms09-four-card-xor", "xor");
    assert_eq!(a.cards, 4);
}

#[test]
fn variants_nand_or_and_copy_keep_the_claim() {
    check_committed_one_shuffle("ms09-six-card-nand", "nand");
    check_committed_one_shuffle("ms09-six-card-or", "or");
    check_committed_one_shuffle("ms09-copy", "copy");
}
