//! Notes: the scheme as published, its slip, the `N`-player construction, its costs and its
//! assumptions.
#![doc = include_str!("../docs/notes.md")]
