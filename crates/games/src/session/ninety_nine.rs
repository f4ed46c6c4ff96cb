//! Ninety-Nine among distrustful players: one player's session of a deal and of a game.
//!
//! Positions `0..n` of the row are the pack, in the order dealt ([`Setup::deck`]); everything
//! after them is announcements. A move travels as a [`Said`]: positions and small numbers, never
//! a card — the card is what the table shows when the position is turned.
//!
//! # Checking at once
//!
//! Every player keeps the public record (the moves said, the cards turned) and replays it with
//! the rules engine on a **completion**: the cards he has not seen laid on the positions he has
//! not seen, so that no player holds a card of a suit he has shown himself void in (a bipartite
//! matching). If every player followed the rules the true deal is such a completion, so a
//! replay that fails, or a record that no completion fits, proves a rule broken. The record is
//! public, so every player — the cheater too — stops at the same step. A player chooses his own
//! moves from a second replay that also uses the cards he was shown (his true hand).

use facedown_core::op::{Opening, TableOp};
use facedown_core::table::{FaceDownTable, ShuffleSet};
use facedown_core::{PartyId, Symbol};
use rand::RngCore;
use serde::Serialize;

use super::announce::{announce, width_for, AnnounceError};
use super::{Cheat, SessionError, Verdict};
use crate::cards::{Card, Suit};
use crate::game::{audit, Entry, Game, Log};
use crate::ninety_nine::series::Progress;
use crate::ninety_nine::state::{Move, NinetyNine, Outcome, Phase, Setup};
use crate::ninety_nine::trick::played;
use crate::ninety_nine::{Length, Offer, Rules, Standing};

/// A move as it is said at the table: positions of the row, and choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Said {
    /// These three positions of his hand are laid aside as his bid.
    Bid([usize; 3]),
    /// A premium offer.
    Premium(Offer),
    /// The trump suit named.
    Trump(Suit),
    /// The card at this position is played.
    Play(usize),
    /// The bid is claimed: these positions (his bid's) are turned.
    Claim([usize; 3]),
    /// The bid stays hidden.
    Silent,
}

/// One player of a hand.
pub type Seat<'b> = super::Seat<'b, NinetyNine, Cheat>;

/// What one player saw of a hand.
#[derive(Clone, Debug, Serialize)]
pub struct HandReport {
    /// The setup, with the deck the end-of-hand audit opened.
    pub setup: Setup,
    /// The moves as said at the table.
    pub said: Vec<Entry<Said>>,
    /// The checks' verdict.
    pub verdict: Verdict,
    /// The hand's outcome, when it ended without an offence.
    pub outcome: Option<Outcome>,
    /// Announcements made.
    pub announcements: usize,
    /// Legal-play proofs given ([`TableOp::ProveNoneOf`]), one per card that did not follow
    /// the suit led, on a table that offers them.
    pub proofs: usize,
    /// Tricks played.
    pub tricks: usize,
}

/// One player's session of one hand on his view of `table` (see the [module docs](self)).
struct Hand<'t, T> {
    table: &'t mut T,
    me: PartyId,
    rules: Rules,
    template: Setup,
    pack: Vec<Card>,
    public: Vec<Option<Card>>,
    mine: Vec<Option<Card>>,
    said: Vec<Entry<Said>>,
    bids: Vec<Option<[usize; 3]>>,
    announcements: usize,
    proofs: usize,
    verdict: Verdict,
    /// The index of the move the play-time verdict names.
    caught: usize,
}

/// What a player who did not follow suit must prove: that none of his unseen cards is one of
/// the suit led still unseen.
struct VoidClaim {
    owner: PartyId,
    positions: Vec<usize>,
    led: Suit,
    excluded: Vec<Symbol>,
}

type Res<T, E> = Result<T, SessionError<E>>;

/// A replay that broke a rule: the move's index, its author, what was wrong.
type Broken = (usize, PartyId, String);

/// Whether `table` checks a legal play when it is made: its capabilities offer the
/// none-of proof ([`TableOp::ProveNoneOf`]). The encrypted deck proves it in zero knowledge,
/// the ideal table checks it itself; the dealer cannot, and its end-of-hand audit decides.
pub fn proves_legal_play<T: FaceDownTable>(table: &T) -> bool {
    table.capabilities().prove_none_of.is_available()
}

/// The legal-play proof of a player who did not follow `led`: `owner` proves to everyone that
/// none of his cards at `positions` is one of `excluded` (the cards of the suit led that are
/// not yet public).
fn legal_play_proof<T: FaceDownTable>(
    table: &mut T,
    owner: PartyId,
    positions: &[usize],
    excluded: Vec<Symbol>,
) -> Result<(), T::Error> {
    table
        .apply(&TableOp::ProveNoneOf {
            owner,
            positions: positions.to_vec(),
            excluded,
        })
        .map(drop)
}

impl<'t, T: FaceDownTable> Hand<'t, T>
where
    T::Error: From<facedown_core::table::TableError>,
{
    fn new(table: &'t mut T, me: PartyId, template: Setup) -> Res<Self, T::Error> {
        let rules = template.variant.rules();
        if table.parties() != rules.players {
            return Err(crate::game::SetupError(format!(
                "{} needs {} players, the table seats {}",
                template.variant,
                rules.players,
                table.parties()
            ))
            .into());
        }
        let pack = rules.pack();
        let n = pack.len();
        Ok(Hand {
            table,
            me,
            template,
            pack,
            public: vec![None; n],
            mine: vec![None; n],
            said: Vec::new(),
            bids: vec![None; rules.seats],
            announcements: 0,
            proofs: 0,
            verdict: Verdict::default(),
            caught: usize::MAX,
            rules,
        })
    }

    fn hand_positions(&self, seat: usize) -> std::ops::Range<usize> {
        seat * self.rules.hand..(seat + 1) * self.rules.hand
    }

    fn seat_of(&self, pos: usize) -> Option<usize> {
        let seat = pos / self.rules.hand;
        (seat < self.rules.seats).then_some(seat)
    }

    fn card_of(&self, symbol: Symbol) -> Res<Card, T::Error> {
        match symbol {
            Symbol::Card(k) => self.pack.get(usize::from(k)).copied(),
            _ => None,
        }
        .ok_or_else(|| SessionError::Inconsistent(format!("{symbol:?} is not a card of the pack")))
    }

    /// Places the pack, shuffles it and opens each player's hand to him (and any card the
    /// rules turn up to everyone).
    fn deal(&mut self) -> Res<(), T::Error> {
        let deck: Vec<Symbol> = (0..self.pack.len() as u16).map(Symbol::Card).collect();
        self.table.place(&deck).map_err(SessionError::Table)?;
        self.table
            .shuffle(&ShuffleSet::All)
            .map_err(SessionError::Table)?;
        let seats = self.rules.seats;
        let opening = Opening {
            public: if self.rules.turned_up {
                vec![seats * self.rules.hand]
            } else {
                Vec::new()
            },
            private: (0..self.rules.players)
                .map(|s| (PartyId::from_index(s), self.hand_positions(s).collect()))
                .collect(),
        };
        let seen = self.table.open(&opening).map_err(SessionError::Table)?;
        for (&pos, &sym) in opening.public.iter().zip(&seen.public) {
            self.learn(pos, self.card_of(sym)?, true)?;
        }
        for ((_, positions), cards) in opening.private.iter().zip(&seen.private) {
            for (&pos, &sym) in positions.iter().zip(cards.iter().flatten()) {
                self.learn(pos, self.card_of(sym)?, false)?;
            }
        }
        Ok(())
    }

    /// Records the card at `pos`, for everyone or for this player.
    fn learn(&mut self, pos: usize, card: Card, public: bool) -> Res<(), T::Error> {
        let elsewhere = self
            .mine
            .iter()
            .enumerate()
            .any(|(p, c)| p != pos && *c == Some(card));
        if elsewhere || self.mine[pos].is_some_and(|c| c != card) {
            return Err(SessionError::Inconsistent(format!(
                "{card} turned up at position {pos}, not where it was seen"
            )));
        }
        self.mine[pos] = Some(card);
        if public {
            self.public[pos] = Some(card);
        }
        Ok(())
    }

    fn turn(&mut self, positions: &[usize]) -> Res<(), T::Error> {
        let fresh: Vec<usize> = positions
            .iter()
            .copied()
            .filter(|&p| self.public[p].is_none())
            .collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let cards = self.table.turn(&fresh).map_err(SessionError::Table)?;
        for (&pos, &sym) in fresh.iter().zip(&cards) {
            self.learn(pos, self.card_of(sym)?, true)?;
        }
        Ok(())
    }

    /// The stand-in a Joker plays as, when it is public.
    fn stand_in(&self) -> Option<Card> {
        let h = self.rules.hand;
        let at = if self.rules.turned_up {
            Some(self.rules.seats * h)
        } else {
            self.rules
                .dummy_seat()
                .filter(|_| {
                    self.rules.dummy == Some(crate::ninety_nine::variant::DummyRule::TrumpFromTop)
                })
                .map(|d| d * h)
        };
        at.and_then(|p| self.public[p])
    }

    /// The suits each seat has shown himself void in, from the tricks played so far.
    fn voids(&self) -> Vec<Vec<Suit>> {
        let mut voids = vec![Vec::new(); self.rules.seats];
        let plays: Vec<usize> = self
            .said
            .iter()
            .filter_map(|e| match e.mv {
                Said::Play(p) => Some(p),
                _ => None,
            })
            .collect();
        let stand_in = self.stand_in();
        for trick in plays.chunks(self.rules.seats) {
            let suit_of = |p: usize| self.public[p].and_then(|c| played(c, stand_in).suit);
            let Some(led) = trick.first().and_then(|&p| suit_of(p)) else {
                continue;
            };
            for &p in &trick[1..] {
                if let (Some(seat), true) = (self.seat_of(p), suit_of(p) != Some(led)) {
                    if !voids[seat].contains(&led) {
                        voids[seat].push(led);
                    }
                }
            }
        }
        voids
    }

    /// A deck that agrees with `known` and with every void shown, if there is one.
    fn completion(&self, known: &[Option<Card>]) -> Option<Vec<Card>> {
        let voids = self.voids();
        let stand_in = self.stand_in();
        let bid: Vec<usize> = self.bids.iter().flatten().flatten().copied().collect();
        let slots: Vec<usize> = (0..known.len()).filter(|&p| known[p].is_none()).collect();
        let cards: Vec<Card> = self
            .pack
            .iter()
            .copied()
            .filter(|c| !known.contains(&Some(*c)))
            .collect();
        let fits = |slot: usize, card: Card| match self.seat_of(slot) {
            Some(seat) if !bid.contains(&slot) => played(card, stand_in)
                .suit
                .is_none_or(|s| !voids[seat].contains(&s)),
            _ => true,
        };
        let matched = perfect_matching(slots.len(), cards.len(), |i, j| fits(slots[i], cards[j]))?;
        let mut deck: Vec<Card> = known.iter().map(|c| c.unwrap_or(self.pack[0])).collect();
        for (i, j) in matched.into_iter().enumerate() {
            deck[slots[i]] = cards[j];
        }
        Some(deck)
    }

    fn to_move(said: Said, deck: &[Card]) -> Move {
        match said {
            Said::Bid(p) => Move::Bid(p.map(|i| deck[i])),
            Said::Premium(o) => Move::Premium(o),
            Said::Trump(s) => Move::Trump(s),
            Said::Play(p) => Move::Play(deck[p]),
            Said::Claim(_) => Move::Claim,
            Said::Silent => Move::Silent,
        }
    }

    /// Replays the record on a completion of `known`: the state reached and the first move
    /// that broke a rule, or `None` when no completion fits the record.
    fn replay(
        &self,
        known: &[Option<Card>],
    ) -> Res<Option<(NinetyNine, Option<Broken>)>, T::Error> {
        let Some(deck) = self.completion(known) else {
            return Ok(None);
        };
        let setup = Setup {
            deck: deck.clone(),
            ..self.template.clone()
        };
        let mut game = NinetyNine::start(&setup)?;
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

    fn widths(&self, phase: Phase) -> Vec<u8> {
        let w = width_for(self.pack.len());
        match phase {
            Phase::Bid => vec![w; 3],
            Phase::Premium | Phase::NameTrump => vec![2],
            Phase::Play => vec![w],
            Phase::Claim => vec![1, w, w, w],
            Phase::Over => Vec::new(),
        }
    }

    fn encode(said: Said) -> Vec<u16> {
        let n = |p: usize| p as u16;
        match said {
            Said::Bid(p) => p.map(n).to_vec(),
            Said::Premium(o) => vec![o as u16],
            Said::Trump(s) => vec![Suit::ALL.iter().position(|&x| x == s).unwrap_or(0) as u16],
            Said::Play(p) => vec![n(p)],
            Said::Claim(p) => [1].into_iter().chain(p.map(n)).collect(),
            Said::Silent => vec![0, 0, 0, 0],
        }
    }

    fn decode(&self, phase: Phase, v: &[u16]) -> Option<Said> {
        let pos = |i: usize| {
            v.get(i)
                .map(|&x| usize::from(x))
                .filter(|&p| p < self.pack.len())
        };
        let three = |from: usize| Some([pos(from)?, pos(from + 1)?, pos(from + 2)?]);
        const OFFERS: [Offer; 3] = [Offer::Pass, Offer::Declare, Offer::Reveal];
        match phase {
            Phase::Bid => three(0).map(Said::Bid),
            Phase::Premium => OFFERS
                .get(usize::from(*v.first()?))
                .map(|&o| Said::Premium(o)),
            Phase::NameTrump => Some(Said::Trump(Suit::ALL[usize::from(*v.first()? & 3)])),
            Phase::Play => pos(0).map(Said::Play),
            Phase::Claim if v.first() == Some(&1) => three(1).map(Said::Claim),
            Phase::Claim => Some(Said::Silent),
            Phase::Over => None,
        }
    }

    /// The position this player holds `card` at.
    fn position_of(known: &[Option<Card>], card: Card) -> usize {
        known.iter().position(|&c| c == Some(card)).unwrap_or(0)
    }

    fn blame(&mut self, by: PartyId, reason: String) {
        self.blame_at(self.said.len(), by, reason);
    }

    /// Blames `by` for move `index`, unless someone is blamed already.
    fn blame_at(&mut self, index: usize, by: PartyId, reason: String) {
        if self.verdict.offender.is_none() {
            self.caught = index;
            self.verdict = Verdict {
                offender: Some(by),
                reason: Some(reason),
                at_play_time: true,
            };
        }
    }
}

/// A perfect matching of `left` slots into `right` items (`left ≤ right`) by Kuhn's
/// augmenting paths: `matching[i]` is the item of slot `i`.
pub(super) fn perfect_matching(
    left: usize,
    right: usize,
    fits: impl Fn(usize, usize) -> bool,
) -> Option<Vec<usize>> {
    let mut owner: Vec<Option<usize>> = vec![None; right];
    fn augment(
        i: usize,
        seen: &mut [bool],
        owner: &mut [Option<usize>],
        fits: &dyn Fn(usize, usize) -> bool,
    ) -> bool {
        for j in 0..owner.len() {
            if seen[j] || !fits(i, j) {
                continue;
            }
            seen[j] = true;
            if owner[j].is_none_or(|k| augment(k, seen, owner, fits)) {
                owner[j] = Some(i);
                return true;
            }
        }
        false
    }
    for i in 0..left {
        let mut seen = vec![false; right];
        if !augment(i, &mut seen, &mut owner, &fits) {
            return None;
        }
    }
    let mut matching = vec![0; left];
    for (j, o) in owner.iter().enumerate() {
        if let Some(i) = o {
            matching[*i] = j;
        }
    }
    Some(matching)
}

/// A replay's result: the state, the completed deck it used, the first rule broken.
type Replay = (NinetyNine, Vec<Card>, Option<Broken>);

impl<'t, T: FaceDownTable> Hand<'t, T>
where
    T::Error: From<facedown_core::table::TableError>,
{
    fn replayed(&self, known: &[Option<Card>]) -> Res<Option<Replay>, T::Error> {
        let Some(deck) = self.completion(known) else {
            return Ok(None);
        };
        Ok(self
            .replay(known)?
            .map(|(game, broken)| (game, deck, broken)))
    }

    fn played_positions(&self) -> Vec<usize> {
        self.said
            .iter()
            .filter_map(|e| match e.mv {
                Said::Play(p) => Some(p),
                _ => None,
            })
            .collect()
    }

    /// The positions of `seat`'s hand not laid aside and not played.
    fn holding(&self, seat: usize) -> Vec<usize> {
        let played = self.played_positions();
        let bid = self.bids[seat].unwrap_or([usize::MAX; 3]);
        self.hand_positions(seat)
            .filter(|p| !played.contains(p) && !bid.contains(p))
            .collect()
    }

    /// Turns what the rules now show everyone: declared bids, revealed hands, the dummy.
    fn reveal_required(&mut self, game: &NinetyNine) -> Res<(), T::Error> {
        let view = game.view(self.me);
        let mut show = Vec::new();
        for s in 0..self.rules.seats {
            if view.shown_bids.get(s).is_some_and(Option::is_some) {
                show.extend(self.bids[s].into_iter().flatten());
            }
            if view.open_hands.get(s).is_some_and(Option::is_some) {
                show.extend(self.holding(s));
            }
        }
        self.turn(&show)
    }

    /// What is wrong with `said` by `mover`, judged from public information alone.
    fn check_public(&self, game: &NinetyNine, mover: PartyId, said: Said) -> Option<String> {
        match said {
            Said::Play(p) => {
                let seat = game.view(mover).to_play?;
                (!self.holding(seat).contains(&p))
                    .then(|| format!("named position {p}, which is not in the hand he plays from"))
            }
            Said::Bid(ps) => {
                let mine: Vec<usize> = self.hand_positions(mover.index()).collect();
                ps.iter()
                    .find(|p| !mine.contains(p))
                    .map(|p| format!("laid aside position {p}, which is not his"))
            }
            Said::Claim(ps) => {
                let mut named = ps;
                named.sort_unstable();
                let mut laid = self.bids[mover.index()].unwrap_or_default();
                laid.sort_unstable();
                (named != laid).then(|| {
                    format!("opened positions {named:?} at his claim, not his bid cards {laid:?}")
                })
            }
            _ => None,
        }
    }

    /// Carries out `said` on the table: bid positions recorded, a played card or claimed bid
    /// turned.
    fn carry_out(&mut self, mover: PartyId, said: Said) -> Res<(), T::Error> {
        match said {
            Said::Bid(ps) => self.bids[mover.index()] = Some(ps),
            Said::Play(p) => self.turn(&[p])?,
            Said::Claim(ps) => self.turn(&ps)?,
            _ => {}
        }
        Ok(())
    }

    /// The claim the card just played at `p` makes, when it does not follow the suit led and
    /// its player holds cards nobody else has seen (the dummy's are public).
    fn void_claim(&self, p: usize) -> Option<VoidClaim> {
        let plays = self.played_positions();
        let in_trick = plays.len().checked_sub(1)? % self.rules.seats;
        let stand_in = self.stand_in();
        let suit = |c: Card| played(c, stand_in).suit;
        let lead = plays[plays.len() - 1 - in_trick];
        let led = self.public[lead].and_then(suit)?;
        if in_trick == 0 || self.public[p].and_then(suit) == Some(led) {
            return None;
        }
        let seat = self.seat_of(p).filter(|&s| s < self.rules.players)?;
        let positions: Vec<usize> = self
            .holding(seat)
            .into_iter()
            .filter(|&q| self.public[q].is_none())
            .collect();
        let excluded: Vec<Symbol> = (0..self.pack.len())
            .filter(|&k| {
                let c = self.pack[k];
                suit(c) == Some(led) && !self.public.contains(&Some(c))
            })
            .map(|k| Symbol::Card(k as u16))
            .collect();
        (!positions.is_empty() && !excluded.is_empty()).then_some(VoidClaim {
            owner: PartyId::from_index(seat),
            positions,
            led,
            excluded,
        })
    }

    /// The legal-play check of the card just played at `p`, on a table that offers it
    /// ([`proves_legal_play`]). When the card does not follow the suit led, its player first
    /// announces one bit — 1: "I prove I hold none of it", 0: "I cannot" — and on 1 proves it
    /// ([`TableOp::ProveNoneOf`]). Saying 0 admits a revoke: it is how a revoker whose own
    /// engine refuses to prove a falsehood ends, named at once by every player, himself
    /// included, while the table still serves the end-of-hand audit. A player who says 1 and
    /// then gives no valid proof fails the table's operation, and its error names him.
    fn check_legal_play(&mut self, p: usize) -> Res<bool, T::Error> {
        let Some(claim) = self
            .void_claim(p)
            .filter(|_| proves_legal_play(&*self.table))
        else {
            return Ok(true);
        };
        let stand_in = self.stand_in();
        let can_prove = (claim.owner == self.me).then(|| {
            let holds = claim.positions.iter().any(|&q| {
                self.mine[q].is_some_and(|c| played(c, stand_in).suit == Some(claim.led))
            });
            [u16::from(!holds)]
        });
        let Some(heard) = self.hear(claim.owner, can_prove.as_ref().map(|b| &b[..]), &[1])? else {
            return Ok(false);
        };
        if heard != [1] {
            let (index, led) = (self.said.len() - 1, claim.led);
            let trick = self.played_positions().len().div_ceil(self.rules.seats);
            let card = self.public[p].map(|c| c.to_string()).unwrap_or_default();
            self.blame_at(
                index,
                claim.owner,
                format!(
                    "move {index} (trick {trick}): {} played {card} to a {led} lead and \
                     announced he cannot prove he holds no {led}",
                    claim.owner
                ),
            );
            return Ok(false);
        }
        self.proofs += 1;
        legal_play_proof(self.table, claim.owner, &claim.positions, claim.excluded)
            .map_err(SessionError::Table)?;
        Ok(true)
    }

    /// Hears `by`'s announcement (making it when `mine` is given); `None` when its cards encode
    /// no number, and `by` is blamed.
    fn hear(
        &mut self,
        by: PartyId,
        mine: Option<&[u16]>,
        widths: &[u8],
    ) -> Res<Option<Vec<u16>>, T::Error> {
        self.announcements += 1;
        match announce(&mut *self.table, by, mine, widths) {
            Ok(v) => Ok(Some(v)),
            Err(AnnounceError::Malformed { by, pair }) => {
                self.blame(
                    by,
                    format!("{by} announced cards that encode no move (pair {pair})"),
                );
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The move this player makes: his bot's, or his cheat when it has its chance.
    fn choose(
        &mut self,
        seat: &mut Seat<'_>,
        observer: &Replay,
        rng: &mut dyn RngCore,
    ) -> Res<Said, T::Error> {
        let informed = self.replayed(&self.mine)?;
        let (game, deck) = match &informed {
            Some((g, d, None)) => (g, d),
            _ => (&observer.0, &observer.1),
        };
        let asked = seat.bot.cheat();
        if let Some(cheat) = seat.cheat_to_try(asked) {
            if let Some(said) = self.cheat(cheat, game, deck) {
                seat.cheated = true;
                return Ok(said);
            }
        }
        let legal = game.legal_moves();
        if legal.is_empty() {
            return Err(SessionError::NoMove(self.me));
        }
        let mv = seat.bot.choose(&game.view(self.me), &legal, rng);
        Ok(match mv {
            Move::Bid(cards) => Said::Bid(cards.map(|c| Self::position_of_in(deck, c))),
            Move::Premium(o) => Said::Premium(o),
            Move::Trump(s) => Said::Trump(s),
            Move::Play(c) => Said::Play(Self::position_of_in(deck, c)),
            Move::Claim => Said::Claim(self.bids[self.me.index()].unwrap_or_default()),
            Move::Silent => Said::Silent,
        })
    }

    fn position_of_in(deck: &[Card], card: Card) -> usize {
        let known: Vec<Option<Card>> = deck.iter().copied().map(Some).collect();
        Self::position_of(&known, card)
    }

    /// The cheat's move, when the state gives it its chance.
    fn cheat(&self, cheat: Cheat, game: &NinetyNine, deck: &[Card]) -> Option<Said> {
        let view = game.view(self.me);
        let stand_in = self.stand_in();
        let suit = |c: Card| played(c, stand_in).suit;
        let led = view.current.first().and_then(|&(_, c)| suit(c));
        let off_suit = |hand: &[Card]| {
            let led = led?;
            hand.iter().any(|&c| suit(c) == Some(led)).then_some(())?;
            hand.iter().copied().find(|&c| suit(c) != Some(led))
        };
        let me = self.me.index();
        match (cheat, view.phase) {
            (Cheat::Revoke, Phase::Play) if view.to_play == Some(me) => {
                off_suit(&view.hand).map(|c| Said::Play(Self::position_of_in(deck, c)))
            }
            (Cheat::Dummy, Phase::Play) if view.to_play.is_some() && view.to_play == view.dummy => {
                let dummy = view.open_hands.get(view.dummy?)?.as_ref()?;
                off_suit(dummy).map(|c| Said::Play(Self::position_of_in(deck, c)))
            }
            (Cheat::NotInHand, Phase::Play) if view.to_play == Some(me) => (0..self.rules.players)
                .filter(|&s| s != me)
                .flat_map(|s| self.holding(s))
                .next()
                .map(Said::Play),
            (Cheat::FalseBid, Phase::Claim) if !game.legal_moves().contains(&Move::Claim) => {
                self.bids[me].map(Said::Claim)
            }
            (Cheat::ChangedBid, Phase::Claim) => {
                let played = self.played_positions();
                let mine: Vec<usize> = self
                    .hand_positions(me)
                    .filter(|p| played.contains(p))
                    .take(3)
                    .collect();
                Some(Said::Claim([*mine.first()?, *mine.get(1)?, *mine.get(2)?]))
            }
            _ => None,
        }
    }

    /// Plays the hand to its end, or to the first offence the public record proves.
    fn run(&mut self, seat: &mut Seat<'_>, rng: &mut dyn RngCore) -> Res<(), T::Error> {
        loop {
            let Some(observer) = self.replayed(&self.public)? else {
                // No deal fits the record: a rule was broken; the audit names who.
                self.verdict.at_play_time = true;
                return Ok(());
            };
            if let Some((i, by, why)) = &observer.2 {
                self.blame(*by, format!("move {i}: {by} {why}"));
                return Ok(());
            }
            self.reveal_required(&observer.0)?;
            let Some(mover) = observer.0.to_move() else {
                return Ok(());
            };
            let phase = observer.0.phase();
            let mine = if mover == self.me {
                Some(Self::encode(self.choose(seat, &observer, rng)?))
            } else {
                None
            };
            let widths = self.widths(phase);
            let Some(heard) = self.hear(mover, mine.as_deref(), &widths)? else {
                return Ok(());
            };
            let Some(said) = self.decode(phase, &heard) else {
                self.blame(
                    mover,
                    format!("{mover} announced {heard:?}, no move of the {phase:?} phase"),
                );
                return Ok(());
            };
            if let Some(why) = self.check_public(&observer.0, mover, said) {
                self.blame(mover, format!("move {}: {mover} {why}", self.said.len()));
                return Ok(());
            }
            self.carry_out(mover, said)?;
            self.said.push(Entry {
                by: mover,
                mv: said,
            });
            if let Said::Play(p) = said {
                if !self.check_legal_play(p)? {
                    return Ok(());
                }
            }
        }
    }

    /// The end-of-hand rule audit: every card still face down is turned and the log replayed.
    fn close(mut self) -> Res<HandReport, T::Error> {
        let rest: Vec<usize> = (0..self.pack.len()).collect();
        self.turn(&rest)?;
        let deck: Vec<Card> = self.public.iter().flatten().copied().collect();
        let setup = Setup {
            deck: deck.clone(),
            ..self.template.clone()
        };
        let mut log = Log::<NinetyNine>::new(setup.clone());
        log.moves = self
            .said
            .iter()
            .map(|e| Entry {
                by: e.by,
                mv: Self::to_move(e.mv, &deck),
            })
            .collect();
        let audited = audit(&log)?;
        let proven = matches!(
            audited.offence.as_ref().map(|o| &o.fault),
            Some(crate::game::Fault::Illegal(_) | crate::game::Fault::OutOfTurn { .. })
        );
        if let (true, Some(o)) = (proven, &audited.offence) {
            let earlier = self.verdict.offender.is_none() || o.index < self.caught;
            if earlier {
                self.verdict = Verdict {
                    offender: Some(o.by),
                    reason: Some(o.to_string()),
                    at_play_time: self.verdict.at_play_time,
                };
            }
        }
        let tricks = self.played_positions().len() / self.rules.seats;
        Ok(HandReport {
            setup,
            said: self.said,
            verdict: self.verdict,
            outcome: audited.outcome,
            announcements: self.announcements,
            proofs: self.proofs,
            tricks,
        })
    }

    /// The dummy's bid cards, laid aside by the deal itself.
    fn lay_dummy_bid(&mut self) {
        use crate::ninety_nine::variant::DummyRule;
        if let (Some(rule), Some(d)) = (self.rules.dummy, self.rules.dummy_seat()) {
            let from = d * self.rules.hand + usize::from(rule == DummyRule::TrumpFromTop);
            self.bids[d] = Some([from, from + 1, from + 2]);
        }
    }
}

/// Plays one hand of Ninety-Nine as `seat.me` on his view of `table`, from `template` (its deck
/// is ignored: the table deals), and audits it. The table is not finished.
pub fn play_hand<T: FaceDownTable>(
    table: &mut T,
    seat: &mut Seat<'_>,
    template: Setup,
    rng: &mut dyn RngCore,
) -> Result<HandReport, SessionError<T::Error>>
where
    T::Error: From<facedown_core::table::TableError>,
{
    let mut hand = Hand::new(table, seat.me, template)?;
    hand.deal()?;
    hand.lay_dummy_bid();
    hand.run(seat, rng)?;
    hand.close()
}

/// A fresh table for every hand (a backend's session per deal: the dealer's audit and the
/// encrypted deck's keys are per deal).
pub trait Tables {
    /// The table of one hand.
    type Table: FaceDownTable;
    /// The table of hand `hand` (from 0).
    fn open(&mut self, hand: usize) -> Result<Self::Table, <Self::Table as FaceDownTable>::Error>;
    /// Ends hand `hand`'s table once it is finished.
    fn close(&mut self, table: Self::Table) -> Result<(), <Self::Table as FaceDownTable>::Error>;
}

/// What one player saw of a whole game.
#[derive(Clone, Debug, Serialize)]
pub struct GameReport {
    /// Every hand played.
    pub hands: Vec<HandReport>,
    /// The standing, when every hand passed its checks.
    pub standing: Option<Standing>,
    /// The first hand's verdict that blames someone (the game stops there), or a clean one.
    pub verdict: Verdict,
}

/// Plays a series of `variant` of `length` as `seat.me`, a fresh table per hand; stops at
/// the first hand whose checks blame someone.
pub fn play_game<S: Tables>(
    tables: &mut S,
    seat: &mut Seat<'_>,
    variant: crate::ninety_nine::Variant,
    length: Length,
    rng: &mut dyn RngCore,
) -> Result<GameReport, SessionError<<S::Table as FaceDownTable>::Error>>
where
    <S::Table as FaceDownTable>::Error: From<facedown_core::table::TableError>,
{
    let mut progress = Progress::new(variant, length);
    let mut hands = Vec::new();
    while !progress.over() && hands.len() < length.max_deals() {
        let template = progress.next_setup(false, &[], variant.rules().pack());
        let mut table = tables.open(hands.len()).map_err(SessionError::Table)?;
        let report = play_hand(&mut table, seat, template, rng)?;
        table.finish().map_err(SessionError::Table)?;
        tables.close(table).map_err(SessionError::Table)?;
        let verdict = report.verdict.clone();
        if let Some(outcome) = &report.outcome {
            progress.record(outcome);
        }
        hands.push(report);
        if !verdict.clean() || hands.last().is_some_and(|h| h.outcome.is_none()) {
            return Ok(GameReport {
                hands,
                standing: None,
                verdict,
            });
        }
    }
    Ok(GameReport {
        hands,
        standing: Some(progress.standing()),
        verdict: Verdict::default(),
    })
}
