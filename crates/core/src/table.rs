//! The face-down table: one abstraction for every backend.
//!
//! A card protocol or a deal is written once against [`FaceDownTable`] and runs unchanged on
//! the ideal table ([`IdealTable`]: the physical model, trusted randomness), on the
//! permutation-sharing dealer and on the encrypted deck — in one process
//! ([`crate::local::LocalDriver`] running one engine per player) or as one process per player.
//! A row of face-down cards sits on the table, positions `0..len()`; the operations are the
//! actions of the card model, each a [`TableOp`] given to [`FaceDownTable::apply`]:
//!
//! | operation | card model | who learns what |
//! |---|---|---|
//! | [`place`](FaceDownTable::place) | helper cards and constants | everyone knows them |
//! | [`commit`](FaceDownTable::commit) | an input commitment | only the committing party |
//! | [`rearrange`](FaceDownTable::rearrange) | `perm` | public |
//! | [`shuffle`](FaceDownTable::shuffle) | `shuffle` | nobody learns the permutation drawn |
//! | [`turn`](FaceDownTable::turn) | `turn` | everyone sees the cards |
//! | [`open_to`](FaceDownTable::open_to) | deal a card to a hand | only that party sees it |
//! | [`open`](FaceDownTable::open) | both at once (a deal's hands and public cards) | as above |
//!
//! A table may be **one player's view** (a networked player): it knows only that player's
//! inputs, so another player's commitment is given by its public multiset
//! ([`commit_hidden`](FaceDownTable::commit_hidden)), and a card shown to someone else comes
//! back as nothing.
//!
//! Backends differ in what they can do *securely*. Each states it in its [`Capabilities`]; an
//! operation a backend cannot perform returns an error, and one it can perform only with a
//! weaker guarantee is marked [`Support::Weakened`] — never a silent fallback.

use core::fmt;

use rand::{CryptoRng, Rng, RngCore};
use serde::{Deserialize, Serialize};

use crate::op::{CommitCards, Opening, Seen, TableOp};
use crate::{Cost, PartyId, Perm, Symbol};

/// The adversary a backend resists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SecurityModel {
    /// Physical cards: security rests on the cards' indistinguishable backs and honest shuffling.
    Physical,
    /// Honest-but-curious players who do not collude.
    HonestButCuriousNoCollusion,
    /// Malicious players, any coalition of up to N − 1 of them.
    MaliciousUpToNMinus1,
}

impl SecurityModel {
    /// Short label used in tables (`physical`, `hbc-no-collusion`, `malicious-n-1`).
    pub fn label(self) -> &'static str {
        match self {
            SecurityModel::Physical => "physical",
            SecurityModel::HonestButCuriousNoCollusion => "hbc-no-collusion",
            SecurityModel::MaliciousUpToNMinus1 => "malicious-n-1",
        }
    }
}

impl fmt::Display for SecurityModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// How well a backend supports one operation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "support", content = "reason")]
pub enum Support {
    /// Supported with the backend's full guarantee.
    Secure,
    /// Supported, but with a weaker guarantee than the backend's security model; the reason
    /// says what is lost.
    Weakened(String),
    /// Not supported; the operation returns an error.
    Unsupported(String),
}

impl Support {
    /// Whether the operation can be called at all.
    pub fn is_available(&self) -> bool {
        !matches!(self, Support::Unsupported(_))
    }
}

/// What a backend can do, and how securely.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// The backend's name (`ideal`, `dealer`, `encrypted`).
    pub backend: String,
    /// The adversary the backend resists.
    pub security: SecurityModel,
    /// Whether the backend's guarantees are information-theoretic (so leakage can be measured
    /// exactly in bits) rather than computational.
    pub information_theoretic: bool,
    /// Input commitments placed by one party.
    pub commit: Support,
    /// Uniform shuffles over a group of permutations (uniform and closed, in the terms of
    /// \[KWH15\]).
    pub uniform_shuffle: Support,
    /// Every other shuffle: non-uniform (weighted) distributions, and uniform ones over a set
    /// that is not closed under composition.
    pub other_shuffle: Support,
    /// Uniform shuffles over all permutations (a deal).
    pub full_shuffle: Support,
    /// Opening a card to one party only.
    pub private_open: Support,
    /// A player's proof that none of the cards shown to him alone bears one of some symbols
    /// ([`TableOp::ProveNoneOf`]): a legal play checked when it is made.
    pub prove_none_of: Support,
}

impl Capabilities {
    /// The support for a given shuffle.
    pub fn shuffle_support(&self, set: &ShuffleSet) -> &Support {
        match set {
            ShuffleSet::All => &self.full_shuffle,
            ShuffleSet::Uniform(_) if set.is_group() => &self.uniform_shuffle,
            ShuffleSet::Uniform(_) | ShuffleSet::Weighted(_) => &self.other_shuffle,
        }
    }
}

/// The permutations a shuffle draws from, and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ShuffleSet {
    /// Uniform over all permutations of the row (a deal).
    All,
    /// Uniform over the listed permutations (a set or a whole group, listed element by element;
    /// listing a permutation twice doubles its weight).
    Uniform(Vec<Perm>),
    /// Weighted by positive integer weights (probability `w / Σw`).
    Weighted(Vec<(Perm, u64)>),
}

impl ShuffleSet {
    /// Checks that the set can act on a row of `n` cards: it lists at least one permutation
    /// (of positive weight) and every permutation has `n` positions. Every backend calls this
    /// before drawing.
    pub fn check_fits(&self, n: usize) -> Result<(), TableError> {
        let perms: Vec<&Perm> = match self {
            ShuffleSet::All => return Ok(()),
            ShuffleSet::Uniform(p) => p.iter().collect(),
            ShuffleSet::Weighted(p) => p.iter().filter(|(_, w)| *w > 0).map(|(q, _)| q).collect(),
        };
        if perms.is_empty() {
            return Err(TableError::EmptyShuffle);
        }
        match perms.iter().find(|p| p.len() != n) {
            Some(p) => Err(TableError::PermSize {
                got: p.len(),
                len: n,
            }),
            None => Ok(()),
        }
    }

    /// Whether the listed permutations are closed under composition (form a group), which
    /// decides whether several parties can each apply a uniform element and still obtain a
    /// uniform element. `All` is a group.
    pub fn is_group(&self) -> bool {
        let perms: Vec<&Perm> = match self {
            ShuffleSet::All => return true,
            ShuffleSet::Uniform(p) => p.iter().collect(),
            ShuffleSet::Weighted(p) => p.iter().map(|(q, _)| q).collect(),
        };
        let set: std::collections::BTreeSet<&Perm> = perms.iter().copied().collect();
        set.iter().all(|a| {
            set.iter()
                .all(|b| a.compose(b).map(|c| set.contains(&c)).unwrap_or(false))
        })
    }
}

/// Why the ideal table refused an operation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// A position is outside the row.
    #[error("position {position} is outside the row of {len} cards")]
    Position {
        /// The position (0-indexed).
        position: usize,
        /// The row's length.
        len: usize,
    },
    /// A permutation acts on a different number of cards than the row has.
    #[error("a permutation on {got} positions does not fit a row of {len} cards")]
    PermSize {
        /// Positions of the permutation.
        got: usize,
        /// The row's length.
        len: usize,
    },
    /// A shuffle lists no permutation, or its weights are all zero.
    #[error("a shuffle needs at least one permutation of positive weight")]
    EmptyShuffle,
    /// A party outside `1..=parties`.
    #[error("{party} is not at this table of {parties} parties")]
    Party {
        /// The party.
        party: PartyId,
        /// Number of parties.
        parties: usize,
    },
    /// One opening shows two groups to the same party.
    #[error("an opening shows two groups of cards to {party}")]
    RepeatedParty {
        /// The party.
        party: PartyId,
    },
    /// A commitment whose cards this table must know (it lays them for every player, or it is
    /// the committing player's own view) was given only as its multiset.
    #[error("the cards of {party}'s commitment are needed here, not only their multiset")]
    HiddenCommit {
        /// The committing party.
        party: PartyId,
    },
    /// A [`ProveNoneOf`](TableOp::ProveNoneOf) whose claim is false: a card at one of the
    /// positions bears an excluded symbol (which one is not said).
    #[error("{owner} holds a card with one of the excluded symbols")]
    HoldsExcluded {
        /// The player whose claim failed.
        owner: PartyId,
    },
    /// An operation this backend does not support (its capabilities say
    /// [`Support::Unsupported`]); the text says why.
    #[error("this backend cannot {0}")]
    Unsupported(&'static str),
    /// The hands and public cards of a deal do not fit the deck.
    #[error("{players} hands of {hand} and {public} public cards do not fit a deck of {cards}")]
    DealTooLarge {
        /// Players.
        players: usize,
        /// Cards per hand.
        hand: usize,
        /// Public cards.
        public: usize,
        /// Deck size.
        cards: usize,
    },
}

/// Checks that every position is in a row of `len` cards.
pub fn check_positions(positions: &[usize], len: usize) -> Result<(), TableError> {
    match positions.iter().find(|&&p| p >= len) {
        Some(&position) => Err(TableError::Position { position, len }),
        None => Ok(()),
    }
}

/// Checks that `party` is one of `1..=parties`.
pub fn check_party(party: PartyId, parties: usize) -> Result<(), TableError> {
    if party.0 == 0 || party.index() >= parties {
        return Err(TableError::Party { party, parties });
    }
    Ok(())
}

/// A table of face-down cards (see the [module docs](self)).
pub trait FaceDownTable {
    /// Why an operation failed (bad input, a cheating party, a network fault …).
    type Error: std::error::Error + Send + Sync + 'static;

    /// What this backend can do, and how securely.
    fn capabilities(&self) -> Capabilities;

    /// The number of parties at the table.
    fn parties(&self) -> usize;

    /// The number of cards on the table.
    fn len(&self) -> usize;

    /// Whether the table is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Performs one operation; returns what this table's view saw of it (only an
    /// [`Open`](TableOp::Open) shows anything).
    fn apply(&mut self, op: &TableOp) -> Result<Seen, Self::Error>;

    /// What the operations so far cost on the wire.
    fn cost(&self) -> Cost;

    /// Appends cards whose faces everyone knows, face down, at the right end of the row.
    fn place(&mut self, cards: &[Symbol]) -> Result<(), Self::Error> {
        self.apply(&TableOp::Place(cards.to_vec())).map(drop)
    }

    /// Appends cards, face down, whose faces only `party` knows (an input commitment).
    fn commit(&mut self, party: PartyId, cards: &[Symbol]) -> Result<(), Self::Error> {
        let cards = CommitCards::Known(cards.to_vec());
        self.apply(&TableOp::Commit { party, cards }).map(drop)
    }

    /// Another player's input commitment, as a view that does not know its cards: only their
    /// multiset (in any order) is given.
    fn commit_hidden(&mut self, party: PartyId, multiset: &[Symbol]) -> Result<(), Self::Error> {
        let mut cards = multiset.to_vec();
        cards.sort();
        let cards = CommitCards::Hidden(cards);
        self.apply(&TableOp::Commit { party, cards }).map(drop)
    }

    /// Rearranges the row in public: the card at `i` moves to `perm(i)`.
    fn rearrange(&mut self, perm: &Perm) -> Result<(), Self::Error> {
        self.apply(&TableOp::Rearrange(perm.clone())).map(drop)
    }

    /// Applies a permutation drawn from `set`; nobody learns which.
    fn shuffle(&mut self, set: &ShuffleSet) -> Result<(), Self::Error> {
        self.apply(&TableOp::Shuffle(set.clone())).map(drop)
    }

    /// Turns the cards at `positions` face up for everyone, then face down again.
    fn turn(&mut self, positions: &[usize]) -> Result<Vec<Symbol>, Self::Error> {
        Ok(self.apply(&TableOp::turn(positions))?.public)
    }

    /// Shows the cards at `positions` to `party` only. A table that is another player's view
    /// returns nothing.
    fn open_to(&mut self, party: PartyId, positions: &[usize]) -> Result<Vec<Symbol>, Self::Error> {
        let seen = self.apply(&TableOp::open_to(party, positions))?;
        Ok(seen
            .private
            .into_iter()
            .next()
            .flatten()
            .unwrap_or_default())
    }

    /// Opens positions to everyone and groups of positions to single parties, in one step.
    fn open(&mut self, opening: &Opening) -> Result<Seen, Self::Error> {
        self.apply(&TableOp::Open(opening.clone()))
    }

    /// Ends the game: a backend with an end-of-game audit (the dealer's opening of every
    /// commitment) runs it here, adds its cost to [`cost`](FaceDownTable::cost) and reports a
    /// failed audit as an error. No operation may follow.
    fn finish(&mut self) -> Result<(), Self::Error> {
        self.apply(&TableOp::Finish).map(drop)
    }
}

/// A deal as every table sees it: the hands, player 1 first (`None` for a hand this view was
/// not shown), and the public cards.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dealt {
    /// Each player's hand, as this view saw it.
    pub hands: Vec<Option<Vec<Symbol>>>,
    /// The public cards.
    pub public: Vec<Symbol>,
}

/// The opening of a deal: player `p` gets positions `(p − 1)·hand .. p·hand`, the `public`
/// cards after the hands are turned for everyone.
pub fn deal_opening(
    players: usize,
    cards: usize,
    hand: usize,
    public: usize,
) -> Result<Opening, TableError> {
    let too_large = TableError::DealTooLarge {
        players,
        hand,
        public,
        cards,
    };
    let dealt = players
        .checked_mul(hand)
        .and_then(|h| h.checked_add(public))
        .filter(|&d| d <= cards)
        .ok_or(too_large)?;
    let start = players * hand;
    let private = PartyId::all(players)
        .filter(|_| hand > 0)
        .map(|p| (p, (p.index() * hand..(p.index() + 1) * hand).collect()))
        .collect();
    Ok(Opening {
        public: (start..dealt).collect(),
        private,
    })
}

/// Deals from a deck of `cards` distinct cards: places the deck, shuffles it (`All`), then
/// opens every hand to its player and turns the public cards, all in one opening. The table
/// is not finished (a game goes on).
pub fn deal<T: FaceDownTable>(
    table: &mut T,
    cards: u16,
    hand: usize,
    public: usize,
) -> Result<Dealt, T::Error>
where
    T::Error: From<TableError>,
{
    let opening = deal_opening(table.parties(), usize::from(cards), hand, public)?;
    let deck: Vec<Symbol> = (0..cards).map(Symbol::Card).collect();
    table.place(&deck)?;
    table.shuffle(&ShuffleSet::All)?;
    let seen = table.open(&opening)?;
    let mut hands: Vec<Option<Vec<Symbol>>> = vec![None; table.parties()];
    for ((p, _), h) in opening.private.iter().zip(seen.private) {
        hands[p.index()] = h;
    }
    if hand == 0 {
        hands = vec![Some(Vec::new()); table.parties()];
    }
    Ok(Dealt {
        hands,
        public: seen.public,
    })
}

/// The ideal table: physical cards with trusted randomness, no communication.
///
/// Every operation is secure; the cost is always zero messages.
#[derive(Clone, Debug)]
pub struct IdealTable<R> {
    row: Vec<Symbol>,
    parties: usize,
    rng: R,
}

impl<R: RngCore + CryptoRng> IdealTable<R> {
    /// An empty table for `parties` parties, drawing shuffles from `rng`.
    pub fn with_rng(parties: usize, rng: R) -> Self {
        IdealTable {
            row: Vec::new(),
            parties,
            rng,
        }
    }

    /// The row as it lies (for tests and teaching; a real table does not offer this).
    pub fn peek(&self) -> &[Symbol] {
        &self.row
    }

    fn apply_perm(&mut self, perm: &Perm) -> Result<(), TableError> {
        self.row = perm.apply_to_row(&self.row).ok_or(TableError::PermSize {
            got: perm.len(),
            len: self.row.len(),
        })?;
        Ok(())
    }
}

impl<R: RngCore + CryptoRng> IdealTable<R> {
    fn draw(&mut self, set: &ShuffleSet) -> Result<Perm, TableError> {
        set.check_fits(self.row.len())?;
        match set {
            ShuffleSet::All => Ok(Perm::random_with_rng(self.row.len(), &mut self.rng)),
            ShuffleSet::Uniform(perms) => perms
                .get(self.rng.gen_range(0..perms.len().max(1)))
                .cloned()
                .ok_or(TableError::EmptyShuffle),
            ShuffleSet::Weighted(perms) => {
                let total: u128 = perms.iter().map(|(_, w)| u128::from(*w)).sum();
                if total == 0 {
                    return Err(TableError::EmptyShuffle);
                }
                let mut x = self.rng.gen_range(0..total);
                for (p, w) in perms {
                    if x < u128::from(*w) {
                        return Ok(p.clone());
                    }
                    x -= u128::from(*w);
                }
                Err(TableError::EmptyShuffle)
            }
        }
    }

    /// The ideal table checks a [`TableOp::ProveNoneOf`] claim against its row.
    fn check_none_of(
        &self,
        owner: PartyId,
        positions: &[usize],
        excluded: &[Symbol],
    ) -> Result<(), TableError> {
        check_party(owner, self.parties)?;
        check_positions(positions, self.row.len())?;
        match positions.iter().any(|&p| excluded.contains(&self.row[p])) {
            true => Err(TableError::HoldsExcluded { owner }),
            false => Ok(()),
        }
    }

    fn open_row(&self, opening: &Opening) -> Result<Seen, TableError> {
        opening.check(self.row.len(), self.parties)?;
        let cards = |ps: &[usize]| ps.iter().map(|&p| self.row[p]).collect::<Vec<_>>();
        Ok(Seen {
            public: cards(&opening.public),
            private: opening
                .private
                .iter()
                .map(|(_, ps)| Some(cards(ps)))
                .collect(),
        })
    }
}

/// What the ideal table can do: everything, securely.
pub fn ideal_capabilities() -> Capabilities {
    Capabilities {
        backend: "ideal".to_owned(),
        security: SecurityModel::Physical,
        information_theoretic: true,
        commit: Support::Secure,
        uniform_shuffle: Support::Secure,
        other_shuffle: Support::Secure,
        full_shuffle: Support::Secure,
        private_open: Support::Secure,
        prove_none_of: Support::Secure,
    }
}

impl<R: RngCore + CryptoRng> FaceDownTable for IdealTable<R> {
    type Error = TableError;

    fn capabilities(&self) -> Capabilities {
        ideal_capabilities()
    }

    fn parties(&self) -> usize {
        self.parties
    }

    fn len(&self) -> usize {
        self.row.len()
    }

    fn apply(&mut self, op: &TableOp) -> Result<Seen, TableError> {
        match op {
            TableOp::Setup | TableOp::Finish => {}
            TableOp::Place(cards) => self.row.extend_from_slice(cards),
            TableOp::Commit { party, cards } => {
                check_party(*party, self.parties)?;
                match cards {
                    CommitCards::Known(c) => self.row.extend_from_slice(c),
                    CommitCards::Hidden(_) => {
                        return Err(TableError::HiddenCommit { party: *party })
                    }
                }
            }
            TableOp::Rearrange(perm) => self.apply_perm(perm)?,
            TableOp::Shuffle(set) => {
                let perm = self.draw(set)?;
                self.apply_perm(&perm)?;
            }
            TableOp::Open(opening) => return self.open_row(opening),
            TableOp::ProveNoneOf {
                owner,
                positions,
                excluded,
            } => self.check_none_of(*owner, positions, excluded)?,
        }
        Ok(Seen::default())
    }

    fn cost(&self) -> Cost {
        Cost::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded_rng;

    #[test]
    fn ideal_table_follows_the_card_convention() {
        let mut t = IdealTable::with_rng(2, seeded_rng(1));
        t.place(&[Symbol::Club, Symbol::Heart, Symbol::Club])
            .expect("place");
        t.rearrange(&Perm::parse_cycles(3, "(1 2)").expect("valid"))
            .expect("fits");
        assert_eq!(
            t.turn(&[0, 1, 2]).expect("in range"),
            [Symbol::Heart, Symbol::Club, Symbol::Club]
        );
        assert_eq!(
            t.turn(&[3]),
            Err(TableError::Position {
                position: 3,
                len: 3
            })
        );
        assert!(t.open_to(PartyId(3), &[0]).is_err());
    }

    #[test]
    fn full_shuffle_keeps_the_multiset() {
        let mut t = IdealTable::with_rng(3, seeded_rng(2));
        let deck: Vec<Symbol> = (0..10).map(Symbol::Card).collect();
        t.place(&deck).expect("place");
        t.shuffle(&ShuffleSet::All).expect("shuffle");
        let mut seen = t.turn(&(0..10).collect::<Vec<_>>()).expect("in range");
        seen.sort();
        assert_eq!(seen, deck);
    }

    #[test]
    fn a_deal_opens_every_hand_to_its_player_and_the_public_cards_to_all() {
        let mut t = IdealTable::with_rng(3, seeded_rng(5));
        let dealt = deal(&mut t, 10, 2, 3).expect("fits");
        let mut all: Vec<Symbol> = dealt.hands.iter().flatten().flatten().copied().collect();
        all.extend(&dealt.public);
        assert_eq!(
            all.as_slice(),
            &t.peek()[..9],
            "hands then public, as they lie"
        );
        assert!(dealt
            .hands
            .iter()
            .all(|h| h.as_ref().map(Vec::len) == Some(2)));
        assert!(matches!(
            deal(&mut IdealTable::with_rng(3, seeded_rng(5)), 10, 3, 2),
            Err(TableError::DealTooLarge { .. })
        ));
        assert!(matches!(
            deal(
                &mut IdealTable::with_rng(3, seeded_rng(5)),
                10,
                usize::MAX / 2,
                0
            ),
            Err(TableError::DealTooLarge { .. })
        ));
        // The ideal table lays every card itself: it must know a commitment's cards.
        assert_eq!(
            t.commit_hidden(PartyId(1), &[Symbol::Heart, Symbol::Club]),
            Err(TableError::HiddenCommit { party: PartyId(1) })
        );
    }

    #[test]
    fn the_ideal_table_checks_a_none_of_claim_against_its_row() {
        let mut t = IdealTable::with_rng(2, seeded_rng(3));
        t.place(&[Symbol::Card(4), Symbol::Card(7), Symbol::Card(9)])
            .expect("place");
        let claim = |positions: Vec<usize>, excluded: Vec<Symbol>| TableOp::ProveNoneOf {
            owner: PartyId(2),
            positions,
            excluded,
        };
        let none = claim(vec![0, 2], vec![Symbol::Card(7), Symbol::Card(8)]);
        assert_eq!(t.apply(&none), Ok(Seen::default()));
        // The edge case: the card equal to an excluded symbol.
        let holds = claim(vec![0, 1], vec![Symbol::Card(7)]);
        assert_eq!(
            t.apply(&holds),
            Err(TableError::HoldsExcluded { owner: PartyId(2) })
        );
        assert_eq!(holds.name(), "prove-none-of");
        assert!(matches!(
            t.apply(&claim(vec![3], vec![])),
            Err(TableError::Position { position: 3, .. })
        ));
        assert_eq!(ideal_capabilities().prove_none_of, Support::Secure);
    }

    #[test]
    fn shuffle_sets_that_do_not_fit_the_row_are_refused() {
        let swap = Perm::parse_cycles(3, "(1 2)").expect("valid");
        assert_eq!(
            ShuffleSet::Uniform(vec![]).check_fits(3),
            Err(TableError::EmptyShuffle)
        );
        assert_eq!(
            ShuffleSet::Weighted(vec![(swap.clone(), 0)]).check_fits(3),
            Err(TableError::EmptyShuffle)
        );
        assert_eq!(
            ShuffleSet::Uniform(vec![swap.clone()]).check_fits(4),
            Err(TableError::PermSize { got: 3, len: 4 })
        );
        assert_eq!(ShuffleSet::Uniform(vec![swap]).check_fits(3), Ok(()));
        assert_eq!(ShuffleSet::All.check_fits(0), Ok(()));
    }

    #[test]
    fn group_check_distinguishes_a_cut_from_a_bare_set() {
        let id = Perm::identity(4);
        let swap = Perm::parse_cycles(4, "(1 3)(2 4)").expect("valid");
        let other = Perm::parse_cycles(4, "(2 3)").expect("valid");
        assert!(ShuffleSet::Uniform(vec![id.clone(), swap.clone()]).is_group());
        assert!(!ShuffleSet::Uniform(vec![id, swap, other]).is_group());
    }
}
