//! The channel trait shared by every transport, and its accounting.
//!
//! A [`Channel`] is one player's end of a full mesh of pairwise, FIFO, authenticated links:
//! it sends a byte frame to a numbered peer and receives the next frame from any peer, with a
//! timeout. Every frame carries its **causal depth** — one more than the depth of the deepest
//! message its sender had to wait for — so that rounds (the longest chain of messages that
//! must happen one after another, see [`facedown_core::Cost`]) can be measured on any
//! transport, not only modelled: the rounds of a run are the largest depth of any frame.

use std::time::Duration;

use facedown_core::{Cost, PartyId};
use serde::{Deserialize, Serialize};

use crate::error::NetError;

/// A frame received from a peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The authenticated sender (the peer at the other end of the link, not a claim inside
    /// the payload).
    pub from: PartyId,
    /// The frame's causal depth (its round).
    pub depth: u32,
    /// The bytes sent.
    pub payload: Vec<u8>,
}

/// One player's end of a mesh of pairwise links.
pub trait Channel {
    /// This player.
    fn me(&self) -> PartyId;

    /// Number of players, `1..=players`.
    fn players(&self) -> usize;

    /// Sends `payload` to `to` as one frame of causal depth `depth`. Fails, naming `to`, if
    /// the link is gone.
    fn send(&mut self, to: PartyId, depth: u32, payload: &[u8]) -> Result<(), NetError>;

    /// The next frame from any peer, in the order each peer sent them; `Ok(None)` when nothing
    /// arrived within `timeout`. A peer whose link closed is reported once as
    /// [`NetError::Disconnected`] after its last frame.
    fn recv(&mut self, timeout: Duration) -> Result<Option<Frame>, NetError>;

    /// What this end has sent and received so far.
    fn stats(&self) -> WireStats;
}

impl<C: Channel + ?Sized> Channel for &mut C {
    fn me(&self) -> PartyId {
        (**self).me()
    }

    fn players(&self) -> usize {
        (**self).players()
    }

    fn send(&mut self, to: PartyId, depth: u32, payload: &[u8]) -> Result<(), NetError> {
        (**self).send(to, depth, payload)
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Frame>, NetError> {
        (**self).recv(timeout)
    }

    fn stats(&self) -> WireStats {
        (**self).stats()
    }
}

/// What one end of a channel sent and received.
///
/// `payload_*` count the bytes handed to [`Channel::send`]; `wire_*` count what really went on
/// the link (for TCP with Noise: the handshake, the 2-byte length prefixes, the 8-byte frame
/// headers and the 16-byte authentication tags; in memory they equal the payload).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireStats {
    /// Frames sent.
    pub frames_sent: u64,
    /// Payload bytes sent.
    pub payload_bytes_sent: u64,
    /// Bytes written on the link.
    pub wire_bytes_sent: u64,
    /// Frames received.
    pub frames_received: u64,
    /// Bytes read from the link.
    pub wire_bytes_received: u64,
    /// The largest causal depth of any frame sent or received.
    pub max_depth: u32,
}

impl WireStats {
    /// This end's sending cost: frames, payload bytes and the rounds seen from here.
    pub fn cost(&self) -> Cost {
        Cost {
            messages: self.frames_sent,
            bytes: self.payload_bytes_sent,
            rounds: u64::from(self.max_depth),
        }
    }
}

/// The cost of a whole run from every player's own account: messages and bytes add up (each
/// player counts what it sent), rounds are the longest chain any player saw.
pub fn total_cost(per_player: &[Cost]) -> Cost {
    per_player
        .iter()
        .fold(Cost::ZERO, |acc, c| acc.alongside(*c))
}
