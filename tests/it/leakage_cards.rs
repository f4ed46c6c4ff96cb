//! Cross-check: the leakage harness, applied to card protocols on the ideal table, agrees with
//! the exact analyzer of `facedown-cards`.

use facedown_cards::analyze::analyze;
use facedown_cards::library::load;
use facedown_core::PartyId;
use facedown_leakage::cards::{CardRuns, Input};
use facedown_leakage::{measure_exact, Coalition};

fn check(name: &str) -> facedown_leakage::Measure {
    let protocol = load(name).expect("built-in protocol");
    let runs = CardRuns::new(&protocol).expect("finite views");
    let m = measure_exact(&runs, &Coalition::new([PartyId(1)]), &Input).expect("exact");
    let an = analyze(&protocol).expect("analysis");
    let mi = an.mutual_information_bits.expect("acyclic");
    let beyond = an.leak_beyond_output_bits.expect("acyclic");
    assert!(
        (m.view_bits - mi).abs() < 1e-9,
        "{name}: {} vs {mi}",
        m.view_bits
    );
    assert!(
        (m.excess_bits - beyond).abs() < 1e-9,
        "{name}: {} vs {beyond}",
        m.excess_bits
    );
    m
}

/// [dB89]: the five-card trick reveals exactly the output — zero excess, exactly.
#[test]
fn five_card_trick_leaks_nothing_beyond_the_output() {
    let m = check("five-card-trick");
    assert!(m.excess_is_zero && m.excess_bits == 0.0);
    assert!(
        m.view_bits > 0.8,
        "the view shows the output: {}",
        m.view_bits
    );
}

/// The biased cut leaks beyond the output; harness and analyzer agree on how much.
#[test]
fn biased_cut_leaks_and_both_tools_agree() {
    let m = check("five-card-trick-biased-cut");
    assert!(!m.excess_is_zero && m.excess_bits > 0.0);
}

/// Negative case: without the cut, the inputs are visible.
#[test]
fn no_cut_leaks_the_inputs() {
    let m = check("five-card-trick-no-cut");
    assert!(m.excess_bits > 0.5);
}
