//! Work on the current rayon pool: a fork–join that forks only when there is a second thread,
//! and a variable-time multiscalar multiplication split across the pool's threads.
//!
//! Both run on the pool the caller runs in (the global pool, or the one a caller entered with
//! `rayon::ThreadPool::install`). On a one-thread pool they run sequentially: a `rayon::join`
//! that cannot fork still costs measurable time around the big multiplications (about 10 % of
//! a shuffle verification in our measurements), so it is not attempted.
//!
//! A multiscalar multiplication `Σ s_i·P_i` is split into one contiguous chunk per thread of the
//! pool the caller runs in (the global pool, or the one a caller entered with
//! `rayon::ThreadPool::install`); each chunk is one curve25519-dalek multiplication (Straus or
//! Pippenger, chosen by dalek for its size) and the chunks' results are added. Group addition is
//! exact, so the result is the same point whatever the number of threads or the order of the
//! additions: parallelism never changes a proof or a verdict.
//!
//! Splitting costs a little work — Pippenger's cost per point falls as the multiplication grows,
//! so two halves cost about 10 % more than the whole — which is why one thread never splits.

use std::borrow::Borrow;

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{Identity, VartimeMultiscalarMul};
use rayon::prelude::*;

/// `(a(), b())`, in parallel if the current pool has more than one thread.
pub(crate) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if rayon::current_num_threads() > 1 {
        rayon::join(a, b)
    } else {
        (a(), b())
    }
}

/// Below this many points a multiplication is not split: the chunks would be too small for
/// the split to pay for itself.
const MIN_CHUNK: usize = 64;

/// `Σ scalars[i]·points[i]` in variable time, split across the current pool's threads. The
/// points may be references (a sum over points that live elsewhere need not copy them).
pub(crate) fn vartime_msm<P>(scalars: &[Scalar], points: &[P]) -> RistrettoPoint
where
    P: Borrow<RistrettoPoint> + Sync,
{
    debug_assert_eq!(scalars.len(), points.len());
    let one = |s: &[Scalar], p: &[P]| {
        RistrettoPoint::vartime_multiscalar_mul(s, p.iter().map(Borrow::borrow))
    };
    let chunks = (scalars.len() / MIN_CHUNK).clamp(1, rayon::current_num_threads());
    if chunks == 1 {
        return one(scalars, points);
    }
    let size = scalars.len().div_ceil(chunks);
    scalars
        .par_chunks(size)
        .zip(points.par_chunks(size))
        .map(|(s, p)| one(s, p))
        .reduce(RistrettoPoint::identity, |a, b| a + b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use facedown_core::rng::seeded_rng;

    #[test]
    fn split_multiplication_equals_the_whole_on_any_pool() {
        let mut rng = seeded_rng(5);
        let points: Vec<RistrettoPoint> =
            (0..300).map(|_| RistrettoPoint::random(&mut rng)).collect();
        let scalars: Vec<Scalar> = (0..300).map(|_| Scalar::random(&mut rng)).collect();
        let whole = RistrettoPoint::vartime_multiscalar_mul(&scalars, &points);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            assert_eq!(pool.install(|| vartime_msm(&scalars, &points)), whole);
        }
    }
}
