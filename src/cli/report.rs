//! The headline report printed by `facedown` with no arguments.

/// Prints the headline report: the protocol table (and, as the toolkit grows, the comparison).
pub fn run(json: bool) -> anyhow::Result<()> {
    cards::headline(json)
}

use super::cards;
