//! Integration tests of `facedown-poker`, in one test binary; each module is a suite.

mod attack_relabel;
mod attack_rushing;
mod batch;
mod common;
mod deal;
mod engine;
mod legal;
mod parallel;
mod players;
mod proofs;
mod prop_shuffle;
mod tampering;
mod uniformity;
mod vectors;
