//! Channels for facedown's players: an in-memory network with accounting and latency, and TCP
//! with `Noise_KK_25519_ChaChaPoly_BLAKE2s`, so that every player can run as its own process.
//!
//! The dealer's author assumes "pairwise encrypted channels with certificates known in
//! advance"; mental poker \[BS03\] is played between machines. This crate provides exactly
//! that, and runs any player's [`facedown_core::Engine`] over it ([`NetDriver`]): the dealer's
//! and the encrypted deck's engines, for any workload of the face-down table.
//!
//! # Layout
//!
//! * [`channel`]: the [`Channel`] trait (send a frame to a numbered peer, receive the next
//!   frame from any peer with a timeout) and its accounting ([`WireStats`]); every frame
//!   carries its causal depth so that rounds are *measured* on any transport;
//! * [`memory`]: the in-memory network, with an optional per-message [`Latency`] so that a
//!   comparison can show what rounds cost;
//! * [`tcp`]: TCP with Noise_KK (static keys from the roster, a prologue binding the session
//!   and both parties, length-prefixed framing with chunking, timeouts, fault injection);
//! * [`handshake`]: establishing the mesh — strangers on the listening port, key
//!   confirmation;
//! * [`roster`]: static key files and the `parties.toml` roster;
//! * [`wire`]: what a frame carries;
//! * [`driver`]: [`NetDriver`], one player's engine over a channel as that player's view of
//!   the face-down table: it asks the engine whom it awaits, keeps early messages until then,
//!   bounds what waits, aborts naming the culprit, and counts what the player sent.
//!
//! # Security notes
//!
//! Noise_KK gives every pair of players mutual authentication with the roster's static keys,
//! confidentiality, integrity and replay protection (a replayed or reordered frame fails
//! decryption). It gives no broadcast: a "broadcast" is `N − 1` pairwise messages, so a
//! player can equivocate (send different values to different peers); the dealer's signed
//! messages and transcript exchange let the audit detect what was signed, and poker's proofs
//! bind every step. Traffic analysis (frame sizes and timing) is not hidden.
//!
//! The same engines run in memory ([`facedown_core::LocalDriver`]) with the same delivery and
//! round rules, so a run costs the same messages, bytes and rounds on both paths.
//!
//! This is research code. It has not been audited; do not use it to protect anything of value.

pub mod channel;
pub mod driver;
pub mod error;
pub mod handshake;
pub mod memory;
pub mod roster;
pub mod tcp;
pub mod wire;

pub use channel::{total_cost, Channel, Deadline, Frame, Limits, OffProtocol, WireStats};
pub use driver::{merge_phases, NetDriver, PhaseCost};
pub use error::NetError;
pub use memory::{memory_network, memory_network_with_limits, Latency, MemoryChannel};
pub use roster::{Party, Roster, RosterError, StaticKeypair};
pub use tcp::{TcpMesh, Timeouts, WireFault};
