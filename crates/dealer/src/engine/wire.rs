//! What a dealer engine sends: its hello, a signed [`Envelope`], the envelopes it received
//! privately (the transcript exchange before the deal's audit), or the end of a card protocol's
//! layers with the hops it took part in.

use facedown_core::session::Hello;
use facedown_core::PartyId;
use serde::{Deserialize, Serialize};

use crate::error::DealerError;
use crate::messages::{Envelope, MAX_MESSAGE_BYTES};

/// Largest encoded engine message (a transcript exchange carries many envelopes).
pub const MAX_ENGINE_MESSAGE_BYTES: u64 = 16 * MAX_MESSAGE_BYTES;

/// One message of a dealer engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DealerMessage {
    /// The session's hello: fresh bytes and this game's ed25519 signature key.
    Hello(Hello),
    /// A signed envelope of the layer model or of the deal.
    Envelope(Envelope),
    /// The envelopes the sender received and sent privately, each signed by its own sender,
    /// so that every player holds the whole transcript of a deal and audits it (an envelope
    /// one side leaves out still comes from the other).
    Transcript(Vec<Envelope>),
    /// The end of a card protocol's layers, from a player who took part in hops to one
    /// player: the openings of his layers (a signed [`Body::Reveal`](crate::Body::Reveal), if
    /// he holds any) and his *bundle*, every such hop's envelope he sent or received, each
    /// signed by its own sender, so that every player holds every hop and names whoever
    /// signed a false one. A player without such hops sends his openings alone, as an
    /// [`Envelope`](DealerMessage::Envelope).
    Close {
        /// The openings of his layers.
        reveal: Option<Envelope>,
        /// The hops to one player he sent or received.
        held: Vec<Envelope>,
    },
}

fn options() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_big_endian()
        .with_limit(MAX_ENGINE_MESSAGE_BYTES)
        .reject_trailing_bytes()
}

impl DealerMessage {
    /// The wire encoding (bincode, fixed-width big-endian integers).
    pub fn to_bytes(&self) -> Vec<u8> {
        use bincode::Options;
        // Serializing plain data into memory cannot fail.
        options().serialize(self).unwrap_or_default()
    }

    /// Decodes bytes received from `peer`; a malformed or oversized message is an error naming
    /// `peer`. Signatures are not checked here.
    pub fn from_bytes(bytes: &[u8], peer: PartyId) -> Result<DealerMessage, DealerError> {
        use bincode::Options;
        options()
            .deserialize(bytes)
            .map_err(|e| DealerError::Malformed {
                peer,
                reason: e.to_string(),
            })
    }
}
