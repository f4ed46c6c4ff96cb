//! Shared vocabulary of the facedown toolkit.
//!
//! Every strand of facedown — card-based protocols, the permutation-sharing dealer and
//! elliptic-curve mental poker — talks about the same objects: rows of face-down cards, the
//! permutations that rearrange them, the parties that hold them, and what running a protocol
//! costs. This crate holds those objects so that the other crates agree on conventions.
//!
//! * [`perm`]: permutations in the convention of the `.cards` format — `π` moves **the card at
//!   position `i` to position `π(i)`** — with cycle notation, composition and inversion.
//! * [`symbol`]: card symbols (♣/♥, distinct numbered cards, further kinds of a multiset deck).
//! * [`rng`]: one ChaCha stream per trial, derived from a seed and the trial index, so that
//!   seeded Monte-Carlo runs give the same result for any number of threads.
//! * [`cost`]: message, byte and round accounting.
//! * [`party`]: party identifiers, numbered from 1 as in the papers.
//! * [`table`]: the face-down table trait every backend implements, and the ideal table.
//! * [`op`]: the table's operations as data ([`TableOp`]) and what a view saw of them.
//! * [`engine`]: one player of a backend as a sans-IO state machine ([`Engine`]), holding only
//!   that player's secrets, and the delivery and round rules every driver shares.
//! * [`echo`]: consistent broadcast, the echo round every seat runs where its engine asks.
//! * [`local`]: [`LocalDriver`], which runs one engine per player in memory as one table and
//!   counts every message, byte and round.
//! * [`session`]: the hellos that make every game's session fresh.
//! * `adversary` (feature `adversary`, tests only): a malicious player that wraps any engine.
//! * [`input`]: bounded reading of input files (a size limit with an error naming the file).

#[cfg(feature = "adversary")]
pub mod adversary;
pub mod cost;
pub mod echo;
pub mod engine;
pub mod input;
pub mod local;
pub mod nonce;
pub mod op;
pub mod party;
pub mod perm;
pub mod rng;
pub mod session;
pub mod symbol;
pub mod table;

pub use cost::Cost;
pub use engine::{Blame, Engine};
pub use local::{DriveError, LocalDriver};
pub use op::{CommitCards, Opening, Seen, TableOp};
pub use party::PartyId;
pub use perm::{Perm, PermError};
pub use symbol::Symbol;
pub use table::{Capabilities, FaceDownTable, IdealTable, SecurityModel, ShuffleSet, Support};
