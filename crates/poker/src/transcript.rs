//! The private Fiat–Shamir \[FS86\] layer: a [`TranscriptProtocol`] extension of merlin's `Transcript`.
//!
//! The application creates the `Transcript` (with its own label) and passes `&mut Transcript`
//! in; protocol code only extends it. Every proof starts with a versioned domain separator and
//! the context it is bound to (session id, round, prover), so a proof made in one session, round
//! or by one player does not verify in another. Only canonical compressed encodings are ever
//! absorbed, so a proof survives serialize → deserialize, and challenges are 64 bytes reduced
//! modulo ℓ (`Scalar::from_bytes_mod_order_wide`), which makes them statistically uniform.

use curve25519_dalek::ristretto::CompressedRistretto;
use curve25519_dalek::scalar::Scalar;
use facedown_core::PartyId;
use merlin::Transcript;

use crate::elgamal::CompressedCiphertext;
use crate::errors::{Item, PokerError, Result};

/// Where a proof lives: the session, the protocol round and the prover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofContext<'a> {
    /// The session (game) identifier, chosen by the application; any byte string.
    pub session: &'a [u8],
    /// The protocol round the proof belongs to.
    pub round: u64,
    /// The player who proves.
    pub player: PartyId,
}

/// merlin extension trait with this crate's domain separators and encodings.
pub(crate) trait TranscriptProtocol {
    /// Starts a proof: versioned domain separator, then the proof's context.
    fn proof_domain(&mut self, label: &'static [u8], ctx: &ProofContext<'_>);
    /// Absorbs a compressed point (any point, including the identity).
    fn append_point(&mut self, label: &'static [u8], point: &CompressedRistretto);
    /// Absorbs a compressed point that must not be the identity.
    fn validate_and_append_point(
        &mut self,
        label: &'static [u8],
        point: &CompressedRistretto,
        player: PartyId,
        item: Item,
    ) -> Result<()>;
    /// Absorbs a scalar.
    fn append_scalar(&mut self, label: &'static [u8], scalar: &Scalar);
    /// Absorbs a whole deck of compressed ciphertexts, length first.
    fn append_deck(&mut self, label: &'static [u8], deck: &[CompressedCiphertext]);
    /// A challenge scalar from 64 bytes of transcript output, reduced modulo ℓ.
    fn challenge_scalar(&mut self, label: &'static [u8]) -> Scalar;
}

impl TranscriptProtocol for Transcript {
    fn proof_domain(&mut self, label: &'static [u8], ctx: &ProofContext<'_>) {
        self.append_message(b"dom-sep", label);
        self.append_message(b"session", ctx.session);
        self.append_u64(b"round", ctx.round);
        self.append_u64(b"player", u64::from(ctx.player.0));
    }

    fn append_point(&mut self, label: &'static [u8], point: &CompressedRistretto) {
        self.append_message(label, point.as_bytes());
    }

    fn validate_and_append_point(
        &mut self,
        label: &'static [u8],
        point: &CompressedRistretto,
        player: PartyId,
        item: Item,
    ) -> Result<()> {
        if *point == CompressedRistretto::default() {
            return Err(PokerError::IdentityPoint { player, item });
        }
        self.append_message(label, point.as_bytes());
        Ok(())
    }

    fn append_scalar(&mut self, label: &'static [u8], scalar: &Scalar) {
        self.append_message(label, scalar.as_bytes());
    }

    fn append_deck(&mut self, label: &'static [u8], deck: &[CompressedCiphertext]) {
        self.append_u64(label, deck.len() as u64);
        let mut bytes = Vec::with_capacity(64 * deck.len());
        for ct in deck {
            bytes.extend_from_slice(ct.c1.as_bytes());
            bytes.extend_from_slice(ct.c2.as_bytes());
        }
        self.append_message(label, &bytes);
    }

    fn challenge_scalar(&mut self, label: &'static [u8]) -> Scalar {
        let mut buf = [0u8; 64];
        self.challenge_bytes(label, &mut buf);
        Scalar::from_bytes_mod_order_wide(&buf)
    }
}
