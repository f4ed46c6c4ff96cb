//! Standard-deck commitments in the `.cards` format and the analyzer \[KSK19\]: input `a`
//! committed on two distinct numbered cards (`a(#1 #2)`, lower card first = 0), results on
//! numbered cards read lower first = 0, and the basis rule — a committed output must use the
//! same two cards in every run that reaches it, or the cards themselves can leak the inputs.

use facedown_cards::analyze::{analyze, Defect, Security};
use facedown_cards::model::{Action, ActionKind, Function, LayoutItem};
use facedown_cards::on_table::{run_on_table, RunOptions};
use facedown_cards::parse::{parse, ParseError, ParseErrorKind};
use facedown_cards::print::same_up_to_spans;
use facedown_cards::simulate::{Compiled, SimulateError, Simulator};
use facedown_cards::trace::trace;
use facedown_cards::{Protocol, ProtocolError, ProtocolParts};
use facedown_core::rng::trial_rng;
use facedown_core::{IdealTable, PartyId, Symbol};
use proptest::prelude::*;

use crate::support;

fn protocol(src: &str) -> Protocol {
    parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn copy_on(body: &str) -> Protocol {
    protocol(&format!(
        "protocol copy-standard\ninputs a\nfunction copy\nlayout a(#1 #2)\n{body}\n"
    ))
}

fn basis_defects(defects: &[Defect]) -> Vec<&Defect> {
    defects
        .iter()
        .filter(|d| matches!(d, Defect::ResultBasisVaries { .. }))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The analyzer

#[test]
fn trivial_standard_deck_copy_is_correct_perfect_finite_and_committed() {
    let a = analyze(&copy_on("result 1 2")).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.security, Security::Perfect);
    assert_eq!(a.runtime.as_str(), "finite");
    assert!(a.committed);
    assert!(a.errors().is_empty(), "{:?}", a.errors());
    assert_eq!(
        a.expected_shuffles
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("0")
    );
    assert_eq!(a.cards, 2);
}

#[test]
fn standard_deck_copy_read_higher_card_first_is_incorrect() {
    let a = analyze(&copy_on("result 2 1")).expect("analyzes");
    assert!(!a.correct);
    assert!(a
        .defects
        .iter()
        .any(|d| matches!(d, Defect::WrongResult { pair: (2, 1), .. })));
    // The basis is {#1, #2} in both runs: the only defect is the wrong value.
    assert!(basis_defects(&a.defects).is_empty());
}

#[test]
fn negated_standard_deck_input_reads_swapped() {
    let src = "protocol not\ninputs a\nfunction copy\nlayout ~a(#1 #2)\nresult 2 1\n";
    let a = analyze(&protocol(src)).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.security, Security::Perfect);
}

/// Inputs `a(#1 #4)` and `b(#2 #3)`: position 1 holds #1 (a = 0) or #4 (a = 1), position 3 holds
/// #2 or #3 (by b). Reading `result 1 3`, the higher card lies first exactly when a = 1, so every
/// run decodes to f(a, b) = a — but the output's cards are {#1,#2}, {#1,#3}, {#2,#4} or {#3,#4}
/// for the four inputs: opening the output reveals b as well. Only the basis rule catches this.
const BASIS_FROM_INPUT: &str = "protocol basis-leak\ninputs a b\nfunction 0011\n\
                                layout a(#1 #4) b(#2 #3)\nresult 1 3\n";

#[test]
fn output_basis_that_depends_on_the_input_is_flagged_ksk19() {
    let a = analyze(&protocol(BASIS_FROM_INPUT)).expect("analyzes");
    assert_eq!(a.cards, 4);
    assert!(
        !a.correct,
        "the basis rule must make the protocol incorrect"
    );
    // Every run decodes to the right bit: the value check alone would accept it.
    assert!(!a
        .defects
        .iter()
        .any(|d| matches!(d, Defect::WrongResult { .. })));
    let basis = basis_defects(&a.defects);
    assert_eq!(basis.len(), 1, "{:?}", a.errors());
    assert!(matches!(
        basis[0],
        Defect::ResultBasisVaries { pair: (1, 3), .. }
    ));
    let errors = a.errors();
    let message = errors
        .iter()
        .find(|e| e.contains("differ between runs"))
        .expect("a basis error");
    assert!(message.contains("result 1 3"), "{message}");
    assert!(message.contains("#1#2 vs #1#3"), "{message}");
    // The basis tells the four inputs apart: not even output-possibilistic.
    assert_eq!(a.security, Security::Insecure);
    assert!(a.defects.iter().any(|d| matches!(
        d,
        Defect::Leak {
            result_basis: true,
            ..
        }
    )));
    assert!(
        a.errors()
            .iter()
            .any(|e| e.contains("the result's basis #1#2 has probability 1 under input 00")),
        "{:?}",
        a.errors()
    );
}

#[test]
fn same_layout_read_on_one_commitment_keeps_its_basis() {
    let src = BASIS_FROM_INPUT.replace("result 1 3", "result 1 2");
    let a = analyze(&protocol(&src)).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.security, Security::Perfect);
}

#[test]
fn three_card_copy_whose_basis_reveals_the_input_is_incorrect_and_insecure() {
    // a = 0: #1 #3 #2, result 1 3 = #1 #2 → 0; a = 1: #3 #1 #2 → #3 #2 → 1. Right values,
    // but the basis is {#1,#2} for a = 0 and {#2,#3} for a = 1.
    let src = "protocol p\ninputs a\nfunction copy\nlayout a(#1 #3) #2\nresult 1 3\n";
    let a = analyze(&protocol(src)).expect("analyzes");
    assert!(!a.correct);
    assert_eq!(basis_defects(&a.defects).len(), 1);
    assert_eq!(a.security, Security::Insecure);
    assert_eq!(
        a.tv_distance.as_ref().map(ToString::to_string).as_deref(),
        Some("1")
    );
}

/// `a(#1 #2) ~a(#3 #4)` and a shuffle that swaps the two commitments reversed: position 1 2 then
/// holds `a` on {#1,#2} or on {#3,#4}, each with probability 1/2 whatever `a` is.
const BASIS_BY_CHANCE: &str = "protocol p\ninputs a\nfunction copy\n\
                               layout a(#1 #2) ~a(#3 #4)\nshuffle {id, (1 4)(2 3)}\nresult 1 2\n";

#[test]
fn basis_that_varies_independently_of_the_input_is_incorrect_but_leaks_nothing() {
    let a = analyze(&protocol(BASIS_BY_CHANCE)).expect("analyzes");
    assert!(
        !a.correct,
        "no fixed basis: not a commitment in the [KSK19] sense"
    );
    assert!(!a
        .defects
        .iter()
        .any(|d| matches!(d, Defect::WrongResult { .. })));
    assert_eq!(basis_defects(&a.defects).len(), 1);
    // Seen as an observation of the result, the basis has probability 1/2 under either input.
    assert_eq!(a.security, Security::Perfect);
    assert_eq!(
        a.tv_distance.as_ref().map(ToString::to_string).as_deref(),
        Some("0")
    );
}

#[test]
fn copy_with_several_results_checks_each_pair_separately() {
    let src = "protocol p\ninputs a\nfunction copy\nlayout a(#1 #2) ~a(#3 #4) a(#5 #6)\n\
               shuffle {id, (1 4)(2 3)}\nresult 1 2, 5 6\n";
    let a = analyze(&protocol(src)).expect("analyzes");
    let basis = basis_defects(&a.defects);
    assert_eq!(basis.len(), 1, "{:?}", a.errors());
    assert!(matches!(
        basis[0],
        Defect::ResultBasisVaries { pair: (1, 2), .. }
    ));
    let fixed = src.replace("result 1 2, 5 6", "result 5 6");
    assert!(analyze(&protocol(&fixed)).expect("analyzes").correct);
}

#[test]
fn turning_a_standard_deck_input_card_is_insecure() {
    let a = analyze(&copy_on("turn 1\nresult 1 2")).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.security, Security::Insecure);
    assert!(a.defects.iter().any(|d| matches!(
        d,
        Defect::Leak {
            result_basis: false,
            ..
        }
    )));
}

#[test]
fn ms09_xor_on_a_standard_deck_is_correct_and_perfect() {
    // [MS09]'s four-card XOR with a(#1 #2) b(#3 #4): the turn shows a ⊕ r on a's own cards,
    // and the result stays on b's cards {#3, #4} in both branches.
    let src = "protocol xor-standard\ninputs a b\nfunction xor\nlayout a(#1 #2) b(#3 #4)\n\
               perm (2 3)\nshuffle {id, (1 3)(2 4)}\nperm (2 3)\n\
               turn 1 2 {\n  #1 #2: result 3 4\n  #2 #1: result 4 3\n}\n";
    let a = analyze(&protocol(src)).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.security, Security::Perfect);
    assert!(a.committed);
    assert_eq!(
        a.expected_shuffles
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("1")
    );
    for b in &a.branches {
        for p in &b.probability {
            assert_eq!(
                p.as_ref().map(ToString::to_string).as_deref(),
                Some("1/2"),
                "{b:?}"
            );
        }
    }
}

#[test]
fn code_built_commitments_on_bad_cards_are_no_protocol() {
    for cards in [
        [Symbol::Card(2), Symbol::Card(1)],
        [Symbol::Card(2), Symbol::Card(2)],
        // A mix is no commitment; two repeated symbols are one (a multiset deck), lower first.
        [Symbol::Card(1), Symbol::Heart],
        [Symbol::Heart, Symbol::Club],
    ] {
        let e = Protocol::new(ProtocolParts {
            name: "p".into(),
            inputs: vec!["a".into()],
            function: Function::Copy,
            layout: vec![LayoutItem::InputOn {
                name: "a".into(),
                negated: false,
                cards,
            }],
            body: Vec::new(),
            claim: None,
        })
        .expect_err("bad cards");
        assert!(matches!(e, ProtocolError::CommitmentCards { .. }), "{e}");
    }
}

// ---------------------------------------------------------------------------------------------
// Other consumers

#[test]
fn trace_decodes_a_standard_deck_result() {
    let p = copy_on("result 1 2");
    for bit in [false, true] {
        let t = trace(&p, &[bit], 7).expect("traces");
        assert_eq!(t.output, Some(bit));
        assert_eq!(t.ending, "result");
    }
}

#[test]
fn numbered_cards_are_simulated_by_sampled_runs_the_compiled_program_refuses_them() {
    let p = copy_on("result 1 2");
    let err = Compiled::new(&p).expect_err("two-colour only");
    assert!(
        matches!(err, SimulateError::Deck(ref c) if c.starts_with('#')),
        "{err}"
    );
    let sim = Simulator::new(&p).expect("the sampled runs take any deck");
    assert!(!sim.is_compiled());
    let report = sim
        .simulate_shard(&[], (1000, 3), None, None)
        .expect("runs");
    assert_eq!(report.inputs[0].output_0, 1000, "COPY of 0 reads 0");
    assert_eq!(report.inputs[1].output_1, 1000, "COPY of 1 reads 1");
}

#[test]
fn ideal_table_runs_a_standard_deck_protocol() {
    let p = protocol(BASIS_BY_CHANCE);
    for bit in [false, true] {
        for seed in 0..8 {
            let mut table = IdealTable::with_rng(2, trial_rng(seed, u64::from(bit)));
            let run = run_on_table(&p, &[bit], &[PartyId(1)], &mut table, RunOptions::default())
                .expect("runs");
            assert_eq!(run.outputs, vec![bit]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The format

#[test]
fn standard_deck_layout_parses_into_input_on() {
    let p = protocol(
        "protocol p\ninputs a b\nfunction and\nlayout ~a(#1 #2) b (#3 #4) #5\nresult 1 2\n",
    );
    assert_eq!(
        p.layout(),
        [
            LayoutItem::InputOn {
                name: "a".into(),
                negated: true,
                cards: [Symbol::Card(1), Symbol::Card(2)],
            },
            LayoutItem::InputOn {
                name: "b".into(),
                negated: false,
                cards: [Symbol::Card(3), Symbol::Card(4)],
            },
            LayoutItem::Card(Symbol::Card(5)),
        ]
    );
    assert_eq!(p.cards(), 5);
    let (c1, c2, c3, c4, c5) = (
        Symbol::Card(1),
        Symbol::Card(2),
        Symbol::Card(3),
        Symbol::Card(4),
        Symbol::Card(5),
    );
    assert_eq!(
        p.initial_row(&[false, true]),
        Some(vec![c2, c1, c4, c3, c5])
    );
}

#[test]
fn standard_deck_protocol_prints_canonically_and_round_trips() {
    let src = "protocol xor-standard\ninputs a b\nfunction xor\nlayout ~a (#1 #2) b(#3#4) #7 C\n\
               perm (2 3)\nshuffle {id, (1 3)(2 4)}\nturn 1 2 {\n  #1 #2: result 3 4\n  \
               #2 #1: result 4 3\n}\n";
    let p = protocol(src);
    let text = p.to_string();
    assert!(
        text.contains("\nlayout ~a(#1 #2) b(#3 #4) #7 ♣\n"),
        "{text}"
    );
    let again = protocol(&text);
    assert!(same_up_to_spans(&p, &again));
    assert_eq!(again.to_string(), text);
}

fn err(layout: &str) -> ParseError {
    let src = format!("protocol p\ninputs a b\nfunction and\nlayout {layout}\nresult 1 2\n");
    parse(&src).expect_err("malformed layout")
}

fn at(e: &ParseError) -> (usize, usize) {
    (e.line, e.col)
}

#[test]
fn commitment_on_the_same_card_twice_is_rejected_at_the_second() {
    let e = err("a(#1 #1) b");
    assert_eq!(at(&e), (4, 13));
    assert_eq!(e.kind, ParseErrorKind::CommitmentCardsEqual { card: 1 });
}

#[test]
fn commitment_mixing_colours_and_numbers_or_on_plain_numbers_is_not_numbered() {
    // Two repeated symbols are a multiset-deck commitment (`a(♦ ♠)`); a mix is none.
    let e = err("a(♣ #2) b");
    assert_eq!(at(&e), (4, 12));
    assert_eq!(
        e.kind,
        ParseErrorKind::CommitmentNotNumbered { found: "#2".into() }
    );
    let e = err("a(#1 2) b");
    assert_eq!(at(&e), (4, 13));
    assert_eq!(
        e.kind,
        ParseErrorKind::CommitmentNotNumbered { found: "2".into() }
    );
}

#[test]
fn commitment_with_other_than_two_cards_is_rejected_at_the_parenthesis() {
    for (layout, found) in [("a(#1) b", 1), ("a(#1 #2 #3) b", 3), ("a() b", 0)] {
        let e = err(layout);
        assert_eq!(at(&e), (4, 9), "{layout}");
        assert_eq!(
            e.kind,
            ParseErrorKind::CommitmentCardCount {
                name: "a".into(),
                found
            },
            "{layout}"
        );
    }
}

#[test]
fn commitment_written_higher_card_first_is_rejected() {
    let e = err("a(#2 #1) b");
    assert_eq!(at(&e), (4, 10));
    assert_eq!(
        e.kind,
        ParseErrorKind::CommitmentCardsOrder {
            first: 2,
            second: 1
        }
    );
}

#[test]
fn a_card_used_twice_in_a_standard_layout_is_rejected_where_it_repeats() {
    let e = err("a(#1 #2) b(#2 #3)");
    assert_eq!(at(&e), (4, 19));
    assert_eq!(
        e.kind,
        ParseErrorKind::DuplicateCard {
            card: 2,
            first_line: 4,
            first_col: 13
        }
    );
    // An item and a helper card, in either order.
    let e = err("#3 a(#1 #2) b(#3 #4)");
    assert_eq!(at(&e), (4, 22));
    assert!(matches!(
        e.kind,
        ParseErrorKind::DuplicateCard {
            card: 3,
            first_col: 8,
            ..
        }
    ));
    let e = err("a(#1 #2) b(#3 #4) #1");
    assert_eq!(at(&e), (4, 26));
    assert!(matches!(
        e.kind,
        ParseErrorKind::DuplicateCard { card: 1, .. }
    ));
}

#[test]
fn repeated_numbered_helpers_without_commitments_stay_accepted() {
    // Two-colour layouts keep their old meaning: the duplicate rule is for standard decks.
    let src = "protocol p\ninputs a\nfunction copy\nlayout a #3 #3\nresult 1 2\n";
    assert!(parse(src).is_ok());
}

#[test]
fn commitment_of_an_undeclared_input_is_rejected() {
    let e = err("a b x(#1 #2)");
    assert_eq!(at(&e), (4, 12));
    assert_eq!(e.kind, ParseErrorKind::UndeclaredInput { name: "x".into() });
    let e = err("a b ~x(#1 #2)");
    assert_eq!(at(&e), (4, 12));
    assert_eq!(e.kind, ParseErrorKind::UndeclaredInput { name: "x".into() });
    let e = err("a b 0(#1 #2)");
    assert_eq!(at(&e), (4, 13));
    assert!(matches!(e.kind, ParseErrorKind::Unexpected { .. }), "{e}");
}

#[test]
fn unclosed_commitment_says_what_was_expected() {
    let e = err("a(#1 #2 b");
    assert_eq!(at(&e), (4, 16));
    assert_eq!(
        e.kind,
        ParseErrorKind::CommitmentNotNumbered { found: "b".into() }
    );
    let e = err("a(#1 #2");
    assert_eq!(at(&e), (4, 15));
    assert!(
        matches!(&e.kind, ParseErrorKind::Unexpected { expected, .. } if expected.contains(")")),
        "{e}"
    );
}

#[test]
fn basis_fixed_by_the_view_but_different_between_arrivals_is_flagged_yet_perfect() {
    // The shuffle swaps the two commitments (reversed) and the helpers #5 #6 together; the turn
    // (without branches) shows which, so each arrival at the one `result` has a fixed basis, but
    // the two arrivals differ: {#1,#2} after seeing #5, {#3,#4} after seeing #6.
    let src = "protocol p\ninputs a\nfunction copy\nlayout a(#1 #2) ~a(#3 #4) #5 #6\n\
               shuffle {id, (1 4)(2 3)(5 6)}\nturn 5\nresult 1 2\n";
    let a = analyze(&protocol(src)).expect("analyzes");
    assert!(!a.correct);
    let basis = basis_defects(&a.defects);
    assert_eq!(basis.len(), 1, "{:?}", a.errors());
    assert!(
        a.errors().iter().any(|e| e.contains("#1#2 vs #3#4")),
        "{:?}",
        a.errors()
    );
    assert_eq!(a.security, Security::Perfect);
    // Only the turn's two observations: the basis adds no observation of its own here.
    assert_eq!(a.branches.len(), 2);
}

// ---------------------------------------------------------------------------------------------
// Properties: generated layouts round-trip, mutated files never panic parser or analyzer.

/// A standard-deck protocol from a seed: `k` inputs on distinct cards (drawn from 1..=20, each
/// written lower first), some negated, numbered helpers, items in random order, and a body that
/// turns a card and reads a result.
fn random_standard_protocol(
    k: usize,
    numbers: &[u16],
    negated: &[bool],
    helpers: usize,
    order: &[usize],
) -> Protocol {
    let inputs: Vec<String> = (0..k).map(|i| format!("x{i}")).collect();
    let mut items: Vec<LayoutItem> = (0..k)
        .map(|i| {
            let (x, y) = (numbers[2 * i], numbers[2 * i + 1]);
            LayoutItem::InputOn {
                name: inputs[i].clone(),
                negated: negated[i],
                cards: [Symbol::Card(x.min(y)), Symbol::Card(x.max(y))],
            }
        })
        .collect();
    items.extend((0..helpers).map(|h| LayoutItem::Card(Symbol::Card(numbers[2 * k + h]))));
    // Apply the order as a sequence of swaps (any list of indices is fine).
    for (j, &o) in order.iter().enumerate() {
        let n = items.len();
        items.swap(j % n, o % n);
    }
    let n: usize = items.iter().map(LayoutItem::width).sum();
    let parts = ProtocolParts {
        name: "gen".into(),
        function: if k == 1 {
            Function::Copy
        } else {
            Function::Table((0..1 << k).map(|i| i % 3 == 0).collect())
        },
        inputs,
        layout: items,
        body: vec![
            Action::new(ActionKind::Turn {
                positions: vec![n - 1],
                branches: None,
            }),
            Action::new(ActionKind::Result(vec![(0, 1)])),
        ],
        claim: None,
    };
    Protocol::new(parts).expect("a valid protocol by construction")
}

proptest! {
    #[test]
    fn generated_standard_deck_protocols_round_trip_through_print(
        k in 1usize..=3,
        numbers in Just((1u16..=20).collect::<Vec<u16>>()).prop_shuffle(),
        negated in prop::collection::vec(any::<bool>(), 3),
        helpers in 0usize..=3,
        order in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        let p = random_standard_protocol(k, &numbers, &negated, helpers, &order);
        let text = p.to_string();
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert!(same_up_to_spans(&p, &back), "round trip changed the protocol:\n{}", text);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn parser_and_analyzer_never_panic_on_mutated_standard_deck_files(
        which in 0usize..3,
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 1..8)
    ) {
        let files = [BASIS_FROM_INPUT, BASIS_BY_CHANCE, XOR_STANDARD];
        let text = mutate(files[which], &edits);
        if let Ok(p) = parse(&text) {
            let _ = analyze(&p);
        }
    }
}

const XOR_STANDARD: &str = "protocol xor-standard\ninputs a b\nfunction xor\n\
                            layout a(#1 #2) b(#3 #4)\nperm (2 3)\nshuffle {id, (1 3)(2 4)}\n\
                            perm (2 3)\nturn 1 2 {\n  #1 #2: result 3 4\n  #2 #1: result 4 3\n}\n";

/// Deletes, inserts, replaces or duplicates characters, biased towards the new syntax.
fn mutate(src: &str, edits: &[(usize, u8, usize)]) -> String {
    const ALPHABET: [char; 16] = [
        '(', ')', '#', '1', '2', '9', '0', '~', ' ', '\n', 'a', 'b', '♣', ':', ',', '{',
    ];
    support::mutate(src, edits, &ALPHABET, 12)
}

// ---------------------------------------------------------------------------------------------
// What the search needs: its standard-deck finds, written with `InputOn`, re-check exactly.

/// The layout the search should emit for a standard deck (input `i` on cards `2i`, `2i + 1`,
/// lower first, helpers after), built here from the deck it prints.
fn standard_layout(inputs: &[String], deck: &[Symbol]) -> Vec<LayoutItem> {
    let mut items: Vec<LayoutItem> = inputs
        .iter()
        .enumerate()
        .map(|(i, name)| LayoutItem::InputOn {
            name: name.clone(),
            negated: false,
            cards: [deck[2 * i], deck[2 * i + 1]],
        })
        .collect();
    items.extend(
        deck[2 * inputs.len()..]
            .iter()
            .map(|&c| LayoutItem::Card(c)),
    );
    items
}

#[test]
fn search_finds_for_a_standard_deck_xor_recheck_as_correct_and_perfect_ksk19() {
    use facedown_cards::search::{parse_deck, parse_function, search, SearchQuery, ShuffleClass};
    let deck = parse_deck("1234").expect("deck");
    let mut q = SearchQuery::new(deck.clone(), parse_function("xor").expect("xor"), 3);
    q.shuffles = ShuffleClass::UniformClosed;
    q.committed = true;
    q.single_card_turns = true;
    let out = search(&q).expect("runs");
    assert_eq!(out.length, Some(2));
    assert!(!out.models.is_empty());
    for model in &out.models {
        let mut p = model.parts().clone();
        p.layout = standard_layout(&p.inputs, &deck);
        let text = p.to_string();
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let a = analyze(&p).expect("analyzes");
        assert!(a.correct, "{text}\n{:?}", a.errors());
        assert_eq!(a.security, Security::Perfect, "{text}");
        assert_eq!(a.runtime.as_str(), "finite");
        assert!(a.committed, "{text}");
        assert_eq!(a.max_shuffles, Some(1), "{text}");
    }
}
