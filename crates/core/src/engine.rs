//! One player of a protocol as a sans-IO state machine, and the bookkeeping every driver keeps
//! for it.
//!
//! An [`Engine`] is one player's side of a backend: it holds **only that player's secrets** and
//! what it was sent. A driver starts every operation on every engine (each with its own view of
//! it, [`TableOp::seen_by`]), moves the encoded messages the engines return between them, and
//! asks each engine whom it still awaits. Two drivers exist: [`crate::local::LocalDriver`] runs
//! `N` engines in one process and counts every delivery; the network driver of `facedown-net`
//! runs one engine per process over a channel. Both use [`Seat`], so both deliver messages by
//! the same rule and measure the same rounds.
//!
//! # Delivery
//!
//! A message is handed to its engine only while the engine awaits its sender
//! ([`Engine::awaiting`]); until then it waits in that sender's queue of the [`Inbox`]. Links are
//! FIFO and a player sends everything an operation asks of it before it starts the next one,
//! so an honest message from an awaited sender always belongs to the operation under way, and
//! a message that arrives early (the next operation's, from a faster peer) waits.
//!
//! # Rounds
//!
//! Rounds are the longest chain of messages that must happen one after another
//! ([`crate::Cost`]). Each message carries a causal depth, computed by [`CausalClock`] from what
//! the engine says the message follows ([`After`]): the start of the operation, the message just
//! received (a value forwarded along a chain), or everything received in the operation so far
//! (a reply to a whole round). The depth never depends on the order in which messages arrive,
//! so an operation measures the same rounds in memory and over a network.

use std::collections::VecDeque;

use crate::op::{Seen, TableOp};
use crate::table::Capabilities;
use crate::PartyId;

/// An error that may hold a player responsible.
pub trait Blame {
    /// The player this error holds responsible, if the evidence names one.
    fn blamed(&self) -> Option<PartyId>;
}

/// Where a message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum To {
    /// One player, over the private pairwise link.
    Party(PartyId),
    /// Every other player (`N − 1` deliveries of the same bytes).
    All,
}

/// What a message causally follows (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum After {
    /// The start of the operation (and everything before it).
    Start,
    /// The message whose receipt produced it.
    Received,
    /// Every message received or sent in the operation so far.
    Everything,
}

/// A message an engine sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The recipient.
    pub to: To,
    /// What the message follows.
    pub after: After,
    /// The encoded message (the bytes that are counted and sent).
    pub payload: Vec<u8>,
}

/// What an engine returns from a step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// Messages to send.
    pub send: Vec<Outgoing>,
    /// Set when the operation is complete at this player: what it saw.
    pub done: Option<Seen>,
}

impl Step {
    /// Nothing to send, operation not complete.
    pub fn wait() -> Step {
        Step::default()
    }

    /// The operation is complete here and this player saw `seen`.
    pub fn done(seen: Seen) -> Step {
        Step {
            send: Vec::new(),
            done: Some(seen),
        }
    }

    /// Adds a message.
    pub fn with(mut self, to: To, after: After, payload: Vec<u8>) -> Step {
        self.send.push(Outgoing { to, after, payload });
        self
    }
}

/// One player of a backend (see the [module docs](self)).
pub trait Engine {
    /// Why a step failed; names the offending player where the evidence does.
    type Error: std::error::Error + Blame + Send + Sync + 'static;

    /// What the backend can do, and how securely, at a table of `parties` players (a property
    /// of the backend, known before any table exists).
    fn capabilities(parties: usize) -> Capabilities
    where
        Self: Sized;

    /// This player.
    fn me(&self) -> PartyId;

    /// The number of players.
    fn parties(&self) -> usize;

    /// Starts `op`, as this player sees it.
    fn start(&mut self, op: &TableOp) -> Result<Step, Self::Error>;

    /// Handles the encoded message `payload` that the transport received from `from`.
    fn receive(&mut self, from: PartyId, payload: &[u8]) -> Result<Step, Self::Error>;

    /// The players this engine still awaits a message from in the current operation.
    fn awaiting(&self) -> Vec<PartyId>;
}

/// Causal depths of one engine's messages (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CausalClock {
    clock: u32,
    base: u32,
    op_max: u32,
}

impl CausalClock {
    /// A new operation starts: its messages follow everything before.
    pub fn begin_op(&mut self) {
        self.base = self.clock;
        self.op_max = self.clock;
    }

    /// A message of depth `depth` was processed.
    pub fn received(&mut self, depth: u32) {
        self.op_max = self.op_max.max(depth);
        self.clock = self.clock.max(depth);
    }

    /// A message of depth `depth` was sent.
    pub fn sent(&mut self, depth: u32) {
        self.received(depth);
    }

    /// The depth of a message that follows `after`; `trigger` is the depth of the message just
    /// received, if any.
    pub fn depth(&self, after: After, trigger: Option<u32>) -> u32 {
        let from = match after {
            After::Start => self.base,
            After::Received => self.base.max(trigger.unwrap_or(self.base)),
            After::Everything => self.base.max(self.op_max),
        };
        from.saturating_add(1)
    }

    /// The deepest message processed or sent so far.
    pub fn now(&self) -> u32 {
        self.clock
    }
}

/// A message waiting for its engine.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Waiting {
    depth: u32,
    payload: Vec<u8>,
}

/// Messages received but not yet handed to the engine, one FIFO queue per sender.
#[derive(Clone, Debug, Default)]
pub struct Inbox {
    queues: Vec<VecDeque<Waiting>>,
    bytes: usize,
}

impl Inbox {
    /// An empty inbox for `parties` players.
    pub fn new(parties: usize) -> Inbox {
        Inbox {
            queues: vec![VecDeque::new(); parties],
            bytes: 0,
        }
    }

    /// Queues a message from `from` (ignored when `from` is not a player: the transport
    /// authenticates senders, so it cannot happen).
    pub fn push(&mut self, from: PartyId, depth: u32, payload: Vec<u8>) {
        if let Some(q) = self.queues.get_mut(from.index()).filter(|_| from.0 != 0) {
            self.bytes += payload.len();
            q.push_back(Waiting { depth, payload });
        }
    }

    /// The oldest queued message of the first sender in `awaiting` (in that order) that has one.
    fn pop_for(&mut self, awaiting: &[PartyId]) -> Option<(PartyId, Waiting)> {
        let from = *awaiting.iter().find(|p| {
            self.queues
                .get(p.index())
                .is_some_and(|q| !q.is_empty() && p.0 != 0)
        })?;
        let w = self.queues[from.index()].pop_front()?;
        self.bytes -= w.payload.len();
        Some((from, w))
    }

    /// The number of queued messages.
    pub fn len(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }

    /// The bytes queued.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The first sender with a queued message.
    pub fn first_sender(&self) -> Option<PartyId> {
        self.queues
            .iter()
            .position(|q| !q.is_empty())
            .map(PartyId::from_index)
    }
}

/// A message an engine sent, with its depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamped {
    /// The recipient.
    pub to: To,
    /// Its causal depth.
    pub depth: u32,
    /// The encoded message.
    pub payload: Vec<u8>,
}

/// An engine with its clock, its inbox and the outcome of the operation under way: what every
/// driver keeps for one player.
#[derive(Debug)]
pub struct Seat<E> {
    engine: E,
    clock: CausalClock,
    inbox: Inbox,
    seen: Option<Seen>,
    handed: u64,
}

impl<E: Engine> Seat<E> {
    /// Seats `engine`.
    pub fn new(engine: E) -> Seat<E> {
        let parties = engine.parties();
        Seat {
            engine,
            clock: CausalClock::default(),
            inbox: Inbox::new(parties),
            seen: None,
            handed: 0,
        }
    }

    /// The engine.
    pub fn engine(&self) -> &E {
        &self.engine
    }

    /// The engine, consuming the seat.
    pub fn into_engine(self) -> E {
        self.engine
    }

    /// The clock.
    pub fn clock(&self) -> &CausalClock {
        &self.clock
    }

    /// The messages waiting for the engine.
    pub fn inbox(&self) -> &Inbox {
        &self.inbox
    }

    /// Starts `op` (as this player sees it), then hands over every queued message the engine
    /// now awaits. Returns what to send.
    pub fn start(&mut self, op: &TableOp) -> Result<Vec<Stamped>, E::Error> {
        self.clock.begin_op();
        self.seen = None;
        let step = self.engine.start(&op.seen_by(self.engine.me()))?;
        let mut out = self.stamp(step, None);
        out.extend(self.drain()?);
        Ok(out)
    }

    /// A message arrived from `from`: queued, then handed over if (and once) the engine
    /// awaits its sender. Returns what to send.
    pub fn offer(
        &mut self,
        from: PartyId,
        depth: u32,
        payload: Vec<u8>,
    ) -> Result<Vec<Stamped>, E::Error> {
        self.inbox.push(from, depth, payload);
        self.drain()
    }

    /// How many messages the engine has been handed so far (a driver's measure of progress:
    /// a message that only waits in the inbox is none).
    pub fn handed(&self) -> u64 {
        self.handed
    }

    /// Whether the operation under way is complete here.
    pub fn is_done(&self) -> bool {
        self.seen.is_some()
    }

    /// What this player saw of the completed operation.
    pub fn take_seen(&mut self) -> Option<Seen> {
        self.seen.take()
    }

    fn drain(&mut self) -> Result<Vec<Stamped>, E::Error> {
        let mut out = Vec::new();
        loop {
            let awaiting = self.engine.awaiting();
            let Some((from, w)) = self.inbox.pop_for(&awaiting) else {
                return Ok(out);
            };
            self.clock.received(w.depth);
            self.handed += 1;
            let step = self.engine.receive(from, &w.payload)?;
            out.extend(self.stamp(step, Some(w.depth)));
        }
    }

    fn stamp(&mut self, step: Step, trigger: Option<u32>) -> Vec<Stamped> {
        if let Some(seen) = step.done {
            self.seen = Some(seen);
        }
        let mut out = Vec::with_capacity(step.send.len());
        for m in step.send {
            let depth = self.clock.depth(m.after, trigger);
            self.clock.sent(depth);
            out.push(Stamped {
                to: m.to,
                depth,
                payload: m.payload,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_follow_the_cause_not_the_arrival_order() {
        let mut c = CausalClock::default();
        c.received(4);
        c.begin_op();
        assert_eq!(c.depth(After::Start, None), 5);
        // A value forwarded on receipt follows that value only.
        c.received(9);
        c.received(6);
        assert_eq!(c.depth(After::Received, Some(6)), 7);
        assert_eq!(c.depth(After::Received, Some(2)), 5);
        // A reply to the whole round follows its deepest message.
        assert_eq!(c.depth(After::Everything, Some(6)), 10);
        assert_eq!(c.now(), 9);
    }

    #[test]
    fn the_inbox_hands_out_awaited_senders_in_fifo_order() {
        let mut inbox = Inbox::new(3);
        inbox.push(PartyId(2), 1, vec![1]);
        inbox.push(PartyId(3), 1, vec![2, 2]);
        inbox.push(PartyId(2), 2, vec![3]);
        inbox.push(PartyId(9), 1, vec![9]);
        assert_eq!((inbox.len(), inbox.bytes()), (4 - 1, 4));
        assert!(inbox.pop_for(&[PartyId(1)]).is_none());
        let (from, w) = inbox.pop_for(&[PartyId(1), PartyId(2)]).expect("queued");
        assert_eq!((from, w.payload), (PartyId(2), vec![1]));
        let (from, _) = inbox.pop_for(&[PartyId(3), PartyId(2)]).expect("queued");
        assert_eq!(from, PartyId(3), "the engine's order of senders");
        let (_, w) = inbox.pop_for(&[PartyId(2)]).expect("queued");
        assert_eq!(w.payload, vec![3]);
        assert!(inbox.is_empty() && inbox.first_sender().is_none());
    }
}
