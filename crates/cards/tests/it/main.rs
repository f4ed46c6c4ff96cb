//! Integration tests of `facedown-cards`, in one test binary; each module is a suite.

mod canonical;
mod diagnostics;
mod fast_path;
mod format;
mod interpreter;
mod loops;
mod multiset;
mod numbers;
mod one_card;
mod output_sources;
mod outputs;
mod perm_budget;
mod player_leaks;
mod private;
mod private_ops;
mod private_sources;
mod search;
mod sharding;
mod simulate_decks;
mod simulate_outputs;
mod simulate_private;
mod spec;
mod standard_deck;
mod support;
mod threshold;
mod vectors;
