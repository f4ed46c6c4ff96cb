//! The channel trait shared by every transport, and its accounting.
//!
//! A [`Channel`] is one player's end of a full mesh of pairwise, FIFO, authenticated links:
//! it sends a byte frame to a numbered peer and receives the next frame from any peer, with a
//! timeout. Every frame carries its **causal depth** — one more than the depth of the deepest
//! message its sender had to wait for — so that rounds (the longest chain of messages that
//! must happen one after another, see [`facedown_core::Cost`]) can be measured on any
//! transport, not only modelled: the rounds of a run are the largest depth of any frame.
//!
//! # Bounds a peer cannot stretch
//!
//! * **Deadlines.** [`Channel::recv_by`] waits until a fixed [`Deadline`] and no longer: a
//!   caller sets one per awaited message or phase, and frames that arrive meanwhile — wanted or
//!   not — do not extend it, so a peer that keeps sending harmless frames cannot hold a player
//!   forever. Once the deadline has passed, `recv_by` returns `None` even with frames queued.
//! * **Queues.** Every transport holds at most [`Limits::queue_frames`] frames and
//!   [`Limits::queue_bytes`] bytes from one peer that [`Channel::recv`] has not taken yet; while
//!   a peer's share is full its further frames wait with the sender (TCP: the reader stops
//!   reading that socket and the kernel's window closes; in memory: the send waits), so a
//!   flooding peer slows itself, not its victims' memory. Frames above
//!   [`Limits::max_frame_bytes`] are refused before their payload is read.
//! * **Off-protocol frames.** Only the caller knows which frames the protocol did not ask for;
//!   it reports each one it drops to an [`OffProtocol`] counter, which fails with
//!   [`NetError::Flooded`] naming the peer once that peer exceeds
//!   [`Limits::off_protocol_frames`] or [`Limits::off_protocol_bytes`] (over the whole game:
//!   frames come over authenticated links, so the count is the sender's own doing).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use facedown_core::echo::BroadcastKeys;
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

    /// The next frame from any peer if one arrives before `deadline`; `Ok(None)` once the
    /// deadline has passed, even if frames are queued (so frames never extend a wait).
    fn recv_by(&mut self, deadline: Deadline) -> Result<Option<Frame>, NetError> {
        match deadline.remaining() {
            Some(left) => self.recv(left),
            None => Ok(None),
        }
    }

    /// The bounds this end enforces (the defaults unless it was built with others).
    fn limits(&self) -> Limits {
        Limits::default()
    }

    /// This player's broadcast signing key and every player's verifying key
    /// ([`facedown_core::echo`]); `None` for a channel that has none, which the game driver
    /// refuses (a wrapper must forward its inner channel's).
    fn broadcast_keys(&self) -> Option<BroadcastKeys> {
        None
    }
}

/// A point in time after which a wait gives up; set once per awaited message or phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// When the wait gives up (`None`: a budget too large to represent, i.e. never).
    at: Option<Instant>,
    /// The budget it was set with, for error messages.
    budget: Duration,
}

impl Deadline {
    /// `budget` from now (a budget beyond what the clock can represent never passes).
    pub fn after(budget: Duration) -> Deadline {
        Deadline {
            at: Instant::now().checked_add(budget),
            budget,
        }
    }

    /// The budget the deadline was set with (what a timeout error reports).
    pub fn budget(&self) -> Duration {
        self.budget
    }

    /// Time left, or `None` once the deadline has passed.
    pub fn remaining(&self) -> Option<Duration> {
        match self.at {
            None => Some(Duration::MAX),
            Some(at) => at
                .checked_duration_since(Instant::now())
                .filter(|d| !d.is_zero()),
        }
    }

    /// Whether the deadline has passed.
    pub fn passed(&self) -> bool {
        self.remaining().is_none()
    }
}

/// The bounds a channel end enforces on what peers can make it hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest frame payload accepted from a peer (and sent to one).
    pub max_frame_bytes: u64,
    /// Frames from one peer held until [`Channel::recv`] takes them.
    pub queue_frames: usize,
    /// Payload bytes from one peer held until [`Channel::recv`] takes them (a single frame
    /// larger than this is still accepted when nothing else from that peer is queued).
    pub queue_bytes: u64,
    /// How long a send may wait for room in a full in-memory queue before it fails (TCP uses
    /// [`crate::Timeouts::write`]).
    pub send_wait: Duration,
    /// Frames one peer may send that the protocol did not ask for (see [`OffProtocol`]).
    pub off_protocol_frames: u32,
    /// Bytes of such frames one peer may send.
    pub off_protocol_bytes: u64,
}

impl Default for Limits {
    /// Far above what an honest player of any workload here sends (its largest frame is a
    /// poker shuffle or a dealer transcript, tens of kilobytes; a burst, a few hundred
    /// frames), and small enough that a flooding peer costs each victim a few megabytes.
    fn default() -> Self {
        Limits {
            max_frame_bytes: 8 << 20,
            queue_frames: 1024,
            queue_bytes: 8 << 20,
            send_wait: Duration::from_secs(10),
            off_protocol_frames: 64,
            off_protocol_bytes: 1 << 20,
        }
    }
}

impl Limits {
    /// Whether a peer that has `frames` frames and `bytes` bytes queued may queue one more of
    /// `len` bytes.
    pub fn has_room(&self, frames: usize, bytes: u64, len: u64) -> bool {
        frames == 0 || (frames < self.queue_frames && bytes.saturating_add(len) <= self.queue_bytes)
    }
}

/// Counts, per peer, the frames a caller dropped because the protocol did not ask for them,
/// and fails once a peer exceeds its allowance ([`Limits::off_protocol_frames`],
/// [`Limits::off_protocol_bytes`]). Keep one per game: the allowance is for the whole game.
#[derive(Clone, Debug)]
pub struct OffProtocol {
    limits: Limits,
    seen: BTreeMap<PartyId, (u32, u64)>,
}

impl OffProtocol {
    /// A fresh counter with `limits`' allowance (usually [`Channel::limits`]).
    pub fn new(limits: Limits) -> OffProtocol {
        OffProtocol {
            limits,
            seen: BTreeMap::new(),
        }
    }

    /// Records that `frame` was not asked for; fails with [`NetError::Flooded`] naming its
    /// sender once the sender is over its allowance.
    pub fn note(&mut self, frame: &Frame) -> Result<(), NetError> {
        let (frames, bytes) = self.seen.entry(frame.from).or_default();
        *frames = frames.saturating_add(1);
        *bytes = bytes.saturating_add(frame.payload.len() as u64);
        if *frames > self.limits.off_protocol_frames || *bytes > self.limits.off_protocol_bytes {
            return Err(NetError::Flooded {
                peer: frame.from,
                frames: *frames,
                bytes: *bytes,
            });
        }
        Ok(())
    }

    /// Frames and bytes noted so far from `peer`.
    pub fn from(&self, peer: PartyId) -> (u32, u64) {
        self.seen.get(&peer).copied().unwrap_or_default()
    }
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

    fn broadcast_keys(&self) -> Option<BroadcastKeys> {
        (**self).broadcast_keys()
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
