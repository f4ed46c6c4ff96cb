//! Pedersen \[Ped91\] commitment generators derived by hash-to-group on ristretto255 \[RFC9496\].
//!
//! `com(v; r) = r·H + Σ v_i·G_i`. The generators `G_1, …, G_n, H` are
//! `hash_to_group("facedown-poker/pedersen/v1" ‖ index)` (SHA3-512, ristretto Elligator map): no
//! party chooses them, and nobody knows discrete-log relations between them. This matters: a
//! party who knew `log G_i` could open a commitment to another vector and pass a false shuffle.

use std::ops::Range;
use std::sync::Arc;

use curve25519_dalek::ristretto::{RistrettoPoint, VartimeRistrettoPrecomputation};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::VartimePrecomputedMultiscalarMul;
use sha3::Sha3_512;

const PEDERSEN_LABEL: &[u8] = b"facedown-poker/pedersen/v1";

/// A Pedersen commitment key for vectors of up to `n` entries, with precomputed lookup tables
/// for `H, G_1, …, G_n` (the prover commits six times per shuffle with the same generators).
#[derive(Clone)]
pub struct CommitmentKey {
    /// `G_1, …, G_n` (index 0 is `G_1`).
    pub(crate) g: Vec<RistrettoPoint>,
    /// `H`, the blinding generator.
    pub(crate) h: RistrettoPoint,
    /// Tables for `H, G_1, …, G_n`, in that order.
    precomputed: Arc<VartimeRistrettoPrecomputation>,
}

impl core::fmt::Debug for CommitmentKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CommitmentKey")
            .field("capacity", &self.g.len())
            .finish_non_exhaustive()
    }
}

fn derive(index: u64) -> RistrettoPoint {
    let mut input = PEDERSEN_LABEL.to_vec();
    input.extend_from_slice(&index.to_le_bytes());
    RistrettoPoint::hash_from_bytes::<Sha3_512>(&input)
}

impl CommitmentKey {
    /// The key for vectors of up to `n` entries (`H` is generator 0, `G_i` generator `i`, so keys
    /// of different sizes agree on their common prefix).
    pub fn new(n: usize) -> CommitmentKey {
        let h = derive(0);
        let g: Vec<RistrettoPoint> = (1..=n as u64).map(derive).collect();
        let precomputed = Arc::new(VartimeRistrettoPrecomputation::new(
            core::iter::once(&h).chain(g.iter()),
        ));
        CommitmentKey { g, h, precomputed }
    }

    /// The largest vector length this key commits to.
    pub fn capacity(&self) -> usize {
        self.g.len()
    }

    /// `com(v; r)`; `v` must not be longer than the key (callers check; extra entries would
    /// be ignored). Shorter vectors are padded with zeros.
    pub(crate) fn commit(&self, v: &[Scalar], r: &Scalar) -> RistrettoPoint {
        self.commit_part(v, r, 0..v.len())
    }

    /// `com(v; r)` as the sum of two halves computed in parallel when the current pool has more
    /// than one thread (`r·H + Σ_{i<h} v_i·G_i` and `Σ_{i≥h} v_i·G_i`), so that a commitment
    /// that is a phase of the prover on its own is split across both cores. The point is the
    /// same, exactly; each half pays the table walk's doublings again.
    pub(crate) fn commit_in_halves(&self, v: &[Scalar], r: &Scalar) -> RistrettoPoint {
        if rayon::current_num_threads() < 2 {
            return self.commit(v, r);
        }
        let h = v.len() / 2;
        let (low, high) = rayon::join(
            || self.commit_part(v, r, 0..h),
            || self.commit_part(v, &Scalar::ZERO, h..v.len()),
        );
        low + high
    }

    /// `r·H + Σ_{i ∈ part} v_i·G_i`: the entries of `v` outside `part` count as zeros.
    fn commit_part(&self, v: &[Scalar], r: &Scalar, part: Range<usize>) -> RistrettoPoint {
        let entry = |(i, s): (usize, &Scalar)| if part.contains(&i) { *s } else { Scalar::ZERO };
        let pad = self.g.len().saturating_sub(v.len());
        self.precomputed.vartime_multiscalar_mul(
            core::iter::once(*r)
                .chain(v.iter().take(self.g.len()).enumerate().map(entry))
                .chain(std::iter::repeat_n(Scalar::ZERO, pad)),
        )
    }
}
