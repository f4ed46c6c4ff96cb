//! The shuffles produce uniformly random arrangements: chi-square goodness-of-fit tests over many
//! seeded runs on small decks.
//!
//! Each test tallies how often each arrangement appears over `T` independent trials (one ChaCha
//! stream per trial, `trial_rng(seed, t)`) and compares Pearson's statistic with the upper
//! `α = 10⁻⁶` quantile of the χ² distribution with `k − 1` degrees of freedom, where `k` is the
//! number of possible arrangements. For a uniform shuffle the false-alarm probability is
//! therefore about 10⁻⁶ per test (the χ² approximation is good: every expected count is ≥ 100).
//! Quantiles computed with the regularized upper incomplete gamma function:
//! `Q(ν/2, x/2) = 10⁻⁶` at x = 23.928 (ν = 1), 30.665 (ν = 3), 70.550 (ν = 23).
//!
//! A biased sampler is caught: the classic mistake "swap each position with *any* position"
//! gives the 24 orders of 4 cards probabilities from 8/256 to 15/256 instead of 1/24 ≈ 10.67/256;
//! at T = 4800 the expected statistic is about 166, far above 70.55
//! (`naive_swap_shuffle_fails_the_same_test` checks that the test has this power).
//!
//! Since the seeds are fixed, each test is deterministic; the α above is the chance that a
//! fixed seed set is unlucky for a correct shuffle.

use crate::common;

use std::collections::HashMap;

use common::{ctx, fixture, transcript};
use facedown_core::rng::trial_rng;
use facedown_poker::restricted::{restricted_shuffle_with_rng, PermSet};
use facedown_poker::shuffle::shuffle_with_rng;

fn chi_square(counts: &HashMap<Vec<u16>, u64>, cells: usize, trials: u64) -> f64 {
    let expected = trials as f64 / cells as f64;
    let observed: f64 = counts
        .values()
        .map(|&o| (o as f64 - expected).powi(2) / expected)
        .sum();
    // Cells never observed contribute (0 − E)²/E each.
    observed + (cells - counts.len()) as f64 * expected
}

/// [BG12] shuffle: a 4-card deck shuffled (with proof) by one player lands in each of the 24
/// orders with probability 1/24.
#[test]
fn bg12_shuffle_output_is_a_uniform_permutation() {
    const TRIALS: u64 = 2400;
    let f = fixture(2, 4, 21);
    let mut counts: HashMap<Vec<u16>, u64> = HashMap::new();
    for t in 0..TRIALS {
        let mut rng = trial_rng(2026, t);
        let (out, _) = shuffle_with_rng(
            &mut transcript(),
            &ctx(b"u", 1, 1),
            &f.ck,
            &f.key,
            &f.open,
            &mut rng,
        )
        .expect("sizes fit");
        *counts.entry(f.decrypt(&out)).or_default() += 1;
    }
    assert!(counts.keys().all(|k| {
        let mut s = k.clone();
        s.sort_unstable();
        s == [0, 1, 2, 3]
    }));
    let stat = chi_square(&counts, 24, TRIALS);
    assert!(
        stat < 70.550,
        "chi-square {stat} over 23 degrees of freedom"
    );
}

/// [MS09] restricted shuffles: the random cut of 4 cards is uniform over the 4 rotations and
/// the random bisection cut over its 2 arrangements.
#[test]
fn ms09_random_cut_and_bisection_cut_are_uniform_over_their_sets() {
    const TRIALS: u64 = 800;
    let f = fixture(2, 4, 22);
    for (set, critical) in [
        (PermSet::cyclic(4).expect("cut"), 30.665),
        (PermSet::bisection(4).expect("bisection"), 23.928),
    ] {
        let mut counts: HashMap<Vec<u16>, u64> = HashMap::new();
        for t in 0..TRIALS {
            let mut rng = trial_rng(7, t);
            let (out, _, k) = restricted_shuffle_with_rng(
                &mut transcript(),
                &ctx(b"u", 1, 1),
                &f.key,
                &set,
                &f.open,
                &mut rng,
            )
            .expect("sizes fit");
            let opened = f.decrypt(&out);
            // The output is the arrangement of the reported set element.
            assert!((0..4).all(|i| usize::from(opened[set.perms()[k].apply(i)]) == i));
            *counts.entry(opened).or_default() += 1;
        }
        assert_eq!(counts.len(), set.len());
        let stat = chi_square(&counts, set.len(), TRIALS);
        assert!(
            stat < critical,
            "chi-square {stat} for {} arrangements",
            set.len()
        );
    }
}

/// The test has power: the biased "swap with any position" shuffle fails it.
#[test]
fn naive_swap_shuffle_fails_the_same_test() {
    use rand::Rng;
    const TRIALS: u64 = 4800;
    let mut counts: HashMap<Vec<u16>, u64> = HashMap::new();
    for t in 0..TRIALS {
        let mut rng = trial_rng(2026, t);
        let mut order: Vec<u16> = vec![0, 1, 2, 3];
        for i in 0..4 {
            let j = rng.gen_range(0..4);
            order.swap(i, j);
        }
        *counts.entry(order).or_default() += 1;
    }
    let stat = chi_square(&counts, 24, TRIALS);
    assert!(
        stat > 70.550,
        "the biased shuffle passed with chi-square {stat}"
    );
}
