//! Integration tests of `facedown-net`, in one test binary; each module is a suite.

mod adversary;
mod common;
mod games;
mod hostile_peer;
mod roster;
mod stranger;
mod tcp;
