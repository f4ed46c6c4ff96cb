//! `N` engines in one process, as one face-down table.
//!
//! [`LocalDriver`] seats one [`Engine`] per player and implements [`FaceDownTable`]: every
//! operation is started on every engine (each with its own view of it), and the engines'
//! encoded messages are delivered one by one, in the order they were sent, by the rule of
//! [`crate::engine`] (a message waits until its engine awaits its sender). The driver holds no
//! secret: it moves bytes. What it counts is what a network would carry:
//!
//! * **messages**: deliveries (a broadcast to `N − 1` players counts `N − 1`);
//! * **bytes**: the encoded size of every delivery, exactly the bytes an engine returned;
//! * **rounds**: the largest causal depth of any message ([`crate::engine::CausalClock`]).
//!
//! A [`Tap`] sees every delivery and may rewrite or drop it: a tampering,
//! equivocating or withholding network in one line, for tests. A seeded run is deterministic:
//! the engines draw from their own generators, and the delivery order depends only on what
//! they send.

use std::collections::VecDeque;

use crate::echo::BroadcastKeys;
use crate::echo::EchoError;
use crate::engine::{delivery_bytes, Blame, Engine, Kind, Seat, SeatError, Signed, Stamped, To};
use crate::op::{Seen, TableOp};
use crate::table::{Capabilities, FaceDownTable, TableError};
use crate::{Cost, PartyId};

/// Why a [`LocalDriver`] operation failed. Every variant names a player.
#[derive(Debug, thiserror::Error)]
pub enum DriveError<E: std::error::Error + 'static> {
    /// A player's engine refused a step (its error names whom it holds responsible).
    #[error("{party}: {source}")]
    Engine {
        /// The player whose engine failed.
        party: PartyId,
        /// The engine's error.
        #[source]
        source: E,
    },
    /// A player's echo round failed: broadcasts differ, a peer gave up, or a bad echo
    /// ([`crate::echo`]).
    #[error("{party}: {source}")]
    Echo {
        /// The player whose echo round failed.
        party: PartyId,
        /// Why.
        #[source]
        source: EchoError,
    },
    /// The messages ran out while a player still awaited one: someone never sent it.
    #[error("{party} still awaits a message from {}", .awaiting.first().map_or("nobody".to_owned(), |p| p.to_string()))]
    Stuck {
        /// The waiting player.
        party: PartyId,
        /// Whom it awaits.
        awaiting: Vec<PartyId>,
    },
    /// A message was sent that its recipient never awaited.
    #[error("{from} sent {to} a message the protocol does not call for")]
    Unawaited {
        /// The sender.
        from: PartyId,
        /// The recipient.
        to: PartyId,
    },
    /// Two players saw different public cards.
    #[error("{party} saw other public cards than player 1")]
    Inconsistent {
        /// The player whose view differs from player 1's.
        party: PartyId,
    },
    /// The operation is not one this driver can run.
    #[error(transparent)]
    Table(#[from] TableError),
}

impl<E: std::error::Error + Blame + 'static> Blame for DriveError<E> {
    fn blamed(&self) -> Option<PartyId> {
        match self {
            DriveError::Engine { source, .. } => source.blamed(),
            DriveError::Echo { source, .. } => source.blamed(),
            DriveError::Stuck { awaiting, .. } => awaiting.first().copied(),
            DriveError::Unawaited { from, .. } => Some(*from),
            DriveError::Inconsistent { .. } | DriveError::Table(_) => None,
        }
    }
}

/// One delivery, as a [`Tap`] sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// What it carries (an engine's message or an echo).
    pub kind: Kind,
    /// The sender.
    pub from: PartyId,
    /// The recipient.
    pub to: PartyId,
    /// Its causal depth.
    pub depth: u32,
    /// The encoded message.
    pub payload: Vec<u8>,
    /// The sender's signature, on a broadcast of an echoed operation (a tap that rewrites the
    /// payload needs not touch it: the driver signs the rewritten payload as the sender).
    pub signature: Option<Signed>,
}

/// What one operation cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpCost {
    /// The operation's name ([`TableOp::name`]).
    pub name: &'static str,
    /// Its messages and bytes, and the rounds it added.
    pub cost: Cost,
}

/// What sees every delivery of a [`LocalDriver`]: it may rewrite the delivery, or drop it by
/// returning `false`. Closures `FnMut(&mut Delivery) -> bool` are taps.
pub trait Tap {
    /// Called once per delivery, before the recipient gets it.
    fn deliver(&mut self, delivery: &mut Delivery) -> bool;
}

impl<F: FnMut(&mut Delivery) -> bool> Tap for F {
    fn deliver(&mut self, delivery: &mut Delivery) -> bool {
        self(delivery)
    }
}

/// The tap of an honest network: every delivery as sent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Untapped;

impl Tap for Untapped {
    fn deliver(&mut self, _: &mut Delivery) -> bool {
        true
    }
}

/// `N` engines as one table (see the [module docs](self)).
pub struct LocalDriver<E: Engine, T: Tap = Untapped> {
    seats: Vec<Seat<E>>,
    len: usize,
    cost: Cost,
    ops: Vec<OpCost>,
    tap: T,
    later_failures: Vec<DriveError<E::Error>>,
}

impl<E: Engine, T: Tap> core::fmt::Debug for LocalDriver<E, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LocalDriver")
            .field("parties", &self.seats.len())
            .field("len", &self.len)
            .field("cost", &self.cost)
            .finish_non_exhaustive()
    }
}

impl<E: Engine> LocalDriver<E> {
    /// Seats `engines` (player 1 first) and runs the session's [`Setup`](TableOp::Setup).
    pub fn new(engines: Vec<E>) -> Result<Self, DriveError<E::Error>> {
        LocalDriver::tapped(engines, Untapped)
    }
}

impl<E: Engine, T: Tap> LocalDriver<E, T> {
    /// As [`new`](LocalDriver::new), with a [`Tap`] that sees (and may rewrite or drop) every
    /// delivery, the setup's included.
    pub fn tapped(engines: Vec<E>, tap: T) -> Result<Self, DriveError<E::Error>> {
        let mut driver = LocalDriver::seated(engines, tap)?;
        driver.run(&TableOp::Setup)?;
        Ok(driver)
    }

    /// As [`tapped`](LocalDriver::tapped) without running the setup: the caller's first
    /// operation must be [`Setup`](TableOp::Setup). For a test that wants every player's
    /// verdict on a failed setup ([`later_failures`](LocalDriver::later_failures)).
    pub fn seated(engines: Vec<E>, tap: T) -> Result<Self, DriveError<E::Error>> {
        let parties = engines.len();
        for (j, e) in engines.iter().enumerate() {
            let me = PartyId::from_index(j);
            if e.me() != me || e.parties() != parties {
                return Err(DriveError::Table(TableError::Party {
                    party: e.me(),
                    parties,
                }));
            }
        }
        let driver = LocalDriver {
            seats: engines
                .into_iter()
                .map(|e| {
                    let keys = BroadcastKeys::in_process(e.me(), parties);
                    Seat::new(e, keys)
                })
                .collect(),
            len: 0,
            cost: Cost::ZERO,
            ops: Vec::new(),
            tap,
            later_failures: Vec::new(),
        };
        Ok(driver)
    }

    /// Player `party`'s engine (a test oracle's look at one player).
    pub fn engine(&self, party: PartyId) -> Option<&E> {
        self.seats.get(party.index()).map(Seat::engine)
    }

    /// Every engine, player 1 first.
    pub fn engines(&self) -> impl Iterator<Item = &E> {
        self.seats.iter().map(Seat::engine)
    }

    /// The engines, consuming the driver.
    pub fn into_engines(self) -> Vec<E> {
        self.seats.into_iter().map(Seat::into_engine).collect()
    }

    /// After a failed operation: the other failing players' verdicts (the operation's error
    /// is the most direct one: an engine's own finding before the echo's, then by player).
    pub fn later_failures(&self) -> &[DriveError<E::Error>] {
        &self.later_failures
    }

    /// The cost of every operation so far, setup first.
    pub fn ops(&self) -> &[OpCost] {
        &self.ops
    }

    /// Runs one operation on every engine and returns what each view saw, merged: the public
    /// cards (every player must have seen the same) and each private group as its recipient
    /// saw it.
    pub fn run(&mut self, op: &TableOp) -> Result<Seen, DriveError<E::Error>> {
        if let TableOp::Commit { party, cards } = op {
            if !matches!(cards, crate::op::CommitCards::Known(_)) {
                return Err(TableError::HiddenCommit { party: *party }.into());
            }
        }
        let before = self.cost;
        let mut queue = VecDeque::new();
        for j in 0..self.seats.len() {
            let out = self.seats[j]
                .start(op)
                .map_err(|source| engine_error(j, source))?;
            self.enqueue(j, out, &mut queue);
        }
        // A player that fails stops; the others go on with what is delivered (as over a
        // network, where they would next hear its abort), so every player reaches a verdict.
        let mut failures = Vec::new();
        let mut failed = vec![false; self.seats.len()];
        while let Some(mut d) = queue.pop_front() {
            let j = d.to.index();
            if failed[j] || !self.deliver(&mut d) {
                continue;
            }
            self.count(&d);
            let seat = &mut self.seats[j];
            let out = match d.kind {
                Kind::Engine => seat.offer(d.from, d.depth, d.payload, d.signature.map(|s| s.sig)),
                Kind::Echo => seat.offer_echo(d.from, d.depth, d.payload),
                Kind::Nonce => seat.offer_nonce(d.from, d.depth, &d.payload),
            };
            match out {
                Ok(out) => self.enqueue(j, out, &mut queue),
                Err(source) => {
                    failed[j] = true;
                    failures.push(engine_error(j, source));
                }
            }
        }
        // A player whose operation failed was waiting for echoes that will not come.
        for (j, seat) in self.seats.iter_mut().enumerate() {
            if let Some(e) = seat.give_up().filter(|_| !failed[j]) {
                failures.push(engine_error(j, e));
            }
        }
        if !failures.is_empty() {
            // First a verdict of a player that saw a fault itself (its engine's, confirmed by
            // the echo), then one the echo attributes, then the rest; by player within each.
            failures.sort_by_key(|e: &DriveError<E::Error>| match e {
                DriveError::Engine { party, .. } => (0, party.0),
                DriveError::Echo { party, source } if source.blamed().is_some() => (1, party.0),
                DriveError::Echo { party, .. } => (2, party.0),
                _ => (3, 0),
            });
            let first = failures.remove(0);
            self.later_failures = failures;
            return Err(first);
        }
        let seen = self.collect(op)?;
        self.len += op.new_cards();
        let mut cost = self.cost;
        cost.messages -= before.messages;
        cost.bytes -= before.bytes;
        cost.rounds -= before.rounds;
        self.ops.push(OpCost {
            name: op.name(),
            cost,
        });
        Ok(seen)
    }

    /// The tap sees the delivery; a rewritten broadcast is signed again by its sender.
    fn deliver(&mut self, d: &mut Delivery) -> bool {
        let original = d.signature.map(|_| d.payload.clone());
        if !self.tap.deliver(d) {
            return false;
        }
        if let (Some(original), Some(signed)) = (original, d.signature.as_mut()) {
            if original != d.payload {
                self.seats[d.from.index()].resign(signed, &d.payload);
            }
        }
        true
    }

    fn count(&mut self, d: &Delivery) {
        self.cost.messages += 1;
        self.cost.bytes += delivery_bytes(&d.payload, d.signature.as_ref());
        self.cost.rounds = self.cost.rounds.max(u64::from(d.depth));
    }

    fn enqueue(&self, from: usize, out: Vec<Stamped>, queue: &mut VecDeque<Delivery>) {
        let from = PartyId::from_index(from);
        for m in out {
            let recipients: Vec<PartyId> = match m.to {
                To::Party(p) => vec![p],
                To::All => PartyId::all(self.seats.len())
                    .filter(|&p| p != from)
                    .collect(),
            };
            for to in recipients {
                queue.push_back(Delivery {
                    kind: m.kind,
                    from,
                    to,
                    depth: m.depth,
                    payload: m.payload.clone(),
                    signature: m.signature,
                });
            }
        }
    }

    /// Every player must be done, nothing may be left unread; then the views are merged.
    fn collect(&mut self, op: &TableOp) -> Result<Seen, DriveError<E::Error>> {
        let mut views = Vec::with_capacity(self.seats.len());
        for (j, seat) in self.seats.iter_mut().enumerate() {
            let party = PartyId::from_index(j);
            if let Some(from) = seat.inbox().first_sender() {
                return Err(DriveError::Unawaited { from, to: party });
            }
            match seat.take_seen() {
                Some(seen) => views.push(seen),
                None => {
                    return Err(DriveError::Stuck {
                        party,
                        awaiting: seat.awaiting(),
                    })
                }
            }
        }
        merge(op, views)
    }
}

fn engine_error<E: std::error::Error>(index: usize, source: SeatError<E>) -> DriveError<E> {
    let party = PartyId::from_index(index);
    match source {
        SeatError::Engine(source) => DriveError::Engine { party, source },
        SeatError::Echo(source) => DriveError::Echo { party, source },
    }
}

fn merge<E: std::error::Error>(op: &TableOp, views: Vec<Seen>) -> Result<Seen, DriveError<E>> {
    let Some(first) = views.first() else {
        return Ok(Seen::default());
    };
    if let Some(j) = views.iter().position(|v| v.public != first.public) {
        return Err(DriveError::Inconsistent {
            party: PartyId::from_index(j),
        });
    }
    let private = match op {
        TableOp::Open(opening) => opening
            .private
            .iter()
            .enumerate()
            .map(|(k, (p, _))| {
                views
                    .get(p.index())
                    .and_then(|v| v.private.get(k).cloned().flatten())
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(Seen {
        public: first.public.clone(),
        private,
    })
}

impl<E: Engine, T: Tap> FaceDownTable for LocalDriver<E, T> {
    type Error = DriveError<E::Error>;

    fn capabilities(&self) -> Capabilities {
        E::capabilities(self.seats.len())
    }

    fn parties(&self) -> usize {
        self.seats.len()
    }

    fn len(&self) -> usize {
        self.len
    }

    fn apply(&mut self, op: &TableOp) -> Result<Seen, Self::Error> {
        self.run(op)
    }

    fn cost(&self) -> Cost {
        self.cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{After, Step};
    use crate::table::ideal_capabilities;

    /// A toy protocol: at setup everyone broadcasts its number; at finish a token runs along
    /// the chain 1 → 2 → … → N. `chatty` makes player 1 also write to the last player.
    struct Toy {
        me: PartyId,
        parties: usize,
        heard: Vec<PartyId>,
        chain: bool,
        chatty: bool,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("bad message from {0}")]
    struct ToyError(PartyId);

    impl Blame for ToyError {
        fn blamed(&self) -> Option<PartyId> {
            Some(self.0)
        }
    }

    impl Engine for Toy {
        type Error = ToyError;
        fn capabilities(_: usize) -> Capabilities {
            ideal_capabilities()
        }
        fn me(&self) -> PartyId {
            self.me
        }
        fn parties(&self) -> usize {
            self.parties
        }
        fn start(&mut self, op: &TableOp) -> Result<Step, ToyError> {
            let last = PartyId::from_index(self.parties - 1);
            match op {
                TableOp::Setup => {
                    Ok(Step::wait().with(To::All, After::Start, vec![self.me.0 as u8]))
                }
                TableOp::Finish if self.me == PartyId(1) => {
                    let mut step = Step::done(Seen::default()).with(
                        To::Party(PartyId(2)),
                        After::Start,
                        vec![0],
                    );
                    if self.chatty {
                        step = step.with(To::Party(last), After::Start, vec![9]);
                    }
                    Ok(step)
                }
                TableOp::Finish => {
                    self.chain = true;
                    Ok(Step::wait())
                }
                _ => Ok(Step::done(Seen::default())),
            }
        }
        fn receive(&mut self, from: PartyId, payload: &[u8]) -> Result<Step, ToyError> {
            if self.chain {
                self.chain = false;
                let next = PartyId(self.me.0 + 1);
                if usize::from(next.0) > self.parties {
                    return Ok(Step::done(Seen::default()));
                }
                return Ok(Step::done(Seen::default()).with(
                    To::Party(next),
                    After::Received,
                    payload.to_vec(),
                ));
            }
            if payload != [from.0 as u8] {
                return Err(ToyError(from));
            }
            self.heard.push(from);
            if self.heard.len() + 1 == self.parties {
                return Ok(Step::done(Seen::default()));
            }
            Ok(Step::wait())
        }
        fn echoes(&self, _: &TableOp) -> bool {
            false
        }
        fn is_broadcast(&self, _: &[u8]) -> bool {
            false
        }
        fn awaiting(&self) -> Vec<PartyId> {
            if self.chain {
                return vec![PartyId(self.me.0 - 1)];
            }
            PartyId::all(self.parties)
                .filter(|&p| p != self.me && !self.heard.contains(&p))
                .collect()
        }
    }

    fn toys(n: usize, chatty: bool) -> Vec<Toy> {
        PartyId::all(n)
            .map(|me| Toy {
                me,
                parties: n,
                heard: vec![],
                chain: false,
                chatty,
            })
            .collect()
    }

    #[test]
    fn deliveries_bytes_and_causal_rounds_are_counted() {
        let mut d = LocalDriver::new(toys(3, false)).expect("setup");
        assert_eq!(
            d.cost(),
            Cost {
                messages: 6,
                bytes: 6,
                rounds: 1
            }
        );
        d.finish().expect("the chain completes");
        assert_eq!(d.ops()[1].cost.messages, 2);
        assert_eq!(d.cost().rounds, 3, "setup, then a chain of two hops");
    }

    #[test]
    fn a_withheld_message_leaves_its_recipient_stuck_naming_the_sender() {
        let drop_1_to_2 = |d: &mut Delivery| !(d.from == PartyId(1) && d.to == PartyId(2));
        let err = LocalDriver::tapped(toys(3, false), drop_1_to_2).expect_err("stuck");
        assert!(
            matches!(
                err,
                DriveError::Stuck {
                    party: PartyId(2),
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(err.blamed(), Some(PartyId(1)));
    }

    #[test]
    fn a_tampered_message_is_an_engine_error_and_an_unawaited_one_is_refused() {
        let tamper = |d: &mut Delivery| {
            if d.from == PartyId(3) {
                d.payload = vec![7];
            }
            true
        };
        let err = LocalDriver::tapped(toys(3, false), tamper).expect_err("tampered");
        assert_eq!(err.blamed(), Some(PartyId(3)));
        let mut d = LocalDriver::new(toys(3, true)).expect("setup");
        let err = d.finish().expect_err("player 3 never awaited player 1");
        assert!(matches!(
            err,
            DriveError::Unawaited {
                from: PartyId(1),
                to: PartyId(3)
            }
        ));
    }
}
