//! Barnett–Smart mental poker on ristretto255 [BS03]: keys, masking, Chaum–Pedersen proofs, a
//! verifiable shuffle and reveal tokens.

pub mod dleq;
pub mod elgamal;
pub mod encoding;
pub mod errors;
pub mod generators;
pub mod keys;
pub mod masking;
pub mod reveal;
pub mod shuffle;
mod transcript;

pub use transcript::ProofContext;
pub mod driver;
pub mod messages;
pub mod player;
pub mod restricted;
pub mod timing;
