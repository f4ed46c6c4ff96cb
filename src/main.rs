//! The `facedown` command-line tool. With no arguments it prints the headline report.

use std::process::ExitCode;

use clap::Parser;
use facedown::cli;
use facedown::cli::output::one_line;

/// The process's allocator. The exact analyzer and the solvers allocate many short-lived
/// vectors and maps; mimalloc serves them faster than the system's allocator (`docs/cost.md`).
/// The library crates leave the choice to whoever links them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.downcast_ref::<cli::Inconclusive>().is_some() => {
            eprintln!("inconclusive: {}", one_line(&err));
            ExitCode::from(3)
        }
        Err(err) => {
            match err.downcast_ref::<cli::Diagnostic>() {
                Some(shown) => eprint!("{shown}"),
                None if err.downcast_ref::<cli::UsageError>().is_some() => eprintln!(
                    "error: {}\n\nFor more information, try '--help'.",
                    one_line(&err)
                ),
                None => eprintln!("error: {}", one_line(&err)),
            }
            ExitCode::from(cli::exit_status(&err))
        }
    }
}

/// `facedown … | head` closes stdout early; Rust ignores SIGPIPE, so the next `println!` panics
/// ("failed printing to stdout: Broken pipe"). End quietly instead, with the status a process
/// killed by SIGPIPE has (128 + 13), as other command-line tools do.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if text.contains("failed printing to stdout") && text.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}
