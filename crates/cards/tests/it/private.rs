//! The private model \[NMTIO22\]: private input permutations (`private a perm P0 | P1`), security
//! judged per player (each knows his own bit and the output), the pitfall of a later public
//! turn that shows what a private permutation did, and the search's card-minimal AND.

use crate::support::{assert_analyses_as_claimed, protocol};

use facedown_cards::analyze::{analyze, Defect, Security};
use facedown_cards::model::{input_bits, Function, NamedFunction};
use facedown_cards::on_table::{run_on_table, RunError, RunOptions};
use facedown_cards::parse::parse;
use facedown_cards::print::same_up_to_spans;
use facedown_cards::sampled::{sample, RunEnding};
use facedown_cards::search::private::{smallest_private_protocol, PrivateSize};
use facedown_cards::simulate::TrialRng;
use facedown_cards::trace::trace;
use facedown_core::rng::trial_rng;
use facedown_core::{IdealTable, PartyId};

const AND: &str = include_str!("../../protocols/private/private-three-card-and.cards");
const AND_EXTRA_TURN: &str =
    include_str!("../../protocols/private/private-three-card-and-extra-turn.cards");

#[test]
fn every_private_protocol_analyses_as_it_claims() {
    for src in [AND, AND_EXTRA_TURN] {
        let p = protocol(src);
        assert!(p.has_private_actions());
        assert_analyses_as_claimed(&p);
    }
}

#[test]
fn three_cards_compute_and_of_private_bits_perfectly_nmtio22() {
    let p = protocol(AND);
    assert_eq!(p.cards(), 3);
    let an = analyze(&p).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    assert_eq!(an.security, Security::Perfect);
    assert!(!an.committed);
    assert_eq!(an.max_shuffles, Some(0));
    // Every run of the sampled interpreter and of the tracer reads a ∧ b from the left card.
    for input in 0..4 {
        let bits = input_bits(input, 2);
        let run = sample(&p, input, &mut TrialRng::new(0, 0), 100, false).expect("samples");
        assert_eq!(run.ending, RunEnding::Open);
        let t = trace(&p, &bits, 1).expect("traces");
        assert_eq!(t.output, Some(bits[0] && bits[1]), "{bits:?}");
    }
}

#[test]
fn a_public_turn_after_the_private_and_leaks_to_bob_nmtio22() {
    let an = analyze(&protocol(AND_EXTRA_TURN)).expect("analyses");
    assert!(an.correct);
    assert_eq!(an.security, Security::Insecure);
    // Bob (b = 0) sees the middle card: ♥ under 10, ♣ under 00, both of output 0.
    let leak = an.defects.iter().find_map(|d| match d {
        Defect::PlayerLeak { player, inputs, .. } => Some((player.clone(), inputs.clone())),
        _ => None,
    });
    assert_eq!(
        leak,
        Some(("b".to_owned(), ("00".to_owned(), "10".to_owned())))
    );
    // Alice learns nothing beyond a and the output: no leak names her.
    assert!(!an
        .defects
        .iter()
        .any(|d| matches!(d, Defect::PlayerLeak { player, .. } if player == "a")));
    assert!(an
        .errors()
        .iter()
        .any(|e| e.contains("the holder of b learns more")));
}

#[test]
fn private_permutations_print_and_read_back() {
    let p = protocol(AND);
    let printed = p.to_string();
    assert!(printed.contains("private a perm (2 3) | id"), "{printed}");
    assert!(printed.contains("private b perm id | (1 2)"), "{printed}");
    assert!(same_up_to_spans(&protocol(&printed), &p));
}

#[test]
fn malformed_private_actions_are_typed_errors() {
    let header = "protocol p\ninputs a b\nfunction and\nlayout ♣ ♥ ♣\n";
    for (body, what) in [
        (
            "private a perm id | id\nprivate b perm id | id\nprivate z perm id | id\nturn 1\n",
            "no input `z`",
        ),
        ("private a turn 1\n", "`perm`"),
        ("private a perm (1 2)\nturn 1\n", "`|`"),
        ("private a perm (1 2) | (1 4)\nturn 1\n", "out of range"),
    ] {
        let e = parse(&format!("{header}{body}")).expect_err(body);
        assert!(e.to_string().contains(what), "{body}: {e}");
    }
    // Without a private action, an input that is not laid out is still an error.
    let e = parse(&format!("{header}turn 1\n")).expect_err("a is nowhere");
    assert!(e.to_string().contains("neither laid out"), "{e}");
}

#[test]
fn the_tables_refuse_private_actions_with_a_typed_error() {
    let p = protocol(AND);
    let mut table = IdealTable::with_rng(2, trial_rng(0, 0));
    let owners = [PartyId(1), PartyId(2)];
    let err = run_on_table(
        &p,
        &[true, true],
        &owners,
        &mut table,
        RunOptions::default(),
    )
    .expect_err("no private operation on a table yet");
    assert!(matches!(err, RunError::Unsupported { .. }), "{err}");
}

#[test]
fn search_finds_that_and_needs_three_cards_with_private_permutations_nmtio22() {
    let and = Function::Named(NamedFunction::And);
    let found = smallest_private_protocol(&and, 4).expect("searches");
    assert_eq!(
        found.sizes,
        vec![
            PrivateSize {
                cards: 2,
                candidates: 2 * 2 * 2 * 3,
                found: 0
            },
            PrivateSize {
                cards: 3,
                candidates: 6 * 6 * 6 * 7,
                found: found.sizes[1].found
            },
        ]
    );
    assert!(found.sizes[1].found > 0);
    let p = found.protocol.expect("three cards suffice");
    assert_eq!(p.cards(), 3);
    let an = analyze(&p).expect("analyses");
    assert!(an.correct && an.security == Security::Perfect);
    // XOR, by contrast, needs only two: c ⊕ a ⊕ b on one card.
    let xor = Function::Named(NamedFunction::Xor);
    let found = smallest_private_protocol(&xor, 3).expect("searches");
    assert_eq!(found.sizes.len(), 1);
    assert!(found.protocol.is_some());
}

#[test]
fn the_specs_private_example_is_the_shipped_file() {
    let spec = facedown_cards::parse::protocols_in_markdown(include_str!("../../docs/format.md"));
    let shipped = protocol(AND);
    let shown = spec
        .iter()
        .map(|text| protocol(text))
        .find(|p| p.name() == shipped.name())
        .expect("the spec shows it");
    assert!(same_up_to_spans(&shown, &shipped));
}

#[test]
fn the_state_tree_shows_the_private_permutations() {
    let dot = facedown_cards::tree::to_dot(&protocol(AND)).expect("a tree");
    assert!(dot.contains("private a perm"), "{dot}");
    assert!(dot.contains("private b perm"), "{dot}");
}
