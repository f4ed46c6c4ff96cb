//! The private-model protocols of the library that several suites read, as their source text.

pub const XOR: &str = include_str!("../../protocols/private/ono-manabe-xor.cards");
pub const AND: &str = include_str!("../../protocols/private/ono-manabe-and.cards");
pub const COPY: &str = include_str!("../../protocols/private/ono-manabe-copy.cards");
pub const TWO_CUTS: &str =
    include_str!("../../protocols/private/five-card-trick-private-cuts.cards");
pub const ONE_CUT: &str =
    include_str!("../../protocols/private/five-card-trick-one-private-cut.cards");
pub const EARLY_LOOK: &str =
    include_str!("../../protocols/private/ono-manabe-xor-early-look.cards");
pub const TURNED_MASK: &str =
    include_str!("../../protocols/private/ono-manabe-xor-turned-mask.cards");
