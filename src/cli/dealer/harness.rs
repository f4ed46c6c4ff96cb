//! `facedown dealer leakage|collusion|cheat`: the harnesses of `facedown-leakage`, each with
//! only the options that apply to it, printed through the one table writer.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Context;
use facedown::cards::search::{Shard, Trials};
use facedown_dealer::Scheme;
use facedown_leakage::collusion::{self, Method, Row, SweepPoint};
use facedown_leakage::montecarlo::{self, McRow};
use facedown_leakage::position::PositionRow;
use facedown_leakage::strategy::{Redeal, Strategy, StrategyRow};
use facedown_leakage::{cheat as cheating, plot, Schedule};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::SchemeArg;
use crate::cli::merge::{print_envelope, shard_results, Envelope};
use crate::cli::output::{ms, Doc};
use crate::cli::table::{Format, OutputArgs, Table};

/// The scheme a harness measures.
#[derive(Debug, clap::Args)]
pub struct SchemeArgs {
    /// Number of players N (≥ 3).
    #[arg(long, default_value_t = 3)]
    pub players: usize,
    /// Deck size n.
    #[arg(long, default_value_t = 6)]
    pub cards: usize,
    /// Which scheme.
    #[arg(long, value_enum, default_value_t = SchemeArg::General)]
    pub scheme: SchemeArg,
}

/// Arguments of `facedown dealer leakage`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: facedown dealer leakage --players 3 --cards 8 --plot leakage.svg")]
pub struct LeakageArgs {
    /// The scheme.
    #[command(flatten)]
    pub scheme: SchemeArgs,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Write a plot of leakage against the number of openings: SVG if the file name ends in
    /// `.svg`, PNG otherwise.
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<std::path::PathBuf>,
    /// Sweep the openings of a schedule file, in order, instead of the standard sweep.
    #[arg(long, value_name = "FILE")]
    pub schedule: Option<std::path::PathBuf>,
}

/// Arguments of `facedown dealer collusion`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  facedown dealer collusion --players 3 --cards 6 --markdown\n  facedown dealer collusion --players 3 --cards 12 --hand 3 --public 0 --samples 1000 --seed 7"
)]
pub struct CollusionArgs {
    /// The scheme.
    #[command(flatten)]
    pub scheme: SchemeArgs,
    /// Cards per hand; with --public, one schedule instead of the three default ones
    /// (public: n − 1 public cards; private: hands of ⌊n/N⌋; mixed: hands of ⌊(n−1)/N⌋ + 1 public).
    #[arg(long)]
    pub hand: Option<usize>,
    /// Public cards (see --hand).
    #[arg(long)]
    pub public: Option<usize>,
    /// A schedule file (phases of private, public and showdown openings) instead of --hand
    /// and --public.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["hand", "public"])]
    pub schedule: Option<std::path::PathBuf>,
    /// Exact computation only (the default; exact for n ≤ 8, the closed form beyond).
    #[arg(long, conflicts_with = "samples")]
    pub exact: bool,
    /// Also attack this many real seeded games and report Monte-Carlo rates with Wilson
    /// intervals.
    #[arg(long)]
    pub samples: Option<u64>,
    /// Seed of the Monte-Carlo games (game t uses stream t of this seed).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Play only shard I of K of the Monte-Carlo games (game t when t mod K = I − 1) and print
    /// a shard envelope; `facedown merge --json` adds the K shards up.
    #[arg(long, requires_all = ["samples", "json"])]
    pub shard: Option<Shard>,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// A strategy of `facedown dealer cheat --strategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyArg {
    /// The last player announces a card of his choice as the last public card.
    ChosenRiver,
    /// The last player aborts a bad flop and the deal is dealt again.
    SelectiveAbort,
}

/// The re-deal model of `--strategy selective-abort`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RedealArg {
    /// A fresh deal: every player draws new permutations.
    Again,
    /// The aborter is excluded and loses the hand.
    Forfeit,
    /// The same committed permutations are dealt again.
    Resume,
    /// Every model, one row each.
    All,
}

impl RedealArg {
    fn models(self) -> Vec<Redeal> {
        match self {
            RedealArg::Again => vec![Redeal::Again],
            RedealArg::Forfeit => vec![Redeal::Forfeit],
            RedealArg::Resume => vec![Redeal::Resume],
            RedealArg::All => Redeal::ALL.to_vec(),
        }
    }
}

/// Arguments of `facedown dealer cheat`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  facedown dealer cheat --players 3 --cards 6 --samples 200 --seed 1\n  facedown dealer cheat --scheme published --cards 8 --coalition 2+3 --forge 1:7 --samples 50\n  facedown dealer cheat --cards 52 --hand 2 --public 5 --strategy chosen-river --card 51\n  facedown dealer cheat --cards 52 --hand 2 --public 3 --strategy selective-abort --flop 3 --redeals 2 --redeal all\n  facedown dealer cheat --cards 12 --hand 1 --public 2 --strategy chosen-river --card 11 --sweep-position --samples 20"
)]
pub struct CheatArgs {
    /// A coalition that cheats together (`2+3`); with --forge.
    #[arg(long, value_name = "P+Q", requires = "forge")]
    pub coalition: Option<String>,
    /// The coalition's strategy: force TARGET's first private card to CARD, the value
    /// computed from the coalition's permutations (e.g. C3⁻¹(CARD)).
    #[arg(long, value_name = "TARGET:CARD", requires = "coalition")]
    pub forge: Option<String>,
    /// A strategy of the last player against the honest baseline: `chosen-river` (announce
    /// --card as the last public card) or `selective-abort` (abort while the first --flop
    /// public cards do not pair his hand, up to --redeals re-deals).
    #[arg(long, value_enum, conflicts_with = "coalition")]
    pub strategy: Option<StrategyArg>,
    /// The card of `--strategy chosen-river`.
    #[arg(long, requires = "strategy")]
    pub card: Option<u16>,
    /// Public cards that make the flop of `--strategy selective-abort`.
    #[arg(long, requires = "strategy")]
    pub flop: Option<usize>,
    /// Re-deals after an abort in `--strategy selective-abort`.
    #[arg(long, requires = "strategy")]
    pub redeals: Option<u64>,
    /// What an abort leads to in `--strategy selective-abort`: `again` (a fresh deal),
    /// `forfeit` (the aborter loses the hand), `resume` (the same committed deal again), or
    /// `all` (one row each).
    #[arg(long, value_enum, requires = "strategy")]
    pub redeal: Option<RedealArg>,
    /// Run the strategy at every value message of every player instead of the one it is
    /// built for: at which messages it reaches its goal, is visible, and who is named.
    #[arg(long, requires = "strategy")]
    pub sweep_position: bool,
    /// The scheme.
    #[command(flatten)]
    pub scheme: SchemeArgs,
    /// Cards per hand.
    #[arg(long, default_value_t = 1)]
    pub hand: usize,
    /// Public cards.
    #[arg(long, default_value_t = 1)]
    pub public: usize,
    /// A schedule file (phases of private, public and showdown openings) instead of --hand
    /// and --public.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["hand", "public"])]
    pub schedule: Option<std::path::PathBuf>,
    /// Seeded games per deviation.
    #[arg(long, default_value_t = 100)]
    pub samples: u64,
    /// Seed of the games (game t uses stream t of this seed).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Play only shard I of K of the games (game t when t mod K = I − 1) of the deviation
    /// table, a forgery, a strategy or each message of a sweep, and print a shard envelope;
    /// `facedown merge --json` adds the K shards up.
    #[arg(long, requires = "json")]
    pub shard: Option<Shard>,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

fn scheme(a: &SchemeArgs) -> anyhow::Result<Scheme> {
    Ok(match a.scheme {
        SchemeArg::General => Scheme::general(a.players, a.cards)?,
        SchemeArg::Published => {
            if a.players != 3 {
                anyhow::bail!("the published scheme is for exactly three players (--players 3)");
            }
            Scheme::published(a.cards)?
        }
    })
}

fn scheme_json(a: &SchemeArgs) -> serde_json::Value {
    json!({
        "players": a.players,
        "cards": a.cards,
        "scheme": match a.scheme { SchemeArg::General => "general", SchemeArg::Published => "published" },
    })
}

/// The parameters of a harness over deals: the scheme, the hand and public sizes, the samples.
fn deal_json(
    a: &SchemeArgs,
    hand: impl Serialize,
    public: impl Serialize,
    samples: impl Serialize,
) -> serde_json::Value {
    let mut params = scheme_json(a);
    params["hand"] = json!(hand);
    params["public"] = json!(public);
    params["samples"] = json!(samples);
    params
}

/// The schedule file at `path`, checked against `s`, for the harnesses.
fn file_schedule(path: &std::path::Path, s: &Scheme) -> anyhow::Result<Schedule> {
    let file = super::read_schedule(path, s)?;
    Ok(Schedule::from_file(s, &file, &path.display().to_string())?)
}

/// The schedule of `cheat`: the file if given, else hands and public cards.
fn cheat_schedule(a: &CheatArgs, s: &Scheme) -> anyhow::Result<Schedule> {
    match &a.schedule {
        Some(path) => file_schedule(path, s),
        None => Ok(Schedule::new(s, a.hand, a.public).context("schedule")?),
    }
}

/// The `parameters` of a harness over deals, with the schedule file if one was given.
fn harness_json(
    a: &SchemeArgs,
    hand: impl Serialize,
    public: impl Serialize,
    samples: impl Serialize,
    schedule: Option<&std::path::PathBuf>,
) -> serde_json::Value {
    let mut params = deal_json(a, hand, public, samples);
    params["schedule"] = json!(schedule.map(|p| p.display().to_string()));
    params
}

fn schedules(a: &CollusionArgs, s: &Scheme) -> anyhow::Result<Vec<Schedule>> {
    if let Some(path) = &a.schedule {
        return Ok(vec![file_schedule(path, s)?]);
    }
    let n = s.cards;
    let list: Vec<(usize, usize)> = match (a.hand, a.public) {
        (None, None) => vec![(0, n - 1), (n / s.players, 0), ((n - 1) / s.players, 1)],
        (h, p) => vec![(h.unwrap_or(0), p.unwrap_or(0))],
    };
    let mut out: Vec<Schedule> = Vec::new();
    for (h, p) in list {
        let sch = Schedule::new(s, h, p).context("schedule")?;
        if !out
            .iter()
            .any(|o| o.hand == sch.hand && o.public == sch.public)
        {
            out.push(sch);
        }
    }
    Ok(out)
}

fn progress(len: u64, what: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = indicatif::ProgressBar::new(len);
    pb.set_message(what.to_string());
    if let Ok(style) = indicatif::ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} ({eta})")
    {
        pb.set_style(style);
    }
    Some(pb)
}

fn scheme_name(s: &Scheme) -> &'static str {
    match s.variant {
        facedown_dealer::Variant::General => "general",
        facedown_dealer::Variant::Published => "published",
    }
}

/// The method's name in every output: lowercase, as every enum value the CLI prints.
fn method_name(m: Method) -> &'static str {
    match m {
        Method::Exact => "exact",
        Method::BruteForce => "brute-force",
        Method::ClosedForm => "closed-form",
    }
}

fn coalition_text(c: &[u16]) -> String {
    c.iter().map(u16::to_string).collect::<Vec<_>>().join("+")
}

fn interval(x: (f64, f64), digits: usize) -> String {
    format!("[{:.digits$}, {:.digits$}]", x.0, x.1)
}

/// The collusion table: every column of a row in CSV, the readable ones in text and Markdown.
/// The largest per-card marginal of a row (0 when it has none).
fn max_marginal(r: &Row) -> f64 {
    r.marginal.iter().map(|m| m.excess_bits).fold(0.0, f64::max)
}

fn collusion_table(rows: &[Row], format: Format) -> Table {
    if format == Format::Csv {
        let mut t = Table::new(&[
            "scheme",
            "players",
            "cards",
            "hand",
            "public",
            "coalition",
            "target",
            "excess_bits",
            "excess_is_zero",
            "determined",
            "hidden",
            "determined_fraction",
            "guess_probability",
            "ideal_guess_probability",
            "attack",
            "method",
            "max_marginal_bits",
            "marginal_bits",
            "audit_reveals_bits",
        ]);
        for r in rows {
            t.row(vec![
                r.scheme.clone(),
                r.players.to_string(),
                r.cards.to_string(),
                r.hand.to_string(),
                r.public.to_string(),
                coalition_text(&r.coalition),
                r.target.clone(),
                format!("{:.6}", r.excess_bits),
                r.excess_is_zero.to_string(),
                r.determined.to_string(),
                r.hidden.to_string(),
                r.determined_fraction
                    .map_or(String::new(), |f| format!("{f:.6}")),
                r.measure.guess_probability.clone(),
                r.measure.ideal_guess_probability.clone(),
                r.attack.clone(),
                method_name(r.method).to_owned(),
                format!("{:.6}", max_marginal(r)),
                r.marginal
                    .iter()
                    .map(|m| format!("{}:{:.6}", m.position, m.excess_bits))
                    .collect::<Vec<_>>()
                    .join(" "),
                format!("{:.6}", r.audit_reveals_bits),
            ]);
        }
        return t;
    }
    let mut t = Table::new(&[
        "coalition",
        "target",
        "excess bits",
        "exactly 0",
        "hidden cards determined",
        "max marginal bits",
        "audit reveals bits",
        "attack",
    ])
    .right_aligned([2, 4, 5, 6]);
    for r in rows {
        t.row(vec![
            coalition_text(&r.coalition),
            r.target.clone(),
            format!("{:.4}", r.excess_bits),
            if r.excess_is_zero { "yes" } else { "no" }.to_owned(),
            match r.determined_fraction {
                Some(f) => format!("{}/{} ({f:.3})", r.determined, r.hidden),
                None => "none hidden".into(),
            },
            format!("{:.4}", max_marginal(r)),
            format!("{:.4}", r.audit_reveals_bits),
            if r.attack.is_empty() {
                "—".to_owned()
            } else {
                r.attack.clone()
            },
        ]);
    }
    t
}

fn montecarlo_table(rows: &[McRow]) -> Table {
    let mut t = Table::new(&[
        "coalition",
        "target",
        "hidden",
        "recovered (mean)",
        "all recovered",
        "99.9 % Wilson",
        "best guess right",
        "99.9 % Wilson",
        "wrong",
    ])
    .right_aligned([2, 3, 4, 6, 8]);
    for r in rows {
        t.row(vec![
            coalition_text(&r.coalition),
            r.target.clone(),
            r.hidden.to_string(),
            format!("{:.3}", r.recovered_fraction),
            format!("{}/{}", r.all_recovered, r.trials),
            interval(r.all_recovered_interval, 4),
            format!("{}/{}", r.guessed, r.trials),
            interval(r.guessed_interval, 4),
            r.wrong_cards.to_string(),
        ]);
    }
    t
}

fn cheat_csv(rows: &[cheating::CheatRow]) -> Table {
    let mut t = Table::new(&[
        "player",
        "deviation",
        "trials",
        "steered",
        "aborted",
        "detected",
        "detected_lo",
        "detected_hi",
        "named",
        "named_lo",
        "named_hi",
        "framed",
        "no_such_message",
    ]);
    for r in rows {
        t.row(vec![
            r.player.to_string(),
            r.deviation.clone(),
            r.trials.to_string(),
            r.steered.to_string(),
            r.aborted.to_string(),
            r.detected.to_string(),
            format!("{:.4}", r.detected_interval.0),
            format!("{:.4}", r.detected_interval.1),
            r.named.to_string(),
            format!("{:.4}", r.named_interval.0),
            format!("{:.4}", r.named_interval.1),
            r.framed.to_string(),
            r.no_such_message.to_string(),
        ]);
    }
    t
}

fn cheat_table(rows: &[cheating::CheatRow], format: Format) -> Table {
    if format == Format::Csv {
        return cheat_csv(rows);
    }
    let mut t = Table::new(&[
        "player",
        "deviation",
        "models",
        "steered",
        "aborted",
        "detected",
        "named",
        "named 99.9 % Wilson",
        "framed",
        "first finding",
    ])
    .right_aligned([0, 3, 4, 5, 6, 8]);
    for r in rows {
        let first: Vec<String> = r
            .first_findings
            .iter()
            .map(|(k, n)| format!("{k} ×{n}"))
            .collect();
        let models = match r.favourable {
            Some((f, c)) => format!(
                "{} (public card in the upper half in {f} of {c} completed games)",
                r.models
            ),
            None => r.models.clone(),
        };
        let models = if r.no_such_message > 0 {
            format!(
                "{models} — NO SUCH MESSAGE in {} of {} games (he sends fewer; those games are honest)",
                r.no_such_message, r.trials
            )
        } else {
            models
        };
        t.row(vec![
            r.player.to_string(),
            r.deviation.clone(),
            models,
            format!("{}/{}", r.steered, r.trials),
            r.aborted.to_string(),
            format!("{}/{}", r.detected, r.trials),
            format!("{}/{}", r.named, r.trials),
            interval(r.named_interval, 3),
            r.framed.to_string(),
            if first.is_empty() {
                "—".into()
            } else {
                first.join(", ")
            },
        ]);
    }
    t
}

/// A heading in text and Markdown; nothing in CSV, which is one table.
fn heading(format: Format, text: &str) {
    match format {
        Format::Csv => {}
        Format::Markdown => println!("## {text}\n"),
        Format::Text => println!("{text}\n"),
    }
}

fn wall_time(format: Format, wall: std::time::Duration) {
    if format != Format::Csv {
        println!("\nwall time: {:.1} ms", ms(wall));
    }
}

/// The command whose shards `facedown merge` combines with [`merge_collusion`].
pub const COLLUSION: &str = "dealer collusion";

/// The command whose shards `facedown merge` combines with [`merge_cheat`].
pub const CHEAT: &str = "dealer cheat";

/// The command whose shards `facedown merge` combines with [`merge_session`].
pub const SESSION: &str = "dealer session";

/// Adds up the shards of one `dealer session --samples N --shard I/K --json` run (checked by
/// `facedown merge` to be `1/K … K/K` of one run) into the document of the unsplit run
/// ([`facedown_leakage::session::merge_readings`]).
pub fn merge_session(shards: &[(PathBuf, Envelope)]) -> anyhow::Result<()> {
    let bodies = harness_shards(shards, SESSION)?;
    let samples: u64 = serde_json::from_value(shards[0].1.query["samples"].clone())
        .context("the shards' query has no samples")?;
    let parts = shard_field(&bodies, "/deals")?;
    let deals = facedown_leakage::session::merge_readings(parts, samples)?;
    print_merged(SESSION, shards, &bodies, vec![("deals", json!(deals))])
}

/// Prints a harness's JSON: its document, or with a shard the envelope of the same body with
/// the shard in it.
fn print_harness(
    command: &str,
    (params, seed, shard): (Value, u64, Option<Shard>),
    mut body: Value,
) -> anyhow::Result<()> {
    match shard {
        Some(shard) => {
            body["shard"] = json!(shard);
            print_envelope(command, params, shard, Some(seed), &body)
        }
        None => Doc::new(command).seed(seed).parameters(params).print(&body),
    }
}

/// The bodies of a harness's shards, each with its shard, in shard order.
fn harness_shards(
    shards: &[(PathBuf, Envelope)],
    command: &str,
) -> anyhow::Result<Vec<(Shard, Value)>> {
    let shard_of = |v: &Value| serde_json::from_value::<Shard>(v["shard"].clone()).ok();
    let bodies: Vec<Value> = shard_results(shards, command, shard_of)?;
    Ok(bodies
        .into_iter()
        .filter_map(|b| Some((shard_of(&b)?, b)))
        .collect())
}

/// The field `pointer` of every shard's body, read as `T`.
fn shard_field<T: DeserializeOwned>(
    bodies: &[(Shard, Value)],
    pointer: &str,
) -> anyhow::Result<Vec<(Shard, T)>> {
    bodies
        .iter()
        .map(|(shard, b)| {
            let v = b.pointer(pointer).cloned().unwrap_or(Value::Null);
            let t = serde_json::from_value(v)
                .with_context(|| format!("shard {shard}: its {pointer}"))?;
            Ok((*shard, t))
        })
        .collect()
}

/// Prints the document of the unsplit run: the first shard's body with `merged` fields put
/// in, the shards' wall time summed, no shard.
fn print_merged(
    command: &str,
    shards: &[(PathBuf, Envelope)],
    bodies: &[(Shard, Value)],
    merged: Vec<(&str, Value)>,
) -> anyhow::Result<()> {
    let (_, first) = &shards[0];
    let mut body = bodies[0].1.clone();
    if let Some(fields) = body.as_object_mut() {
        fields.remove("shard");
        for (k, v) in merged {
            fields.insert(k.to_owned(), v);
        }
        let wall: f64 = bodies
            .iter()
            .filter_map(|(_, b)| b["wall_ms"].as_f64())
            .sum();
        fields.insert("wall_ms".into(), json!(wall));
    }
    let doc = Doc::new(command).parameters(first.query.clone());
    match first.seed {
        Some(seed) => doc.seed(seed).print(&body),
        None => doc.print(&body),
    }
}

/// Adds up the shards of one `dealer collusion --samples N --shard I/K --json` run (checked by
/// `facedown merge` to be `1/K … K/K` of one run) into the document of the unsplit run: the
/// exact rows must agree, the Monte-Carlo counts are summed
/// ([`facedown_leakage::montecarlo::merge_rows`]).
pub fn merge_collusion(shards: &[(PathBuf, Envelope)]) -> anyhow::Result<()> {
    let bodies = harness_shards(shards, COLLUSION)?;
    let samples: u64 = shard_field::<u64>(&bodies[..1], "/samples")?[0].1;
    if let Some((shard, _)) = bodies
        .iter()
        .find(|(_, b)| b["rows"] != bodies[0].1["rows"])
    {
        anyhow::bail!("shard {shard}: its exact rows differ from the first shard's");
    }
    let blocks = bodies[0].1["monte_carlo"].as_array().map_or(0, Vec::len);
    let mut merged = Vec::with_capacity(blocks);
    for i in 0..blocks {
        let parts: Vec<(Shard, Vec<McRow>)> =
            shard_field(&bodies, &format!("/monte_carlo/{i}/rows"))?;
        let mut block = bodies[0].1["monte_carlo"][i].clone();
        block["rows"] = json!(montecarlo::merge_rows(parts, samples)?);
        merged.push(block);
    }
    print_merged(
        COLLUSION,
        shards,
        &bodies,
        vec![("monte_carlo", json!(merged))],
    )
}

/// Adds up the shards of one `dealer cheat --shard I/K --json` run (checked by `facedown
/// merge` to be `1/K … K/K` of one run) into the document of the unsplit run: the deviation
/// table ([`facedown_leakage::cheat::merge_rows`]), a forgery
/// ([`facedown_leakage::forgery::merge_rows`]), a sweep over the messages
/// ([`facedown_leakage::position::merge_sweeps`]) or a strategy
/// ([`facedown_leakage::strategy::merge_rows`]).
pub fn merge_cheat(shards: &[(PathBuf, Envelope)]) -> anyhow::Result<()> {
    let bodies = harness_shards(shards, CHEAT)?;
    let trials: u64 = serde_json::from_value(shards[0].1.query["samples"].clone())
        .context("the shards' query has no samples")?;
    let first = &bodies[0].1;
    if first.get("rows").is_some() {
        let rows = cheating::merge_rows(shard_field(&bodies, "/rows")?, trials)?;
        return print_merged(CHEAT, shards, &bodies, vec![("rows", json!(rows))]);
    }
    if first.get("forgery").is_some() {
        let parts = shard_field(&bodies, "/forgery")?;
        let row = facedown_leakage::forgery::merge_rows(parts, trials)?;
        return print_merged(CHEAT, shards, &bodies, vec![("forgery", json!(row))]);
    }
    if first.get("positions").is_some() {
        let parts = shard_field(&bodies, "/positions")?;
        let rows = facedown_leakage::position::merge_sweeps(parts, trials)?;
        return print_merged(CHEAT, shards, &bodies, vec![("positions", json!(rows))]);
    }
    // A strategy: one result, or one per re-deal model.
    let merged_at = |pointer: &str| -> anyhow::Result<StrategyRow> {
        let parts: Vec<(Shard, StrategyRow)> = shard_field(&bodies, pointer)?;
        let parts = parts.into_iter().map(|(s, r)| (s, vec![r])).collect();
        let mut rows = facedown_leakage::strategy::merge_rows(parts, trials)?;
        rows.pop().context("a merged strategy row")
    };
    if first.get("result").is_some() {
        let row = merged_at("/result")?;
        return print_merged(CHEAT, shards, &bodies, vec![("result", json!(row))]);
    }
    let models = first["results"].as_array().map_or(0, Vec::len);
    let mut results = Vec::with_capacity(models);
    for i in 0..models {
        let mut one = first["results"][i].clone();
        one["result"] = json!(merged_at(&format!("/results/{i}/result"))?);
        results.push(one);
    }
    print_merged(CHEAT, shards, &bodies, vec![("results", json!(results))])
}

/// `facedown dealer collusion`.
pub fn collusion(a: &CollusionArgs) -> anyhow::Result<()> {
    let s = scheme(&a.scheme)?;
    let start = std::time::Instant::now();
    let method = if s.cards <= 8 {
        Method::Exact
    } else {
        Method::ClosedForm
    };
    let mut all_rows = Vec::new();
    let mut mc = Vec::new();
    for sch in schedules(a, &s)? {
        let rows = collusion::collusion_table(&sch, method)?;
        if let Some(k) = a.samples {
            let pb = progress(k, &format!("games ({})", sch.describe()));
            let tick = || {
                if let Some(pb) = &pb {
                    pb.inc(1);
                }
            };
            let share = Trials::share(k, a.shard);
            let est = montecarlo::monte_carlo_share(&sch, share, a.seed, &tick)?;
            if let Some(pb) = pb {
                pb.finish_and_clear();
            }
            mc.push((sch.clone(), est));
        }
        all_rows.push((sch, rows));
    }
    let wall = start.elapsed();
    if a.output.json {
        let params = harness_json(&a.scheme, a.hand, a.public, a.samples, a.schedule.as_ref());
        let body = json!({
            "scheme": scheme_name(&s),
            "players": s.players,
            "cards": s.cards,
            "method": method_name(method),
            "samples": a.samples,
            "rows": all_rows.iter().flat_map(|(_, r)| r.iter()).collect::<Vec<_>>(),
            "monte_carlo": mc.iter().map(|(sch, est)| json!({
                "schedule": sch.describe(), "hand": sch.hand, "public": sch.public, "rows": est,
            })).collect::<Vec<_>>(),
            "wall_ms": ms(wall),
        });
        return print_harness(COLLUSION, (params, a.seed, a.shard), body);
    }
    let format = a.output.format();
    if format == Format::Csv {
        let rows: Vec<Row> = all_rows.into_iter().flat_map(|(_, r)| r).collect();
        collusion_table(&rows, format).print(format);
        return Ok(());
    }
    for (sch, rows) in &all_rows {
        heading(
            format,
            &format!(
                "{} scheme, N = {}, n = {}: {} ({})",
                scheme_name(&s),
                s.players,
                s.cards,
                sch.describe(),
                match method {
                    Method::Exact => "exact enumeration of the n! deals",
                    Method::BruteForce => "brute force",
                    Method::ClosedForm => "closed form",
                }
            ),
        );
        collusion_table(rows, format).print(format);
        println!();
    }
    for (sch, est) in &mc {
        heading(
            format,
            &format!(
                "Monte Carlo: {} real games ({}), seed {}; attacks run on the pooled views",
                a.samples.unwrap_or(0),
                sch.describe(),
                a.seed
            ),
        );
        montecarlo_table(est).print(format);
        println!();
    }
    if mc.is_empty() {
        println!("seed {} (used only with --samples)", a.seed);
    }
    wall_time(format, wall);
    Ok(())
}

/// The leakage sweep as a table: one row per number of openings, one column per coalition
/// (text and Markdown); one row per point (CSV).
fn leakage_table(points: &[SweepPoint], format: Format) -> Table {
    if format == Format::Csv {
        let mut t = Table::new(&[
            "coalition",
            "kind",
            "openings",
            "excess_bits",
            "excess_is_zero",
            "max_marginal_bits",
        ]);
        for p in points {
            t.row(vec![
                coalition_text(&p.coalition),
                p.kind.clone(),
                p.openings.to_string(),
                format!("{:.6}", p.excess_bits),
                p.excess_is_zero.to_string(),
                format!("{:.6}", p.max_marginal_bits),
            ]);
        }
        return t;
    }
    let mut kinds: Vec<(String, usize)> = points
        .iter()
        .map(|p| (p.kind.clone(), p.openings))
        .collect();
    kinds.dedup();
    let mut coalitions: Vec<&Vec<u16>> = Vec::new();
    for p in points {
        if !coalitions.contains(&&p.coalition) {
            coalitions.push(&p.coalition);
        }
    }
    let mut head = vec!["openings".to_owned()];
    head.extend(coalitions.iter().map(|c| coalition_text(c)));
    let mut t = Table::new(&head).right_aligned(1..head.len());
    for (kind, k) in &kinds {
        let mut row = vec![format!("{k} {kind}")];
        for c in &coalitions {
            row.push(
                points
                    .iter()
                    .find(|p| &p.kind == kind && p.openings == *k && &p.coalition == *c)
                    .map_or("–".to_string(), |p| {
                        format!("{:.3} / {:.3}", p.excess_bits, p.max_marginal_bits)
                    }),
            );
        }
        t.row(row);
    }
    t
}

/// `facedown dealer leakage`.
pub fn leakage(a: &LeakageArgs) -> anyhow::Result<()> {
    let s = scheme(&a.scheme)?;
    let start = std::time::Instant::now();
    let points = match &a.schedule {
        Some(path) => collusion::sweep_schedule(&file_schedule(path, &s)?)?,
        None => collusion::sweep(&s)?,
    };
    let wall = start.elapsed();
    let method = if s.cards <= 8 { "exact" } else { "closed-form" };
    if let Some(path) = &a.plot {
        let title = format!(
            "Excess leakage about the deal: {} scheme, N = {}, n = {}",
            scheme_name(&s),
            s.players,
            s.cards
        );
        plot::plot_sweep(&points, &title, path)?;
    }
    let legend = plot::legend(&points);
    if a.output.json {
        let mut params = scheme_json(&a.scheme);
        params["plot"] = json!(a.plot.as_ref().map(|p| p.display().to_string()));
        params["schedule"] = json!(a.schedule.as_ref().map(|p| p.display().to_string()));
        return Doc::new("dealer leakage").parameters(params).print(&json!({
            "scheme": scheme_name(&s),
            "players": s.players,
            "cards": s.cards,
            "target": "whole deal",
            "method": method,
            "points": points,
            "plot": a.plot.as_ref().map(|p| p.display().to_string()),
            "legend": legend.iter().map(|(c, k, col)| json!({"coalition": c, "kind": k, "colour": col})).collect::<Vec<_>>(),
            "wall_ms": ms(wall),
        }));
    }
    let format = a.output.format();
    heading(
        format,
        &format!(
            "Excess leakage about the whole deal (bits, joint / largest per-card marginal), {} scheme, N = {}, n = {} ({method})",
            scheme_name(&s),
            s.players,
            s.cards,
        ),
    );
    leakage_table(&points, format).print(format);
    if format == Format::Csv {
        return Ok(());
    }
    if let Some(path) = &a.plot {
        println!();
        println!(
            "plot written to {} (x: openings; y: bits; thick = public, thin = private)",
            path.display()
        );
        for (c, k, col) in &legend {
            println!("  {col}: coalition {} ({k} openings)", coalition_text(c));
        }
    }
    wall_time(format, wall);
    Ok(())
}

/// `facedown dealer cheat`.
pub fn cheat(a: &CheatArgs) -> anyhow::Result<()> {
    if a.coalition.is_some() {
        return forge(a);
    }
    if let Some(st) = a.strategy {
        return strategy(a, st);
    }
    let s = scheme(&a.scheme)?;
    let trials = a.samples;
    let sch = cheat_schedule(a, &s)?;
    let start = std::time::Instant::now();
    let pb = progress(trials.saturating_mul(30), "games");
    let tick = || {
        if let Some(pb) = &pb {
            pb.inc(1);
        }
    };
    let rows = cheating::cheat_table_share(&sch, Trials::share(trials, a.shard), a.seed, &tick)?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let wall = start.elapsed();
    if a.output.json {
        let params = harness_json(&a.scheme, a.hand, a.public, a.samples, a.schedule.as_ref());
        let body = json!({
            "scheme": scheme_name(&s),
            "players": s.players,
            "cards": s.cards,
            "hand": a.hand,
            "public": a.public,
            "trials": trials,
            "rows": rows,
            "wall_ms": ms(wall),
        });
        return print_harness(CHEAT, (params, a.seed, a.shard), body);
    }
    let format = a.output.format();
    heading(
        format,
        &format!(
            "Cheating, {} scheme, N = {}, n = {}: {}; {} seeded games per deviation (seed {})",
            scheme_name(&s),
            s.players,
            s.cards,
            sch.describe(),
            trials,
            a.seed
        ),
    );
    cheat_table(&rows, format).print(format);
    wall_time(format, wall);
    Ok(())
}

/// Arguments of `facedown dealer session`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  facedown dealer session --players 3 --cards 4 --scheme published --hand 1 --public 1 --deals 3 --reuse-helpers\n  facedown dealer session --players 3 --cards 52 --hand 2 --public 5 --deals 10 --reuse-helpers --samples 2000 --json\n  facedown dealer session --players 3 --cards 12 --scheme published --schedule schedules/published-showdown.toml --deals 4 --reuse-helpers --samples 500"
)]
pub struct SessionArgs {
    /// The scheme.
    #[command(flatten)]
    pub scheme: SchemeArgs,
    /// Cards per hand.
    #[arg(long, default_value_t = 1)]
    pub hand: usize,
    /// Public cards per deal.
    #[arg(long, default_value_t = 1)]
    pub public: usize,
    /// A schedule file (phases of private, public and showdown openings) played in every
    /// deal, instead of --hand and --public.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["hand", "public"])]
    pub schedule: Option<std::path::PathBuf>,
    /// Deals in the session.
    #[arg(long, default_value_t = 5)]
    pub deals: usize,
    /// The last player hands out his helper halves once and keeps them for every deal.
    #[arg(long)]
    pub reuse_helpers: bool,
    /// The player who reads (one of 1..N−1).
    #[arg(long, default_value_t = 2)]
    pub observer: u16,
    /// The player whose cards he reads.
    #[arg(long, default_value_t = 1)]
    pub target: u16,
    /// Estimate by this many sampled sessions (Monte Carlo) instead of exact enumeration;
    /// needed beyond the tiny decks exact enumeration covers.
    #[arg(long)]
    pub samples: Option<u64>,
    /// Seed of the Monte-Carlo sessions (session t uses stream t of this seed).
    #[arg(long, default_value_t = 0, requires = "samples")]
    pub seed: u64,
    /// Sample only shard I of K of the sessions (session t when t mod K = I − 1) and print a
    /// shard envelope; `facedown merge --json` adds the K shards up.
    #[arg(long, requires_all = ["samples", "json"])]
    pub shard: Option<Shard>,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `facedown dealer session`.
pub fn session(a: &SessionArgs) -> anyhow::Result<()> {
    use facedown_leakage::session::{Helpers, Session};
    let s = scheme(&a.scheme)?;
    let sch = match &a.schedule {
        Some(path) => file_schedule(path, &s)?,
        None => Schedule::new(&s, a.hand, a.public).context("schedule")?,
    };
    let helpers = if a.reuse_helpers {
        Helpers::Reused
    } else {
        Helpers::Fresh
    };
    let observer = facedown_core::PartyId(a.observer);
    let target = facedown_core::PartyId(a.target);
    let session = Session::new(sch.clone(), a.deals, helpers, observer, target)?;
    let start = std::time::Instant::now();
    let (exact, mc) = match a.samples {
        None => (
            session.exact().context(
                "exact enumeration is for tiny decks and few deals; use --samples for Monte Carlo",
            )?,
            Vec::new(),
        ),
        Some(k) => {
            let pb = progress(k, "sessions");
            let tick = || {
                if let Some(pb) = &pb {
                    pb.inc(1);
                }
            };
            let rows = session.monte_carlo_share(Trials::share(k, a.shard), a.seed, &tick)?;
            if let Some(pb) = pb {
                pb.finish_and_clear();
            }
            (Vec::new(), rows)
        }
    };
    let wall = start.elapsed();
    let method = if a.samples.is_some() {
        "monte-carlo"
    } else {
        "exact"
    };
    let helpers_name = if a.reuse_helpers { "reused" } else { "fresh" };
    if a.output.json {
        let mut params = harness_json(&a.scheme, a.hand, a.public, a.samples, a.schedule.as_ref());
        params["deals"] = json!(a.deals);
        params["reuse_helpers"] = json!(a.reuse_helpers);
        params["observer"] = json!(a.observer);
        params["target"] = json!(a.target);
        let rows = if mc.is_empty() {
            json!(exact)
        } else {
            json!(mc)
        };
        let body = json!({
            "scheme": scheme_name(&s),
            "players": s.players,
            "cards": s.cards,
            "schedule": sch.describe(),
            "helpers": helpers_name,
            "observer": a.observer,
            "target": a.target,
            "method": method,
            "deals": rows,
            "wall_ms": ms(wall),
        });
        return print_harness(SESSION, (params, a.seed, a.shard), body);
    }
    let format = a.output.format();
    heading(
        format,
        &format!(
            "Player {} reading player {}'s cards, deal by deal: {} scheme, N = {}, n = {}, {}, helpers {helpers_name} ({method})",
            a.observer,
            a.target,
            scheme_name(&s),
            s.players,
            s.cards,
            sch.describe(),
        ),
    );
    session_table(&exact, &mc, format).print(format);
    if format != Format::Csv && a.samples.is_some() {
        println!("\nseed {}", a.seed);
    }
    wall_time(format, wall);
    Ok(())
}

fn session_table(
    exact: &[facedown_leakage::session::ExactReading],
    mc: &[facedown_leakage::session::McReading],
    format: Format,
) -> Table {
    if exact.is_empty() {
        let mut t = Table::new(&[
            "deal",
            "fraction read",
            "99.9 % Hoeffding",
            "points of A_N known",
            "wrong",
        ])
        .right_aligned([0, 1, 3, 4]);
        for r in mc {
            t.row(vec![
                r.deal.to_string(),
                format!("{:.4}", r.fraction_read),
                interval(r.interval, 4),
                format!("{:.2}", r.known_points),
                r.wrong_cards.to_string(),
            ]);
        }
        return t;
    }
    let csv = format == Format::Csv;
    let mut t = Table::new(&[
        "deal",
        "fraction read",
        if csv { "fraction_read_f64" } else { "≈" },
        "excess bits",
        "exactly 0",
    ])
    .right_aligned([0, 1, 2, 3]);
    for r in exact {
        t.row(vec![
            r.deal.to_string(),
            r.fraction_read.clone(),
            format!("{:.4}", r.fraction_read_f64),
            format!("{:.4}", r.excess_bits),
            if r.excess_is_zero { "yes" } else { "no" }.to_owned(),
        ]);
    }
    t
}

fn parse_coalition(text: &str, players: usize) -> anyhow::Result<facedown_leakage::Coalition> {
    let mut members = Vec::new();
    for p in text.split('+') {
        let p: u16 = p
            .trim()
            .parse()
            .with_context(|| format!("--coalition: {p:?} is not a player number"))?;
        if p == 0 || usize::from(p) > players {
            anyhow::bail!("--coalition: there is no player {p} among players 1..={players}");
        }
        members.push(facedown_core::PartyId(p));
    }
    Ok(facedown_leakage::Coalition::new(members))
}

fn parse_forge(text: &str, players: usize, cards: usize) -> anyhow::Result<(u16, u16)> {
    let (t, c) = text
        .split_once(':')
        .context("--forge takes TARGET:CARD, e.g. 1:7")?;
    let t: u16 = t
        .parse()
        .with_context(|| format!("--forge: {t:?} is not a player"))?;
    let c: u16 = c
        .parse()
        .with_context(|| format!("--forge: {c:?} is not a card"))?;
    if t == 0 || usize::from(t) > players {
        anyhow::bail!("--forge: there is no player {t} among players 1..={players}");
    }
    if usize::from(c) >= cards {
        anyhow::bail!("--forge: card {c} is outside the deck 0..{cards}");
    }
    Ok((t, c))
}

/// Runs `samples` seeded games with a progress bar on a terminal; returns the result and the
/// wall time.
fn timed_games<T>(
    samples: u64,
    run: impl FnOnce(&(dyn Fn() + Sync)) -> anyhow::Result<T>,
) -> anyhow::Result<(T, std::time::Duration)> {
    let start = std::time::Instant::now();
    let pb = progress(samples, "games");
    let tick = || {
        if let Some(pb) = &pb {
            pb.inc(1);
        }
    };
    let out = run(&tick)?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok((out, start.elapsed()))
}

/// The setting of a harness run, for its heading: scheme, players, cards, schedule, games, seed.
fn setting(s: &Scheme, sch: &Schedule, samples: u64, what: &str, seed: u64) -> String {
    format!(
        "{} scheme, N = {}, n = {}, {}; {samples} seeded {what} (seed {seed})",
        scheme_name(s),
        s.players,
        s.cards,
        sch.describe(),
    )
}

/// The JSON of a `dealer cheat` run of a coalition or a strategy: the common fields, then
/// `field` holding the result.
fn cheat_doc(
    a: &CheatArgs,
    s: &Scheme,
    params: serde_json::Value,
    (strategy, field): (&str, &str),
    result: &impl serde::Serialize,
    wall: std::time::Duration,
) -> anyhow::Result<()> {
    let mut body = json!({
        "scheme": scheme_name(s),
        "players": s.players,
        "cards": s.cards,
        "strategy": strategy,
        "wall_ms": ms(wall),
    });
    body[field] = serde_json::to_value(result)?;
    print_harness(CHEAT, (params, a.seed, a.shard), body)
}

/// `facedown dealer cheat --coalition … --forge …`.
fn forge(a: &CheatArgs) -> anyhow::Result<()> {
    let s = scheme(&a.scheme)?;
    let coalition = parse_coalition(a.coalition.as_deref().unwrap_or(""), s.players)?;
    let (target, card) = parse_forge(a.forge.as_deref().unwrap_or(""), s.players, s.cards)?;
    let sch = cheat_schedule(a, &s)?;
    let (row, wall) = timed_games(a.samples, |tick| {
        Ok(facedown_leakage::forgery::forge_card(
            &sch,
            &coalition,
            facedown_core::PartyId(target),
            card,
            Trials::share(a.samples, a.shard),
            a.seed,
            tick,
        )?)
    })?;
    if a.output.json {
        let mut params = harness_json(&a.scheme, a.hand, a.public, a.samples, a.schedule.as_ref());
        params["coalition"] = json!(coalition.numbers());
        params["forge"] = json!({"target": target, "card": card});
        return cheat_doc(a, &s, params, ("forge-card", "forgery"), &row, wall);
    }
    let format = a.output.format();
    heading(
        format,
        &format!(
            "Coalition {} forces player {target}'s first private card to {card}: {}",
            coalition_text(coalition.numbers()),
            setting(&s, &sch, a.samples, "games", a.seed)
        ),
    );
    let mut t = Table::new(&[
        "coalition",
        "forger",
        "accomplices",
        "target",
        "card",
        "forced",
        "already honest",
        "detected",
        "forger named",
        "99.9 % Wilson",
        "accomplice named",
        "outsider named",
    ])
    .right_aligned([4, 5, 6, 7, 8, 10, 11]);
    t.row(vec![
        coalition_text(&row.coalition),
        row.forger.to_string(),
        coalition_text(&row.accomplices),
        row.target.to_string(),
        row.card.to_string(),
        format!("{}/{}", row.forced, row.trials),
        format!("{}/{}", row.honest_already, row.trials),
        format!("{}/{}", row.detected, row.trials),
        format!("{}/{}", row.forger_named, row.trials),
        interval(row.forger_named_interval, 3),
        format!("{}/{}", row.accomplice_named, row.trials),
        row.framed.to_string(),
    ]);
    t.print(format);
    wall_time(format, wall);
    Ok(())
}

/// The strategy `a` asks for, with each re-deal model it names; the flags of the other
/// strategy are errors.
fn strategies(a: &CheatArgs, st: StrategyArg) -> anyhow::Result<Vec<Strategy>> {
    Ok(match st {
        StrategyArg::ChosenRiver => {
            if a.flop.is_some() || a.redeals.is_some() || a.redeal.is_some() {
                anyhow::bail!("--flop, --redeals and --redeal apply to --strategy selective-abort");
            }
            let card = a.card.context("--strategy chosen-river needs --card")?;
            vec![Strategy::ChosenRiver { card }]
        }
        StrategyArg::SelectiveAbort => {
            if a.card.is_some() {
                anyhow::bail!("--card applies to --strategy chosen-river");
            }
            let models = a.redeal.unwrap_or(RedealArg::Again).models();
            if a.sweep_position && models.len() > 1 {
                anyhow::bail!("--sweep-position runs one re-deal model: pick one with --redeal");
            }
            models
                .into_iter()
                .map(|redeal| Strategy::SelectiveAbort {
                    flop: a.flop.unwrap_or(3),
                    redeals: a.redeals.unwrap_or(1),
                    redeal,
                })
                .collect()
        }
    })
}

fn redeal_of(st: &Strategy) -> Option<Redeal> {
    match st {
        Strategy::SelectiveAbort { redeal, .. } => Some(*redeal),
        Strategy::ChosenRiver { .. } => None,
    }
}

/// `facedown dealer cheat --strategy …`.
fn strategy(a: &CheatArgs, st: StrategyArg) -> anyhow::Result<()> {
    let s = scheme(&a.scheme)?;
    let sch = cheat_schedule(a, &s)?;
    let name = match st {
        StrategyArg::ChosenRiver => "chosen-river",
        StrategyArg::SelectiveAbort => "selective-abort",
    };
    let list = strategies(a, st)?;
    if a.sweep_position {
        return sweep_positions(a, &s, &sch, name, &list[0]);
    }
    let (rows, wall) = timed_games(a.samples * list.len() as u64, |tick| {
        list.iter()
            .map(|x| {
                let share = Trials::share(a.samples, a.shard);
                Ok((redeal_of(x), x.run(&sch, None, share, a.seed, tick)?))
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    if a.output.json {
        let params = strategy_json(a, name);
        let results: Vec<_> = rows
            .iter()
            .map(|(m, r)| json!({"redeal": m.map(Redeal::name), "result": r}))
            .collect();
        return match rows.as_slice() {
            [(_, one)] => cheat_doc(a, &s, params, (name, "result"), one, wall),
            _ => cheat_doc(a, &s, params, (name, "results"), &results, wall),
        };
    }
    let format = a.output.format();
    let what = match rows.as_slice() {
        [(_, one)] => one.strategy.clone(),
        _ => format!(
            "selective abort on the first {} public cards, up to {} re-deal(s), under each re-deal model",
            a.flop.unwrap_or(3),
            a.redeals.unwrap_or(1)
        ),
    };
    heading(
        format,
        &format!(
            "Player {}: {what} — {}",
            rows[0].1.player,
            setting(&s, &sch, a.samples, "trials", a.seed)
        ),
    );
    let lines: Vec<_> = rows.iter().map(|(m, r)| (Line::Redeal(*m), r)).collect();
    strategy_table(&lines).print(format);
    wall_time(format, wall);
    Ok(())
}

/// The `parameters` of a strategy run.
fn strategy_json(a: &CheatArgs, name: &str) -> serde_json::Value {
    let mut params = harness_json(&a.scheme, a.hand, a.public, a.samples, a.schedule.as_ref());
    params["strategy"] = json!(name);
    params["card"] = json!(a.card);
    params["flop"] = json!(a.flop);
    params["redeals"] = json!(a.redeals);
    params["redeal"] = json!(a.redeal.map(|r| format!("{r:?}").to_lowercase()));
    params["sweep_position"] = json!(a.sweep_position);
    params
}

/// `facedown dealer cheat --strategy … --sweep-position`.
fn sweep_positions(
    a: &CheatArgs,
    s: &Scheme,
    sch: &Schedule,
    name: &str,
    st: &Strategy,
) -> anyhow::Result<()> {
    let (rows, wall) = timed_games(a.samples, |tick| {
        let share = Trials::share(a.samples, a.shard);
        Ok(facedown_leakage::position::sweep(
            sch, st, share, a.seed, tick,
        )?)
    })?;
    if a.output.json {
        let params = strategy_json(a, name);
        return cheat_doc(a, s, params, (name, "positions"), &rows, wall);
    }
    let format = a.output.format();
    heading(
        format,
        &format!(
            "{name} at every value message of every player — {}",
            setting(s, sch, a.samples, "trials per message", a.seed)
        ),
    );
    let lines: Vec<_> = rows
        .iter()
        .map(|r: &PositionRow| (Line::At(&r.message), &r.result))
        .collect();
    strategy_table(&lines).print(format);
    wall_time(format, wall);
    Ok(())
}

/// What a strategy table's row is about: a re-deal model, or a message.
enum Line<'a> {
    Redeal(Option<Redeal>),
    At(&'a facedown_leakage::position::Message),
}

fn rate(k: u64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        k as f64 / n as f64
    }
}

fn strategy_table(rows: &[(Line<'_>, &StrategyRow)]) -> Table {
    let mut head: Vec<&str> = match rows.first().map(|r| &r.0) {
        Some(Line::At(_)) => vec!["player", "message", "of position, to", "phase", "hop"],
        Some(Line::Redeal(Some(_))) => vec!["re-deal"],
        _ => vec![],
    };
    let lead = head.len();
    head.extend([
        "goal reached",
        "99.9 % Wilson",
        "honest baseline",
        "99.9 % Wilson",
        "exact baseline",
        "gain",
        "visible during play",
        "aborts",
        "detected",
        "named",
        "framed",
    ]);
    let right: Vec<usize> = [0, 2, 5, 6, 7, 8, 9, 10].iter().map(|c| c + lead).collect();
    let mut t = Table::new(&head).right_aligned(right);
    for (line, row) in rows {
        let mut cells = match line {
            Line::At(m) => vec![
                m.player.to_string(),
                format!("@{}", m.nth),
                format!("{}, {}", m.position, m.to),
                m.phase.clone(),
                m.hop.to_string(),
            ],
            Line::Redeal(Some(r)) => vec![format!("{} ({})", r.name(), r.models())],
            Line::Redeal(None) => vec![],
        };
        cells.extend([
            format!("{}/{}", row.success, row.trials),
            interval(row.success_interval, 3),
            format!("{}/{}", row.baseline, row.trials),
            interval(row.baseline_interval, 3),
            row.baseline_exact.clone().unwrap_or_else(|| "—".into()),
            format!(
                "{:+.3}",
                rate(row.success, row.trials) - rate(row.baseline, row.trials)
            ),
            format!("{}/{}", row.visible_during_play, row.trials),
            row.aborts.to_string(),
            row.detected.to_string(),
            row.named.to_string(),
            row.framed.to_string(),
        ]);
        t.row(cells);
    }
    t
}
