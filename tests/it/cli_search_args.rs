//! Unit tests of `src/cli/cards_search.rs`, run from the integration binary:
//! the package builds no unit-test binaries.

use clap::Parser;
use facedown::cli::cards_search::*;
use facedown::cli::Inconclusive;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    args: SearchArgs,
}

#[test]
fn the_documented_command_line_parses_and_runs() {
    let cli = Cli::try_parse_from([
        "search",
        "--deck",
        "♣♣♥♥",
        "--function",
        "xor",
        "--max-steps",
        "2",
        "--shuffles",
        "random-cuts",
        "--security",
        "perfect",
        "--runtime",
        "finite",
        "--committed",
        "--first",
        "--json",
        "--stats",
        "--max-memory",
        "1G",
    ])
    .expect("parses");
    assert!(cli.args.committed && cli.args.first && cli.args.json);
    assert_eq!(cli.args.max_memory, Some(1 << 30));
    run(cli.args).expect("runs");
    // Text output, a standard deck, a bound with no protocol, a shard.
    for argv in [
        vec![
            "search",
            "--deck",
            "1234",
            "--function",
            "xor",
            "--max-steps",
            "2",
            "--stats",
        ],
        vec![
            "search",
            "--deck",
            "CCHH",
            "--function",
            "and",
            "--max-steps",
            "2",
            "--stats",
            "--shard",
            "2/3",
        ],
    ] {
        let cli = Cli::try_parse_from(argv).expect("parses");
        run(cli.args).expect("runs");
    }
}

#[test]
fn bad_queries_are_errors_not_panics() {
    for argv in [
        [
            "search",
            "--deck",
            "♣x",
            "--function",
            "and",
            "--max-steps",
            "2",
        ],
        [
            "search",
            "--deck",
            "♣♣♥♥",
            "--function",
            "001",
            "--max-steps",
            "2",
        ],
        [
            "search",
            "--deck",
            "♣♥",
            "--function",
            "and",
            "--max-steps",
            "2",
        ],
    ] {
        let cli = Cli::try_parse_from(argv).expect("parses");
        assert!(run(cli.args).is_err());
    }
    for bad in [
        vec!["--max-memory", "lots"],
        vec!["--max-memory", "0"],
        vec!["--max-memory", "4Q"],
        vec!["--shard", "4/3"],
        vec!["--shard", "x"],
    ] {
        let mut argv = vec!["search", "--deck", "CCHH", "--function", "and"];
        argv.extend(["--max-steps", "2"]);
        argv.extend(bad.iter().copied());
        assert!(Cli::try_parse_from(&argv).is_err(), "{bad:?}");
    }
}

#[test]
fn sizes_parse_in_binary_and_decimal_units() {
    assert_eq!(parse_size("512"), Ok(512));
    assert_eq!(parse_size("4K"), Ok(4096));
    assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
    assert_eq!(parse_size("2MB"), Ok(2_000_000));
    assert!(parse_size("").is_err());
    assert!(parse_size("-1G").is_err());
    assert!(default_memory_budget() > 0);
}

#[test]
fn a_tiny_memory_budget_stops_the_search_with_an_inconclusive_error() {
    let cli = Cli::try_parse_from([
        "search",
        "--deck",
        "♣♣♥♥",
        "--function",
        "and",
        "--committed",
        "--max-steps",
        "12",
        "--max-memory",
        "64K",
    ])
    .expect("parses");
    let err = run(cli.args).expect_err("stops");
    assert!(err.downcast_ref::<Inconclusive>().is_some(), "{err:#}");
}
