//! The `facedown` command-line tool. With no arguments it prints the headline report.

mod cli;

use clap::Parser;

fn main() -> anyhow::Result<()> {
    let args = cli::Cli::parse();
    cli::run(args)
}
