//! `facedown cards search`: find the shortest card protocols for a function, or show that none
//! exists within a bound (see `facedown_cards::search` for the model and its guarantees).

use std::io::IsTerminal;

use clap::ValueEnum;
use facedown::cards::search::{
    parse_deck, parse_function, search_with_progress, SearchOutcome, SearchQuery, SearchRuntime,
    SearchSecurity, ShuffleClass,
};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

/// Runtime class (`--runtime`).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RuntimeArg {
    /// A bound on the number of steps.
    Finite,
    /// Restart-free Las Vegas: loops back to earlier states allowed (`--max-steps` then bounds
    /// the radius: every state visited is within that many steps of the start).
    LasVegas,
}

/// Security notion (`--security`).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SecurityArg {
    /// Equal observation probabilities.
    Perfect,
    /// Same possible observations for every input.
    InputPossibilistic,
    /// Every observation possible under both outputs (committed only).
    OutputPossibilistic,
}

/// Shuffle class (`--shuffles`).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ShufflesArg {
    /// Closed shuffles plus uniform shuffles on small sets (`--max-support`).
    Any,
    /// Uniform shuffles only: on any subgroup, or on any set of at most `--max-support`
    /// permutations.
    Uniform,
    /// Closed shuffles: uniform on subgroups plus `{id: 1/3, π: 2/3}` for involutions `π`.
    Closed,
    /// Uniform on any subgroup of S_n.
    UniformClosed,
    /// Random cuts of any ordered subset and random bisection cuts.
    RandomCuts,
    /// Random cuts of any ordered subset only (no bisection cuts).
    Cuts,
}

/// Arguments of `facedown cards search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// The deck: two colours (`♣♣♥♥`, `CCHHH`; inputs take one ♣ and one ♥ each, the rest are
    /// helpers) or distinct numbered cards (`1234`, `1 2 3 4 5`; input a = the two lowest, …).
    #[arg(long)]
    pub deck: String,
    /// `and`, `or`, `xor`, `nand`, `nor`, `xnor`, `copy`, or a truth table (`0001`).
    #[arg(long)]
    pub function: String,
    /// Longest protocol searched, in steps (every shuffle and every turn; perms are free).
    #[arg(long)]
    pub max_steps: usize,
    /// Runtime class.
    #[arg(long, value_enum, default_value = "finite")]
    pub runtime: RuntimeArg,
    /// Security notion.
    #[arg(long, value_enum, default_value = "perfect")]
    pub security: SecurityArg,
    /// Shuffle class.
    #[arg(long, value_enum, default_value = "closed")]
    pub shuffles: ShufflesArg,
    /// The output must be a committed `result` (otherwise it is read from the view).
    #[arg(long)]
    pub committed: bool,
    /// Number of output commitments for `copy`.
    #[arg(long, default_value_t = 2)]
    pub copies: usize,
    /// For `--shuffles any` and `uniform`: largest uniform non-group support enumerated.
    #[arg(long, default_value_t = 2)]
    pub max_support: usize,
    /// Turn one card at a time only (as the Koch–Schrempp–Kirsten model checker does).
    #[arg(long)]
    pub single_card_turns: bool,
    /// Print only the first protocol found.
    #[arg(long)]
    pub first: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Print work per depth (states explored, memo hits, seconds).
    #[arg(long)]
    pub stats: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    deck: &'a str,
    function: &'a str,
    max_steps: usize,
    runtime: SearchRuntime,
    security: SearchSecurity,
    shuffles: ShuffleClass,
    committed: bool,
    copies: usize,
    max_support: usize,
    single_card_turns: bool,
    first: bool,
    #[serde(flatten)]
    outcome: &'a SearchOutcome,
}

/// Runs `facedown cards search`.
pub fn run(args: SearchArgs) -> anyhow::Result<()> {
    let deck = parse_deck(&args.deck)?;
    let function = parse_function(&args.function)?;
    let mut q = SearchQuery::new(deck, function, args.max_steps);
    q.runtime = match args.runtime {
        RuntimeArg::Finite => SearchRuntime::Finite,
        RuntimeArg::LasVegas => SearchRuntime::LasVegas,
    };
    q.security = match args.security {
        SecurityArg::Perfect => SearchSecurity::Perfect,
        SecurityArg::InputPossibilistic => SearchSecurity::InputPossibilistic,
        SecurityArg::OutputPossibilistic => SearchSecurity::OutputPossibilistic,
    };
    q.shuffles = match args.shuffles {
        ShufflesArg::Any => ShuffleClass::Any,
        ShufflesArg::Uniform => ShuffleClass::Uniform,
        ShufflesArg::Closed => ShuffleClass::Closed,
        ShufflesArg::UniformClosed => ShuffleClass::UniformClosed,
        ShufflesArg::RandomCuts => ShuffleClass::RandomCuts,
        ShufflesArg::Cuts => ShuffleClass::Cuts,
    };
    q.committed = args.committed;
    q.copies = args.copies;
    q.max_support = args.max_support;
    q.first = args.first;
    q.single_card_turns = args.single_card_turns;

    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(if q.runtime == SearchRuntime::LasVegas {
                "radius {msg} [{bar:30}] {pos}/{len} states expanded at this distance"
            } else {
                "depth {msg} [{bar:30}] {pos}/{len} top-level actions"
            })
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let progress = |depth: usize, done: usize, total: usize| {
        if let Some(b) = &bar {
            b.set_length(total as u64);
            b.set_message(depth.to_string());
            b.set_position(done as u64);
        }
    };
    let outcome = search_with_progress(&q, &progress)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }

    if args.json {
        let report = Report {
            deck: &args.deck,
            function: &args.function,
            max_steps: args.max_steps,
            runtime: q.runtime,
            security: q.security,
            shuffles: q.shuffles,
            committed: q.committed,
            copies: q.copies,
            max_support: q.max_support,
            single_card_turns: q.single_card_turns,
            first: q.first,
            outcome: &outcome,
        };
        return print_json(&args, &report);
    }
    let las_vegas = q.runtime == SearchRuntime::LasVegas;
    let unit = if las_vegas { "within radius" } else { "of" };
    match outcome.length {
        Some(len) => {
            println!(
                "# {} protocol(s) {unit} {len} step(s) (the shortest), each re-checked by the exact \
                 analyzer",
                outcome.protocols.len(),
            );
            for (k, p) in outcome.protocols.iter().enumerate() {
                if let Some(a) = outcome.analyses.get(k) {
                    println!(
                        "\n# analyzer: {}, {}, expected shuffles {}, shuffles per run {}..{}",
                        a.runtime,
                        a.security,
                        a.expected_shuffles.as_deref().unwrap_or("unbounded"),
                        a.min_shuffles.map_or("-".to_owned(), |m| m.to_string()),
                        a.max_shuffles.map_or("∞".to_owned(), |m| m.to_string()),
                    );
                }
                println!("\n{p}");
            }
        }
        None if outcome.exhausted => println!(
            "# no protocol of any length exists for this query: all {} reachable states that \
             are not final were expanded",
            outcome.states_explored
        ),
        None if las_vegas => println!(
            "# no protocol within radius {} exists for this query",
            args.max_steps
        ),
        None => println!(
            "# no protocol of at most {} step(s) exists for this query",
            args.max_steps
        ),
    }
    println!(
        "# {} states explored, {} memo hits, {} top-level actions, {} shuffles in the class, {:.3} s",
        outcome.states_explored,
        outcome.memo_hits,
        outcome.top_level_actions,
        outcome.shuffle_count,
        outcome.seconds
    );
    if args.stats {
        println!("# depth  states  memo-hits  seconds");
        for d in &outcome.per_depth {
            println!(
                "# {:>5}  {:>6}  {:>9}  {:.3}",
                d.depth, d.states_explored, d.memo_hits, d.seconds
            );
        }
    }
    Ok(())
}

/// The search's JSON document: the common fields, and `seconds` written as `wall_ms`, the
/// one name of a wall time in every document.
fn print_json(args: &SearchArgs, report: &Report<'_>) -> anyhow::Result<()> {
    let mut body = serde_json::to_value(report)?;
    let to_ms = |v: &mut serde_json::Value| {
        if let Some(obj) = v.as_object_mut() {
            if let Some(secs) = obj.remove("seconds").and_then(|s| s.as_f64()) {
                obj.insert("wall_ms".into(), (secs * 1e3).into());
            }
        }
    };
    to_ms(&mut body);
    if let Some(depths) = body.get_mut("per_depth").and_then(|d| d.as_array_mut()) {
        depths.iter_mut().for_each(to_ms);
    }
    super::output::Doc::new("cards search")
        .parameters(serde_json::json!({
            "deck": args.deck,
            "function": args.function,
            "max_steps": args.max_steps,
            "runtime": report.runtime,
            "security": report.security,
            "shuffles": report.shuffles,
            "committed": args.committed,
            "copies": args.copies,
            "max_support": args.max_support,
            "single_card_turns": args.single_card_turns,
            "first": args.first,
        }))
        .print(&body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

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
        ])
        .expect("parses");
        assert!(cli.args.committed && cli.args.first && cli.args.json);
        run(cli.args).expect("runs");
        // Text output, a standard deck, a bound with no protocol.
        for argv in [
            [
                "search",
                "--deck",
                "1234",
                "--function",
                "xor",
                "--max-steps",
                "2",
                "--stats",
            ],
            [
                "search",
                "--deck",
                "CCHH",
                "--function",
                "and",
                "--max-steps",
                "2",
                "--stats",
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
    }
}
