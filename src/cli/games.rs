//! `facedown games`: the games of the seed documents — list, rules, play (bots, with the move
//! log and the rule audit), solve, the seeds' claims, the Chopsticks census, the Devyatka
//! importance problem and its checker, and the audit of a saved log.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Subcommand, ValueEnum};
use facedown::cards::search::{Shard, Trials};
use facedown::games::chopsticks::{
    self, Census, Chopsticks, Graph, Solution, SolverBot, Summary, SweepError,
};
use facedown::games::claims;
use facedown::games::devyatka::{self, importance, Deal, Devyatka, Found, Player, Solver};
use facedown::games::game::{audit, play_out, Bot, Game, Log, RandomBot};
use facedown::games::golf::{self, Golf, GreedyBot};
use facedown::games::ninety_nine::{self, HeuristicBot, Length, NinetyNine, Variant};
use facedown::games::record::Record;
use facedown_core::input::{read_text, read_text_from};
use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::merge::{print_envelope, shard_results, Envelope};

/// Most reachable positions the Chopsticks solver explores (2^21: about 0.5 GB for four players).
const SOLVE_LIMIT: usize = 1 << 21;

/// Arguments of `facedown games`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: GamesCommand,
}

/// A game of the seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameName {
    /// Ninety-Nine (David Parlett), 2–5 players, fourteen variants.
    NinetyNine,
    /// Девятка, Codeforces 1769D2, two players.
    Devyatka,
    /// Golf (Nine Holes), nine or six cards.
    Golf,
    /// Chopsticks, the hand game, the (p, r) game and its variants.
    Chopsticks,
}

/// How long a Ninety-Nine or Golf session lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LengthArg {
    /// One deal (one round of Golf).
    Deal,
    /// One game: to 100 (nine deals classic, eighteen for Eighteen Ninety-Nine; nine rounds of
    /// Golf).
    Game,
    /// A rubber (Ninety-Nine).
    Rubber,
}

/// The `facedown games` subcommands.
#[derive(Debug, Subcommand)]
pub enum GamesCommand {
    /// The games, their variants, bots and solvers.
    #[command(after_help = "Example: facedown games list --json")]
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The rules of a game, in brief.
    #[command(after_help = "Example: facedown games rules ninety-nine")]
    Rules {
        /// The game.
        name: GameName,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Play a game with bots; prints the move log, the result and the rule audit.
    #[command(
        after_help = "Example: facedown games play ninety-nine --variant classic --bots heuristic,random --seed 7 --save log.json"
    )]
    Play(PlayArgs),
    /// Solve a position exactly (Chopsticks: a position code; Devyatka: a deal).
    #[command(after_help = "Example: facedown games solve chopsticks --rollover 5 --json")]
    Solve(SolveArgs),
    /// Every numeric claim of the seeds, recomputed, with a verdict.
    #[command(after_help = "Example: facedown games claims --markdown")]
    Claims {
        /// Print JSON.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print the Markdown table of `docs/games.md`.
        #[arg(long)]
        markdown: bool,
    },
    /// Chopsticks position counts: codes, distinct, reachable, ends, for a range of rollovers.
    #[command(
        after_help = "Example: facedown games census --players 2 --rollover 3..12 --solve --markdown"
    )]
    Census(CensusArgs),
    /// Codeforces 1769D2: K deals with distinct importances of the first move, the checker of
    /// such an output, and a search for the achievable importances.
    #[command(
        after_help = "Example: facedown games devyatka --k 13 > out.txt && facedown games devyatka --k 13 --check out.txt"
    )]
    Devyatka(DevyatkaArgs),
    /// Audit a log saved by `play --save`; exits with status 3 when it fails.
    #[command(after_help = "Example: facedown games audit log.json --json")]
    Audit {
        /// The saved log (JSON).
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Arguments of `facedown games play`.
#[derive(Debug, clap::Args, Serialize)]
pub struct PlayArgs {
    /// The game.
    pub name: GameName,
    /// Ninety-Nine: the variant (see `games list`); Golf: `nine` or `six`.
    #[arg(long)]
    pub variant: Option<String>,
    /// Bots, one per player, comma-separated (the last repeats): `random`, `heuristic`
    /// (Ninety-Nine), `greedy` (Golf), `solver` (Chopsticks).
    #[arg(long, value_delimiter = ',')]
    pub bots: Vec<String>,
    /// Seed of the deals and of the bots.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// One deal, a game, or a rubber.
    #[arg(long, value_enum, default_value_t = LengthArg::Deal)]
    pub length: LengthArg,
    /// Players (Golf, Chopsticks).
    #[arg(long)]
    pub players: Option<u8>,
    /// Rollover (Chopsticks).
    #[arg(long)]
    pub rollover: Option<u8>,
    /// Chopsticks variants, comma-separated (see `games rules chopsticks`).
    #[arg(long, value_delimiter = ',')]
    pub rules: Vec<String>,
    /// Golf: decks shuffled together.
    #[arg(long)]
    pub decks: Option<u8>,
    /// Golf: Jokers per deck.
    #[arg(long)]
    pub jokers: Option<u8>,
    /// Ninety-Nine: the "all trumps" rule in deals without trumps.
    #[arg(long)]
    pub all_trumps: bool,
    /// Devyatka: Bob moves first.
    #[arg(long)]
    pub bob_first: bool,
    /// Save the log (JSON) for `games audit`.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `facedown games solve`.
#[derive(Debug, clap::Args, Serialize)]
pub struct SolveArgs {
    /// The game (Chopsticks or Devyatka; the others hide information and have no exact solver).
    pub name: GameName,
    /// Chopsticks: a position code (the start when omitted). Devyatka: a file with Alice's and
    /// Bob's lines, or the two hands separated by `/` (a random deal when omitted).
    pub position: Option<String>,
    /// Players (Chopsticks).
    #[arg(long, default_value_t = 2)]
    pub players: u8,
    /// Rollover (Chopsticks).
    #[arg(long, default_value_t = 5)]
    pub rollover: u8,
    /// Chopsticks variants, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub rules: Vec<String>,
    /// Seed of the random deal (Devyatka).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Not supported: a solve is not split into shards (the error says why; see
    /// docs/cluster.md).
    #[arg(long)]
    #[serde(skip)]
    pub shard: Option<Shard>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `facedown games census`.
#[derive(Debug, clap::Args, Serialize, Deserialize)]
pub struct CensusArgs {
    /// Players.
    #[arg(long, default_value_t = 2)]
    pub players: u8,
    /// Rollovers, `A..B` or one number.
    #[arg(long, default_value = "3..12")]
    pub rollover: String,
    /// Chopsticks variants, comma-separated (`out-pass`: players who are out keep their turn).
    #[arg(long, value_delimiter = ',')]
    pub rules: Vec<String>,
    /// Print JSON.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print a Markdown table.
    #[arg(long)]
    pub markdown: bool,
    /// Also solve every game (retrograde labels by sweeps over all positions): who can force a
    /// win where, the longest forced win, the value of the start.
    #[arg(long)]
    pub solve: bool,
    /// Count only shard I of K of the rollovers (the j-th of the range, from 0, when j mod K
    /// = I − 1); with `--json` a shard envelope, combined by `facedown merge`.
    #[arg(long, conflicts_with = "markdown")]
    #[serde(skip)]
    pub shard: Option<Shard>,
}

/// Arguments of `facedown games devyatka`.
#[derive(Debug, clap::Args, Serialize)]
pub struct DevyatkaArgs {
    /// Print K deals with distinct importances, in the problem's output format.
    #[arg(long, default_value_t = 13)]
    pub k: usize,
    /// Seed of the search.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Most deals the search may solve.
    #[arg(long, default_value_t = 200_000)]
    pub budget: u64,
    /// Check an output for K instead (a file, or `-` for stdin); exits with status 3 when it
    /// fails.
    #[arg(long, value_name = "FILE")]
    pub check: Option<String>,
    /// Search for the achievable importances: `--climbs` local searches of `--steps` exchanges.
    #[arg(long)]
    pub explore: bool,
    /// Local searches of `--explore`.
    #[arg(long, default_value_t = 50)]
    pub climbs: u64,
    /// Exchanges per local search of `--explore`.
    #[arg(long, default_value_t = 400)]
    pub steps: u64,
    /// Solve this many random deals instead and print how often each importance occurs.
    #[arg(long, value_name = "N")]
    pub sample: Option<u64>,
    /// Run only shard I of K and print a shard envelope: of the `--sample` deals, deal t when
    /// t mod K = I − 1; of the climbs of the `--k` or `--explore` search, climb c when
    /// c mod K = I − 1. `facedown merge --json` puts the K shards together.
    #[arg(long, requires = "json", conflicts_with = "check")]
    #[serde(skip)]
    pub shard: Option<Shard>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `facedown games`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        GamesCommand::List { json } => list(json),
        GamesCommand::Rules { name, json } => rules(name, json),
        GamesCommand::Play(a) => play(a),
        GamesCommand::Solve(a) => solve(a),
        GamesCommand::Claims { json, markdown } => claims_table(json, markdown),
        GamesCommand::Census(a) => census(a),
        GamesCommand::Devyatka(a) => devyatka_command(a),
        GamesCommand::Audit { file, json } => audit_file(&file, json),
    }
}

/// Prints `value` as the document of `command` (the common fields of every facedown document:
/// tool, version, schema, command, the seed where one was used, the parameters).
fn print_json(
    command: &str,
    parameters: &impl Serialize,
    seed: Option<u64>,
    value: &impl Serialize,
) -> anyhow::Result<()> {
    let mut doc = super::output::Doc::new(command).parameters(serde_json::to_value(parameters)?);
    if let Some(seed) = seed {
        doc = doc.seed(seed);
    }
    doc.print(value)
}

fn bar(len: u64, what: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = if len == 0 {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::new(len)
    };
    if let Ok(style) = ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} ({elapsed})") {
        pb.set_style(style);
    }
    pb.set_message(what.to_string());
    Some(pb)
}

fn list(json: bool) -> anyhow::Result<()> {
    let variants: Vec<_> = Variant::ALL
        .iter()
        .map(|v| json!({ "name": v.name(), "players": v.rules().players, "summary": v.summary() }))
        .collect();
    let games = json!([
        { "name": "ninety-nine", "players": "2-5", "hidden_information": true,
          "bots": ["random", "heuristic"], "solver": null, "variants": variants },
        { "name": "devyatka", "players": "2", "hidden_information": true,
          "bots": ["random"], "solver": "exact (alpha-beta over the 25^4 x 2 positions of a deal)" },
        { "name": "golf", "players": "2-8", "hidden_information": true,
          "bots": ["random", "greedy"], "solver": null,
          "variants": ["nine", "six", "--decks N", "--jokers N"] },
        { "name": "chopsticks", "players": "2-6", "hidden_information": false,
          "bots": ["random", "solver"], "solver": "retrograde (win/loss/draw and distance)",
          "variants": chopsticks::Rules::SWITCHES },
    ]);
    if json {
        return print_json("games list", &json!({}), None, &json!({ "games": games }));
    }
    println!("ninety-nine  2–5 players  bots: random, heuristic   variants:");
    for v in Variant::ALL {
        println!("  {:<22} {}", v.name(), v.summary());
    }
    println!("devyatka     2 players    bots: random              exact solver of a deal");
    println!(
        "golf         2–8 players  bots: random, greedy      nine or six cards, decks, Jokers"
    );
    println!("chopsticks   2–6 players  bots: random, solver      retrograde solver; variants:");
    println!("  {}", chopsticks::Rules::SWITCHES.join(", "));
    Ok(())
}

fn rules_text(name: GameName) -> &'static str {
    match name {
        GameName::NinetyNine => ninety_nine::RULES,
        GameName::Devyatka => devyatka::RULES,
        GameName::Golf => golf::RULES,
        GameName::Chopsticks => chopsticks::RULES,
    }
}

fn rules(name: GameName, json: bool) -> anyhow::Result<()> {
    let text = rules_text(name);
    if json {
        let variants: Vec<_> = match name {
            GameName::NinetyNine => Variant::ALL
                .iter()
                .map(|v| json!({ "name": v.name(), "summary": v.summary(), "rules": v.rules() }))
                .collect(),
            _ => Vec::new(),
        };
        return print_json(
            "games rules",
            &json!({ "game": name_of(name) }),
            None,
            &json!({ "game": name_of(name), "rules": text, "variants": variants }),
        );
    }
    print!("{text}");
    if name == GameName::NinetyNine {
        println!("\nVariants (--variant):");
        for v in Variant::ALL {
            println!("  {:<22} {}", v.name(), v.summary());
        }
    }
    Ok(())
}

fn name_of(name: GameName) -> &'static str {
    match name {
        GameName::NinetyNine => "ninety-nine",
        GameName::Devyatka => "devyatka",
        GameName::Golf => "golf",
        GameName::Chopsticks => "chopsticks",
    }
}

/// A bot of a game, by name.
type MakeBot<'a, G> = &'a dyn Fn(&str) -> anyhow::Result<Box<dyn Bot<G>>>;

/// One bot per player from `names` (the last name repeats; `default` when empty).
fn bots<G: Game>(
    names: &[String],
    players: usize,
    default: &str,
    make: MakeBot<'_, G>,
) -> anyhow::Result<Vec<Box<dyn Bot<G>>>> {
    (0..players)
        .map(|i| {
            let name = names
                .get(i)
                .or(names.last())
                .map_or(default, String::as_str);
            make(name)
        })
        .collect()
}

fn unknown_bot(name: &str, game: &str, known: &str) -> anyhow::Error {
    anyhow::anyhow!("no bot `{name}` for {game} (known: {known})")
}

fn play(a: PlayArgs) -> anyhow::Result<()> {
    match a.name {
        GameName::NinetyNine => play_ninety_nine(&a),
        GameName::Devyatka => play_devyatka(&a),
        GameName::Golf => play_golf(&a),
        GameName::Chopsticks => play_chopsticks(&a),
    }
}

fn save(path: &Option<PathBuf>, record: &Record) -> anyhow::Result<()> {
    if let Some(path) = path {
        let text = serde_json::to_string_pretty(record)?;
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Prints a log's moves, one per line.
fn print_moves<G: Game>(log: &Log<G>)
where
    G::Move: std::fmt::Display,
{
    for (i, e) in log.moves.iter().enumerate() {
        println!("{:>4}. {}: {}", i + 1, e.by, e.mv);
    }
}

/// The audit of a log as JSON and as one line of text.
fn audit_summary<G: Game>(log: &Log<G>) -> anyhow::Result<(serde_json::Value, String)> {
    let verdict = audit(log)?;
    let line = match &verdict.offence {
        None => format!("audit: passed ({} moves replayed)", verdict.moves),
        Some(o) => format!("audit: FAILED — {o}"),
    };
    let value = json!({
        "passed": verdict.passed(),
        "moves": verdict.moves,
        "offence": verdict.offence,
    });
    Ok((value, line))
}

fn nn_bot(name: &str) -> anyhow::Result<Box<dyn Bot<NinetyNine>>> {
    match name {
        "random" => Ok(Box::new(RandomBot)),
        "heuristic" => Ok(Box::new(HeuristicBot)),
        _ => Err(unknown_bot(name, "ninety-nine", "random, heuristic")),
    }
}

fn play_ninety_nine(a: &PlayArgs) -> anyhow::Result<()> {
    let name = a.variant.as_deref().unwrap_or("revised");
    let variant = Variant::from_name(name).with_context(|| {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        format!("no variant `{name}` (known: {})", names.join(", "))
    })?;
    let players = variant.rules().players;
    let mut bots = bots(&a.bots, players, "heuristic", &nn_bot)?;
    let mut rng = seeded_rng(a.seed);
    let length = match a.length {
        LengthArg::Deal => Length::Deals(1),
        LengthArg::Game => Length::game(variant),
        LengthArg::Rubber => Length::rubber(variant),
    };
    let names: Vec<&str> = bots.iter().map(|b| b.name()).collect();
    let names: Vec<String> = names.into_iter().map(String::from).collect();
    let (log, standing) =
        ninety_nine::play_series(variant, a.all_trumps, length, &mut bots, &mut rng)?;
    let verdict = ninety_nine::audit_series(&log)?;
    save(&a.save, &Record::NinetyNineSeries(log.clone()))?;
    if a.json {
        return print_json(
            "games play",
            a,
            Some(a.seed),
            &json!({
                "game": "ninety-nine", "variant": variant.name(), "seed": a.seed, "bots": names,
                "log": log, "standing": standing,
                "audit": { "passed": verdict.passed(), "offence": verdict.offence, "bad_setup": verdict.bad_setup },
            }),
        );
    }
    println!(
        "ninety-nine, {variant} ({}), seed {}, bots {}",
        variant.summary(),
        a.seed,
        names.join(", ")
    );
    for (i, deal) in log.deals.iter().enumerate() {
        let game = NinetyNine::start(&deal.setup)?;
        let trump = match game.view(PartyId(1)).trump {
            Some(Some(s)) => s.to_string(),
            Some(None) => "no trumps".into(),
            None => "named in play".into(),
        };
        println!(
            "\ndeal {} — dealer {}, trumps: {trump}",
            i + 1,
            deal.setup.dealer
        );
        print_moves(deal);
        if let Ok(v) = audit(deal) {
            if let Some(o) = v.outcome {
                println!(
                    "      tricks {:?}, bids shown {:?}, points {:?}",
                    o.tricks, o.shown_bids, o.points
                );
            }
        }
    }
    println!();
    if matches!(length, Length::Games { .. }) {
        for (i, g) in standing.games.iter().enumerate() {
            let limit = if g.at_limit {
                " (closed at the deal limit, nobody reached the target)"
            } else {
                ""
            };
            println!(
                "game {}: {} deals, points {:?}, winner: {}{limit}",
                i + 1,
                g.deals,
                g.points,
                seat_name(g.winner, &variant)
            );
        }
    }
    println!(
        "totals {:?}, winner: {}",
        standing.totals,
        seat_name(standing.winner, &variant)
    );
    match (&verdict.offence, &verdict.bad_setup) {
        (None, None) => println!("audit: passed ({} deals)", verdict.deals),
        (Some((d, o)), _) => println!("audit: FAILED in deal {} — {o}", d + 1),
        (_, Some((d, why))) => println!("audit: FAILED in deal {} — {why}", d + 1),
    }
    Ok(())
}

fn seat_name(seat: Option<usize>, variant: &Variant) -> String {
    match seat {
        None => "none (a tie, or the dummy on top)".into(),
        Some(s) if Some(s) == variant.rules().dummy_seat() => "the dummy".into(),
        Some(s) => PartyId::from_index(s).to_string(),
    }
}

fn play_devyatka(a: &PlayArgs) -> anyhow::Result<()> {
    let mut rng = seeded_rng(a.seed);
    let deal = Deal::random(&mut rng);
    let first = if a.bob_first {
        Player::Bob
    } else {
        Player::Alice
    };
    let make = |name: &str| -> anyhow::Result<Box<dyn Bot<Devyatka>>> {
        match name {
            "random" => Ok(Box::new(RandomBot)),
            _ => Err(unknown_bot(name, "devyatka", "random")),
        }
    };
    let mut bots = bots(&a.bots, 2, "random", &make)?;
    let (log, game) = play_out(devyatka::Setup::new(&deal, first), &mut bots, 200, &mut rng)?;
    let optimal = Found::solve(&mut Solver::new(), deal);
    let (audit_json, audit_line) = audit_summary(&log)?;
    save(&a.save, &Record::Devyatka(log.clone()))?;
    let outcome = game.outcome();
    if a.json {
        return print_json(
            "games play",
            a,
            Some(a.seed),
            &json!({
                "game": "devyatka", "seed": a.seed, "log": log, "outcome": outcome,
                "optimal": optimal, "audit": audit_json,
            }),
        );
    }
    let [alice, bob] = deal.to_lines();
    println!(
        "devyatka, seed {}, {first:?} first\nAlice: {alice}\nBob:   {bob}",
        a.seed
    );
    print_moves(&log);
    if let Some(o) = outcome {
        println!(
            "result {:+} ({:?} wins, the loser holds {})",
            o.result, o.winner, o.loser_holds
        );
    }
    println!(
        "optimal play: {:+} with Alice first, {:+} with Bob first (importance {})",
        optimal.alice_first, optimal.bob_first, optimal.importance
    );
    println!("{audit_line}");
    Ok(())
}

fn golf_rules(a: &PlayArgs) -> anyhow::Result<golf::Rules> {
    let players = a.players.unwrap_or(2);
    let mut rules = match a.variant.as_deref().unwrap_or("nine") {
        "nine" => golf::Rules::nine(players),
        "six" => golf::Rules::six(players),
        other => bail!("no golf variant `{other}` (nine, six)"),
    };
    if let Some(d) = a.decks {
        rules.decks = d;
    }
    if let Some(j) = a.jokers {
        rules.jokers = j;
    }
    Ok(rules)
}

fn play_golf(a: &PlayArgs) -> anyhow::Result<()> {
    let rules = golf_rules(a)?;
    let make = |name: &str| -> anyhow::Result<Box<dyn Bot<Golf>>> {
        match name {
            "random" => Ok(Box::new(RandomBot)),
            "greedy" => Ok(Box::new(GreedyBot)),
            _ => Err(unknown_bot(name, "golf", "random, greedy")),
        }
    };
    let mut bots = bots(&a.bots, usize::from(rules.players), "greedy", &make)?;
    let mut rng = seeded_rng(a.seed);
    if a.length != LengthArg::Deal {
        let (log, result) = golf::play_match(rules, &mut bots, &mut rng)?;
        let verdict = golf::audit_match(&log);
        save(&a.save, &Record::GolfMatch(log.clone()))?;
        if a.json {
            return print_json(
                "games play",
                a,
                Some(a.seed),
                &json!({ "game": "golf", "seed": a.seed, "log": log,
                "result": result, "audit": { "passed": verdict.passed(), "offence": verdict.offence } }),
            );
        }
        for (i, round) in log.rounds.iter().enumerate() {
            println!("\nround {} — first {}", i + 1, round.setup.first);
            print_moves(round);
            println!("      scores {:?}", result.rounds[i]);
        }
        let winner = result
            .winner
            .map_or("none (a tie)".into(), |w| w.to_string());
        println!("\ntotals {:?}, winner: {winner}", result.totals);
        println!(
            "audit: {}",
            if verdict.passed() { "passed" } else { "FAILED" }
        );
        return Ok(());
    }
    let setup = golf::Setup::shuffled(rules, PartyId(1), &mut rng);
    let (log, game) = play_out(setup, &mut bots, 10_000, &mut rng)?;
    let (audit_json, audit_line) = audit_summary(&log)?;
    save(&a.save, &Record::Golf(log.clone()))?;
    let outcome = game.outcome();
    if a.json {
        return print_json(
            "games play",
            a,
            Some(a.seed),
            &json!({ "game": "golf", "seed": a.seed, "log": log,
            "outcome": outcome, "audit": audit_json }),
        );
    }
    println!(
        "golf, {:?} cards, {} players, seed {}",
        rules.layout, rules.players, a.seed
    );
    print_moves(&log);
    if let Some(o) = outcome {
        let out = o
            .out
            .map_or("nobody (the stock ran out)".into(), |p| p.to_string());
        println!("scores {:?}, out first: {out}", o.scores);
    }
    println!("{audit_line}");
    Ok(())
}

fn chopsticks_rules(
    players: u8,
    rollover: u8,
    switches: &[String],
) -> anyhow::Result<chopsticks::Rules> {
    let mut rules = chopsticks::Rules::pr(players, rollover);
    for s in switches {
        rules.apply(s)?;
    }
    rules.validate()?;
    Ok(rules)
}

fn play_chopsticks(a: &PlayArgs) -> anyhow::Result<()> {
    let rules = chopsticks_rules(a.players.unwrap_or(2), a.rollover.unwrap_or(5), &a.rules)?;
    let make = |name: &str| -> anyhow::Result<Box<dyn Bot<Chopsticks>>> {
        match name {
            "random" => Ok(Box::new(RandomBot)),
            "solver" => Ok(Box::new(SolverBot::new(&rules, SOLVE_LIMIT)?)),
            _ => Err(unknown_bot(name, "chopsticks", "random, solver")),
        }
    };
    let mut bots = bots(&a.bots, usize::from(rules.players), "random", &make)?;
    let mut rng = seeded_rng(a.seed);
    let (log, game) = play_out(chopsticks::Setup::new(rules, 200), &mut bots, 201, &mut rng)?;
    let (audit_json, audit_line) = audit_summary(&log)?;
    save(&a.save, &Record::Chopsticks(log.clone()))?;
    let outcome = game.outcome();
    if a.json {
        return print_json(
            "games play",
            a,
            Some(a.seed),
            &json!({ "game": "chopsticks", "seed": a.seed, "log": log,
            "outcome": outcome, "audit": audit_json }),
        );
    }
    println!(
        "chopsticks, {} players, rollover {}, seed {}",
        rules.players, rules.rollover, a.seed
    );
    let mut replay = Chopsticks::start(&log.setup)?;
    for (i, e) in log.moves.iter().enumerate() {
        replay.play(&e.mv)?;
        println!(
            "{:>4}. {}: {:<28} → {}",
            i + 1,
            e.by,
            e.mv.to_string(),
            replay.position()
        );
    }
    if let Some(o) = outcome {
        match o.winner {
            Some(w) => println!("{w} wins after {} moves", o.plies),
            None => println!("draw after {} moves", o.plies),
        }
    }
    println!("{audit_line}");
    Ok(())
}

/// Why `games solve` refuses `--shard`.
const SOLVE_UNSHARDED: &str = "`games solve` is not split into shards: a Chopsticks solve is one \
    retrograde labelling of the whole reachable graph, whose answer is not a sum or union of \
    parts (split a study over rollovers with `games census --shard`), and a Devyatka deal is one \
    exact search of a few milliseconds (split many deals with `games devyatka --sample --shard`)";

fn solve(a: SolveArgs) -> anyhow::Result<()> {
    if a.shard.is_some() {
        return Err(super::UsageError(SOLVE_UNSHARDED.into()).into());
    }
    match a.name {
        GameName::Chopsticks => solve_chopsticks(&a),
        GameName::Devyatka => solve_devyatka(&a),
        other => bail!(
            "{} hides information (face-down cards), so it has no exact solver here; try chopsticks or devyatka",
            name_of(other)
        ),
    }
}

fn solve_chopsticks(a: &SolveArgs) -> anyhow::Result<()> {
    let rules = chopsticks_rules(a.players, a.rollover, &a.rules)?;
    let start = match &a.position {
        Some(code) => rules.parse_position(code)?,
        None => rules.start(),
    };
    let t = Instant::now();
    let graph = Graph::explore(&rules, start, SOLVE_LIMIT)?;
    let solution = Solution::retrograde(&graph);
    let elapsed = t.elapsed();
    let line = principal_line(&graph, &solution, 30);
    let best: Vec<String> = solution
        .best_successors(&graph, 0)
        .iter()
        .map(|&c| graph.positions[c as usize].code())
        .collect();
    let forced = solution.winner(0);
    if a.json {
        return print_json(
            "games solve",
            a,
            None,
            &json!({
                "game": "chopsticks", "rules": rules, "position": start.code(),
                "positions": graph.len(), "value": (rules.players == 2).then(|| solution.value(0)),
                "forced_winner_seat": forced.map(|(s, _)| s), "moves": forced.map(|(_, d)| d),
                "best": best, "line": line, "solve_ms": elapsed.as_secs_f64() * 1e3,
            }),
        );
    }
    println!(
        "chopsticks {}: {} positions reachable, solved in {:.1} ms",
        start.code(),
        graph.len(),
        elapsed.as_secs_f64() * 1e3
    );
    match forced {
        None => println!("nobody can force a win: perfect play goes on for ever"),
        Some((0, d)) => println!("the player to move can force a win in {d} moves"),
        Some((s, d)) => {
            println!("the player {s} seat(s) after the mover can force a win in {d} moves")
        }
    }
    println!("best moves to: {}", best.join(" "));
    println!("a best line: {}", line.join(" "));
    Ok(())
}

/// Best play from the root, at most `max` moves (or until a position repeats).
fn principal_line(graph: &Graph, solution: &Solution, max: usize) -> Vec<String> {
    let mut line = vec![graph.positions[0].code()];
    let mut at = 0u32;
    let mut seen = vec![0u32];
    for _ in 0..max {
        let Some(&next) = solution.best_successors(graph, at).first() else {
            break;
        };
        line.push(graph.positions[next as usize].code());
        if seen.contains(&next) {
            line.push("(repeats)".into());
            break;
        }
        seen.push(next);
        at = next;
    }
    line
}

/// Reads a Devyatka output or deal (a file, or `-` for stdin), at most 1 MB.
fn read_input(source: &str) -> anyhow::Result<String> {
    let limit = importance::MAX_OUTPUT as u64;
    let what = "a Devyatka output";
    if source == "-" {
        return Ok(read_text_from(
            std::io::stdin(),
            Path::new("stdin"),
            limit,
            what,
        )?);
    }
    Ok(read_text(Path::new(source), limit, what)?)
}

fn parse_deal(text: &str) -> anyhow::Result<Deal> {
    let lines: Vec<&str> = if text.contains('/') {
        text.split('/').collect()
    } else {
        text.lines().filter(|l| !l.trim().is_empty()).collect()
    };
    let [alice, bob] = lines[..] else {
        bail!("a deal is two hands: Alice's line and Bob's line (or `A… / B…`)");
    };
    Ok(Deal::parse(alice, bob)?)
}

fn solve_devyatka(a: &SolveArgs) -> anyhow::Result<()> {
    let deal = match &a.position {
        None => Deal::random(&mut seeded_rng(a.seed)),
        Some(p) if Path::new(p).exists() => parse_deal(&read_input(p)?)?,
        Some(p) => parse_deal(p)?,
    };
    let mut solver = Solver::new();
    let t = Instant::now();
    let found = Found::solve(&mut solver, deal);
    let elapsed = t.elapsed();
    let lines = [Player::Alice, Player::Bob].map(|first| best_line(&deal, first, &mut solver));
    if a.json {
        return print_json(
            "games solve",
            a,
            Some(a.seed),
            &json!({
                "game": "devyatka", "deal": found, "solve_ms": elapsed.as_secs_f64() * 1e3,
                "best_play": { "alice_first": lines[0], "bob_first": lines[1] },
            }),
        );
    }
    let [alice, bob] = deal.to_lines();
    println!("Alice: {alice}\nBob:   {bob}");
    println!(
        "Alice first: {:+}   Bob first: {:+}   importance {}   (solved in {:.1} ms)",
        found.alice_first,
        found.bob_first,
        found.importance,
        elapsed.as_secs_f64() * 1e3
    );
    println!("best play, Alice first: {}", lines[0].join(" "));
    println!("best play, Bob first:   {}", lines[1].join(" "));
    Ok(())
}

/// One optimal game from the deal, as moves (`-` for a pass).
fn best_line(deal: &Deal, first: Player, solver: &mut Solver) -> Vec<String> {
    let Ok(mut game) = Devyatka::start(&devyatka::Setup::new(deal, first)) else {
        return Vec::new();
    };
    let mut line = Vec::new();
    while game.to_move().is_some() {
        let mv = game
            .best_cards(solver)
            .first()
            .map_or(devyatka::Move::Pass, |&c| devyatka::Move::Play(c));
        line.push(match mv {
            devyatka::Move::Play(c) => c.to_string(),
            devyatka::Move::Pass => "-".into(),
        });
        if game.play(&mv).is_err() {
            break;
        }
    }
    line
}

fn claims_table(json: bool, markdown: bool) -> anyhow::Result<()> {
    let spinner = bar(0, "recomputing the seeds' claims");
    let all = claims::all();
    if let Some(b) = spinner {
        b.finish_and_clear();
    }
    if json {
        return print_json("games claims", &json!({}), None, &json!({ "claims": all }));
    }
    if markdown {
        print!("{}", claims::markdown(&all));
        return Ok(());
    }
    for c in &all {
        println!("[{}] {} {} — {}", c.verdict.mark(), c.seed, c.game, c.claim);
        println!("      seed: {}   computed: {}", c.seed_value, c.computed);
        if !c.note.is_empty() {
            println!("      {}", c.note);
        }
    }
    let differ = all
        .iter()
        .filter(|c| c.verdict == claims::Verdict::Differs)
        .count();
    let reading = all
        .iter()
        .filter(|c| c.verdict == claims::Verdict::Reading)
        .count();
    println!(
        "\n{} claims: {} agree, {differ} differ, {reading} depend on a reading of the rules",
        all.len(),
        all.len() - differ - reading
    );
    Ok(())
}

fn rollover_range(text: &str) -> anyhow::Result<Vec<u8>> {
    let parse = |s: &str| {
        s.trim()
            .parse::<u8>()
            .with_context(|| format!("`{s}` is not a rollover"))
    };
    match text.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (parse(a)?, parse(b)?);
            anyhow::ensure!(a <= b, "the rollover range `{text}` is empty ({a} > {b})");
            Ok((a..=b).collect())
        }
        None => Ok(vec![parse(text)?]),
    }
}

/// The command whose shards `facedown merge` combines with [`merge_census`].
pub const CENSUS: &str = "games census";

/// The rollovers of `range` that `shard` counts (all of them without a shard).
fn census_share(range: &[u8], shard: Option<Shard>) -> Vec<u8> {
    range
        .iter()
        .enumerate()
        .filter(|(j, _)| shard.is_none_or(|s| s.owns(*j)))
        .map(|(_, &r)| r)
        .collect()
}

fn census(a: CensusArgs) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    let rollovers = census_share(&rollover_range(&a.rollover)?, a.shard);
    for &r in &rollovers {
        let rules = chopsticks_rules(a.players, r, &a.rules)?;
        let progress = bar(0, &format!("({}, {r})", a.players));
        let t = Instant::now();
        let c = chopsticks::census(&rules, &mut |n| {
            if let Some(b) = &progress {
                b.set_position(n);
            }
        })?;
        if let Some(b) = progress {
            b.finish_and_clear();
        }
        let seconds = t.elapsed().as_secs_f64();
        let solved = if a.solve {
            let progress = bar(0, &format!("({}, {r}) sweeps", a.players));
            let t = Instant::now();
            let summary = Summary::by_sweeps(&rules, &mut |k| {
                if let Some(b) = &progress {
                    b.set_position(u64::from(k));
                }
            });
            if let Some(b) = progress {
                b.finish_and_clear();
            }
            match summary {
                Ok(s) => Some((Some(s), t.elapsed().as_secs_f64())),
                Err(SweepError::TooLarge(_)) => Some((None, 0.0)),
                Err(e) => return Err(e.into()),
            }
        } else {
            None
        };
        rows.push((c, seconds, solved));
    }
    if a.json {
        let out: Vec<_> = rows.iter().map(census_row_json).collect();
        if let Some(shard) = a.shard {
            let result = json!({ "rollovers": rollovers, "rows": out });
            let envelope = Envelope::new(CENSUS, serde_json::to_value(&a)?, shard, None, result);
            println!("{}", serde_json::to_string_pretty(&envelope)?);
            return Ok(());
        }
        return print_json(
            CENSUS,
            &a,
            None,
            &json!({ "players": a.players, "rules": a.rules, "rows": out }),
        );
    }
    if a.markdown {
        census_markdown(&rows, a.solve);
        return Ok(());
    }
    for (c, s, solved) in rows {
        let codes = c.codes.map_or("—".into(), |n| n.to_string());
        println!(
            "r = {:>2}: {codes:>14} codes  {:>10} distinct  {:>10} reachable  {:>4} ends  ({s:.2} s)",
            c.rollover, c.distinct, c.reachable, c.ends
        );
        match solved {
            Some((Some(x), secs)) => println!(
                "        solved ({secs:.2} s): mover wins {}, another player wins {}, nobody {}; longest forced win {}; start: {}",
                x.mover_wins, x.other_wins, x.nobody, x.longest_win, x.start_in_words()
            ),
            Some((None, _)) => println!("        not solved: too many positions to label"),
            None => {}
        }
    }
    Ok(())
}

/// A census row: the counts, their time, and the solution (`None` inside: too large) with its time.
type CensusRow = (Census, f64, Option<(Option<Summary>, f64)>);

fn census_row_json((c, s, solved): &CensusRow) -> serde_json::Value {
    let mut row = json!({ "census": c, "wall_ms": s * 1e3 });
    if let Some((summary, secs)) = solved {
        row["solved"] = json!(summary);
        row["solve_wall_ms"] = json!(secs * 1e3);
    }
    row
}

/// Combines the shards of one `games census --json` run (checked by `facedown merge` to be
/// `1/K … K/K` of one query) into the document of the unsplit run: each shard must hold the
/// rows of exactly its rollovers, and the rows are put back in the order of the range.
pub fn merge_census(shards: &[(PathBuf, Envelope)]) -> anyhow::Result<()> {
    let (_, first) = shards.first().context("no shards")?;
    let a: CensusArgs = CensusArgs::deserialize(&first.query)
        .map_err(|e| anyhow::anyhow!("not a games census query ({e})"))?;
    let range = rollover_range(&a.rollover)?;
    let mut rows: Vec<Option<serde_json::Value>> = vec![None; range.len()];
    for (file, env) in shards {
        let bad = |why: String| anyhow::anyhow!("{}: {why}", file.display());
        let want = census_share(&range, Some(env.shard));
        let got: Vec<u8> = serde_json::from_value(env.result["rollovers"].clone())
            .map_err(|e| bad(format!("its rollovers: {e}")))?;
        let shard_rows = env.result["rows"].as_array().cloned().unwrap_or_default();
        let row_rollovers: Vec<Option<u64>> = shard_rows
            .iter()
            .map(|r| r["census"]["rollover"].as_u64())
            .collect();
        let want_u64: Vec<Option<u64>> = want.iter().map(|&r| Some(u64::from(r))).collect();
        if got != want || row_rollovers != want_u64 {
            return Err(bad(format!(
                "shard {} must count rollovers {want:?}, its rows are for {row_rollovers:?}",
                env.shard
            )));
        }
        for (row, r) in shard_rows.into_iter().zip(want) {
            let j = range
                .iter()
                .position(|&x| x == r)
                .context("a rollover of the range")?;
            rows[j] = Some(row);
        }
    }
    let rows: Vec<serde_json::Value> = rows.into_iter().flatten().collect();
    print_json(
        CENSUS,
        &first.query,
        None,
        &json!({ "players": a.players, "rules": a.rules, "rows": rows }),
    )
}

fn census_markdown(rows: &[CensusRow], solve: bool) {
    if solve {
        println!("| r | reachable | ends | mover wins | another wins | nobody | longest forced win | start | seconds |");
        println!("|---|---|---|---|---|---|---|---|---|");
    } else {
        println!("| r | positions (codes) | functionally distinct | reachable | ends | seconds |");
        println!("|---|---|---|---|---|---|");
    }
    for (c, s, solved) in rows {
        let codes = c.codes.map_or("—".into(), |n| n.to_string());
        match solved {
            None => println!(
                "| {} | {codes} | {} | {} | {} | {s:.2} |",
                c.rollover, c.distinct, c.reachable, c.ends
            ),
            Some((Some(x), secs)) => println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {secs:.2} |",
                c.rollover,
                x.reachable,
                x.ends,
                x.mover_wins,
                x.other_wins,
                x.nobody,
                x.longest_win,
                x.start_in_words()
            ),
            Some((None, _)) => println!(
                "| {} | {} | {} | — | — | — | — | not solved (too many positions) | — |",
                c.rollover, c.reachable, c.ends
            ),
        }
    }
}

fn devyatka_command(a: DevyatkaArgs) -> anyhow::Result<()> {
    if let Some(source) = &a.check {
        return devyatka_check(source, a.k, a.json);
    }
    if a.explore {
        return devyatka_explore(&a);
    }
    if let Some(n) = a.sample {
        return devyatka_sample(Trials::share(n, a.shard), a.seed, a.json);
    }
    devyatka_distinct(&a)
}

/// `games devyatka --k K`: the climbs of its share (all without `--shard`).
fn devyatka_distinct(a: &DevyatkaArgs) -> anyhow::Result<()> {
    let progress = bar(a.k as u64, "distinct importances");
    let t = Instant::now();
    let share = Trials::share(importance::budget_climbs(a.budget), a.shard);
    let log = importance::distinct_climbs(a.k, (a.budget, a.seed), share.iter(), &mut |n| {
        if let Some(b) = &progress {
            b.set_position(n as u64);
        }
    })?;
    let wall_ms = t.elapsed().as_secs_f64() * 1e3;
    if let Some(b) = progress {
        b.finish_and_clear();
    }
    let query = json!({ "k": a.k, "budget": a.budget });
    if let Some(shard) = a.shard {
        let body = ClimbBody {
            seed: a.seed,
            wall_ms,
            cpu_ms: 0.0,
            log,
            shard: Some(shard),
        };
        return print_envelope(DEVYATKA, query, shard, Some(a.seed), &body);
    }
    let found = importance::distinct_from(a.k, a.budget, &[log])?;
    print_distinct(&query, (a.k, a.seed), &found, wall_ms, a.json)
}

/// Prints the answer of a search for `k` distinct importances.
fn print_distinct(
    query: &serde_json::Value,
    (k, seed): (usize, u64),
    found: &importance::Distinct,
    wall_ms: f64,
    json: bool,
) -> anyhow::Result<()> {
    let output = importance::format_output(&found.deals);
    if json {
        return print_json(
            DEVYATKA,
            query,
            Some(seed),
            &json!({ "k": k, "seed": seed, "wall_ms": wall_ms, "deals": found.deals,
            "climbs": found.climbs, "evaluations": found.evaluations, "output": output }),
        );
    }
    print!("{output}");
    Ok(())
}

fn devyatka_check(source: &str, k: usize, json: bool) -> anyhow::Result<()> {
    let text = read_input(source)?;
    let verdict = devyatka::check_output(&text, k);
    if json {
        let value = match &verdict {
            Ok(c) => json!({ "passed": true, "k": k, "deals": c.deals }),
            Err(e) => json!({ "passed": false, "k": k, "error": e, "reason": e.to_string() }),
        };
        print_json(
            "games devyatka",
            &json!({ "k": k, "check": source }),
            None,
            &value,
        )?;
    } else {
        match &verdict {
            Ok(c) => {
                let imp: Vec<String> = c.deals.iter().map(|d| d.importance.to_string()).collect();
                println!("OK: {k} deals, importances {}", imp.join(" "));
            }
            Err(e) => println!("WRONG: {e}"),
        }
    }
    if let Err(e) = verdict {
        return Err(
            super::CheckFailed(format!("the output for k = {k} fails the checker: {e}")).into(),
        );
    }
    Ok(())
}

fn devyatka_explore(a: &DevyatkaArgs) -> anyhow::Result<()> {
    let share = Trials::share(a.climbs, a.shard);
    let progress = bar(share.len(), "climbs");
    let t = Instant::now();
    let cpu = cpu_time::ProcessTime::now();
    let log = importance::explore_climbs(share.iter(), (a.steps, a.seed), &mut |_, top| {
        if let Some(b) = &progress {
            b.inc(1);
            b.set_message(format!("climbs (largest {top})"));
        }
    });
    let (wall, cpu) = (t.elapsed().as_secs_f64(), cpu.elapsed().as_secs_f64());
    if let Some(b) = progress {
        b.finish_and_clear();
    }
    let query = json!({ "explore": true, "climbs": a.climbs, "steps": a.steps });
    if let Some(shard) = a.shard {
        let body = ClimbBody {
            seed: a.seed,
            wall_ms: wall * 1e3,
            cpu_ms: cpu * 1e3,
            log,
            shard: Some(shard),
        };
        return print_envelope(DEVYATKA, query, shard, Some(a.seed), &body);
    }
    let e = importance::exploration_from(a.climbs, &[log])?;
    print_exploration(&query, (a.seed, a.steps), &e, (wall, cpu), a.json)
}

/// Prints what an exploration found; `(wall, cpu)` in seconds.
fn print_exploration(
    query: &serde_json::Value,
    (seed, steps): (u64, u64),
    e: &importance::Exploration,
    (wall, cpu): (f64, f64),
    json: bool,
) -> anyhow::Result<()> {
    let max = e.max().copied();
    if json {
        return print_json(
            DEVYATKA,
            query,
            Some(seed),
            &json!({ "seed": seed, "climbs": e.climbs, "steps": steps,
            "evaluations": e.evaluations, "wall_ms": wall * 1e3, "cpu_ms": cpu * 1e3,
            "values": e.values.keys().collect::<Vec<_>>(), "gaps": e.gaps(), "largest": max }),
        );
    }
    let values: Vec<String> = e.values.keys().map(u32::to_string).collect();
    println!("importances found: {}", values.join(" "));
    println!("gaps below the largest: {:?}", e.gaps());
    if let Some(m) = max {
        let [alice, bob] = m.deal.to_lines();
        println!(
            "largest: {} (Alice first {:+}, Bob first {:+})\n{alice}\n{bob}",
            m.importance, m.alice_first, m.bob_first
        );
    }
    println!(
        "{} deals solved in {wall:.1} s wall, {cpu:.1} s CPU ({:.2} ms CPU per deal)",
        e.evaluations,
        1e3 * cpu / e.evaluations.max(1) as f64
    );
    Ok(())
}

/// A shard of the `--k` or `--explore` search: its climbs' log and timings.
#[derive(Serialize, Deserialize)]
struct ClimbBody {
    seed: u64,
    wall_ms: f64,
    cpu_ms: f64,
    log: importance::ClimbLog,
    shard: Option<Shard>,
}

/// Puts the shards of one `games devyatka --k K --shard I/K --json` or `--explore` run
/// (checked by `facedown merge` to be `1/K … K/K` of one run) together into the document of
/// the unsplit run ([`importance::distinct_from`], [`importance::exploration_from`]): each
/// shard must hold only climbs of its share, and every deal of the answer is solved again.
pub fn merge_devyatka(shards: &[(PathBuf, Envelope)]) -> anyhow::Result<()> {
    let (_, first) = shards.first().context("no shards")?;
    if first.query.get("sample").is_some() {
        return merge_devyatka_sample(shards);
    }
    let parts: Vec<ClimbBody> = shard_results(shards, DEVYATKA, |b: &ClimbBody| b.shard)?;
    let seed = first.seed.context("the shards carry no seed")?;
    let read = |key: &str| -> anyhow::Result<u64> {
        serde_json::from_value(first.query[key].clone())
            .with_context(|| format!("the shards' query has no {key}"))
    };
    for ((file, env), p) in shards.iter().zip(&parts) {
        let foreign = p
            .log
            .finds
            .iter()
            .find(|f| !usize::try_from(f.climb).is_ok_and(|c| env.shard.owns(c)));
        if let Some(f) = foreign {
            bail!(
                "{}: climb {} is not of shard {}",
                file.display(),
                f.climb,
                env.shard
            );
        }
    }
    let logs: Vec<importance::ClimbLog> = parts.iter().map(|p| p.log.clone()).collect();
    let wall: f64 = parts.iter().map(|p| p.wall_ms).sum::<f64>() / 1e3;
    let cpu: f64 = parts.iter().map(|p| p.cpu_ms).sum::<f64>() / 1e3;
    if first.query.get("explore").is_some() {
        let e = importance::exploration_from(read("climbs")?, &logs)?;
        solved_again(e.values.values())?;
        return print_exploration(&first.query, (seed, read("steps")?), &e, (wall, cpu), true);
    }
    let k = usize::try_from(read("k")?)?;
    let found = importance::distinct_from(k, read("budget")?, &logs)?;
    solved_again(&found.deals)?;
    print_distinct(&first.query, (k, seed), &found, wall * 1e3, true)
}

/// Solves every deal again: a shard's deal must have the results it claims.
fn solved_again<'a>(deals: impl IntoIterator<Item = &'a Found>) -> anyhow::Result<()> {
    let mut solver = Solver::new();
    for f in deals {
        if Found::solve(&mut solver, f.deal) != *f {
            let [alice, bob] = f.deal.to_lines();
            bail!("a shard's deal {alice} / {bob} does not have the results it claims");
        }
    }
    Ok(())
}

/// The command whose shards `facedown merge` combines with [`merge_devyatka`].
pub const DEVYATKA: &str = "games devyatka";

/// The `--sample` document's body: deals solved, how many of each importance, CPU time.
#[derive(Serialize, Deserialize)]
struct SampleBody {
    deals: u64,
    seed: u64,
    cpu_ms: f64,
    importances: std::collections::BTreeMap<u32, u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<Shard>,
}

/// Adds up the shards of one `games devyatka --sample N --shard I/K --json` run (checked by
/// `facedown merge` to be `1/K … K/K` of one run) into the document of the unsplit run: the
/// deals and the count of each importance summed, the CPU time too.
fn merge_devyatka_sample(shards: &[(PathBuf, Envelope)]) -> anyhow::Result<()> {
    let parts: Vec<SampleBody> = shard_results(shards, DEVYATKA, |b: &SampleBody| b.shard)?;
    let (_, first) = shards.first().context("no shards")?;
    let n: u64 = serde_json::from_value(first.query["sample"].clone())
        .context("the shards' query has no sample size")?;
    let mut merged = SampleBody {
        deals: 0,
        seed: first.seed.context("the shards carry no seed")?,
        cpu_ms: 0.0,
        importances: std::collections::BTreeMap::new(),
        shard: None,
    };
    for ((file, env), p) in shards.iter().zip(&parts) {
        let share = Trials::share(n, Some(env.shard)).len();
        if p.deals != share
            || p.importances
                .values()
                .try_fold(0u64, |a, &b| a.checked_add(b))
                != Some(share)
        {
            bail!(
                "{}: {} deals solved, its share is {share}",
                file.display(),
                p.deals
            );
        }
        merged.deals += p.deals;
        merged.cpu_ms += p.cpu_ms;
        for (importance, count) in &p.importances {
            *merged.importances.entry(*importance).or_default() += count;
        }
    }
    print_json(DEVYATKA, &first.query, Some(merged.seed), &merged)
}

fn devyatka_sample(share: Trials, seed: u64, json: bool) -> anyhow::Result<()> {
    let n = share.count();
    let progress = bar(share.len(), "random deals");
    let cpu = cpu_time::ProcessTime::now();
    let mut solver = Solver::new();
    let mut counts: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    for i in share.iter() {
        let deal = Deal::random(&mut facedown_core::rng::trial_rng(seed, i));
        *counts.entry(solver.importance(&deal)).or_default() += 1;
        if let Some(b) = &progress {
            b.inc(1);
        }
    }
    let cpu = cpu.elapsed().as_secs_f64();
    if let Some(b) = progress {
        b.finish_and_clear();
    }
    if json {
        let body = SampleBody {
            deals: share.len(),
            seed,
            cpu_ms: cpu * 1e3,
            importances: counts,
            shard: share.shard(),
        };
        let query = json!({ "sample": n });
        return match share.shard() {
            Some(shard) => print_envelope(DEVYATKA, query, shard, Some(seed), &body),
            None => print_json(DEVYATKA, &query, Some(seed), &body),
        };
    }
    for (importance, count) in &counts {
        println!(
            "importance {importance:>2}: {count:>7} deals ({:.2} %)",
            100.0 * *count as f64 / n as f64
        );
    }
    println!(
        "{n} deals in {cpu:.1} s CPU ({:.2} ms per deal, both first movers)",
        1e3 * cpu / n.max(1) as f64
    );
    Ok(())
}

/// A saved log, at most 64 MB, read strictly: a field the format does not have or the variant
/// ignores, and a series without deals, are refused ([`Record::from_json`]).
fn read_record(path: &Path) -> anyhow::Result<Record> {
    let text = read_text(path, 64 << 20, "a saved game log")?;
    Record::from_json(&text).with_context(|| format!("{} cannot be audited", path.display()))
}

fn audit_file(path: &Path, json: bool) -> anyhow::Result<()> {
    let record = read_record(path)?;
    let (passed, report) = match &record {
        Record::NinetyNine(log) => one_audit(log)?,
        Record::Devyatka(log) => one_audit(log)?,
        Record::Golf(log) => one_audit(log)?,
        Record::Chopsticks(log) => one_audit(log)?,
        Record::NinetyNineSeries(log) => {
            let v = ninety_nine::audit_series(log)?;
            let value = json!({ "passed": v.passed(), "deals": v.deals, "offence": v.offence,
                "bad_setup": v.bad_setup, "standing": v.standing });
            (v.passed(), value)
        }
        Record::GolfMatch(log) => {
            let v = golf::audit_match(log);
            let value = json!({ "passed": v.passed(), "offence": v.offence,
                "bad_setup": v.bad_setup, "result": v.result });
            (v.passed(), value)
        }
    };
    if json {
        print_json("games audit", &json!({ "file": path }), None, &report)?;
    } else if passed {
        println!("audit: passed");
    } else {
        println!("audit: FAILED — {}", serde_json::to_string(&report)?);
    }
    if !passed {
        return Err(super::CheckFailed("the rule audit of the log failed".to_owned()).into());
    }
    Ok(())
}

fn one_audit<G: Game>(log: &Log<G>) -> anyhow::Result<(bool, serde_json::Value)> {
    let v = audit(log)?;
    let offender = v.offender();
    let text = v.offence.as_ref().map(|o| match &o.fault {
        facedown::games::game::Fault::Illegal(why) => format!("move {}: {} {why}", o.index, o.by),
        _ => format!("{:?}", o.fault),
    });
    let value = json!({ "passed": v.passed(), "moves": v.moves, "offender": offender,
        "offence": v.offence, "reason": text, "outcome": v.outcome });
    Ok((v.passed(), value))
}
