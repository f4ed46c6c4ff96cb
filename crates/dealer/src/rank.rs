//! Ordinal numbers of permutations: the Lehmer code in the factorial number system.
//!
//! The seed commits to "the ordinal number `X` of the permutation", `0 ≤ X < n!`. We use the
//! lexicographic rank of the image sequence `(π(0), …, π(n−1))`:
//!
//! ```text
//! X = Σ_{i<n} d_i · (n−1−i)!,   d_i = #{ j > i : π(j) < π(i) }   (0 ≤ d_i ≤ n−1−i)
//! ```
//!
//! The digits `d_i` (the Lehmer code) are the mixed-radix digits of `X`, so ranking is a Horner
//! evaluation `X ← X·(n−i) + d_i` and unranking is repeated division by `1, 2, …, n`. Both are
//! exact on [`BigUint`] (52! ≈ 2^225.6, 100! ≈ 2^524.8). The identity has rank 0 (the seed's
//! `0 < X` would exclude it — one of the slips the commitment module's tests pin down), the
//! reversal has rank `n! − 1`.
//!
//! Unranking **enforces** `X < n!` and returns [`RankError::OutOfRange`] otherwise: a verifier
//! that reduced `X` modulo `n!` instead would let `(X + n!, k − 1)` open the same commitment.
//!
//! Part of the permutation-sharing dealer \[perm-sharing-dealer\]; see the [crate docs](crate).

use facedown_core::Perm;
use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

/// Largest deck the ranking functions accept (the cost is quadratic in `n`).
pub const MAX_RANK_CARDS: usize = 4096;

/// Why an ordinal could not be turned into a permutation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RankError {
    /// The ordinal is `≥ n!`.
    #[error("ordinal is not below {n}!")]
    OutOfRange {
        /// Deck size.
        n: usize,
    },
    /// `n` exceeds [`MAX_RANK_CARDS`].
    #[error("{n} cards is more than the supported {MAX_RANK_CARDS}")]
    TooLarge {
        /// Deck size.
        n: usize,
    },
}

/// `n!`, exactly.
pub fn factorial(n: usize) -> BigUint {
    (1..=n as u64).fold(BigUint::from(1u32), |acc, k| acc * k)
}

/// The Lehmer code `d_0, …, d_{n−1}` of `p` (`d_i` counts later positions with smaller images).
pub fn lehmer_code(p: &Perm) -> Vec<usize> {
    let images = p.to_images();
    let n = images.len();
    // Fenwick tree over values: count how many smaller values occur to the right.
    let mut tree = vec![0usize; n + 1];
    let mut code = vec![0usize; n];
    for i in (0..n).rev() {
        let v = images[i];
        let mut k = v; // prefix sum over values < v
        let mut smaller = 0;
        while k > 0 {
            smaller += tree[k];
            k &= k - 1;
        }
        code[i] = smaller;
        let mut k = v + 1;
        while k <= n {
            tree[k] += 1;
            k += k & k.wrapping_neg();
        }
    }
    code
}

/// The ordinal number (lexicographic rank) of `p`, in `0..n!`.
pub fn rank(p: &Perm) -> BigUint {
    let n = p.len();
    lehmer_code(p)
        .into_iter()
        .enumerate()
        .fold(BigUint::zero(), |acc, (i, d)| {
            acc * (n - i) as u64 + d as u64
        })
}

/// The permutation of `n` positions with ordinal `x`; fails unless `0 ≤ x < n!`.
pub fn unrank(n: usize, x: &BigUint) -> Result<Perm, RankError> {
    if n > MAX_RANK_CARDS {
        return Err(RankError::TooLarge { n });
    }
    let mut rest = x.clone();
    let mut code = vec![0usize; n];
    for k in 1..=n {
        let digit = (&rest % k as u32).to_usize().unwrap_or(0);
        code[n - k] = digit;
        rest /= k as u32;
    }
    if !rest.is_zero() {
        return Err(RankError::OutOfRange { n });
    }
    let mut unused: Vec<usize> = (0..n).collect();
    let images = code.into_iter().map(|d| unused.remove(d)).collect();
    Perm::from_images(images).map_err(|_| RankError::TooLarge { n })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn identity_is_rank_zero_and_reversal_is_last() {
        for n in 0..8 {
            assert_eq!(rank(&Perm::identity(n)), BigUint::zero());
            let rev = Perm::from_images((0..n).rev().collect()).expect("reversal");
            let last = factorial(n) - 1u32;
            if n > 0 {
                assert_eq!(rank(&rev), last);
                assert_eq!(unrank(n, &last).expect("in range"), rev);
            }
        }
    }

    #[test]
    fn ranks_of_s4_are_0_to_23_in_lexicographic_order() {
        let all: Vec<Perm> = (0u32..24)
            .map(|x| unrank(4, &BigUint::from(x)).expect("in range"))
            .collect();
        for (x, p) in all.iter().enumerate() {
            assert_eq!(rank(p), BigUint::from(x));
        }
        let mut sorted = all.clone();
        sorted.sort_by_key(|p| p.to_images());
        assert_eq!(sorted, all, "rank order is lexicographic order of images");
    }

    #[test]
    fn lehmer_code_known_answer() {
        // π = [2, 0, 4, 1, 3]: d = (2, 0, 2, 0, 0), X = 2·4! + 0·3! + 2·2! + 0 + 0 = 52.
        let p = Perm::from_images(vec![2, 0, 4, 1, 3]).expect("valid");
        assert_eq!(lehmer_code(&p), vec![2, 0, 2, 0, 0]);
        assert_eq!(rank(&p), BigUint::from(52u32));
    }

    #[test]
    fn unrank_rejects_n_factorial_and_beyond() {
        for n in [1usize, 3, 10, 52, 100] {
            let f = factorial(n);
            assert_eq!(unrank(n, &f), Err(RankError::OutOfRange { n }));
            assert_eq!(
                unrank(n, &(f * 7u32 + 3u32)),
                Err(RankError::OutOfRange { n })
            );
        }
    }

    #[test]
    fn fifty_two_factorial_is_about_2_to_the_225_6() {
        assert_eq!(factorial(52).bits(), 226);
        assert_eq!(factorial(100).bits(), 525);
    }

    fn perm_strategy(max: usize) -> impl Strategy<Value = Perm> {
        (0usize..=max).prop_flat_map(|n| {
            Just((0..n).collect::<Vec<_>>())
                .prop_shuffle()
                .prop_map(|v| Perm::from_images(v).expect("shuffle is a bijection"))
        })
    }

    proptest! {
        #[test]
        fn rank_unrank_round_trip_up_to_120_cards(p in perm_strategy(120)) {
            let x = rank(&p);
            prop_assert!(x < factorial(p.len()));
            prop_assert_eq!(unrank(p.len(), &x).expect("rank is in range"), p);
        }

        #[test]
        fn unrank_rank_round_trip_on_random_ordinals(n in 1usize..60, bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let x = BigUint::from_bytes_be(&bytes) % factorial(n);
            let p = unrank(n, &x).expect("reduced into range");
            prop_assert_eq!(rank(&p), x);
        }
    }
}
