//! The ideal table seen by each player on his own: one trusted table, one view per player.
//!
//! [`IdealHub`] holds one [`IdealTable`] — the physical cards, a trusted shuffle — and hands out
//! an [`IdealView`] per player. Every player's session applies the same operations to its own
//! view, each as it knows them (another player's commitment only as its multiset); the hub
//! applies an operation once — a commitment when its author arrives, an opening or a claim
//! when every player has asked for it in the same words, anything else when the first player
//! arrives — and shows each view only what the table shows that player. So a game session runs
//! on the ideal table exactly as it runs on an engine per player, one thread per player.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use facedown_core::op::{CommitCards, Seen, TableOp};
use facedown_core::rng::Randomness;
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
    /// The table could not answer within the timeout: it still waited for `awaited` (the
    /// author of a commitment, or the players who had not asked for an opening or a claim).
    /// The table is trusted, so when one player is awaited he is the one who stalled the hand
    /// and is named; when several are, nobody is (the list says who).
    #[error(
        "{me} waited {waited:?} for step {step} of the table, which still waited for {}",
        awaited_words(awaited)
    )]
    Timeout {
        /// The waiting player.
        me: PartyId,
        /// The step.
        step: usize,
        /// How long.
        waited: Duration,
        /// Who the table still waited for (empty when the waiting player cannot know).
        awaited: Vec<PartyId>,
    },
    /// `player` left the table (his link closed, or he said goodbye) while the table waited
    /// for him at this player's step: he stalled the hand, and is named.
    #[error("{player} left the table while it waited for him at step {step}")]
    Left {
        /// The player who left.
        player: PartyId,
        /// The step.
        step: usize,
    },
    /// The table process refused the operation ([`super::ideal_table::Refusal`]) for a reason
    /// that names nobody.
    #[error("the table refused: {0}")]
    Refused(String),
    /// Another view's thread panicked while holding the table.
    #[error("the shared ideal table is poisoned")]
    Poisoned,
}

fn awaited_words(awaited: &[PartyId]) -> String {
    match awaited {
        [] => "another player (who, this player cannot tell)".into(),
        _ => awaited
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The trusted table's record of one hand: the cards, and every operation applied so far with
/// what it showed. It is the whole logic of the ideal table seen one player at a time, with no
/// waiting and no I/O: [`IdealHub`] drives it from threads, and the table process of
/// [`super::ideal_table`] from messages.
pub struct IdealSteps<R> {
    table: IdealTable<R>,
    done: Vec<(TableOp, Seen)>,
    /// The versions of the current step's revealing operation offered so far, by seat.
    offered: Vec<Option<TableOp>>,
    /// Why the current step was not applied and never will be.
    stopped: Option<Stopped>,
}

/// Why the trusted table stopped at a revealing step.
#[derive(Clone, Debug)]
enum Stopped {
    /// The players offered different versions of it.
    Diverged,
    /// Every player offered it, and the table refused it.
    Refused(TableError),
}

impl<R: RngCore + CryptoRng> IdealSteps<R> {
    /// A table for `parties` players, shuffling with `rng`.
    pub fn new(parties: usize, rng: R) -> IdealSteps<R> {
        IdealSteps {
            table: IdealTable::with_rng(parties, rng),
            done: Vec::new(),
            offered: vec![None; parties],
            stopped: None,
        }
    }

    /// The number of operations applied.
    pub fn applied(&self) -> usize {
        self.done.len()
    }

    /// Player `me`'s operation `op`, his `step`-th: what the table shows him, or `None` while
    /// it waits for another player. The table applies an operation once:
    ///
    /// - an opening or a claim (`Open`, `ProveNoneOf`) when every player has offered it, and
    ///   only if all their versions are the same — so no player can have cards turned, or
    ///   another's hand tested, by asking first; different versions stop the hand with
    ///   [`IdealViewError::Diverged`] for everyone, naming nobody and showing nothing;
    /// - a commitment when its author offers it: only he lays its cards, and another player
    ///   who offers them (an announcement he saw turned, laid again as if its author made it)
    ///   is refused ([`IdealViewError::NotTheAuthor`]);
    /// - anything else when the first player offers it.
    ///
    /// Every later player's version must agree with the applied one as he sees it.
    pub fn offer(
        &mut self,
        me: PartyId,
        step: usize,
        op: &TableOp,
    ) -> Result<Option<Seen>, IdealViewError> {
        laid_by_its_author(me, step, op)?;
        if self.done.len() == step {
            match op {
                _ if reveals(op) => self.gather(me, step, op)?,
                _ if hidden(op) => {}
                _ => {
                    let seen = self.table.apply(op)?;
                    self.push(op, seen);
                }
            }
        }
        let Some((done, seen)) = self.done.get(step) else {
            return Ok(None);
        };
        if done.seen_by(me) != op.seen_by(me) {
            return Err(IdealViewError::Diverged { me, step });
        }
        Ok(Some(shown_to(me, done, seen)))
    }

    /// Records `op` as applied: a version of a revealing operation offered at this step (by a
    /// player who is not following the others) is forgotten with it.
    fn push(&mut self, op: &TableOp, seen: Seen) {
        self.done.push((op.clone(), seen));
        self.offered.fill(None);
    }

    /// The players the table waits for before it can answer `op`, offered as step `step`:
    /// the author of another player's commitment, or the players who have not asked for an
    /// opening or a claim yet. Empty when nothing is awaited (the step was applied, the hand
    /// stopped, or `op` is applied by whoever offers it).
    pub fn awaited(&self, step: usize, op: &TableOp) -> Vec<PartyId> {
        match op {
            _ if self.stopped.is_some() || step != self.done.len() => Vec::new(),
            TableOp::Commit {
                party,
                cards: CommitCards::Hidden(_),
            } => vec![*party],
            _ if reveals(op) => PartyId::all(self.offered.len())
                .filter(|p| self.offered[p.index()].is_none())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the hand stopped at its current step (see [`offer`](IdealSteps::offer)):
    /// every player's request there is answered, with the refusal, and no later step comes.
    pub fn stopped(&self) -> bool {
        self.stopped.is_some()
    }

    /// Takes in `me`'s version of the current, revealing step, and applies it once every
    /// player's version is in and all are the same.
    fn gather(&mut self, me: PartyId, step: usize, op: &TableOp) -> Result<(), IdealViewError> {
        if self.stopped.is_none() {
            self.offered[me.index()] = Some(op.clone());
            if self.offered.iter().any(Option::is_none) {
                return Ok(());
            }
            let parties = self.offered.len();
            let offered = std::mem::replace(&mut self.offered, vec![None; parties]);
            match offered.iter().all(|o| o.as_ref() == Some(op)) {
                true => match self.table.apply(op) {
                    Ok(seen) => self.push(op, seen),
                    Err(e) => self.stopped = Some(Stopped::Refused(e)),
                },
                false => self.stopped = Some(Stopped::Diverged),
            }
        }
        match &self.stopped {
            None => Ok(()),
            Some(Stopped::Diverged) => Err(IdealViewError::Diverged { me, step }),
            Some(Stopped::Refused(e)) => Err(IdealViewError::Table(e.clone())),
        }
    }
}

/// Refuses `me`'s commitment of another player's cards.
fn laid_by_its_author(me: PartyId, step: usize, op: &TableOp) -> Result<(), IdealViewError> {
    match op {
        TableOp::Commit {
            party,
            cards: CommitCards::Known(_),
        } if *party != me => Err(IdealViewError::NotTheAuthor {
            me,
            author: *party,
            step,
        }),
        _ => Ok(()),
    }
}

/// Whether `op` shows anything about the cards: an opening, or a claim about a hand.
fn reveals(op: &TableOp) -> bool {
    matches!(op, TableOp::Open(_) | TableOp::ProveNoneOf { .. })
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
        let deadline = Instant::now() + self.timeout;
        loop {
            let before = (shared.applied(), shared.stopped());
            let offered = shared.offer(me, step, op);
            // A step applied or stopped may answer the others waiting; a version taken in
            // answers nobody, and waking them for it would have two waiting players wake each
            // other for ever, never reaching their timeout.
            if (shared.applied(), shared.stopped()) != before {
                self.hub.applied.notify_all();
            }
            if let Some(seen) = offered? {
                self.step += 1;
                self.len += op.new_cards();
                return Ok(seen);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(IdealViewError::Timeout {
                    me,
                    step,
                    waited: self.timeout,
                    awaited: shared.awaited(step, op),
                });
            }
            shared = self
                .hub
                .applied
                .wait_timeout(shared, left)
                .map_err(|_| IdealViewError::Poisoned)?
                .0;
        }
    }

    fn cost(&self) -> Cost {
        Cost::ZERO
    }
}

/// The shuffles of hand `hand` of a game shuffling from `shuffles`: stream `hand` of its seed or
/// key, so the table in memory and the table process deal the same cards.
pub fn hand_rng(shuffles: &Randomness, hand: usize) -> rand_chacha::ChaCha20Rng {
    shuffles.stream(hand as u64)
}

/// The ideal tables of a whole game, a fresh one per hand, shared by every player's
/// [`IdealTables`] (each hand's shuffle from its own seeded stream).
pub struct IdealGame {
    parties: usize,
    shuffles: Randomness,
    hubs: Mutex<Vec<Arc<IdealHub<rand_chacha::ChaCha20Rng>>>>,
}

impl IdealGame {
    /// A game of `parties` players whose hand `k` shuffles with stream `k` of `seed`.
    pub fn new(parties: usize, seed: u64) -> Arc<IdealGame> {
        IdealGame::shuffling(parties, Randomness::Seed(seed))
    }

    /// A game of `parties` players whose hand `k` shuffles with stream `k` of `shuffles`.
    pub fn shuffling(parties: usize, shuffles: Randomness) -> Arc<IdealGame> {
        Arc::new(IdealGame {
            parties,
            shuffles,
            hubs: Mutex::new(Vec::new()),
        })
    }

    fn hub(&self, hand: usize) -> Result<Arc<IdealHub<rand_chacha::ChaCha20Rng>>, IdealViewError> {
        let mut hubs = self.hubs.lock().map_err(|_| IdealViewError::Poisoned)?;
        while hubs.len() <= hand {
            let rng = hand_rng(&self.shuffles, hubs.len());
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
            IdealViewError::Left { player, .. } => Some(*player),
            IdealViewError::Timeout { awaited, .. } => match awaited.as_slice() {
                [one] => Some(*one),
                _ => None,
            },
            _ => None,
        }
    }
}
