//! Notes on the shuffle argument: notation table, choice of argument, soundness sketch.
#![doc = include_str!("../docs/notes.md")]
