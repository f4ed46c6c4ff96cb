//! `facedown cards` subcommands.

/// Arguments of `facedown cards`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `facedown cards`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`facedown cards` is not built yet")
}

/// Prints the protocol table of the headline report.
pub fn headline(_json: bool) -> anyhow::Result<()> {
    anyhow::bail!("the protocol table is not built yet")
}
