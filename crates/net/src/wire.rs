//! What networked players put in a frame.
//!
//! An engine's own message travels unchanged inside [`Wire::Engine`] (its bytes are what the
//! accounting counts, exactly as the in-memory driver counts them); the other variants are the
//! driver's control messages: the echo, and those that end a game or say why it stalls.

use bincode::Options;
use facedown_core::PartyId;
use serde::{Deserialize, Serialize};

use crate::error::NetError;

/// Largest encoded [`Wire`] message.
pub const MAX_WIRE_BYTES: u64 = 32 << 20;

/// One frame's content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Wire {
    /// A message of the player's engine ([`facedown_core::Engine`]), as the engine encoded it.
    Engine(Vec<u8>),
    /// The sender gives up: its error, and whom it accuses (a claim the receivers report,
    /// never a verdict: [`NetError::claim`]).
    Abort {
        /// The party the sender accuses.
        claim: Option<u16>,
        /// The sender's error message.
        reason: String,
    },
    /// The sender has sent everything and will close its links.
    Bye,
    /// The sender's echo of the broadcasts it received ([`facedown_core::echo`]), counted as
    /// an engine message is.
    Echo(Vec<u8>),
    /// The sender has waited a whole timeout for player `on` (sent once per wait, before it
    /// names anyone): a player waiting for the sender learns that the sender is itself stuck.
    Waiting {
        /// The player the sender awaits.
        on: u16,
    },
    /// A broadcast of the player's engine in an echoed operation, with the sender's ed25519
    /// signature over its slot and digest ([`facedown_core::echo`]); the 64 bytes of the
    /// signature count as the message's.
    Signed {
        /// The engine's message, as the engine encoded it.
        payload: Vec<u8>,
        /// The signature (64 bytes).
        signature: Vec<u8>,
    },
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
            Wire::Engine(vec![1, 2, 3]),
            Wire::Engine(vec![]),
            Wire::Echo(vec![4, 5]),
            Wire::Abort {
                claim: Some(2),
                reason: "x".into(),
            },
            Wire::Bye,
            Wire::Waiting { on: 3 },
            Wire::Signed {
                payload: vec![6],
                signature: vec![7; 64],
            },
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
