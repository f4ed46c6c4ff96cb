//! Chaum–Pedersen \[CP92\] proofs of equality of discrete logarithms (DLEQ), as Barnett–Smart
//! \[BS03\] use them for masking, re-masking and reveal tokens.
//!
//! Statement: for public `H1`, `G2`, `H2` the prover knows `x` with `H1 = x·G` and `H2 = x·G2`
//! (`G` the ristretto basepoint). Sigma protocol: commit `A1 = k·G`, `A2 = k·G2`; challenge `c`;
//! response `s = k + c·x`; the verifier recomputes `A1 = s·G − c·H1`, `A2 = s·G2 − c·H2` and
//! checks that they hash to `c`. The proof is the pair `(c, s)`: 64 bytes.
//!
//! Used for masking (`log_G c1 = log_Y (c2 − M)`), re-masking (on the difference) and reveal
//! tokens (`log_G Y_i = log_{c1} d_i`) \[BS03\].
//!
//! The same proof has a second encoding, the *commitment form* [`BatchableDleqProof`]
//! `(A1, A2, s)` (96 bytes): the verifier recomputes `c` from the transcript and checks the two
//! group equations `s·G = A1 + c·H1`, `s·G2 = A2 + c·H2`. Both forms come from the same
//! transcript and the same prover run — one converts into the other by the verifier's work —
//! but only the commitment form's equations are linear in the proof's points, so only it can be
//! checked in a batch, as one multiscalar multiplication over many proofs
//! ([`crate::batch::verify_reveal_tokens`]).

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::VartimeMultiscalarMul;
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::encoding::{decode_point, ScalarBytes};
use crate::errors::{Item, PokerError, ProofKind, Result};
use crate::transcript::{ProofContext, TranscriptProtocol};

/// A Chaum–Pedersen proof `(c, s)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DleqProof {
    /// The challenge `c`.
    pub c: ScalarBytes,
    /// The response `s = k + c·x`.
    pub s: ScalarBytes,
}

/// A Chaum–Pedersen proof in commitment form `(A1, A2, s)`, which verifies in batches; the
/// challenge `c` is the transcript's, recomputed by the verifier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BatchableDleqProof {
    /// The commitment `A1 = k·G`.
    pub a1: CompressedRistretto,
    /// The commitment `A2 = k·G2`.
    pub a2: CompressedRistretto,
    /// The response `s = k + c·x`.
    pub s: ScalarBytes,
}

/// A DLEQ statement `H1 = x·G`, `H2 = x·G2`, with the compressed encodings the transcript absorbs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Statement<'a> {
    pub h1: (&'a RistrettoPoint, &'a CompressedRistretto),
    pub g2: (&'a RistrettoPoint, &'a CompressedRistretto),
    pub h2: (&'a RistrettoPoint, &'a CompressedRistretto),
}

fn absorb(t: &mut Transcript, label: &'static [u8], ctx: &ProofContext<'_>, st: &Statement<'_>) {
    t.proof_domain(label, ctx);
    t.append_point(b"H1", st.h1.1);
    t.append_point(b"G2", st.g2.1);
    t.append_point(b"H2", st.h2.1);
}

/// The sigma protocol's commitment and response: `(A1, A2, c, s)`, of which the two proof forms
/// keep `(c, s)` or `(A1, A2, s)`.
fn commit_and_respond<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    label: &'static [u8],
    ctx: &ProofContext<'_>,
    st: &Statement<'_>,
    x: &Scalar,
    rng: &mut R,
) -> (CompressedRistretto, CompressedRistretto, Scalar, Scalar) {
    absorb(t, label, ctx, st);
    let k = Scalar::random(rng);
    let a1 = (RISTRETTO_BASEPOINT_TABLE * &k).compress();
    let a2 = (st.g2.0 * k).compress();
    t.append_point(b"A1", &a1);
    t.append_point(b"A2", &a2);
    let c = t.challenge_scalar(b"c");
    (a1, a2, c, k + c * x)
}

/// A dishonest commitment-form proof for the batching tests: `A1` is offset by `offset` before
/// it enters the transcript, so that only the first equation fails, by exactly `offset`.
#[cfg(test)]
pub(crate) fn prove_batchable_with_offset<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    label: &'static [u8],
    ctx: &ProofContext<'_>,
    st: &Statement<'_>,
    x: &Scalar,
    offset: &RistrettoPoint,
    rng: &mut R,
) -> BatchableDleqProof {
    absorb(t, label, ctx, st);
    let k = Scalar::random(rng);
    let a1 = (RISTRETTO_BASEPOINT_TABLE * &k + offset).compress();
    let a2 = (st.g2.0 * k).compress();
    t.append_point(b"A1", &a1);
    t.append_point(b"A2", &a2);
    let c = t.challenge_scalar(b"c");
    BatchableDleqProof {
        a1,
        a2,
        s: (k + c * x).into(),
    }
}

/// Proves the statement with witness `x`.
pub(crate) fn prove<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    label: &'static [u8],
    ctx: &ProofContext<'_>,
    st: &Statement<'_>,
    x: &Scalar,
    rng: &mut R,
) -> DleqProof {
    let (_, _, c, s) = commit_and_respond(t, label, ctx, st, x, rng);
    DleqProof {
        c: c.into(),
        s: s.into(),
    }
}

/// Proves the statement with witness `x`, in commitment form. With the same transcript and
/// generator state it is the same proof as [`prove`]'s.
pub(crate) fn prove_batchable<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    label: &'static [u8],
    ctx: &ProofContext<'_>,
    st: &Statement<'_>,
    x: &Scalar,
    rng: &mut R,
) -> BatchableDleqProof {
    let (a1, a2, _, s) = commit_and_respond(t, label, ctx, st, x, rng);
    BatchableDleqProof {
        a1,
        a2,
        s: s.into(),
    }
}

/// Verifies a proof; `kind` and `ctx.player` name the failure.
pub(crate) fn verify(
    t: &mut Transcript,
    label: &'static [u8],
    ctx: &ProofContext<'_>,
    st: &Statement<'_>,
    proof: &DleqProof,
    kind: ProofKind,
) -> Result<()> {
    let player = ctx.player;
    let c = proof.c.decode(player, Item::Proof)?;
    let s = proof.s.decode(player, Item::Proof)?;
    absorb(t, label, ctx, st);
    let (a1, a2) = commitments(st, &c, &s);
    t.append_point(b"A1", &a1.compress());
    t.append_point(b"A2", &a2.compress());
    if t.challenge_scalar(b"c") == c {
        Ok(())
    } else {
        Err(PokerError::InvalidProof { player, kind })
    }
}

/// `A1 = s·G − c·H1`, `A2 = s·G2 − c·H2`.
fn commitments(st: &Statement<'_>, c: &Scalar, s: &Scalar) -> (RistrettoPoint, RistrettoPoint) {
    let a1 = RistrettoPoint::vartime_double_scalar_mul_basepoint(&-c, st.h1.0, s);
    let a2 = RistrettoPoint::vartime_multiscalar_mul([*s, -c], [st.g2.0, st.h2.0]);
    (a1, a2)
}

/// Verifies a proof in challenge form and returns the same proof in commitment form (for
/// peers that batch, or to compare the two encodings).
pub(crate) fn verify_and_expand(
    t: &mut Transcript,
    label: &'static [u8],
    ctx: &ProofContext<'_>,
    st: &Statement<'_>,
    proof: &DleqProof,
    kind: ProofKind,
) -> Result<BatchableDleqProof> {
    let player = ctx.player;
    let c = proof.c.decode(player, Item::Proof)?;
    let s = proof.s.decode(player, Item::Proof)?;
    let (a1, a2) = commitments(st, &c, &s);
    verify(t, label, ctx, st, proof, kind)?;
    Ok(BatchableDleqProof {
        a1: a1.compress(),
        a2: a2.compress(),
        s: proof.s,
    })
}

/// A commitment-form proof decoded and replayed against its transcript: the points and scalars
/// of its two group equations `s·G − A1 − c·H1 = 0` and `s·G2 − A2 − c·H2 = 0`.
pub(crate) struct ReplayedDleq {
    pub(crate) a1: RistrettoPoint,
    pub(crate) a2: RistrettoPoint,
    pub(crate) c: Scalar,
    pub(crate) s: Scalar,
}

impl ReplayedDleq {
    /// Decodes `proof` and recomputes its challenge.
    pub(crate) fn replay(
        t: &mut Transcript,
        label: &'static [u8],
        ctx: &ProofContext<'_>,
        st: &Statement<'_>,
        proof: &BatchableDleqProof,
    ) -> Result<ReplayedDleq> {
        let player = ctx.player;
        let a1 = decode_point(&proof.a1, player, Item::Proof)?;
        let a2 = decode_point(&proof.a2, player, Item::Proof)?;
        let s = proof.s.decode(player, Item::Proof)?;
        absorb(t, label, ctx, st);
        t.append_point(b"A1", &proof.a1);
        t.append_point(b"A2", &proof.a2);
        let c = t.challenge_scalar(b"c");
        Ok(ReplayedDleq { a1, a2, c, s })
    }

    /// The 64 bytes `c ‖ s` that bind a batch's weights to this proof.
    pub(crate) fn binding(&self) -> [u8; 64] {
        let mut b = [0; 64];
        b[..32].copy_from_slice(self.c.as_bytes());
        b[32..].copy_from_slice(self.s.as_bytes());
        b
    }
}

/// Verifies a proof in commitment form: both group equations, each by its own multiplication.
pub(crate) fn verify_batchable(
    t: &mut Transcript,
    label: &'static [u8],
    ctx: &ProofContext<'_>,
    st: &Statement<'_>,
    proof: &BatchableDleqProof,
    kind: ProofKind,
) -> Result<()> {
    let r = ReplayedDleq::replay(t, label, ctx, st, proof)?;
    let (a1, a2) = commitments(st, &r.c, &r.s);
    if a1 == r.a1 && a2 == r.a2 {
        Ok(())
    } else {
        Err(PokerError::InvalidProof {
            player: ctx.player,
            kind,
        })
    }
}
