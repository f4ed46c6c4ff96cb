//! Card-based cryptography: the `.cards` protocol format, the exact KWH state-tree analyzer, a
//! seeded simulator and a library of published protocols.
//!
//! See [`model`] for the action model and its conventions.

pub mod model;

pub use model::{Action, ActionKind, Branch, Function, LayoutItem, Protocol, Shuffle, Q};
