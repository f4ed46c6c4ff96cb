//! Protocol errors: bad or adversarial input, always a `Result`, naming the offending party.

use facedown_core::{Blame, PartyId};

/// Everything that can go wrong when building a deal, receiving a message or reading a
/// transcript. Variants that concern a message name the party it claims to come from (or the
/// peer it was received from, when it could not even be decoded).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealerError {
    /// The deal parameters are unusable.
    #[error("invalid deal parameters: {0}")]
    Config(String),
    /// A permutation ordinal is not in `0..n!`.
    #[error("{party} opened slot {slot} with an ordinal outside 0..{cards}!")]
    RankOutOfRange {
        /// Who published the ordinal.
        party: PartyId,
        /// Which of his permutations.
        slot: String,
        /// Deck size `n`.
        cards: usize,
    },
    /// Bytes received from `peer` could not be decoded as a message.
    #[error("malformed message from {peer}: {reason}")]
    Malformed {
        /// The peer the bytes came from.
        peer: PartyId,
        /// What the decoder said.
        reason: String,
    },
    /// A message claims a sender that is not in the roster.
    #[error("message claims to come from party {claimed}, who is not at this table of {players}")]
    UnknownSender {
        /// The claimed sender number.
        claimed: u16,
        /// Number of players.
        players: usize,
    },
    /// A message is addressed to a party that does not exist.
    #[error("{from} addressed a message to party {to}, who is not at this table")]
    UnknownRecipient {
        /// The sender.
        from: PartyId,
        /// The bad recipient number.
        to: u16,
    },
    /// A message's signature does not verify under its claimed sender's key.
    #[error("bad signature on message {seq} claiming to come from {from}")]
    BadSignature {
        /// The claimed sender.
        from: PartyId,
        /// Its sequence number.
        seq: u32,
    },
    /// A message arrived at a party it is not addressed to.
    #[error("{me} received a message from {from} addressed to someone else")]
    WrongRecipient {
        /// The sender.
        from: PartyId,
        /// The party that received it.
        me: PartyId,
    },
    /// A message carries a card or position outside `0..n`.
    #[error("{from} sent value {value}, outside the deck 0..{cards}")]
    CardOutOfRange {
        /// The sender.
        from: PartyId,
        /// The value it sent.
        value: u64,
        /// Deck size.
        cards: usize,
    },
    /// A well-formed, correctly signed message that the protocol does not allow here.
    #[error("unexpected message from {from}: {what}")]
    Unexpected {
        /// The sender.
        from: PartyId,
        /// What is wrong with it.
        what: String,
    },
    /// A sequence number was reused (replay) or went backwards.
    #[error("{from} reused sequence number {seq} (replay?)")]
    Replay {
        /// The sender.
        from: PartyId,
        /// The repeated sequence number.
        seq: u32,
    },
    /// The scheme offers no private opening path to this player (the three-player scheme as
    /// published has none for player 2).
    #[error("the scheme has no private opening path to {0}")]
    NoPrivatePath(PartyId),
    /// A saved transcript could not be read.
    #[error("malformed transcript: {0}")]
    Transcript(String),
}

impl Blame for DealerError {
    /// The party a message error names (the signed sender, or the peer bytes came from); none
    /// for configuration and transcript errors, and none for an unknown sender (who is not a
    /// player).
    fn blamed(&self) -> Option<PartyId> {
        match self {
            DealerError::RankOutOfRange { party, .. } => Some(*party),
            DealerError::Malformed { peer, .. } => Some(*peer),
            DealerError::UnknownRecipient { from, .. }
            | DealerError::BadSignature { from, .. }
            | DealerError::WrongRecipient { from, .. }
            | DealerError::CardOutOfRange { from, .. }
            | DealerError::Unexpected { from, .. }
            | DealerError::Replay { from, .. } => Some(*from),
            DealerError::UnknownSender { .. }
            | DealerError::Config(_)
            | DealerError::NoPrivatePath(_)
            | DealerError::Transcript(_) => None,
        }
    }
}
