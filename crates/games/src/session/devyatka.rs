//! Девятка among distrustful players: one player's session of a deal for two to four players
//! ([`MultiDevyatka`]).
//!
//! | Девятка | the table |
//! |---|---|
//! | the deal, 36 / N each | the pack placed, shuffled, hand `s` (positions `s·h .. (s+1)·h`) opened to player `s` alone |
//! | putting a card down | its owner names one of his positions ([`super::announce`]); it is turned for all |
//! | a pass | announced; it denies every card that could go down now |
//! | the end of the deal | every card still face down is turned: the rule audit |
//!
//! Every player checks each move at once against what is public: that the position named is in
//! the mover's hand and not yet played, and — replaying the record with the rules engine on a
//! **completion** of the unseen cards in which nobody holds a card he has denied by passing (a
//! bipartite matching, as in [`super::ninety_nine`]) — that the card turned may go down. If
//! everyone kept the rules the true deal is such a completion, so a replay that fails proves a
//! rule broken: a card that cannot go down is refused as soon as it is turned, and a false pass
//! as soon as the passer plays a card he denied. A false pass whose card is never played is
//! named by the end-of-deal audit ([`crate::game::audit`]), which opens every card.
//!
//! On a table that offers the legal-play check ([`proves_legal_play`]: the encrypted deck's
//! zero-knowledge proof, the ideal table's own check) a pass is proved when it is made, as a
//! revoke is in [`super::ninety_nine`]: the passer announces one bit, "I prove" or "I cannot",
//! and on "I prove" shows with [`TableOp::ProveNoneOf`] that none of his cards in hand may go
//! down. A false pass is then named at the pass. The dealer cannot prove it, and there the
//! completion and the end-of-deal audit decide.
//!
//! The cheats a test or the command line can make one player try ([`DevyatkaCheat`]), or his bot
//! decide on during play ([`Bot::cheat_named`](crate::game::Bot::cheat_named): the
//! classroom's cheat button):
//!
//! * `false-pass` — he passes while holding a card that may go down (his engine will not prove
//!   a falsehood, so on a table that checks passes he announces "I cannot");
//! * `not-in-hand` — he names a position of another player's hand;
//! * `not-playable` — he puts down a card of his that may not go down yet.

use facedown_core::op::Opening;
use facedown_core::table::FaceDownTable;
use facedown_core::{PartyId, Symbol, TableOp};
use rand::RngCore;
use serde::Serialize;

use super::announce::{hear, width_for};
use super::ninety_nine::{proves_legal_play, Tables};
use super::row::Row;
use super::{SessionError, Verdict};
use crate::cards::Card;
use crate::devyatka::multi::{MultiOutcome, MultiSetup};
use crate::devyatka::{card_index, pack, playable_on, Move, MultiDevyatka, CARDS};
use crate::game::{audit, Entry, Fault, Game, Log};

/// A way to cheat at Девятка that one player tries, once, at the first opportunity (see the
/// [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DevyatkaCheat {
    /// Passing while holding a card that may go down.
    FalsePass,
    /// Naming a position of another player's hand.
    NotInHand,
    /// Putting down a card that may not go down yet.
    NotPlayable,
}

impl DevyatkaCheat {
    /// Every kind, in the order of the command line's help.
    pub const ALL: [DevyatkaCheat; 3] = [
        DevyatkaCheat::FalsePass,
        DevyatkaCheat::NotInHand,
        DevyatkaCheat::NotPlayable,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DevyatkaCheat::FalsePass => "false-pass",
            DevyatkaCheat::NotInHand => "not-in-hand",
            DevyatkaCheat::NotPlayable => "not-playable",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<DevyatkaCheat> {
        DevyatkaCheat::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// A move as it is said at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Said {
    /// The card at this position is put down.
    Play(usize),
    /// He passes.
    Pass,
}

/// One player of a deal.
pub type Seat<'b> = super::Seat<'b, MultiDevyatka, DevyatkaCheat>;

/// What one player saw of a deal.
#[derive(Clone, Debug, Serialize)]
pub struct DealReport {
    /// The setup, with the hands the end-of-deal audit opened.
    pub setup: MultiSetup,
    /// The moves as said at the table.
    pub said: Vec<Entry<Said>>,
    /// The checks' verdict.
    pub verdict: Verdict,
    /// The deal's outcome, when it ended without an offence.
    pub outcome: Option<MultiOutcome>,
    /// Announcements made.
    pub announcements: usize,
    /// Passes proved at play time ([`TableOp::ProveNoneOf`]; none on a table that cannot).
    pub proofs: usize,
    /// The cards still in hand when the deal ended: the rules show them to nobody but their
    /// owners, and the end-of-deal audit turns them (on the dealer its own audit would open
    /// them anyway).
    pub never_shown: usize,
}

type Res<T, E> = Result<T, SessionError<E>>;

/// A replay that broke a rule: the move's index, its author, what was wrong.
type Broken = (usize, PartyId, String);

/// The value announced for a pass (no position of the pack).
const PASS: u16 = 63;

struct Deal<'t, T> {
    table: &'t mut T,
    me: PartyId,
    players: usize,
    first: PartyId,
    row: Row,
    said: Vec<Entry<Said>>,
    /// Per seat, the cards (as a mask of card indices) he denied holding by passing.
    denied: Vec<u64>,
    announcements: usize,
    proofs: usize,
    verdict: Verdict,
}

impl<'t, T: FaceDownTable> Deal<'t, T> {
    fn new(table: &'t mut T, me: PartyId, first: PartyId) -> Res<Self, T::Error> {
        let players = table.parties();
        if !(2..=4).contains(&players) {
            return Err(crate::game::SetupError(format!(
                "Devyatka is for 2 to 4 players, the table seats {players}"
            ))
            .into());
        }
        Ok(Deal {
            table,
            me,
            players,
            first,
            row: Row::new(me, pack()),
            said: Vec::new(),
            denied: vec![0; players],
            announcements: 0,
            proofs: 0,
            verdict: Verdict::default(),
        })
    }

    fn hand(&self) -> usize {
        CARDS / self.players
    }

    fn seat_of(&self, pos: usize) -> usize {
        pos / self.hand()
    }

    /// Places and shuffles the pack and opens each hand to its owner.
    fn deal(&mut self) -> Res<(), T::Error> {
        self.row.place_and_shuffle(self.table)?;
        let h = self.hand();
        let opening = Opening {
            public: Vec::new(),
            private: PartyId::all(self.players)
                .map(|p| (p, (p.index() * h..(p.index() + 1) * h).collect()))
                .collect(),
        };
        self.row.open(self.table, &opening)
    }

    fn played(&self) -> Vec<usize> {
        self.said
            .iter()
            .filter_map(|e| match e.mv {
                Said::Play(p) => Some(p),
                Said::Pass => None,
            })
            .collect()
    }

    /// The positions of `seat`'s hand not yet put down.
    fn holding(&self, seat: usize) -> Vec<usize> {
        let played = self.played();
        let h = self.hand();
        (seat * h..(seat + 1) * h)
            .filter(|p| !played.contains(p))
            .collect()
    }

    fn to_move(said: Said, deck: &[Card]) -> Move {
        match said {
            Said::Play(p) => Move::Play(deck[p]),
            Said::Pass => Move::Pass,
        }
    }

    /// Replays the record on a completion of `known` in which nobody holds a card he denied:
    /// the state reached and the first move that broke a rule, or `None` when no completion
    /// fits the record.
    fn replay(
        &self,
        known: &[Option<Card>],
    ) -> Res<Option<(MultiDevyatka, Option<Broken>)>, T::Error> {
        let fits = |pos: usize, card: Card| {
            let denied = self.denied[self.seat_of(pos)];
            card_index(card).is_none_or(|i| denied & 1 << i == 0)
        };
        let Some(deck) = self.row.completion(known, fits) else {
            return Ok(None);
        };
        let mut game = MultiDevyatka::start(&MultiSetup::dealt(self.players, self.first, &deck))?;
        for (i, e) in self.said.iter().enumerate() {
            if game.to_move() != Some(e.by) {
                return Ok(Some((game, Some((i, e.by, "moved out of turn".into())))));
            }
            if let Err(why) = game.play(&Self::to_move(e.mv, &deck)) {
                return Ok(Some((game, Some((i, e.by, why.to_string())))));
            }
        }
        Ok(Some((game, None)))
    }

    /// This player's cards in hand, with their positions.
    fn my_cards(&self) -> Vec<(usize, Card)> {
        self.holding(self.me.index())
            .into_iter()
            .filter_map(|p| self.row.mine[p].map(|c| (p, c)))
            .collect()
    }

    /// The move this player makes on the public state `game`: his bot's, or his cheat.
    fn choose(&self, seat: &mut Seat<'_>, game: &MultiDevyatka, rng: &mut dyn RngCore) -> Said {
        let table = game.table_mask();
        let mine = self.my_cards();
        let can = |c: Card| card_index(c).is_some_and(|i| playable_on(table, i));
        let playable: Vec<(usize, Card)> = mine.iter().copied().filter(|&(_, c)| can(c)).collect();
        let asked = seat.bot.cheat_named().and_then(DevyatkaCheat::from_name);
        if let Some(cheat) = seat.cheat_to_try(asked) {
            let said = match cheat {
                DevyatkaCheat::FalsePass => playable.first().map(|_| Said::Pass),
                DevyatkaCheat::NotInHand => {
                    let next = (self.me.index() + 1) % self.players;
                    self.holding(next).first().copied().map(Said::Play)
                }
                DevyatkaCheat::NotPlayable => mine
                    .iter()
                    .find(|&&(_, c)| !can(c))
                    .map(|&(p, _)| Said::Play(p)),
            };
            if let Some(said) = said {
                seat.cheated = true;
                return said;
            }
        }
        let legal: Vec<Move> = match playable.is_empty() {
            true => vec![Move::Pass],
            false => playable.iter().map(|&(_, c)| Move::Play(c)).collect(),
        };
        let mut view = game.view(self.me);
        view.hand = mine.iter().map(|&(_, c)| c).collect();
        match seat.bot.choose(&view, &legal, rng) {
            Move::Play(c) => mine
                .iter()
                .find(|&&(_, x)| x == c)
                .map_or(Said::Pass, |&(p, _)| Said::Play(p)),
            Move::Pass => Said::Pass,
        }
    }

    fn blame(&mut self, by: PartyId, reason: String) {
        self.verdict = Verdict {
            offender: Some(by),
            reason: Some(reason),
            at_play_time: true,
        };
    }

    /// Plays the deal to its end, or to the first offence the public record proves.
    fn run(&mut self, seat: &mut Seat<'_>, rng: &mut dyn RngCore) -> Res<(), T::Error> {
        loop {
            let Some((game, broken)) = self.replay(&self.row.public)? else {
                // No deal fits the record: a rule was broken; the audit names who.
                self.verdict.at_play_time = true;
                return Ok(());
            };
            if let Some((i, by, why)) = broken {
                self.blame(by, format!("move {i}: {by} {why}"));
                return Ok(());
            }
            let Some(mover) = game.to_move() else {
                return Ok(());
            };
            let mine = (mover == self.me).then(|| match self.choose(seat, &game, rng) {
                Said::Play(p) => vec![p as u16],
                Said::Pass => vec![PASS],
            });
            let index = self.said.len();
            let widths = [width_for(usize::from(PASS))];
            let Some(heard) = self.hear_move(index, mover, mine.as_deref(), &widths)? else {
                return Ok(());
            };
            let heard = heard[0];
            let said = match heard {
                PASS => Said::Pass,
                p if usize::from(p) < CARDS => Said::Play(usize::from(p)),
                other => {
                    self.blame(
                        mover,
                        format!("move {index}: {mover} announced {other}, no position of the pack"),
                    );
                    return Ok(());
                }
            };
            match said {
                Said::Play(p) if !self.holding(mover.index()).contains(&p) => {
                    let why = format!(
                        "move {index}: {mover} named position {p}, which is not in his hand"
                    );
                    self.blame(mover, why);
                    return Ok(());
                }
                Said::Play(p) => self.row.turn(self.table, &[p])?,
                Said::Pass => self.denied[mover.index()] |= game.playable_mask(),
            }
            self.said.push(Entry {
                by: mover,
                mv: said,
            });
            if said == Said::Pass && !self.check_pass(mover, game.playable_mask())? {
                return Ok(());
            }
        }
    }

    /// Hears `by`'s announcement of move `index` (making it when `mine` is given); `None` when
    /// its cards encode no number, and `by` is blamed.
    fn hear_move(
        &mut self,
        index: usize,
        by: PartyId,
        mine: Option<&[u16]>,
        widths: &[u8],
    ) -> Res<Option<Vec<u16>>, T::Error> {
        self.announcements += 1;
        let heard = hear(&mut *self.table, by, mine, widths)?;
        if let Err(pair) = heard {
            let why =
                format!("move {index}: {by} announced cards that encode no move (pair {pair})");
            self.blame(by, why);
        }
        Ok(heard.ok())
    }

    /// The play-time check of `passer`'s pass on a table that offers it ([`proves_legal_play`]),
    /// the cards of `playable` being those that may go down. He announces one bit — 1: "I
    /// prove that none of my cards may go down", 0: "I cannot" — and on 1 proves it
    /// ([`TableOp::ProveNoneOf`] over his cards in hand, against the cards that may go down).
    /// Saying 0 admits a false pass: it is how a passer whose own engine refuses to prove a
    /// falsehood ends, named at once by every player, himself included. A player who says 1
    /// and gives no valid proof fails the table's operation, and its error names him.
    fn check_pass(&mut self, passer: PartyId, playable: u64) -> Res<bool, T::Error> {
        let may_go_down = |card: Option<Card>| {
            card.and_then(card_index)
                .is_some_and(|i| playable & 1 << i != 0)
        };
        let positions = self.holding(passer.index());
        let excluded: Vec<Symbol> = (0..self.row.pack.len())
            .filter(|&k| may_go_down(Some(self.row.pack[k])))
            .map(|k| Symbol::Card(k as u16))
            .collect();
        if !proves_legal_play(&*self.table) || positions.is_empty() || excluded.is_empty() {
            return Ok(true);
        }
        let can_prove = (passer == self.me).then(|| {
            let holds = positions.iter().any(|&q| may_go_down(self.row.mine[q]));
            [u16::from(!holds)]
        });
        let index = self.said.len() - 1;
        let Some(heard) =
            self.hear_move(index, passer, can_prove.as_ref().map(|b| &b[..]), &[1])?
        else {
            return Ok(false);
        };
        if heard != [1] {
            let why = format!(
                "move {index}: {passer} passed while able to play: he announced he cannot prove \
                 that none of his {} cards may go down",
                positions.len()
            );
            self.blame(passer, why);
            return Ok(false);
        }
        self.proofs += 1;
        self.table
            .apply(&TableOp::ProveNoneOf {
                owner: passer,
                positions,
                excluded,
            })
            .map_err(SessionError::Table)?;
        Ok(true)
    }

    /// The end-of-deal rule audit: every card still face down is turned and the log replayed.
    fn close(mut self) -> Res<DealReport, T::Error> {
        let never_shown = self.row.public.iter().filter(|c| c.is_none()).count();
        let deck = self.row.turn_all(self.table)?;
        let setup = MultiSetup::dealt(self.players, self.first, &deck);
        let mut log = Log::<MultiDevyatka>::new(setup.clone());
        log.moves = self
            .said
            .iter()
            .map(|e| Entry {
                by: e.by,
                mv: Self::to_move(e.mv, &deck),
            })
            .collect();
        let audited = audit(&log)?;
        if let (None, Some(o)) = (self.verdict.offender, &audited.offence) {
            if matches!(o.fault, Fault::Illegal(_) | Fault::OutOfTurn { .. }) {
                self.verdict.offender = Some(o.by);
                self.verdict.reason = Some(o.to_string());
            }
        }
        Ok(DealReport {
            setup,
            said: self.said,
            verdict: self.verdict,
            outcome: audited.outcome,
            announcements: self.announcements,
            proofs: self.proofs,
            never_shown,
        })
    }
}

/// Plays one deal of Девятка as `seat.me` on his view of `table` (its number of players is the
/// table's), `first` moving first, and audits it. The table is not finished.
pub fn play_deal<T: FaceDownTable>(
    table: &mut T,
    seat: &mut Seat<'_>,
    first: PartyId,
    rng: &mut dyn RngCore,
) -> Result<DealReport, SessionError<T::Error>> {
    let mut deal = Deal::new(table, seat.me, first)?;
    deal.deal()?;
    deal.run(seat, rng)?;
    deal.close()
}

/// Plays one deal on the first table of `tables` (player 1 moving first), finishes and closes
/// it: a whole game of Девятка.
pub fn play_game<S: Tables>(
    tables: &mut S,
    seat: &mut Seat<'_>,
    rng: &mut dyn RngCore,
) -> Result<DealReport, SessionError<<S::Table as FaceDownTable>::Error>> {
    let mut table = tables.open(0).map_err(SessionError::Table)?;
    let report = play_deal(&mut table, seat, PartyId(1), rng)?;
    table.finish().map_err(SessionError::Table)?;
    tables.close(table).map_err(SessionError::Table)?;
    Ok(report)
}
