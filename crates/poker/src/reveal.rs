//! Reveal tokens and opening \[BS03\].
//!
//! Player `i`'s token for a ciphertext `(c1, c2)` is `d_i = x_i·c1`, with a Chaum–Pedersen proof
//! that `log_G Y_i = log_{c1} d_i`. With every token, `M = c2 − Σ_i d_i`. A *public* opening
//! needs every player's token; a *private* opening to player `k` needs the tokens of all `i ≠ k`,
//! and `k` adds its own token locally — the others learn nothing about the card.
//!
//! The token's transcript also absorbs the deck position, so a token proof for one position does
//! not verify for another.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::dleq::{self, DleqProof, Statement};
use crate::elgamal::{CardEncoding, Ciphertext, CompressedCiphertext};
use crate::encoding::decode_point;
use crate::errors::{Item, PokerError, ProofKind, Result};
use crate::keys::{PublicKey, SecretKey};
use crate::transcript::ProofContext;

const REVEAL_LABEL: &[u8] = b"facedown-poker/reveal/v1";

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

/// Makes player `ctx.player`'s token for the ciphertext at `position`.
pub fn reveal_token_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    sk: &SecretKey,
    position: u32,
    ct: (&Ciphertext, &CompressedCiphertext),
    rng: &mut R,
) -> RevealToken {
    let d = ct.0.c1 * sk.scalar();
    let dc = d.compress();
    let pk = sk.public();
    let st = Statement {
        h1: (&pk.point, &pk.compressed),
        g2: (&ct.0.c1, &ct.1.c1),
        h2: (&d, &dc),
    };
    t.append_u64(b"position", u64::from(position));
    let proof = dleq::prove(t, REVEAL_LABEL, ctx, &st, sk.scalar(), rng);
    RevealToken {
        position,
        token: dc,
        proof,
    }
}

/// Verifies player `ctx.player`'s token (whose public share is `pk`) for `ct` and returns `d_i`.
pub fn verify_reveal_token(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    pk: &PublicKey,
    ct: (&Ciphertext, &CompressedCiphertext),
    token: &RevealToken,
) -> Result<RistrettoPoint> {
    let d = decode_point(&token.token, ctx.player, Item::RevealToken)?;
    let st = Statement {
        h1: (&pk.point, &pk.compressed),
        g2: (&ct.0.c1, &ct.1.c1),
        h2: (&d, &token.token),
    };
    t.append_u64(b"position", u64::from(token.position));
    dleq::verify(
        t,
        REVEAL_LABEL,
        ctx,
        &st,
        &token.proof,
        ProofKind::RevealToken,
    )?;
    Ok(d)
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
