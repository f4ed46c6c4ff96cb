//! What one player knows of the row: the pack placed at positions `0..n`, the cards turned for
//! everyone, and the cards shown to him alone.
//!
//! A session of Golf or Devyatka keeps one [`Row`]. Every card it learns is checked against
//! what it learned before — a card seen at two positions, or a position that changes its card,
//! is a table no honest backend presents ([`SessionError::Inconsistent`]).

use facedown_core::op::Opening;
use facedown_core::table::{FaceDownTable, ShuffleSet};
use facedown_core::{PartyId, Symbol};

use super::SessionError;
use crate::cards::Card;

/// One player's knowledge of the pack's positions.
#[derive(Clone, Debug)]
pub struct Row {
    me: PartyId,
    /// The pack: the card `Symbol::Card(k)` is `pack[k]`.
    pub pack: Vec<Card>,
    /// The cards turned for everyone.
    pub public: Vec<Option<Card>>,
    /// The cards this player has seen (the public ones and his own).
    pub mine: Vec<Option<Card>>,
}

type Res<T, E> = Result<T, SessionError<E>>;

impl Row {
    /// A row of `pack` seen by `me`, nothing turned yet.
    pub fn new(me: PartyId, pack: Vec<Card>) -> Row {
        let n = pack.len();
        Row {
            me,
            pack,
            public: vec![None; n],
            mine: vec![None; n],
        }
    }

    /// Places the pack on `table` and shuffles it with a full shuffle.
    pub fn place_and_shuffle<T: FaceDownTable>(&self, table: &mut T) -> Res<(), T::Error> {
        let deck: Vec<Symbol> = (0..self.pack.len() as u16).map(Symbol::Card).collect();
        table.place(&deck).map_err(SessionError::Table)?;
        table.shuffle(&ShuffleSet::All).map_err(SessionError::Table)
    }

    fn card_of<E: std::error::Error + 'static>(&self, symbol: Symbol) -> Res<Card, E> {
        match symbol {
            Symbol::Card(k) => self.pack.get(usize::from(k)).copied(),
            _ => None,
        }
        .ok_or_else(|| SessionError::Inconsistent(format!("{symbol:?} is not a card of the pack")))
    }

    fn learn<E: std::error::Error + 'static>(
        &mut self,
        pos: usize,
        symbol: Symbol,
        public: bool,
    ) -> Res<(), E> {
        let card = self.card_of(symbol)?;
        let elsewhere = self
            .mine
            .iter()
            .enumerate()
            .any(|(p, c)| p != pos && *c == Some(card));
        let slot = self.mine.get(pos).ok_or_else(|| {
            SessionError::Inconsistent(format!("the table showed position {pos}, beyond the pack"))
        })?;
        if elsewhere || slot.is_some_and(|c| c != card) {
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

    /// Applies `opening` on `table` and learns what it showed this player.
    pub fn open<T: FaceDownTable>(
        &mut self,
        table: &mut T,
        opening: &Opening,
    ) -> Res<(), T::Error> {
        let seen = table.open(opening).map_err(SessionError::Table)?;
        for (&pos, &sym) in opening.public.iter().zip(&seen.public) {
            self.learn(pos, sym, true)?;
        }
        for ((who, positions), cards) in opening.private.iter().zip(&seen.private) {
            let cards = cards.as_deref().filter(|_| *who == self.me);
            for (&pos, &sym) in positions.iter().zip(cards.into_iter().flatten()) {
                self.learn(pos, sym, false)?;
            }
        }
        Ok(())
    }

    /// Turns for everyone those of `positions` not yet public.
    pub fn turn<T: FaceDownTable>(
        &mut self,
        table: &mut T,
        positions: &[usize],
    ) -> Res<(), T::Error> {
        let mut fresh: Vec<usize> = Vec::new();
        for &p in positions {
            if self.public.get(p).is_some_and(Option::is_none) && !fresh.contains(&p) {
                fresh.push(p);
            }
        }
        if fresh.is_empty() {
            return Ok(());
        }
        let opening = Opening {
            public: fresh,
            private: Vec::new(),
        };
        self.open(table, &opening)
    }

    /// Shows `positions` to `to` alone (every player applies the same opening; only `to`
    /// learns the cards).
    pub fn show<T: FaceDownTable>(
        &mut self,
        table: &mut T,
        to: PartyId,
        positions: &[usize],
    ) -> Res<(), T::Error> {
        let opening = Opening {
            public: Vec::new(),
            private: vec![(to, positions.to_vec())],
        };
        self.open(table, &opening)
    }

    /// Turns every position still face down: the end of a round.
    pub fn turn_all<T: FaceDownTable>(&mut self, table: &mut T) -> Res<Vec<Card>, T::Error> {
        let all: Vec<usize> = (0..self.pack.len()).collect();
        self.turn(table, &all)?;
        Ok(self.public.iter().flatten().copied().collect())
    }

    /// The cards of `known` with every unknown position filled, if the unseen cards can be
    /// laid so that `fits(position, card)` holds everywhere (the player's completion of what
    /// he has not seen).
    pub fn completion(
        &self,
        known: &[Option<Card>],
        fits: impl Fn(usize, Card) -> bool,
    ) -> Option<Vec<Card>> {
        let slots: Vec<usize> = (0..known.len()).filter(|&p| known[p].is_none()).collect();
        let cards: Vec<Card> = self
            .pack
            .iter()
            .copied()
            .filter(|c| !known.contains(&Some(*c)))
            .collect();
        let matched = super::ninety_nine::perfect_matching(slots.len(), cards.len(), |i, j| {
            fits(slots[i], cards[j])
        })?;
        let mut deck: Vec<Card> = known.iter().map(|c| c.unwrap_or(self.pack[0])).collect();
        for (i, j) in matched.into_iter().enumerate() {
            deck[slots[i]] = cards[j];
        }
        Some(deck)
    }
}
