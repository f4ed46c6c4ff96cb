//! `facedown compare`: every workload on every face-down table, side by side.
//!
//! The comparison itself is the library module [`facedown::compare`] (the bench and the
//! tests call it too); this module parses the arguments, shows progress and prints the rows
//! as text, CSV, Markdown or JSON.

use std::io::IsTerminal;

use facedown::compare::{self, Options, Row};

/// Arguments of `facedown compare`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Print the rows as JSON.
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    pub json: bool,
    /// Print the rows as CSV.
    #[arg(long, conflicts_with = "markdown")]
    pub csv: bool,
    /// Print the rows as a Markdown table.
    #[arg(long)]
    pub markdown: bool,
    /// Seed of the run (every table's randomness is derived from it, one stream per run).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// One-way delay of every message (`20ms`, `1s`, `0`): adds `wall_ms_at_latency`, one run
    /// of every dealer and encrypted row played over the in-memory network with that delay;
    /// the ideal rows get `rounds × latency`, marked as an estimate in the notes.
    #[arg(long, value_parser = parse_duration)]
    pub latency: Option<std::time::Duration>,
    /// Only the workloads whose name starts with this (e.g. `poker`).
    #[arg(long)]
    pub only: Option<String>,
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
pub fn rows(
    seed: u64,
    latency: Option<std::time::Duration>,
    only: Option<&str>,
) -> anyhow::Result<Vec<Row>> {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let opts = Options {
        seed,
        latency,
        only: only.map(str::to_owned),
    };
    let mut progress = |k: usize, len: usize, what: &str| {
        if let Some(bar) = &bar {
            bar.set_length(len as u64);
            bar.set_position(k as u64);
            bar.set_message(what.to_owned());
        }
    };
    let rows = compare::rows(&opts, &mut progress)?;
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

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Prints the rows as text, CSV, Markdown or JSON.
pub fn print(rows: &[Row], args: &Args) -> anyhow::Result<()> {
    if args.json {
        let mut out = serde_json::json!({ "seed": args.seed, "rows": rows });
        if let Some(l) = args.latency {
            out["latency_ms"] = serde_json::json!(l.as_secs_f64() * 1e3);
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let lat = args.latency.is_some();
    let head = header(lat);
    if args.csv {
        println!("{},notes", head.join(","));
        for r in rows {
            let c: Vec<String> = cells(r, lat).iter().map(|s| csv_field(s)).collect();
            println!("{},{}", c.join(","), csv_field(&r.notes.join("; ")));
        }
        return Ok(());
    }
    if args.markdown {
        println!("| {} | notes |", head.join(" | "));
        println!("|{}---|", "---|".repeat(head.len()));
        for r in rows {
            println!(
                "| {} | {} |",
                cells(r, lat).join(" | "),
                r.notes.join("; ").replace('|', "\\|")
            );
        }
        return Ok(());
    }
    println!(
        "Face-down tables compared (seed {}): means per run, one engine per player; times include \
         setup and audit; cpu_ms counts every player, cpu_ms_per_player the busiest",
        args.seed
    );
    println!();
    let all: Vec<Vec<String>> = rows.iter().map(|r| cells(r, lat)).collect();
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            all.iter()
                .map(|c| c[i].chars().count())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |c: &[String]| {
        c.iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (s, w))| {
                let pad = w - s.chars().count();
                if i < 2 || i == 9 {
                    format!("{s}{}", " ".repeat(pad))
                } else {
                    format!("{}{s}", " ".repeat(pad))
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let names: Vec<String> = head.iter().map(|h| (*h).to_owned()).collect();
    println!("{}", line(&names));
    for (r, c) in rows.iter().zip(&all) {
        println!("{}", line(c));
        for n in &r.notes {
            println!("    note: {n}");
        }
    }
    Ok(())
}

/// Runs `facedown compare`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let rows = rows(args.seed, args.latency, args.only.as_deref())?;
    print(&rows, &args)
}

/// The comparison as printed after the protocol table by `facedown` with no arguments.
pub fn headline() -> anyhow::Result<()> {
    println!();
    run(Args {
        json: false,
        csv: false,
        markdown: false,
        seed: 0,
        latency: None,
        only: None,
    })
}
