//! Kim–Cetinkaya: a random cut of five cards with weight `1/5 − ε` on the identity and
//! `1/5 + ε/4` on each other rotation is at total-variation distance `(4/5)·(5|ε|/4)^L` from a
//! uniform cut after `L` cuts. The analyzer quantifies the resulting leak of the five-card trick
//! exactly.
//!
//! Two inputs with the same output lay out rows that are distinct rotations of each other, so
//! their view distributions are the `L`-fold cut distribution shifted two ways: their distance
//! is `(5|ε|/4)^L` (5/4 times the Kim–Cetinkaya distance). Each input's view against the view
//! with uniform cuts is exactly the Kim–Cetinkaya distance.

use facedown::cards::analyze::{analyze, Security};
use facedown::cards::library::find;
use facedown::cards::parse::parse;
use facedown::cards::Q;

fn q(s: &str) -> Q {
    s.parse().expect("a rational")
}

fn pow(x: &Q, l: u32) -> Q {
    (0..l).fold(q("1"), |acc, _| acc * x)
}

/// The five-card trick with `l` biased cuts in a row.
fn biased_trick(eps: &Q, l: u32) -> String {
    let id = q("1/5") - eps;
    let other = q("1/5") + eps / q("4");
    let cut = format!(
        "shuffle {{id: {id}, (1 2 3 4 5): {other}, (1 3 5 2 4): {other}, (1 4 2 5 3): {other}, (1 5 4 3 2): {other}}}\n"
    );
    format!(
        "protocol biased-{l}\ninputs a b\nfunction and\nlayout ~a ♥ b\n{}turn 1 2 3 4 5\n",
        cut.repeat(l as usize)
    )
}

fn kim_cetinkaya(eps: &Q, l: u32) -> Q {
    let abs = if eps < &q("0") {
        -eps.clone()
    } else {
        eps.clone()
    };
    q("4/5") * pow(&(q("5/4") * abs), l)
}

#[test]
fn library_biased_cut_matches_the_formula_for_one_cut() {
    let a = analyze(
        &find("five-card-trick-biased-cut")
            .expect("built in")
            .protocol(),
    )
    .expect("analyzes");
    let eps = q("1/20");
    assert!(a.correct);
    assert_eq!(a.security, Security::InputPossibilistic);
    assert_eq!(
        a.tv_from_uniform_shuffles,
        Some(kim_cetinkaya(&eps, 1)),
        "distance from the uniform cut = (4/5)(5ε/4) = ε"
    );
    assert_eq!(a.tv_distance, Some(q("5/4") * kim_cetinkaya(&eps, 1)));
    assert!(a.leak_beyond_output_bits.expect("acyclic") > 0.0);
}

#[test]
fn chained_biased_cuts_match_the_formula_for_l_1_2_3() {
    for eps in [q("1/20"), q("1/10"), q("-1/40")] {
        for l in 1..=3 {
            let p = parse(&biased_trick(&eps, l)).expect("parses");
            let a = analyze(&p).expect("analyzes");
            assert!(a.correct);
            assert_eq!(
                a.expected_shuffles
                    .as_ref()
                    .map(ToString::to_string)
                    .as_deref(),
                Some(l.to_string().as_str())
            );
            assert_eq!(
                a.tv_from_uniform_shuffles,
                Some(kim_cetinkaya(&eps, l)),
                "ε = {eps}, L = {l}"
            );
            assert_eq!(
                a.tv_distance,
                Some(q("5/4") * kim_cetinkaya(&eps, l)),
                "ε = {eps}, L = {l}: between two alike inputs"
            );
        }
    }
}

#[test]
fn more_cuts_leak_less() {
    let eps = q("1/10");
    let leaks: Vec<f64> = (1..=3)
        .map(|l| {
            let a = analyze(&parse(&biased_trick(&eps, l)).expect("parses")).expect("analyzes");
            a.leak_beyond_output_bits.expect("acyclic")
        })
        .collect();
    assert!(leaks[0] > leaks[1] && leaks[1] > leaks[2], "{leaks:?}");
}

#[test]
fn an_unbiased_cut_written_with_weights_is_perfect() {
    let p = parse(&biased_trick(&q("0"), 2)).expect("parses");
    let a = analyze(&p).expect("analyzes");
    assert_eq!(a.security, Security::Perfect);
    assert_eq!(
        a.tv_distance.as_ref().map(ToString::to_string).as_deref(),
        Some("0")
    );
    assert_eq!(a.tv_from_uniform_shuffles, None);
}
