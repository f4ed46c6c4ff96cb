//! Golf and Девятка among distrustful players on every backend that hosts them: each player's
//! session ([`facedown_games::session::golf`], [`facedown_games::session::devyatka`]) on his
//! own view of the table — a view of the shared ideal table, or his own engine of the
//! encrypted deck over a channel (in memory or TCP with Noise), a fresh engine per round.
//!
//! The channel, the per-round engines and the error type are Ninety-Nine's
//! ([`crate::table_game`]); [`play_seat`] is one player (what `facedown party --game golf`
//! runs) and [`play_threads`] every player on its own thread; [`play_threads_with`] seats other
//! bots (the classroom seats a student).

use crate::play::SeatUse;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use facedown_core::engine::Engine;
use facedown_core::rng::Randomness;
use facedown_core::table::{FaceDownTable, Support};
use facedown_core::{Blame, Cost, PartyId};
use facedown_dealer::DealerEngine;
use facedown_games::devyatka::MultiDevyatka;
use facedown_games::game::{Bot, RandomBot};
use facedown_games::golf::{Golf, GreedyBot, Rules};
use facedown_games::session::devyatka::{self as devyatka_session, DealReport, DevyatkaCheat};
use facedown_games::session::golf::{self as golf_session, GolfCheat};
use facedown_games::session::ideal::IdealGame;
use facedown_games::session::ninety_nine::Tables;
use facedown_games::session::Verdict;
use facedown_net::{Channel, MemoryChannel, NetError, WireStats};
use facedown_poker::PokerEngine;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

use crate::ideal_net::RemoteTables;
use crate::table_game::{
    hand_context, join_players, GameBackend, GameError, MeteredTables, NetTables, OpCost,
};

/// Which game, with its rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CardGame {
    /// Golf: its rules (layout, players, decks, rounds).
    Golf(Rules),
    /// One deal of Девятка among the table's players.
    Devyatka,
}

impl CardGame {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CardGame::Golf(_) => "golf",
            CardGame::Devyatka => "devyatka",
        }
    }
}

/// The cheat one player tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum CardCheat {
    /// A Golf cheat.
    Golf(GolfCheat),
    /// A Девятка cheat.
    Devyatka(DevyatkaCheat),
}

impl CardCheat {
    /// The cheat of `game` called `name`, if it has one.
    pub fn of(game: CardGame, name: &str) -> Option<CardCheat> {
        match game {
            CardGame::Golf(_) => GolfCheat::from_name(name).map(CardCheat::Golf),
            CardGame::Devyatka => DevyatkaCheat::from_name(name).map(CardCheat::Devyatka),
        }
    }

    /// The names of `game`'s cheats.
    pub fn names(game: CardGame) -> Vec<&'static str> {
        match game {
            CardGame::Golf(_) => GolfCheat::ALL.iter().map(|c| c.name()).collect(),
            CardGame::Devyatka => DevyatkaCheat::ALL.iter().map(|c| c.name()).collect(),
        }
    }
}

/// A game of Golf or Девятка as every player agrees on it before it starts.
#[derive(Clone, Debug)]
pub struct CardGameSpec {
    /// The table.
    pub backend: GameBackend,
    /// The game.
    pub game: CardGame,
    /// The number of players.
    pub players: usize,
    /// Where the randomness comes from: a seed every player knows (each draws his own stream
    /// of it, and the ideal table in memory shuffles from it), or this player's own secret
    /// key, which he sets for himself (`party` without `--seed`) and never shares — his
    /// engines' secrets and his bot's choices are then drawn from it ([`seat_rng`]).
    ///
    /// [`seat_rng`]: crate::play::seat_rng
    pub randomness: Randomness,
    /// The one player who cheats, and how.
    pub cheat: Option<(PartyId, CardCheat)>,
    /// What the players agreed on beforehand: bound into every round's session id.
    pub context: Vec<u8>,
    /// How long a player waits for a step of the table.
    pub timeout: Duration,
}

impl CardGameSpec {
    /// Checks that the backend can host the game.
    pub fn check(&self) -> Result<(), String> {
        if let CardGame::Golf(rules) = self.game {
            if usize::from(rules.players) != self.players {
                return Err(format!("the Golf rules are for {} players", rules.players));
            }
        }
        if self.game == CardGame::Devyatka && !(2..=4).contains(&self.players) {
            return Err(format!(
                "Devyatka is for 2 to 4 players, not {}",
                self.players
            ));
        }
        if self.backend == GameBackend::Dealer && self.players < 3 {
            return Err(format!(
                "{} has {} players, and the dealer needs at least 3: play it on the encrypted \
                 deck (--backend poker) or the ideal table",
                self.game.name(),
                self.players
            ));
        }
        Ok(())
    }
}

/// How securely a backend carries out one thing a game needs of the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Guarantee {
    /// What the game needs.
    pub need: &'static str,
    /// The backend's support for it.
    #[serde(flatten)]
    pub support: Support,
}

fn weakened(reason: &str) -> Support {
    Support::Weakened(reason.to_owned())
}

/// The end of a round on the dealer: what its audit opens beyond the rules.
const DEALER_AUDIT: &str = "the dealer's end audit opens every permutation of the deal, so \
     every card is public at the end, those the rules never show included";

/// The end of a round elsewhere: this version's session audit turns every card.
const SESSION_AUDIT: &str = "the end-of-round rule audit of this version turns every card; \
     the backend itself could keep them face down";

impl CardGameSpec {
    /// What the backend guarantees for each thing the game needs of the table (a move is
    /// always an announcement: its author's commitment, turned for everyone).
    pub fn guarantees(&self) -> Vec<Guarantee> {
        let dealer = self.backend == GameBackend::Dealer;
        let end = weakened(if dealer { DEALER_AUDIT } else { SESSION_AUDIT });
        let mut out = vec![Guarantee {
            need: "a move, announced as its author's commitment and turned for all",
            support: Support::Secure,
        }];
        let need = |need, support| Guarantee { need, support };
        match self.game {
            CardGame::Golf(_) => out.extend([
                need(
                    "grid cards nobody has seen, turned by their owner's choice",
                    Support::Secure,
                ),
                need("a stock card shown to its drawer first", Support::Secure),
                need("the stock cards the round never draws stay hidden", end),
            ]),
            CardGame::Devyatka => out.extend([
                need("each hand shown to its owner alone", Support::Secure),
                need(
                    "a pass: the passer holds no card that may go down",
                    if dealer {
                        weakened(
                            "no play-time proof on the dealer: a false pass is named when the \
                             record contradicts it, or by the end audit",
                        )
                    } else {
                        Support::Secure
                    },
                ),
                need("the cards left in hand at the end stay hidden", end),
            ]),
        }
        out
    }
}

/// What one player's session saw.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Played {
    /// A whole game of Golf.
    Golf(golf_session::GameReport),
    /// A deal of Девятка.
    Devyatka(DealReport),
}

impl Played {
    /// The verdict of the checks.
    pub fn verdict(&self) -> &Verdict {
        match self {
            Played::Golf(g) => &g.verdict,
            Played::Devyatka(d) => &d.verdict,
        }
    }
}

/// What one player saw of a game and what it cost him.
#[derive(Clone, Debug, Serialize)]
pub struct CardSeatReport {
    /// The player.
    pub player: u16,
    /// What his session saw.
    pub game: Played,
    /// What he sent.
    pub cost: Cost,
    /// The transport's counters (networked backends).
    pub wire: Option<WireStats>,
    /// Wall time at this player, in milliseconds.
    pub wall_ms: f64,
    /// What each kind of table operation cost this player over the game
    /// ([`crate::table_game::operation_kind`]: a Девятка pass's "I prove" bit is `commit 2`
    /// and `turn 2`, its proof `prove-none-of`).
    pub operations: BTreeMap<String, OpCost>,
}

/// Who chooses one player's moves: a bot of the game played.
pub enum CardBot {
    /// A Golf player.
    Golf(Box<dyn Bot<Golf> + Send>),
    /// A Девятка player.
    Devyatka(Box<dyn Bot<MultiDevyatka> + Send>),
}

impl CardBot {
    /// The bot every seat of `game` gets unless a caller seats another: the greedy player at
    /// Golf, the random one at Девятка.
    pub fn default_for(game: CardGame) -> CardBot {
        match game {
            CardGame::Golf(_) => CardBot::Golf(Box::new(GreedyBot)),
            CardGame::Devyatka => CardBot::Devyatka(Box::new(RandomBot)),
        }
    }
}

/// Who chooses each player's moves ([`CardBot::default_for`] unless a caller seats another).
pub type CardBots = dyn Fn(PartyId) -> CardBot + Sync;

/// Player `me`'s whole game on `tables`, `bot` (or his cheat) with his own randomness: what he
/// saw, and what each kind of operation cost him.
fn play_my_game<S: Tables>(
    spec: &CardGameSpec,
    me: PartyId,
    tables: &mut MeteredTables<S>,
    bot: CardBot,
) -> Result<Played, GameError>
where
    <S::Table as FaceDownTable>::Error: Blame + crate::table_game::Confession,
{
    let mut rng = crate::play::seat_rng(&spec.randomness, SeatUse::Bot, me);
    let cheat = spec.cheat.filter(|(p, _)| *p == me).map(|(_, c)| c);
    match (spec.game, bot) {
        (CardGame::Golf(rules), CardBot::Golf(bot)) => {
            let cheat = match cheat {
                Some(CardCheat::Golf(c)) => Some(c),
                _ => None,
            };
            let mut seat = golf_session::Seat {
                me,
                bot,
                cheat,
                cheated: false,
            };
            golf_session::play_game(tables, &mut seat, rules, &mut rng).map(Played::Golf)
        }
        (CardGame::Devyatka, CardBot::Devyatka(bot)) => {
            let cheat = match cheat {
                Some(CardCheat::Devyatka(c)) => Some(c),
                _ => None,
            };
            let mut seat = devyatka_session::Seat {
                me,
                bot,
                cheat,
                cheated: false,
            };
            devyatka_session::play_game(tables, &mut seat, &mut rng).map(Played::Devyatka)
        }
        (game, _) => {
            return Err(GameError {
                blame: None,
                message: format!(
                    "{me} was seated with a bot of another game than {}",
                    game.name()
                ),
            })
        }
    }
    .map_err(GameError::of)
}

/// Plays one player of `spec` over `chan` — on the dealer, the encrypted deck, or the ideal
/// table's process ([`crate::ideal_net`]) — his moves chosen by the game's bot (or his cheat).
pub fn play_seat<C: Channel>(chan: C, spec: &CardGameSpec) -> Result<CardSeatReport, GameError> {
    play_seat_with(chan, spec, CardBot::default_for(spec.game))
}

/// Plays one player of `spec` over `chan`, his moves chosen by `bot`.
pub fn play_seat_with<C: Channel>(
    chan: C,
    spec: &CardGameSpec,
    bot: CardBot,
) -> Result<CardSeatReport, GameError> {
    let refused = |message: String| GameError {
        blame: None,
        message,
    };
    spec.check().map_err(refused)?;
    let (me, n, start) = (chan.me(), spec.players, Instant::now());
    let mut base = crate::play::seat_rng(&spec.randomness, SeatUse::Engines, me);
    let mut rng =
        move || ChaCha20Rng::from_rng(&mut base).map_err(|e| NetError::Config(e.to_string()));
    let (game, (cost, wire), operations) = match spec.backend {
        GameBackend::Dealer => run_net(chan, spec, bot, |hand| {
            DealerEngine::with_rng(me, n, &hand_context(&spec.context, hand), rng()?)
                .map_err(NetError::protocol)
        })?,
        GameBackend::Poker => run_net(chan, spec, bot, |hand| {
            PokerEngine::with_rng(me, n, &hand_context(&spec.context, hand), rng()?)
                .map_err(NetError::protocol)
        })?,
        GameBackend::Ideal => {
            let tables = RemoteTables::new(chan, n, spec.timeout).map_err(GameError::net)?;
            let mut tables = MeteredTables::new(tables);
            let game = play_my_game(spec, me, &mut tables, bot)?;
            let (cost, wire) = tables.inner.finish().map_err(GameError::net)?;
            (game, (cost, Some(wire)), tables.operations)
        }
    };
    Ok(CardSeatReport {
        player: me.0,
        game,
        cost,
        wire,
        wall_ms: start.elapsed().as_secs_f64() * 1e3,
        operations,
    })
}

/// Player `chan.me()`'s whole game on a fresh engine from `make` per round: what he saw, and
/// what it cost him.
type Spent = (Cost, Option<WireStats>);

fn run_net<E: Engine, C: Channel>(
    chan: C,
    spec: &CardGameSpec,
    bot: CardBot,
    make: impl FnMut(usize) -> Result<E, NetError>,
) -> Result<(Played, Spent, BTreeMap<String, OpCost>), GameError> {
    let me = chan.me();
    let mut tables = MeteredTables::new(NetTables::new(chan, make, spec.timeout));
    let game = play_my_game(spec, me, &mut tables, bot)?;
    Ok((game, tables.inner.spent(), tables.operations))
}

/// Plays every player of `spec` on its own thread — on views of one ideal table, or over the
/// in-memory network for the encrypted deck — and returns each player's result in order.
pub fn play_threads(spec: &CardGameSpec) -> Vec<Result<CardSeatReport, GameError>> {
    let game = spec.game;
    play_threads_with(spec, &move |_| CardBot::default_for(game), |chan| chan)
}

/// [`play_threads`] with each player's moves chosen by `bots(player)` and each networked
/// player's channel passed through `wrap` (the classroom's game room seats its student this
/// way, and logs every frame).
pub fn play_threads_with<C: Channel + Send + 'static>(
    spec: &CardGameSpec,
    bots: &CardBots,
    wrap: impl Fn(MemoryChannel) -> C,
) -> Vec<Result<CardSeatReport, GameError>> {
    let usable = spec.check();
    if let Err(message) = usable.and_then(|()| crate::play::in_one_process(&spec.randomness)) {
        return vec![Err(GameError {
            blame: None,
            message,
        })];
    }
    let handles: Vec<_> = match spec.backend {
        GameBackend::Ideal => {
            let game = IdealGame::shuffling(spec.players, spec.randomness);
            PartyId::all(spec.players)
                .map(|me| {
                    let (spec, tables) = (spec.clone(), game.tables(me, spec.timeout));
                    let bot = bots(me);
                    std::thread::spawn(move || {
                        let start = Instant::now();
                        let mut tables = MeteredTables::new(tables);
                        let game = play_my_game(&spec, me, &mut tables, bot)?;
                        Ok(CardSeatReport {
                            player: me.0,
                            game,
                            cost: Cost::ZERO,
                            wire: None,
                            wall_ms: start.elapsed().as_secs_f64() * 1e3,
                            operations: tables.operations,
                        })
                    })
                })
                .collect()
        }
        _ => facedown_net::memory_network(spec.players, None)
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
