//! `facedown dealer` subcommands: `deal`, `audit`, and the harnesses `leakage`, `collusion`,
//! `cheat`, `session`, `commit-attack`.

use std::collections::BTreeMap;

use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use facedown_core::input::read_text;
use facedown_core::rng::seeded_rng;
use facedown_core::{Cost, PartyId};
use facedown_dealer::{
    audit, play_with_rng, AuditReport, DealSchedule, Deviation, Game, Route, Scheme, Transcript,
    MAX_SCHEDULE_BYTES, MAX_TRANSCRIPT_BYTES,
};
use serde_json::json;

use super::cards_text;
use super::output::{ms, CheckFailed, Doc};
use super::table::{Format, OutputArgs, Table};

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
    ///
    /// Exits with status 3 when the audit fails (a `--cheat` that is caught).
    #[command(
        after_help = "Examples:\n  facedown dealer deal --players 3 --cards 12 --hand 3 --seed 7\n  facedown dealer deal --players 3 --cheat 2:value@0 --save deal.json --json\n  facedown dealer deal --players 3 --cards 12 --scheme published --schedule schedules/published-showdown.toml"
    )]
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
        /// Open the positions a schedule file names, phase by phase, instead of --hand and
        /// --public (see `schedules/` and docs/leakage.md for the format).
        #[arg(long, value_name = "FILE", conflicts_with_all = ["hand", "public"])]
        schedule: Option<std::path::PathBuf>,
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
        /// Output format (the cost table in CSV and Markdown).
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Excess leakage about the whole deal against the number of openings, every coalition
    /// (exact for n ≤ 8, closed form beyond); `--plot` draws it.
    Leakage(harness::LeakageArgs),
    /// The collusion table: every coalition × target → excess bits, fraction of hidden cards
    /// determined, the attack (exact; `--samples K` adds a Monte-Carlo run of the attacks on
    /// real games with Wilson intervals).
    Collusion(harness::CollusionArgs),
    /// Every deviation of every player over many seeded games: what he steers, whether the
    /// audit detects and names him.
    Cheat(harness::CheatArgs),
    /// Many deals in one session: what one player reads of another's cards, deal by deal,
    /// when the last player reuses his helper permutations (`--reuse-helpers`) or not.
    Session(harness::SessionArgs),
    /// The commitment pitfalls as experiments: an equivocation under a wrong multiplier
    /// (`--multiplier`), an out-of-range opening without the range check
    /// (`--no-range-check`), or brute-force time against the salt's length (`--salt-bits`).
    CommitAttack(commit_attack::CommitAttackArgs),
    /// Re-audit a saved transcript. Exits with status 3 when the audit fails.
    #[command(after_help = "Example: facedown dealer audit deal.json --json")]
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
        DealerCommand::Leakage(h) => harness::leakage(&h),
        DealerCommand::Collusion(h) => harness::collusion(&h),
        DealerCommand::Cheat(h) => harness::cheat(&h),
        DealerCommand::Session(h) => harness::session(&h),
        DealerCommand::CommitAttack(c) => commit_attack::commit_attack(&c),
        DealerCommand::Deal {
            players,
            cards,
            hand,
            public,
            schedule,
            seed,
            scheme,
            cheat,
            save,
            output,
        } => deal(DealArgs {
            players,
            cards,
            hand,
            public,
            schedule,
            seed,
            scheme,
            cheat,
            save,
            output,
        }),
        DealerCommand::Audit { file, json } => audit_file(&file, json),
    }
}

struct DealArgs {
    players: usize,
    cards: usize,
    hand: usize,
    public: usize,
    schedule: Option<std::path::PathBuf>,
    seed: u64,
    scheme: SchemeArg,
    cheat: Option<String>,
    save: Option<std::path::PathBuf>,
    output: OutputArgs,
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

/// Cards that sit at more than one position among the hands and the public cards, with
/// where: a cheater who steers an opening can make two players hold the same card. A
/// position opened twice (a showdown opens a hand publicly) is one card, not a duplicate.
fn duplicated(game: &Game) -> Vec<(u16, Vec<String>)> {
    let views = &game.finished.views;
    let private = views.iter().enumerate().flat_map(|(p, v)| {
        v.learned
            .iter()
            .filter(|l| !l.public)
            .map(move |l| (l.card, l.position, format!("player {}'s hand", p + 1)))
    });
    let public = views.iter().take(1).flat_map(|v| {
        v.learned
            .iter()
            .filter(|l| l.public)
            .map(|l| (l.card, l.position, "the public cards".to_owned()))
    });
    let mut seen: BTreeMap<u16, Vec<(u16, String)>> = BTreeMap::new();
    for (card, position, at) in private.chain(public) {
        let places = seen.entry(card).or_default();
        if !places.iter().any(|(i, _)| *i == position) {
            places.push((position, at));
        }
    }
    seen.into_iter()
        .filter(|(_, at)| at.len() > 1)
        .map(|(c, at)| (c, at.into_iter().map(|(_, w)| w).collect()))
        .collect()
}

fn cost_table(what: &str, phases: &[(String, Cost, Option<u64>)]) -> Table {
    let mut t =
        Table::new(&[what, "messages", "bytes", "rounds", "links"]).right_aligned([1, 2, 3, 4]);
    for (name, c, links) in phases {
        t.row(vec![
            name.clone(),
            c.messages.to_string(),
            c.bytes.to_string(),
            c.rounds.to_string(),
            links.map_or(String::new(), |l| l.to_string()),
        ]);
    }
    t
}

fn scheme_of(a: &DealArgs) -> anyhow::Result<Scheme> {
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

/// Reads and checks a schedule file against `scheme`; errors name the file and the line.
pub(crate) fn read_schedule(
    path: &std::path::Path,
    scheme: &Scheme,
) -> anyhow::Result<DealSchedule> {
    let text = read_text(path, MAX_SCHEDULE_BYTES, "a schedule file")?;
    DealSchedule::from_toml(&text, scheme).with_context(|| format!("{}", path.display()))
}

/// Plays the deal `a` asks for: the schedule file if one is given, else hands and public cards.
fn play(
    a: &DealArgs,
    scheme: &Scheme,
    cheat: Option<(PartyId, Deviation)>,
    seed: u64,
) -> anyhow::Result<Game> {
    let mut rng = seeded_rng(seed);
    Ok(match &a.schedule {
        Some(path) => {
            read_schedule(path, scheme)?.play_with_rng(scheme.clone(), cheat, &mut rng)?
        }
        None => play_with_rng(scheme.clone(), a.hand, a.public, cheat, &mut rng)?,
    })
}

fn deal(a: DealArgs) -> anyhow::Result<()> {
    let scheme = scheme_of(&a)?;
    let cheat = a
        .cheat
        .as_deref()
        .map(|s| parse_cheat(s, a.players))
        .transpose()?;
    if let Some((who, dev)) = cheat {
        let honest = play(&a, &scheme, None, a.seed)?;
        let view = honest
            .finished
            .views
            .get(who.index())
            .context("the cheater's view")?;
        if !dev.names_a_message(view) {
            let sent = view
                .sent
                .iter()
                .filter(|e| matches!(e.body, facedown_dealer::Body::Value { .. }))
                .count();
            anyhow::bail!(
                "--cheat {}: no such message — player {} sends {sent} value message(s) in this deal, so the deviation would never happen",
                a.cheat.as_deref().unwrap_or(""),
                who.0
            );
        }
    }
    let start = std::time::Instant::now();
    let game = play(&a, &scheme, cheat, a.seed)?;
    let wall = start.elapsed();
    if let Some(path) = &a.save {
        std::fs::write(path, game.finished.transcript.to_json())
            .with_context(|| format!("cannot write the transcript to {}", path.display()))?;
    }
    let report = &game.finished.audit;
    let total = game.total();
    let per_card = per_card(&game, &scheme);
    let dups = duplicated(&game);
    if a.output.json {
        Doc::new("dealer deal")
            .seed(a.seed)
            .parameters(json!({
                "scheme": format!("{:?}", scheme.variant).to_lowercase(),
                "players": a.players,
                "cards": a.cards,
                "hand": a.hand,
                "public": a.public,
                "schedule": a.schedule.as_ref().map(|p| p.display().to_string()),
                "cheat": a.cheat,
                "save": a.save.as_ref().map(|p| p.display().to_string()),
            }))
            .print(&json!({
                "scheme": format!("{:?}", scheme.variant).to_lowercase(),
                "players": a.players,
                "cards": a.cards,
                "hand": a.hand,
                "hands": game.hands,
                "public": game.public,
                "cheat": a.cheat,
                "aborted": game.aborted,
                "duplicated": dups.iter()
                    .map(|(c, at)| json!({"card": c, "at": at}))
                    .collect::<Vec<_>>(),
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
                "wall_ms": ms(wall),
            }))?;
    } else {
        print_deal(&a, &game, &scheme, &dups, wall);
    }
    audit_outcome(report, &dups)
}

/// Status 3 when the audit failed or a card was dealt twice.
fn audit_outcome(report: &AuditReport, dups: &[(u16, Vec<String>)]) -> anyhow::Result<()> {
    if !report.passed {
        let who = report
            .blame
            .map_or(String::new(), |p| format!(", blame player {}", p.0));
        return Err(CheckFailed(format!("the deal failed its audit{who}")).into());
    }
    if !dups.is_empty() {
        return Err(CheckFailed(format!("{} card(s) dealt twice", dups.len())).into());
    }
    Ok(())
}

fn print_deal(
    a: &DealArgs,
    game: &Game,
    scheme: &Scheme,
    dups: &[(u16, Vec<String>)],
    wall: std::time::Duration,
) {
    let format = a.output.format();
    let mut phases: Vec<(String, Cost, Option<u64>)> = game
        .finished
        .phases
        .iter()
        .map(|p| (p.name.to_string(), p.cost, Some(p.link_messages)))
        .collect();
    phases.push(("total".into(), game.total(), None));
    if format == Format::Csv {
        cost_table("phase", &phases).print(format);
        return;
    }
    match &a.schedule {
        Some(path) => println!(
            "Permutation-sharing dealer ({:?} scheme): N = {} players, n = {} cards, schedule {}, seed {}",
            scheme.variant, a.players, a.cards, path.display(), a.seed
        ),
        None => println!(
            "Permutation-sharing dealer ({:?} scheme): N = {} players, n = {} cards, {} per hand, {} public, seed {}",
            scheme.variant, a.players, a.cards, a.hand, a.public, a.seed
        ),
    }
    if let Some(c) = &a.cheat {
        println!("cheating: player {c}");
    }
    for (p, hand) in game.hands.iter().enumerate() {
        println!("player {} sees his hand: {}", p + 1, cards_text(hand));
    }
    println!("public cards:            {}", cards_text(&game.public));
    for (c, at) in dups {
        println!("DUPLICATED card {c}: in {}", at.join(" and "));
    }
    if !game.aborted.is_empty() {
        println!("openings that never completed: {:?}", game.aborted);
    }
    print_audit(&game.finished.audit);
    println!();
    println!("cost (messages = point-to-point deliveries, a broadcast counts N−1;");
    println!("      links = messages if each link sent one batched message per round):");
    cost_table("phase", &phases).print(format);
    println!();
    println!("cost of one opened card:");
    let per: Vec<(String, Cost, Option<u64>)> = per_card(game, scheme)
        .into_iter()
        .map(|(n, c)| (n, c, None))
        .collect();
    cost_table("route", &per).print(format);
    println!();
    println!("wall time: {:.1} ms", ms(wall));
    if let Some(path) = &a.save {
        println!("transcript saved to {}", path.display());
    }
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
        Doc::new("dealer audit")
            .parameters(json!({ "file": path.display().to_string() }))
            .print(&json!({
                "file": path.display().to_string(),
                "players": t.params.scheme.players,
                "cards": t.params.scheme.cards,
                "messages": t.envelopes.len(),
                "operations": t.operations.len(),
                "audit": audit_json(&report),
                "deal": report.deal,
            }))?;
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
        return Err(CheckFailed(format!("{}: the audit failed", path.display())).into());
    }
    Ok(())
}

mod commit_attack;
mod harness;
pub use harness::{merge_cheat, merge_collusion, merge_session, CHEAT, COLLUSION, SESSION};
