//! Reveal tokens and opening \[BS03\].
//!
//! Player `i`'s token for a ciphertext `(c1, c2)` is `d_i = x_i·c1`, with a Chaum–Pedersen proof
//! that `log_G Y_i = log_{c1} d_i`. With every token, `M = c2 − Σ_i d_i`. A *public* opening
//! needs every player's token; a *private* opening to player `k` needs the tokens of all `i ≠ k`,
//! and `k` adds its own token locally — the others learn nothing about the card.
//!
//! The token's transcript also absorbs the deck position, so a token proof for one position does
//! not verify for another.
//!
//! Two encodings of the same token exist: [`RevealToken`] carries the Chaum–Pedersen proof in
//! challenge form `(c, s)` (100 bytes, format v1), [`BatchableRevealToken`] in commitment form
//! `(A1, A2, s)` (132 bytes, format v2), whose equations are linear in the proof's points so that
//! a whole round of tokens verifies as one multiscalar multiplication
//! ([`crate::batch::verify_reveal_tokens`]). Both come from the same transcript: with the same
//! generator state the two provers make the same proof, and [`RevealToken::to_batchable`]
//! converts a verified v1 token.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::dleq::{self, BatchableDleqProof, DleqProof, ReplayedDleq, Statement};
use crate::elgamal::{CardEncoding, Ciphertext, CompressedCiphertext};
use crate::encoding::decode_point;
use crate::errors::{Item, PokerError, ProofKind, Result};
use crate::keys::{PublicKey, SecretKey};
use crate::transcript::ProofContext;

const REVEAL_LABEL: &[u8] = b"facedown-poker/reveal/v1";

/// The statement of player `i`'s token `d` for `ct`: `log_G Y_i = log_{c1} d`.
fn statement<'a>(
    pk: &'a PublicKey,
    ct: (&'a Ciphertext, &'a CompressedCiphertext),
    d: (&'a RistrettoPoint, &'a CompressedRistretto),
) -> Statement<'a> {
    Statement {
        h1: (&pk.point, &pk.compressed),
        g2: (&ct.0.c1, &ct.1.c1),
        h2: d,
    }
}

/// A reveal token `d_i` for one deck position, with its proof.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RevealToken {
    /// The deck position (from 0) the token is for.
    pub position: u32,
    /// `d_i = x_i·c1`, compressed.
    pub token: CompressedRistretto,
    /// Proof that `log_G Y_i = log_{c1} d_i`.
    pub proof: DleqProof,
}

/// A reveal token in the batchable encoding (format v2): the same token and proof as a
/// [`RevealToken`], with the proof in commitment form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BatchableRevealToken {
    /// The deck position (from 0) the token is for.
    pub position: u32,
    /// `d_i = x_i·c1`, compressed.
    pub token: CompressedRistretto,
    /// Proof that `log_G Y_i = log_{c1} d_i`, in commitment form.
    pub proof: BatchableDleqProof,
}

/// Computes `d_i = x_i·c1`, binds the position, and proves the token's statement with `prove`:
/// what both encodings of a token share.
fn make_token<P>(
    t: &mut Transcript,
    sk: &SecretKey,
    position: u32,
    ct: (&Ciphertext, &CompressedCiphertext),
    prove: impl FnOnce(&mut Transcript, &Statement<'_>) -> P,
) -> (RistrettoPoint, CompressedRistretto, P) {
    let d = own_token(sk, ct.0);
    let dc = d.compress();
    let st = statement(sk.public(), ct, (&d, &dc));
    t.append_u64(b"position", u64::from(position));
    let proof = prove(t, &st);
    (d, dc, proof)
}

/// Makes player `ctx.player`'s token for the ciphertext at `position`.
pub fn reveal_token_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    sk: &SecretKey,
    position: u32,
    ct: (&Ciphertext, &CompressedCiphertext),
    rng: &mut R,
) -> RevealToken {
    let (_, token, proof) = make_token(t, sk, position, ct, |t, st| {
        dleq::prove(t, REVEAL_LABEL, ctx, st, sk.scalar(), rng)
    });
    RevealToken {
        position,
        token,
        proof,
    }
}

/// Makes player `ctx.player`'s token for the ciphertext at `position`, in the batchable
/// encoding. With the same transcript and generator state it is the token
/// [`reveal_token_with_rng`] makes.
pub fn batchable_reveal_token_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    sk: &SecretKey,
    position: u32,
    ct: (&Ciphertext, &CompressedCiphertext),
    rng: &mut R,
) -> BatchableRevealToken {
    batchable_reveal_token_and_point_with_rng(t, ctx, sk, position, ct, rng).0
}

/// As [`batchable_reveal_token_with_rng`], with the token's point `d_i` (so that its maker
/// need not decompress what it has just compressed).
pub(crate) fn batchable_reveal_token_and_point_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    sk: &SecretKey,
    position: u32,
    ct: (&Ciphertext, &CompressedCiphertext),
    rng: &mut R,
) -> (BatchableRevealToken, RistrettoPoint) {
    let (d, token, proof) = make_token(t, sk, position, ct, |t, st| {
        dleq::prove_batchable(t, REVEAL_LABEL, ctx, st, sk.scalar(), rng)
    });
    let token = BatchableRevealToken {
        position,
        token,
        proof,
    };
    (token, d)
}

/// A dishonest batchable token for the batching tests: its proof's `A1` is offset by `offset`.
#[cfg(test)]
pub(crate) fn batchable_reveal_token_with_offset<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    sk: &SecretKey,
    position: u32,
    ct: (&Ciphertext, &CompressedCiphertext),
    offset: &RistrettoPoint,
    rng: &mut R,
) -> BatchableRevealToken {
    let (_, token, proof) = make_token(t, sk, position, ct, |t, st| {
        dleq::prove_batchable_with_offset(t, REVEAL_LABEL, ctx, st, sk.scalar(), offset, rng)
    });
    BatchableRevealToken {
        position,
        token,
        proof,
    }
}

impl RevealToken {
    /// Verifies this token as [`verify_reveal_token`] does and returns the same token in the
    /// batchable encoding.
    pub fn to_batchable(
        &self,
        t: &mut Transcript,
        ctx: &ProofContext<'_>,
        pk: &PublicKey,
        ct: (&Ciphertext, &CompressedCiphertext),
    ) -> Result<BatchableRevealToken> {
        let kind = ProofKind::RevealToken;
        let at = (self.position, &self.token);
        let (_, proof) = check_token(t, ctx, pk, ct, at, |t, st| {
            dleq::verify_and_expand(t, REVEAL_LABEL, ctx, st, &self.proof, kind)
        })?;
        Ok(BatchableRevealToken {
            position: self.position,
            token: self.token,
            proof,
        })
    }
}

/// Decodes the token point `d_i`, binds the token's position, and runs `check` on the token's
/// Chaum–Pedersen statement: what every verification of a token shares.
fn check_token<T>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    pk: &PublicKey,
    ct: (&Ciphertext, &CompressedCiphertext),
    (position, token): (u32, &CompressedRistretto),
    check: impl FnOnce(&mut Transcript, &Statement<'_>) -> Result<T>,
) -> Result<(RistrettoPoint, T)> {
    let d = decode_point(token, ctx.player, Item::RevealToken)?;
    let st = statement(pk, ct, (&d, token));
    t.append_u64(b"position", u64::from(position));
    let out = check(t, &st)?;
    Ok((d, out))
}

/// Verifies a batchable token on its own and returns `d_i`; [`crate::batch::verify_reveal_tokens`]
/// verifies many at once.
pub fn verify_batchable_reveal_token(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    pk: &PublicKey,
    ct: (&Ciphertext, &CompressedCiphertext),
    token: &BatchableRevealToken,
) -> Result<RistrettoPoint> {
    let kind = ProofKind::RevealToken;
    let at = (token.position, &token.token);
    check_token(t, ctx, pk, ct, at, |t, st| {
        dleq::verify_batchable(t, REVEAL_LABEL, ctx, st, &token.proof, kind)
    })
    .map(|(d, ())| d)
}

/// Decodes a batchable token and replays its transcript: `d_i` and the proof's equations.
pub(crate) fn replay_batchable_token(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    pk: &PublicKey,
    ct: (&Ciphertext, &CompressedCiphertext),
    token: &BatchableRevealToken,
) -> Result<(RistrettoPoint, ReplayedDleq)> {
    let at = (token.position, &token.token);
    check_token(t, ctx, pk, ct, at, |t, st| {
        ReplayedDleq::replay(t, REVEAL_LABEL, ctx, st, &token.proof)
    })
}

/// Verifies player `ctx.player`'s token (whose public share is `pk`) for `ct` and returns `d_i`.
pub fn verify_reveal_token(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    pk: &PublicKey,
    ct: (&Ciphertext, &CompressedCiphertext),
    token: &RevealToken,
) -> Result<RistrettoPoint> {
    let kind = ProofKind::RevealToken;
    let at = (token.position, &token.token);
    check_token(t, ctx, pk, ct, at, |t, st| {
        dleq::verify(t, REVEAL_LABEL, ctx, st, &token.proof, kind)
    })
    .map(|(d, ())| d)
}

/// Opens a ciphertext with all tokens `d_i` (verified ones, plus one's own): `M = c2 − Σ d_i`,
/// then looks the point up among the cards.
pub fn open_card(
    cards: &CardEncoding,
    position: usize,
    ct: &Ciphertext,
    tokens: &[RistrettoPoint],
) -> Result<u16> {
    let m = ct.c2 - tokens.iter().sum::<RistrettoPoint>();
    cards.card(&m).ok_or(PokerError::UnknownCard { position })
}

/// A player's own token for a ciphertext (computed locally, never sent when opening privately).
pub fn own_token(sk: &SecretKey, ct: &Ciphertext) -> RistrettoPoint {
    ct.c1 * sk.scalar()
}
