//! Pedersen commitment generators derived by hash-to-group.
//!
//! `com(v; r) = r·H + Σ v_i·G_i`. The generators `G_1, …, G_n, H` are
//! `hash_to_group("facedown-poker/pedersen/v1" ‖ index)` (SHA3-512, ristretto Elligator map): no
//! party chooses them, and nobody knows discrete-log relations between them. This matters: a
//! party who knew `log G_i` could open a commitment to another vector and pass a false shuffle.

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::VartimeMultiscalarMul;
use sha3::Sha3_512;

const PEDERSEN_LABEL: &[u8] = b"facedown-poker/pedersen/v1";

/// A Pedersen commitment key for vectors of up to `n` entries.
#[derive(Clone, Debug)]
pub struct CommitmentKey {
    /// `G_1, …, G_n` (index 0 is `G_1`).
    pub(crate) g: Vec<RistrettoPoint>,
    /// `H`, the blinding generator.
    pub(crate) h: RistrettoPoint,
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
        CommitmentKey {
            h: derive(0),
            g: (1..=n as u64).map(derive).collect(),
        }
    }

    /// The largest vector length this key commits to.
    pub fn capacity(&self) -> usize {
        self.g.len()
    }

    /// `com(v; r)`; `v` must not be longer than the key (callers check).
    pub(crate) fn commit(&self, v: &[Scalar], r: &Scalar) -> RistrettoPoint {
        RistrettoPoint::vartime_multiscalar_mul(
            core::iter::once(r).chain(v.iter()),
            core::iter::once(&self.h).chain(self.g.iter().take(v.len())),
        )
    }
}
