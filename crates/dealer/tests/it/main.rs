//! Integration tests of `facedown-dealer`, in one test binary; each module is a suite.

mod audit_detection;
mod batch_signatures;
mod batch_verify;
mod duplicates;
mod engine;
mod false_hops;
mod framing;
mod malformed;
mod paper_seed;
mod support;
