//! A shuffle's exact distribution and the sampler that draws from it with exactly those
//! probabilities.

use facedown_core::Perm;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::ToPrimitive;
use rand::Rng;

use crate::model::Q;

/// The support of a shuffle with exact probabilities ([`crate::model::Shuffle::distribution`]:
/// sorted by permutation, merged, no zero weight), and its sampler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distribution {
    support: Vec<(Perm, Q)>,
    sampler: Option<Sampler>,
}

impl Distribution {
    /// The distribution with this support (sorted, merged, positive weights summing to 1).
    pub(crate) fn new(support: Vec<(Perm, Q)>) -> Distribution {
        let sampler = Sampler::new(&support);
        Distribution { support, sampler }
    }

    /// The permutations with their probabilities, sorted by permutation.
    pub fn support(&self) -> &[(Perm, Q)] {
        &self.support
    }

    /// The number of permutations in the support.
    pub fn len(&self) -> usize {
        self.support.len()
    }

    /// Whether the support is empty (never, for a validated protocol).
    pub fn is_empty(&self) -> bool {
        self.support.is_empty()
    }

    /// Whether every permutation has the same probability.
    pub fn is_uniform(&self) -> bool {
        self.support.windows(2).all(|w| w[0].1 == w[1].1)
    }

    /// The exact sampler; `None` when the weights have no common denominator below 2^64.
    pub fn sampler(&self) -> Option<&Sampler> {
        self.sampler.as_ref()
    }
}

/// Draws an index into a shuffle's support with exactly the written probabilities: one bounded
/// integer for a uniform support, else one integer below the common denominator compared with
/// the cumulative numerators (no floating point).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sampler {
    /// Uniform over `0..k`.
    Uniform(u32),
    /// Index `j` with probability `(cumulative[j] − cumulative[j−1]) / denominator`.
    Weighted {
        /// Running sums of the numerators over the common denominator.
        cumulative: Vec<u64>,
        /// The common denominator.
        denominator: u64,
    },
}

impl Sampler {
    /// The sampler of a distribution; `None` when the common denominator exceeds `u64`.
    pub fn new(dist: &[(Perm, Q)]) -> Option<Sampler> {
        let first = &dist.first()?.1;
        if dist.iter().all(|(_, w)| w == first) {
            return Some(Sampler::Uniform(u32::try_from(dist.len()).ok()?));
        }
        let mut lcm = BigInt::from(1);
        for (_, w) in dist {
            lcm = lcm.lcm(w.denom());
        }
        let denominator = lcm.to_u64()?;
        let mut acc = 0u64;
        let mut cumulative = Vec::with_capacity(dist.len());
        for (_, w) in dist {
            let num = (w.numer() * (&lcm / w.denom())).to_u64()?;
            acc = acc.checked_add(num)?;
            cumulative.push(acc);
        }
        (acc == denominator).then_some(Sampler::Weighted {
            cumulative,
            denominator,
        })
    }

    /// Draws an index.
    #[inline]
    pub fn pick<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        match self {
            Sampler::Uniform(k) => rng.gen_range(0..*k) as usize,
            Sampler::Weighted {
                cumulative,
                denominator,
            } => {
                let x = rng.gen_range(0..*denominator);
                cumulative.partition_point(|&c| c <= x)
            }
        }
    }
}
