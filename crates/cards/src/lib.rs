//! Card-based cryptography: the `.cards` protocol format, the exact KWH state-tree analyzer, a
//! seeded simulator and a library of published protocols.
//!
//! A protocol is read once ([`parse`]) into a validated [`Protocol`] and then run by one
//! interpreter ([`interpret`]) over a semantics: exact distributions for the analyzer
//! ([`analyze`]), one sampled row for traces ([`trace`], [`sampled`]). The compiled simulator
//! ([`simulate`]) is a fast path, tested equal to the interpreter. See [`model`] for the action
//! model and its conventions and [`claim`] for what a protocol may claim; [`spec`] is the
//! format's specification (`crates/cards/docs/format.md`).

pub mod analyze;
pub mod canonical;
pub mod claim;
pub mod distribution;
pub mod interpret;
pub mod library;
pub mod model;
pub mod on_table;
pub mod parse;
pub mod print;
pub mod protocol;
pub mod sampled;
pub mod search;
pub mod simulate;
#[doc = include_str!("../docs/format.md")]
pub mod spec {}
mod suggest;
pub mod trace;
pub mod tree;

pub use claim::Claim;
pub use model::{Action, ActionKind, Branch, Function, LayoutItem, Shuffle, Q};
pub use protocol::{Protocol, ProtocolError, ProtocolParts};
