//! # facedown
//!
//! A research toolkit for protocols with face-down cards, in three strands benchmarked against
//! each other:
//!
//! 1. [`cards`]: card-based cryptography — the `.cards` protocol format, an exact analyzer
//!    (correctness, security, runtime, expected shuffles in exact rationals), a simulator and a
//!    library of published protocols.
//! 2. [`dealer`]: the permutation-sharing dealer — a deal without a trusted dealer, where the
//!    deal is the composition of every player's secret permutation.
//! 3. [`poker`]: elliptic-curve mental poker (Barnett–Smart on ristretto255) with
//!    zero-knowledge proofs and a verifiable shuffle.
//!
//! [`core`] holds the shared vocabulary: permutations, symbols, seeded randomness, cost
//! accounting and the face-down table trait every backend implements. [`leakage`] measures what
//! coalitions learn from the dealer; [`net`] runs players as separate processes over TCP with
//! Noise. [`games`] holds the games of the seed documents — Ninety-Nine, Devyatka, Golf,
//! Chopsticks — as rules engines with a rule audit, bots and exact solvers.
//!
//! Three library modules tie the strands together: [`workload`] (a card protocol or a deal,
//! run on any face-down table, by every player at once or by one player on its own view),
//! [`play`] (one networked player of any workload on either backend) and [`compare`] (every
//! workload on every backend, side by side: what `facedown compare` prints).
//!
//! This is research code. It has not been audited; do not use it to protect anything of value.

// The CLI lives in the library so that the binary is one `main` and the package builds no
// separate unit-test binary for it; its tests are in `tests/it`. Inside the library the crate
// is also reachable as `facedown`, the name the CLI's code uses.
extern crate self as facedown;

// The CLI's doc comments are its `--help` text (`announce[@K]`, `<FILE>`), not rustdoc.
#[doc(hidden)]
#[allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]
pub mod cli;
pub mod compare;
pub mod ideal_net;
pub mod play;
pub mod table_game;
pub mod table_golf_devyatka;
pub mod workload;

pub use facedown_cards as cards;
pub use facedown_core as core;
pub use facedown_dealer as dealer;
pub use facedown_games as games;
pub use facedown_leakage as leakage;
pub use facedown_net as net;
pub use facedown_poker as poker;
