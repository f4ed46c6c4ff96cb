//! The weight budget: a shuffle's weights have numerators and denominators of at most
//! `MAX_WEIGHT_BITS` bits, and so does their common denominator, so that summing them exactly
//! stays cheap. Without it the 60 000 weights `1/2, 1/3, …` (770 KB, within the 1 MB file cap)
//! had a common denominator of about 86 000 bits and the parser ran for minutes.

use facedown_cards::model::ShuffleError;
use facedown_cards::parse::{parse, ParseErrorKind, MAX_WEIGHT_BITS};
use facedown_cards::protocol::ProtocolError;
use facedown_cards::{Action, ActionKind, Protocol, Shuffle, Q};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::One;

/// A two-input protocol on four cards whose body is `body`.
fn protocol(body: &str) -> String {
    format!("protocol p\ninputs a b\nfunction and\nlayout a b\n{body}")
}

/// `shuffle {id: w1, id: w2, …}` with the given weights.
fn weighted_ids(weights: &[String]) -> String {
    let members: Vec<String> = weights.iter().map(|w| format!("id: {w}")).collect();
    format!("shuffle {{{}}}\nturn 1\n", members.join(", "))
}

/// The weights `1/2, 1/3, …, 1/(count + 1)`.
fn harmonic(count: usize) -> Vec<String> {
    (2..count + 2).map(|d| format!("1/{d}")).collect()
}

/// The first `k` for which `1/2, …, 1/(k + 1)` have a common denominator of more than
/// `MAX_WEIGHT_BITS` bits, and that denominator's bits: computed here on its own.
fn first_harmonic_over_the_limit() -> (usize, u64) {
    let mut lcm = BigInt::one();
    for k in 1.. {
        lcm = lcm.lcm(&BigInt::from(k + 1));
        if lcm.bits() > MAX_WEIGHT_BITS {
            return (k, lcm.bits());
        }
    }
    unreachable!("the least common multiples grow without bound")
}

#[test]
fn sixty_thousand_harmonic_weights_are_refused_at_the_first_one_past_the_common_denominator_limit()
{
    let text = protocol(&weighted_ids(&harmonic(60_000)));
    assert!(text.len() > 700_000, "the reviewed attack is about 770 KB");
    let (weights, bits) = first_harmonic_over_the_limit();
    let e = parse(&text).expect_err("refused");
    assert_eq!(
        e.kind,
        ParseErrorKind::CommonDenominatorTooLarge {
            weights,
            bits,
            max: MAX_WEIGHT_BITS
        }
    );
    let before: usize = harmonic(weights - 1).iter().map(|w| w.len() + 6).sum();
    let column = "shuffle {".len() + before + "id: ".len() + 1;
    assert_eq!((e.line, e.col), (5, column), "at the weight over the limit");
}

#[test]
fn harmonic_weights_just_within_the_limit_are_read_in_full() {
    // One weight fewer fits: the parser reads them all and then finds that they do not sum to
    // 1, the error a shuffle of ordinary weights gets.
    let (weights, _) = first_harmonic_over_the_limit();
    let ws = harmonic(weights - 1);
    let sum: Q = ws.iter().map(|w| w.parse::<Q>().expect("a rational")).sum();
    let e = parse(&protocol(&weighted_ids(&ws))).expect_err("they sum to more than 1");
    assert_eq!(
        e.kind,
        ParseErrorKind::Shuffle(ShuffleError::WeightsSum(sum))
    );
}

#[test]
fn a_weight_of_more_digits_than_fit_in_the_limit_is_refused_before_it_is_read() {
    let digits = "9".repeat(100_000);
    let e = parse(&protocol(&weighted_ids(&[format!("{digits}/{digits}")]))).expect_err("refused");
    let expected = ParseErrorKind::WeightTooLarge {
        part: "numerator",
        digits: 100_000,
        max: MAX_WEIGHT_BITS,
    };
    assert_eq!(e.kind, expected);
    let e = parse(&protocol(&weighted_ids(&[format!("1/{digits}")]))).expect_err("refused");
    assert!(matches!(
        e.kind,
        ParseErrorKind::WeightTooLarge {
            part: "denominator",
            digits: 100_000,
            ..
        }
    ));
}

#[test]
fn a_denominator_of_exactly_the_limit_in_bits_is_read_and_one_bit_more_is_refused() {
    let largest = (BigInt::one() << MAX_WEIGHT_BITS) - 1;
    let one_more = BigInt::one() << MAX_WEIGHT_BITS;
    let rest = |d: &BigInt| (Q::one() - Q::new(BigInt::one(), d.clone())).to_string();
    let within = weighted_ids(&[format!("1/{largest}"), rest(&largest)]);
    parse(&protocol(&within)).expect("256 bits");
    let over = weighted_ids(&[format!("1/{one_more}"), rest(&one_more)]);
    let e = parse(&protocol(&over)).expect_err("257 bits");
    assert!(
        matches!(
            e.kind,
            ParseErrorKind::WeightTooLarge {
                part: "denominator",
                ..
            }
        ),
        "{:?}",
        e.kind
    );
}

#[test]
fn leading_zeros_do_not_count_towards_the_limit() {
    let zeros = "0".repeat(1_000);
    let ws = [format!("{zeros}1/{zeros}2"), "1/2".to_owned()];
    let p = parse(&protocol(&weighted_ids(&ws))).expect("the weight is 1/2");
    assert_eq!(p.cards(), 4);
}

#[test]
fn a_weight_error_names_the_limit_under_its_source_line() {
    let text = protocol(&weighted_ids(&harmonic(400)));
    let shown = parse(&text)
        .expect_err("refused")
        .render("weights.cards", &text, false);
    assert!(shown.contains("common denominator of"), "{shown}");
    assert!(shown.contains("at most 256 are supported"), "{shown}");
    assert!(shown.contains("over the limit"), "{shown}");
}

#[test]
fn a_weight_error_on_a_line_of_770_kb_shows_a_window_of_it_at_the_files_column() {
    let text = protocol(&weighted_ids(&harmonic(60_000)));
    let e = parse(&text).expect_err("refused");
    let shown = e.render("weights.cards", &text, false);
    assert!(shown.len() < 2_000, "{} bytes", shown.len());
    let header = format!("weights.cards:5:{}", e.col);
    assert!(shown.contains(&header), "{shown}");
    assert!(
        shown.contains(" 5 │ …"),
        "the line is numbered and cut: {shown}"
    );
    assert!(
        shown.contains("id: 1/179"),
        "the weight over the limit is shown: {shown}"
    );
}

#[test]
fn harmonic_weights_built_in_code_are_refused_by_the_validation() {
    let (weights, bits) = first_harmonic_over_the_limit();
    let mut parts = parse(&protocol("turn 1\n")).expect("parses").into_parts();
    let ws: Vec<Q> = (2..weights + 2)
        .map(|d| Q::new(BigInt::one(), BigInt::from(d)))
        .collect();
    let perms = vec![facedown_core::Perm::identity(4); ws.len()];
    let set = Shuffle::Set {
        perms,
        weights: Some(ws),
    };
    parts.body = vec![Action::new(ActionKind::Shuffle(set))];
    match Protocol::new(parts) {
        Err(ProtocolError::Shuffle { source, .. }) => assert_eq!(
            source,
            ShuffleError::CommonDenominatorTooLarge {
                index: weights,
                bits
            }
        ),
        other => panic!("expected the common-denominator refusal, got {other:?}"),
    }
}
