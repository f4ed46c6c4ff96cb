//! The permutation-sharing dealer: `N` players compose secret permutations to deal cards
//! without a trusted dealer, with hash commitments and an end-of-game audit.
//!
//! The scheme comes from a Russian blog post \[perm-sharing-dealer\] (summarised in
//! `papers/notes/perm-sharing-dealer.md`): each player
//! `j` draws a secret permutation `A_j` of the deck, the deal is `A = A_N ∘ … ∘ A_1` (position
//! `i` holds card `A(i)`), and a card is opened by passing `A_1(i)` along the chain of players,
//! each applying his permutation. The last player either publishes `A(i)` (a public card) or
//! keeps it (his private card); helper permutations split `A_N = outer ∘ inner` so that other
//! players can be the last to apply a permutation and learn a card privately. Commitments
//! `SHA3-256(X + k·n!)` to every permutation, published before play and opened after it, let
//! everyone check everyone.
//!
//! This crate implements the scheme **as published** for three players
//! ([`Scheme::published`]: helper pairs `C3/D3` and `F3/G3`, both of which — contrary to the
//! post — deliver the card to player 1) and a **generalisation** to any `N ≥ 3` with a private
//! path to every player ([`Scheme::general`]). See the [notes] for the construction, its costs
//! and its assumptions.
//!
//! # Layout
//!
//! * [`rank`]: ordinal numbers of permutations (Lehmer code), exact on big integers;
//! * [`commit`](mod@commit): commitments to `X + k·n!` with a 256-bit salt, range-checked;
//! * [`deal`]: the shape of a deal (hands and public cards), checked against the deck;
//! * [`scheme`]: who holds what, and the message path ([`Plan`]) of every kind of opening;
//! * [`messages`]: signed serde messages and their wire encoding; `signature.rs`: the one rule
//!   by which an ed25519 signature is accepted, alone or in a batch;
//! * [`player`]: players as sans-IO typestate machines with their complete [`View`], and the
//!   [`Deviation`]s a cheating player can make;
//! * [`driver`]: an in-memory table that runs `N` players of a deal and accounts messages,
//!   bytes and rounds per phase ([`facedown_core::Cost`]), with every view for the harnesses;
//! * [`engine`]: one player as a [`facedown_core::Engine`] of the face-down table — card
//!   protocols on the layer model, and the deal, audited by every player — the player that
//!   the comparison and the networked games run;
//! * [`audit`](mod@audit): the end-of-game audit that names the first deviating player;
//! * [`transcript`]: the signed transcript, saved as JSON.
//!
//! ```
//! use facedown_dealer::{play_with_rng, Scheme};
//! use facedown_core::rng::seeded_rng;
//!
//! // The Ninety-Nine deal: three players, 37 cards, twelve each, one trump face up.
//! let game = play_with_rng(Scheme::general(3, 37)?, 12, 1, None, &mut seeded_rng(99))?;
//! assert!(game.finished.audit.passed);
//! assert_eq!(game.hands.iter().map(Vec::len).collect::<Vec<_>>(), [12, 12, 12]);
//! # Ok::<(), facedown_dealer::DealerError>(())
//! ```
//!
//! This is research code. It has not been audited; do not use it to protect anything of value.

pub mod audit;
pub mod commit;
pub mod deal;
pub mod driver;
pub mod engine;
pub mod error;
mod hexser;
pub mod messages;
pub mod notes;
pub mod player;
pub mod rank;
pub mod schedule;
pub mod scheme;
mod signature;
pub mod transcript;

pub use audit::{audit, AuditReport, Finding, FindingKind};
pub use deal::DealShape;
pub use driver::{play_with_rng, Batch, Finished, Game, Phase, Table};
pub use engine::DealerEngine;
pub use error::DealerError;
pub use messages::{Body, Domain, Envelope, Roster, SessionId};
pub use player::{
    Deviation, Learned, Params, Player, PlayerAwaitingSetup, PlayerDone, PlayerReady, View,
};
pub use schedule::{DealSchedule, ScheduleError, MAX_SCHEDULE_BYTES};
pub use scheme::{Hop, Operation, Plan, Recipient, Route, Scheme, Slot, Variant};
pub use transcript::{Transcript, MAX_TRANSCRIPT_BYTES};
