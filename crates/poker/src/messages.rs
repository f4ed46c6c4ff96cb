//! The wire messages of the encrypted deck, serde-serializable, with a canonical binary encoding.
//!
//! Points travel compressed and scalars as raw 32 bytes, so decoding a message never rejects a
//! non-canonical value by itself: the receiving player does, naming the sender. Decoding does
//! reject truncated messages, trailing bytes and oversized length prefixes, as
//! [`PokerError::Malformed`] naming the sender the transport reports.

use bincode::Options;
use facedown_core::PartyId;
use serde::{Deserialize, Serialize};

use crate::elgamal::CompressedCiphertext;
use crate::errors::{PokerError, Result};
use crate::keys::KeyShare;
use crate::legal::NoneOfProof;
use crate::restricted::RestrictedShuffleProof;
use crate::reveal::BatchableRevealToken;
use crate::shuffle::ShuffleProof;

/// Largest accepted encoded message (a 52-card shuffle is about 8.5 KB).
pub const MAX_MESSAGE_BYTES: u64 = 16 << 20;

/// A player's turn of shuffling: the new deck and the shuffle argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleMessage {
    /// The shuffling player.
    pub player: PartyId,
    /// The shuffled, re-randomised deck.
    pub deck: Vec<CompressedCiphertext>,
    /// The proof that `deck` is a shuffle of the previous deck.
    pub proof: ShuffleProof,
}

/// A player's reveal tokens, with proofs, for the positions of an opening that its recipient
/// opens: the public positions, then those shown to the recipient alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevealMessage {
    /// The revealing player.
    pub player: PartyId,
    /// Tokens in increasing position order, in the batchable encoding.
    pub tokens: Vec<BatchableRevealToken>,
}

/// A restricted shuffle (cut, bisection cut, …) of a row of positions of the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestrictedShuffleMessage {
    /// The shuffling player.
    pub player: PartyId,
    /// The row's deck positions, in row order.
    pub positions: Vec<u32>,
    /// The shuffled, re-randomised row.
    pub deck: Vec<CompressedCiphertext>,
    /// The OR-proof.
    pub proof: RestrictedShuffleProof,
}

/// The first message of a game: fresh random bytes for the session id
/// ([`facedown_core::session`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HelloMessage {
    /// The sender.
    pub player: PartyId,
    /// 32 fresh random bytes.
    pub nonce: [u8; 32],
}

/// The reveal tokens the other players sent the owner of a card when it was shown to him, as he
/// forwards them with a none-of proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownCard {
    /// The round of the opening that showed the card (the tokens' proofs are bound to it).
    pub round: u64,
    /// One token from every other player, in player order (none for an open masking).
    pub tokens: Vec<BatchableRevealToken>,
}

/// A player's proof that none of his cards at an operation's positions bears an excluded
/// symbol ([`facedown_core::TableOp::ProveNoneOf`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoneOfMessage {
    /// The owner.
    pub player: PartyId,
    /// One entry per position of the operation, in its order.
    pub cards: Vec<ShownCard>,
    /// The proof.
    pub proof: NoneOfProof,
}

/// Any message of the encrypted deck.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Message {
    /// Key generation: a public key share with its Schnorr proof.
    KeyShare(KeyShare),
    /// A shuffle turn.
    Shuffle(Box<ShuffleMessage>),
    /// Reveal tokens.
    Reveal(RevealMessage),
    /// A restricted shuffle of a row.
    RestrictedShuffle(RestrictedShuffleMessage),
    /// The session's hello.
    Hello(HelloMessage),
    /// A none-of (legal-play) proof.
    NoneOf(NoneOfMessage),
}

fn options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .reject_trailing_bytes()
        .with_limit(MAX_MESSAGE_BYTES)
}

impl Message {
    /// The player the message claims to come from.
    pub fn sender(&self) -> PartyId {
        match self {
            Message::KeyShare(m) => m.player,
            Message::Shuffle(m) => m.player,
            Message::Reveal(m) => m.player,
            Message::RestrictedShuffle(m) => m.player,
            Message::Hello(m) => m.player,
            Message::NoneOf(m) => m.player,
        }
    }

    /// The canonical encoding (bincode, fixed-width integers, little endian).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        options()
            .serialize(self)
            .map_err(|e| PokerError::Malformed {
                player: self.sender(),
                reason: e.to_string(),
            })
    }

    /// Decodes a message whatever sender it claims (to classify it), or `None`.
    pub fn from_bytes_unchecked(bytes: &[u8]) -> Option<Message> {
        options().deserialize(bytes).ok()
    }

    /// Decodes a message the transport received from `sender`. Fails on truncation, trailing
    /// bytes, oversized lengths, and on a message that claims another sender.
    pub fn from_bytes(sender: PartyId, bytes: &[u8]) -> Result<Message> {
        let msg: Message = options()
            .deserialize(bytes)
            .map_err(|e| PokerError::Malformed {
                player: sender,
                reason: e.to_string(),
            })?;
        if msg.sender() != sender {
            return Err(PokerError::UnexpectedMessage {
                player: sender,
                reason: "message claims to come from another player",
            });
        }
        Ok(msg)
    }
}
