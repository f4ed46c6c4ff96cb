//! Canonical wire encodings of scalars and points.
//!
//! Messages carry points as [`CompressedRistretto`] and scalars as [`ScalarBytes`]: 32 raw bytes
//! each, so that *deserializing* never fails on a non-canonical value. Decoding into group
//! elements happens when a player validates a message, where the sender is known and a
//! non-canonical encoding becomes [`PokerError::NonCanonical`] naming that sender.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use facedown_core::PartyId;
use serde::{Deserialize, Serialize};

use crate::errors::{Item, PokerError, Result};

/// A scalar on the wire: 32 little-endian bytes, which must be canonical (`< ℓ`) to decode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ScalarBytes(pub [u8; 32]);

impl From<Scalar> for ScalarBytes {
    fn from(s: Scalar) -> Self {
        ScalarBytes(s.to_bytes())
    }
}

impl ScalarBytes {
    /// Decodes, rejecting non-canonical bytes as coming from `player`.
    pub fn decode(&self, player: PartyId, item: Item) -> Result<Scalar> {
        Option::from(Scalar::from_canonical_bytes(self.0))
            .ok_or(PokerError::NonCanonical { player, item })
    }
}

/// Decompresses a point, rejecting non-canonical bytes as coming from `player`.
pub fn decode_point(
    point: &CompressedRistretto,
    player: PartyId,
    item: Item,
) -> Result<RistrettoPoint> {
    point
        .decompress()
        .ok_or(PokerError::NonCanonical { player, item })
}

/// Decompresses a point that must not be the identity.
pub fn decode_nonidentity_point(
    point: &CompressedRistretto,
    player: PartyId,
    item: Item,
) -> Result<RistrettoPoint> {
    if *point == CompressedRistretto::default() {
        return Err(PokerError::IdentityPoint { player, item });
    }
    decode_point(point, player, item)
}

/// Decodes a vector of scalars of a required length.
pub fn decode_scalars(
    v: &[ScalarBytes],
    expected: usize,
    player: PartyId,
    what: &'static str,
) -> Result<Vec<Scalar>> {
    if v.len() != expected {
        return Err(PokerError::WrongLength {
            player,
            what,
            expected,
            got: v.len(),
        });
    }
    v.iter().map(|s| s.decode(player, Item::Proof)).collect()
}
