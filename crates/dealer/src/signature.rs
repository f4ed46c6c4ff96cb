//! Ed25519 signature checks with **one acceptance rule**, whether a signature is checked on its
//! own or in a batch.
//!
//! Ed25519 lives on edwards25519, whose group has order `8·ℓ`: unlike ristretto255 it has
//! small-order points, and implementations differ on them. ed25519-dalek's `verify` is
//! *cofactorless* (`R = [s]B − [k]A`, compared as bytes) and its `verify_batch` checks a random
//! combination of the same equations without the cofactor, so a signature whose nonce point
//! `R` carries a small-order component, or is itself of small order, or is encoded
//! non-canonically, could be refused alone and accepted in a batch — or accepted in one batch
//! and refused in another, depending on the other signatures' random weights. Only the holder
//! of the signing key can make such a signature, but with it he could get honest players to
//! disagree: one acts on his message, another names him (or the audit of a saved transcript
//! passes or fails with the batch it happens to be in).
//!
//! Here both checks decide by the same rule (the cofactored equation, as Zcash's ZIP 215 and
//! Chalkias, Garillot and Nikolaenko's "Taming the many EdDSAs" (2020) recommend for
//! batch-compatible verification), with strict encodings:
//!
//! | check | rule |
//! |---|---|
//! | `s` | canonical: `s < ℓ` |
//! | `R` | a canonical encoding of a point, not of small order (the identity included) |
//! | `A` (roster key) | a canonical encoding of a point, not of small order ([`check_key`]) |
//! | equation | `[8]([s]B − R − [k]A) = 0`, `k = SHA-512(R ‖ A ‖ M) mod ℓ` |
//!
//! A batch draws 128-bit weights `z_i` from a hash of every signature and challenge, and
//! checks `[8](Σ z_i·([s_i]B − R_i − [k_i]A_i)) = 0` with one multiscalar multiplication (each
//! player's key once). If every signature satisfies the rule the sum is the identity; if one
//! does not, its term's prime-order part is not zero and the sum is the identity with
//! probability at most `2^-128`. So the batch's verdict is the one-by-one verdict, whatever the
//! other members of the batch.
//!
//! Signatures made by ed25519-dalek's signer satisfy the rule (RFC 8032 signatures from an
//! honest key: `R = [r]B`, `s < ℓ`), so no honest signature is refused.

use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{IsIdentity, VartimeMultiscalarMul};
use ed25519_dalek::{Digest, Sha512, VerifyingKey};

/// Domain label of the hash that draws a batch's weights.
const WEIGHTS_LABEL: &[u8] = b"facedown-dealer/signature-batch-weights/v1";

/// Whether 32 bytes are the canonical encoding of a field element `y < p = 2^255 − 19` (the
/// sign bit aside). The other non-canonical encodings (a set sign bit with `x = 0`) are of `y =
/// ±1`, the identity and the point of order 2, which the small-order checks refuse.
fn canonical_y(bytes: &[u8; 32]) -> bool {
    let top = bytes[31] & 0x7f;
    let all_ones = bytes[1..31].iter().all(|&b| b == 0xff);
    !(top == 0x7f && all_ones && bytes[0] >= 0xed)
}

/// Decodes a point that must be canonically encoded and not of small order.
fn strict_point(bytes: &[u8; 32]) -> Option<EdwardsPoint> {
    if !canonical_y(bytes) {
        return None;
    }
    CompressedEdwardsY(*bytes)
        .decompress()
        .filter(|p| !p.is_small_order())
}

/// Whether a roster key obeys the rule: a canonical encoding of a point not of small order
/// (a small-order key would let anyone sign as its player under the cofactored equation).
pub(crate) fn check_key(key: &VerifyingKey) -> bool {
    strict_point(key.as_bytes()).is_some()
}

/// One signature's decoded parts: `R`, `s` and the challenge `k`.
struct Parts {
    r: EdwardsPoint,
    s: Scalar,
    k: Scalar,
    /// The 64 bytes of `k` before reduction, for the batch weights.
    hram: [u8; 64],
}

fn parts(key: &VerifyingKey, message: &[u8], signature: &[u8; 64]) -> Option<Parts> {
    let mut r_bytes = [0u8; 32];
    let mut s_bytes = [0u8; 32];
    r_bytes.copy_from_slice(&signature[..32]);
    s_bytes.copy_from_slice(&signature[32..]);
    let s = Option::<Scalar>::from(Scalar::from_canonical_bytes(s_bytes))?;
    let r = strict_point(&r_bytes)?;
    let mut h = Sha512::new();
    h.update(r_bytes);
    h.update(key.as_bytes());
    h.update(message);
    let mut hram = [0u8; 64];
    hram.copy_from_slice(&h.finalize());
    Some(Parts {
        r,
        s,
        k: Scalar::from_bytes_mod_order_wide(&hram),
        hram,
    })
}

/// Whether `signature` is a signature of `message` under `key` by the rule of the
/// [module docs](self).
pub(crate) fn verify(key: &VerifyingKey, message: &[u8], signature: &[u8; 64]) -> bool {
    let Some(p) = parts(key, message, signature) else {
        return false;
    };
    let sb_minus_ka =
        EdwardsPoint::vartime_double_scalar_mul_basepoint(&-p.k, &key.to_edwards(), &p.s);
    (sb_minus_ka - p.r).mul_by_cofactor().is_identity()
}

/// Whether every `(key, message, signature)` satisfies the rule, checked in one batch; `keys`
/// are the signers' keys, `signer[i]` the index in `keys` of signature `i`'s. `false` if any
/// member fails (or if the lengths differ): the caller then checks one by one to name it.
pub(crate) fn verify_batch(
    keys: &[VerifyingKey],
    signer: &[usize],
    messages: &[&[u8]],
    signatures: &[&[u8; 64]],
) -> bool {
    if signer.len() != messages.len() || signer.len() != signatures.len() {
        return false;
    }
    let mut decoded = Vec::with_capacity(signatures.len());
    for ((&j, m), sig) in signer.iter().zip(messages).zip(signatures) {
        let Some(key) = keys.get(j) else {
            return false;
        };
        match parts(key, m, sig) {
            Some(p) => decoded.push(p),
            None => return false,
        }
    }
    // The weights: a hash of every challenge and every `s`, so none is known before the whole
    // batch is fixed.
    let mut seed = Sha512::new();
    seed.update(WEIGHTS_LABEL);
    seed.update((decoded.len() as u64).to_le_bytes());
    for p in &decoded {
        seed.update(p.hram);
        seed.update(p.s.as_bytes());
    }
    let seed = seed.finalize();
    let weights = (0..decoded.len() as u64).map(|i| {
        let mut h = Sha512::new();
        h.update(seed);
        h.update(i.to_le_bytes());
        let out = h.finalize();
        let mut z = [0u8; 32];
        z[..16].copy_from_slice(&out[..16]);
        Scalar::from_bytes_mod_order(z)
    });
    let mut b_coefficient = Scalar::ZERO;
    let mut key_coefficients = vec![Scalar::ZERO; keys.len()];
    let mut scalars = Vec::with_capacity(decoded.len() + keys.len() + 1);
    let mut points = Vec::with_capacity(decoded.len() + keys.len() + 1);
    for ((p, z), &j) in decoded.iter().zip(weights).zip(signer) {
        b_coefficient += z * p.s;
        key_coefficients[j] -= z * p.k;
        scalars.push(-z);
        points.push(p.r);
    }
    scalars.push(b_coefficient);
    points.push(ED25519_BASEPOINT_POINT);
    for (key, c) in keys.iter().zip(key_coefficients) {
        scalars.push(c);
        points.push(key.to_edwards());
    }
    EdwardsPoint::vartime_multiscalar_mul(scalars, points)
        .mul_by_cofactor()
        .is_identity()
}

#[cfg(test)]
mod tests {
    use super::*;
    use curve25519_dalek::constants::EIGHT_TORSION;
    use ed25519_dalek::{Signer, SigningKey};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn key(seed: u64) -> SigningKey {
        SigningKey::generate(&mut ChaCha20Rng::seed_from_u64(seed))
    }

    /// A signature with nonce point `R = [r]B + T` for the given `r` and torsion point `T`,
    /// made with the signing key (what only its holder can do).
    fn with_nonce(k: &SigningKey, m: &[u8], r: Scalar, t: EdwardsPoint) -> [u8; 64] {
        let big_r = (ED25519_BASEPOINT_POINT * r + t).compress();
        let mut h = Sha512::new();
        h.update(big_r.as_bytes());
        h.update(k.verifying_key().as_bytes());
        h.update(m);
        let mut hram = [0u8; 64];
        hram.copy_from_slice(&h.finalize());
        let c = Scalar::from_bytes_mod_order_wide(&hram);
        let s = r + c * k.to_scalar();
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(big_r.as_bytes());
        sig[32..].copy_from_slice(s.as_bytes());
        sig
    }

    #[test]
    fn honest_signatures_verify_alone_and_in_a_batch_and_a_torsion_nonce_is_refused_by_both() {
        let (a, b) = (key(1), key(2));
        let keys = [a.verifying_key(), b.verifying_key()];
        let m: &[u8] = b"message";
        let good = a.sign(m).to_bytes();
        assert!(verify(&keys[0], m, &good));
        assert!(!verify(&keys[1], m, &good));
        assert!(verify_batch(&keys, &[0, 0], &[m, m], &[&good, &good]));
        // The cofactored equation accepts a nonce with a torsion component (which would make
        // the cofactorless single check and dalek's batch disagree): it is not of small order,
        // and both checks here accept it alike.
        let mixed = with_nonce(&b, m, Scalar::from(7u8), EIGHT_TORSION[1]);
        assert!(verify(&keys[1], m, &mixed));
        assert!(verify_batch(&keys, &[0, 1], &[m, m], &[&good, &mixed]));
        // A nonce of small order (the identity, or a torsion point with s = k·a) is refused
        // by both.
        for t in EIGHT_TORSION {
            let small = with_nonce(&b, m, Scalar::ZERO, t);
            assert!(!verify(&keys[1], m, &small));
            assert!(!verify_batch(&keys, &[0, 1], &[m, m], &[&good, &small]));
        }
    }

    #[test]
    fn non_canonical_field_elements_are_recognised() {
        let mut p = [0xffu8; 32];
        p[0] = 0xed;
        p[31] = 0x7f;
        assert!(!canonical_y(&p), "p itself");
        p[0] = 0xec;
        assert!(canonical_y(&p), "p − 1");
        let mut signed = p;
        signed[31] |= 0x80;
        assert!(canonical_y(&signed), "the sign bit is not part of y");
    }
}
