//! Whole games as workloads of the comparison: Ninety-Nine, Golf and Девятка played by their
//! sessions ([`crate::table_game`], [`crate::table_golf_devyatka`]) on every backend that
//! hosts them, with every move announced through the table and checked by every player.
//!
//! The ideal table is one trusted table shared by the players' threads; the dealer and the
//! encrypted deck are one engine per player on its own thread over the in-memory network (the
//! very players `play-local --game` runs as processes over TCP, so the messages, bytes and
//! rounds are the ones TCP carries). A row is one backend's runs of one game: its cost per run
//! (one game or one hand), per deal and per trick (Golf and Девятка have no tricks: their unit is
//! the move said, one public announcement). Every run must end with every player agreeing that
//! nobody cheated; anything else fails the comparison.
//!
//! What a backend shows **beyond the rules** is counted per run: the cards the end-of-hand audit
//! turns that the rules let a player keep hidden — a silent bidder's three bid cards in
//! Ninety-Nine, the cards left in the losers' hands in Девятка (Golf turns every grid card by
//! its rules; its audit adds only the undrawn stock, which is nobody's).

use std::time::{Duration, Instant};

use cpu_time::{ProcessTime, ThreadTime};
use facedown_core::rng::Randomness;
use facedown_core::{Cost, PartyId};
use facedown_games::golf::Rules;
use facedown_games::ninety_nine::{Length, Variant};
use facedown_net::{Latency, MemoryChannel};
use serde::Serialize;

pub use super::games_tcp::Network;
use super::{Backend, CompareError, Row, CONTEXT};
use crate::table_game::{self, GameBackend, GameError, GameSpec};
use crate::table_golf_devyatka::{self as card_games, CardGame, CardGameSpec, Played};

/// Which games the comparison plays (`facedown compare --games`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum GameSet {
    /// No games.
    None,
    /// One hand of each game: a Ninety-Nine deal, a Golf round, a Девятка deal (the default).
    #[default]
    Hand,
    /// The whole games: Ninety-Nine to 100, nine rounds of Golf, a Девятка deal.
    Full,
}

impl GameSet {
    /// The set called `name` (`none`, `hand`, `full`).
    pub fn from_name(name: &str) -> Option<GameSet> {
        [GameSet::None, GameSet::Hand, GameSet::Full]
            .into_iter()
            .find(|s| s.name() == name)
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            GameSet::None => "none",
            GameSet::Hand => "hand",
            GameSet::Full => "full",
        }
    }
}

/// What is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Game {
    /// Ninety-Nine in `variant`, for `length`.
    NinetyNine {
        /// The variant (its rules fix the number of players).
        variant: Variant,
        /// How long.
        length: Length,
    },
    /// Golf or Девятка.
    Card(CardGame),
}

/// One game workload of the comparison (its name starts with `game `, so `--only game` selects
/// the games).
#[derive(Clone, Debug)]
pub struct GameEntry {
    /// Its name in the table.
    pub name: String,
    /// What is played.
    pub game: Game,
    /// Players at the table.
    pub players: usize,
    /// Games played on each backend (each from its own seed).
    pub reps: u64,
}

/// The game workloads of `set`, in table order.
pub fn game_entries(set: GameSet) -> Vec<GameEntry> {
    let full = set == GameSet::Full;
    let revised = Variant::Revised;
    let (nn_name, nn_length) = if full {
        ("game ninety-nine to 100 (3p)", Length::game(revised))
    } else {
        ("game ninety-nine, one hand (3p)", Length::Deals(1))
    };
    let mut golf = Rules::nine(3);
    if !full {
        golf.rounds = 1;
    }
    let golf_name = if full {
        "game golf, nine rounds (3p)"
    } else {
        "game golf, one round (3p)"
    };
    let entry = |name: &str, game, players| GameEntry {
        name: name.to_owned(),
        game,
        players,
        reps: 1,
    };
    let games = vec![
        entry(
            nn_name,
            Game::NinetyNine {
                variant: revised,
                length: nn_length,
            },
            3,
        ),
        entry(
            "game ninety-nine two-dummy, one hand (2p)",
            Game::NinetyNine {
                variant: Variant::TwoDummy,
                length: Length::Deals(1),
            },
            2,
        ),
        entry(golf_name, Game::Card(CardGame::Golf(golf)), 3),
        entry(
            "game devyatka, one deal (3p)",
            Game::Card(CardGame::Devyatka),
            3,
        ),
    ];
    if set == GameSet::None {
        Vec::new()
    } else {
        games
    }
}

/// What a game row adds to a [`Row`]: its size and its cost per deal and per trick.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GameFigures {
    /// Deals (hands, rounds) per run.
    pub deals: f64,
    /// Tricks per run (Ninety-Nine), or moves said (Golf, Девятка).
    pub tricks: f64,
    /// What `tricks` counts: `trick` or `move`.
    pub trick_unit: &'static str,
    /// Cost per deal.
    pub per_deal: PerUnit,
    /// Cost per trick (or move).
    pub per_trick: PerUnit,
    /// Cards per run that the rules let a player keep hidden and the end-of-hand audit turns.
    pub hidden_cards_opened: f64,
    /// Which cards those are.
    pub hidden_cards_are: &'static str,
}

/// A run's cost divided by a unit (a deal, a trick).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PerUnit {
    /// Messages (point-to-point deliveries).
    pub messages: f64,
    /// Payload bytes.
    pub bytes: f64,
    /// Sequential rounds.
    pub rounds: f64,
    /// Process CPU time, every player included (ms).
    pub cpu_ms: f64,
    /// Wall-clock time (ms).
    pub wall_ms: f64,
}

/// What one game cost and did, summed over the players (rounds: the most any player saw).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRun {
    /// Messages and bytes every player sent; rounds, the deepest any player saw.
    pub cost: Cost,
    /// Deals played.
    pub deals: u64,
    /// Tricks (or moves said) played.
    pub tricks: u64,
    /// Hidden cards the audit turned ([`GameFigures::hidden_cards_opened`]).
    pub hidden_opened: u64,
    /// The busiest player's own CPU time (his thread's), on the networked backends.
    pub busiest: Option<Duration>,
}

fn game_backend(backend: Backend) -> GameBackend {
    match backend {
        Backend::Ideal => GameBackend::Ideal,
        Backend::Dealer => GameBackend::Dealer,
        Backend::Encrypted => GameBackend::Poker,
    }
}

/// The seed of run `k` of a row seeded with `seed`.
fn run_seed(seed: u64, k: u64) -> u64 {
    seed.wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// A specification of the entry's game, or why `backend` cannot host it.
enum Spec {
    NinetyNine(GameSpec),
    Card(CardGameSpec),
}

fn spec(entry: &GameEntry, backend: Backend, seed: u64) -> Result<Spec, String> {
    let (backend, context, timeout) = (
        game_backend(backend),
        CONTEXT.to_vec(),
        Duration::from_secs(600),
    );
    match entry.game {
        Game::NinetyNine { variant, length } => {
            let s = GameSpec {
                backend,
                variant,
                length,
                randomness: Randomness::Seed(seed),
                cheat: None,
                context,
                timeout,
            };
            s.check().map(|()| Spec::NinetyNine(s))
        }
        Game::Card(game) => {
            let s = CardGameSpec {
                backend,
                game,
                players: entry.players,
                randomness: Randomness::Seed(seed),
                cheat: None,
                context,
                timeout,
            };
            s.check().map(|()| Spec::Card(s))
        }
    }
}

/// What one player's session reports, reduced to what the comparison needs.
struct SeatFigures {
    cost: Cost,
    deals: u64,
    tricks: u64,
    hidden_opened: u64,
    offender: Option<PartyId>,
}

fn ninety_nine_figures(r: &table_game::SeatReport) -> SeatFigures {
    let hands = &r.game.hands;
    let silent: usize = hands
        .iter()
        .filter_map(|h| h.outcome.as_ref())
        .map(|o| o.shown_bids.iter().filter(|b| b.is_none()).count())
        .sum();
    SeatFigures {
        cost: r.cost,
        deals: hands.len() as u64,
        tricks: hands.iter().map(|h| h.tricks as u64).sum(),
        hidden_opened: 3 * silent as u64,
        offender: r.game.verdict.offender,
    }
}

fn card_figures(r: &card_games::CardSeatReport) -> SeatFigures {
    let (deals, tricks, hidden_opened) = match &r.game {
        Played::Golf(g) => (
            g.rounds.len() as u64,
            g.rounds.iter().map(|r| r.said.len() as u64).sum(),
            0,
        ),
        Played::Devyatka(d) => (
            1,
            d.said.len() as u64,
            d.outcome
                .as_ref()
                .map_or(0, |o| o.holds.iter().map(|&h| u64::from(h)).sum()),
        ),
    };
    SeatFigures {
        cost: r.cost,
        deals,
        tricks,
        hidden_opened,
        offender: r.game.verdict().offender,
    }
}

/// Plays one networked game: every player on its own thread over the in-memory network, each
/// thread's CPU clock read around its player.
fn threads(
    players: usize,
    latency: Option<Duration>,
    play: impl Fn(MemoryChannel) -> Result<SeatFigures, GameError> + Send + Sync + Clone + 'static,
) -> Vec<Result<(SeatFigures, Duration), GameError>> {
    let handles: Vec<_> = facedown_net::memory_network(players, latency.map(Latency::fixed))
        .into_iter()
        .map(|chan| {
            let play = play.clone();
            std::thread::spawn(move || {
                let start = ThreadTime::try_now().ok();
                let figures = play(chan)?;
                Ok((figures, start.map_or(Duration::ZERO, |s| s.elapsed())))
            })
        })
        .collect();
    table_game::join_players(handles)
}

fn seats(
    spec: Spec,
    players: usize,
    latency: Option<Duration>,
) -> Vec<Result<(SeatFigures, Option<Duration>), GameError>> {
    let untimed = |r: Result<SeatFigures, GameError>| r.map(|f| (f, None));
    let timed = |r: Result<(SeatFigures, Duration), GameError>| r.map(|(f, t)| (f, Some(t)));
    match spec {
        Spec::NinetyNine(s) if s.backend == GameBackend::Ideal => table_game::play_threads(&s)
            .into_iter()
            .map(|r| untimed(r.map(|r| ninety_nine_figures(&r))))
            .collect(),
        Spec::Card(s) if s.backend == GameBackend::Ideal => card_games::play_threads(&s)
            .into_iter()
            .map(|r| untimed(r.map(|r| card_figures(&r))))
            .collect(),
        Spec::NinetyNine(s) => threads(players, latency, move |chan| {
            table_game::play_seat(chan, &s).map(|r| ninety_nine_figures(&r))
        })
        .into_iter()
        .map(timed)
        .collect(),
        Spec::Card(s) => threads(players, latency, move |chan| {
            card_games::play_seat(chan, &s).map(|r| card_figures(&r))
        })
        .into_iter()
        .map(timed)
        .collect(),
    }
}

/// Plays `entry` once on `backend` from `seed` (`latency`: a one-way delay per message on the
/// networked backends); a backend that cannot host the game is an error ([`unsupported`]
/// says why beforehand), and so is a game in which anyone is blamed.
pub fn play_once(
    entry: &GameEntry,
    backend: Backend,
    seed: u64,
    latency: Option<Duration>,
) -> Result<GameRun, CompareError> {
    let failed = |reason: String| CompareError::Run {
        workload: entry.name.clone(),
        backend: backend.name(),
        reason,
    };
    let spec = spec(entry, backend, seed).map_err(failed)?;
    let mut run = GameRun {
        cost: Cost::ZERO,
        deals: 0,
        tricks: 0,
        hidden_opened: 0,
        busiest: None,
    };
    let mut first: Option<(u64, u64, u64)> = None;
    for seat in seats(spec, entry.players, latency) {
        let (f, cpu) = seat.map_err(|e| failed(format!("a player failed: {e}")))?;
        if let Some(p) = f.offender {
            return Err(failed(format!("an honest game blamed {p}")));
        }
        let shape = (f.deals, f.tricks, f.hidden_opened);
        if *first.get_or_insert(shape) != shape {
            return Err(failed("the players saw different games".into()));
        }
        run.cost = Cost {
            messages: run.cost.messages + f.cost.messages,
            bytes: run.cost.bytes + f.cost.bytes,
            rounds: run.cost.rounds.max(f.cost.rounds),
        };
        run.busiest = cpu.map(|c| run.busiest.map_or(c, |b| b.max(c)));
    }
    let (deals, tricks, hidden) = first.ok_or_else(|| failed("no player reported".into()))?;
    (run.deals, run.tricks, run.hidden_opened) = (deals, tricks, hidden);
    Ok(run)
}

/// Why `backend` cannot host `entry`'s game, if it cannot.
pub fn unsupported(entry: &GameEntry, backend: Backend) -> Option<String> {
    spec(entry, backend, 0).err()
}

fn hidden_cards_are(game: Game) -> &'static str {
    match game {
        Game::NinetyNine { .. } => "silent bidders' bid cards",
        Game::Card(CardGame::Devyatka) => "cards left in the losers' hands",
        Game::Card(CardGame::Golf(_)) => "none (the rules turn every grid card)",
    }
}

/// What the backend shows beyond the rules, for the row's notes.
fn leak_note(entry: &GameEntry, backend: Backend, opened: f64) -> String {
    let what = hidden_cards_are(entry.game);
    match backend {
        _ if opened == 0.0 => format!("beyond the rules: nothing opened (hidden cards: {what})"),
        Backend::Dealer => format!(
            "beyond the rules: the dealer's audit opens every permutation, so the whole deal; \
             among it {opened} cards per run that the rules keep hidden ({what}), which the \
             session audit turns too"
        ),
        _ => format!(
            "beyond the rules: the end-of-hand audit turns {opened} cards per run that the \
             rules keep hidden ({what}); this version's session audit does it, not the backend"
        ),
    }
}

/// Runs `entry` on `backend` `entry.reps` times and returns its row.
pub fn measure(
    entry: &GameEntry,
    backend: Backend,
    seed: u64,
    latency: Option<Duration>,
    network: Network,
) -> Result<Row, CompareError> {
    let mut row = super::blank_row(&entry.name, backend, entry.players);
    if let Some(why) = unsupported(entry, backend) {
        row.notes.push(format!("unsupported: {why}"));
        return Ok(row);
    }
    let (runs, wall_ms, cpu_ms) = match network {
        Network::Memory => in_memory(entry, backend, seed)?,
        Network::Tcp => over_tcp(entry, backend, seed)?,
    };
    fill(&mut row, entry, &runs, wall_ms, cpu_ms);
    row.notes.push(leak_note(
        entry,
        backend,
        row.game.as_ref().map_or(0.0, |g| g.hidden_cards_opened),
    ));
    row.notes.push(match (network, backend) {
        (Network::Memory, Backend::Ideal) => {
            "the ideal table is one trusted table the players share: it sends nothing".into()
        }
        (Network::Memory, _) => "over the in-memory network, one thread per player".into(),
        (Network::Tcp, Backend::Ideal) => "over TCP on loopback: one process per player and \
            the trusted table's process, whose answers count with the players' messages; CPU of \
            every process"
            .into(),
        (Network::Tcp, _) => {
            "over TCP on loopback: one process per player; CPU of every process".into()
        }
    });
    if let Some(l) = latency {
        add_latency(&mut row, entry, backend, seed, l)?;
    }
    Ok(row)
}

/// The runs of `entry` on `backend` with every player on a thread: the runs, their wall time
/// and the CPU of this process (every player's thread), both in ms.
fn in_memory(
    entry: &GameEntry,
    backend: Backend,
    seed: u64,
) -> Result<(Vec<GameRun>, f64, f64), CompareError> {
    let (wall, cpu) = (Instant::now(), ProcessTime::now());
    let mut runs = Vec::new();
    for k in 0..entry.reps {
        runs.push(play_once(entry, backend, run_seed(seed, k), None)?);
    }
    Ok((
        runs,
        wall.elapsed().as_secs_f64() * 1e3,
        cpu.elapsed().as_secs_f64() * 1e3,
    ))
}

/// The runs of `entry` on `backend` as processes over TCP ([`super::games_tcp`]): the runs,
/// their wall time and the CPU of every process, both in ms.
fn over_tcp(
    entry: &GameEntry,
    backend: Backend,
    seed: u64,
) -> Result<(Vec<GameRun>, f64, f64), CompareError> {
    let (mut runs, mut wall, mut cpu) = (Vec::new(), Duration::ZERO, Duration::ZERO);
    for k in 0..entry.reps {
        let r =
            super::games_tcp::play_once(entry, backend, run_seed(seed, k)).map_err(|reason| {
                CompareError::Run {
                    workload: entry.name.clone(),
                    backend: backend.name(),
                    reason,
                }
            })?;
        (wall, cpu) = (wall + r.wall, cpu + r.cpu);
        runs.push(r.run);
    }
    Ok((runs, wall.as_secs_f64() * 1e3, cpu.as_secs_f64() * 1e3))
}

fn fill(row: &mut Row, entry: &GameEntry, runs: &[GameRun], wall_ms: f64, cpu_ms: f64) {
    let n = runs.len().max(1) as f64;
    let sum = |f: &dyn Fn(&GameRun) -> u64| runs.iter().map(f).sum::<u64>() as f64;
    let range = |f: &dyn Fn(&GameRun) -> u64| {
        let it = runs.iter().map(f);
        (it.clone().min().unwrap_or(0), it.max().unwrap_or(0))
    };
    let (messages, bytes, rounds) = (
        sum(&|r| r.cost.messages) / n,
        sum(&|r| r.cost.bytes) / n,
        sum(&|r| r.cost.rounds) / n,
    );
    let (deals, tricks) = (sum(&|r| r.deals) / n, sum(&|r| r.tricks) / n);
    row.runs = runs.len() as u64;
    row.wall_ms = Some(wall_ms / n);
    row.cpu_ms = Some(cpu_ms / n);
    let busiest: Option<Duration> = runs.iter().map(|r| r.busiest).sum();
    row.cpu_ms_per_player = busiest.map(|b| b.as_secs_f64() * 1e3 / n);
    row.messages = Some(messages);
    row.bytes = Some(bytes);
    row.rounds = Some(rounds);
    row.messages_range = Some(range(&|r| r.cost.messages));
    row.rounds_range = Some(range(&|r| r.cost.rounds));
    let per = |unit: f64| PerUnit {
        messages: messages / unit.max(1.0),
        bytes: bytes / unit.max(1.0),
        rounds: rounds / unit.max(1.0),
        cpu_ms: cpu_ms / n / unit.max(1.0),
        wall_ms: wall_ms / n / unit.max(1.0),
    };
    row.game = Some(GameFigures {
        deals,
        tricks,
        trick_unit: match entry.game {
            Game::NinetyNine { .. } => "trick",
            Game::Card(_) => "move",
        },
        per_deal: per(deals),
        per_trick: per(tricks),
        hidden_cards_opened: sum(&|r| r.hidden_opened) / n,
        hidden_cards_are: hidden_cards_are(entry.game),
    });
}

/// Fills `wall_ms_at_latency`: the first run played again with a one-way delay per message
/// (the networked backends), or `rounds × latency` (the ideal table, which sends nothing).
fn add_latency(
    row: &mut Row,
    entry: &GameEntry,
    backend: Backend,
    seed: u64,
    latency: Duration,
) -> Result<(), CompareError> {
    let ms = latency.as_secs_f64() * 1e3;
    if backend == Backend::Ideal {
        row.wall_ms_at_latency = Some(0.0);
        row.notes
            .push("wall_ms_at_latency: 0 by definition (the ideal table sends no message)".into());
        return Ok(());
    }
    let start = Instant::now();
    play_once(entry, backend, run_seed(seed, 0), Some(latency))?;
    row.wall_ms_at_latency = Some(start.elapsed().as_secs_f64() * 1e3);
    row.notes.push(format!(
        "wall_ms_at_latency: one game over the in-memory network, {ms} ms per message"
    ));
    Ok(())
}
