//! One networked player of any workload, on either backend: the player's engine on its end of
//! a channel ([`facedown_net::NetDriver`]), running its part of the workload
//! ([`crate::workload::run_as`]) on its own view of the table.
//!
//! `facedown party` runs one of these over TCP with Noise; `facedown play-local` starts one
//! process per player; [`play_in_memory`] runs one thread per player over the in-memory
//! network (what `facedown compare --latency` and the tests use).

use std::time::{Duration, Instant};

use facedown_core::engine::Engine;
use facedown_core::rng::{key_stream, Randomness};
use facedown_core::table::FaceDownTable;
use facedown_core::{Cost, PartyId};
use facedown_dealer::DealerEngine;
use facedown_net::{Channel, NetDriver, NetError, PhaseCost, WireStats};
use facedown_poker::PokerEngine;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use crate::workload::{run_as, Outcome, Workload, WorkloadRunError};

/// The backends a networked player runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// The permutation-sharing dealer ([`DealerEngine`]).
    Dealer,
    /// Barnett–Smart mental poker, the encrypted deck ([`PokerEngine`]).
    Poker,
}

impl Backend {
    /// The name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Dealer => "dealer",
            Backend::Poker => "poker",
        }
    }
}

/// A game as every player sees it before it starts.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The backend.
    pub backend: Backend,
    /// What is played.
    pub workload: Workload,
    /// Number of players.
    pub players: usize,
    /// What the players agreed on beforehand (a roster's session): bound into the session id.
    pub context: Vec<u8>,
    /// How long a player waits for the next step of an operation before giving up.
    pub timeout: Duration,
}

/// The audit's verdict as one player sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditSummary {
    /// Whether the game ended with every check passed (the dealer's audit, every proof).
    pub passed: bool,
    /// The player blamed for the first failure.
    pub blame: Option<u16>,
    /// The first failure, in words.
    pub first: Option<String>,
}

/// What one player saw of a game and what it cost that player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerReport {
    /// This player.
    pub player: u16,
    /// The backend.
    pub backend: Backend,
    /// The workload's name.
    pub workload: String,
    /// Number of players.
    pub players: usize,
    /// This player's own input bits (card protocols).
    pub inputs: Vec<bool>,
    /// What this player saw.
    pub outcome: Outcome,
    /// The dealer's whole deal `A(0), …, A(n − 1)`, public once its audit has opened every
    /// permutation (deals on the dealer only).
    pub deal: Option<Vec<u16>>,
    /// The end-of-game checks.
    pub audit: AuditSummary,
    /// What this player sent; rounds are the deepest causal depth it saw.
    pub cost: Cost,
    /// Per operation, from this player's account.
    pub phases: Vec<PhaseCost>,
    /// The transport's own counters.
    pub wire: WireStats,
    /// Wall time of the game at this player (connection excluded), in milliseconds.
    pub wall_ms: f64,
}

fn run_error(e: WorkloadRunError<NetError>) -> NetError {
    match e {
        WorkloadRunError::Table(e)
        | WorkloadRunError::Card(facedown_cards::on_table::RunError::Table { source: e, .. }) => e,
        other => NetError::Workload(other.to_string()),
    }
}

struct Played<E> {
    engine: E,
    outcome: Outcome,
    cost: Cost,
    phases: Vec<PhaseCost>,
    wire: WireStats,
}

fn play_engine<E: Engine, C: Channel>(
    engine: E,
    chan: C,
    spec: &GameSpec,
    own: &[bool],
    after_setup: &mut dyn FnMut(&mut C),
) -> Result<Played<E>, NetError> {
    let me = chan.me();
    let mut table = NetDriver::start(engine, chan, spec.timeout)?;
    after_setup(table.channel_mut());
    let outcome = run_as(&spec.workload, me, own, &mut table).map_err(run_error)?;
    let cost = table.cost();
    let phases = table.phases().to_vec();
    let (engine, chan) = table.close()?;
    Ok(Played {
        engine,
        outcome,
        cost,
        phases,
        wire: chan.stats(),
    })
}

/// Runs one player of `spec` over `chan` with the bits of the inputs it owns, drawing every
/// secret from `rng`; `after_setup` is called once the session is set up (fault injection in
/// the tests). On failure the player tells every peer why and returns the error, which names
/// the party it blames.
pub fn play<C: Channel>(
    chan: C,
    spec: &GameSpec,
    own: &[bool],
    rng: ChaCha20Rng,
    after_setup: &mut dyn FnMut(&mut C),
) -> Result<PlayerReport, NetError> {
    if chan.players() != spec.players {
        return Err(NetError::Config(format!(
            "the channel joins {} players, the game has {}",
            chan.players(),
            spec.players
        )));
    }
    let (me, n, start) = (chan.me(), spec.players, Instant::now());
    let (played, deal, audit) = match spec.backend {
        Backend::Dealer => {
            let engine =
                DealerEngine::with_rng(me, n, &spec.context, rng).map_err(NetError::protocol)?;
            let p = play_engine(engine, chan, spec, own, after_setup)?;
            let (deal, audit) = match p.engine.audit() {
                Some(a) => (a.deal.clone(), summary(a.passed, a.blame, a.first())),
                None => (None, passed()),
            };
            (erase(p), deal, audit)
        }
        Backend::Poker => {
            let engine =
                PokerEngine::with_rng(me, n, &spec.context, rng).map_err(NetError::protocol)?;
            (
                erase(play_engine(engine, chan, spec, own, after_setup)?),
                None,
                passed(),
            )
        }
    };
    Ok(PlayerReport {
        player: me.0,
        backend: spec.backend,
        workload: spec.workload.name().to_owned(),
        players: n,
        inputs: own.to_vec(),
        outcome: played.outcome,
        deal,
        audit,
        cost: played.cost,
        phases: played.phases,
        wire: played.wire,
        wall_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

fn erase<E>(p: Played<E>) -> Played<()> {
    Played {
        engine: (),
        outcome: p.outcome,
        cost: p.cost,
        phases: p.phases,
        wire: p.wire,
    }
}

fn passed() -> AuditSummary {
    AuditSummary {
        passed: true,
        blame: None,
        first: None,
    }
}

fn summary(
    passed: bool,
    blame: Option<PartyId>,
    first: Option<&facedown_dealer::Finding>,
) -> AuditSummary {
    AuditSummary {
        passed,
        blame: blame.map(|p| p.0),
        first: first.map(ToString::to_string),
    }
}

/// Plays `spec` over the in-memory network (with an optional per-message latency), one thread
/// per player: player `p` gets the bits of the inputs it owns from `inputs` (every input, first
/// first) and draws from `rng_of(p)`. Returns every player's report in player order, or the
/// first player's error.
pub fn play_in_memory(
    spec: &GameSpec,
    inputs: &[bool],
    latency: Option<facedown_net::Latency>,
    rng_of: impl Fn(PartyId) -> ChaCha20Rng,
) -> Result<Vec<PlayerReport>, NetError> {
    if inputs.len() != spec.workload.inputs() {
        return Err(NetError::Workload(format!(
            "{} takes {} input bits, got {}",
            spec.workload.name(),
            spec.workload.inputs(),
            inputs.len()
        )));
    }
    let handles: Vec<_> = facedown_net::memory_network(spec.players, latency)
        .into_iter()
        .map(|chan| {
            let me = chan.me();
            let own: Vec<bool> = spec
                .workload
                .owned_by(me)
                .iter()
                .map(|&k| inputs[k])
                .collect();
            let (spec, rng) = (spec.clone(), rng_of(me));
            std::thread::spawn(move || play(chan, &spec, &own, rng, &mut |_| {}))
        })
        .collect();
    let mut reports = Vec::with_capacity(handles.len());
    let mut first_error = None;
    for (j, h) in handles.into_iter().enumerate() {
        match h.join() {
            Ok(Ok(r)) => reports.push(r),
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(_) => {
                first_error.get_or_insert(NetError::Config(format!(
                    "the thread of player {} panicked",
                    j + 1
                )));
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(reports),
    }
}

/// The whole run's cost from every player's report: messages and bytes summed, rounds the
/// deepest any player saw.
pub fn total_cost(reports: &[PlayerReport]) -> Cost {
    facedown_net::total_cost(&reports.iter().map(|r| r.cost).collect::<Vec<_>>())
}

/// The run's phases from every player's report ([`facedown_net::merge_phases`]).
pub fn merge_phases(reports: &[PlayerReport]) -> Vec<PhaseCost> {
    let phases: Vec<&[PhaseCost]> = reports.iter().map(|r| r.phases.as_slice()).collect();
    facedown_net::merge_phases(&phases)
}

/// Checks every player's report against the others and against the ideal table: every check
/// passed; card protocols: the same outputs, equal to the function of the inputs; deals: the
/// same public cards, each player sees only his own hand, hands disjoint and (dealer) as the
/// audit opened them.
pub fn check_reports(
    workload: &Workload,
    inputs: &[bool],
    reports: &[PlayerReport],
) -> Result<(), String> {
    let first = reports.first().ok_or("no player reported")?;
    for r in reports {
        if !r.audit.passed {
            return Err(format!("player {}'s checks failed", r.player));
        }
        crate::workload::check_outcome(workload, inputs, &r.outcome)
            .map_err(|e| format!("player {}: {e}", r.player))?;
    }
    match &first.outcome {
        Outcome::Card { outputs, .. } => {
            for r in reports {
                if !matches!(&r.outcome, Outcome::Card { outputs: o, .. } if o == outputs) {
                    return Err(format!("player {} read other outputs", r.player));
                }
            }
        }
        Outcome::Deal { public, .. } => {
            let mut hands: Vec<(usize, Vec<u16>)> = Vec::new();
            for r in reports {
                let Outcome::Deal {
                    hands: h,
                    public: p,
                    ..
                } = &r.outcome
                else {
                    return Err(format!("player {} did not deal", r.player));
                };
                if p != public {
                    return Err(format!("player {} saw other public cards", r.player));
                }
                let me = usize::from(r.player).saturating_sub(1);
                for (k, hand) in h.iter().enumerate() {
                    match hand {
                        Some(hand) if k == me => hands.push((me, hand.clone())),
                        None if k != me => {}
                        _ => return Err(format!("player {} sees hand {}", r.player, k + 1)),
                    }
                }
                if r.deal != first.deal {
                    return Err(format!("player {} audited another deal", r.player));
                }
            }
            let all: Vec<u16> = hands
                .iter()
                .flat_map(|(_, h)| h.clone())
                .chain(public.clone())
                .collect();
            let distinct: std::collections::BTreeSet<u16> = all.iter().copied().collect();
            if distinct.len() != all.len() {
                return Err("a card is in two hands, or in a hand and face up".into());
            }
            if let (Some(deal), Workload::Deal(d)) = (&first.deal, workload) {
                for (me, hand) in &hands {
                    if deal.get(me * d.hand..(me + 1) * d.hand) != Some(hand.as_slice()) {
                        return Err(format!("player {}'s hand is not what was dealt", me + 1));
                    }
                }
            }
        }
    }
    Ok(())
}

/// What a player of a game draws randomness for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatUse {
    /// His engines' secrets (one generator per hand is drawn from it).
    Engines,
    /// His bot's choices.
    Bot,
}

/// Whether a game with every player in this process may draw from `randomness`: only from a
/// shared seed. An own key is one player's secret; given to every player (and to the ideal
/// table) it would give them all the same streams.
pub fn in_one_process(randomness: &Randomness) -> Result<(), String> {
    match randomness {
        Randomness::Seed(_) => Ok(()),
        Randomness::Key(_) => Err(
            "an own key is one player's secret: a game with every player \
             in one process draws from a shared seed"
                .to_owned(),
        ),
    }
}

/// Player `p`'s randomness for `use_` in a game drawing from `randomness`: from his own secret
/// key when he has one (stream 0 for the engines, 1 for the bot), or else from the game's seed —
/// stream `p` of it for the engines, of `seed ^ 0x5e55_1011` for the bot — which every player
/// can compute, so a seeded game is reproducible and is not for real play.
pub fn seat_rng(randomness: &Randomness, use_: SeatUse, p: PartyId) -> ChaCha20Rng {
    match (randomness, use_) {
        (Randomness::Key(key), _) => key_stream(key, u64::from(use_ == SeatUse::Bot)),
        (Randomness::Seed(seed), SeatUse::Engines) => player_rng(*seed, p),
        (Randomness::Seed(seed), SeatUse::Bot) => player_rng(seed ^ 0x5e55_1011, p),
    }
}

/// Player `p`'s seed stream for a networked game seeded with `seed`: ChaCha20 stream `p` of the
/// seed ([`facedown_core::rng::trial_rng`]).
pub fn player_rng(seed: u64, p: PartyId) -> ChaCha20Rng {
    facedown_core::rng::trial_rng(seed, u64::from(p.0))
}

/// The capabilities of a networked backend at a table of `players`.
pub fn capabilities(backend: Backend, players: usize) -> facedown_core::Capabilities {
    match backend {
        Backend::Dealer => <DealerEngine<ChaCha20Rng> as Engine>::capabilities(players),
        Backend::Poker => <PokerEngine<ChaCha20Rng> as Engine>::capabilities(players),
    }
}
