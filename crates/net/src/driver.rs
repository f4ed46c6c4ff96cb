//! One player's engine over a [`Channel`]: the network driver.
//!
//! [`NetDriver`] runs this player's [`Engine`] against the others over any channel (TCP with
//! Noise_KK, or the in-memory network) and is that player's **view of the face-down table**
//! ([`FaceDownTable`]): a protocol walker, run by every player on its own view, calls its
//! operations, and each one completes when this player's engine awaits nothing more. The
//! driver knows no protocol: it asks the engine whom it awaits and hands it their messages,
//! through the same [`Seat`] as the in-memory [`facedown_core::LocalDriver`], so both deliver
//! by the same rule and measure the same rounds.
//!
//! # Delivery and deadlines
//!
//! A frame from a peer the engine does not await yet waits in that peer's queue (a faster
//! peer's next operation; FIFO links keep the order). Each operation has a [`Deadline`] of one
//! timeout that only **progress** renews — the engine being handed an awaited message — so
//! frames that do not advance the protocol cannot keep a player waiting forever. On the
//! deadline this player tells its peers whom it waits for ([`Wire::Waiting`]) and gives the
//! awaited peer one more timeout. A peer told that someone waits for it answers at once
//! whom it awaits itself, so an honest peer stuck on a cheater says so within that timeout,
//! however late its own deadline. Such a claim is worth one postponement: the claimant's
//! own verdict (its abort, whose accusation is reported as a claim) is due within two
//! timeouts per honest player that can stand between it and a cheater; if it neither goes
//! on nor gives up by then, it is named. A peer that said nothing is named after the grace
//! timeout. So a player waiting on an honest player that waits on a silent cheater does not
//! blame the honest one, and a silent cheater claiming to wait on an honest player is still
//! named. At most [`MAX_WAITING_FRAMES`] frames and
//! [`MAX_WAITING_BYTES`] bytes wait at once; beyond, the peer with the oldest waiting frame is
//! named ([`NetError::Flooded`]). Under these, every transport bounds what one peer can queue
//! ([`crate::Limits`]); engine frames that arrive after the game ended are dropped and counted
//! ([`OffProtocol`]).
//!
//! # Ends
//!
//! On an error the driver tells every peer why ([`Wire::Abort`], with whom it blames) before
//! returning it, and lingers until they close, reading what they still send: a peer's abort
//! is reported with its accusation as a **claim** ([`NetError::claims`], with those of the
//! aborts read while lingering); the verdict ([`NetError::blamed`]) is only what this player
//! saw itself, so an abort cannot frame anyone. [`NetDriver::close`] sends `Bye` and waits for everyone's, so no player
//! closes its links while another still needs them.
//!
//! # Accounting
//!
//! [`NetDriver::cost`] counts what **this player sent**: one message per delivery (a broadcast
//! counts `N − 1`) and the bytes of the engine's own encoding (as the in-memory driver counts
//! them; the [`Wire`] framing and the transport's overhead are in [`Channel::stats`]). Its
//! rounds are the deepest causal depth this player saw. Summed over players with
//! [`crate::total_cost`], a run costs exactly what the same run costs in memory.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use facedown_core::engine::{delivery_bytes, Engine, Kind, Seat, Stamped, To};
use facedown_core::nonce::NonceMessage;
use facedown_core::table::{Capabilities, FaceDownTable};
use facedown_core::{Cost, PartyId, Seen, TableOp};
use serde::{Deserialize, Serialize};

use crate::channel::{Channel, Deadline, OffProtocol};
use crate::error::NetError;
use crate::wire::Wire;

/// Most frames a player keeps waiting for its engine.
pub const MAX_WAITING_FRAMES: usize = 4096;
/// Most bytes a player keeps waiting for its engine.
pub const MAX_WAITING_BYTES: usize = 64 << 20;
/// Longest a player that aborts waits for its peers to close their links.
pub const ABORT_LINGER: Duration = Duration::from_millis(500);

/// Where a wait for the next step of an operation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    /// Within the first timeout.
    First,
    /// This player said whom it waits for; one more timeout.
    Grace,
    /// The awaited peer said it waits for another: its verdict is awaited (once).
    Postponed,
}

/// The cost of one operation, from this player's account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseCost {
    /// The operation ([`TableOp::name`]).
    pub name: String,
    /// Messages and bytes this player sent in it; the rounds it added to the causal depth this
    /// player had seen (for a whole run, merge with [`merge_phases`]).
    pub cost: Cost,
    /// The causal depth this player had reached at its end.
    pub end_depth: u32,
}

/// One player's engine over a channel (see the [module docs](self)).
pub struct NetDriver<E: Engine, C: Channel> {
    seat: Seat<E>,
    chan: C,
    timeout: Duration,
    byes: BTreeSet<PartyId>,
    /// Peers that said they wait for another ([`Wire::Waiting`]) since the last progress.
    stuck: BTreeMap<PartyId, PartyId>,
    /// Peers told whom this player waits for since the last progress.
    told: BTreeSet<PartyId>,
    /// The first abort read during an echoed operation (kept while the echoes decide) and
    /// every peer that aborted.
    abort: Option<NetError>,
    aborted: BTreeSet<PartyId>,
    len: usize,
    cost: Cost,
    phases: Vec<PhaseCost>,
}

impl<E: Engine, C: Channel> core::fmt::Debug for NetDriver<E, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NetDriver")
            .field("me", &self.chan.me())
            .field("cost", &self.cost)
            .finish_non_exhaustive()
    }
}

impl<E: Engine, C: Channel> NetDriver<E, C> {
    /// Seats `engine` on `chan` and runs the session's setup; `timeout` bounds the wait for
    /// any operation's next step.
    pub fn start(engine: E, chan: C, timeout: Duration) -> Result<Self, NetError> {
        if engine.me() != chan.me() || engine.parties() != chan.players() {
            return Err(NetError::Config(format!(
                "the engine of {} at a table of {} cannot run on the channel of {} to {} players",
                engine.me(),
                engine.parties(),
                chan.me(),
                chan.players()
            )));
        }
        let keys = chan.broadcast_keys().ok_or_else(|| {
            NetError::Config("the channel carries no broadcast signing keys".into())
        })?;
        let mut driver = NetDriver {
            seat: Seat::new(engine, keys),
            chan,
            timeout,
            byes: BTreeSet::new(),
            stuck: BTreeMap::new(),
            told: BTreeSet::new(),
            abort: None,
            aborted: BTreeSet::new(),
            len: 0,
            cost: Cost::ZERO,
            phases: Vec::new(),
        };
        driver.run(&TableOp::Setup)?;
        Ok(driver)
    }

    /// This player's engine.
    pub fn engine(&self) -> &E {
        self.seat.engine()
    }

    /// The channel (for fault injection in tests).
    pub fn channel_mut(&mut self) -> &mut C {
        &mut self.chan
    }

    /// The channel.
    pub fn channel(&self) -> &C {
        &self.chan
    }

    /// The cost of every operation so far, from this player's account.
    pub fn phases(&self) -> &[PhaseCost] {
        &self.phases
    }

    /// Runs one operation at this player; on failure every peer is told why.
    pub fn run(&mut self, op: &TableOp) -> Result<Seen, NetError> {
        match self.step(op) {
            Ok(seen) => Ok(seen),
            Err(e) => {
                let heard = self.abort(&e);
                Err(e.with_later_claims(heard))
            }
        }
    }

    /// One operation; a peer's abort read meanwhile ends it, unless the echoes name someone.
    fn step(&mut self, op: &TableOp) -> Result<Seen, NetError> {
        let result = self.step_echoed(op);
        let Some(abort) = self.abort.take() else {
            return result;
        };
        match result {
            Err(e) if e.blamed().is_some() => Err(e),
            _ => Err(abort),
        }
    }

    fn step_echoed(&mut self, op: &TableOp) -> Result<Seen, NetError> {
        let before = (self.cost, self.seat.clock().now());
        let out = match self.seat.start(op) {
            Ok(out) => out,
            Err(e) => return Err(self.seat_error(e)),
        };
        self.send(out)?;
        let mut deadline = Deadline::after(self.timeout);
        let mut wait = Wait::First;
        while !self.seat.is_done() {
            if let Some(abort) = self.abort_settled() {
                return Err(abort);
            }
            let handed = self.seat.handed();
            if !self.receive_one(deadline)? {
                if let Some(abort) = self.abort.take() {
                    return Err(abort);
                }
                // A failed operation decides with the echoes that came.
                if let Some(e) = self.seat.give_up() {
                    return Err(self.seat_error(e));
                }
                let budget;
                (wait, budget) = match (wait, self.claimed_stuck()) {
                    // The awaited peer may itself be stuck on another: say whom this player
                    // waits for, and give the peer one more timeout to say the same.
                    (Wait::First, _) => {
                        self.say_waiting()?;
                        (Wait::Grace, self.timeout)
                    }
                    // It says it waits for another: its own verdict (its abort, which
                    // reports it) is due within two timeouts per honest player along the
                    // chain. The claim postpones this player's verdict once, that long.
                    (Wait::Grace, Some(_)) => (Wait::Postponed, self.postponement()),
                    _ => return Err(self.timed_out(op, wait)),
                };
                deadline = Deadline::after(budget);
            }
            if self.seat.handed() > handed {
                deadline = Deadline::after(self.timeout);
                wait = Wait::First;
                self.stuck.clear();
                self.told.clear();
            }
        }
        self.len += op.new_cards();
        let clock = self.seat.clock().now();
        self.cost.rounds = u64::from(clock);
        self.phases.push(PhaseCost {
            name: op.name().to_owned(),
            cost: Cost {
                messages: self.cost.messages - before.0.messages,
                bytes: self.cost.bytes - before.0.bytes,
                rounds: u64::from(clock.saturating_sub(before.1)),
            },
            end_depth: clock,
        });
        Ok(self.seat.take_seen().unwrap_or_default())
    }

    /// Waits for one frame until `deadline` and hands it to the seat; `false` if the deadline
    /// passed first.
    fn receive_one(&mut self, deadline: Deadline) -> Result<bool, NetError> {
        let frame = match self.chan.recv_by(deadline) {
            Ok(Some(frame)) => frame,
            Ok(None) => return Ok(false),
            Err(NetError::Disconnected { peer })
                if self.byes.contains(&peer) || self.aborted.contains(&peer) =>
            {
                return Ok(true)
            }
            Err(e) => return Err(e),
        };
        match Wire::from_bytes(&frame.payload, frame.from)? {
            Wire::Engine(payload) => self.offer(frame.from, frame.depth, payload, None)?,
            Wire::Signed { payload, signature } => {
                let sig = signature.try_into().map_err(|_| NetError::Malformed {
                    peer: frame.from,
                    reason: "a broadcast signature that is not 64 bytes".into(),
                })?;
                self.offer(frame.from, frame.depth, payload, Some(sig))?;
            }
            // The fresh-nonce round travels as echoes of operation 0.
            Wire::Echo(payload) if NonceMessage::is_one(&payload) => {
                let out = self.seat.offer_nonce(frame.from, frame.depth, &payload);
                let out = out.map_err(|e| self.seat_error(e))?;
                self.send(out)?;
            }
            Wire::Echo(payload) => {
                let out = self.seat.offer_echo(frame.from, frame.depth, payload);
                let out = out.map_err(|e| self.seat_error(e))?;
                self.send(out)?;
            }
            // In an echoed operation the others' echoes still decide (see `step`); a verdict
            // that names someone comes before the abort's claim.
            Wire::Abort { claim, reason } => {
                let abort = NetError::Aborted {
                    peer: frame.from,
                    claim: claim.map(PartyId),
                    reason,
                    later: Vec::new(),
                };
                self.aborted.insert(frame.from);
                let first = match self.abort.take() {
                    Some(first) => first.with_later_claims(abort.claims()),
                    None => abort,
                };
                // Every abort counts as its sender's (empty) echo, so the round still ends
                // when every peer has echoed or aborted. Without a round, what the others
                // already sent is still judged (`abort_settled` says when nothing more can
                // come), so the verdict does not depend on whether the abort came first.
                self.abort = Some(first);
                if let Some(out) = self.seat.peer_aborted(frame.from) {
                    let out = out.map_err(|e| self.seat_error(e))?;
                    self.send(out)?;
                }
            }
            Wire::Bye => {
                self.byes.insert(frame.from);
            }
            // Kept once per peer until the next progress, so it cannot grow. A peer waiting
            // for this player learns at once whom this player itself awaits (once per wait),
            // so an honest stuck player answers before the waiting one's grace ends.
            Wire::Waiting { on } => {
                self.stuck.entry(frame.from).or_insert(PartyId(on));
                if PartyId(on) == self.chan.me() && self.told.insert(frame.from) {
                    if let Some(&mine) = self.seat.awaiting().first() {
                        let notice = Wire::Waiting { on: mine.0 }.to_bytes()?;
                        // Best effort, as in `say_waiting`.
                        let _ = self.chan.send(frame.from, 0, &notice);
                    }
                }
            }
        }
        Ok(true)
    }

    fn offer(
        &mut self,
        from: PartyId,
        depth: u32,
        payload: Vec<u8>,
        sig: Option<facedown_core::echo::Sig>,
    ) -> Result<(), NetError> {
        let out = self.seat.offer(from, depth, payload, sig);
        let out = out.map_err(|e| self.seat_error(e))?;
        self.check_waiting()?;
        self.send(out)
    }

    /// The verdict of a seat error. When it is only that a peer gave up (every broadcast
    /// agreeing), that peer's abort follows and says why: it is read (within a timeout) and
    /// returned, with its claim, unless the peer already aborted (then `step` returns that).
    fn seat_error(&mut self, e: facedown_core::engine::SeatError<E::Error>) -> NetError {
        let Some(peer) = e.gave_up().filter(|p| !self.aborted.contains(p)) else {
            return NetError::protocol(e);
        };
        let deadline = Deadline::after(self.timeout);
        let mut later = Vec::new();
        while let Ok(Some(frame)) = self.chan.recv_by(deadline) {
            if let Ok(Wire::Abort { claim, reason }) = Wire::from_bytes(&frame.payload, frame.from)
            {
                let claim = claim.map(PartyId);
                if frame.from == peer {
                    return NetError::Aborted {
                        peer,
                        claim,
                        reason,
                        later,
                    };
                }
                later.extend(claim.map(|c| (frame.from, c)));
            }
        }
        NetError::protocol(e)
    }

    /// The abort read during this operation, once the engine awaits only peers that
    /// aborted: nothing more that could be judged is on its way.
    fn abort_settled(&mut self) -> Option<NetError> {
        self.abort.as_ref()?;
        let awaiting = self.seat.awaiting();
        if awaiting.iter().any(|p| !self.aborted.contains(p)) {
            return None;
        }
        self.abort.take()
    }

    /// Tells every peer whom this player has waited a timeout for (once per wait).
    fn say_waiting(&mut self) -> Result<(), NetError> {
        let Some(&on) = self.seat.awaiting().first() else {
            return Ok(());
        };
        let frame = Wire::Waiting { on: on.0 }.to_bytes()?;
        self.told.extend(self.peers());
        for p in self.peers() {
            // Best effort: a peer that is gone is named by the wait itself.
            let _ = self.chan.send(p, 0, &frame);
        }
        Ok(())
    }

    /// Whom the awaited peer says it waits for, if it said so (and not this player).
    fn claimed_stuck(&self) -> Option<PartyId> {
        let peer = *self.seat.awaiting().first()?;
        let me = self.chan.me();
        self.stuck.get(&peer).copied().filter(|&on| on != me)
    }

    /// How long a claim to be stuck postpones the verdict: two timeouts (the claimant's own
    /// deadline and grace) per honest player that can stand between it and a cheater, and
    /// the abort's linger.
    fn postponement(&self) -> Duration {
        let hops = u32::try_from(self.chan.players().saturating_sub(2).max(1)).unwrap_or(1);
        self.timeout.saturating_mul(2 * hops) + ABORT_LINGER
    }

    fn timed_out(&self, op: &TableOp, wait: Wait) -> NetError {
        let awaiting = self.seat.awaiting();
        if self.seat.is_echoing() {
            // A missing echo is no evidence: its sender may itself be waiting for a cheater.
            return NetError::Unanswered {
                missing: awaiting,
                what: "echoes".into(),
                after: self.timeout,
            };
        }
        let peer = awaiting.first().copied().unwrap_or(self.chan.me());
        let what = match (wait, self.claimed_stuck()) {
            (Wait::Postponed, Some(on)) => format!(
                "its part of the {} operation; it said it waits for {on}, then neither went \
                 on nor gave up",
                op.name()
            ),
            _ => format!(
                "its part of the {} operation, and then for its abort saying whom it waits for",
                op.name()
            ),
        };
        let after = match wait {
            Wait::Postponed => self.timeout.saturating_mul(2) + self.postponement(),
            _ => self.timeout.saturating_mul(2),
        };
        NetError::Timeout { peer, what, after }
    }

    fn check_waiting(&self) -> Result<(), NetError> {
        let inbox = self.seat.inbox();
        if inbox.len() <= MAX_WAITING_FRAMES && inbox.bytes() <= MAX_WAITING_BYTES {
            return Ok(());
        }
        Err(NetError::Flooded {
            peer: inbox.first_sender().unwrap_or(self.chan.me()),
            frames: u32::try_from(inbox.len()).unwrap_or(u32::MAX),
            bytes: inbox.bytes() as u64,
        })
    }

    fn send(&mut self, out: Vec<Stamped>) -> Result<(), NetError> {
        let me = self.chan.me();
        for m in out {
            let recipients: Vec<PartyId> = match m.to {
                To::Party(p) => vec![p],
                To::All => PartyId::all(self.chan.players())
                    .filter(|&p| p != me)
                    .collect(),
            };
            let len = delivery_bytes(&m.payload, m.signature.as_ref());
            let frame = match (m.kind, m.signature) {
                (Kind::Engine, None) => Wire::Engine(m.payload),
                (Kind::Engine, Some(s)) => Wire::Signed {
                    payload: m.payload,
                    signature: s.sig.to_vec(),
                },
                (Kind::Echo | Kind::Nonce, _) => Wire::Echo(m.payload),
            }
            .to_bytes()?;
            for to in recipients {
                self.chan.send(to, m.depth, &frame)?;
                self.cost.messages += 1;
                self.cost.bytes += len;
            }
        }
        Ok(())
    }

    fn peers(&self) -> Vec<PartyId> {
        let me = self.chan.me();
        PartyId::all(self.chan.players())
            .filter(|&p| p != me)
            .collect()
    }

    /// Tells every peer why this player stops (best effort: a link may be gone already), then
    /// lingers until every peer has closed its link, at most [`ABORT_LINGER`] (or the timeout):
    /// closing a socket with unread data resets it, and the peer could lose the abort.
    /// Returns the claims of the aborts that arrived meanwhile (`(accuser, accused)`): what is
    /// buffered is read before a closed link counts as the end.
    fn abort(&mut self, e: &NetError) -> Vec<(PartyId, PartyId)> {
        let abort = Wire::Abort {
            claim: e.blamed().map(|p| p.0),
            reason: e.to_string(),
        };
        if let Ok(payload) = abort.to_bytes() {
            for p in self.peers() {
                let _ = self.chan.send(p, 0, &payload);
            }
        }
        let deadline = Deadline::after(self.timeout.min(ABORT_LINGER));
        let mut open: BTreeSet<PartyId> = self.peers().into_iter().collect();
        let mut heard = Vec::new();
        while !open.is_empty() {
            match self.chan.recv_by(deadline) {
                Ok(Some(frame)) => {
                    if let Ok(Wire::Abort { claim: Some(c), .. }) =
                        Wire::from_bytes(&frame.payload, frame.from)
                    {
                        heard.push((frame.from, PartyId(c)));
                    }
                }
                Err(NetError::Disconnected { peer }) => {
                    open.remove(&peer);
                }
                Ok(None) | Err(_) => break,
            }
        }
        heard
    }

    /// Says goodbye and waits for everyone's, then hands back the engine and the channel.
    pub fn close(mut self) -> Result<(E, C), NetError> {
        match self.goodbye() {
            Ok(()) => Ok((self.seat.into_engine(), self.chan)),
            Err(e) => {
                let heard = self.abort(&e);
                Err(e.with_later_claims(heard))
            }
        }
    }

    fn goodbye(&mut self) -> Result<(), NetError> {
        let payload = Wire::Bye.to_bytes()?;
        for p in self.peers() {
            self.chan.send(p, 0, &payload)?;
        }
        let deadline = Deadline::after(self.timeout);
        let mut dropped = OffProtocol::new(self.chan.limits());
        while self.byes.len() + 1 < self.chan.players() {
            let missing = self
                .peers()
                .into_iter()
                .find(|p| !self.byes.contains(p))
                .unwrap_or(self.chan.me());
            match self.chan.recv_by(deadline) {
                // Nothing but a goodbye is expected now: anything else is dropped, and counted.
                Ok(Some(frame)) => match Wire::from_bytes(&frame.payload, frame.from)? {
                    Wire::Abort { claim, reason } => {
                        return Err(NetError::Aborted {
                            peer: frame.from,
                            claim: claim.map(PartyId),
                            reason,
                            later: Vec::new(),
                        })
                    }
                    Wire::Bye => {
                        self.byes.insert(frame.from);
                    }
                    Wire::Engine(_)
                    | Wire::Signed { .. }
                    | Wire::Echo(_)
                    | Wire::Waiting { .. } => dropped.note(&frame)?,
                },
                // A missing goodbye is no evidence: its sender may be waiting for a cheater.
                Ok(None) => {
                    return Err(NetError::Unanswered {
                        missing: vec![missing],
                        what: "goodbyes".into(),
                        after: self.timeout,
                    })
                }
                Err(NetError::Disconnected { peer }) if self.byes.contains(&peer) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl<E: Engine, C: Channel> FaceDownTable for NetDriver<E, C> {
    type Error = NetError;

    fn capabilities(&self) -> Capabilities {
        E::capabilities(self.chan.players())
    }

    fn parties(&self) -> usize {
        self.chan.players()
    }

    fn len(&self) -> usize {
        self.len
    }

    fn apply(&mut self, op: &TableOp) -> Result<Seen, NetError> {
        self.run(op)
    }

    /// What this player sent; rounds are the deepest causal depth it saw.
    fn cost(&self) -> Cost {
        self.cost
    }
}

/// The phases of a run from every player's account: messages and bytes summed over players,
/// rounds the growth of the deepest causal depth any player reached.
pub fn merge_phases(per_player: &[&[PhaseCost]]) -> Vec<PhaseCost> {
    let mut out: Vec<PhaseCost> = Vec::new();
    for phases in per_player {
        for (k, p) in phases.iter().enumerate() {
            match out.get_mut(k) {
                Some(m) => {
                    m.cost.messages += p.cost.messages;
                    m.cost.bytes += p.cost.bytes;
                    m.end_depth = m.end_depth.max(p.end_depth);
                }
                None => out.push(p.clone()),
            }
        }
    }
    let mut before = 0;
    for m in &mut out {
        m.cost.rounds = u64::from(m.end_depth.saturating_sub(before));
        before = before.max(m.end_depth);
    }
    out
}
