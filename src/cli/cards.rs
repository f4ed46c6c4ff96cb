//! `facedown cards` subcommands: list, analyze, simulate, trace, tree — and the protocol table
//! of the headline report.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Subcommand;
use facedown::cards::analyze::{analyze, Analysis};
use facedown::cards::library::{builtins, load, Builtin};
use facedown::cards::model::Protocol;
use facedown::cards::simulate::{Compiled, SimulationReport};
use facedown::cards::{trace, tree};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

/// Arguments of `facedown cards`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: CardsCommand,
}

/// The `facedown cards` subcommands.
#[derive(Debug, Subcommand)]
pub enum CardsCommand {
    /// List the built-in protocols.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Analyze a protocol exactly: correctness, security, runtime, shuffles, leak.
    Analyze {
        /// A built-in name (see `list`) or a `.cards` file.
        protocol: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Monte-Carlo runs of a protocol, seeded and parallel.
    Simulate {
        /// A built-in name (see `list`) or a `.cards` file.
        protocol: String,
        /// Runs per input.
        #[arg(long)]
        runs: u64,
        /// The seed.
        #[arg(long)]
        seed: u64,
        /// Simulate only this input (bits, e.g. `1,0` or `10`); every input when omitted.
        #[arg(long)]
        input: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// One run, step by step, as the players see it.
    Trace {
        /// A built-in name (see `list`) or a `.cards` file.
        protocol: String,
        /// The input bits, first input first (e.g. `1,0` or `10`).
        #[arg(long)]
        input: String,
        /// The seed.
        #[arg(long)]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The KWH state tree.
    Tree {
        /// A built-in name (see `list`) or a `.cards` file.
        protocol: String,
        /// Print Graphviz DOT (the default).
        #[arg(long, conflicts_with = "json")]
        dot: bool,
        /// Print the vertices and edges as JSON instead.
        #[arg(long)]
        json: bool,
    },
    /// Find the shortest card protocols for a function, or show none exists within a bound.
    Search(super::cards_search::SearchArgs),
}

/// Runs `facedown cards`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        CardsCommand::List { json } => list(json),
        CardsCommand::Search(args) => super::cards_search::run(args),
        CardsCommand::Analyze { protocol, json } => analyze_cmd(&protocol, json),
        CardsCommand::Simulate {
            protocol,
            runs,
            seed,
            input,
            json,
        } => simulate_cmd(&protocol, runs, seed, input.as_deref(), json),
        CardsCommand::Trace {
            protocol,
            input,
            seed,
            json,
        } => trace_cmd(&protocol, &input, seed, json),
        CardsCommand::Tree {
            protocol,
            dot: _,
            json,
        } => {
            let p = load_protocol(&protocol)?;
            if json {
                return print_json(&tree_json(&p)?);
            }
            print!(
                "{}",
                tree::to_dot(&p).context("cannot build the state tree")?
            );
            Ok(())
        }
    }
}

fn load_protocol(name_or_path: &str) -> anyhow::Result<Protocol> {
    Ok(load(name_or_path)?)
}

fn print_json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// Parses `1,0`, `1 0` or `10` into bits for a protocol with `k` inputs.
fn parse_bits(text: &str, k: usize) -> anyhow::Result<Vec<bool>> {
    let bits: Vec<bool> = text
        .chars()
        .filter(|c| !matches!(c, ',' | ' '))
        .map(|c| match c {
            '0' => Ok(false),
            '1' => Ok(true),
            other => bail!("`{other}` is not a bit (write the input as e.g. `1,0`)"),
        })
        .collect::<anyhow::Result<_>>()?;
    if bits.len() != k {
        bail!(
            "the protocol has {k} input(s) but `{text}` gives {} bit(s)",
            bits.len()
        );
    }
    Ok(bits)
}

#[derive(Serialize)]
struct ListEntry {
    name: &'static str,
    cards: usize,
    function: String,
    citation: &'static str,
    summary: &'static str,
    claimed_security: &'static str,
    claimed_runtime: &'static str,
    claimed_expected_shuffles: &'static str,
    negative_example: bool,
}

fn list(json: bool) -> anyhow::Result<()> {
    let entries: Vec<ListEntry> = builtins()
        .iter()
        .map(|b| {
            let p = b.protocol();
            ListEntry {
                name: b.name,
                cards: p.cards(),
                function: facedown::cards::analyze::function_name(&p.function),
                citation: b.citation,
                summary: b.summary,
                claimed_security: b.claim.security,
                claimed_runtime: b.claim.runtime,
                claimed_expected_shuffles: b.claim.expected_shuffles,
                negative_example: b.claim.negative_example,
            }
        })
        .collect();
    if json {
        return print_json(&entries);
    }
    let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
    for e in &entries {
        println!(
            "{:<width$}  {} cards  {:<5}  [{}]  {}",
            e.name, e.cards, e.function, e.citation, e.summary
        );
    }
    Ok(())
}

fn analyze_cmd(name: &str, json: bool) -> anyhow::Result<()> {
    let p = load_protocol(name)?;
    let start = Instant::now();
    let a = analyze(&p).context("cannot analyze")?;
    let elapsed = start.elapsed();
    if json {
        return print_json(&a);
    }
    print_analysis(&a, elapsed);
    Ok(())
}

fn print_analysis(a: &Analysis, elapsed: Duration) {
    let opt = |x: &Option<String>| x.clone().unwrap_or_else(|| "—".to_owned());
    println!("protocol            {}", a.name);
    println!(
        "function            {} of {} input(s), {} cards",
        a.function,
        a.inputs.first().map_or(0, String::len),
        a.cards
    );
    println!("correct             {}", a.correct);
    println!(
        "security            {}{}",
        a.security,
        if a.committed {
            " (committed)"
        } else {
            " (non-committed: alike = same output)"
        }
    );
    println!("runtime             {}", a.runtime);
    println!("expected shuffles   {}", opt(&a.expected_shuffles));
    println!(
        "min / max shuffles  {} / {}",
        a.min_shuffles.map_or("—".to_owned(), |m| m.to_string()),
        a.max_shuffles
            .map_or("unbounded".to_owned(), |m| m.to_string())
    );
    if let Some(tv) = &a.tv_distance {
        let f = a.tv_distance_f64.unwrap_or(f64::NAN);
        println!("TV distance         {tv} (≈ {f:.6})");
    }
    if let Some(w) = &a.tv_worst {
        if a.tv_distance.as_deref() != Some("0") {
            println!(
                "  worst pair        inputs {} vs {} on view {}: {} vs {}",
                w.inputs[0], w.inputs[1], w.view, w.probabilities[0], w.probabilities[1]
            );
        }
    }
    if let Some(k) = &a.tv_from_uniform_shuffles {
        println!("TV from uniform     {k} (each input's view vs. the same protocol with uniform shuffles)");
    }
    if let Some(mi) = a.mutual_information_bits {
        println!("I(X;V)              {mi:.6} bits");
    }
    if let Some(mi) = a.leak_beyond_output_bits {
        println!("I(X;V | f(X))       {mi:.6} bits");
    }
    println!(
        "branches (Pr[observation | reached], per input {}):",
        a.inputs.join(" ")
    );
    for b in &a.branches {
        let probs: Vec<String> = b
            .probability
            .iter()
            .map(|p| p.clone().unwrap_or_else(|| "—".to_owned()))
            .collect();
        let after = if b.after == "(nothing)" {
            String::new()
        } else {
            format!(" after {}", b.after)
        };
        println!(
            "  [{}] {:>6}{after}: {:<6} {}",
            b.node,
            b.at,
            b.observation,
            probs.join(" ")
        );
    }
    for e in &a.errors {
        println!("error: {e}");
    }
    for n in &a.notes {
        println!("note: {n}");
    }
    println!("analysis time       {:.1} µs", elapsed.as_secs_f64() * 1e6);
}

#[derive(Serialize)]
struct SimulateOutput<'a> {
    #[serde(flatten)]
    report: &'a SimulationReport,
    elapsed_seconds: f64,
    runs_per_second: f64,
    threads: usize,
    /// Per simulated input, runs whose output (committed: decoded; non-committed: read from
    /// the view with the exact analysis' view → output map) equals f(input).
    correct_runs: Vec<u64>,
}

fn simulate_cmd(
    name: &str,
    runs: u64,
    seed: u64,
    input: Option<&str>,
    json: bool,
) -> anyhow::Result<()> {
    let p = load_protocol(name)?;
    let compiled = Compiled::new(&p).context("cannot simulate this protocol")?;
    let chosen: Vec<usize> = match input {
        Some(text) => {
            let bits = parse_bits(text, p.inputs.len())?;
            vec![facedown::cards::model::input_index(&bits)]
        }
        None => Vec::new(),
    };
    let inputs = if chosen.is_empty() {
        p.input_count()
    } else {
        1
    };
    let total = runs.checked_mul(inputs as u64).with_context(|| {
        format!("--runs {runs} × {inputs} inputs is more runs than can be counted")
    })?;
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(total);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs ({per_sec}, eta {eta})")
        {
            bar.set_style(style);
        }
        Some(bar)
    } else {
        None
    };
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n);
        }
    };
    let start = Instant::now();
    let report = compiled.simulate(&p.name, &chosen, runs, seed, Some(&tick))?;
    let elapsed = start.elapsed().as_secs_f64();
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    // View → output from the exact analysis (non-committed endings).
    let view_output: BTreeMap<String, Option<bool>> = analyze_views(&p);
    let correct_runs = report
        .inputs
        .iter()
        .enumerate()
        .map(|(col, r)| {
            let committed = if r.expected_output {
                r.output_1
            } else {
                r.output_0
            };
            let input_col = if chosen.is_empty() { col } else { chosen[0] };
            let from_views: u64 = report
                .views
                .iter()
                .filter(|v| view_output.get(&v.view) == Some(&Some(r.expected_output)))
                .map(|v| v.counts[input_col])
                .sum();
            committed + if r.non_committed > 0 { from_views } else { 0 }
        })
        .collect();
    let out = SimulateOutput {
        report: &report,
        elapsed_seconds: elapsed,
        runs_per_second: report.total_runs as f64 / elapsed.max(1e-9),
        threads: facedown::cards::simulate::threads(),
        correct_runs,
    };
    if json {
        return print_json(&out);
    }
    println!(
        "{}: seed {}, {} runs per input, {} runs in {:.3} s = {:.0} runs/s on {} thread(s)",
        report.name,
        report.seed,
        report.runs_per_input,
        report.total_runs,
        elapsed,
        out.runs_per_second,
        out.threads
    );
    println!("randomness: {}", report.rng);
    println!("input  f  correct     out 0       out 1       non-comm.   other   shuffles (mean ± s.e., max)");
    for (r, ok) in report.inputs.iter().zip(&out.correct_runs) {
        println!(
            "{:<6} {}  {:<11} {:<11} {:<11} {:<11} {:<7} {:.4} ± {:.4}, {}",
            r.input,
            u8::from(r.expected_output),
            ok,
            r.output_0,
            r.output_1,
            r.non_committed,
            r.stuck + r.gave_up + r.not_a_commitment,
            r.shuffles_mean,
            r.shuffles_stderr,
            r.shuffles_max
        );
    }
    let shown = 40;
    println!(
        "views ({} distinct), frequency per input:",
        report.views.len()
    );
    let mut by_count: Vec<_> = report.views.iter().collect();
    by_count.sort_by_key(|v| std::cmp::Reverse(v.counts.iter().sum::<u64>()));
    for v in by_count.into_iter().take(shown) {
        let freqs: Vec<String> = v
            .counts
            .iter()
            .enumerate()
            .filter(|(i, _)| chosen.is_empty() || chosen.contains(i))
            .map(|(_, &c)| format!("{:.5}", c as f64 / runs.max(1) as f64))
            .collect();
        println!("  {:<24} {}", v.view, freqs.join("  "));
    }
    if report.views.len() > shown {
        println!("  … {} more (use --json)", report.views.len() - shown);
    }
    Ok(())
}

/// Rendered view → the output it determines (None when it does not), for acyclic protocols.
fn analyze_views(p: &Protocol) -> BTreeMap<String, Option<bool>> {
    use facedown::cards::analyze::{explore, AnalysisOptions};
    explore(p, &AnalysisOptions::default())
        .ok()
        .and_then(|ex| ex.view_outputs().ok().flatten())
        .unwrap_or_default()
}

/// The state tree as JSON: vertices with their sequences and per-input probabilities, edges.
fn tree_json(p: &Protocol) -> anyhow::Result<serde_json::Value> {
    use facedown::cards::analyze::{explore, glyphs, is_bottom, AnalysisOptions};
    let opts = AnalysisOptions {
        record_tree: true,
        ..AnalysisOptions::default()
    };
    let ex = explore(p, &opts).context("cannot build the state tree")?;
    let tree = ex.tree.clone().unwrap_or_default();
    let vertices: Vec<serde_json::Value> = tree
        .vertices
        .iter()
        .enumerate()
        .map(|(id, v)| {
            let sequences: Vec<serde_json::Value> = v
                .state
                .entries
                .iter()
                .map(|(seq, probs)| {
                    serde_json::json!({
                        "row": glyphs(seq),
                        "probabilities": probs.iter().map(ToString::to_string).collect::<Vec<_>>(),
                        "bottom": is_bottom(probs, &ex.outputs),
                    })
                })
                .collect();
            serde_json::json!({
                "id": id,
                "kind": v.kind,
                "reached": v.mass.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "sequences": sequences,
            })
        })
        .collect();
    let edges: Vec<serde_json::Value> = tree
        .edges
        .iter()
        .map(|e| serde_json::json!({ "from": e.from, "to": e.to, "label": e.label }))
        .collect();
    Ok(serde_json::json!({
        "name": p.name,
        "inputs": ex.inputs,
        "vertices": vertices,
        "edges": edges,
    }))
}

fn trace_cmd(name: &str, input: &str, seed: u64, json: bool) -> anyhow::Result<()> {
    let p = load_protocol(name)?;
    let bits = parse_bits(input, p.inputs.len())?;
    let t = trace::trace(&p, &bits, seed).context("cannot trace")?;
    if json {
        return print_json(&t);
    }
    print!("{}", t.render(std::io::stdout().is_terminal()));
    Ok(())
}

#[derive(Serialize)]
struct HeadlineRow {
    #[serde(flatten)]
    analysis: Analysis,
    claim_matches: bool,
    claim_mismatches: Vec<String>,
    analysis_micros: f64,
}

fn claim_mismatches(b: &Builtin, a: &Analysis) -> Vec<String> {
    let c = &b.claim;
    let mut out = Vec::new();
    if c.correct != a.correct {
        out.push(format!(
            "correct: claimed {}, found {}",
            c.correct, a.correct
        ));
    }
    if c.security != a.security.as_str() {
        out.push(format!(
            "security: claimed {}, found {}",
            c.security, a.security
        ));
    }
    if c.runtime != a.runtime.as_str() {
        out.push(format!(
            "runtime: claimed {}, found {}",
            c.runtime, a.runtime
        ));
    }
    if Some(c.expected_shuffles) != a.expected_shuffles.as_deref() {
        out.push(format!(
            "expected shuffles: claimed {}, found {:?}",
            c.expected_shuffles, a.expected_shuffles
        ));
    }
    if c.max_shuffles.map(u64::from) != a.max_shuffles {
        out.push(format!(
            "max shuffles: claimed {:?}, found {:?}",
            c.max_shuffles, a.max_shuffles
        ));
    }
    out
}

/// Analyzes every built-in protocol; the fastest of a few repetitions is the time reported.
fn headline_rows() -> anyhow::Result<Vec<(HeadlineRow, usize)>> {
    builtins()
        .iter()
        .map(|b| {
            let p = load(b.name)?;
            let mut best = Duration::MAX;
            let mut analysis = None;
            for _ in 0..5 {
                let start = Instant::now();
                let a = analyze(&p).with_context(|| format!("cannot analyze {}", b.name))?;
                best = best.min(start.elapsed());
                analysis = Some(a);
            }
            let analysis = analysis.context("no analysis")?;
            let mismatches = claim_mismatches(b, &analysis);
            Ok((
                HeadlineRow {
                    claim_matches: mismatches.is_empty(),
                    claim_mismatches: mismatches,
                    analysis_micros: best.as_secs_f64() * 1e6,
                    analysis,
                },
                p.cards(),
            ))
        })
        .collect()
}

/// Prints the protocol table of the headline report.
pub fn headline(json: bool) -> anyhow::Result<()> {
    let rows = headline_rows()?;
    if json {
        let rows: Vec<&HeadlineRow> = rows.iter().map(|(r, _)| r).collect();
        return print_json(&serde_json::json!({ "protocols": rows }));
    }
    println!(
        "Card-based protocols: exact analysis of every built-in (KWH state tree, exact rationals)"
    );
    println!();
    let name_w = rows
        .iter()
        .map(|(r, _)| r.analysis.name.len())
        .max()
        .unwrap_or(4)
        .max(8);
    println!(
        "{:<name_w$}  cards  function  correct  security              runtime            E[shuf]  max  leak (TV / I(X;V|f) bits)  claim   time",
        "protocol"
    );
    for (r, _) in &rows {
        let a = &r.analysis;
        let leak = match (&a.tv_distance, a.leak_beyond_output_bits) {
            (Some(tv), _) if tv == "0" => "0".to_owned(),
            (Some(tv), Some(mi)) => format!("{tv} / {mi:.4}"),
            (Some(tv), None) => tv.clone(),
            (None, _) => "—".to_owned(),
        };
        println!(
            "{:<name_w$}  {:>5}  {:<8}  {:<7}  {:<20}  {:<17}  {:>7}  {:>3}  {:<25}  {:<6}  {:>6.1} µs",
            a.name,
            a.cards,
            a.function,
            if a.correct { "yes" } else { "NO" },
            a.security.as_str(),
            a.runtime.as_str(),
            a.expected_shuffles.as_deref().unwrap_or("—"),
            a.max_shuffles.map_or("∞".to_owned(), |m| m.to_string()),
            leak,
            if r.claim_matches { "✓" } else { "✗" },
            r.analysis_micros
        );
    }
    for (r, _) in &rows {
        for m in &r.claim_mismatches {
            println!("✗ {}: {m}", r.analysis.name);
        }
    }
    println!();
    println!("claim: the verdict the paper (or, for variants, a hand check) states; ✓ = the analyzer agrees.");
    println!("leak: largest TV distance between views of inputs that must look alike, and what the view reveals beyond the output.");
    Ok(())
}
