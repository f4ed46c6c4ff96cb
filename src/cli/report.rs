//! The headline report printed by `facedown` with no arguments.

/// Prints the headline report: the protocol table, then the comparison of every workload on
/// every face-down table. With `--json` only the protocol table is printed, as one JSON
/// document; `facedown compare --json` prints the comparison.
pub fn run(json: bool) -> anyhow::Result<()> {
    cards::headline(json)?;
    if !json {
        compare::headline()?;
    }
    Ok(())
}

use super::{cards, compare};
