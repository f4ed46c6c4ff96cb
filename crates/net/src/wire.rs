//! What networked players put in a frame.
//!
//! The backends' own messages travel unchanged inside [`Wire::Dealer`] (a signed dealer
//! [`Envelope`](facedown_dealer::Envelope) in its wire encoding) and [`Wire::Poker`] (a poker
//! [`Message`](facedown_poker::messages::Message) in its canonical encoding); the other
//! variants are this crate's own: the opening hello that makes the session fresh, the
//! transcript exchange of the dealer's audit, and the control messages that end a game.

use bincode::Options;
use facedown_core::PartyId;
use serde::{Deserialize, Serialize};

use crate::error::NetError;

/// Largest encoded [`Wire`] message.
pub const MAX_WIRE_BYTES: u64 = 32 << 20;

/// One frame's content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Wire {
    /// First message of every game: a fresh nonce (all of them, hashed with the roster
    /// session, make the game's session id) and, for the dealer, the sender's fresh ed25519
    /// signature key for this game.
    Hello {
        /// 32 random bytes.
        nonce: [u8; 32],
        /// The dealer signature key (absent for poker).
        signing_key: Option<[u8; 32]>,
    },
    /// A signed dealer envelope ([`facedown_dealer::Envelope::to_bytes`]).
    Dealer(Vec<u8>),
    /// The dealer envelopes the sender received privately (each signed by its own sender), so
    /// that every player can assemble the whole transcript and audit it.
    Transcript(Vec<Vec<u8>>),
    /// A mental-poker message ([`facedown_poker::messages::Message::to_bytes`]).
    Poker(Vec<u8>),
    /// The sender gives up: its error, and whom it blames.
    Abort {
        /// The party the sender blames.
        blame: Option<u16>,
        /// The sender's error message.
        reason: String,
    },
    /// The sender has sent everything and will close its links.
    Bye,
}

fn options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_big_endian()
        .reject_trailing_bytes()
        .with_limit(MAX_WIRE_BYTES)
}

impl Wire {
    /// The encoding (bincode, fixed-width big-endian integers).
    pub fn to_bytes(&self) -> Result<Vec<u8>, NetError> {
        options()
            .serialize(self)
            .map_err(|e| NetError::Config(format!("cannot encode a message: {e}")))
    }

    /// Decodes a frame received from `peer`.
    pub fn from_bytes(bytes: &[u8], peer: PartyId) -> Result<Wire, NetError> {
        options()
            .deserialize(bytes)
            .map_err(|e| NetError::Malformed {
                peer,
                reason: e.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_messages_round_trip_and_garbage_is_a_typed_error_naming_the_peer() {
        for w in [
            Wire::Hello {
                nonce: [3; 32],
                signing_key: Some([4; 32]),
            },
            Wire::Dealer(vec![1, 2, 3]),
            Wire::Transcript(vec![vec![9], vec![]]),
            Wire::Poker(vec![]),
            Wire::Abort {
                blame: Some(2),
                reason: "x".into(),
            },
            Wire::Bye,
        ] {
            let bytes = w.to_bytes().expect("encode");
            assert_eq!(Wire::from_bytes(&bytes, PartyId(1)).expect("decode"), w);
            if bytes.len() > 1 {
                let cut = Wire::from_bytes(&bytes[..bytes.len() - 1], PartyId(2));
                assert!(
                    matches!(
                        cut,
                        Err(NetError::Malformed {
                            peer: PartyId(2),
                            ..
                        })
                    ),
                    "{cut:?}"
                );
            }
        }
        assert!(Wire::from_bytes(&[0xff; 12], PartyId(3)).is_err());
    }
}
