//! Collusion, leakage and cheating harnesses.
//!
//! The permutation-sharing dealer \[perm-sharing-dealer\] ([`facedown_dealer`]) claims that no
//! single player learns another's cards. These harnesses measure, for every coalition of players
//! and every target
//! (another player's hand, the undealt cards, the whole deal), what the coalition's complete
//! view reveals **beyond** what an ideal trusted dealer would tell it:
//!
//! ```text
//! excess(S, T) = I(T; V_S | V_S^ideal) = I(T; V_S) − I(T; V_S^ideal)
//! ```
//!
//! where `V_S` is everything the members of `S` hold, send, receive and learn, and
//! `V_S^ideal` is their own cards and the public cards (the second form holds because the view
//! contains the ideal view; the harness checks that exactly).
//!
//! # Layout
//!
//! * [`harness`]: the [`RecordedProtocol`] trait (parties, runs with exact probabilities,
//!   the view of a coalition, the target's value) and [`measure_exact`], which builds the exact
//!   joint distribution with rational probabilities;
//! * [`dealer`]: the dealer as a recorded protocol — the value graph every message lives on,
//!   the literal exhaustive model ([`DealerExhaustive`], `(n!)^(N + pairs)` runs, tiny decks)
//!   and the fast exact reduction ([`DealerReduced`], `n!` runs) with its derivation;
//! * [`attack`]: constructive attacks that recover cards from the views of a real game played
//!   by the dealer crate's driver;
//! * [`collusion`]: the collusion table (every coalition × target: excess bits, fraction of
//!   hidden cards determined, the attack) and the leakage-against-openings sweep;
//! * [`montecarlo`]: seeded, per-trial Monte-Carlo estimates for large decks with Wilson
//!   intervals;
//! * [`cheat`]: every [`facedown_dealer::Deviation`] run many times: what the cheater steers
//!   and whether the audit names him;
//! * [`forgery`]: coalitions that cheat — members pool their permutations to force another
//!   player's card, and the audit names the member who signed the forged value;
//! * [`strategy`]: cheating strategies with a goal (a chosen river, a selective abort with
//!   re-deals for a pairing flop) against the honest baseline, under three re-deal models;
//! * [`position`]: the messages of a deal, what a player knows when he sends each, and the
//!   strategies swept over the message at which they deviate;
//! * [`cards`]: card protocols on the ideal table as recorded protocols (the cross-check with
//!   the exact analyzer of [`facedown_cards`]), and their excess leakage on the dealer's layer
//!   model;
//! * [`enumerate`]: every combination of every player's choices on the dealer's layer model,
//!   real engines with scripted choices; [`excess`]: the exact excess-leakage measure;
//! * [`plot`]: PNG plots of leakage against the number of openings;
//! * [`session`]: many deals in one session, and what reused helper permutations let a player
//!   read of another's cards deal after deal (exact for tiny decks, Monte Carlo beyond).
//!
//! Every harness here measures the permutation-sharing dealer \[perm-sharing-dealer\], as
//! implemented in `facedown_dealer`; the card-protocol adapter ([`cards`]) cross-checks the harness
//! against the exact analyzer.
//!
//! This is research code. It has not been audited; do not use it to protect anything of value.

pub mod attack;
pub mod cards;
pub mod cheat;
pub mod collusion;
pub mod dealer;
pub mod enumerate;
pub mod error;
pub mod excess;
pub mod forgery;
pub mod harness;
pub mod montecarlo;
pub mod plot;
pub mod position;
pub mod session;
pub mod strategy;

pub use dealer::{DealerExhaustive, DealerReduced, DealerTarget, Knowledge, Schedule};
pub use error::LeakageError;
pub use harness::{measure_exact, Coalition, Measure, RecordedProtocol};
