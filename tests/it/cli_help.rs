//! Unit tests of `src/cli/mod.rs`, run from the integration binary:
//! the package builds no unit-test binaries.

use clap::CommandFactory;
use facedown::cli::*;

/// Every command that runs something, with its path (`dealer deal`).
fn leaves(cmd: &clap::Command, path: &str, out: &mut Vec<(String, clap::Command)>) {
    let subs: Vec<&clap::Command> = cmd
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .collect();
    if subs.is_empty() {
        out.push((path.trim().to_owned(), cmd.clone()));
    }
    for s in subs {
        leaves(s, &format!("{path} {}", s.get_name()), out);
    }
}

fn all_leaves() -> Vec<(String, clap::Command)> {
    let mut out = Vec::new();
    let mut root = Cli::command();
    root.build();
    leaves(&root, "", &mut out);
    out
}

#[test]
fn every_command_has_an_example_in_its_help() {
    for (path, cmd) in all_leaves() {
        let after = cmd
            .get_after_help()
            .map(|s| s.to_string())
            .unwrap_or_default();
        assert!(
            after.contains("Example"),
            "`facedown {path} --help` has no example"
        );
    }
}

#[test]
fn every_seed_has_a_default_or_is_drawn_and_recorded() {
    for (path, cmd) in all_leaves() {
        for arg in cmd.get_arguments().filter(|a| a.get_id() == "seed") {
            let drawn = ["party", "play-local"].contains(&path.as_str());
            assert!(
                drawn || !arg.get_default_values().is_empty(),
                "`facedown {path} --seed` has no default"
            );
        }
    }
}

#[test]
fn every_command_that_prints_results_has_json() {
    // `completions` prints a script and `cards fmt` without --json formatted text; both
    // still take or need no document: only `completions` goes without `--json`.
    for (path, cmd) in all_leaves() {
        if path == "completions" {
            continue;
        }
        assert!(
            cmd.get_arguments().any(|a| a.get_id() == "json"),
            "`facedown {path}` has no --json"
        );
    }
}
