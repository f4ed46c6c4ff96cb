//! Notes: the scheme as published, its slip, the `N`-player construction, its costs and its
//! assumptions.
//!
//! The scheme discussed is the permutation-sharing dealer \[perm-sharing-dealer\].
#![doc = include_str!("../docs/notes.md")]
