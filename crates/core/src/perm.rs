//! Permutations of card positions.
//!
//! # Convention
//!
//! Positions are 0-indexed in the API and 1-indexed in cycle notation (as in the `.cards`
//! format and the papers). A permutation `π` **moves the card at position `i` to position
//! `π(i)`**: applied to the row `x1 x2 x3 x4 x5 x6`, `(2 4 3)` gives `x1 x3 x4 x2 x5 x6`.
//!
//! [`Perm::compose`] follows function composition: `a.compose(&b)` is `a ∘ b`, "first `b`, then
//! `a`" — so the dealer's `A = A3 ∘ A2 ∘ A1` is `a3.compose(&a2).compose(&a1)`.

use core::fmt;
use core::str::FromStr;

use rand::seq::SliceRandom;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

/// Why a permutation could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PermError {
    /// An image or cycle entry is outside `1..=n` (reported 1-indexed).
    #[error("position {position} is out of range 1..={n}")]
    OutOfRange {
        /// The offending position, 1-indexed.
        position: usize,
        /// The number of positions.
        n: usize,
    },
    /// A position occurs twice (as an image, or in the cycles).
    #[error("position {position} occurs twice, so this is not a permutation")]
    Repeated {
        /// The repeated position, 1-indexed.
        position: usize,
    },
    /// The cycle notation could not be read.
    #[error("malformed cycle notation at byte {offset}: {reason}")]
    Syntax {
        /// Byte offset into the input.
        offset: usize,
        /// What was expected.
        reason: &'static str,
    },
    /// Two permutations on different numbers of positions were combined.
    #[error("permutations on {left} and {right} positions cannot be combined")]
    SizeMismatch {
        /// Size of the left operand.
        left: usize,
        /// Size of the right operand.
        right: usize,
    },
    /// More positions than the representation allows.
    #[error("{0} positions is more than the supported 65536")]
    TooLarge(usize),
}

/// A permutation of the positions `0..n` (see the [module docs](self) for the convention).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "Vec<u16>", into = "Vec<u16>")]
pub struct Perm {
    images: Vec<u16>,
}

impl Perm {
    /// The identity on `n` positions.
    ///
    /// # Panics
    /// If `n > 65536`.
    pub fn identity(n: usize) -> Perm {
        assert!(n <= 1 << 16, "at most 65536 positions");
        Perm {
            images: (0..n).map(|i| i as u16).collect(),
        }
    }

    /// The permutation with `π(i) = images[i]` (0-indexed), checked to be a bijection.
    pub fn from_images(images: Vec<usize>) -> Result<Perm, PermError> {
        let n = images.len();
        if n > 1 << 16 {
            return Err(PermError::TooLarge(n));
        }
        let mut seen = vec![false; n];
        for &img in &images {
            if img >= n {
                return Err(PermError::OutOfRange {
                    position: img + 1,
                    n,
                });
            }
            if std::mem::replace(&mut seen[img], true) {
                return Err(PermError::Repeated { position: img + 1 });
            }
        }
        Ok(Perm {
            images: images.into_iter().map(|i| i as u16).collect(),
        })
    }

    /// The permutation on `n` positions given by cycles of **1-indexed** positions.
    pub fn from_cycles(n: usize, cycles: &[Vec<usize>]) -> Result<Perm, PermError> {
        if n > 1 << 16 {
            return Err(PermError::TooLarge(n));
        }
        let mut images: Vec<usize> = (0..n).collect();
        let mut seen = vec![false; n];
        for cycle in cycles {
            for &p in cycle {
                if p == 0 || p > n {
                    return Err(PermError::OutOfRange { position: p, n });
                }
                if std::mem::replace(&mut seen[p - 1], true) {
                    return Err(PermError::Repeated { position: p });
                }
            }
            for (k, &p) in cycle.iter().enumerate() {
                images[p - 1] = cycle[(k + 1) % cycle.len()] - 1;
            }
        }
        Perm::from_images(images)
    }

    /// Parses cycle notation (`id`, `(1 3)(2 4)`, `(2 4 3)`) on `n` positions.
    pub fn parse_cycles(n: usize, text: &str) -> Result<Perm, PermError> {
        let cycles = parse_cycle_list(text)?;
        Perm::from_cycles(n, &cycles)
    }

    /// A uniformly random permutation of `n` positions.
    pub fn random_with_rng<R: RngCore + CryptoRng + ?Sized>(n: usize, rng: &mut R) -> Perm {
        let mut p = Perm::identity(n);
        p.images.shuffle(rng);
        p
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.images.len()
    }

    /// Whether this is the permutation of no positions.
    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }

    /// `π(i)`, the position the card at position `i` moves to (0-indexed).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn apply(&self, i: usize) -> usize {
        usize::from(self.images[i])
    }

    /// `π(i)`, or `None` when `i` is out of range.
    pub fn get(&self, i: usize) -> Option<usize> {
        self.images.get(i).map(|&x| usize::from(x))
    }

    /// The images `π(0), π(1), …` (0-indexed).
    pub fn images(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.images.iter().map(|&x| usize::from(x))
    }

    /// The images as a vector (0-indexed).
    pub fn to_images(&self) -> Vec<usize> {
        self.images().collect()
    }

    /// Whether this is the identity.
    pub fn is_identity(&self) -> bool {
        self.images().enumerate().all(|(i, x)| i == x)
    }

    /// The inverse permutation `π⁻¹`.
    pub fn inverse(&self) -> Perm {
        let mut inv = vec![0u16; self.len()];
        for (i, &x) in self.images.iter().enumerate() {
            inv[usize::from(x)] = i as u16;
        }
        Perm { images: inv }
    }

    /// `self ∘ other`: first `other`, then `self`.
    pub fn compose(&self, other: &Perm) -> Result<Perm, PermError> {
        if self.len() != other.len() {
            return Err(PermError::SizeMismatch {
                left: self.len(),
                right: other.len(),
            });
        }
        Ok(Perm {
            images: other
                .images
                .iter()
                .map(|&x| self.images[usize::from(x)])
                .collect(),
        })
    }

    /// Rearranges a row: the item at position `i` moves to position `π(i)`.
    ///
    /// Returns `None` if the row's length differs from the permutation's.
    pub fn apply_to_row<T: Clone>(&self, row: &[T]) -> Option<Vec<T>> {
        if row.len() != self.len() {
            return None;
        }
        let mut out: Vec<Option<T>> = vec![None; row.len()];
        for (i, item) in row.iter().enumerate() {
            out[self.apply(i)] = Some(item.clone());
        }
        out.into_iter().collect()
    }

    /// The disjoint cycles of length ≥ 2, as 1-indexed positions, each starting at its smallest
    /// element, in order of that element.
    pub fn cycles(&self) -> Vec<Vec<usize>> {
        let mut seen = vec![false; self.len()];
        let mut out = Vec::new();
        for start in 0..self.len() {
            if seen[start] || self.apply(start) == start {
                continue;
            }
            let mut cycle = Vec::new();
            let mut i = start;
            while !seen[i] {
                seen[i] = true;
                cycle.push(i + 1);
                i = self.apply(i);
            }
            out.push(cycle);
        }
        out
    }
}

impl fmt::Display for Perm {
    /// Cycle notation, 1-indexed; `id` for the identity.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cycles = self.cycles();
        if cycles.is_empty() {
            return f.write_str("id");
        }
        for cycle in cycles {
            f.write_str("(")?;
            for (k, p) in cycle.iter().enumerate() {
                if k > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{p}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Perm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Perm[{}]{}", self.len(), self)
    }
}

impl TryFrom<Vec<u16>> for Perm {
    type Error = PermError;
    fn try_from(images: Vec<u16>) -> Result<Self, Self::Error> {
        Perm::from_images(images.into_iter().map(usize::from).collect())
    }
}

impl From<Perm> for Vec<u16> {
    fn from(p: Perm) -> Vec<u16> {
        p.images
    }
}

/// `n!` as a `u128`, or `None` when it does not fit (`n > 34`).
pub fn factorial(n: usize) -> Option<u128> {
    (1..=n as u128).try_fold(1u128, |acc, k| acc.checked_mul(k))
}

/// Steps `items` to the next permutation in lexicographic order; `false` (and `items` left as
/// the last, descending, arrangement) when there is none. Starting from a sorted slice, repeated
/// calls visit every distinct arrangement once.
pub fn next_permutation<T: Ord>(items: &mut [T]) -> bool {
    let n = items.len();
    let Some(i) = (1..n).rev().find(|&i| items[i - 1] < items[i]) else {
        return false;
    };
    let pivot = i - 1;
    let Some(j) = (i..n).rev().find(|&j| items[j] > items[pivot]) else {
        return false;
    };
    items.swap(pivot, j);
    items[i..].reverse();
    true
}

impl Perm {
    /// Every permutation of `n` positions, in lexicographic order of their images (the identity
    /// first): `n!` of them, so keep `n` small.
    pub fn all(n: usize) -> impl Iterator<Item = Perm> {
        let mut next: Option<Vec<u16>> = (n <= 1 << 16).then(|| (0..n as u16).collect());
        core::iter::from_fn(move || {
            let current = next.take()?;
            let mut following = current.clone();
            if next_permutation(&mut following) {
                next = Some(following);
            }
            Some(Perm { images: current })
        })
    }
}

/// Parses a list of cycles in 1-indexed cycle notation: `id`, `(1 3)(2 4)`, `(1,2,3)`.
///
/// Only syntax is checked here; ranges and repetitions are checked by [`Perm::from_cycles`].
pub fn parse_cycle_list(text: &str) -> Result<Vec<Vec<usize>>, PermError> {
    let trimmed = text.trim();
    if trimmed == "id" || trimmed == "()" {
        return Ok(Vec::new());
    }
    let bytes = text.as_bytes();
    let mut cycles = Vec::new();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < bytes.len() && (bytes[*i] as char).is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if i == bytes.len() {
        return Err(PermError::Syntax {
            offset: i,
            reason: "expected `id` or a cycle such as `(1 2)`",
        });
    }
    while i < bytes.len() {
        if bytes[i] != b'(' {
            return Err(PermError::Syntax {
                offset: i,
                reason: "expected `(`",
            });
        }
        i += 1;
        let mut cycle = Vec::new();
        loop {
            skip_ws(&mut i);
            if i < bytes.len() && bytes[i] == b',' {
                i += 1;
                continue;
            }
            if i < bytes.len() && bytes[i] == b')' {
                i += 1;
                break;
            }
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if start == i {
                return Err(PermError::Syntax {
                    offset: i,
                    reason: "expected a position or `)`",
                });
            }
            let n = text[start..i].parse().map_err(|_| PermError::Syntax {
                offset: start,
                reason: "position too large",
            })?;
            cycle.push(n);
        }
        if !cycle.is_empty() {
            cycles.push(cycle);
        }
        skip_ws(&mut i);
    }
    Ok(cycles)
}

impl FromStr for Perm {
    type Err = PermError;
    /// Parses cycle notation on the smallest number of positions that contains every entry.
    /// Prefer [`Perm::parse_cycles`] when the number of positions is known.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let cycles = parse_cycle_list(s)?;
        let n = cycles.iter().flatten().copied().max().unwrap_or(0);
        Perm::from_cycles(n, &cycles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_permutation_once_in_lexicographic_order() {
        let all: Vec<Perm> = Perm::all(4).collect();
        assert_eq!(all.len(), 24);
        assert!(all[0].is_identity());
        assert!(all.windows(2).all(|w| w[0].to_images() < w[1].to_images()));
        assert_eq!(Perm::all(0).count(), 1);
        assert_eq!(factorial(4), Some(24));
        assert_eq!(factorial(0), Some(1));
        assert_eq!(factorial(34).map(|f| f > 0), Some(true));
        assert_eq!(factorial(35), None);
        let mut repeated = [0, 0, 1];
        let mut distinct = 1;
        while next_permutation(&mut repeated) {
            distinct += 1;
        }
        assert_eq!(distinct, 3, "a multiset's arrangements, each once");
    }
    use proptest::prelude::*;

    #[test]
    fn format_example_moves_card_at_i_to_pi_i() {
        // The format specification: `perm (2 4 3)` turns x1..x6 into x1 x3 x4 x2 x5 x6.
        let p = Perm::parse_cycles(6, "(2 4 3)").expect("valid");
        let row = ["x1", "x2", "x3", "x4", "x5", "x6"];
        assert_eq!(
            p.apply_to_row(&row).expect("same length"),
            ["x1", "x3", "x4", "x2", "x5", "x6"]
        );
        assert_eq!(p.to_string(), "(2 4 3)");
    }

    #[test]
    fn compose_is_function_composition() {
        let a = Perm::parse_cycles(3, "(1 2)").expect("valid");
        let b = Perm::parse_cycles(3, "(2 3)").expect("valid");
        let ab = a.compose(&b).expect("same size");
        for i in 0..3 {
            assert_eq!(ab.apply(i), a.apply(b.apply(i)));
        }
    }

    #[test]
    fn bad_cycles_are_typed_errors() {
        assert_eq!(
            Perm::parse_cycles(4, "(1 5)"),
            Err(PermError::OutOfRange { position: 5, n: 4 })
        );
        assert_eq!(
            Perm::parse_cycles(4, "(1 2)(2 3)"),
            Err(PermError::Repeated { position: 2 })
        );
        assert!(matches!(
            Perm::parse_cycles(4, "(1 2"),
            Err(PermError::Syntax { .. })
        ));
        assert!(Perm::from_images(vec![0, 0]).is_err());
        let bad: Result<Perm, _> = serde_json::from_str("[0, 0, 1]");
        assert!(bad.is_err());
    }

    fn perm_strategy() -> impl Strategy<Value = Perm> {
        (1usize..12).prop_flat_map(|n| {
            Just((0..n).collect::<Vec<_>>())
                .prop_shuffle()
                .prop_map(|v| Perm::from_images(v).expect("shuffle is a bijection"))
        })
    }

    proptest! {
        #[test]
        fn cycle_notation_round_trips(p in perm_strategy()) {
            let q = Perm::parse_cycles(p.len(), &p.to_string()).expect("own output parses");
            prop_assert_eq!(p, q);
        }

        #[test]
        fn inverse_composes_to_identity(p in perm_strategy()) {
            prop_assert!(p.compose(&p.inverse()).expect("same size").is_identity());
            prop_assert!(p.inverse().compose(&p).expect("same size").is_identity());
        }
    }
}
