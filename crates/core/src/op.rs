//! The operations of the face-down table, as data.
//!
//! A [`TableOp`] is what a protocol asks of the table: the card model's actions (place, commit,
//! rearrange, shuffle, open) plus the session's start and end. The same value drives every
//! backend: the ideal table applies it to its row, and every player's engine
//! ([`crate::engine::Engine`]) starts it, each with **its own view of it** — a commitment's
//! cards are known only to the committing player ([`TableOp::seen_by`]).
//!
//! An [`Opening`] turns some positions face up for everyone and shows others to one player
//! each, all in one step (so a deal's hands and its public cards open in parallel); what each
//! player saw comes back as [`Seen`].

use serde::{Deserialize, Serialize};

use crate::table::{check_party, check_positions, ShuffleSet, TableError};
use crate::{PartyId, Perm, Symbol};

/// One operation of the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TableOp {
    /// Starts the session: fresh randomness and keys, agreed by every player. The drivers run
    /// it once, before anything else.
    Setup,
    /// Appends cards whose faces everyone knows, face down, at the right end of the row.
    Place(Vec<Symbol>),
    /// Appends an input commitment of `party`, face down at the right end of the row.
    Commit {
        /// The committing player.
        party: PartyId,
        /// The cards, as the viewer of this operation knows them.
        cards: CommitCards,
    },
    /// Rearranges the row in public: the card at `i` moves to `perm(i)`.
    Rearrange(Perm),
    /// Applies a permutation drawn from the set; nobody learns which.
    Shuffle(ShuffleSet),
    /// Opens positions to everyone and to single players, in one step.
    Open(Opening),
    /// `owner` proves to everyone that none of the cards at `positions` (each shown earlier to
    /// him alone) bears a symbol of `excluded` — in a trick-taking game, that a player who does
    /// not follow suit holds no card of the suit led — and nothing more about them.
    ProveNoneOf {
        /// The player who proves (whose hand the positions are).
        owner: PartyId,
        /// The positions of the cards the claim is about.
        positions: Vec<usize>,
        /// The symbols none of those cards bears.
        excluded: Vec<Symbol>,
    },
    /// Ends the session: a backend with an end-of-game audit runs it here.
    Finish,
}

/// The cards of an input commitment as one viewer knows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CommitCards {
    /// The committing player's view: the cards in the order it lays them.
    Known(Vec<Symbol>),
    /// Everyone else's view: only the multiset of the cards (sorted), which the encoding makes
    /// public (a bit is always one ♣ and one ♥).
    Hidden(Vec<Symbol>),
}

impl CommitCards {
    /// The number of cards.
    pub fn len(&self) -> usize {
        match self {
            CommitCards::Known(c) | CommitCards::Hidden(c) => c.len(),
        }
    }

    /// Whether the commitment has no cards.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The public part: the cards, sorted.
    pub fn multiset(&self) -> Vec<Symbol> {
        let mut cards = match self {
            CommitCards::Known(c) | CommitCards::Hidden(c) => c.clone(),
        };
        cards.sort();
        cards
    }
}

/// Which positions an [`Open`](TableOp::Open) shows, and to whom.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// Turned face up for everyone.
    pub public: Vec<usize>,
    /// Each group shown to its player only (a player appears at most once).
    pub private: Vec<(PartyId, Vec<usize>)>,
}

impl Opening {
    /// Checks the opening against a row of `len` cards and `parties` players.
    pub fn check(&self, len: usize, parties: usize) -> Result<(), TableError> {
        check_positions(&self.public, len)?;
        let mut seen = Vec::with_capacity(self.private.len());
        for (party, positions) in &self.private {
            check_party(*party, parties)?;
            if seen.contains(party) {
                return Err(TableError::RepeatedParty { party: *party });
            }
            seen.push(*party);
            check_positions(positions, len)?;
        }
        Ok(())
    }

    /// The positions shown to `party` only, if any.
    pub fn private_to(&self, party: PartyId) -> Option<&[usize]> {
        self.private
            .iter()
            .find(|(p, _)| *p == party)
            .map(|(_, pos)| pos.as_slice())
    }
}

/// What one view of the table saw of an operation: the public cards of an opening, and each
/// private group it was shown (`None` for the groups shown to someone else).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// The public cards, in the opening's order.
    pub public: Vec<Symbol>,
    /// One entry per private group of the opening, in its order.
    pub private: Vec<Option<Vec<Symbol>>>,
}

impl TableOp {
    /// Turns `positions` face up for everyone.
    pub fn turn(positions: &[usize]) -> TableOp {
        TableOp::Open(Opening {
            public: positions.to_vec(),
            private: Vec::new(),
        })
    }

    /// Shows `positions` to `party` only.
    pub fn open_to(party: PartyId, positions: &[usize]) -> TableOp {
        TableOp::Open(Opening {
            public: Vec::new(),
            private: vec![(party, positions.to_vec())],
        })
    }

    /// This operation as `viewer` knows it: another player's commitment shows only its
    /// multiset. Every driver hands each engine this view, so no engine holds another
    /// player's cards.
    pub fn seen_by(&self, viewer: PartyId) -> TableOp {
        match self {
            TableOp::Commit {
                party,
                cards: CommitCards::Known(_),
            } if *party != viewer => TableOp::Commit {
                party: *party,
                cards: CommitCards::Hidden(self.commit_multiset()),
            },
            other => other.clone(),
        }
    }

    fn commit_multiset(&self) -> Vec<Symbol> {
        match self {
            TableOp::Commit { cards, .. } => cards.multiset(),
            _ => Vec::new(),
        }
    }

    /// How many cards the operation appends to the row.
    pub fn new_cards(&self) -> usize {
        match self {
            TableOp::Place(cards) => cards.len(),
            TableOp::Commit { cards, .. } => cards.len(),
            _ => 0,
        }
    }

    /// A short name for reports (`setup`, `place`, `commit`, `rearrange`, `shuffle`, `open`,
    /// `prove-none-of`, `finish`).
    pub fn name(&self) -> &'static str {
        match self {
            TableOp::Setup => "setup",
            TableOp::Place(_) => "place",
            TableOp::Commit { .. } => "commit",
            TableOp::Rearrange(_) => "rearrange",
            TableOp::Shuffle(_) => "shuffle",
            TableOp::Open(_) => "open",
            TableOp::ProveNoneOf { .. } => "prove-none-of",
            TableOp::Finish => "finish",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_players_commitment_is_seen_as_its_multiset_only() {
        let op = TableOp::Commit {
            party: PartyId(2),
            cards: CommitCards::Known(vec![Symbol::Heart, Symbol::Club]),
        };
        assert_eq!(op.seen_by(PartyId(2)), op);
        assert_eq!(
            op.seen_by(PartyId(1)),
            TableOp::Commit {
                party: PartyId(2),
                cards: CommitCards::Hidden(vec![Symbol::Club, Symbol::Heart]),
            }
        );
        assert_eq!(op.new_cards(), 2);
    }

    #[test]
    fn openings_are_checked_against_the_row_and_the_players() {
        let ok = Opening {
            public: vec![0, 2],
            private: vec![(PartyId(1), vec![1]), (PartyId(2), vec![3])],
        };
        assert_eq!(ok.check(4, 2), Ok(()));
        assert_eq!(ok.private_to(PartyId(2)), Some(&[3][..]));
        assert!(ok.check(3, 2).is_err());
        assert!(ok.check(4, 1).is_err());
        let twice = Opening {
            public: vec![],
            private: vec![(PartyId(1), vec![1]), (PartyId(1), vec![2])],
        };
        assert_eq!(
            twice.check(4, 2),
            Err(TableError::RepeatedParty { party: PartyId(1) })
        );
    }
}
