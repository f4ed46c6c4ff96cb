//! `facedown cards` subcommands: list, analyze, simulate, trace, tree — and the protocol table
//! of the headline report.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Subcommand;
use cpu_time::ThreadTime;
use facedown::cards::analyze::{analyze, Analysis};
use facedown::cards::claim::{check, Check, Claim};
use facedown::cards::library::{builtins, load, Builtin, LoadError, MAX_PROTOCOL_BYTES};
use facedown::cards::print::analysis_text;
use facedown::cards::search::Shard;
use facedown::cards::simulate::{
    merge_correct_runs, merge_reports, InputReport, SimulationReport, Simulator, ViewCount,
};
use facedown::cards::{trace, tree, Protocol};
use facedown::core::input::read_text;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use super::cards_input::parse_values;
use super::merge::{print_envelope, shard_results, Envelope};
use super::output::{colour_on_stderr, colour_on_stdout, ms, Doc};
use super::table::{Format, OutputArgs, Table, EMPTY};
use super::{CheckFailed, Diagnostic};

/// Arguments of `facedown cards`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: CardsCommand,
}

/// Verdicts to expect, comma-separated (`correct,perfect,finite,expected-shuffles=1`).
fn expectation(text: &str) -> Result<Claim, String> {
    text.parse::<Claim>().map_err(|e| e.to_string())
}

/// The `facedown cards` subcommands.
#[derive(Debug, Subcommand)]
pub enum CardsCommand {
    /// List the built-in protocols.
    #[command(after_help = "Example: facedown cards list --markdown")]
    List {
        /// Output format.
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Analyze a protocol exactly: correctness, security, runtime, shuffles, leak.
    ///
    /// Exits 0 whatever the verdict (an insecure protocol is a result, not an error), unless
    /// --expect is given: then 3 when an expected verdict does not hold. A `claim` line in the
    /// file is checked and shown, but never changes the exit status; use `check` for that.
    #[command(after_help = "Example: facedown cards analyze mks-four-card-and --json")]
    Analyze {
        /// A built-in name (see `list`) or a `.cards` file.
        protocol: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Verdicts to expect, comma-separated, e.g. `correct,perfect,finite`; exit 3 when one
        /// does not hold.
        #[arg(long, value_parser = expectation)]
        expect: Option<Claim>,
    },
    /// Check protocols against their claim line and --expect, for CI.
    ///
    /// Each protocol is parsed and analysed; its `claim` line and the verdicts of --expect
    /// must hold (correctness is expected when neither says otherwise). Exit status: 0 every
    /// check holds, 1 an error (unreadable file, parse error, analysis limit), 2 a usage error,
    /// 3 a check that failed.
    #[command(
        after_help = "Example: facedown cards check crates/cards/protocols/*.cards --expect correct"
    )]
    Check {
        /// Built-in names or `.cards` files.
        #[arg(required = true)]
        protocols: Vec<String>,
        /// Verdicts to expect of every protocol, comma-separated, e.g. `correct,perfect`.
        #[arg(long, value_parser = expectation)]
        expect: Option<Claim>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print `.cards` files in the canonical form (comments kept).
    ///
    /// Without --check or --write the formatted text goes to standard output. Exit status 3
    /// with --check when a file is not in canonical form.
    #[command(after_help = "Example: facedown cards fmt --check crates/cards/protocols/*.cards")]
    Fmt {
        /// `.cards` files (or built-in names, printed formatted).
        #[arg(required = true)]
        files: Vec<String>,
        /// Change nothing; exit 3 when a file is not in canonical form.
        #[arg(long, conflicts_with = "write")]
        check: bool,
        /// Rewrite the files in place.
        #[arg(long)]
        write: bool,
        /// Print JSON: for each file, whether it is in canonical form (and whether it was
        /// rewritten), instead of the formatted text.
        #[arg(long)]
        json: bool,
    },
    /// Monte-Carlo runs of a protocol, seeded and parallel.
    #[command(
        after_help = "Example: facedown cards simulate five-card-trick --runs 100000 --seed 7 --json"
    )]
    Simulate {
        /// A built-in name (see `list`) or a `.cards` file.
        protocol: String,
        /// Runs per input.
        #[arg(long)]
        runs: u64,
        /// Seed of the run (run r of input x draws from its own stream of this seed; the
        /// result does not depend on the thread count).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Simulate only this input (bits, e.g. `1,0` or `10`); every input when omitted.
        #[arg(long)]
        input: Option<String>,
        /// Simulate only shard I of K of the runs (chunks of 16 384 runs, dealt in turn) and
        /// print a shard envelope; `facedown merge --json` adds the K shards up.
        #[arg(long, requires = "json")]
        shard: Option<Shard>,
        /// Output format (the per-input table in CSV and Markdown).
        #[command(flatten)]
        output: OutputArgs,
    },
    /// One run, step by step, as the players see it.
    #[command(after_help = "Example: facedown cards trace mks-four-card-and --input 1,1 --seed 3")]
    Trace {
        /// A built-in name (see `list`) or a `.cards` file.
        protocol: String,
        /// The input bits, first input first (e.g. `1,0` or `10`).
        #[arg(long)]
        input: String,
        /// Seed of the run (the shuffles' random choices).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The KWH state tree.
    #[command(after_help = "Example: facedown cards tree five-card-trick | dot -Tsvg > tree.svg")]
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
    #[command(
        after_help = "Example: facedown cards search --deck ♣♣♥♥ --function and --committed --runtime las-vegas --max-steps 8"
    )]
    Search(super::cards_search::SearchArgs),
    /// The fewest cards for a two-input function in the private model (private input
    /// permutations, no shuffle).
    #[command(after_help = "Example: facedown cards search-private --function and")]
    SearchPrivate(super::cards_private::PrivateSearchArgs),
}

/// Runs `facedown cards`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        CardsCommand::List { output } => list(output),
        CardsCommand::Search(args) => super::cards_search::run(args),
        CardsCommand::SearchPrivate(args) => super::cards_private::run(args),
        CardsCommand::Analyze {
            protocol,
            json,
            expect,
        } => analyze_cmd(&protocol, json, expect.as_ref()),
        CardsCommand::Check {
            protocols,
            expect,
            json,
        } => check_cmd(&protocols, expect.as_ref(), json),
        CardsCommand::Fmt {
            files,
            check,
            write,
            json,
        } => fmt_cmd(&files, FmtMode { check, write, json }),
        CardsCommand::Simulate {
            protocol,
            runs,
            seed,
            input,
            shard,
            output,
        } => simulate_cmd(&protocol, (runs, seed, shard), input.as_deref(), output),
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
                return Doc::new("cards tree")
                    .parameters(serde_json::json!({ "protocol": protocol }))
                    .print(&tree::to_json(&p).context("cannot build the state tree")?);
            }
            print!(
                "{}",
                tree::to_dot(&p).context("cannot build the state tree")?
            );
            Ok(())
        }
    }
}

/// Loads a protocol; a parse error becomes a [`Diagnostic`] showing the source line.
fn load_protocol(name_or_path: &str) -> anyhow::Result<Protocol> {
    load(name_or_path).map_err(|e| match e {
        e @ LoadError::Parse { .. } => anyhow::Error::new(Diagnostic(e.render(colour_on_stderr()))),
        other => anyhow::Error::new(other),
    })
}

/// Parses `1,0`, `1 0` or `10` into bits for a protocol with `k` inputs.
pub(crate) fn parse_bits(text: &str, k: usize) -> anyhow::Result<Vec<bool>> {
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

fn list(output: OutputArgs) -> anyhow::Result<()> {
    let entries = facedown::cards::library::entries();
    if output.json {
        return Doc::new("cards list").print(&serde_json::json!({ "protocols": entries }));
    }
    let mut t = Table::new(&["name", "cards", "function", "citation", "claim", "summary"])
        .right_aligned([1]);
    for e in &entries {
        t.row(vec![
            e.name.to_owned(),
            e.cards.to_string(),
            e.function.clone(),
            e.citation.to_owned(),
            e.claim.clone(),
            e.summary.to_owned(),
        ]);
    }
    t.print(output.format());
    Ok(())
}

/// The JSON of `analyze`: the analysis, and the check of the file's claim and `--expect`.
#[derive(Serialize)]
struct AnalyzeOutput<'a> {
    #[serde(flatten)]
    analysis: &'a Analysis,
    claim: Option<String>,
    claim_holds: Option<bool>,
    claim_mismatches: Vec<String>,
    expect_holds: Option<bool>,
    expect_mismatches: Vec<String>,
    /// Wall time of the analysis.
    wall_ms: f64,
    /// CPU time of the thread that ran the analysis.
    cpu_ms: f64,
}

/// The `cards analyze --json` document of `p` (also what `facedown serve` answers), the
/// analysis, and the checks of the file's claim and of `expect`.
pub(crate) fn analyze_document(
    name: &str,
    p: &Protocol,
    expect: Option<&Claim>,
) -> anyhow::Result<(serde_json::Value, Analysis, [Option<Check>; 2])> {
    let (start, cpu) = (Instant::now(), ThreadTime::now());
    let a = analyze(p).context("cannot analyze")?;
    let (elapsed, cpu) = (start.elapsed(), cpu.elapsed());
    let claimed = p.claim().map(|c| check(a.clone(), Some(c), None));
    let expected = expect.map(|e| check(a.clone(), None, Some(e)));
    let doc = Doc::new("cards analyze")
        .parameters(serde_json::json!({
            "protocol": name,
            "expect": expect.map(ToString::to_string),
        }))
        .build(&AnalyzeOutput {
            analysis: &a,
            claim: p.claim().map(ToString::to_string),
            claim_holds: claimed.as_ref().map(Check::holds),
            claim_mismatches: mismatch_texts(claimed.as_ref()),
            expect_holds: expected.as_ref().map(Check::holds),
            expect_mismatches: mismatch_texts(expected.as_ref()),
            wall_ms: ms(elapsed),
            cpu_ms: ms(cpu),
        })?;
    Ok((doc, a, [claimed, expected]))
}

fn analyze_cmd(name: &str, json: bool, expect: Option<&Claim>) -> anyhow::Result<()> {
    let p = load_protocol(name)?;
    let (doc, a, [claimed, expected]) = analyze_document(name, &p, expect)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", analysis_text(&a));
        if let Some(c) = &claimed {
            print_claim_line("claim", c);
        }
        if let Some(c) = &expected {
            print_claim_line("expected", c);
        }
        let time = |key: &str| doc[key].as_f64().unwrap_or_default() * 1e3;
        println!("analysis CPU time   {:.1} µs", time("cpu_ms"));
        println!("analysis wall time  {:.1} µs", time("wall_ms"));
    }
    match expected {
        Some(c) if !c.holds() => Err(CheckFailed(format!(
            "{}: {}",
            p.name(),
            mismatch_texts(Some(&c)).join("; ")
        ))
        .into()),
        _ => Ok(()),
    }
}

fn mismatch_texts(check: Option<&Check>) -> Vec<String> {
    check.map_or_else(Vec::new, |c| {
        c.mismatches.iter().map(ToString::to_string).collect()
    })
}

fn print_claim_line(label: &str, c: &Check) {
    let stated = c.claim.as_ref().or(c.expect.as_ref());
    let stated = stated.map(ToString::to_string).unwrap_or_default();
    if c.holds() {
        println!("{label:<20}{stated} ✓");
    } else {
        println!("{label:<20}{stated} ✗");
        for m in &c.mismatches {
            println!("  ✗ {m}");
        }
    }
}

/// One protocol's line in the JSON of `check`.
#[derive(Serialize)]
struct CheckEntry {
    protocol: String,
    name: Option<String>,
    claim: Option<String>,
    expect: Option<String>,
    holds: bool,
    mismatches: Vec<String>,
    error: Option<String>,
}

fn check_cmd(protocols: &[String], expect: Option<&Claim>, json: bool) -> anyhow::Result<()> {
    let mut entries = Vec::new();
    let (mut errors, mut failed) = (0usize, 0usize);
    for name in protocols {
        let entry = check_one(name, expect, json);
        errors += usize::from(entry.error.is_some());
        failed += usize::from(entry.error.is_none() && !entry.holds);
        entries.push(entry);
    }
    let summary = format!(
        "{} checked: {} hold, {failed} failed, {errors} could not be checked",
        entries.len(),
        entries.len() - failed - errors
    );
    if json {
        Doc::new("cards check")
            .parameters(serde_json::json!({
                "protocols": protocols,
                "expect": expect.map(ToString::to_string),
            }))
            .print(&serde_json::json!({
                "results": entries,
                "checked": entries.len(),
                "held": entries.len() - failed - errors,
                "failed": failed,
                "errors": errors,
            }))?;
    }
    if errors > 0 {
        bail!("{summary}");
    }
    if failed > 0 {
        return Err(CheckFailed(summary).into());
    }
    if !json {
        println!("{summary}");
    }
    Ok(())
}

fn check_one(name: &str, expect: Option<&Claim>, json: bool) -> CheckEntry {
    let mut entry = CheckEntry {
        protocol: name.to_owned(),
        name: None,
        claim: None,
        expect: expect.map(ToString::to_string),
        holds: false,
        mismatches: Vec::new(),
        error: None,
    };
    let p = match load(name) {
        Ok(p) => p,
        Err(e) => {
            eprint!("{}", e.render(colour_on_stderr()));
            entry.error = Some(e.to_string());
            return entry;
        }
    };
    entry.name = Some(p.name().to_owned());
    entry.claim = p.claim().map(ToString::to_string);
    let c = match analyze(&p) {
        Ok(a) => check(a, p.claim(), expect),
        Err(e) => {
            eprintln!("error: {name}: cannot analyze: {e}");
            entry.error = Some(e.to_string());
            return entry;
        }
    };
    entry.holds = c.holds();
    entry.mismatches = mismatch_texts(Some(&c));
    if !json {
        let verdict = if c.holds() { "✓" } else { "✗" };
        println!("{verdict} {name}");
        for m in &entry.mismatches {
            println!("    {m}");
        }
    }
    entry
}

/// What `cards fmt` does with each file.
#[derive(Clone, Copy)]
struct FmtMode {
    check: bool,
    write: bool,
    json: bool,
}

/// One file's line in the JSON of `cards fmt`.
#[derive(Serialize)]
struct FmtEntry {
    file: String,
    canonical: bool,
    written: bool,
}

/// A file's path and text, or a built-in's name and source.
fn fmt_source(name: &str, write: bool) -> anyhow::Result<(PathBuf, String)> {
    match facedown::cards::library::find(name) {
        Some(_) if write && !std::path::Path::new(name).exists() => Err(super::UsageError(
            format!("`{name}` is a built-in protocol, not a file: --write rewrites files"),
        )
        .into()),
        Some(b) if !std::path::Path::new(name).exists() => {
            Ok((PathBuf::from(b.name), b.source.to_owned()))
        }
        _ => {
            let path = PathBuf::from(name);
            let text = read_text(&path, MAX_PROTOCOL_BYTES, "a .cards protocol")?;
            Ok((path, text))
        }
    }
}

/// Writes `text` over the file at `path` through a temporary file in the same directory,
/// renamed over it once complete: a full disk, a size limit or a kill part-way leaves the
/// original file as it was.
fn replace_file(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    let cannot = || format!("cannot write `{}`", path.display());
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut temp = tempfile::NamedTempFile::new_in(dir).with_context(cannot)?;
    std::io::Write::write_all(&mut temp, text.as_bytes()).with_context(cannot)?;
    temp.as_file().sync_all().with_context(cannot)?;
    if let Ok(meta) = std::fs::metadata(path) {
        temp.as_file()
            .set_permissions(meta.permissions())
            .with_context(cannot)?;
    }
    temp.persist(path)
        .map_err(|e| e.error)
        .with_context(cannot)?;
    Ok(())
}

fn fmt_cmd(files: &[String], mode: FmtMode) -> anyhow::Result<()> {
    let mut entries = Vec::new();
    for name in files {
        let (path, text) = fmt_source(name, mode.write)?;
        let formatted = facedown::cards::canonical::format_source(&text).map_err(|source| {
            let e = LoadError::Parse {
                path: path.clone(),
                text: text.clone(),
                source: Box::new(source),
            };
            Diagnostic(e.render(colour_on_stderr()))
        })?;
        let canonical = formatted == text;
        let written = mode.write && !canonical;
        if written {
            replace_file(&path, &formatted)?;
        }
        match (mode.json, mode.check, mode.write) {
            (false, true, _) if !canonical => {
                println!("{} is not in canonical form", path.display());
            }
            (false, false, false) => print!("{formatted}"),
            _ => {}
        }
        entries.push(FmtEntry {
            file: path.display().to_string(),
            canonical,
            written,
        });
    }
    if mode.json {
        Doc::new("cards fmt")
            .parameters(serde_json::json!({
                "files": files, "check": mode.check, "write": mode.write,
            }))
            .print(&serde_json::json!({ "files": entries }))?;
    }
    let unformatted = entries.iter().filter(|e| !e.canonical).count();
    if !mode.check || unformatted == 0 {
        return Ok(());
    }
    Err(CheckFailed(format!(
        "{unformatted} of {} file(s) not in canonical form (run `facedown cards fmt --write`)",
        files.len()
    ))
    .into())
}

/// The command whose shards `facedown merge` combines with [`merge_simulations`].
pub const SIMULATE: &str = "cards simulate";

/// One simulation with what `cards simulate --json` prints beside the report.
#[derive(Serialize, Deserialize)]
pub(crate) struct Simulation {
    #[serde(flatten)]
    pub(crate) report: SimulationReport,
    /// Wall time of the simulation.
    wall_ms: f64,
    runs_per_second: f64,
    threads: usize,
    /// Per simulated input, runs whose output (committed: decoded; non-committed: read from
    /// the view with the exact analysis' view → output map) equals f(input).
    correct_runs: Vec<u64>,
}

/// Simulates `runs` runs of each input in `chosen` (every input when empty) with `seed`.
pub(crate) fn simulation(
    p: &Protocol,
    chosen: &[usize],
    runs: u64,
    seed: u64,
    tick: Option<&(dyn Fn(u64) + Sync)>,
) -> anyhow::Result<Simulation> {
    simulation_shard(p, chosen, (runs, seed, None), tick)
}

/// [`simulation`] of one shard's runs (all of them without a shard).
fn simulation_shard(
    p: &Protocol,
    chosen: &[usize],
    (runs, seed, shard): (u64, u64, Option<Shard>),
    tick: Option<&(dyn Fn(u64) + Sync)>,
) -> anyhow::Result<Simulation> {
    let simulator = Simulator::new(p).context("cannot simulate this protocol")?;
    let start = Instant::now();
    let report = simulator.simulate_shard(chosen, (runs, seed), shard, tick)?;
    let elapsed = start.elapsed().as_secs_f64();
    let correct_runs = report.correct_runs(p, chosen.first().copied());
    Ok(Simulation::new(
        report,
        correct_runs,
        elapsed * 1e3,
        facedown::cards::simulate::threads(),
    ))
}

impl Simulation {
    fn new(
        report: SimulationReport,
        correct_runs: Vec<u64>,
        wall_ms: f64,
        threads: usize,
    ) -> Simulation {
        Simulation {
            runs_per_second: report.total_runs as f64 / (wall_ms / 1e3).max(1e-9),
            wall_ms,
            threads,
            correct_runs,
            report,
        }
    }
}

/// Adds up the shards of one `cards simulate --shard I/K --json` run (checked by `facedown
/// merge` to be `1/K … K/K` of one run) and prints the document of the unsplit run: the
/// counts are summed and the means and errors computed from the sums
/// ([`facedown::cards::simulate::merge_reports`]); the wall time is the shards' sum.
pub fn merge_simulations(shards: &[(PathBuf, Envelope)]) -> anyhow::Result<()> {
    let parts: Vec<Simulation> = shard_results(shards, SIMULATE, |s: &Simulation| s.report.shard)?;
    let counted: Vec<(&SimulationReport, &[u64])> = parts
        .iter()
        .map(|p| (&p.report, p.correct_runs.as_slice()))
        .collect();
    let correct_runs = merge_correct_runs(&counted)?;
    let wall_ms = parts.iter().map(|p| p.wall_ms).sum();
    let threads = parts.iter().map(|p| p.threads).max().unwrap_or(1);
    let report = merge_reports(parts.into_iter().map(|p| p.report).collect())?;
    let (_, first) = &shards[0];
    Doc::new(SIMULATE)
        .seed(report.seed)
        .parameters(first.query.clone())
        .print(&Simulation::new(report, correct_runs, wall_ms, threads))
}

/// The inputs a `--input` option chooses: one, or every input when it is absent.
pub(crate) fn chosen_inputs(p: &Protocol, input: Option<&str>) -> anyhow::Result<Vec<usize>> {
    match input {
        Some(text) => {
            let values = parse_values(p, text)?;
            Ok(vec![facedown::cards::protocol::numbers::index(
                &values,
                p.moduli(),
            )])
        }
        None => Ok(Vec::new()),
    }
}

fn simulate_cmd(
    name: &str,
    (runs, seed, shard): (u64, u64, Option<Shard>),
    input: Option<&str>,
    output: OutputArgs,
) -> anyhow::Result<()> {
    let p = load_protocol(name)?;
    let chosen = chosen_inputs(&p, input)?;
    let inputs = if chosen.is_empty() {
        p.input_count()
    } else {
        1
    };
    let total = runs.checked_mul(inputs as u64).with_context(|| {
        format!("--runs {runs} × {inputs} inputs is more runs than can be counted")
    })?;
    // A shard runs about its share (whole chunks, dealt in turn).
    let total = shard.map_or(total, |s| total.div_ceil(s.count() as u64));
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
    let out = simulation_shard(&p, &chosen, (runs, seed, shard), Some(&tick))?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let report = &out.report;
    let elapsed = out.wall_ms / 1e3;
    let parameters = serde_json::json!({ "protocol": name, "runs": runs, "input": input });
    if let Some(shard) = shard {
        return print_envelope(SIMULATE, parameters, shard, Some(seed), &out);
    }
    if output.json {
        return Doc::new(SIMULATE)
            .seed(seed)
            .parameters(parameters)
            .print(&out);
    }
    let format = output.format();
    if format == Format::Csv {
        inputs_table(report, &out.correct_runs).print(format);
        return Ok(());
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
    inputs_table(report, &out.correct_runs).print(format);
    print_views("views", &report.views, &chosen, runs);
    for p in &report.players {
        let title = format!("the holder of {}'s own views", p.player);
        print_views(&title, &p.views, &chosen, runs);
    }
    Ok(())
}

/// The most frequent views of a simulation, with their frequency per simulated input.
fn print_views(title: &str, views: &[ViewCount], chosen: &[usize], runs: u64) {
    let shown = 40;
    println!("{title} ({} distinct), frequency per input:", views.len());
    let mut by_count: Vec<_> = views.iter().collect();
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
    if views.len() > shown {
        println!("  … {} more (use --json)", views.len() - shown);
    }
}

/// The per-input table of `cards simulate`.
fn inputs_table(report: &SimulationReport, correct_runs: &[u64]) -> Table {
    let first = report.inputs.first();
    if first.is_some_and(|r| r.number.is_some()) {
        return number_output_table(report, correct_runs);
    }
    match first.map(|r| r.outputs.as_slice()) {
        Some(outputs) if !outputs.is_empty() => several_outputs_table(report, correct_runs),
        _ => one_output_table(report, correct_runs),
    }
}

/// The shuffle column of the per-input table.
fn shuffles_text(r: &InputReport) -> String {
    format!(
        "{:.4} ± {:.4}, {}",
        r.shuffles_mean, r.shuffles_stderr, r.shuffles_max
    )
}

/// The per-input table of a protocol with several outputs: per output, the runs in which it
/// was right; `correct` counts the runs in which every output was.
fn several_outputs_table(report: &SimulationReport, correct_runs: &[u64]) -> Table {
    let names: Vec<String> = report.inputs[0]
        .outputs
        .iter()
        .map(|o| format!("{} right", o.name))
        .collect();
    let mut header = vec!["input", "f", "correct"];
    header.extend(names.iter().map(String::as_str));
    header.extend(["non-comm.", "other", "shuffles (mean ± s.e., max)"]);
    let last = header.len() - 1;
    let mut t = Table::new(&header).right_aligned(2..last);
    for (r, ok) in report.inputs.iter().zip(correct_runs) {
        let f: Vec<String> = r
            .outputs
            .iter()
            .map(|o| format!("{}={}", o.name, u8::from(o.expected)))
            .collect();
        let mut row = vec![r.input.clone(), f.join(" "), ok.to_string()];
        row.extend(r.outputs.iter().map(|o| o.right().to_string()));
        row.push(r.non_committed.to_string());
        row.push((r.stuck + r.gave_up + r.not_a_commitment).to_string());
        row.push(shuffles_text(r));
        t.row(row);
    }
    t
}

/// The per-input table of a protocol with a number output: how often the committed result
/// held each value, from 0 up.
fn number_output_table(report: &SimulationReport, correct_runs: &[u64]) -> Table {
    let mut t = Table::new(&[
        "input",
        "f",
        "correct",
        "result held 0, 1, …",
        "non-comm.",
        "other",
        "shuffles (mean ± s.e., max)",
    ])
    .right_aligned(2..6);
    for (r, ok) in report.inputs.iter().zip(correct_runs) {
        let Some(number) = &r.number else { continue };
        let counts: Vec<String> = number.counts.iter().map(u64::to_string).collect();
        t.row(vec![
            r.input.clone(),
            number.expected.to_string(),
            ok.to_string(),
            counts.join(" "),
            r.non_committed.to_string(),
            (r.stuck + r.gave_up + r.not_a_commitment).to_string(),
            shuffles_text(r),
        ]);
    }
    t
}

/// The per-input table of a protocol with one output.
fn one_output_table(report: &SimulationReport, correct_runs: &[u64]) -> Table {
    let mut inputs = Table::new(&[
        "input",
        "f",
        "correct",
        "out 0",
        "out 1",
        "non-comm.",
        "other",
        "shuffles (mean ± s.e., max)",
    ])
    .right_aligned(2..7);
    for (r, ok) in report.inputs.iter().zip(correct_runs) {
        inputs.row(vec![
            r.input.clone(),
            u8::from(r.expected_output).to_string(),
            ok.to_string(),
            r.output_0.to_string(),
            r.output_1.to_string(),
            r.non_committed.to_string(),
            (r.stuck + r.gave_up + r.not_a_commitment).to_string(),
            shuffles_text(r),
        ]);
    }
    inputs
}

fn trace_cmd(name: &str, input: &str, seed: u64, json: bool) -> anyhow::Result<()> {
    let p = load_protocol(name)?;
    let values = parse_values(&p, input)?;
    let t = trace::trace_values(&p, &values, seed).context("cannot trace")?;
    if json {
        return Doc::new("cards trace")
            .seed(seed)
            .parameters(serde_json::json!({ "protocol": name, "input": input }))
            .print(&t);
    }
    print!("{}", t.render(colour_on_stdout()));
    Ok(())
}

/// One protocol of the headline report.
#[derive(Serialize)]
pub struct HeadlineRow {
    #[serde(flatten)]
    analysis: Analysis,
    claim_matches: bool,
    claim_mismatches: Vec<String>,
    /// Wall time of the fastest of `HEADLINE_RUNS` analyses.
    wall_ms: f64,
    /// CPU time of the thread, for the least of `HEADLINE_RUNS` analyses.
    cpu_ms: f64,
}

fn claim_mismatches(b: &Builtin, a: &Analysis) -> Vec<String> {
    b.claim().check(a).iter().map(ToString::to_string).collect()
}

/// How many times the headline analyses each protocol; the least time is reported. Right
/// after the other protocols, the first analyses of one run slower while the allocator's heap
/// settles: on the 2-core VM of `docs/cost.md` the private cuts took about 160 µs in each of
/// their first dozen analyses and 110–115 µs from then on (as in a search or a study, which
/// analyse one protocol after another), and with mimalloc's arenas committed eagerly
/// (`MIMALLOC_ARENA_EAGER_COMMIT=1`) already in the first five.
const HEADLINE_RUNS: usize = 20;

/// Analyzes every built-in protocol; the fastest of `HEADLINE_RUNS` is the time reported.
pub fn headline_rows() -> anyhow::Result<Vec<HeadlineRow>> {
    builtins()
        .iter()
        .map(|b| {
            let p = load(b.name)?;
            let (mut best, mut best_cpu) = (Duration::MAX, Duration::MAX);
            let mut analysis = None;
            for _ in 0..HEADLINE_RUNS {
                let (start, cpu) = (Instant::now(), ThreadTime::now());
                let a = analyze(&p).with_context(|| format!("cannot analyze {}", b.name))?;
                best_cpu = best_cpu.min(cpu.elapsed());
                best = best.min(start.elapsed());
                analysis = Some(a);
            }
            let analysis = analysis.context("no analysis")?;
            let mismatches = claim_mismatches(b, &analysis);
            Ok(HeadlineRow {
                claim_matches: mismatches.is_empty(),
                claim_mismatches: mismatches,
                wall_ms: ms(best),
                cpu_ms: ms(best_cpu),
                analysis,
            })
        })
        .collect()
}

/// The leak column: the TV distance, and the bits the view reveals beyond the output; in the
/// private model, the worst player's (largest TV distance) on his own view.
fn leak_text(a: &Analysis) -> String {
    let worst = a
        .players
        .iter()
        .max_by(|x, y| x.tv_distance.cmp(&y.tv_distance));
    let (tv, bits) = match worst {
        Some(p) => (&p.tv_distance, p.leak_bits),
        None => (&a.tv_distance, a.leak_beyond_output_bits),
    };
    match (tv, bits) {
        (Some(tv), _) if tv.to_string() == "0" => "0".to_owned(),
        (Some(tv), Some(mi)) => format!("{tv} / {mi:.4}"),
        (Some(tv), None) => tv.to_string(),
        (None, _) => EMPTY.to_owned(),
    }
}

fn headline_table(rows: &[HeadlineRow]) -> Table {
    let mut t = Table::new(&[
        "protocol",
        "cards",
        "function",
        "correct",
        "security",
        "runtime",
        "E[shuf]",
        "max",
        "leak (TV / I(X;V|f) bits)",
        "claim",
        "cpu_us",
        "wall_us",
    ])
    .right_aligned([1, 6, 7, 10, 11]);
    for r in rows {
        let a = &r.analysis;
        t.row(vec![
            a.name.clone(),
            a.cards.to_string(),
            a.function.to_string(),
            if a.correct { "yes" } else { "NO" }.to_owned(),
            a.security.as_str().to_owned(),
            a.runtime.as_str().to_owned(),
            a.expected_shuffles
                .as_ref()
                .map_or(EMPTY.to_owned(), ToString::to_string),
            a.max_shuffles.map_or("∞".to_owned(), |m| m.to_string()),
            leak_text(a),
            if r.claim_matches { "✓" } else { "✗" }.to_owned(),
            format!("{:.1}", r.cpu_ms * 1e3),
            format!("{:.1}", r.wall_ms * 1e3),
        ]);
    }
    t
}

/// Prints the protocol table of the headline report (the title and notes in text and
/// Markdown only, so that the CSV is one table).
pub fn print_headline(rows: &[HeadlineRow], format: Format) {
    if format == Format::Csv {
        headline_table(rows).print(format);
        return;
    }
    println!(
        "Card-based protocols: exact analysis of every built-in (KWH state tree, exact rationals)"
    );
    println!();
    headline_table(rows).print(format);
    for r in rows {
        for m in &r.claim_mismatches {
            println!("✗ {}: {m}", r.analysis.name);
        }
    }
    println!();
    println!("claim: the verdict the paper (or, for variants, a hand check) states; ✓ = the analyzer agrees.");
    println!("leak: largest TV distance between views of inputs that must look alike, and what the view reveals beyond the output (private model: the worst player's own view, beyond his input too).");
    println!(
        "cpu_us, wall_us: thread CPU and wall time of the least of {HEADLINE_RUNS} analyses, in µs."
    );
}
