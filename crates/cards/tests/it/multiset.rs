//! Multiset decks: more kinds of repeated symbol than ♣ and ♥ (♦, ♠ and `%k`, as in
//! Crépeau–Kilian's four-colour deck \[CK93\]). Commitments on any two kinds (`b(♦ ♠)`), read
//! lower symbol first = 0, and the basis rule extended to them: an output whose colours follow
//! the branch is no commitment. Each protocol analyses as its claim says; the two broken
//! variants are flagged.

use crate::support::{assert_analyses_as_claimed, protocol};

use facedown_cards::analyze::{analyze, Defect, Security};
use facedown_cards::model::{decode_bit, result_basis, LayoutItem};
use facedown_cards::on_table::{run_on_table, RunOptions};
use facedown_cards::parse::{parse, ParseErrorKind};
use facedown_cards::print::same_up_to_spans;
use facedown_cards::trace::trace;
use facedown_core::rng::trial_rng;
use facedown_core::{IdealTable, PartyId, Symbol};

const XOR_FOUR_COLOURS: &str = include_str!("../../protocols/multiset/ms09-xor-four-colours.cards");
const AND_HELPER_IN_OTHER_COLOURS: &str =
    include_str!("../../protocols/multiset/ms09-and-helper-in-other-colours.cards");
const TRICK_THIRD_COLOUR: &str =
    include_str!("../../protocols/multiset/five-card-trick-third-colour.cards");

const DIAMOND: Symbol = Symbol::Kind(0);
const SPADE: Symbol = Symbol::Kind(1);

#[test]
fn every_multiset_protocol_analyses_as_it_claims() {
    for src in [
        XOR_FOUR_COLOURS,
        AND_HELPER_IN_OTHER_COLOURS,
        TRICK_THIRD_COLOUR,
    ] {
        let p = protocol(src);
        assert_analyses_as_claimed(&p);
    }
}

#[test]
fn ms09_xor_on_four_colours_keeps_its_output_on_diamond_spade_ms09() {
    let p = protocol(XOR_FOUR_COLOURS);
    assert_eq!(
        p.layout()[1],
        LayoutItem::InputOn {
            name: "b".into(),
            negated: false,
            cards: [DIAMOND, SPADE],
        }
    );
    // b = 1 lays ♠♦.
    assert_eq!(
        p.initial_row(&[false, true]),
        Some(vec![Symbol::Club, Symbol::Heart, SPADE, DIAMOND])
    );
    let an = analyze(&p).expect("analyses");
    assert!(an.correct, "{:?}", an.errors());
    assert_eq!(an.security, Security::Perfect);
    assert!(an.committed);
    let half: num_rational::BigRational = "1/2".parse().expect("a fraction");
    for b in &an.branches {
        assert!(
            b.probability.iter().all(|p| p.as_ref() == Some(&half)),
            "{b:?}"
        );
    }
}

#[test]
fn four_colour_xor_runs_on_the_ideal_table_and_traces_to_the_right_bit() {
    let p = protocol(XOR_FOUR_COLOURS);
    for input in 0..4usize {
        let bits = [input & 2 != 0, input & 1 != 0];
        for seed in 0..16 {
            let mut table = IdealTable::with_rng(2, trial_rng(seed, input as u64));
            let owners = [PartyId(1), PartyId(2)];
            let run =
                run_on_table(&p, &bits, &owners, &mut table, RunOptions::default()).expect("runs");
            assert_eq!(run.outputs, vec![bits[0] ^ bits[1]], "{bits:?} seed {seed}");
            let t = trace(&p, &bits, seed).expect("traces");
            assert_eq!(t.output, Some(bits[0] ^ bits[1]), "{bits:?} seed {seed}");
        }
    }
}

#[test]
fn an_and_whose_output_colours_follow_an_input_breaks_the_basis_rule_and_leaks() {
    let an = analyze(&protocol(AND_HELPER_IN_OTHER_COLOURS)).expect("analyses");
    assert!(!an.correct);
    let basis = an.defects.iter().find_map(|d| match d {
        Defect::ResultBasisVaries { bases, .. } => Some(*bases),
        _ => None,
    });
    let (x, y) = basis.expect("the basis rule is broken");
    let mut seen = [x, y];
    seen.sort();
    assert_eq!(seen, [[Symbol::Club, Symbol::Heart], [DIAMOND, SPADE]]);
    // The colours follow a, not the branch: opening the output shows a (00 against 10).
    assert_eq!(an.security, Security::Insecure);
    assert!(an.defects.iter().any(|d| matches!(
        d,
        Defect::Leak { result_basis: true, inputs, .. } if inputs.0.starts_with('0') != inputs.1.starts_with('0')
    )));
    // Every run still decodes to a ∧ b: the defect is the basis, not a wrong bit.
    assert!(!an
        .defects
        .iter()
        .any(|d| matches!(d, Defect::WrongResult { .. })));
}

#[test]
fn a_third_colour_in_the_five_card_trick_shows_where_the_row_starts_db89() {
    let an = analyze(&protocol(TRICK_THIRD_COLOUR)).expect("analyses");
    assert!(an.correct);
    assert_eq!(an.security, Security::Insecure);
    assert!(an
        .defects
        .iter()
        .any(|d| matches!(d, Defect::Leak { inputs, .. } if inputs.0 != "11" && inputs.1 != "11")));
}

#[test]
fn two_kinds_decode_lower_first_and_have_a_basis() {
    assert_eq!(decode_bit([DIAMOND, SPADE]), Some(false));
    assert_eq!(decode_bit([SPADE, DIAMOND]), Some(true));
    assert_eq!(decode_bit([Symbol::Club, DIAMOND]), Some(false));
    assert_eq!(decode_bit([DIAMOND, DIAMOND]), None);
    assert_eq!(decode_bit([DIAMOND, Symbol::Card(1)]), None);
    assert_eq!(result_basis([SPADE, DIAMOND]), Some([DIAMOND, SPADE]));
    assert_eq!(result_basis([Symbol::Heart, Symbol::Club]), None);
}

#[test]
fn kinds_print_and_read_back_in_every_spelling() {
    let src = "protocol p\ninputs a\nfunction copy\nlayout a(D S) %2 %3 ♦\nturn 3 4 5 {\n  %2 %3 ♦: result 1 2\n}\n";
    let p = protocol(src);
    assert_eq!(p.cards(), 5);
    assert_eq!(p.layout()[1], LayoutItem::Card(Symbol::Kind(2)));
    let printed = p.to_string();
    assert!(printed.contains("layout a(♦ ♠) %2 %3 ♦"), "{printed}");
    assert!(printed.contains("%2 %3 ♦: result 1 2"), "{printed}");
    assert!(same_up_to_spans(&protocol(&printed), &p));
}

#[test]
fn bad_kinds_and_commitments_are_typed_errors() {
    let header = "protocol p\ninputs a\nfunction copy\nlayout ";
    let err = |layout: &str| {
        parse(&format!("{header}{layout}\nresult 1 2\n"))
            .expect_err("rejected")
            .kind
    };
    assert_eq!(
        err("a %256"),
        ParseErrorKind::BadKind {
            found: "256".into()
        }
    );
    assert_eq!(
        err("a %"),
        ParseErrorKind::BadKind {
            found: String::new()
        }
    );
    assert_eq!(
        err("a(♠ ♦)"),
        ParseErrorKind::CommitmentSymbols {
            first: "♠".into(),
            second: "♦".into()
        }
    );
    assert_eq!(
        err("a(♦ ♦)"),
        ParseErrorKind::CommitmentSymbols {
            first: "♦".into(),
            second: "♦".into()
        }
    );
    assert_eq!(
        err("a(♦ #1)"),
        ParseErrorKind::CommitmentNotNumbered { found: "#1".into() }
    );
    assert!(matches!(
        err("a #65278"),
        ParseErrorKind::BadCardNumber { .. }
    ));
}

#[test]
fn the_specs_multiset_example_is_the_shipped_file() {
    let spec = facedown_cards::parse::protocols_in_markdown(include_str!("../../docs/format.md"));
    let shipped = protocol(XOR_FOUR_COLOURS);
    let shown = spec
        .iter()
        .map(|text| protocol(text))
        .find(|p| p.name() == shipped.name())
        .expect("the spec shows it");
    assert!(same_up_to_spans(&shown, &shipped));
}
