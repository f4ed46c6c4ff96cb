//! Whole games among distrustful players on every backend: each player's session
//! ([`facedown_games::session`]) on his own view of the table — a view of the shared ideal
//! table, or his own engine of the dealer or the encrypted deck over a channel (in memory or
//! TCP with Noise), a fresh engine session per hand.
//!
//! [`play_seat`] is one player (what `facedown party --game` runs); [`play_threads`] runs every
//! player on its own thread (the in-memory network, or the ideal table), as the tests and
//! `facedown play-local --game` use.

use crate::play::SeatUse;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cpu_time::ThreadTime;

use facedown_core::engine::Engine;
use facedown_core::rng::Randomness;
use facedown_core::table::{Capabilities, FaceDownTable};
use facedown_core::{Blame, Cost, PartyId, Seen, TableOp};
use facedown_dealer::DealerEngine;
use facedown_games::game::Bot;
use facedown_games::ninety_nine::{HeuristicBot, Length, NinetyNine, Variant};
use facedown_games::session::ideal::IdealGame;
use facedown_games::session::ninety_nine::{play_game, GameReport, Seat, Tables};
use facedown_games::session::{Cheat, SessionError};
use facedown_net::{Channel, Deadline, Frame, NetDriver, NetError, WireStats};
use facedown_poker::PokerEngine;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

use crate::ideal_net::RemoteTables;

/// The table a game is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameBackend {
    /// The ideal table: physical cards, a trusted shuffle.
    Ideal,
    /// The permutation-sharing dealer (three players or more).
    Dealer,
    /// The encrypted deck (Barnett–Smart mental poker).
    Poker,
}

impl GameBackend {
    /// Every backend.
    pub const ALL: [GameBackend; 3] = [GameBackend::Ideal, GameBackend::Dealer, GameBackend::Poker];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            GameBackend::Ideal => "ideal",
            GameBackend::Dealer => "dealer",
            GameBackend::Poker => "poker",
        }
    }
}

/// A game as every player agrees on it before it starts.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The table.
    pub backend: GameBackend,
    /// The variant of Ninety-Nine.
    pub variant: Variant,
    /// How long the game lasts.
    pub length: Length,
    /// Where the randomness comes from: a seed every player knows (each draws his own stream
    /// of it, and the ideal table in memory shuffles from it), or this player's own secret
    /// key, which he sets for himself (`party` without `--seed`) and never shares — his
    /// engines' secrets and his bot's choices are then drawn from it ([`seat_rng`]).
    ///
    /// [`seat_rng`]: crate::play::seat_rng
    pub randomness: Randomness,
    /// The one player who cheats, and how.
    pub cheat: Option<(PartyId, Cheat)>,
    /// What the players agreed on beforehand: bound into every hand's session id.
    pub context: Vec<u8>,
    /// How long a player waits for a step of the table.
    pub timeout: Duration,
}

impl GameSpec {
    /// The number of players.
    pub fn players(&self) -> usize {
        self.variant.rules().players
    }

    /// Checks that the backend can host the game: the dealer deals to three players or more.
    pub fn check(&self) -> Result<(), String> {
        if self.backend == GameBackend::Dealer && self.players() < 3 {
            return Err(format!(
                "{} has {} players, and the dealer needs at least 3: play it on the encrypted \
                 deck (--backend poker) or the ideal table",
                self.variant,
                self.players()
            ));
        }
        Ok(())
    }
}

/// What one player saw of a game and what it cost him.
#[derive(Clone, Debug, Serialize)]
pub struct SeatReport {
    /// The player.
    pub player: u16,
    /// What his session saw: every hand, its verdict, the standing.
    pub game: GameReport,
    /// What he sent (rounds: the deepest causal depth he saw, summed over hands).
    pub cost: Cost,
    /// The transport's counters (networked backends).
    pub wire: Option<WireStats>,
    /// Wall time at this player, in milliseconds.
    pub wall_ms: f64,
    /// What each kind of table operation cost this player over the game
    /// ([`operation_kind`]).
    pub operations: BTreeMap<String, OpCost>,
}

/// What one kind of table operation cost one player over a game.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OpCost {
    /// How many were run.
    pub count: u64,
    /// What this player sent in them (rounds: the causal depth they added).
    pub cost: Cost,
    /// This player's CPU time in them (its thread's), in milliseconds.
    pub cpu_ms: f64,
}

/// The kind an operation is counted under: its name ([`TableOp::name`]), and for a commitment
/// or a public turn the number of cards — so a game's one-bit announcements (`commit 2`,
/// `turn 2`: the legal-play "I prove" bit) stand apart from its moves.
pub fn operation_kind(op: &TableOp) -> String {
    match op {
        TableOp::Commit { cards, .. } => format!("commit {}", cards.len()),
        TableOp::Open(o) if o.private.is_empty() => format!("turn {}", o.public.len()),
        other => other.name().to_owned(),
    }
}

/// A player's table that counts what each kind of operation costs him.
pub struct Metered<T> {
    inner: T,
    operations: BTreeMap<String, OpCost>,
}

impl<T: FaceDownTable> FaceDownTable for Metered<T> {
    type Error = T::Error;

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn parties(&self) -> usize {
        self.inner.parties()
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn apply(&mut self, op: &TableOp) -> Result<Seen, T::Error> {
        let (before, cpu) = (self.inner.cost(), ThreadTime::try_now().ok());
        let seen = self.inner.apply(op)?;
        let spent = self.inner.cost();
        let entry = self.operations.entry(operation_kind(op)).or_default();
        entry.count += 1;
        entry.cost = entry.cost.then(Cost {
            messages: spent.messages - before.messages,
            bytes: spent.bytes - before.bytes,
            rounds: spent.rounds.saturating_sub(before.rounds),
        });
        entry.cpu_ms += cpu.map_or(0.0, |t| t.elapsed().as_secs_f64() * 1e3);
        Ok(seen)
    }

    fn cost(&self) -> Cost {
        self.inner.cost()
    }
}

/// Every hand's table of `S`, metered ([`Metered`]), the counts kept across hands.
pub(crate) struct MeteredTables<S> {
    pub(crate) inner: S,
    pub(crate) operations: BTreeMap<String, OpCost>,
}

impl<S> MeteredTables<S> {
    /// The hands of `inner`, nothing counted yet.
    pub(crate) fn new(inner: S) -> Self {
        MeteredTables {
            inner,
            operations: BTreeMap::new(),
        }
    }
}

impl<S: Tables> Tables for MeteredTables<S> {
    type Table = Metered<S::Table>;

    fn open(&mut self, hand: usize) -> Result<Self::Table, <S::Table as FaceDownTable>::Error> {
        Ok(Metered {
            inner: self.inner.open(hand)?,
            operations: std::mem::take(&mut self.operations),
        })
    }

    fn close(&mut self, table: Self::Table) -> Result<(), <S::Table as FaceDownTable>::Error> {
        self.operations = table.operations;
        self.inner.close(table.inner)
    }
}

/// Why a player's game stopped without a verdict: the table failed.
#[derive(Clone, Debug, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct GameError {
    /// The player the table's error blames, if any.
    pub blame: Option<u16>,
    /// What failed.
    pub message: String,
}

/// What a table's error proves against its own sender, beyond [`Blame`]: a player whose
/// engine refuses a step it must take (a legal-play proof of a false claim) aborts, accusing
/// himself, and an abort that accuses only its sender frames nobody else.
pub trait Confession {
    /// The player who named himself, if any.
    fn confessed(&self) -> Option<PartyId>;
}

impl Confession for NetError {
    fn confessed(&self) -> Option<PartyId> {
        match self {
            NetError::Aborted {
                peer,
                claim: Some(accused),
                ..
            } if peer == accused => Some(*peer),
            _ => None,
        }
    }
}

impl Confession for facedown_games::session::ideal::IdealViewError {
    /// The trusted table's own verdict is already its [`Blame`].
    fn confessed(&self) -> Option<PartyId> {
        None
    }
}

impl GameError {
    /// The error of a player's link, naming the player it blames.
    pub fn net(e: NetError) -> GameError {
        GameError {
            blame: e.blamed().map(|p| p.0),
            message: e.to_string(),
        }
    }

    /// The error a session ended with, naming the player its table blames or who confessed.
    pub fn of<E: std::error::Error + Blame + Confession>(e: SessionError<E>) -> GameError {
        let blame = match &e {
            SessionError::Table(t) => t.blamed().or_else(|| t.confessed()).map(|p| p.0),
            _ => None,
        };
        GameError {
            blame,
            message: e.to_string(),
        }
    }
}

/// Who chooses each player's moves: [`HeuristicBot`] for everyone, unless a caller seats
/// another (the classroom seats a student).
pub type Bots = dyn Fn(PartyId) -> Box<dyn Bot<NinetyNine> + Send> + Sync;

fn heuristic(_: PartyId) -> Box<dyn Bot<NinetyNine> + Send> {
    Box::new(HeuristicBot)
}

/// Player `me`'s whole game on `tables`: his bot (or his cheat) with his own randomness.
fn play_my_game<S: Tables>(
    spec: &GameSpec,
    me: PartyId,
    tables: S,
    bot: Box<dyn Bot<NinetyNine> + '_>,
) -> Result<(GameReport, S, BTreeMap<String, OpCost>), GameError>
where
    <S::Table as FaceDownTable>::Error: From<facedown_core::table::TableError> + Blame + Confession,
{
    let mut rng = crate::play::seat_rng(&spec.randomness, SeatUse::Bot, me);
    let mut metered = MeteredTables::new(tables);
    let game = play_game(
        &mut metered,
        &mut seat(spec, me, bot),
        spec.variant,
        spec.length,
        &mut rng,
    )
    .map_err(GameError::of)?;
    Ok((game, metered.inner, metered.operations))
}

fn seat<'b>(spec: &GameSpec, me: PartyId, bot: Box<dyn Bot<NinetyNine> + 'b>) -> Seat<'b> {
    Seat {
        me,
        bot,
        cheat: spec.cheat.filter(|(p, _)| *p == me).map(|(_, c)| c),
        cheated: false,
    }
}

/// A channel whose frames carry the hand they belong to, so that a faster player's first
/// frames of the next hand (its hello) wait for this player's next session instead of reaching
/// the goodbye of the current one; frames of an earlier hand are dropped.
pub(crate) struct HandChannel<C> {
    inner: C,
    hand: u32,
    early: std::collections::VecDeque<(u32, Frame)>,
}

impl<C: Channel> HandChannel<C> {
    fn split(&self, frame: Frame) -> Result<(u32, Frame), NetError> {
        let Some((tag, payload)) = frame.payload.split_first_chunk::<4>() else {
            return Err(NetError::Corrupted {
                peer: frame.from,
                reason: "a frame without its hand number".into(),
            });
        };
        let (hand, payload) = (u32::from_be_bytes(*tag), payload.to_vec());
        Ok((hand, Frame { payload, ..frame }))
    }
}

impl<C: Channel> Channel for HandChannel<C> {
    fn me(&self) -> PartyId {
        self.inner.me()
    }

    fn players(&self) -> usize {
        self.inner.players()
    }

    fn send(&mut self, to: PartyId, depth: u32, payload: &[u8]) -> Result<(), NetError> {
        let mut tagged = self.hand.to_be_bytes().to_vec();
        tagged.extend_from_slice(payload);
        self.inner.send(to, depth, &tagged)
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Frame>, NetError> {
        if let Some(i) = self.early.iter().position(|(h, _)| *h == self.hand) {
            return Ok(self.early.remove(i).map(|(_, f)| f));
        }
        let deadline = Deadline::after(timeout);
        while let Some(frame) = self.inner.recv_by(deadline)? {
            let (hand, frame) = self.split(frame)?;
            match hand.cmp(&self.hand) {
                std::cmp::Ordering::Equal => return Ok(Some(frame)),
                std::cmp::Ordering::Greater if self.early.len() < 4096 => {
                    self.early.push_back((hand, frame))
                }
                std::cmp::Ordering::Greater => {
                    return Err(NetError::Config("too many frames of a later hand".into()))
                }
                std::cmp::Ordering::Less => {}
            }
        }
        Ok(None)
    }

    fn stats(&self) -> WireStats {
        self.inner.stats()
    }

    fn limits(&self) -> facedown_net::Limits {
        self.inner.limits()
    }

    /// Bound to the hand, so no broadcast signature of one hand verifies in another.
    fn broadcast_keys(&self) -> Option<facedown_core::echo::BroadcastKeys> {
        let keys = self.inner.broadcast_keys()?;
        Some(keys.within(&self.hand.to_be_bytes()))
    }
}

/// The hands of one networked player: a fresh engine session per hand on the same channel.
pub(crate) struct NetTables<E, C, F> {
    chan: Option<HandChannel<C>>,
    make: F,
    timeout: Duration,
    cost: Cost,
    _engine: std::marker::PhantomData<E>,
}

impl<E: Engine, C: Channel, F: FnMut(usize) -> Result<E, NetError>> Tables for NetTables<E, C, F> {
    type Table = NetDriver<E, HandChannel<C>>;

    fn open(&mut self, hand: usize) -> Result<Self::Table, NetError> {
        let mut chan = self
            .chan
            .take()
            .ok_or_else(|| NetError::Config("the channel was lost in an earlier hand".into()))?;
        chan.hand = u32::try_from(hand).map_err(|_| NetError::Config("too many hands".into()))?;
        NetDriver::start((self.make)(hand)?, chan, self.timeout)
    }

    fn close(&mut self, table: Self::Table) -> Result<(), NetError> {
        self.cost = self.cost.then(table.cost());
        let (_, chan) = table.close()?;
        self.chan = Some(chan);
        Ok(())
    }
}

pub(crate) fn hand_context(context: &[u8], hand: usize) -> Vec<u8> {
    let mut c = context.to_vec();
    c.extend_from_slice(b"/hand/");
    c.extend_from_slice(&(hand as u64).to_be_bytes());
    c
}

impl<E, C, F> NetTables<E, C, F> {
    /// The hands of the player at the end of `chan`, each a fresh engine from `make`.
    pub(crate) fn new(chan: C, make: F, timeout: Duration) -> Self {
        NetTables {
            chan: Some(HandChannel {
                inner: chan,
                hand: 0,
                early: std::collections::VecDeque::new(),
            }),
            make,
            timeout,
            cost: Cost::ZERO,
            _engine: std::marker::PhantomData,
        }
    }

    /// What the hands cost this player, and the transport's counters.
    pub(crate) fn spent(&self) -> (Cost, Option<WireStats>)
    where
        C: Channel,
    {
        (self.cost, self.chan.as_ref().map(Channel::stats))
    }
}

fn run_net<E: Engine, C: Channel>(
    chan: C,
    spec: &GameSpec,
    bot: Box<dyn Bot<NinetyNine> + '_>,
    make: impl FnMut(usize) -> Result<E, NetError>,
) -> Result<SeatReport, GameError> {
    let me = chan.me();
    let start = Instant::now();
    let tables = NetTables::new(chan, make, spec.timeout);
    let (game, tables, operations) = play_my_game(spec, me, tables, bot)?;
    let (cost, wire) = tables.spent();
    Ok(SeatReport {
        player: me.0,
        game,
        cost,
        wire,
        wall_ms: start.elapsed().as_secs_f64() * 1e3,
        operations,
    })
}

/// Plays one player of `spec` over `chan` — his own engine of the dealer or the encrypted deck,
/// or his view of the ideal table's process ([`crate::ideal_net`], the roster's last party) —
/// his moves chosen by the heuristic bot (or his cheat).
pub fn play_seat<C: Channel>(chan: C, spec: &GameSpec) -> Result<SeatReport, GameError> {
    play_seat_with(chan, spec, Box::new(HeuristicBot))
}

/// Plays one player of `spec` over `chan`, his moves chosen by `bot` — a program, or a person
/// at a terminal ([`facedown_games::session::terminal::TerminalBot`]).
pub fn play_seat_with<C: Channel>(
    chan: C,
    spec: &GameSpec,
    bot: Box<dyn Bot<NinetyNine> + '_>,
) -> Result<SeatReport, GameError> {
    spec.check().map_err(|message| GameError {
        blame: None,
        message,
    })?;
    let (me, n) = (chan.me(), spec.players());
    let mut base = crate::play::seat_rng(&spec.randomness, SeatUse::Engines, me);
    let mut rng =
        move || ChaCha20Rng::from_rng(&mut base).map_err(|e| NetError::Config(e.to_string()));
    match spec.backend {
        GameBackend::Dealer => run_net(chan, spec, bot, |hand| {
            DealerEngine::with_rng(me, n, &hand_context(&spec.context, hand), rng()?)
                .map_err(NetError::protocol)
        }),
        GameBackend::Poker => run_net(chan, spec, bot, |hand| {
            PokerEngine::with_rng(me, n, &hand_context(&spec.context, hand), rng()?)
                .map_err(NetError::protocol)
        }),
        GameBackend::Ideal => {
            let start = Instant::now();
            let tables = RemoteTables::new(chan, n, spec.timeout).map_err(GameError::net)?;
            let (game, tables, operations) = play_my_game(spec, me, tables, bot)?;
            let (cost, wire) = tables.finish().map_err(GameError::net)?;
            Ok(SeatReport {
                player: me.0,
                game,
                cost,
                wire: Some(wire),
                wall_ms: start.elapsed().as_secs_f64() * 1e3,
                operations,
            })
        }
    }
}

/// Plays every player of `spec` on its own thread — over the in-memory network for the dealer
/// and the encrypted deck, on views of one ideal table otherwise — and returns each player's
/// result in player order.
pub fn play_threads(spec: &GameSpec) -> Vec<Result<SeatReport, GameError>> {
    play_threads_with(spec, &heuristic, |chan| chan)
}

/// [`play_threads`] with each player's moves chosen by `bots(player)` and each networked
/// player's channel passed through `wrap` (the classroom's game room seats its student this
/// way, and logs every frame).
pub fn play_threads_with<C: Channel + Send + 'static>(
    spec: &GameSpec,
    bots: &Bots,
    wrap: impl Fn(facedown_net::MemoryChannel) -> C,
) -> Vec<Result<SeatReport, GameError>> {
    let usable = spec.check();
    if let Err(message) = usable.and_then(|()| crate::play::in_one_process(&spec.randomness)) {
        return vec![Err(GameError {
            blame: None,
            message,
        })];
    }
    let handles: Vec<_> = match spec.backend {
        GameBackend::Ideal => {
            let game = IdealGame::shuffling(spec.players(), spec.randomness);
            PartyId::all(spec.players())
                .map(|me| {
                    let (spec, tables) = (spec.clone(), game.tables(me, spec.timeout));
                    let bot = bots(me);
                    std::thread::spawn(move || {
                        let start = Instant::now();
                        let (game, _, operations) = play_my_game(&spec, me, tables, bot)?;
                        Ok(SeatReport {
                            player: me.0,
                            game,
                            cost: Cost::ZERO,
                            wire: None,
                            wall_ms: start.elapsed().as_secs_f64() * 1e3,
                            operations,
                        })
                    })
                })
                .collect()
        }
        _ => facedown_net::memory_network(spec.players(), None)
            .into_iter()
            .map(|chan| {
                let (spec, bot) = (spec.clone(), bots(chan.me()));
                let chan = wrap(chan);
                std::thread::spawn(move || play_seat_with(chan, &spec, bot))
            })
            .collect(),
    };
    join_players(handles)
}

/// Each player thread's result, in player order (a thread that panicked is an error).
pub(crate) fn join_players<R>(
    handles: Vec<std::thread::JoinHandle<Result<R, GameError>>>,
) -> Vec<Result<R, GameError>> {
    handles
        .into_iter()
        .enumerate()
        .map(|(j, h)| {
            h.join().unwrap_or_else(|_| {
                Err(GameError {
                    blame: None,
                    message: format!("the thread of player {} panicked", j + 1),
                })
            })
        })
        .collect()
}
