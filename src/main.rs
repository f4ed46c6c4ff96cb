//! The `facedown` command-line tool. With no arguments it prints the headline report.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // `{:#}` prints the whole chain of causes on one line, without a backtrace.
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
