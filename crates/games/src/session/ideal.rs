//! The ideal table seen by each player on his own: one trusted table, one view per player.
//!
//! [`IdealHub`] holds one [`IdealTable`] — the physical cards, a trusted shuffle — and hands out
//! an [`IdealView`] per player. Every player's session applies the same operations to its own
//! view, each as it knows them (another player's commitment only as its multiset); the hub
//! applies an operation once, when the player who knows it (for a commitment, its author)
//! arrives, and shows each view only what the table shows that player. So a game session runs
//! on the ideal table exactly as it runs on an engine per player, one thread per player.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use facedown_core::op::{CommitCards, Seen, TableOp};
use facedown_core::table::{ideal_capabilities, Capabilities, FaceDownTable, TableError};
use facedown_core::{Cost, IdealTable, PartyId};
use rand::{CryptoRng, RngCore};

/// Why a view's operation failed.
#[derive(Debug, thiserror::Error)]
pub enum IdealViewError {
    /// The table refused the operation.
    #[error(transparent)]
    Table(#[from] TableError),
    /// This player's operation is not the one the others applied at this step.
    #[error("{me} applied another operation than the table's at step {step}")]
    Diverged {
        /// The player.
        me: PartyId,
        /// The step.
        step: usize,
    },
    /// A player offered the cards of another player's commitment: only its author lays them
    /// (every other player knows it only as its multiset), so the table refuses it, naming him.
    #[error(
        "{me} offered the cards of {author}'s commitment at step {step}, which only {author} lays"
    )]
    NotTheAuthor {
        /// The player who offered them.
        me: PartyId,
        /// The commitment's author.
        author: PartyId,
        /// The step.
        step: usize,
    },
    /// The player who knows the operation never came.
    #[error("{me} waited {waited:?} for step {step} of the table")]
    Timeout {
        /// The waiting player.
        me: PartyId,
        /// The step.
        step: usize,
        /// How long.
        waited: Duration,
    },
    /// The table process refused the operation ([`super::ideal_table::Refusal`]) for a reason
    /// that names nobody.
    #[error("the table refused: {0}")]
    Refused(String),
    /// Another view's thread panicked while holding the table.
    #[error("the shared ideal table is poisoned")]
    Poisoned,
}

/// The trusted table's record of one hand: the cards, and every operation applied so far with
/// what it showed. It is the whole logic of the ideal table seen one player at a time, with no
/// waiting and no I/O: [`IdealHub`] drives it from threads, and the table process of
/// [`super::ideal_table`] from messages.
pub struct IdealSteps<R> {
    table: IdealTable<R>,
    done: Vec<(TableOp, Seen)>,
}

impl<R: RngCore + CryptoRng> IdealSteps<R> {
    /// A table for `parties` players, shuffling with `rng`.
    pub fn new(parties: usize, rng: R) -> IdealSteps<R> {
        IdealSteps {
            table: IdealTable::with_rng(parties, rng),
            done: Vec::new(),
        }
    }

    /// The number of operations applied.
    pub fn applied(&self) -> usize {
        self.done.len()
    }

    /// Player `me`'s operation `op`, his `step`-th: what the table shows him, or `None` while
    /// it is a commitment whose cards only its author can lay and he has not yet. The table
    /// applies an operation once, when the first player who knows it arrives; every later
    /// player's version must agree with it as he sees it. A commitment's cards are laid only
    /// by its author: another player who offers them (an announcement he saw turned, laid
    /// again as if its author made it) is refused ([`IdealViewError::NotTheAuthor`]).
    pub fn offer(
        &mut self,
        me: PartyId,
        step: usize,
        op: &TableOp,
    ) -> Result<Option<Seen>, IdealViewError> {
        if let TableOp::Commit {
            party,
            cards: CommitCards::Known(_),
        } = op
        {
            if *party != me {
                let author = *party;
                return Err(IdealViewError::NotTheAuthor { me, author, step });
            }
        }
        if self.done.len() == step && !hidden(op) {
            let seen = self.table.apply(op)?;
            self.done.push((op.clone(), seen));
        }
        let Some((done, seen)) = self.done.get(step) else {
            return Ok(None);
        };
        if done.seen_by(me) != op.seen_by(me) {
            return Err(IdealViewError::Diverged { me, step });
        }
        Ok(Some(shown_to(me, done, seen)))
    }
}

/// One ideal table shared by every player's view.
pub struct IdealHub<R> {
    shared: Mutex<IdealSteps<R>>,
    applied: Condvar,
    parties: usize,
}

impl<R: RngCore + CryptoRng> IdealHub<R> {
    /// A table for `parties` players, shuffling with `rng`.
    pub fn new(parties: usize, rng: R) -> Arc<IdealHub<R>> {
        Arc::new(IdealHub {
            shared: Mutex::new(IdealSteps::new(parties, rng)),
            applied: Condvar::new(),
            parties,
        })
    }

    /// Player `me`'s view, waiting at most `timeout` for a step another player must start.
    pub fn view(self: &Arc<Self>, me: PartyId, timeout: Duration) -> IdealView<R> {
        IdealView {
            hub: Arc::clone(self),
            me,
            step: 0,
            len: 0,
            timeout,
        }
    }
}

/// One player's view of an [`IdealHub`].
pub struct IdealView<R> {
    hub: Arc<IdealHub<R>>,
    me: PartyId,
    step: usize,
    len: usize,
    timeout: Duration,
}

fn shown_to(me: PartyId, op: &TableOp, seen: &Seen) -> Seen {
    let TableOp::Open(opening) = op else {
        return Seen::default();
    };
    let private = opening
        .private
        .iter()
        .zip(&seen.private)
        .map(|((p, _), cards)| if *p == me { cards.clone() } else { None })
        .collect();
    Seen {
        public: seen.public.clone(),
        private,
    }
}

fn hidden(op: &TableOp) -> bool {
    matches!(
        op,
        TableOp::Commit {
            cards: CommitCards::Hidden(_),
            ..
        }
    )
}

impl<R: RngCore + CryptoRng> FaceDownTable for IdealView<R> {
    type Error = IdealViewError;

    fn capabilities(&self) -> Capabilities {
        ideal_capabilities()
    }

    fn parties(&self) -> usize {
        self.hub.parties
    }

    fn len(&self) -> usize {
        self.len
    }

    fn apply(&mut self, op: &TableOp) -> Result<Seen, IdealViewError> {
        let (me, step) = (self.me, self.step);
        let mut shared = self
            .hub
            .shared
            .lock()
            .map_err(|_| IdealViewError::Poisoned)?;
        loop {
            if let Some(seen) = shared.offer(me, step, op)? {
                self.hub.applied.notify_all();
                self.step += 1;
                self.len += op.new_cards();
                return Ok(seen);
            }
            let (next, wait) = self
                .hub
                .applied
                .wait_timeout(shared, self.timeout)
                .map_err(|_| IdealViewError::Poisoned)?;
            shared = next;
            if wait.timed_out() && shared.applied() <= step {
                return Err(IdealViewError::Timeout {
                    me,
                    step,
                    waited: self.timeout,
                });
            }
        }
    }

    fn cost(&self) -> Cost {
        Cost::ZERO
    }
}

/// The shuffles of hand `hand` of a game seeded with `seed`: its own stream of the seed, so the
/// table in memory and the table process deal the same cards.
pub fn hand_rng(seed: u64, hand: usize) -> rand_chacha::ChaCha20Rng {
    facedown_core::rng::trial_rng(seed, hand as u64)
}

/// The ideal tables of a whole game, a fresh one per hand, shared by every player's
/// [`IdealTables`] (each hand's shuffle from its own seeded stream).
pub struct IdealGame {
    parties: usize,
    seed: u64,
    hubs: Mutex<Vec<Arc<IdealHub<rand_chacha::ChaCha20Rng>>>>,
}

impl IdealGame {
    /// A game of `parties` players whose hand `k` shuffles with stream `k` of `seed`.
    pub fn new(parties: usize, seed: u64) -> Arc<IdealGame> {
        Arc::new(IdealGame {
            parties,
            seed,
            hubs: Mutex::new(Vec::new()),
        })
    }

    fn hub(&self, hand: usize) -> Result<Arc<IdealHub<rand_chacha::ChaCha20Rng>>, IdealViewError> {
        let mut hubs = self.hubs.lock().map_err(|_| IdealViewError::Poisoned)?;
        while hubs.len() <= hand {
            let rng = hand_rng(self.seed, hubs.len());
            hubs.push(IdealHub::new(self.parties, rng));
        }
        Ok(Arc::clone(&hubs[hand]))
    }

    /// Player `me`'s tables.
    pub fn tables(self: &Arc<Self>, me: PartyId, timeout: Duration) -> IdealTables {
        IdealTables {
            game: Arc::clone(self),
            me,
            timeout,
        }
    }
}

/// One player's tables of an [`IdealGame`].
pub struct IdealTables {
    game: Arc<IdealGame>,
    me: PartyId,
    timeout: Duration,
}

impl super::ninety_nine::Tables for IdealTables {
    type Table = IdealView<rand_chacha::ChaCha20Rng>;

    fn open(&mut self, hand: usize) -> Result<Self::Table, IdealViewError> {
        Ok(self.game.hub(hand)?.view(self.me, self.timeout))
    }

    fn close(&mut self, _table: Self::Table) -> Result<(), IdealViewError> {
        Ok(())
    }
}

impl facedown_core::Blame for IdealViewError {
    /// The trusted table blames the owner of a false legal-play claim
    /// ([`TableError::HoldsExcluded`]) and a player who offered another's commitment
    /// ([`IdealViewError::NotTheAuthor`]: himself); a view that diverged is a defect of its
    /// session.
    fn blamed(&self) -> Option<PartyId> {
        match self {
            IdealViewError::Table(TableError::HoldsExcluded { owner }) => Some(*owner),
            IdealViewError::NotTheAuthor { me, .. } => Some(*me),
            _ => None,
        }
    }
}
