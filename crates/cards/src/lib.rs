//! Card-based cryptography: the `.cards` protocol format, the exact KWH state-tree analyzer, a
//! seeded simulator and a library of published protocols.
//!
//! See [`model`] for the action model and its conventions.

pub mod analyze;
pub mod library;
pub mod model;
pub mod on_table;
pub mod parse;
pub mod print;
pub mod search;
pub mod simulate;
pub mod trace;
pub mod tree;

pub use model::{Action, ActionKind, Branch, Function, LayoutItem, Protocol, Shuffle, Q};
