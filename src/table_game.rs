//! Whole games among distrustful players on every backend: each player's session
//! ([`facedown_games::session`]) on his own view of the table — a view of the shared ideal
//! table, or his own engine of the dealer or the encrypted deck over a channel (in memory or
//! TCP with Noise), a fresh engine session per hand.
//!
//! [`play_seat`] is one player (what `facedown party --game` runs); [`play_threads`] runs every
//! player on its own thread (the in-memory network, or the ideal table), as the tests and
//! `facedown play-local --game` use.

use std::time::{Duration, Instant};

use facedown_core::engine::Engine;
use facedown_core::table::FaceDownTable;
use facedown_core::{Blame, Cost, PartyId};
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
    /// The seed every player's randomness derives from (each its own stream).
    pub seed: u64,
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
        if self.backend == GameBackend::Dealer {
            return Err(
                "the dealer refuses input commitments after its deal, and a move is \
                        announced as one: games on the dealer wait for an announcement \
                        operation in its engine (play on the encrypted deck or the ideal table)"
                    .to_owned(),
            );
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

impl GameError {
    fn of<E: std::error::Error + Blame>(e: SessionError<E>) -> GameError {
        let blame = match &e {
            SessionError::Table(t) => t.blamed().map(|p| p.0),
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
    tables: &mut S,
    bot: Box<dyn Bot<NinetyNine> + Send>,
) -> Result<GameReport, GameError>
where
    <S::Table as FaceDownTable>::Error: From<facedown_core::table::TableError> + Blame,
{
    let mut rng = crate::play::player_rng(spec.seed ^ 0x5e55_1011, me);
    play_game(
        tables,
        &mut seat(spec, me, bot),
        spec.variant,
        spec.length,
        &mut rng,
    )
    .map_err(GameError::of)
}

fn seat(spec: &GameSpec, me: PartyId, bot: Box<dyn Bot<NinetyNine> + Send>) -> Seat<'static> {
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
struct HandChannel<C> {
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
struct NetTables<E, C, F> {
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

fn hand_context(spec: &GameSpec, hand: usize) -> Vec<u8> {
    let mut c = spec.context.clone();
    c.extend_from_slice(b"/hand/");
    c.extend_from_slice(&(hand as u64).to_be_bytes());
    c
}

fn run_net<E: Engine, C: Channel>(
    chan: C,
    spec: &GameSpec,
    make: impl FnMut(usize) -> Result<E, NetError>,
    bot: Box<dyn Bot<NinetyNine> + Send>,
) -> Result<SeatReport, GameError> {
    let me = chan.me();
    let start = Instant::now();
    let mut tables = NetTables {
        chan: Some(HandChannel {
            inner: chan,
            hand: 0,
            early: std::collections::VecDeque::new(),
        }),
        make,
        timeout: spec.timeout,
        cost: Cost::ZERO,
        _engine: std::marker::PhantomData,
    };
    let game = play_my_game(spec, me, &mut tables, bot)?;
    Ok(SeatReport {
        player: me.0,
        game,
        cost: tables.cost,
        wire: tables.chan.as_ref().map(Channel::stats),
        wall_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

/// Plays one player of `spec` over `chan` (dealer or encrypted deck).
pub fn play_seat<C: Channel>(chan: C, spec: &GameSpec) -> Result<SeatReport, GameError> {
    play_seat_with(chan, spec, Box::new(HeuristicBot))
}

fn play_seat_with<C: Channel>(
    chan: C,
    spec: &GameSpec,
    bot: Box<dyn Bot<NinetyNine> + Send>,
) -> Result<SeatReport, GameError> {
    spec.check().map_err(|message| GameError {
        blame: None,
        message,
    })?;
    let (me, n) = (chan.me(), spec.players());
    let mut base = crate::play::player_rng(spec.seed, me);
    let mut rng =
        move || ChaCha20Rng::from_rng(&mut base).map_err(|e| NetError::Config(e.to_string()));
    match spec.backend {
        GameBackend::Dealer => run_net(
            chan,
            spec,
            |hand| {
                DealerEngine::with_rng(me, n, &hand_context(spec, hand), rng()?)
                    .map_err(NetError::protocol)
            },
            bot,
        ),
        GameBackend::Poker => run_net(
            chan,
            spec,
            |hand| {
                PokerEngine::with_rng(me, n, &hand_context(spec, hand), rng()?)
                    .map_err(NetError::protocol)
            },
            bot,
        ),
        GameBackend::Ideal => Err(GameError {
            blame: None,
            message: "the ideal table has no network player: play it with play_threads".into(),
        }),
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
    if let Err(message) = spec.check() {
        return vec![Err(GameError {
            blame: None,
            message,
        })];
    }
    let handles: Vec<_> = match spec.backend {
        GameBackend::Ideal => {
            let game = IdealGame::new(spec.players(), spec.seed);
            PartyId::all(spec.players())
                .map(|me| {
                    let (spec, mut tables) = (spec.clone(), game.tables(me, spec.timeout));
                    let bot = bots(me);
                    std::thread::spawn(move || {
                        let start = Instant::now();
                        let game = play_my_game(&spec, me, &mut tables, bot)?;
                        Ok(SeatReport {
                            player: me.0,
                            game,
                            cost: Cost::ZERO,
                            wire: None,
                            wall_ms: start.elapsed().as_secs_f64() * 1e3,
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
