//! `facedown poker` subcommands.

/// Arguments of `facedown poker`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `facedown poker`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`facedown poker` is not built yet")
}
