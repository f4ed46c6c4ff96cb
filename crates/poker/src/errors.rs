//! Protocol errors.
//!
//! Every check that can fail on bad or adversarial input returns a [`PokerError`]; nothing in this
//! crate panics on input from another party. Where a party can be blamed, the variant names it.

use facedown_core::table::TableError;
use facedown_core::{Blame, PartyId};
use thiserror::Error;

/// Which object a point or scalar belongs to, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    /// A player's public key share `Y_i`.
    PublicKey,
    /// A ciphertext component (`c1` or `c2`) of a deck.
    Ciphertext,
    /// A reveal token `d_i = x_i·c1`.
    RevealToken,
    /// A point or scalar inside a zero-knowledge proof.
    Proof,
}

impl core::fmt::Display for Item {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Item::PublicKey => "public key",
            Item::Ciphertext => "ciphertext",
            Item::RevealToken => "reveal token",
            Item::Proof => "proof",
        })
    }
}

/// Which proof failed to verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProofKind {
    /// The Schnorr proof of knowledge of a secret key share.
    KeyOwnership,
    /// The Chaum–Pedersen proof that a card was masked correctly.
    Masking,
    /// The Chaum–Pedersen proof that a ciphertext was re-masked correctly.
    Remasking,
    /// The Chaum–Pedersen proof that a reveal token is correct.
    RevealToken,
    /// The Bayer–Groth shuffle argument.
    Shuffle,
    /// The OR-proof of a shuffle restricted to an explicit set of permutations.
    RestrictedShuffle,
    /// The proof that a player's cards bear none of some symbols (a legal play), with the
    /// reveal tokens it forwards.
    NoneOf,
}

impl core::fmt::Display for ProofKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ProofKind::KeyOwnership => "key-ownership (Schnorr) proof",
            ProofKind::Masking => "masking (Chaum–Pedersen) proof",
            ProofKind::Remasking => "re-masking (Chaum–Pedersen) proof",
            ProofKind::RevealToken => "reveal-token (Chaum–Pedersen) proof",
            ProofKind::Shuffle => "shuffle argument",
            ProofKind::RestrictedShuffle => "restricted-shuffle OR-proof",
            ProofKind::NoneOf => "none-of (legal-play) proof",
        })
    }
}

/// An error of the mental-poker protocol: bad parameters, malformed or adversarial input.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PokerError {
    /// The echo round found broadcasts that differ, or a peer gave up
    /// ([`facedown_core::echo`]).
    #[error(transparent)]
    Echo(#[from] facedown_core::echo::EchoError),
    /// A zero-knowledge proof did not verify.
    #[error("the {kind} of {player} does not verify")]
    InvalidProof {
        /// The player who produced the proof.
        player: PartyId,
        /// Which proof.
        kind: ProofKind,
    },
    /// A 32-byte string is not the canonical encoding of a ristretto255 point or of a scalar
    /// reduced modulo ℓ.
    #[error("non-canonical encoding of a {item} from {player}")]
    NonCanonical {
        /// The player who sent it.
        player: PartyId,
        /// What the bytes were meant to be.
        item: Item,
    },
    /// The identity point where a non-identity point is required.
    #[error("{player} sent the identity point as a {item}")]
    IdentityPoint {
        /// The player who sent it.
        player: PartyId,
        /// What the point was meant to be.
        item: Item,
    },
    /// A message could not be decoded (truncated, trailing bytes or garbage).
    #[error("malformed message from {player}: {reason}")]
    Malformed {
        /// The sender.
        player: PartyId,
        /// The decoder's explanation.
        reason: String,
    },
    /// A message or proof carries a vector of the wrong length.
    #[error("{player} sent {got} {what} where {expected} were expected")]
    WrongLength {
        /// The sender.
        player: PartyId,
        /// What was counted.
        what: &'static str,
        /// The expected count.
        expected: usize,
        /// The count received.
        got: usize,
    },
    /// A message arrived from the wrong player, out of turn, or twice.
    #[error("unexpected message from {player}: {reason}")]
    UnexpectedMessage {
        /// The sender.
        player: PartyId,
        /// What was wrong with it.
        reason: &'static str,
    },
    /// A message is missing: `player` did not send what the protocol requires.
    #[error("{player} did not send {what}")]
    Missing {
        /// The silent player.
        player: PartyId,
        /// What is missing.
        what: &'static str,
    },
    /// A player was asked to prove that none of its cards bears an excluded symbol, and the
    /// card at `position` does: its engine refuses to make the proof (no sound proof exists).
    #[error("{player} holds an excluded card (at position {position}): no none-of proof exists")]
    HoldsExcluded {
        /// The player whose claim is false.
        player: PartyId,
        /// The position of the card.
        position: usize,
    },
    /// An opened point is not the encoding of any card of the deck.
    #[error("position {position} opens to a point that encodes no card")]
    UnknownCard {
        /// The deck position (from 0).
        position: usize,
    },
    /// Two positions opened to the same card.
    #[error("card {card} opened at positions {first} and {second}")]
    DuplicateCard {
        /// The card number.
        card: u16,
        /// The first position.
        first: usize,
        /// The second position.
        second: usize,
    },
    /// A position outside the deck.
    #[error("position {position} is outside a deck of {len} cards")]
    PositionOutOfRange {
        /// The offending position.
        position: usize,
        /// The deck size.
        len: usize,
    },
    /// Parameters that no protocol run can satisfy (too few cards, an empty permutation set …).
    #[error("invalid parameters: {0}")]
    InvalidParameters(String),
    /// A table operation that does not fit the table (a position, a party, an empty shuffle).
    #[error(transparent)]
    Table(#[from] TableError),
    /// An operation started out of order (before the setup, during another, after the end).
    #[error("operation out of order: {0}")]
    OutOfOrder(&'static str),
}

impl PokerError {
    /// The player this error blames, if any.
    pub fn blamed(&self) -> Option<PartyId> {
        match self {
            PokerError::InvalidProof { player, .. }
            | PokerError::NonCanonical { player, .. }
            | PokerError::IdentityPoint { player, .. }
            | PokerError::Malformed { player, .. }
            | PokerError::WrongLength { player, .. }
            | PokerError::UnexpectedMessage { player, .. }
            | PokerError::Missing { player, .. }
            | PokerError::HoldsExcluded { player, .. } => Some(*player),
            PokerError::Echo(e) => facedown_core::Blame::blamed(e),
            PokerError::UnknownCard { .. }
            | PokerError::DuplicateCard { .. }
            | PokerError::PositionOutOfRange { .. }
            | PokerError::InvalidParameters(_)
            | PokerError::Table(_)
            | PokerError::OutOfOrder(_) => None,
        }
    }
}

impl Blame for PokerError {
    fn blamed(&self) -> Option<PartyId> {
        PokerError::blamed(self)
    }
}

/// Shorthand for results of this crate.
pub type Result<T> = core::result::Result<T, PokerError>;
