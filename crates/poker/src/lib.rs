//! Barnett–Smart mental poker on ristretto255 \[BS03\]: keys, masking, Chaum–Pedersen proofs, a
//! verifiable shuffle and reveal tokens.
//!
//! This is the strong baseline of facedown: secure against any coalition of up to `N − 1`
//! players and against active cheating, at the price of public-key operations and
//! zero-knowledge proofs. Group: ristretto255 (prime order `ℓ`, \[RFC9496\]) via
//! curve25519-dalek; Fiat–Shamir \[FS86\] over merlin transcripts; hash-to-group with SHA3-512.
//!
//! # The scheme
//!
//! | step | computation | proof | module |
//! |---|---|---|---|
//! | key generation | `Y_i = x_i·G`, joint key `Y = Σ Y_i` | Schnorr \[Sch91\], bound to session, round, player | [`keys`] |
//! | card encoding | `c ↦ M_c` by hash-to-group | none (public) | [`elgamal`] |
//! | open masking | `(0, M_c)` | none | [`elgamal`] |
//! | masking | `(r·G, M + r·Y)` | Chaum–Pedersen \[CP92\] | [`masking`] |
//! | re-masking | `c + (r·G, r·Y)` | Chaum–Pedersen on the difference | [`masking`] |
//! | shuffle | `D_j = C_{σ(j)} + (ρ_j·G, ρ_j·Y)` | Bayer–Groth, `m = 1` \[BG12\] | [`shuffle`], [`notes`] |
//! | restricted shuffle | cut / bisection cut \[MS09\] | OR of Chaum–Pedersen | [`restricted`] |
//! | reveal token | `d_i = x_i·c1` | Chaum–Pedersen | [`reveal`] |
//! | open | `M = c2 − Σ d_i` | the tokens' proofs | [`reveal`] |
//! | legal play: none of a hand's cards bears an excluded symbol | `Z = α·(M − M_s) ≠ 0` per card and symbol | inequality of discrete logarithms (Camenisch–Shoup) | [`legal`] |
//!
//! Pedersen generators for the shuffle argument ([`generators`]) and card points are
//! hash-to-group outputs of public labels: no party chooses them.
//!
//! # Layers
//!
//! * Proof functions take the application's `&mut merlin::Transcript` and a [`ProofContext`]
//!   (session, round, prover); they never create transcripts. A private extension trait adds
//!   versioned domain separators, identity-rejecting point appends and 64-byte challenges
//!   reduced modulo `ℓ`.
//! * [`engine`]: one player of the encrypted deck as a sans-IO [`facedown_core::Engine`], the
//!   only implementation of the protocol: every table operation (setup, place, commit,
//!   rearrange, shuffle, open) with its proofs, holding only its own secret key;
//!   [`messages`]: the engines' serde messages with a canonical binary encoding;
//! * [`deal`]: a whole deal, one engine per player run in memory by
//!   [`facedown_core::LocalDriver`], with an [`deal::Adversary`] hook for tampering experiments.
//! * [`errors`]: every failure on adversarial input is a typed [`errors::PokerError`] naming the
//!   offending player; nothing panics on input.
//! * [`batch`]: several shuffle proofs, or a round of reveal tokens, verified with one
//!   multiscalar multiplication (falling back to one by one, so the same player is blamed).
//!   Proofs run on the current rayon pool; results do not depend on the thread count.
//! * [`timing`], [`workloads`]: the measurements behind `facedown poker bench`.
//!
//! Randomness is always passed in (`*_with_rng`). This is research code; it has not been audited.

pub mod batch;
pub mod deal;
pub mod dleq;
pub mod elgamal;
pub mod encoding;
pub mod engine;
pub mod errors;
pub mod generators;
pub mod keys;
pub mod legal;
pub mod masking;
pub mod messages;
pub mod notes;
mod parallel;
pub mod restricted;
pub mod reveal;
pub mod shuffle;
pub mod timing;
mod transcript;
pub mod workloads;

pub use engine::PokerEngine;
pub use errors::{PokerError, Result};
pub use transcript::ProofContext;
