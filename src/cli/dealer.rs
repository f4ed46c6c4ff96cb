//! `facedown dealer` subcommands.

/// Arguments of `facedown dealer`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `facedown dealer`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`facedown dealer` is not built yet")
}
