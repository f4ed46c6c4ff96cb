//! The several-output protocols of the library that several suites read, as their source text.

pub const HALF_ADDER: &str = include_str!("../../protocols/outputs/half-adder.cards");
pub const HALF_ADDER_BROKEN: &str =
    include_str!("../../protocols/outputs/half-adder-sum-not-negated.cards");
pub const AND_OR: &str = include_str!("../../protocols/outputs/and-or-at-once.cards");
pub const AND_OR_BROKEN: &str =
    include_str!("../../protocols/outputs/and-or-at-once-copy-unshuffled.cards");
