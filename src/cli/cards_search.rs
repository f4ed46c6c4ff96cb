//! `facedown cards search`: find the shortest card protocols for a function, or show that none
//! exists within a bound (see `facedown_cards::search` for the model and its guarantees).

use std::io::IsTerminal;

use clap::ValueEnum;
use facedown::cards::search::{
    parse_deck, parse_function, search_with_progress, SearchOutcome, SearchQuery, SearchRuntime,
    SearchSecurity, SearchStatus, Shard, ShuffleClass,
};
use facedown_core::Symbol;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use super::merge::Envelope;
use super::table::{Format, OutputArgs, Table};
use super::Inconclusive;

/// The command name shard envelopes carry.
pub const COMMAND: &str = "cards search";

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
    /// `and`, `or`, `xor`, `nand`, `nor`, `xnor`, `copy`, or a truth table (`0001`; eight
    /// entries for three inputs, e.g. `01101001`).
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
    /// Most memory the search's tables may hold (`512M`, `4G`, `1.5GiB`, bytes); the default is
    /// half the machine's physical memory. Past it the search stops with a partial report and
    /// exit status 3.
    #[arg(long, value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Search only shard I of K of the top-level actions (finite runtime); combine the K JSON
    /// outputs with `facedown merge`.
    #[arg(long)]
    pub shard: Option<Shard>,
    /// Print JSON (with `--shard`: a shard envelope for `facedown merge`).
    #[arg(long)]
    pub json: bool,
    /// Print work per depth (states explored, memo hits, wall time) as a table.
    #[arg(long)]
    pub stats: bool,
    /// Print only the `--stats` table, as CSV.
    #[arg(long, requires = "stats", conflicts_with_all = ["json", "markdown"])]
    pub csv: bool,
    /// Print the `--stats` table as Markdown.
    #[arg(long, requires = "stats", conflicts_with = "json")]
    pub markdown: bool,
}

/// How `--stats`, `--csv` and `--markdown` ask for the per-depth table: `None` for no table.
pub fn stats_format(stats: bool, csv: bool, markdown: bool) -> Option<Format> {
    stats.then(|| {
        OutputArgs {
            json: false,
            csv,
            markdown,
        }
        .format()
    })
}

/// What identifies a search: every option that changes its answer (not the memory budget, the
/// shard or the output format). Shards of one search carry equal specs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuerySpec {
    /// The deck, written as `♣♥…` or as space-separated card numbers.
    pub deck: String,
    /// The function as given.
    pub function: String,
    /// The bound.
    pub max_steps: usize,
    /// Runtime class.
    pub runtime: SearchRuntime,
    /// Security notion.
    pub security: SearchSecurity,
    /// Shuffle class.
    pub shuffles: ShuffleClass,
    /// Committed output.
    pub committed: bool,
    /// Copies (for `copy`).
    pub copies: usize,
    /// Largest non-group support.
    pub max_support: usize,
    /// One card per turn.
    pub single_card_turns: bool,
    /// First protocol only.
    pub first: bool,
}

fn deck_text(deck: &[Symbol]) -> String {
    if deck.iter().all(|s| matches!(s, Symbol::Card(_))) {
        let cards: Vec<String> = deck
            .iter()
            .map(|s| match s {
                Symbol::Card(n) => n.to_string(),
                other => other.to_string(),
            })
            .collect();
        cards.join(" ")
    } else {
        deck.iter().map(ToString::to_string).collect()
    }
}

impl QuerySpec {
    fn from_args(args: &SearchArgs) -> anyhow::Result<QuerySpec> {
        Ok(QuerySpec {
            deck: deck_text(&parse_deck(&args.deck)?),
            function: args.function.clone(),
            max_steps: args.max_steps,
            runtime: match args.runtime {
                RuntimeArg::Finite => SearchRuntime::Finite,
                RuntimeArg::LasVegas => SearchRuntime::LasVegas,
            },
            security: match args.security {
                SecurityArg::Perfect => SearchSecurity::Perfect,
                SecurityArg::InputPossibilistic => SearchSecurity::InputPossibilistic,
                SecurityArg::OutputPossibilistic => SearchSecurity::OutputPossibilistic,
            },
            shuffles: match args.shuffles {
                ShufflesArg::Any => ShuffleClass::Any,
                ShufflesArg::Uniform => ShuffleClass::Uniform,
                ShufflesArg::Closed => ShuffleClass::Closed,
                ShufflesArg::UniformClosed => ShuffleClass::UniformClosed,
                ShufflesArg::RandomCuts => ShuffleClass::RandomCuts,
                ShufflesArg::Cuts => ShuffleClass::Cuts,
            },
            committed: args.committed,
            copies: args.copies,
            max_support: args.max_support,
            single_card_turns: args.single_card_turns,
            first: args.first,
        })
    }

    /// The library query this spec describes (no memory bound, no shard).
    pub fn to_query(&self) -> anyhow::Result<SearchQuery> {
        let mut q = SearchQuery::new(
            parse_deck(&self.deck)?,
            parse_function(&self.function)?,
            self.max_steps,
        );
        q.runtime = self.runtime;
        q.security = self.security;
        q.shuffles = self.shuffles;
        q.committed = self.committed;
        q.copies = self.copies;
        q.max_support = self.max_support;
        q.first = self.first;
        q.single_card_turns = self.single_card_turns;
        Ok(q)
    }
}

/// Parses a size: bytes, or a number with `K`, `M`, `G`, `T` (powers of 1024, optionally written
/// `KiB`…) or `KB`, `MB`, `GB`, `TB` (powers of 1000). (A dozen lines; no crate needed.)
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (e.g. 512M, 4G, 1.5GiB)"))?;
    let scale: f64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1.0,
        "K" | "KIB" => 1024.0,
        "M" | "MIB" => 1024f64.powi(2),
        "G" | "GIB" => 1024f64.powi(3),
        "T" | "TIB" => 1024f64.powi(4),
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        other => return Err(format!("unknown size unit `{other}` in `{text}`")),
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(format!("`{text}` is not a size between 1 byte and 16 EiB"));
    }
    Ok(bytes as u64)
}

/// Half of the machine's physical memory (`MemTotal` of `/proc/meminfo`), or 4 GiB where that
/// cannot be read.
pub fn default_memory_budget() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
        });
    total_kib.map_or(4 << 30, |kib| kib.saturating_mul(1024) / 2)
}

/// The JSON of an unsharded search (and of a merge): the spec and the outcome side by side.
#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    spec: &'a QuerySpec,
    #[serde(flatten)]
    outcome: &'a SearchOutcome,
}

/// Runs `facedown cards search`.
pub fn run(args: SearchArgs) -> anyhow::Result<()> {
    let spec = QuerySpec::from_args(&args)?;
    let mut q = spec.to_query()?;
    q.max_memory = Some(args.max_memory.unwrap_or_else(default_memory_budget));
    q.shard = args.shard;

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
    match (args.shard, args.json) {
        (Some(shard), true) => {
            let envelope = Envelope::new(
                COMMAND,
                serde_json::to_value(&spec)?,
                shard,
                None,
                serde_json::to_value(&outcome)?,
            );
            println!("{}", serde_json::to_string_pretty(&envelope)?);
        }
        _ => print_outcome(
            &spec,
            &outcome,
            args.json,
            stats_format(args.stats, args.csv, args.markdown),
        )?,
    }
    if outcome.status == SearchStatus::Stopped {
        return Err(Inconclusive(format!(
            "the search stopped at its memory budget before deciding --max-steps {}",
            spec.max_steps
        ))
        .into());
    }
    Ok(())
}

/// Prints an outcome as `cards search` does (also used for merged shards), with the per-depth
/// table in `stats` (as CSV, nothing else is printed).
pub fn print_outcome(
    spec: &QuerySpec,
    outcome: &SearchOutcome,
    json: bool,
    stats: Option<Format>,
) -> anyhow::Result<()> {
    if json {
        return print_json(spec, &Report { spec, outcome });
    }
    if stats == Some(Format::Csv) {
        depth_table(outcome).print(Format::Csv);
        return Ok(());
    }
    let las_vegas = spec.runtime == SearchRuntime::LasVegas;
    let unit = if las_vegas { "within radius" } else { "of" };
    if let Some(shard) = outcome.shard {
        println!(
            "# shard {shard}: {} of {} top-level actions",
            outcome.shard_tasks, outcome.top_level_actions
        );
    }
    match (outcome.status, outcome.length) {
        (SearchStatus::Found, Some(len)) => {
            println!(
                "# {} protocol(s) {unit} {len} step(s) (the shortest), each re-checked by the exact \
                 analyzer",
                outcome.protocols.len(),
            );
            print_protocols(outcome);
        }
        (SearchStatus::Exhausted, _) => println!(
            "# no protocol of any length exists for this query: all {} reachable states that \
             are not final were expanded",
            outcome.states_explored
        ),
        (SearchStatus::Stopped, _) => {}
        _ if las_vegas => println!(
            "# no protocol within radius {} exists for this query",
            spec.max_steps
        ),
        _ => println!(
            "# no protocol of at most {} step(s) exists for this query",
            spec.max_steps
        ),
    }
    if let Some(stop) = &outcome.stop {
        print_stop(stop, outcome.status, las_vegas);
    }
    println!(
        "# {} states explored, {} memo hits, {} top-level actions, {} shuffles in the class, \
         {:.3} s, {} bytes of tables at the peak",
        outcome.states_explored,
        outcome.memo_hits,
        outcome.top_level_actions,
        outcome.shuffle_count,
        outcome.seconds,
        outcome.memory.peak_bytes,
    );
    for s in &outcome.merged_from {
        println!(
            "# shard {}: {:?}, {} states, {:.3} s, peak {} bytes",
            s.shard, s.status, s.states_explored, s.seconds, s.peak_bytes
        );
    }
    match stats {
        Some(Format::Text) => {
            // Comment lines, so that the output stays a `.cards` text.
            for line in depth_table(outcome).render(Format::Text).lines() {
                println!("# {line}");
            }
        }
        Some(format) => {
            println!();
            depth_table(outcome).print(format);
        }
        None => {}
    }
    Ok(())
}

/// The work per depth: states explored, memo hits and wall time.
fn depth_table(outcome: &SearchOutcome) -> Table {
    let mut t =
        Table::new(&["depth", "states", "memo_hits", "wall_ms"]).right_aligned([0, 1, 2, 3]);
    for d in &outcome.per_depth {
        t.row(vec![
            d.depth.to_string(),
            d.states_explored.to_string(),
            d.memo_hits.to_string(),
            format!("{:.3}", d.seconds * 1e3),
        ]);
    }
    t
}

fn print_protocols(outcome: &SearchOutcome) {
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

fn print_stop(stop: &facedown::cards::search::StopReport, status: SearchStatus, las_vegas: bool) {
    let bound = if las_vegas { "radius" } else { "length" };
    if status == SearchStatus::Found {
        println!(
            "# stopped: {}; the {bound} is the shortest, but {} top-level action(s) at it were \
             not decided, so more protocols may exist",
            stop.reason,
            stop.open_top_level_actions.len()
        );
        return;
    }
    println!("# stopped (inconclusive): {}", stop.reason);
    println!(
        "# every protocol of {bound} ≤ {} is ruled out; {} {}..={} {} open",
        stop.last_completed,
        if las_vegas { "radii" } else { "lengths" },
        stop.in_progress,
        stop.max_steps,
        if stop.in_progress == stop.max_steps {
            "is"
        } else {
            "are"
        },
    );
    if let (Some(open), Some(nodes)) = (stop.open_states, stop.graph_nodes) {
        println!(
            "# radius {}: {open} states at that distance not expanded, {nodes} states in the graph",
            stop.in_progress
        );
    } else {
        println!(
            "# length {}: {} top-level action(s) decided (none starts a protocol of that length), \
             {} open",
            stop.in_progress,
            stop.decided_top_level_actions.len(),
            stop.open_top_level_actions.len()
        );
        for a in stop.open_top_level_actions.iter().take(20) {
            println!("#   open: [{}] {}", a.index, a.action);
        }
    }
}

/// The search's JSON document: the common fields, and `seconds` written as `wall_ms`, the
/// one name of a wall time in every document.
fn print_json(spec: &QuerySpec, report: &Report<'_>) -> anyhow::Result<()> {
    let mut body = serde_json::to_value(report)?;
    let to_ms = |v: &mut serde_json::Value| {
        if let Some(obj) = v.as_object_mut() {
            if let Some(secs) = obj.remove("seconds").and_then(|s| s.as_f64()) {
                obj.insert("wall_ms".into(), (secs * 1e3).into());
            }
        }
    };
    to_ms(&mut body);
    for list in ["per_depth", "merged_from"] {
        if let Some(items) = body.get_mut(list).and_then(|d| d.as_array_mut()) {
            items.iter_mut().for_each(to_ms);
        }
    }
    super::output::Doc::new("cards search")
        .parameters(serde_json::to_value(spec)?)
        .print(&body)
}
