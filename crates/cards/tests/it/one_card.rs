//! One card per bit (`a[1]`: ♥ for 1, ♣ for 0) and one-card outputs (`result P`): the two-card
//! AND of the private model and its leftover-turned pitfall, AND of `n` bits on `n` cards, the
//! reading and printing of the encoding and its refusals, and the public model's limit: with
//! permutations and shuffles alone no protocol on one-card inputs computes AND or XOR securely
//! (the proof is in `docs/format.md`, "One card per bit"; here it is checked on every protocol of
//! a small shape, and on the library's flagged attempt).

use crate::support::{assert_analyses_as_claimed, assert_every_player_at_distance, protocol};

use facedown_cards::analyze::{analyze, Defect, Security};
use facedown_cards::model::{ActionKind, LayoutItem, Q};
use facedown_cards::parse::parse;
use facedown_core::Perm;

fn q(n: i64) -> Q {
    Q::from_integer(n.into())
}

const TWO_CARD_AND: &str = include_str!("../../protocols/one-card/private-two-card-and.cards");
const LEFTOVER_TURNED: &str =
    include_str!("../../protocols/one-card/private-two-card-and-leftover-turned.cards");
const PUBLIC_ATTEMPT: &str =
    include_str!("../../protocols/one-card/one-card-five-card-trick-attempt.cards");

#[test]
fn one_card_and_of_the_private_model_is_correct_committed_and_perfect_on_two_cards() {
    let p = protocol(TWO_CARD_AND);
    assert_eq!(p.cards(), 2, "half the four cards of any public-model AND");
    assert_analyses_as_claimed(&p);
    let a = analyze(&p).expect("analyses");
    assert!(a.correct && a.committed);
    assert_eq!(a.security, Security::Perfect);
    assert_every_player_at_distance(&a, 0);
}

#[test]
fn turning_the_leftover_card_of_the_two_card_and_shows_alices_bit_when_b_is_0() {
    let p = protocol(LEFTOVER_TURNED);
    assert_analyses_as_claimed(&p);
    let a = analyze(&p).expect("analyses");
    assert!(a.correct, "the output card is still right");
    assert_eq!(a.security, Security::Insecure);
    assert_eq!(a.tv_distance, Some(q(1)));
    assert_every_player_at_distance(&a, 1);
}

/// AND of `n` bits on `n` cards: `x1` on one card beside `n − 1` ♣; every other holder turns
/// the row by one place when his bit is 0, so card 1 keeps `x1`'s card only when no bit is 0.
fn one_card_and_source(n: usize) -> String {
    let names: Vec<String> = (1..=n).map(|i| format!("x{i}")).collect();
    let cycle: Vec<String> = (1..=n).map(|c| c.to_string()).collect();
    let mut src = format!(
        "protocol and-of-{n}-on-{n}-cards\ninputs {}\nfunction and\nlayout x1[1]{}\n",
        names.join(" "),
        " ♣".repeat(n - 1)
    );
    for x in &names[1..] {
        src.push_str(&format!("private {x} perm ({}) | id\n", cycle.join(" ")));
    }
    src.push_str("result 1\n");
    src
}

#[test]
fn and_of_two_to_six_bits_on_as_many_cards_with_one_card_per_bit_is_correct_and_perfect() {
    for n in 2..=6 {
        let p = protocol(&one_card_and_source(n));
        assert_eq!(p.cards(), n);
        let a = analyze(&p).expect("analyses");
        assert!(a.correct && a.committed, "n = {n}: {:?}", a.defects);
        assert_eq!(a.security, Security::Perfect, "n = {n}");
        assert!(
            a.players.iter().all(|l| l.tv_distance == Some(q(0))),
            "n = {n}"
        );
    }
}

#[test]
fn the_five_card_tricks_cut_on_one_card_per_bit_shows_how_many_bits_are_1() {
    let p = protocol(PUBLIC_ATTEMPT);
    assert_analyses_as_claimed(&p);
    let a = analyze(&p).expect("analyses");
    assert!(a.correct, "two ♥ show exactly when a ∧ b = 1");
    assert_eq!(a.security, Security::Insecure);
    assert_eq!(a.tv_distance, Some(q(1)), "00 and 01 look different");
}

#[test]
fn one_card_items_read_print_and_read_back_the_same() {
    let src = "protocol p\ninputs a b\nfunction 0100\nlayout ~a[1] b[1] ♣\nresult 2\n";
    let p = parse(src).expect("reads");
    assert_eq!(
        p.layout()[0],
        LayoutItem::OneCard {
            name: "a".to_owned(),
            negated: true
        }
    );
    assert_eq!(p.layout()[0].width(), 1);
    assert_eq!(p.body()[0].kind, ActionKind::ResultCard(1));
    let printed = p.to_string();
    assert!(printed.contains("layout ~a[1] b[1] ♣"), "{printed}");
    assert!(printed.contains("result 2"), "{printed}");
    assert_eq!(parse(&printed).expect("reads back"), p);
    // `result 2` keeps b's card, but the table 0100 is 1 under 01 only: wrong under 11.
    let a = analyze(&p).expect("analyses");
    assert!(!a.correct);
    assert!(a
        .defects
        .iter()
        .any(|d| matches!(d, Defect::WrongOneCardResult { position: 2, .. })));
    let negation = "protocol n\ninputs a\nfunction 10\nlayout ~a[1]\nresult 1\n";
    assert!(analyze(&protocol(negation)).expect("analyses").correct);
}

#[test]
fn malformed_one_card_items_and_results_are_typed_errors() {
    let cases = [
        ("layout a[2] ♣\nresult 1", "`1]`"),
        ("layout a[1 ♣\nresult 1", "`]`"),
        ("layout a[] ♣\nresult 1", "`1]`"),
        ("layout c[1] ♣\nresult 1", "does not declare"),
    ];
    for (body, want) in cases {
        let src = format!("protocol p\ninputs a\nfunction copy\n{body}\n");
        let err = parse(&src).expect_err(body).to_string();
        assert!(err.contains(want), "{body}: {err}");
    }
    let several = "protocol p\ninputs a b\noutputs s c\nfunction xor and\nlayout a b 0\nresult 1\n";
    let err = parse(several).expect_err("a one-card result of two outputs");
    assert!(err.to_string().contains("result"), "{err}");
    let number = "protocol p\ninputs x y\nfunction add-mod\nlayout x{3} y{3}\nresult 1\n";
    assert!(parse(number).is_err(), "a one-card result of a number");
}

#[test]
fn a_one_card_result_on_a_card_of_another_kind_is_wrong_not_a_panic() {
    let src = "protocol p\ninputs a\nfunction copy\nlayout a[1] ♦\nresult 2\n";
    let a = analyze(&protocol(src)).expect("analyses");
    assert!(!a.correct);
    assert!(a
        .defects
        .iter()
        .any(|d| matches!(d, Defect::WrongOneCardResult { .. })));
}

/// Every protocol of one shape on one-card inputs `a[1] b[1]` and up to two helpers: a shuffle
/// drawn uniformly from the cyclic group of one permutation (or none), one turn of any set of
/// cards (or none), then a one-card `result` on a card not turned, or the end.
fn public_shape(
    helpers: &[&str],
    g: Option<&Perm>,
    turned: &[usize],
    result: Option<usize>,
) -> String {
    let mut src = format!(
        "protocol shape\ninputs a b\nfunction FUNCTION\nlayout a[1] b[1] {}\n",
        helpers.join(" ")
    );
    if let Some(g) = g {
        src.push_str(&format!("shuffle <{g}>\n"));
    }
    if !turned.is_empty() {
        let list: Vec<String> = turned.iter().map(|t| (t + 1).to_string()).collect();
        src.push_str(&format!("turn {}\n", list.join(" ")));
    }
    if let Some(r) = result {
        src.push_str(&format!("result {}\n", r + 1));
    }
    src
}

#[test]
fn no_public_protocol_of_the_small_shape_computes_and_or_xor_securely_on_one_card_inputs() {
    let colourings: [&[&str]; 7] = [
        &[],
        &["♣"],
        &["♥"],
        &["♣", "♣"],
        &["♣", "♥"],
        &["♥", "♣"],
        &["♥", "♥"],
    ];
    let mut candidates = 0;
    for helpers in colourings {
        let n = 2 + helpers.len();
        let shuffles: Vec<Option<Perm>> = std::iter::once(None)
            .chain(Perm::all(n).filter(|g| !g.is_identity()).map(Some))
            .collect();
        for g in &shuffles {
            for mask in 0..1usize << n {
                let turned: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
                let endings =
                    std::iter::once(None).chain((0..n).filter(|i| mask >> i & 1 == 0).map(Some));
                for result in endings {
                    let shape = public_shape(helpers, g.as_ref(), &turned, result);
                    for function in ["and", "xor"] {
                        let p = protocol(&shape.replace("FUNCTION", function));
                        let a = analyze(&p).expect("analyses");
                        candidates += 1;
                        assert!(
                            !(a.correct && a.security == Security::Perfect),
                            "the lemma fails on\n{p}"
                        );
                    }
                }
            }
        }
    }
    assert_eq!(candidates, 9_728, "every candidate was analysed");
}
