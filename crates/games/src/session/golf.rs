//! Golf among distrustful players: one player's session of a round and of the nine-round game.
//!
//! | Golf | the table |
//! |---|---|
//! | the grids, face down, unseen by all | positions `p·g .. (p+1)·g` of the shuffled pack, never opened to anyone |
//! | the first discard | position `players·g`, turned for everyone |
//! | the stock, top first | positions `players·g + 1 ..`, in order |
//! | turning up grid cards by choice | the owner names positions of his grid ([`announce`]); they are turned for all |
//! | drawing from the stock | the next stock position is shown to the drawer alone |
//! | keeping it at grid slot `k`, or discarding it | announced; the card and the one it replaces are turned for all |
//! | the end of a round | every position still face down is turned: the rule audit |
//!
//! A move travels as a [`Said`]: positions of the row and small choices, never a card. So a
//! player cannot misstate the card he drew — the table turns it — and cannot see a grid card
//! before the rules turn it: no operation opens it to him. What an announcement can still get
//! wrong, every player checks at once against what is public: that the positions named are in
//! the announcer's own grid, and (replaying the public record with the rules engine on any
//! completion of the unseen cards: Golf's legality never depends on a face-down card) that the
//! move is one the rules allow now. At the end of a round every card is turned and
//! [`crate::game::audit`] replays the round's log; the game's rounds are audited together by
//! [`audit_match`].
//!
//! The cheats a test or the command line can make one player try ([`GolfCheat`]), or his bot
//! decide on during play ([`Bot::cheat_named`](crate::game::Bot::cheat_named): the
//! classroom's cheat button):
//!
//! * `peek` — after drawing, he turns one of his face-down grid cards without placing a card
//!   on it, to learn it. Refused before the card is turned; he is named.
//! * `not-his` — he places the card he drew in another player's grid (getting rid of a bad card,
//!   or spoiling a line of the other's). Refused at once; he is named.
//! * `discard-taken` — he takes the top discard and throws it back, a pass the rules do not
//!   allow (a card taken from the pile must replace a grid card). Refused at once by the rules
//!   replay; he is named.

use facedown_core::table::FaceDownTable;
use facedown_core::PartyId;
use rand::RngCore;
use serde::Serialize;

use super::announce::{announce, width_for, AnnounceError};
use super::ninety_nine::Tables;
use super::row::Row;
use super::{SessionError, Verdict};
use crate::game::{audit, Entry, Fault, Game, Log};
use crate::golf::{audit_match, Golf, Layout, MatchLog, MatchResult, Move, Outcome, Rules, Setup};

/// A way to cheat at Golf that one player tries, once, at the first opportunity (see the
/// [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GolfCheat {
    /// Turning one of his face-down grid cards without placing a card on it.
    Peek,
    /// Placing the card he drew in another player's grid.
    NotHis,
    /// Throwing back the card he took from the discard pile.
    DiscardTaken,
}

impl GolfCheat {
    /// Every kind, in the order of the command line's help.
    pub const ALL: [GolfCheat; 3] = [GolfCheat::Peek, GolfCheat::NotHis, GolfCheat::DiscardTaken];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            GolfCheat::Peek => "peek",
            GolfCheat::NotHis => "not-his",
            GolfCheat::DiscardTaken => "discard-taken",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<GolfCheat> {
        GolfCheat::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// A move as it is said at the table: positions of the row, and choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Said {
    /// These three positions of his grid are turned up.
    TurnUp([usize; 3]),
    /// The grid stays as it is after the turn-up.
    Keep,
    /// The face-up cards at these two positions of his grid change places.
    Arrange {
        /// The card moved.
        from: usize,
        /// Where it goes.
        to: usize,
    },
    /// The top stock card is shown to him.
    DrawStock,
    /// He takes the top discard.
    TakeDiscard,
    /// The card in hand replaces the card at this position of his grid.
    Replace(usize),
    /// The card drawn is discarded.
    Discard,
    /// The card at this position is turned with nothing placed on it: never a move of Golf.
    Peek(usize),
}

/// The moment of a turn, which fixes what an announcement may say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    TurnUp,
    Arrange,
    Draw,
    Place,
}

fn step_of(game: &Golf) -> Option<Step> {
    Some(match game.legal_moves().first()? {
        Move::TurnUp(_) => Step::TurnUp,
        Move::Keep | Move::Arrange { .. } => Step::Arrange,
        Move::DrawStock | Move::TakeDiscard => Step::Draw,
        Move::Replace(_) | Move::Discard => Step::Place,
    })
}

/// One player of a round.
pub type Seat<'b> = super::Seat<'b, Golf, GolfCheat>;

/// What one player saw of a round.
#[derive(Clone, Debug, Serialize)]
pub struct RoundReport {
    /// The setup, with the deck the end-of-round audit opened.
    pub setup: Setup,
    /// The moves as said at the table.
    pub said: Vec<Entry<Said>>,
    /// The checks' verdict.
    pub verdict: Verdict,
    /// The round's outcome, when it ended without an offence.
    pub outcome: Option<Outcome>,
    /// Announcements made.
    pub announcements: usize,
    /// The stock cards the round never drew: the rules show them to nobody, and the
    /// end-of-round audit turns them (on the dealer its own audit would open them anyway).
    pub never_shown: usize,
}

type Res<T, E> = Result<T, SessionError<E>>;

/// One player's session of one round on his view of `table`.
struct Round<'t, T> {
    table: &'t mut T,
    me: PartyId,
    rules: Rules,
    first: PartyId,
    row: Row,
    /// The table position of each slot of each grid.
    grids: Vec<Vec<usize>>,
    next_stock: usize,
    /// The discard pile's positions, top last.
    pile: Vec<usize>,
    /// The position of the card in the mover's hand.
    holding: Option<usize>,
    said: Vec<Entry<Said>>,
    moves: Vec<Entry<Move>>,
    announcements: usize,
    verdict: Verdict,
}

impl<'t, T: FaceDownTable> Round<'t, T> {
    fn new(table: &'t mut T, me: PartyId, rules: Rules, first: PartyId) -> Res<Self, T::Error> {
        let players = usize::from(rules.players);
        if table.parties() != players {
            return Err(crate::game::SetupError(format!(
                "this Golf is for {players} players, the table seats {}",
                table.parties()
            ))
            .into());
        }
        let g = rules.layout.cards();
        Ok(Round {
            table,
            me,
            rules,
            first,
            row: Row::new(me, rules.pack()),
            grids: (0..players)
                .map(|p| (p * g..(p + 1) * g).collect())
                .collect(),
            next_stock: players * g + 1,
            pile: vec![players * g],
            holding: None,
            said: Vec::new(),
            moves: Vec::new(),
            announcements: 0,
            verdict: Verdict::default(),
        })
    }

    /// Places and shuffles the pack, turns the first discard (and, in the six-card game, the
    /// two middle cards of every grid).
    fn deal(&mut self) -> Res<(), T::Error> {
        self.row.place_and_shuffle(self.table)?;
        let mut up = self.pile.clone();
        if self.rules.layout == Layout::Six {
            up.extend(self.grids.iter().flat_map(|g| [g[1], g[4]]));
        }
        self.row.turn(self.table, &up)
    }

    /// The round replayed on a completion of `known`.
    fn replay(&self, known: &[Option<crate::cards::Card>]) -> Res<Golf, T::Error> {
        let deck = self.row.completion(known, |_, _| true).ok_or_else(|| {
            SessionError::Inconsistent("the row cannot be completed from the pack".into())
        })?;
        let setup = Setup {
            rules: self.rules,
            first: self.first,
            deck,
        };
        let mut game = Golf::start(&setup)?;
        for e in &self.moves {
            game.play(&e.mv).map_err(|why| {
                SessionError::Inconsistent(format!("a checked move no longer replays: {why}"))
            })?;
        }
        Ok(game)
    }

    fn widths(&self, step: Step) -> Vec<u8> {
        let w = width_for(self.row.pack.len());
        match step {
            Step::TurnUp => vec![w; 3],
            Step::Arrange => vec![1, w, w],
            Step::Draw => vec![1],
            Step::Place => vec![2, w],
        }
    }

    fn encode(said: Said) -> Vec<u16> {
        let n = |p: usize| p as u16;
        match said {
            Said::TurnUp(ps) => ps.map(n).to_vec(),
            Said::Keep => vec![0, 0, 0],
            Said::Arrange { from, to } => vec![1, n(from), n(to)],
            Said::DrawStock => vec![0],
            Said::TakeDiscard => vec![1],
            Said::Replace(p) => vec![0, n(p)],
            Said::Discard => vec![1, 0],
            Said::Peek(p) => vec![2, n(p)],
        }
    }

    fn decode(&self, step: Step, v: &[u16]) -> Option<Said> {
        let pos = |i: usize| {
            v.get(i)
                .map(|&x| usize::from(x))
                .filter(|&p| p < self.row.pack.len())
        };
        match (step, *v.first()?) {
            (Step::TurnUp, _) => Some(Said::TurnUp([pos(0)?, pos(1)?, pos(2)?])),
            (Step::Arrange, 0) => Some(Said::Keep),
            (Step::Arrange, _) => Some(Said::Arrange {
                from: pos(1)?,
                to: pos(2)?,
            }),
            (Step::Draw, 0) => Some(Said::DrawStock),
            (Step::Draw, _) => Some(Said::TakeDiscard),
            (Step::Place, 0) => pos(1).map(Said::Replace),
            (Step::Place, 1) => Some(Said::Discard),
            (Step::Place, 2) => pos(1).map(Said::Peek),
            (Step::Place, _) => None,
        }
    }

    fn slot(&self, seat: PartyId, pos: usize) -> Option<u8> {
        let grid = self.grids.get(seat.index())?;
        grid.iter().position(|&p| p == pos).map(|k| k as u8)
    }

    /// What is wrong with `said` by `mover`, judged from public information alone.
    fn check_public(&self, mover: PartyId, said: Said) -> Option<String> {
        let named: Vec<usize> = match said {
            Said::TurnUp(ps) => ps.to_vec(),
            Said::Arrange { from, to } => vec![from, to],
            Said::Replace(p) | Said::Peek(p) => vec![p],
            _ => Vec::new(),
        };
        if let Some(p) = named.iter().find(|&&p| self.slot(mover, p).is_none()) {
            return Some(format!("named position {p}, which is not in his grid"));
        }
        match said {
            Said::Peek(p) => Some(format!(
                "asked to turn position {p} of his grid with no card placed on it (a peek)"
            )),
            _ => None,
        }
    }

    /// The rules engine's move for `said` (whose positions are in `mover`'s grid).
    fn to_move(&self, mover: PartyId, said: Said) -> Move {
        let slot = |p: usize| self.slot(mover, p).unwrap_or(u8::MAX);
        match said {
            Said::TurnUp(ps) => Move::TurnUp(ps.map(slot)),
            Said::Keep => Move::Keep,
            Said::Arrange { from, to } => Move::Arrange {
                from: slot(from),
                to: slot(to),
            },
            Said::DrawStock => Move::DrawStock,
            Said::TakeDiscard => Move::TakeDiscard,
            Said::Replace(p) | Said::Peek(p) => Move::Replace(slot(p)),
            Said::Discard => Move::Discard,
        }
    }

    /// The announcement for the engine's `mv` by this player.
    fn to_said(&self, mv: Move) -> Said {
        let grid = &self.grids[self.me.index()];
        let pos = |k: u8| grid.get(usize::from(k)).copied().unwrap_or(usize::MAX);
        match mv {
            Move::TurnUp(ks) => Said::TurnUp(ks.map(pos)),
            Move::Keep => Said::Keep,
            Move::Arrange { from, to } => Said::Arrange {
                from: pos(from),
                to: pos(to),
            },
            Move::DrawStock => Said::DrawStock,
            Move::TakeDiscard => Said::TakeDiscard,
            Move::Replace(k) => Said::Replace(pos(k)),
            Move::Discard => Said::Discard,
        }
    }

    /// Carries out a checked move on the table.
    fn carry_out(&mut self, mover: PartyId, said: Said) -> Res<(), T::Error> {
        let grid = mover.index();
        match said {
            Said::TurnUp(ps) => self.row.turn(self.table, &ps)?,
            Said::Arrange { from, to } => {
                let (f, t) = (self.slot(mover, from), self.slot(mover, to));
                if let (Some(f), Some(t)) = (f, t) {
                    self.grids[grid].swap(usize::from(f), usize::from(t));
                }
            }
            Said::DrawStock => {
                let q = self.next_stock;
                self.next_stock += 1;
                self.holding = Some(q);
                self.row.show(self.table, mover, &[q])?;
            }
            Said::TakeDiscard => self.holding = self.pile.pop(),
            Said::Replace(p) => {
                let q = self.holding.take().ok_or_else(|| {
                    SessionError::Inconsistent("a card placed with none in hand".into())
                })?;
                self.row.turn(self.table, &[p, q])?;
                if let Some(k) = self.slot(mover, p) {
                    self.grids[grid][usize::from(k)] = q;
                }
                self.pile.push(p);
            }
            Said::Discard => {
                if let Some(q) = self.holding.take() {
                    self.row.turn(self.table, &[q])?;
                    self.pile.push(q);
                }
            }
            Said::Keep | Said::Peek(_) => {}
        }
        Ok(())
    }

    /// The cheat's move, when the state gives it its chance.
    fn cheat(&self, cheat: GolfCheat, game: &Golf) -> Option<Said> {
        if step_of(game) != Some(Step::Place) {
            return None;
        }
        let view = game.view(self.me);
        let mine = &self.grids[self.me.index()];
        match cheat {
            GolfCheat::Peek => view.grids[self.me.index()]
                .iter()
                .position(Option::is_none)
                .map(|k| Said::Peek(mine[k])),
            GolfCheat::NotHis => {
                let other = (self.me.index() + 1) % self.grids.len();
                self.grids[other].first().copied().map(Said::Replace)
            }
            GolfCheat::DiscardTaken => (!view.from_stock).then_some(Said::Discard),
        }
    }

    /// The move this player makes: his bot's, or his cheat when it has its chance.
    fn choose(&mut self, seat: &mut Seat<'_>, rng: &mut dyn RngCore) -> Res<Said, T::Error> {
        let game = self.replay(&self.row.mine)?;
        let asked = seat.bot.cheat_named().and_then(GolfCheat::from_name);
        if let Some(cheat) = seat.cheat_to_try(asked) {
            if let Some(said) = self.cheat(cheat, &game) {
                seat.cheated = true;
                return Ok(said);
            }
        }
        let legal = game.legal_moves();
        if legal.is_empty() {
            return Err(SessionError::NoMove(self.me));
        }
        let mv = seat.bot.choose(&game.view(self.me), &legal, rng);
        Ok(self.to_said(mv))
    }

    fn blame(&mut self, by: PartyId, reason: String) {
        self.verdict = Verdict {
            offender: Some(by),
            reason: Some(reason),
            at_play_time: true,
        };
    }

    /// Plays the round to its end, or to the first move the public record refuses.
    fn run(&mut self, seat: &mut Seat<'_>, rng: &mut dyn RngCore) -> Res<(), T::Error> {
        loop {
            let game = self.replay(&self.row.public)?;
            let (Some(mover), Some(step)) = (game.to_move(), step_of(&game)) else {
                return Ok(());
            };
            let mine = if mover == self.me {
                Some(Self::encode(self.choose(seat, rng)?))
            } else {
                None
            };
            self.announcements += 1;
            let widths = self.widths(step);
            let index = self.said.len();
            let heard = match announce(&mut *self.table, mover, mine.as_deref(), &widths) {
                Ok(v) => v,
                Err(AnnounceError::Malformed { by, pair }) => {
                    let why = format!(
                        "move {index}: {by} announced cards that encode no move (pair {pair})"
                    );
                    self.blame(by, why);
                    return Ok(());
                }
                Err(e) => return Err(e.into()),
            };
            let Some(said) = self.decode(step, &heard) else {
                self.blame(
                    mover,
                    format!("move {index}: {mover} announced {heard:?}, no move of this step"),
                );
                return Ok(());
            };
            let mv = self.to_move(mover, said);
            let refused = self
                .check_public(mover, said)
                .or_else(|| game.check(&mv).err().map(|why| why.to_string()));
            if let Some(why) = refused {
                self.blame(mover, format!("move {index}: {mover} {why}"));
                return Ok(());
            }
            self.carry_out(mover, said)?;
            self.said.push(Entry {
                by: mover,
                mv: said,
            });
            self.moves.push(Entry { by: mover, mv });
        }
    }

    /// The end-of-round rule audit: every card still face down is turned and the log replayed.
    fn close(mut self) -> Res<(RoundReport, Log<Golf>), T::Error> {
        let never_shown = (self.next_stock..self.row.pack.len())
            .filter(|&p| self.row.public[p].is_none())
            .count();
        let deck = self.row.turn_all(self.table)?;
        let setup = Setup {
            rules: self.rules,
            first: self.first,
            deck,
        };
        let mut log = Log::<Golf>::new(setup.clone());
        log.moves = self.moves;
        let audited = audit(&log)?;
        if let (true, Some(o)) = (self.verdict.clean(), &audited.offence) {
            if matches!(o.fault, Fault::Illegal(_) | Fault::OutOfTurn { .. }) {
                self.verdict = Verdict {
                    offender: Some(o.by),
                    reason: Some(o.to_string()),
                    at_play_time: false,
                };
            }
        }
        let report = RoundReport {
            setup,
            said: self.said,
            verdict: self.verdict,
            outcome: audited.outcome,
            announcements: self.announcements,
            never_shown,
        };
        Ok((report, log))
    }
}

/// Plays one round of Golf as `seat.me` on his view of `table`, `first` turning up and moving
/// first, and audits it: the report and the round's log as the audit opened it. The table is
/// not finished.
pub fn play_round<T: FaceDownTable>(
    table: &mut T,
    seat: &mut Seat<'_>,
    rules: Rules,
    first: PartyId,
    rng: &mut dyn RngCore,
) -> Result<(RoundReport, Log<Golf>), SessionError<T::Error>> {
    let mut round = Round::new(table, seat.me, rules, first)?;
    round.deal()?;
    round.run(seat, rng)?;
    round.close()
}

/// What one player saw of a whole game.
#[derive(Clone, Debug, Serialize)]
pub struct GameReport {
    /// Every round played.
    pub rounds: Vec<RoundReport>,
    /// The result, when every round passed its checks and the game's audit.
    pub result: Option<MatchResult>,
    /// The first round's verdict that blames someone (the game stops there), or a clean one.
    pub verdict: Verdict,
}

/// Plays a game of `rules.rounds` rounds as `seat.me`, a fresh table per round, round `i`
/// started by player `i mod players + 1`; stops at the first round whose checks blame someone.
pub fn play_game<S: Tables>(
    tables: &mut S,
    seat: &mut Seat<'_>,
    rules: Rules,
    rng: &mut dyn RngCore,
) -> Result<GameReport, SessionError<<S::Table as FaceDownTable>::Error>> {
    let players = usize::from(rules.players);
    let mut rounds = Vec::new();
    let mut logs = Vec::new();
    for i in 0..usize::from(rules.rounds) {
        let mut table = tables.open(i).map_err(SessionError::Table)?;
        let first = PartyId::from_index(i % players);
        let (report, log) = play_round(&mut table, seat, rules, first, rng)?;
        table.finish().map_err(SessionError::Table)?;
        tables.close(table).map_err(SessionError::Table)?;
        let verdict = report.verdict.clone();
        let unfinished = report.outcome.is_none();
        rounds.push(report);
        logs.push(log);
        if !verdict.clean() || unfinished {
            return Ok(GameReport {
                rounds,
                result: None,
                verdict,
            });
        }
    }
    let audited = audit_match(&MatchLog {
        rules,
        rounds: logs,
    });
    Ok(GameReport {
        rounds,
        result: audited.result,
        verdict: Verdict::default(),
    })
}
