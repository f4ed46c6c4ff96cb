//! `facedown compare`: every workload on every face-down table, side by side.
//!
//! The comparison itself is the library module [`facedown::compare`] (the bench and the
//! tests call it too); this module parses the arguments, shows progress and prints the rows
//! as text, CSV, Markdown or JSON.

use std::io::IsTerminal;

use facedown::compare::games::{GameSet, Network};
use facedown::compare::{self, Options, Row};

use super::output::{Doc, UsageError};
use super::table::{Format, OutputArgs, Table};

/// Arguments of `facedown compare`.
#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Examples:\n  facedown compare --only poker --runs 5 --markdown\n  facedown compare --latency 20ms --json > compare.json\n  facedown compare --only game --games full --json > games.json\n  facedown compare --only game --network tcp --markdown"
)]
pub struct Args {
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Seed of the run (every table's randomness is derived from it, one stream per run).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Runs of every workload on every backend (per input assignment of a card protocol);
    /// without it, each backend's default (ideal 200/50, dealer 50/10, encrypted 5/3 for card
    /// protocols/deals).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: Option<u64>,
    /// One-way delay of every message (`20ms`, `1s`, `0`): adds `wall_ms_at_latency`, one run
    /// of every dealer and encrypted row played over the in-memory network with that delay;
    /// the ideal rows get `rounds × latency`, marked as an estimate in the notes.
    #[arg(long, value_parser = parse_duration)]
    pub latency: Option<std::time::Duration>,
    /// Only the workloads whose name starts with this (e.g. `poker`); a prefix that matches
    /// no workload is a usage error.
    #[arg(long)]
    pub only: Option<String>,
    /// Which games to play as workloads (their names start with `game`): `hand` (one hand of
    /// Ninety-Nine, a round of Golf, a deal of Девятка), `full` (Ninety-Nine to 100, nine
    /// rounds of Golf, a deal of Девятка) or `none`.
    #[arg(long, value_enum, default_value_t = GameSet::Hand)]
    pub games: GameSet,
    /// Where the games are played: `memory` (every player on a thread over the in-memory
    /// network) or `tcp` (`play-local`: every player in its own process over TCP on loopback,
    /// and the table's process on the ideal table; the CPU is that of every process).
    #[arg(long, value_enum, default_value_t = Network::Memory)]
    pub network: Network,
}

impl Args {
    /// The default comparison: the headline report's.
    pub fn headline() -> Args {
        Args {
            output: OutputArgs::default(),
            seed: 0,
            runs: None,
            latency: None,
            only: None,
            games: GameSet::Hand,
            network: Network::Memory,
        }
    }

    fn options(&self) -> Options {
        Options {
            seed: self.seed,
            latency: self.latency,
            only: self.only.clone(),
            runs: self.runs,
            games: self.games,
            network: self.network,
        }
    }
}

/// Parses a duration: a non-negative number followed by `ns`, `us`, `ms` or `s` (`0` alone is
/// allowed).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    if t == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("`{s}`: give a unit (ns, us, ms or s), e.g. `20ms`"))?;
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{s}`: `{num}` is not a number"))?;
    let secs = match unit {
        "ns" => v * 1e-9,
        "us" | "µs" => v * 1e-6,
        "ms" => v * 1e-3,
        "s" => v,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (ns, us, ms or s)")),
    };
    std::time::Duration::try_from_secs_f64(secs).map_err(|e| format!("`{s}`: {e}"))
}

/// Every row of the comparison, with a progress bar on a terminal.
pub fn rows(args: &Args) -> anyhow::Result<Vec<Row>> {
    if args.network == Network::Tcp {
        let stray = match (args.games, args.latency) {
            (GameSet::None, _) => Some("--network tcp plays the games: it needs --games hand|full"),
            (_, Some(_)) => Some("--latency applies to the in-memory network, not --network tcp"),
            _ => None,
        };
        if let Some(why) = stray {
            return Err(UsageError(why.into()).into());
        }
    }
    if let Some(only) = &args.only {
        let names = compare::workload_names(args.games)?;
        if !names.iter().any(|n| n.starts_with(only.as_str())) {
            return Err(UsageError(format!(
                "--only {only:?} matches no workload; the workloads are: {}",
                names.join(", ")
            ))
            .into());
        }
    }
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut progress = |k: usize, len: usize, what: &str| {
        if let Some(bar) = &bar {
            bar.set_length(len as u64);
            bar.set_position(k as u64);
            bar.set_message(what.to_owned());
        }
    };
    let rows = compare::rows(&args.options(), &mut progress)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(rows)
}

fn fmt_opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "—".to_owned(), |v| format!("{v:.digits$}"))
}

fn fmt_bits(x: Option<f64>) -> String {
    match x {
        None => "null".to_owned(),
        Some(0.0) => "0".to_owned(),
        Some(v) => format!("{v:.4}"),
    }
}

const HEADER: [&str; 11] = [
    "workload",
    "backend",
    "runs",
    "wall_ms",
    "cpu_ms",
    "cpu_ms_per_player",
    "messages",
    "bytes",
    "rounds",
    "security",
    "excess_bits",
];

fn header(latency: bool) -> Vec<&'static str> {
    let mut h = HEADER.to_vec();
    if latency {
        h.push("wall_ms_at_latency");
    }
    h
}

fn cells(r: &Row, latency: bool) -> Vec<String> {
    let mut c = vec![
        r.workload.clone(),
        r.backend.clone(),
        r.runs.to_string(),
        fmt_opt(r.wall_ms, 3),
        fmt_opt(r.cpu_ms, 3),
        fmt_opt(r.cpu_ms_per_player, 3),
        fmt_opt(r.messages, 1),
        fmt_opt(r.bytes, 0),
        fmt_opt(r.rounds, 1),
        r.security.clone(),
        fmt_bits(r.excess_bits),
    ];
    if latency {
        c.push(fmt_opt(r.wall_ms_at_latency, 3));
    }
    c
}

fn table(rows: &[Row], latency: bool, notes: bool) -> Table {
    let mut head = header(latency);
    if notes {
        head.push("notes");
    }
    let mut t = Table::new(&head).right_aligned((2..9).chain([10, 11]));
    for r in rows {
        let mut c = cells(r, latency);
        if notes {
            c.push(r.notes.join("; "));
        }
        t.row(c);
    }
    t
}

const GAME_HEADER: [&str; 12] = [
    "workload",
    "backend",
    "deals",
    "tricks",
    "messages/deal",
    "kB/deal",
    "rounds/deal",
    "cpu_ms/deal",
    "messages/trick",
    "kB/trick",
    "cpu_ms/trick",
    "hidden cards opened",
];

/// The game rows per deal and per trick (Golf and Девятка: per move said).
fn game_table(rows: &[Row]) -> Option<Table> {
    let games: Vec<_> = rows
        .iter()
        .filter_map(|r| r.game.as_ref().map(|g| (r, g)))
        .collect();
    if games.is_empty() {
        return None;
    }
    let mut t = Table::new(&GAME_HEADER).right_aligned(2..12);
    for (r, g) in games {
        let (d, k) = (&g.per_deal, &g.per_trick);
        let tricks = match g.trick_unit {
            "trick" => format!("{:.1}", g.tricks),
            unit => format!("{:.1} {unit}s", g.tricks),
        };
        t.row(vec![
            r.workload.clone(),
            r.backend.clone(),
            format!("{:.1}", g.deals),
            tricks,
            format!("{:.1}", d.messages),
            format!("{:.1}", d.bytes / 1e3),
            format!("{:.1}", d.rounds),
            format!("{:.1}", d.cpu_ms),
            format!("{:.1}", k.messages),
            format!("{:.2}", k.bytes / 1e3),
            format!("{:.2}", k.cpu_ms),
            format!("{:.1}", g.hidden_cards_opened),
        ]);
    }
    Some(t)
}

/// The comparison's own fields of a JSON document: the seed, runs, latency and rows.
pub fn body(rows: &[Row], args: &Args) -> serde_json::Value {
    let mut out = serde_json::json!({ "seed": args.seed, "runs": args.runs, "rows": rows });
    if let Some(l) = args.latency {
        out["latency_ms"] = serde_json::json!(l.as_secs_f64() * 1e3);
    }
    out
}

/// The parameters of a comparison, as recorded in its JSON document.
pub fn parameters(args: &Args) -> serde_json::Value {
    serde_json::json!({
        "runs": args.runs,
        "latency_ms": args.latency.map(|l| l.as_secs_f64() * 1e3),
        "only": args.only,
        "games": args.games,
        "network": args.network,
    })
}

/// Prints the rows as text, CSV, Markdown or JSON.
pub fn print(rows: &[Row], args: &Args) -> anyhow::Result<()> {
    if args.output.json {
        return Doc::new("compare")
            .seed(args.seed)
            .parameters(parameters(args))
            .print(&body(rows, args));
    }
    let format = args.output.format();
    let latency = args.latency.is_some();
    if format != Format::Text {
        table(rows, latency, true).print(format);
        if let Some(t) = game_table(rows) {
            println!();
            t.print(format);
        }
        return Ok(());
    }
    println!(
        "Face-down tables compared (seed {}): means per run, one engine per player; times \
         include setup and audit; cpu_ms counts every player, cpu_ms_per_player the busiest",
        args.seed
    );
    println!();
    table(rows, latency, false).print(format);
    if let Some(t) = game_table(rows) {
        println!();
        println!(
            "Games per deal and per trick (Golf and Девятка: per move said); hidden cards \
             opened: per run, cards the rules let a player keep face down that the audit turns"
        );
        println!();
        t.print(format);
    }
    println!();
    for r in rows.iter().filter(|r| !r.notes.is_empty()) {
        println!("{} on {}:", r.workload, r.backend);
        for n in &r.notes {
            println!("    note: {n}");
        }
    }
    Ok(())
}

/// Runs `facedown compare`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let rows = rows(&args)?;
    print(&rows, &args)
}
