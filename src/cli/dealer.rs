//! `facedown dealer` subcommands: `deal` and `audit`.

use std::collections::BTreeMap;

use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use facedown_core::rng::seeded_rng;
use facedown_core::{Cost, PartyId};
use facedown_dealer::{
    audit, play_with_rng, AuditReport, Deviation, Game, Route, Scheme, Transcript,
};
use serde_json::json;

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
    /// Re-audit a saved transcript. Exits with status 2 when the audit fails.
    Audit {
        /// The transcript written by `deal --save`.
        file: std::path::PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `facedown dealer`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
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

fn cards_text(cards: &[u16]) -> String {
    if cards.is_empty() {
        return "(none)".into();
    }
    cards
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(" ")
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
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
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
