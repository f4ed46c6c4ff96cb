//! Integration tests of `facedown-net`, in one test binary; each module is a suite.

mod common;
mod games;
mod roster;
mod tcp;
