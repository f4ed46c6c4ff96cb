//! Integration tests of `facedown-cards`, in one test binary; each module is a suite.

mod canonical;
mod diagnostics;
mod fast_path;
mod format;
mod interpreter;
mod loops;
mod multiset;
mod numbers;
mod outputs;
mod private;
mod private_ops;
mod search;
mod sharding;
mod spec;
mod standard_deck;
mod support;
mod vectors;
