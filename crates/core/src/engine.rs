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

use crate::echo::{BroadcastKeys, EarlyEchoes, EchoError, EchoMessage, EchoRound, Sig};
use crate::nonce::{fresh_nonce, NonceMessage, NonceRound};
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

    /// Whether `op` ends with the echo round of [`crate::echo`] (consistent broadcast): a
    /// function of the operation and the public state, so every honest player answers alike.
    /// Required (no default), so that a wrapper cannot silently drop the echo.
    fn echoes(&self, op: &TableOp) -> bool;

    /// Whether the encoded message `payload` is, **by its kind**, one that every player must
    /// receive identically (a broadcast), whatever the sender addressed it to.
    fn is_broadcast(&self, payload: &[u8]) -> bool;
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
    signature: Option<Sig>,
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

    /// Queues a message from `from`, with its broadcast signature if it came with one
    /// (ignored when `from` is not a player: the transport authenticates senders, so it
    /// cannot happen).
    pub fn push(&mut self, from: PartyId, depth: u32, payload: Vec<u8>, signature: Option<Sig>) {
        if let Some(q) = self.queues.get_mut(from.index()).filter(|_| from.0 != 0) {
            self.bytes += payload.len();
            q.push_back(Waiting {
                depth,
                payload,
                signature,
            });
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

/// What a message carries: the engine's own encoding, or the seat's echo ([`crate::echo`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// An engine's message.
    Engine,
    /// An [`EchoMessage`].
    Echo,
    /// A message of the fresh-nonce round before the hellos ([`crate::nonce`]).
    Nonce,
}

/// Why a seat stopped: the engine's own error, or the echo round's.
#[derive(Debug, thiserror::Error)]
pub enum SeatError<E: std::error::Error + 'static> {
    /// The engine refused a step (and the echo round found its broadcasts consistent).
    #[error(transparent)]
    Engine(E),
    /// The echo round failed: broadcasts differ, a peer gave up, or a bad echo.
    #[error(transparent)]
    Echo(#[from] EchoError),
}

impl<E: std::error::Error + 'static> SeatError<E> {
    /// The peer that gave up first, when that (with every broadcast agreeing) is the whole
    /// verdict: its abort, which follows, says why.
    pub fn gave_up(&self) -> Option<PartyId> {
        match self {
            SeatError::Echo(EchoError::GaveUp { peer }) => Some(*peer),
            _ => None,
        }
    }
}

impl<E: std::error::Error + Blame + 'static> Blame for SeatError<E> {
    fn blamed(&self) -> Option<PartyId> {
        match self {
            SeatError::Engine(e) => e.blamed(),
            SeatError::Echo(e) => e.blamed(),
        }
    }
}

/// A message an engine sent, with its depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamped {
    /// What it carries.
    pub kind: Kind,
    /// The recipient.
    pub to: To,
    /// Its causal depth.
    pub depth: u32,
    /// The encoded message.
    pub payload: Vec<u8>,
    /// The sender's signature, on a broadcast of an echoed operation ([`crate::echo`]).
    pub signature: Option<Signed>,
}

/// A broadcast's signature and the slot it signs (the slot travels implied: the recipient
/// knows the operation and counts the sender's broadcasts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signed {
    /// The operation's number.
    pub op: u32,
    /// The broadcast's index among the sender's broadcasts of the operation to this recipient.
    pub index: u32,
    /// The signature.
    pub sig: Sig,
}

/// The bytes one delivery of `payload` with `signature` costs.
pub fn delivery_bytes(payload: &[u8], signature: Option<&Signed>) -> u64 {
    (payload.len() + signature.map_or(0, |s| s.sig.len())) as u64
}

/// An engine with its clock, its inbox, the outcome of the operation under way and its echo
/// round ([`crate::echo`]): what every driver keeps for one player.
#[derive(Debug)]
pub struct Seat<E: Engine> {
    engine: E,
    clock: CausalClock,
    inbox: Inbox,
    seen: Option<Seen>,
    handed: u64,
    op: u32,
    round: Option<EchoRound>,
    early: EarlyEchoes,
    failure: Option<E::Error>,
    keys: BroadcastKeys,
    /// Per recipient, the broadcasts this player signed for it in the operation.
    signed: Vec<u32>,
    /// The fresh-nonce round of the setup, under way ([`crate::nonce`]).
    nonces: Option<NonceRound>,
    /// The engine's setup messages, held until every nonce is in.
    held: Option<Step>,
}

type SeatResult<T, E> = Result<T, SeatError<<E as Engine>::Error>>;

impl<E: Engine> Seat<E> {
    /// Seats `engine`, which signs its broadcasts with `keys`.
    pub fn new(engine: E, keys: BroadcastKeys) -> Seat<E> {
        let parties = engine.parties();
        Seat {
            engine,
            clock: CausalClock::default(),
            inbox: Inbox::new(parties),
            seen: None,
            handed: 0,
            op: 0,
            round: None,
            early: EarlyEchoes::new(parties),
            failure: None,
            keys,
            signed: vec![0; parties],
            nonces: None,
            held: None,
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
    pub fn start(&mut self, op: &TableOp) -> SeatResult<Vec<Stamped>, E> {
        self.clock.begin_op();
        self.seen = None;
        self.failure = None;
        self.signed.iter_mut().for_each(|n| *n = 0);
        self.op = self.op.saturating_add(1);
        let view = op.seen_by(self.engine.me());
        self.round = self
            .engine
            .echoes(&view)
            .then(|| EchoRound::new(self.op, self.engine.me(), self.engine.parties()));
        let fresh_first = matches!(view, TableOp::Setup) && self.round.is_some();
        let mut out = match self.engine.start(&view) {
            Ok(step) if fresh_first => self.hold(step),
            Ok(step) => self.stamp(step, None),
            Err(e) => self.fail(e)?,
        };
        out.extend(self.drain()?);
        self.settle(out)
    }

    /// Holds the engine's setup messages and sends this player's fresh nonce instead: they
    /// leave, signed over every player's nonce, once all are in ([`crate::nonce`]).
    fn hold(&mut self, step: Step) -> Vec<Stamped> {
        let (me, parties) = (self.engine.me(), self.engine.parties());
        let nonce = fresh_nonce(me, &step);
        self.nonces = Some(NonceRound::new(me, parties, nonce));
        self.held = Some(step);
        vec![self.stamp_nonce(&NonceMessage::Nonce(nonce), After::Start)]
    }

    fn stamp_nonce(&mut self, msg: &NonceMessage, after: After) -> Stamped {
        let depth = self.clock.depth(after, None);
        self.clock.sent(depth);
        Stamped {
            kind: Kind::Nonce,
            to: To::All,
            depth,
            payload: msg.to_bytes(),
            signature: None,
        }
    }

    /// A message of the fresh-nonce round arrived from `from` ([`crate::nonce`]). Once every
    /// nonce is in, this player sends its list of them and its setup messages, signed under
    /// the context they agree on; a peer's setup messages are handed over once its list
    /// equals this player's.
    pub fn offer_nonce(
        &mut self,
        from: PartyId,
        depth: u32,
        payload: &[u8],
    ) -> SeatResult<Vec<Stamped>, E> {
        let parties = self.engine.parties();
        let msg = NonceMessage::from_bytes(payload, parties, from)?;
        let Some(nonces) = self.nonces.as_mut() else {
            return Err(EchoError::Malformed {
                from,
                reason: "a nonce outside the setup",
            }
            .into());
        };
        let is_nonce = matches!(msg, NonceMessage::Nonce(_));
        nonces.offer(from, depth, msg)?;
        if is_nonce {
            self.clock.received(depth);
        }
        self.handed += 1;
        let mut out = self.advance_nonces()?;
        out.extend(self.drain()?);
        self.settle(out)
    }

    /// Sends the list and the held setup messages once every nonce is in; compares the
    /// peers' lists; ends the round once all agree.
    fn advance_nonces(&mut self) -> SeatResult<Vec<Stamped>, E> {
        let mut out = Vec::new();
        let Some(nonces) = self.nonces.as_mut() else {
            return Ok(out);
        };
        if let (Some(all), true) = (nonces.view(), self.held.is_some()) {
            // Every later signature, the hellos' first, binds every player's fresh nonce.
            self.keys = self.keys.after(&nonces.agreed());
            self.clock.begin_op();
            out.push(self.stamp_nonce(&NonceMessage::View(all), After::Start));
            if let Some(step) = self.held.take() {
                out.extend(self.stamp(step, None));
            }
        }
        let Some(nonces) = self.nonces.as_mut() else {
            return Ok(out);
        };
        for depth in nonces.take_views(&self.keys)? {
            self.clock.received(depth);
        }
        if nonces.verdict()? {
            self.nonces = None;
        }
        Ok(out)
    }

    /// A message of the engine arrived from `from`, with the signature that came with it:
    /// queued, then handed over if (and once) the engine awaits its sender. Returns what to
    /// send. Once the operation has failed at this player (its echo round is deciding whom to
    /// blame) engine messages are dropped.
    pub fn offer(
        &mut self,
        from: PartyId,
        depth: u32,
        payload: Vec<u8>,
        signature: Option<Sig>,
    ) -> SeatResult<Vec<Stamped>, E> {
        if self.failure.is_some() {
            return Ok(Vec::new());
        }
        self.inbox.push(from, depth, payload, signature);
        let out = self.drain()?;
        self.settle(out)
    }

    /// An echo arrived from `from`: taken when the echo round of its operation can take it.
    pub fn offer_echo(
        &mut self,
        from: PartyId,
        depth: u32,
        payload: Vec<u8>,
    ) -> SeatResult<Vec<Stamped>, E> {
        self.early.push(from, depth, payload)?;
        self.settle(Vec::new())
    }

    /// A peer aborted: in an echoed operation it counts as a peer that gave up (with its echo
    /// if that came first), so this player sends its own failing echo and still judges by
    /// the others' echoes — an equivocation they show is then named, not lost behind the
    /// abort. `None` without an echo round: the abort ends the operation.
    pub fn peer_aborted(&mut self, from: PartyId) -> Option<SeatResult<Vec<Stamped>, E>> {
        self.round.as_ref()?;
        if let Some(nonces) = self.nonces.as_mut() {
            if let Err(e) = nonces.hear_abort(from, &self.keys) {
                return Some(Err(e.into()));
            }
        }
        // What already arrived and is awaited is judged first: a fault in it is this
        // player's own evidence.
        let mut out = match self.drain() {
            Ok(out) => out,
            Err(e) => return Some(Err(e)),
        };
        let op = self.op;
        let parties = self.engine.parties();
        let queued = (self.early.front_op(from) == Some(op))
            .then(|| self.early.pop(from))
            .flatten();
        let round = self.round.as_mut()?;
        let heard = match queued {
            Some((_, payload)) => EchoMessage::from_bytes(&payload, parties, from)
                .and_then(|echo| round.hear_abort(from, Some(&echo), &self.keys)),
            None => round.hear_abort(from, None, &self.keys),
        };
        if let Err(e) = heard {
            return Some(Err(e.into()));
        }
        if !round.sent() {
            let mine = round.echo(true);
            out.push(self.stamp_echo(&mine));
        }
        Some(self.settle(out))
    }

    /// How many messages the engine (or its echo round) has been handed so far (a driver's
    /// measure of progress: a message that only waits is none).
    pub fn handed(&self) -> u64 {
        self.handed
    }

    /// Whether the operation under way is complete here, its echo round included.
    pub fn is_done(&self) -> bool {
        self.seen.is_some() && self.round.is_none()
    }

    /// What this player saw of the completed operation.
    pub fn take_seen(&mut self) -> Option<Seen> {
        if self.round.is_some() {
            return None;
        }
        self.seen.take()
    }

    /// Whether the engine is done and the seat waits only for echoes.
    pub fn is_echoing(&self) -> bool {
        self.round.as_ref().is_some_and(EchoRound::sent)
    }

    /// The players whose message this seat awaits: the engine's, then those whose echo is
    /// missing.
    pub fn awaiting(&self) -> Vec<PartyId> {
        let missing = self.nonces.as_ref().map(NonceRound::awaiting);
        if let Some(missing) = missing.filter(|m| !m.is_empty()) {
            return missing;
        }
        match &self.round {
            Some(r) if r.sent() => PartyId::all(self.engine.parties())
                .filter(|&p| p != self.engine.me() && !r.heard(p))
                .collect(),
            _ => self.engine.awaiting(),
        }
    }

    /// The error to stop with when the wait is over (a driver's deadline, or a
    /// delivery queue run dry) while the operation has failed or broadcasts differ: the
    /// echo round's verdict on what has arrived. `None` if nothing failed.
    pub fn give_up(&mut self) -> Option<SeatError<E::Error>> {
        if let Some(e) = self.nonces.as_ref().and_then(NonceRound::differs) {
            return Some(e.into());
        }
        let round = self.round.as_ref()?;
        if !round.failing() && !round.differs_anywhere() {
            return None;
        }
        Some(self.resolve())
    }

    fn resolve(&mut self) -> SeatError<E::Error> {
        // Lists of nonces that differ explain whatever failed after them.
        if let Some(e) = self.nonces.as_ref().and_then(NonceRound::differs) {
            return e.into();
        }
        let own = self.failure.as_ref().and_then(Blame::blamed);
        let parties = self.engine.parties();
        let verdict = self.round.take().map(|r| r.verdict(parties, own));
        match (verdict, self.failure.take()) {
            // The echo confirms whom the engine blamed, or only says that a peer gave up
            // (every broadcast agreeing): the engine's own evidence is the verdict, whether
            // the peer's abort came before the faulty message or after it.
            (Some(Err(echo)), Some(e))
                if own.is_some()
                    && (echo.blamed() == own || matches!(echo, EchoError::GaveUp { .. })) =>
            {
                SeatError::Engine(e)
            }
            (Some(Err(e)), _) => SeatError::Echo(e),
            (_, Some(e)) => SeatError::Engine(e),
            _ => SeatError::Echo(EchoError::GaveUp {
                peer: self.engine.me(),
            }),
        }
    }

    /// The engine failed: without an echo round, that is the verdict; with one, the seat
    /// sends a failing echo and decides once the peers' echoes are in.
    fn fail(&mut self, e: E::Error) -> SeatResult<Vec<Stamped>, E> {
        let Some(round) = self.round.as_mut() else {
            return Err(SeatError::Engine(e));
        };
        self.failure = Some(e);
        if round.sent() {
            return Ok(Vec::new());
        }
        let echo = round.echo(true);
        Ok(vec![self.stamp_echo(&echo)])
    }

    fn stamp_echo(&mut self, echo: &EchoMessage) -> Stamped {
        let depth = self.clock.depth(After::Everything, None);
        self.clock.sent(depth);
        Stamped {
            kind: Kind::Echo,
            to: To::All,
            depth,
            payload: echo.to_bytes(),
            signature: None,
        }
    }

    /// After any progress: sends this player's echo once the engine is done, takes every
    /// echo the round can take, and ends the round when every echo is in.
    fn settle(&mut self, mut out: Vec<Stamped>) -> SeatResult<Vec<Stamped>, E> {
        let Some(round) = self.round.as_mut() else {
            return self.reject_stale_echoes().map(|()| out);
        };
        if self.seen.is_some() && !round.sent() {
            let echo = round.echo(false);
            out.push(self.stamp_echo(&echo));
        }
        while let Some(more) = self.take_echo()? {
            out.extend(more);
        }
        let parties = self.engine.parties();
        let Some(round) = self.round.as_ref() else {
            return Ok(out);
        };
        if !round.complete(parties) {
            return Ok(out);
        }
        if round.failing() || round.differs_anywhere() {
            return Err(self.resolve());
        }
        // Later signatures bind what this operation agreed on (after the setup: every
        // player's fresh hello), so none verifies in another game of the same roster.
        self.keys = self.keys.after(&round.agreed());
        self.round = None;
        Ok(out)
    }

    /// Takes one waiting echo of the current operation, if the round can take it now (a
    /// peer's complete echo waits for this player's own); returns what that makes this
    /// player send (its own failing echo, if a peer gave up first).
    fn take_echo(&mut self) -> SeatResult<Option<Vec<Stamped>>, E> {
        let (me, parties, op) = (self.engine.me(), self.engine.parties(), self.op);
        for from in PartyId::all(parties).filter(|&p| p != me) {
            match self.early.front_op(from) {
                Some(o) if o < op => {
                    return Err(EchoError::Malformed {
                        from,
                        reason: "an echo of a past operation",
                    }
                    .into())
                }
                Some(o) if o == op => {}
                _ => continue,
            }
            let Some((depth, payload)) = self.early.pop(from) else {
                continue;
            };
            let echo = EchoMessage::from_bytes(&payload, parties, from)?;
            let Some(round) = self.round.as_mut() else {
                return Err(EchoError::Malformed {
                    from,
                    reason: "an echo of an operation without one",
                }
                .into());
            };
            if round.aborted(from) {
                continue;
            }
            if !round.sent() && !echo.failing {
                self.early.unpop(from, depth, payload);
                continue;
            }
            round.hear(from, &echo, &self.keys)?;
            self.clock.received(depth);
            self.handed += 1;
            let mut out = Vec::new();
            if !round.sent() {
                let mine = round.echo(true);
                out.push(self.stamp_echo(&mine));
            }
            return Ok(Some(out));
        }
        Ok(None)
    }

    /// Without an echo round under way, an echo of this or a past operation is a peer's
    /// fault.
    fn reject_stale_echoes(&self) -> Result<(), SeatError<E::Error>> {
        let (me, parties) = (self.engine.me(), self.engine.parties());
        for from in PartyId::all(parties).filter(|&p| p != me) {
            if self.early.front_op(from).is_some_and(|o| o <= self.op) {
                return Err(EchoError::Malformed {
                    from,
                    reason: "an echo of an operation without one",
                }
                .into());
            }
        }
        Ok(())
    }

    fn drain(&mut self) -> SeatResult<Vec<Stamped>, E> {
        let mut out = Vec::new();
        loop {
            // After this player's own failure nothing more is judged; after a peer's, what
            // arrives is still this player's own evidence until the echoes decide.
            if self.failure.is_some() {
                return Ok(out);
            }
            // During the nonce round, only a peer whose list of nonces equals this player's
            // signs under the same context: its messages wait until then.
            let awaiting: Vec<PartyId> = self
                .engine
                .awaiting()
                .into_iter()
                .filter(|&p| self.nonces.as_ref().is_none_or(|n| n.agrees_with(p)))
                .collect();
            let Some((from, w)) = self.inbox.pop_for(&awaiting) else {
                return Ok(out);
            };
            self.clock.received(w.depth);
            self.handed += 1;
            self.check_signature(from, &w)?;
            match self.engine.receive(from, &w.payload) {
                Ok(step) => out.extend(self.stamp(step, Some(w.depth))),
                Err(e) => {
                    out.extend(self.fail(e)?);
                    return Ok(out);
                }
            }
        }
    }

    fn stamp(&mut self, step: Step, trigger: Option<u32>) -> Vec<Stamped> {
        if let Some(seen) = step.done {
            self.seen = Some(seen);
        }
        let me = self.engine.me();
        let mut out = Vec::with_capacity(step.send.len());
        for m in step.send {
            let depth = self.clock.depth(m.after, trigger);
            self.clock.sent(depth);
            let signature = self.sign(me, &m);
            out.push(Stamped {
                kind: Kind::Engine,
                to: m.to,
                depth,
                payload: m.payload,
                signature,
            });
        }
        out
    }

    /// Signs an own broadcast of an echoed operation, as the next broadcast each recipient
    /// gets from this player, and records it in this player's own chain.
    fn sign(&mut self, me: PartyId, m: &Outgoing) -> Option<Signed> {
        let round = self.round.as_mut()?;
        if !self.engine.is_broadcast(&m.payload) {
            return None;
        }
        let first = match m.to {
            To::Party(p) => p,
            To::All => PartyId::all(self.engine.parties()).find(|&p| p != me)?,
        };
        let index = *self.signed.get(first.index())?;
        for (j, n) in self.signed.iter_mut().enumerate() {
            if m.to == To::All || j == first.index() {
                *n = n.saturating_add(1);
            }
        }
        let sig = self.keys.sign(round.op(), index, &m.payload);
        round.record_own(index, &m.payload, sig);
        Some(Signed {
            op: round.op(),
            index,
            sig,
        })
    }

    /// Signs `payload` again for the slot of `signed`: a test tap that rewrites this
    /// player's broadcast models this player sending the rewritten one, signed.
    pub fn resign(&self, signed: &mut Signed, payload: &[u8]) {
        signed.sig = self.keys.sign(signed.op, signed.index, payload);
    }

    /// A broadcast of an echoed operation must come signed, and is then recorded for the
    /// echo. A signature on anything else proves nothing and is ignored: the engine judges
    /// the message itself (garbage fails there, naming its sender).
    fn check_signature(&mut self, from: PartyId, w: &Waiting) -> Result<(), EchoError> {
        let Some(round) = self.round.as_mut() else {
            return Ok(());
        };
        if !self.engine.is_broadcast(&w.payload) {
            return Ok(());
        }
        match &w.signature {
            Some(sig) => round.record(from, &w.payload, sig, &self.keys),
            None => Err(EchoError::Malformed {
                from,
                reason: "an unsigned broadcast",
            }),
        }
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
        inbox.push(PartyId(2), 1, vec![1], None);
        inbox.push(PartyId(3), 1, vec![2, 2], None);
        inbox.push(PartyId(2), 2, vec![3], None);
        inbox.push(PartyId(9), 1, vec![9], None);
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
