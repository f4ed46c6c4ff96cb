//! `facedown dealer leakage|collusion|cheat`: the harnesses of `facedown-leakage`, each with
//! only the options that apply to it, printed through the one table writer.

use std::io::IsTerminal;

use anyhow::Context;
use facedown_dealer::Scheme;
use facedown_leakage::collusion::{self, Method, Row, SweepPoint};
use facedown_leakage::montecarlo::{self, McRow};
use facedown_leakage::{cheat as cheating, plot, Schedule};
use serde::Serialize;
use serde_json::json;

use super::SchemeArg;
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

/// Arguments of `facedown dealer cheat`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  facedown dealer cheat --players 3 --cards 6 --samples 200 --seed 1\n  facedown dealer cheat --scheme published --cards 8 --coalition 2+3 --forge 1:7 --samples 50\n  facedown dealer cheat --cards 52 --hand 2 --public 5 --strategy chosen-river --card 51\n  facedown dealer cheat --cards 52 --hand 2 --public 3 --strategy selective-abort --flop 3 --redeals 2"
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
            let est = montecarlo::monte_carlo(&sch, k, a.seed, &tick)?;
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
        return Doc::new("dealer collusion")
            .seed(a.seed)
            .parameters(params)
            .print(&json!({
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
            }));
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
        ]);
        for p in points {
            t.row(vec![
                coalition_text(&p.coalition),
                p.kind.clone(),
                p.openings.to_string(),
                format!("{:.6}", p.excess_bits),
                p.excess_is_zero.to_string(),
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
                    .map_or("–".to_string(), |p| format!("{:.3}", p.excess_bits)),
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
            "Excess leakage about the whole deal (bits), {} scheme, N = {}, n = {} ({method})",
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
    let rows = cheating::cheat_table(&sch, trials, a.seed, &tick)?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let wall = start.elapsed();
    if a.output.json {
        let params = harness_json(&a.scheme, a.hand, a.public, a.samples, a.schedule.as_ref());
        return Doc::new("dealer cheat")
            .seed(a.seed)
            .parameters(params)
            .print(&json!({
                "scheme": scheme_name(&s),
                "players": s.players,
                "cards": s.cards,
                "hand": a.hand,
                "public": a.public,
                "trials": trials,
                "rows": rows,
                "wall_ms": ms(wall),
            }));
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
    after_help = "Examples:\n  facedown dealer session --players 3 --cards 4 --scheme published --hand 1 --public 1 --deals 3 --reuse-helpers\n  facedown dealer session --players 3 --cards 52 --hand 2 --public 5 --deals 10 --reuse-helpers --samples 2000 --json"
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
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `facedown dealer session`.
pub fn session(a: &SessionArgs) -> anyhow::Result<()> {
    use facedown_leakage::session::{Helpers, Session};
    let s = scheme(&a.scheme)?;
    let sch = Schedule::new(&s, a.hand, a.public).context("schedule")?;
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
            let rows = session.monte_carlo(k, a.seed, &tick)?;
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
        let mut params = deal_json(&a.scheme, a.hand, a.public, a.samples);
        params["deals"] = json!(a.deals);
        params["reuse_helpers"] = json!(a.reuse_helpers);
        params["observer"] = json!(a.observer);
        params["target"] = json!(a.target);
        let rows = if mc.is_empty() {
            json!(exact)
        } else {
            json!(mc)
        };
        return Doc::new("dealer session")
            .seed(a.seed)
            .parameters(params)
            .print(&json!({
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
            }));
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
    Doc::new("dealer cheat")
        .seed(a.seed)
        .parameters(params)
        .print(&body)
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
            a.samples,
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

/// `facedown dealer cheat --strategy …`.
fn strategy(a: &CheatArgs, st: StrategyArg) -> anyhow::Result<()> {
    use facedown_leakage::strategy::{chosen_river, selective_abort};
    let s = scheme(&a.scheme)?;
    let sch = cheat_schedule(a, &s)?;
    let ((name, row), wall) = timed_games(a.samples, |tick| match st {
        StrategyArg::ChosenRiver => {
            if a.flop.is_some() || a.redeals.is_some() {
                anyhow::bail!("--flop and --redeals apply to --strategy selective-abort");
            }
            let card = a.card.context("--strategy chosen-river needs --card")?;
            Ok((
                "chosen-river",
                chosen_river(&sch, card, a.samples, a.seed, tick)?,
            ))
        }
        StrategyArg::SelectiveAbort => {
            if a.card.is_some() {
                anyhow::bail!("--card applies to --strategy chosen-river");
            }
            let flop = a.flop.unwrap_or(3);
            let redeals = a.redeals.unwrap_or(1);
            Ok((
                "selective-abort",
                selective_abort(&sch, flop, redeals, a.samples, a.seed, tick)?,
            ))
        }
    })?;
    if a.output.json {
        let mut params = harness_json(&a.scheme, a.hand, a.public, a.samples, a.schedule.as_ref());
        params["strategy"] = json!(name);
        params["card"] = json!(a.card);
        params["flop"] = json!(a.flop);
        params["redeals"] = json!(a.redeals);
        return cheat_doc(a, &s, params, (name, "result"), &row, wall);
    }
    let format = a.output.format();
    heading(
        format,
        &format!(
            "Player {}: {} — {}",
            row.player,
            row.strategy,
            setting(&s, &sch, a.samples, "trials", a.seed)
        ),
    );
    let mut t = Table::new(&[
        "goal reached",
        "99.9 % Wilson",
        "honest baseline",
        "99.9 % Wilson",
        "exact baseline",
        "visible during play",
        "aborts",
        "detected",
        "named",
        "framed",
    ])
    .right_aligned([0, 2, 5, 6, 7, 8, 9]);
    t.row(vec![
        format!("{}/{}", row.success, row.trials),
        interval(row.success_interval, 3),
        format!("{}/{}", row.baseline, row.trials),
        interval(row.baseline_interval, 3),
        row.baseline_exact.clone().unwrap_or_else(|| "—".into()),
        format!("{}/{}", row.visible_during_play, row.trials),
        row.aborts.to_string(),
        row.detected.to_string(),
        row.named.to_string(),
        row.framed.to_string(),
    ]);
    t.print(format);
    wall_time(format, wall);
    Ok(())
}
