//! Masking and re-masking with Chaum–Pedersen proofs \[BS03\].
//!
//! * Masking a card point `M` with `r`: `(r·G, M + r·Y)`, with a proof that
//!   `log_G c1 = log_Y (c2 − M)`. Anyone can then check that the ciphertext hides exactly `M`.
//! * Re-masking a ciphertext `c` with `r`: `c + (r·G, r·Y)`, with a proof of the same relation on
//!   the difference `c' − c`. The plaintext is unchanged and the link between `c` and `c'` is
//!   public (this is not a shuffle).

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use merlin::Transcript;
use rand::{CryptoRng, RngCore};

use crate::dleq::{self, DleqProof, Statement};
use crate::elgamal::{Ciphertext, CompressedCiphertext, JointKey};
use crate::errors::{ProofKind, Result};
use crate::transcript::ProofContext;

const MASK_LABEL: &[u8] = b"facedown-poker/mask/v1";
const REMASK_LABEL: &[u8] = b"facedown-poker/remask/v1";

/// Masks the point `m` under `key` with fresh randomness and proves it.
pub fn mask_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    key: &JointKey,
    m: &RistrettoPoint,
    rng: &mut R,
) -> (Ciphertext, DleqProof) {
    let r = Scalar::random(rng);
    let ct = key.encrypt(m, &r);
    let masked = ct.c2 - m;
    let (c1c, mc) = (ct.c1.compress(), masked.compress());
    let st = Statement {
        h1: (&ct.c1, &c1c),
        g2: (key.point(), key.compressed()),
        h2: (&masked, &mc),
    };
    let proof = dleq::prove(t, MASK_LABEL, ctx, &st, &r, rng);
    (ct, proof)
}

/// Verifies that `ct` masks the point `m` under `key`.
pub fn verify_mask(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    key: &JointKey,
    m: &RistrettoPoint,
    ct: &Ciphertext,
    proof: &DleqProof,
) -> Result<()> {
    let masked = ct.c2 - m;
    let (c1c, mc) = (ct.c1.compress(), masked.compress());
    let st = Statement {
        h1: (&ct.c1, &c1c),
        g2: (key.point(), key.compressed()),
        h2: (&masked, &mc),
    };
    dleq::verify(t, MASK_LABEL, ctx, &st, proof, ProofKind::Masking)
}

fn remask_statement_parts(
    before: &Ciphertext,
    after: &Ciphertext,
) -> (Ciphertext, CompressedCiphertext) {
    let diff = *after - *before;
    let enc = diff.compress();
    (diff, enc)
}

/// Re-masks `ct` under `key` with fresh randomness and proves it.
pub fn remask_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    key: &JointKey,
    ct: &Ciphertext,
    rng: &mut R,
) -> (Ciphertext, DleqProof) {
    let r = Scalar::random(rng);
    let after = *ct + key.zero_encryption(&r);
    let (diff, enc) = remask_statement_parts(ct, &after);
    let st = Statement {
        h1: (&diff.c1, &enc.c1),
        g2: (key.point(), key.compressed()),
        h2: (&diff.c2, &enc.c2),
    };
    let proof = dleq::prove(t, REMASK_LABEL, ctx, &st, &r, rng);
    (after, proof)
}

/// Verifies that `after` re-masks `before` under `key`.
pub fn verify_remask(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    key: &JointKey,
    before: &Ciphertext,
    after: &Ciphertext,
    proof: &DleqProof,
) -> Result<()> {
    let (diff, enc) = remask_statement_parts(before, after);
    let st = Statement {
        h1: (&diff.c1, &enc.c1),
        g2: (key.point(), key.compressed()),
        h2: (&diff.c2, &enc.c2),
    };
    dleq::verify(t, REMASK_LABEL, ctx, &st, proof, ProofKind::Remasking)
}
