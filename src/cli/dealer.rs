//! `facedown dealer` subcommands: `deal`, `audit`, and the harnesses `leakage`, `collusion`,
//! `cheat`.

use std::collections::BTreeMap;

use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use facedown_core::input::read_text;
use facedown_core::rng::seeded_rng;
use facedown_core::{Cost, PartyId};
use facedown_dealer::{
    audit, play_with_rng, AuditReport, Deviation, Game, Route, Scheme, Transcript,
    MAX_TRANSCRIPT_BYTES,
};
use serde_json::json;

use super::cards_text;

/// Arguments of `facedown dealer`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to run.
    #[command(subcommand)]
    pub command: DealerCommand,
}

/// Which variant of the scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SchemeArg {
    /// Any N ≥ 3, a private path to every player.
    General,
    /// Exactly as published: N = 3, helper pairs C3/D3 and F3/G3 (no private path to player 2).
    Published,
}

/// The `facedown dealer` subcommands.
#[derive(Debug, Subcommand)]
pub enum DealerCommand {
    /// Deal hands privately and cards publicly, then open every commitment and audit.
    Deal {
        /// Number of players N (≥ 3).
        #[arg(long)]
        players: usize,
        /// Deck size n (cards 0..n−1).
        #[arg(long, default_value_t = 52)]
        cards: usize,
        /// Cards per hand (player p gets positions (p−1)·h .. p·h).
        #[arg(long, default_value_t = 2)]
        hand: usize,
        /// Public cards (the positions after the hands).
        #[arg(long, default_value_t = 0)]
        public: usize,
        /// Seed of the run (every key, permutation and salt is derived from it).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Which scheme.
        #[arg(long, value_enum, default_value_t = SchemeArg::General)]
        scheme: SchemeArg,
        /// Make one player deviate: PLAYER:KIND with KIND one of value[@K[+OFFSET]],
        /// announce[@K], switch, reveal, helper, withhold[@K].
        #[arg(long, value_name = "PLAYER:KIND")]
        cheat: Option<String>,
        /// Save the signed transcript (JSON) for `facedown dealer audit`.
        #[arg(long, value_name = "FILE")]
        save: Option<std::path::PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Excess leakage about the whole deal against the number of openings, every coalition
    /// (exact for n ≤ 8, closed form beyond); `--plot` draws it.
    Leakage(HarnessArgs),
    /// The collusion table: every coalition × target → excess bits, fraction of hidden cards
    /// determined, the attack (exact; `--samples K` adds a Monte-Carlo run of the attacks on
    /// real games with Wilson intervals).
    Collusion(HarnessArgs),
    /// Every deviation of every player over many seeded games: what he steers, whether the
    /// audit detects and names him.
    Cheat(HarnessArgs),
    /// Re-audit a saved transcript. Exits with status 2 when the audit fails.
    Audit {
        /// The transcript written by `deal --save`.
        file: std::path::PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Arguments shared by the harness subcommands.
#[derive(Debug, clap::Args)]
pub struct HarnessArgs {
    /// Number of players N (≥ 3).
    #[arg(long, default_value_t = 3)]
    pub players: usize,
    /// Deck size n.
    #[arg(long, default_value_t = 6)]
    pub cards: usize,
    /// Which scheme.
    #[arg(long, value_enum, default_value_t = SchemeArg::General)]
    pub scheme: SchemeArg,
    /// Cards per hand; with --public, one schedule instead of the three default ones
    /// (public: n − 1 public cards; private: hands of ⌊n/N⌋; mixed: hands of ⌊(n−1)/N⌋ + 1 public).
    #[arg(long)]
    pub hand: Option<usize>,
    /// Public cards (see --hand).
    #[arg(long)]
    pub public: Option<usize>,
    /// Exact computation (the default for collusion and leakage).
    #[arg(long, conflicts_with = "samples")]
    pub exact: bool,
    /// Monte-Carlo games (collusion: real games attacked; cheat: games per deviation).
    #[arg(long)]
    pub samples: Option<u64>,
    /// Seed of the Monte-Carlo runs (trial t uses stream t of this seed).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print JSON.
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    pub json: bool,
    /// Print CSV.
    #[arg(long, conflicts_with = "markdown")]
    pub csv: bool,
    /// Print markdown (the default).
    #[arg(long)]
    pub markdown: bool,
    /// Write a plot of leakage against the number of openings (leakage only): SVG if the
    /// file name ends in `.svg`, PNG otherwise.
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<std::path::PathBuf>,
}

/// Runs `facedown dealer`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        DealerCommand::Leakage(h) => harness::leakage(&h),
        DealerCommand::Collusion(h) => harness::collusion(&h),
        DealerCommand::Cheat(h) => harness::cheat(&h),
        DealerCommand::Deal {
            players,
            cards,
            hand,
            public,
            seed,
            scheme,
            cheat,
            save,
            json,
        } => deal(DealArgs {
            players,
            cards,
            hand,
            public,
            seed,
            scheme,
            cheat,
            save,
            json,
        }),
        DealerCommand::Audit { file, json } => audit_file(&file, json),
    }
}

struct DealArgs {
    players: usize,
    cards: usize,
    hand: usize,
    public: usize,
    seed: u64,
    scheme: SchemeArg,
    cheat: Option<String>,
    save: Option<std::path::PathBuf>,
    json: bool,
}

fn parse_cheat(s: &str, players: usize) -> anyhow::Result<(PartyId, Deviation)> {
    let (who, kind) = s
        .split_once(':')
        .context("--cheat takes PLAYER:KIND, e.g. 2:value@0")?;
    let who: u16 = who
        .parse()
        .with_context(|| format!("--cheat: {who:?} is not a player number"))?;
    if who == 0 || usize::from(who) > players {
        anyhow::bail!("--cheat: there is no player {who} among players 1..={players}");
    }
    let dev: Deviation = kind.parse().context("--cheat")?;
    Ok((PartyId(who), dev))
}

fn cost_json(c: &Cost) -> serde_json::Value {
    json!({"messages": c.messages, "bytes": c.bytes, "rounds": c.rounds})
}

fn audit_json(r: &AuditReport) -> serde_json::Value {
    json!({
        "passed": r.passed,
        "blame": r.blame.map(|p| p.0),
        "first": r.first().map(|f| f.to_string()),
        "findings": r.findings,
    })
}

fn route_name(route: Route, scheme: &Scheme) -> String {
    match route {
        Route::Public => "public".into(),
        Route::Direct => format!("private to player {} (direct)", scheme.players),
        Route::Helper(k) => match scheme.pair(k) {
            Some(p) => format!(
                "private to player {} via {}/{}",
                p.outer_holder.0, p.outer_name, p.inner_name
            ),
            None => format!("helper pair {k}"),
        },
    }
}

/// One cost per kind of opening: the first opening of each route.
fn per_card(game: &Game, scheme: &Scheme) -> Vec<(String, Cost)> {
    let mut seen = BTreeMap::new();
    for (op, cost) in &game.per_op {
        seen.entry(route_key(op.route))
            .or_insert((route_name(op.route, scheme), *cost));
    }
    seen.into_values().collect()
}

fn route_key(r: Route) -> (u8, u16) {
    match r {
        Route::Public => (2, 0),
        Route::Direct => (1, 0),
        Route::Helper(k) => (0, k),
    }
}

fn deal(a: DealArgs) -> anyhow::Result<()> {
    let scheme = match a.scheme {
        SchemeArg::General => Scheme::general(a.players, a.cards)?,
        SchemeArg::Published => {
            if a.players != 3 {
                anyhow::bail!("the published scheme is for exactly three players (--players 3)");
            }
            Scheme::published(a.cards)?
        }
    };
    let cheat = a
        .cheat
        .as_deref()
        .map(|s| parse_cheat(s, a.players))
        .transpose()?;
    let start = std::time::Instant::now();
    let game = play_with_rng(
        scheme.clone(),
        a.hand,
        a.public,
        cheat,
        &mut seeded_rng(a.seed),
    )?;
    let elapsed = start.elapsed();
    if let Some(path) = &a.save {
        std::fs::write(path, game.finished.transcript.to_json())
            .with_context(|| format!("cannot write the transcript to {}", path.display()))?;
    }
    let report = &game.finished.audit;
    let total = game.total();
    let per_card = per_card(&game, &scheme);
    if a.json {
        let out = json!({
            "seed": a.seed,
            "scheme": format!("{:?}", scheme.variant).to_lowercase(),
            "players": a.players,
            "cards": a.cards,
            "hand": a.hand,
            "hands": game.hands,
            "public": game.public,
            "cheat": a.cheat,
            "aborted": game.aborted,
            "audit": audit_json(report),
            "cost": cost_json(&total),
            "phases": game.finished.phases.iter()
                .map(|p| json!({
                    "name": p.name,
                    "cost": cost_json(&p.cost),
                    "link_messages": p.link_messages,
                }))
                .collect::<Vec<_>>(),
            "per_card": per_card.iter()
                .map(|(name, c)| json!({"route": name, "cost": cost_json(c)}))
                .collect::<Vec<_>>(),
            "saved": a.save.as_ref().map(|p| p.display().to_string()),
            "wall_time_ms": elapsed.as_secs_f64() * 1e3,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "Permutation-sharing dealer ({:?} scheme): N = {} players, n = {} cards, {} per hand, {} public, seed {}",
        scheme.variant, a.players, a.cards, a.hand, a.public, a.seed
    );
    if let Some(c) = &a.cheat {
        println!("cheating: player {c}");
    }
    for (p, hand) in game.hands.iter().enumerate() {
        println!("player {} sees his hand: {}", p + 1, cards_text(hand));
    }
    println!("public cards:            {}", cards_text(&game.public));
    if !game.aborted.is_empty() {
        println!("openings that never completed: {:?}", game.aborted);
    }
    print_audit(report);
    println!("cost (messages = point-to-point deliveries, a broadcast counts N−1;");
    println!("      links = messages if each link sent one batched message per round):");
    for p in &game.finished.phases {
        println!(
            "  {:<42} {} {:>5} links",
            p.name,
            cost_text(&p.cost),
            p.link_messages
        );
    }
    println!("  {:<42} {}", "total", cost_text(&total));
    println!("cost of one opened card:");
    for (name, c) in &per_card {
        println!("  {name:<42} {}", cost_text(c));
    }
    println!("wall time: {:.1} ms", elapsed.as_secs_f64() * 1e3);
    if let Some(path) = &a.save {
        println!("transcript saved to {}", path.display());
    }
    Ok(())
}

fn cost_text(c: &Cost) -> String {
    format!(
        "{:>6} messages {:>9} bytes {:>3} rounds",
        c.messages, c.bytes, c.rounds
    )
}

fn print_audit(r: &AuditReport) {
    match r.first() {
        None => {
            println!("audit: passed (every commitment opens, every forwarded value recomputes)")
        }
        Some(f) => {
            println!("audit: FAILED — first deviation: {f}");
            for other in r.findings.iter().skip(1).take(9) {
                println!("       also: {other}");
            }
            if r.findings.len() > 10 {
                println!("       … {} findings in all", r.findings.len());
            }
        }
    }
}

fn audit_file(path: &std::path::Path, json: bool) -> anyhow::Result<()> {
    let text = read_text(path, MAX_TRANSCRIPT_BYTES, "a dealer transcript")?;
    let t = Transcript::from_json(&text).with_context(|| format!("{}", path.display()))?;
    let report = audit(&t).with_context(|| format!("{} does not audit", path.display()))?;
    if json {
        let out = json!({
            "file": path.display().to_string(),
            "players": t.params.scheme.players,
            "cards": t.params.scheme.cards,
            "messages": t.envelopes.len(),
            "operations": t.operations.len(),
            "audit": audit_json(&report),
            "deal": report.deal,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "{}: N = {} players, n = {} cards, {} signed messages, {} openings",
            path.display(),
            t.params.scheme.players,
            t.params.scheme.cards,
            t.envelopes.len(),
            t.operations.len()
        );
        print_audit(&report);
    }
    if !report.passed {
        std::process::exit(2);
    }
    Ok(())
}

mod harness {
    //! The leakage, collusion and cheating harnesses of `facedown-leakage`.

    use std::io::IsTerminal;

    use anyhow::Context;
    use facedown_dealer::Scheme;
    use facedown_leakage::collusion::{self, Method};
    use facedown_leakage::{cheat as cheating, montecarlo, plot, Schedule};
    use serde_json::json;

    use super::{HarnessArgs, SchemeArg};

    fn scheme(a: &HarnessArgs) -> anyhow::Result<Scheme> {
        Ok(match a.scheme {
            SchemeArg::General => Scheme::general(a.players, a.cards)?,
            SchemeArg::Published => {
                if a.players != 3 {
                    anyhow::bail!(
                        "the published scheme is for exactly three players (--players 3)"
                    );
                }
                Scheme::published(a.cards)?
            }
        })
    }

    fn schedules(a: &HarnessArgs, s: &Scheme) -> anyhow::Result<Vec<Schedule>> {
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
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} ({eta})")
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

    /// `facedown dealer collusion`.
    pub fn collusion(a: &HarnessArgs) -> anyhow::Result<()> {
        let s = scheme(a)?;
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
        let elapsed = start.elapsed();
        if a.json {
            let out = json!({
                "scheme": scheme_name(&s),
                "players": s.players,
                "cards": s.cards,
                "method": format!("{method:?}"),
                "seed": a.seed,
                "samples": a.samples,
                "rows": all_rows.iter().flat_map(|(_, r)| r.iter()).collect::<Vec<_>>(),
                "monte_carlo": mc.iter().map(|(sch, est)| json!({
                    "schedule": sch.describe(), "hand": sch.hand, "public": sch.public, "rows": est,
                })).collect::<Vec<_>>(),
                "wall_time_ms": elapsed.as_secs_f64() * 1e3,
            });
            println!("{}", serde_json::to_string_pretty(&out)?);
            return Ok(());
        }
        if a.csv {
            let mut first = true;
            for (_, rows) in &all_rows {
                let text = collusion::csv(rows);
                let body = if first {
                    &text[..]
                } else {
                    text.split_once('\n').map_or("", |x| x.1)
                };
                print!("{body}");
                first = false;
            }
            return Ok(());
        }
        for (sch, rows) in &all_rows {
            println!(
                "## {} scheme, N = {}, n = {}: {} ({})\n",
                scheme_name(&s),
                s.players,
                s.cards,
                sch.describe(),
                match method {
                    Method::Exact => "exact enumeration of the n! deals",
                    Method::BruteForce => "brute force",
                    Method::ClosedForm => "closed form",
                }
            );
            println!("{}", collusion::markdown(rows));
        }
        for (sch, est) in &mc {
            println!(
                "## Monte Carlo: {} real games ({}), seed {}; attacks run on the pooled views\n",
                a.samples.unwrap_or(0),
                sch.describe(),
                a.seed
            );
            println!("{}", montecarlo::markdown(est));
        }
        println!("wall time: {:.1} ms", elapsed.as_secs_f64() * 1e3);
        Ok(())
    }

    /// `facedown dealer leakage`.
    pub fn leakage(a: &HarnessArgs) -> anyhow::Result<()> {
        let s = scheme(a)?;
        let start = std::time::Instant::now();
        let points = collusion::sweep(&s)?;
        let elapsed = start.elapsed();
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
        if a.json {
            let out = json!({
                "scheme": scheme_name(&s),
                "players": s.players,
                "cards": s.cards,
                "target": "whole deal",
                "method": if s.cards <= 8 { "exact" } else { "closed form" },
                "points": points,
                "plot": a.plot.as_ref().map(|p| p.display().to_string()),
                "legend": legend.iter().map(|(c, k, col)| json!({"coalition": c, "kind": k, "colour": col})).collect::<Vec<_>>(),
                "wall_time_ms": elapsed.as_secs_f64() * 1e3,
            });
            println!("{}", serde_json::to_string_pretty(&out)?);
            return Ok(());
        }
        if a.csv {
            println!("coalition,kind,openings,excess_bits,excess_is_zero");
            for p in &points {
                let c: Vec<String> = p.coalition.iter().map(u16::to_string).collect();
                println!(
                    "{},{},{},{:.6},{}",
                    c.join("+"),
                    p.kind,
                    p.openings,
                    p.excess_bits,
                    p.excess_is_zero
                );
            }
            return Ok(());
        }
        println!(
            "## Excess leakage about the whole deal, {} scheme, N = {}, n = {} ({})\n",
            scheme_name(&s),
            s.players,
            s.cards,
            if s.cards <= 8 { "exact" } else { "closed form" }
        );
        let mut kinds: Vec<(String, usize)> = points
            .iter()
            .map(|p| (p.kind.clone(), p.openings))
            .collect();
        kinds.dedup();
        let coalitions: Vec<Vec<u16>> = {
            let mut v: Vec<Vec<u16>> = Vec::new();
            for p in &points {
                if !v.contains(&p.coalition) {
                    v.push(p.coalition.clone());
                }
            }
            v
        };
        print!("| openings |");
        for c in &coalitions {
            let c: Vec<String> = c.iter().map(u16::to_string).collect();
            print!(" {} |", c.join("+"));
        }
        println!();
        println!("|---|{}", "---:|".repeat(coalitions.len()));
        for (kind, k) in &kinds {
            print!("| {k} {kind} |");
            for c in &coalitions {
                let v = points
                    .iter()
                    .find(|p| &p.kind == kind && p.openings == *k && &p.coalition == c)
                    .map_or("–".to_string(), |p| format!("{:.3}", p.excess_bits));
                print!(" {v} |");
            }
            println!();
        }
        if let Some(path) = &a.plot {
            println!();
            println!(
                "plot written to {} (x: openings; y: bits; thick = public, thin = private)",
                path.display()
            );
            for (c, k, col) in &legend {
                let c: Vec<String> = c.iter().map(u16::to_string).collect();
                println!("  {col}: coalition {} ({k} openings)", c.join("+"));
            }
        }
        println!("wall time: {:.1} ms", elapsed.as_secs_f64() * 1e3);
        Ok(())
    }

    /// `facedown dealer cheat`.
    pub fn cheat(a: &HarnessArgs) -> anyhow::Result<()> {
        let s = scheme(a)?;
        let trials = a.samples.unwrap_or(100);
        let (h, p) = (a.hand.unwrap_or(1), a.public.unwrap_or(1));
        let sch = Schedule::new(&s, h, p).context("schedule")?;
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
        let elapsed = start.elapsed();
        if a.json {
            let out = json!({
                "scheme": scheme_name(&s),
                "players": s.players,
                "cards": s.cards,
                "hand": h,
                "public": p,
                "seed": a.seed,
                "trials": trials,
                "rows": rows,
                "wall_time_ms": elapsed.as_secs_f64() * 1e3,
            });
            println!("{}", serde_json::to_string_pretty(&out)?);
            return Ok(());
        }
        if a.csv {
            println!(
                "player,deviation,trials,steered,aborted,detected,named,framed,named_lo,named_hi"
            );
            for r in &rows {
                println!(
                    "{},{},{},{},{},{},{},{},{:.4},{:.4}",
                    r.player,
                    r.deviation,
                    r.trials,
                    r.steered,
                    r.aborted,
                    r.detected,
                    r.named,
                    r.framed,
                    r.named_interval.0,
                    r.named_interval.1
                );
            }
            return Ok(());
        }
        println!(
            "## Cheating, {} scheme, N = {}, n = {}: {}; {} seeded games per deviation (seed {})\n",
            scheme_name(&s),
            s.players,
            s.cards,
            sch.describe(),
            trials,
            a.seed
        );
        println!("{}", cheating::markdown(&rows));
        println!("wall time: {:.1} ms", elapsed.as_secs_f64() * 1e3);
        Ok(())
    }
}
