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

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::VartimeMultiscalarMul;
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::encoding::ScalarBytes;
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

/// Proves the statement with witness `x`.
pub(crate) fn prove<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    label: &'static [u8],
    ctx: &ProofContext<'_>,
    st: &Statement<'_>,
    x: &Scalar,
    rng: &mut R,
) -> DleqProof {
    absorb(t, label, ctx, st);
    let k = Scalar::random(rng);
    let a1 = RISTRETTO_BASEPOINT_TABLE * &k;
    let a2 = st.g2.0 * k;
    t.append_point(b"A1", &a1.compress());
    t.append_point(b"A2", &a2.compress());
    let c = t.challenge_scalar(b"c");
    DleqProof {
        c: c.into(),
        s: (k + c * x).into(),
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
    let a1 = RistrettoPoint::vartime_double_scalar_mul_basepoint(&-c, st.h1.0, &s);
    let a2 = RistrettoPoint::vartime_multiscalar_mul([s, -c], [st.g2.0, st.h2.0]);
    t.append_point(b"A1", &a1.compress());
    t.append_point(b"A2", &a2.compress());
    if t.challenge_scalar(b"c") == c {
        Ok(())
    } else {
        Err(PokerError::InvalidProof { player, kind })
    }
}
