//! The `.cards` format (`crates/cards/docs/format.md`): the spec's examples parse into
//! the model, every class of malformed input gets its own typed error at the right line and
//! column, printing round-trips, the library's claims are well-formed, and no input — arbitrary
//! or a mutated valid file — makes the parser panic.

use facedown_cards::analyze::{Endings, Runtime, Security};
use facedown_cards::claim::{Claim, ShuffleBound};
use facedown_cards::library::{builtins, find, load, LoadError};
use facedown_cards::model::{
    Action, ActionKind, Branch, Function, LayoutItem, NamedFunction, Shuffle, ShuffleError, Span, Q,
};
use facedown_cards::parse::{parse, ParseError, ParseErrorKind, MAX_NESTING};
use facedown_cards::print::same_up_to_spans;
use facedown_cards::{Protocol, ProtocolParts};
use facedown_core::{Perm, Symbol};
use num_bigint::BigInt;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::support;

const SPEC_EXAMPLES: [&str; 5] = [
    "five-card-trick",
    "mks-four-card-and",
    "ms09-six-card-and",
    "ms09-four-card-xor",
    "four-card-las-vegas-and",
];

fn source(name: &str) -> &'static str {
    find(name).expect("a built-in").source
}

fn q(n: i64, d: i64) -> Q {
    Q::new(BigInt::from(n), BigInt::from(d))
}

fn perm(n: usize, cycles: &str) -> Perm {
    Perm::parse_cycles(n, cycles).expect("valid cycles")
}

// ---------------------------------------------------------------------------------------------
// The examples of the format specification

#[test]
fn every_example_of_the_format_spec_parses() {
    for name in SPEC_EXAMPLES {
        let p = parse(source(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.name(), name);
        assert_eq!(p.inputs(), ["a", "b"]);
    }
}

#[test]
fn five_card_trick_layout_is_negated_a_heart_b() {
    let p = parse(source("five-card-trick")).expect("parses");
    assert_eq!(
        p.layout(),
        vec![
            LayoutItem::Input {
                name: "a".into(),
                negated: true
            },
            LayoutItem::Card(Symbol::Heart),
            LayoutItem::Input {
                name: "b".into(),
                negated: false
            },
        ]
    );
    assert_eq!(p.cards(), 5);
    // a = 1, b = 1: ~a = ♣♥, then ♥, then b = ♥♣ — the three ♥ are consecutive.
    use Symbol::{Club as C, Heart as H};
    assert_eq!(p.initial_row(&[true, true]), Some(vec![C, H, H, H, C]));
}

#[test]
fn ms09_and_keeps_perms_bisection_and_committed_branches() {
    let p = parse(source("ms09-six-card-and")).expect("parses");
    let kinds: Vec<&ActionKind> = p.body().iter().map(|a| &a.kind).collect();
    assert_eq!(kinds[0], &ActionKind::Perm(perm(6, "(2 4 3)")));
    assert_eq!(
        kinds[1],
        &ActionKind::Shuffle(Shuffle::Bisect(vec![0, 1, 2], vec![3, 4, 5]))
    );
    let ActionKind::Turn {
        positions,
        branches: Some(branches),
    } = kinds[3]
    else {
        panic!("a turn with branches, got {:?}", kinds[3]);
    };
    assert_eq!(positions, &vec![0, 1]);
    assert_eq!(branches[0].observation, vec![Symbol::Club, Symbol::Heart]);
    assert_eq!(branches[0].body[0].kind, ActionKind::Result(vec![(4, 5)]));
    assert_eq!(branches[1].body[0].kind, ActionKind::Result(vec![(2, 3)]));
    // Spans point at the text (the file has 3 comment lines before `protocol`).
    assert_eq!(p.body()[0].span, Span { line: 8, col: 1 });
    assert_eq!(branches[1].span, Span { line: 13, col: 3 });
}

#[test]
fn las_vegas_example_nests_blocks_labels_gotos_and_weights() {
    let p = parse(source("four-card-las-vegas-and")).expect("parses");
    let ActionKind::Turn {
        branches: Some(top),
        ..
    } = &p.body()[2].kind
    else {
        panic!("third action is the branching turn");
    };
    assert_eq!(top.len(), 2);
    let club = &top[0];
    assert_eq!(club.observation, vec![Symbol::Club]);
    assert_eq!(club.body.len(), 4);
    assert_eq!(club.body[1].kind, ActionKind::Label("SC".into()));
    assert_eq!(
        club.body[2].kind,
        ActionKind::Shuffle(Shuffle::Set {
            perms: vec![Perm::identity(4), perm(4, "(1 2)(3 4)")],
            weights: Some(vec![q(1, 3), q(2, 3)]),
        })
    );
    let ActionKind::Turn {
        positions,
        branches: Some(inner),
    } = &club.body[3].kind
    else {
        panic!("the inner turn branches");
    };
    assert_eq!(positions, &vec![3]);
    // `♥: { shuffle {id, (1 3)}; perm (1 3 4 2); goto SH }` — three actions on one line.
    let kinds: Vec<&ActionKind> = inner[1].body.iter().map(|a| &a.kind).collect();
    assert_eq!(
        kinds,
        vec![
            &ActionKind::Shuffle(Shuffle::Set {
                perms: vec![Perm::identity(4), perm(4, "(1 3)")],
                weights: None
            }),
            &ActionKind::Perm(perm(4, "(1 3 4 2)")),
            &ActionKind::Goto("SH".into()),
        ]
    );
    let cols: Vec<usize> = inner[1].body.iter().map(|a| a.span.col).collect();
    assert_eq!(cols, vec![12, 33, 49]);
}

#[test]
fn mks_branch_bodies_are_single_turns_on_the_branch_line() {
    let p = parse(source("mks-four-card-and")).expect("parses");
    let ActionKind::Turn {
        positions,
        branches: Some(bs),
    } = &p.body()[2].kind
    else {
        panic!("a branching turn");
    };
    assert_eq!(positions, &vec![1]);
    assert_eq!(
        bs[0].body,
        vec![Action {
            kind: ActionKind::Turn {
                positions: vec![0],
                branches: None
            },
            span: Span { line: 11, col: 6 },
        }]
    );
}

#[test]
fn ascii_symbols_semicolons_comments_and_numbered_cards_are_accepted() {
    let src = "# a comment line\n\
               protocol ascii   # trailing comment\n\
               inputs a\n\
               function 01\n\
               layout a C h #7\n\
               perm (1,2) ; shuffle cut 1 2 3 4 5\n\
               turn 1 2 { CH: result 1 2\n hc: { restart } }\n\
               turn 5 { #7: label X; c: goto X\n}\n";
    let p = parse(src).expect("parses");
    assert_eq!(p.function(), &Function::Table(vec![false, true]));
    assert_eq!(
        &p.layout()[1..],
        &[
            LayoutItem::Card(Symbol::Club),
            LayoutItem::Card(Symbol::Heart),
            LayoutItem::Card(Symbol::Card(7))
        ]
    );
    assert_eq!(p.body().len(), 4);
    let ActionKind::Turn {
        branches: Some(bs), ..
    } = &p.body()[3].kind
    else {
        panic!("branching turn");
    };
    assert_eq!(bs[0].observation, vec![Symbol::Card(7)]);
    assert_eq!(bs[1].body[0].kind, ActionKind::Goto("X".into()));
}

#[test]
fn header_lines_may_come_in_any_order_and_generated_shuffles_parse() {
    let src = "layout a b\nfunction 0110\ninputs a b\nprotocol g\nshuffle <(1 2), (1 2 3 4)>\n";
    let p = parse(src).expect("parses");
    assert_eq!(
        p.body()[0].kind,
        ActionKind::Shuffle(Shuffle::Generated(vec![
            perm(4, "(1 2)"),
            perm(4, "(1 2 3 4)")
        ]))
    );
    let named: Protocol = "protocol x\ninputs a b c\nfunction xnor\nlayout a b c"
        .parse()
        .expect("FromStr works too");
    assert_eq!(named.function(), &Function::Named(NamedFunction::Xnor));
    assert_eq!(named.cards(), 6, "declared input `c` wins over the club");
}

// ---------------------------------------------------------------------------------------------
// Malformed input: one test per class, each checking the kind and the position.

/// Six cards; actions start on line 5.
const H6: &str = "protocol t\ninputs a b\nfunction and\nlayout a b 0\n";

fn err(src: &str) -> ParseError {
    match parse(src) {
        Ok(p) => panic!("expected an error, parsed {p:?}"),
        Err(e) => e,
    }
}

fn err6(actions: &str) -> ParseError {
    err(&format!("{H6}{actions}"))
}

fn at(e: &ParseError) -> (usize, usize) {
    (e.line, e.col)
}

#[test]
fn position_out_of_range_names_the_position_and_the_card_count() {
    let e = err6("perm (1 7)\n");
    assert_eq!(at(&e), (5, 9));
    assert_eq!(
        e.kind,
        ParseErrorKind::PositionOutOfRange {
            position: "7".into(),
            cards: 6
        }
    );
    let e = err6("turn 0\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (5, 6),
            &ParseErrorKind::PositionOutOfRange {
                position: "0".into(),
                cards: 6
            }
        )
    );
    let e = err6("result 1 99999999999999999999999\n");
    assert!(matches!(e.kind, ParseErrorKind::PositionOutOfRange { .. }));
    assert_eq!(at(&e), (5, 10));
}

#[test]
fn repeated_position_in_turn_cut_bisect_and_result_is_rejected() {
    let e = err6("turn 1 3 3\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((5, 10), &ParseErrorKind::RepeatedPosition { position: 3 })
    );
    let e = err6("shuffle cut 1 2 1\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((5, 17), &ParseErrorKind::RepeatedPosition { position: 1 })
    );
    let e = err6("shuffle bisect 1 2 | 2 3\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((5, 22), &ParseErrorKind::RepeatedPosition { position: 2 })
    );
    let e = err6("result 1 2, 3 1\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((5, 15), &ParseErrorKind::RepeatedPosition { position: 1 })
    );
}

#[test]
fn cycles_sharing_a_position_are_not_a_permutation() {
    let e = err6("perm (1 2)(2 3)\n");
    assert_eq!(at(&e), (5, 12));
    assert_eq!(e.kind, ParseErrorKind::NotAPermutation { position: 2 });
    let e = err6("shuffle {id, (1 2 1)}\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((5, 19), &ParseErrorKind::NotAPermutation { position: 1 })
    );
}

#[test]
fn weights_not_summing_to_one_are_rejected_at_the_brace() {
    let e = err6("shuffle {id: 1/3, (1 2): 1/3}\n");
    assert_eq!(at(&e), (5, 9));
    assert_eq!(
        e.kind,
        ParseErrorKind::Shuffle(ShuffleError::WeightsSum(q(2, 3)))
    );
}

#[test]
fn negative_weight_is_rejected_at_the_weight() {
    let e = err6("shuffle {id: -1/3, (1 2): 4/3}\n");
    assert_eq!(at(&e), (5, 14));
    assert_eq!(
        e.kind,
        ParseErrorKind::Shuffle(ShuffleError::NegativeWeight(q(-1, 3)))
    );
}

#[test]
fn weights_on_some_permutations_only_is_a_wrong_weight_count() {
    let e = err6("shuffle {id: 1/2, (1 2)}\n");
    assert_eq!(at(&e), (5, 9));
    assert_eq!(
        e.kind,
        ParseErrorKind::Shuffle(ShuffleError::WeightCount {
            perms: 2,
            weights: 1
        })
    );
}

#[test]
fn malformed_weights_and_zero_denominators_are_typed() {
    let e = err6("shuffle {id: 1/0, (1 2): 1}\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (5, 14),
            &ParseErrorKind::ZeroDenominator {
                found: "1/0".into()
            }
        )
    );
    let e = err6("shuffle {id: 0.5, (1 2): 0.5}\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (5, 14),
            &ParseErrorKind::BadWeight {
                found: "0.5".into()
            }
        )
    );
}

#[test]
fn empty_shuffle_set_is_rejected() {
    let e = err6("shuffle {}\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((5, 9), &ParseErrorKind::Shuffle(ShuffleError::Empty))
    );
}

#[test]
fn bisection_halves_of_unequal_length_are_rejected() {
    let e = err6("shuffle bisect 1 2 3 | 4 5\n");
    assert_eq!(at(&e), (5, 9));
    assert_eq!(
        e.kind,
        ParseErrorKind::Shuffle(ShuffleError::BisectHalves { left: 3, right: 2 })
    );
}

#[test]
fn observation_length_must_match_the_turned_cards() {
    let e = err6("turn 1 2 {\n  ♣: result 3 4\n}\n");
    assert_eq!(at(&e), (6, 3));
    assert_eq!(
        e.kind,
        ParseErrorKind::ObservationLength {
            observation: "♣".into(),
            found: 1,
            expected: 2
        }
    );
}

#[test]
fn duplicate_branch_names_the_first_line() {
    let e = err6("turn 1 {\n  ♣: result 3 4\n  C: result 5 6\n}\n");
    assert_eq!(at(&e), (7, 3));
    assert_eq!(
        e.kind,
        ParseErrorKind::DuplicateBranch {
            observation: "♣".into(),
            first_line: 6
        }
    );
}

#[test]
fn undeclared_input_in_the_layout_is_rejected() {
    let e = err("protocol t\ninputs a b\nfunction and\nlayout a ~x b\n");
    assert_eq!(at(&e), (4, 10));
    assert_eq!(e.kind, ParseErrorKind::UndeclaredInput { name: "x".into() });
    let e = err("protocol t\ninputs a b\nfunction and\nlayout a b y\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (4, 12),
            &ParseErrorKind::UndeclaredInput { name: "y".into() }
        )
    );
}

#[test]
fn input_declared_but_not_laid_out_is_rejected_at_its_declaration() {
    let e = err("protocol t\ninputs a b\nfunction and\nlayout a ♣ ♥\n");
    assert_eq!(at(&e), (2, 10));
    assert_eq!(e.kind, ParseErrorKind::InputNotLaidOut { name: "b".into() });
}

#[test]
fn truth_table_must_have_two_to_the_inputs_entries() {
    let e = err("protocol t\ninputs a b\nfunction 01101001\nlayout a b\n");
    assert_eq!(at(&e), (3, 10));
    assert_eq!(
        e.kind,
        ParseErrorKind::TruthTableLength {
            found: 8,
            inputs: 2,
            expected: 4
        }
    );
}

#[test]
fn copy_with_more_than_one_input_is_rejected() {
    let e = err("protocol t\ninputs a b\nfunction copy\nlayout a b\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((3, 10), &ParseErrorKind::CopyArity { inputs: 2 })
    );
}

#[test]
fn unknown_function_is_rejected() {
    let e = err("protocol t\ninputs a b\nfunction implies\nlayout a b\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (3, 10),
            &ParseErrorKind::UnknownFunction {
                found: "implies".into(),
                suggestion: None,
            }
        )
    );
}

#[test]
fn goto_to_an_undefined_label_is_rejected_at_the_name() {
    let e = err6("label A\nturn 1 {\n  ♣: goto A\n  ♥: goto B\n}\n");
    assert_eq!(at(&e), (8, 11));
    assert_eq!(e.kind, ParseErrorKind::UndefinedLabel { name: "B".into() });
}

#[test]
fn label_defined_twice_is_rejected_even_in_different_branches() {
    let e = err6("turn 1 {\n  ♣: label L\n  ♥: label L\n}\n");
    assert_eq!(at(&e), (7, 12));
    assert_eq!(
        e.kind,
        ParseErrorKind::DuplicateLabel {
            name: "L".into(),
            first_line: 6
        }
    );
}

#[test]
fn missing_header_lines_are_named() {
    let e = err("protocol t\ninputs a b\nlayout a b\nturn 1\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (4, 1),
            &ParseErrorKind::MissingHeader {
                keyword: "function"
            }
        )
    );
    let e = err("");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (1, 1),
            &ParseErrorKind::MissingHeader {
                keyword: "protocol"
            }
        )
    );
    let e = err("protocol t\nfunction and\nlayout a b\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((4, 1), &ParseErrorKind::MissingHeader { keyword: "inputs" })
    );
    let e = err("protocol t\ninputs a\nfunction and\n");
    assert_eq!(e.kind, ParseErrorKind::MissingHeader { keyword: "layout" });
}

#[test]
fn duplicate_and_late_header_lines_are_rejected() {
    let e = err("protocol t\ninputs a b\nprotocol u\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (3, 1),
            &ParseErrorKind::DuplicateHeader {
                keyword: "protocol",
                first_line: 1
            }
        )
    );
    let e = err6("turn 1\nlayout a b\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (6, 1),
            &ParseErrorKind::HeaderAfterActions { keyword: "layout" }
        )
    );
}

#[test]
fn unknown_keywords_are_rejected_in_the_body_and_before_the_header() {
    let e = err6("turn 1\n  flip 2\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (6, 3),
            &ParseErrorKind::UnknownKeyword {
                found: "flip".into(),
                suggestion: None,
            }
        )
    );
    let e = err("protokoll t\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (1, 1),
            &ParseErrorKind::UnknownKeyword {
                found: "protokoll".into(),
                suggestion: Some("protocol"),
            }
        )
    );
    let e = err6("turn 1 {\n  ♣: swap 1 2\n}\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (6, 6),
            &ParseErrorKind::UnknownKeyword {
                found: "swap".into(),
                suggestion: None,
            }
        )
    );
}

#[test]
fn unterminated_blocks_are_reported_at_their_opening_brace() {
    let e = err6("turn 1 {\n  ♣: result 1 2\n  ♥: result 2 1\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((5, 8), &ParseErrorKind::UnterminatedBlock)
    );
    let e = err6("turn 1 {\n  ♣: {\n    result 1 2\n  ♥: result 2 1\n}\n");
    // Without its `}`, the inner block reads the next branch's `♥` as an action.
    assert!(matches!(e.kind, ParseErrorKind::Unexpected { .. }), "{e}");
    assert_eq!(at(&e), (8, 3));
    let e = err6("turn 1 {\n  ♣: {\n    result 1 2\n  }\n  ♥: { restart\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((9, 6), &ParseErrorKind::UnterminatedBlock)
    );
    let e = err6("shuffle {id, (1 2)\n\n");
    assert_eq!(
        (at(&e), &e.kind),
        ((5, 9), &ParseErrorKind::UnterminatedBlock)
    );
}

#[test]
fn trailing_garbage_after_a_statement_is_rejected() {
    let e = err6("turn 1 2 x\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (5, 10),
            &ParseErrorKind::TrailingGarbage {
                found: "`x`".into()
            }
        )
    );
    let e = err6("perm (1 2) )\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (5, 12),
            &ParseErrorKind::TrailingGarbage {
                found: "`)`".into()
            }
        )
    );
    let e = err("protocol two words\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (1, 14),
            &ParseErrorKind::TrailingGarbage {
                found: "`words`".into()
            }
        )
    );
    let e = err6("restart\n}\n");
    assert!(matches!(e.kind, ParseErrorKind::Unexpected { .. }));
    assert_eq!(at(&e), (6, 1));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "turn 1 { ♣: ".repeat(50_000);
    let e = err6(&deep);
    assert_eq!(e.kind, ParseErrorKind::TooDeep { max: MAX_NESTING });
    assert_eq!(at(&e), (5, 8 + 12 * MAX_NESTING));
    // Just inside the limit is fine.
    let ok = format!(
        "{}restart{}",
        "turn 1 { ♣: ".repeat(MAX_NESTING),
        " }".repeat(MAX_NESTING)
    );
    let p = parse(&format!("{H6}{ok}")).expect("nesting at the limit parses");
    let text = p.to_string();
    assert!(same_up_to_spans(&p, &parse(&text).expect("prints back")));
}

#[test]
fn byte_order_mark_is_ignored() {
    let p = parse(&format!("\u{feff}{}", source("ms09-copy"))).expect("parses");
    assert_eq!(p.name(), "ms09-copy");
}

#[test]
fn turn_positions_must_increase() {
    let e = err6("turn 3 1\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (5, 8),
            &ParseErrorKind::TurnOrder {
                previous: 3,
                position: 1
            }
        )
    );
}

#[test]
fn syntax_errors_say_what_was_found_and_what_was_expected() {
    let e = err6("turn\n");
    assert_eq!(at(&e), (5, 5));
    let ParseErrorKind::Unexpected { found, expected } = &e.kind else {
        panic!("unexpected-token error, got {e}");
    };
    assert_eq!(found, "end of line");
    assert!(expected.contains("position (1..=6)"), "{expected}");
    assert_eq!(
        e.to_string(),
        "line 5, column 5: found end of line, expected a position (1..=6)"
    );
    let e = err6("shuffle riffle\n");
    assert_eq!(at(&e), (5, 9));
    assert!(e.to_string().contains("found `riffle`"), "{e}");
    let e = err6("turn 1 {\n  ♣ result 1 2\n}\n");
    assert_eq!(at(&e), (6, 5));
    assert!(e.to_string().contains("expected `:`"), "{e}");
}

#[test]
fn bad_card_numbers_and_input_names_are_typed() {
    let e = err("protocol t\ninputs a\nfunction copy\nlayout a #70000\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (4, 10),
            &ParseErrorKind::BadCardNumber {
                found: "70000".into()
            }
        )
    );
    let e = err("protocol t\ninputs a 2b\nfunction and\nlayout a\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (2, 10),
            &ParseErrorKind::BadInputName { found: "2b".into() }
        )
    );
    let e = err("protocol t\ninputs a a\nfunction and\nlayout a\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (2, 10),
            &ParseErrorKind::DuplicateInput { name: "a".into() }
        )
    );
}

#[test]
fn column_is_counted_in_characters_after_unicode_symbols() {
    // `♣` and `♥` are 3 bytes each in UTF-8; the column counts them as one.
    let e = err("protocol t\ninputs a\nfunction copy\nlayout ♣♥ a ♣ zz\n");
    assert_eq!(
        (at(&e), &e.kind),
        (
            (4, 15),
            &ParseErrorKind::UndeclaredInput { name: "zz".into() }
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Printing

#[test]
fn every_library_protocol_round_trips_through_print() {
    for b in builtins() {
        let p = b.protocol();
        let text = p.to_string();
        let back = parse(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", b.name));
        assert!(same_up_to_spans(&p, &back), "{}:\n{text}", b.name);
        assert_eq!(
            back.to_string(),
            text,
            "printing is idempotent for {}",
            b.name
        );
    }
}

#[test]
fn printed_las_vegas_protocol_is_the_canonical_text() {
    let p = parse(source("four-card-las-vegas-and")).expect("parses");
    let expected = "\
protocol four-card-las-vegas-and
inputs a b
function and
layout a b
claim correct committed perfect las-vegas expected-shuffles=8 max-shuffles=unbounded
shuffle {id, (1 3)(2 4)}
shuffle {id, (2 3)}
turn 2 {
  ♣: {
    shuffle {id, (1 3)}
    label SC
    shuffle {id: 1/3, (1 2)(3 4): 2/3}
    turn 4 {
      ♣: result 1 2
      ♥: {
        shuffle {id, (1 3)}
        perm (1 3 4 2)
        goto SH
      }
    }
  }
  ♥: {
    shuffle {id, (3 4)}
    label SH
    shuffle {id: 1/3, (1 3)(2 4): 2/3}
    turn 1 {
      ♥: result 2 4
      ♣: {
        shuffle {id, (3 4)}
        perm (1 2 4 3)
        goto SC
      }
    }
  }
}
";
    assert_eq!(p.to_string(), expected);
}

#[test]
fn spans_differ_but_protocols_compare_equal_up_to_spans() {
    let a = parse(source("ms09-four-card-xor")).expect("parses");
    let b = parse(&a.to_string()).expect("parses");
    assert_ne!(a, b, "the comment lines shift every span");
    assert!(same_up_to_spans(&a, &b));
    let c =
        parse(&source("ms09-four-card-xor").replace("result 4 3", "result 3 4")).expect("parses");
    assert!(
        !same_up_to_spans(&a, &c),
        "a changed result is a different protocol"
    );
}

/// A random valid protocol (every semantic check of the parser holds by construction).
pub(crate) fn random_protocol(seed: u64) -> Protocol {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let k = rng.gen_range(1..=3);
    let mut names = ["a", "b", "c", "x1", "in_2", "h'"];
    names.shuffle(&mut rng);
    let inputs: Vec<String> = names[..k].iter().map(|s| s.to_string()).collect();
    let function = match rng.gen_range(0..3) {
        0 if k == 1 => Function::Copy,
        0 | 1 => Function::Table((0..1 << k).map(|_| rng.gen()).collect()),
        _ => Function::Named(*NamedFunction::ALL.choose(&mut rng).expect("non-empty")),
    };
    let mut layout: Vec<LayoutItem> = inputs
        .iter()
        .map(|n| LayoutItem::Input {
            name: n.clone(),
            negated: rng.gen(),
        })
        .collect();
    for _ in 0..rng.gen_range(0..3) {
        layout.push(match rng.gen_range(0..4) {
            0 => LayoutItem::Constant(rng.gen()),
            1 => LayoutItem::Card(Symbol::Club),
            2 => LayoutItem::Card(Symbol::Heart),
            _ => LayoutItem::Card(Symbol::Card(rng.gen_range(0..100))),
        });
    }
    layout.shuffle(&mut rng);
    let n: usize = layout.iter().map(LayoutItem::width).sum();
    let mut g = Gen {
        rng,
        n,
        labels: Vec::new(),
    };
    let body = g.actions(3);
    let claim = g.claim();
    Protocol::new(ProtocolParts {
        name: format!("random-{seed}"),
        inputs,
        function,
        layout,
        body,
        claim,
    })
    .expect("a valid protocol by construction")
}

struct Gen {
    rng: ChaCha8Rng,
    n: usize,
    labels: Vec<String>,
}

impl Gen {
    /// No claim, or a claim of some of the possible items.
    fn claim(&mut self) -> Option<Claim> {
        if self.rng.gen_bool(0.5) {
            return None;
        }
        let mut claim = Claim::default();
        if self.rng.gen() {
            claim.correct = Some(self.rng.gen());
        }
        if self.rng.gen() {
            claim.endings = Endings::ALL.choose(&mut self.rng).copied();
        }
        claim.security = Security::ALL.choose(&mut self.rng).copied();
        if self.rng.gen() {
            claim.runtime = Runtime::ALL.choose(&mut self.rng).copied();
        }
        if self.rng.gen() {
            claim.expected_shuffles = Some(q(self.rng.gen_range(0..20), self.rng.gen_range(1..7)));
        }
        if self.rng.gen() {
            claim.max_shuffles = Some(match self.rng.gen_range(0..4) {
                0 => ShuffleBound::Unbounded,
                n => ShuffleBound::At(n),
            });
        }
        Some(claim)
    }

    fn subset(&mut self, min: usize, max: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..self.n).collect();
        all.shuffle(&mut self.rng);
        let len = self.rng.gen_range(min..=max.min(self.n));
        all.truncate(len);
        all
    }

    fn perm(&mut self) -> Perm {
        Perm::random_with_rng(self.n, &mut self.rng)
    }

    fn shuffle(&mut self) -> Shuffle {
        match self.rng.gen_range(0..5) {
            0 => Shuffle::Set {
                perms: (0..self.rng.gen_range(1..4)).map(|_| self.perm()).collect(),
                weights: None,
            },
            1 => {
                let m = self.rng.gen_range(1..4);
                let raw: Vec<i64> = (0..m).map(|_| self.rng.gen_range(0..5)).collect();
                let total: i64 = raw.iter().sum::<i64>().max(1);
                let mut weights: Vec<Q> = raw.iter().map(|&w| q(w, total)).collect();
                if raw.iter().all(|&w| w == 0) {
                    weights[0] = q(1, 1);
                }
                Shuffle::Set {
                    perms: (0..m).map(|_| self.perm()).collect(),
                    weights: Some(weights),
                }
            }
            // Keep generated groups small enough to enumerate.
            2 if self.n <= 6 => {
                Shuffle::Generated((0..self.rng.gen_range(1..3)).map(|_| self.perm()).collect())
            }
            3 if self.n >= 2 => {
                let both = self.subset(2, 6);
                let half = both.len() / 2;
                Shuffle::Bisect(both[..half].to_vec(), both[half..2 * half].to_vec())
            }
            _ => Shuffle::Cut(self.subset(1, 5)),
        }
    }

    fn observation(&mut self, len: usize) -> Vec<Symbol> {
        (0..len)
            .map(|_| match self.rng.gen_range(0..5) {
                0 => Symbol::Card(self.rng.gen_range(0..20)),
                1 | 2 => Symbol::Club,
                _ => Symbol::Heart,
            })
            .collect()
    }

    fn action(&mut self, depth: usize) -> ActionKind {
        match self.rng.gen_range(0..9) {
            0 => ActionKind::Perm(self.perm()),
            1 | 2 => ActionKind::Shuffle(self.shuffle()),
            3 | 4 => {
                let mut positions = self.subset(1, 3);
                positions.sort_unstable();
                let branches = if depth > 0 && self.rng.gen() {
                    let mut bs: Vec<Branch> = Vec::new();
                    for _ in 0..self.rng.gen_range(0..4) {
                        let observation = self.observation(positions.len());
                        if bs.iter().any(|b| b.observation == observation) {
                            continue;
                        }
                        let body = self.actions(depth - 1);
                        bs.push(Branch {
                            observation,
                            body,
                            span: Span::default(),
                        });
                    }
                    Some(bs)
                } else {
                    None
                };
                ActionKind::Turn {
                    positions,
                    branches,
                }
            }
            5 if self.n >= 2 => {
                let ps = self.subset(2, 4);
                ActionKind::Result(ps.chunks_exact(2).map(|c| (c[0], c[1])).collect())
            }
            6 => {
                let l = format!("L{}", self.labels.len());
                self.labels.push(l.clone());
                ActionKind::Label(l)
            }
            7 if !self.labels.is_empty() => ActionKind::Goto(
                self.labels
                    .choose(&mut self.rng)
                    .expect("non-empty")
                    .clone(),
            ),
            _ => ActionKind::Restart,
        }
    }

    fn actions(&mut self, depth: usize) -> Vec<Action> {
        (0..self.rng.gen_range(0..4))
            .map(|_| Action::new(self.action(depth)))
            .collect()
    }
}

proptest! {
    #[test]
    fn generated_protocols_round_trip_through_print(seed in any::<u64>()) {
        let p = random_protocol(seed);
        let text = p.to_string();
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert!(same_up_to_spans(&p, &back), "round trip changed the protocol:\n{}", text);
    }
}

// ---------------------------------------------------------------------------------------------
// No input panics the parser.

const PIECES: [&str; 40] = [
    "protocol", "inputs", "function", "layout", "perm", "shuffle", "turn", "result", "label",
    "goto", "restart", "cut", "bisect", "id", "and", "copy", "0001", "a", "b", "~", "♣", "♥", "C",
    "#3", "{", "}", "(", ")", "<", ">", ",", ":", ";", "|", "/", "\n", "1", "2", "7", "65537",
];

fn mutate(src: &str, edits: &[(usize, u8, usize)]) -> String {
    const ALPHABET: [char; 24] = [
        '{', '}', '(', ')', ';', '\n', '#', '1', '9', '0', '♣', '♥', 'C', 'x', ':', ',', '|', '<',
        '>', '/', '-', '~', ' ', '7',
    ];
    support::mutate(src, edits, &ALPHABET, 40)
}

proptest! {
    #[test]
    fn parse_never_panics_on_arbitrary_strings(s in any::<String>()) {
        let _ = parse(&s);
    }

    #[test]
    fn parse_never_panics_on_format_like_strings(
        s in "[a-z♣♥#0-9(){}<>,:;|/~ \n-]{0,300}"
    ) {
        let _ = parse(&s);
    }

    #[test]
    fn parse_never_panics_on_token_soup_after_a_header(
        pieces in prop::collection::vec(prop::sample::select(&PIECES[..]), 0..80)
    ) {
        let _ = parse(&format!("{H6}{}", pieces.join(" ")));
        let _ = parse(&pieces.join(" "));
    }

    #[test]
    fn parse_never_panics_on_mutated_library_files(
        which in any::<usize>(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 1..8)
    ) {
        let b = &builtins()[which % builtins().len()];
        let text = mutate(b.source, &edits);
        if let Err(e) = parse(&text) {
            // Positions point inside the text (or just past its end).
            let lines = text.split('\n').count();
            prop_assert!(e.line >= 1 && e.line <= lines, "{} for\n{}", e, text);
            prop_assert!(e.col >= 1);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The library

#[test]
fn library_claims_state_every_verdict_and_are_consistent() {
    for b in builtins() {
        let c = b.claim();
        assert!(c.is_complete(), "{}: {c}", b.name);
        assert_eq!(c.to_string().parse::<Claim>(), Ok(c.clone()), "{}", b.name);
        let e = c.expected_shuffles.clone().expect("complete");
        match c.runtime {
            Some(Runtime::Finite) => {
                let Some(ShuffleBound::At(max)) = c.max_shuffles else {
                    panic!("{}: finite protocols have a maximum", b.name);
                };
                assert!(Q::from_integer(BigInt::from(max)) >= e, "{}", b.name);
            }
            _ => assert_eq!(c.max_shuffles, Some(ShuffleBound::Unbounded), "{}", b.name),
        }
        if b.negative_example {
            assert!(
                c.security != Some(Security::Perfect) || c.correct == Some(false),
                "{}: a negative example is insecure or incorrect",
                b.name
            );
        }
        assert!(
            b.source.contains(&format!("[{}]", b.citation)),
            "{}'s comments cite [{}]",
            b.name,
            b.citation
        );
        assert!(
            b.source.contains("\nclaim "),
            "{} states its claim on a claim line",
            b.name
        );
    }
    let negatives: Vec<&str> = builtins()
        .iter()
        .filter(|b| b.negative_example)
        .map(|b| b.name)
        .collect();
    assert_eq!(
        negatives,
        [
            "five-card-trick-no-cut",
            "mks-without-first-shuffle",
            "five-card-trick-third-colour",
            "ms09-and-helper-in-other-colours",
            "private-three-card-and-extra-turn",
            "private-four-card-majority-two-turned",
            "private-two-card-and-leftover-turned",
            "one-card-five-card-trick-attempt",
            "half-adder-sum-not-negated",
            "and-or-at-once-copy-unshuffled",
            "toy-mixed-and-peek",
            "five-card-trick-one-private-cut",
            "ono-manabe-xor-early-look",
            "ono-manabe-xor-turned-mask",
            "one-hot-add-mod-3-biased-shift",
            "one-hot-add-mod-3-one-row-shifted",
        ]
    );
}

#[test]
fn library_variants_differ_from_their_originals_only_where_stated() {
    let and = parse(source("ms09-six-card-and")).expect("parses");
    let nand = parse(source("ms09-six-card-nand")).expect("parses");
    assert_eq!(nand.layout(), and.layout());
    assert_eq!(nand.function(), &Function::Named(NamedFunction::Nand));
    let or = parse(source("ms09-six-card-or")).expect("parses");
    assert_eq!(or.body().len(), and.body().len());
    let no_cut = parse(source("five-card-trick-no-cut")).expect("parses");
    let trick = parse(source("five-card-trick")).expect("parses");
    assert_eq!(no_cut.layout(), trick.layout());
    assert_eq!(no_cut.body().len(), trick.body().len() - 1);
    let mks = parse(source("mks-four-card-and")).expect("parses");
    let broken = parse(source("mks-without-first-shuffle")).expect("parses");
    let mut without_first = mks.without_spans();
    without_first.body.remove(0);
    let mut renamed = broken.without_spans();
    renamed.name = mks.name().to_owned();
    without_first.claim = None;
    renamed.claim = None;
    assert_eq!(without_first, renamed);
}

#[test]
fn biased_cut_puts_one_fifth_minus_epsilon_on_the_identity() {
    // Kim–Cetinkaya [KC25]: identity 1/5 − ε, each other rotation 1/5 + ε/4, ε = 1/20.
    let p = parse(source("five-card-trick-biased-cut")).expect("parses");
    let ActionKind::Shuffle(s) = &p.body()[0].kind else {
        panic!("the first action is the cut");
    };
    let dist = s.distribution(5).expect("valid");
    let eps = q(1, 20);
    let fifth = q(1, 5);
    let uniform = Shuffle::Cut(vec![0, 1, 2, 3, 4])
        .distribution(5)
        .expect("valid");
    assert_eq!(dist.len(), 5);
    for ((p, w), (u, _)) in dist.iter().zip(&uniform) {
        assert_eq!(p, u, "the support is exactly the five rotations");
        let expected = if p.is_identity() {
            &fifth - &eps
        } else {
            &fifth + &eps / Q::from_integer(BigInt::from(4))
        };
        assert_eq!(w, &expected);
    }
}

#[test]
fn load_reads_builtins_files_and_reports_bad_ones() {
    let p = load("ms09-copy").expect("a built-in");
    assert_eq!(p.function(), &Function::Copy);

    let dir = std::env::temp_dir().join(format!("facedown-format-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("good.cards");
    std::fs::write(&good, source("ms09-four-card-xor")).expect("write");
    let from_file = load(good.to_str().expect("utf-8 path")).expect("a valid file");
    assert!(same_up_to_spans(
        &from_file,
        &parse(source("ms09-four-card-xor")).expect("parses")
    ));

    let bad = dir.join("bad.cards");
    std::fs::write(&bad, format!("{H6}turn 9\n")).expect("write");
    let e = load(bad.to_str().expect("utf-8 path")).expect_err("position 9 of 6");
    let LoadError::Parse { path, source, .. } = &e else {
        panic!("a parse error, got {e}");
    };
    assert_eq!(path, &bad);
    assert_eq!((source.line, source.col), (5, 6));
    assert!(
        e.to_string()
            .starts_with(&format!("{}: line 5, column 6", bad.display())),
        "{e}"
    );

    let missing = dir.join("missing.cards");
    let e = load(missing.to_str().expect("utf-8 path")).expect_err("no such file");
    assert!(matches!(e, LoadError::Unreadable { .. }), "{e}");
    assert!(e.to_string().contains("neither a built-in protocol"), "{e}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}
