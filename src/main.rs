//! The `facedown` command-line tool. With no arguments it prints the headline report.

mod cli;

use std::process::ExitCode;

use clap::Parser;

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

/// The chain of causes on one line, without a backtrace. Many library errors already write
/// their cause into their own message (`"{path}: {source}"`) and also expose it as `source()`;
/// a cause whose text the line already holds is not repeated.
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error that writes its cause into its message and also returns it as `source()`.
    #[derive(Debug)]
    struct Outer(std::fmt::Error);

    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "bad.cards: {}", self.0)
        }
    }

    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_already_in_the_message_is_printed_once() {
        let err = anyhow::Error::new(Outer(std::fmt::Error)).context("cannot analyze");
        assert_eq!(
            one_line(&err),
            "cannot analyze: bad.cards: an error occurred when formatting an argument"
        );
    }
}
