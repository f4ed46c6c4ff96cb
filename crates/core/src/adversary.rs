//! A configurable malicious player, for tests: any [`Engine`] wrapped so that it deviates at
//! chosen messages.
//!
//! [`Adversary`] runs the honest engine and rewrites what it sends: at a chosen message
//! ([`At`]) it can **forge** it (other bytes for everyone), **omit** it to a peer, **withhold**
//! it from everyone (from a message on: a player that falls silent), **replay** it, or
//! **equivocate** (another version to one peer, the original to the others). It is an
//! engine itself, so the same cheater runs in memory ([`crate::LocalDriver`]) and over any
//! network driver. A forged abort is a control message of the network driver, not an engine
//! message; the network tests send it themselves.
//!
//! An edit can only make bytes that are *malformed* or that the cheater could have computed
//! from the message alone. A second **valid** version of a message that depends on the
//! cheater's secrets and randomness (another shuffle with its proof, another layer
//! commitment) comes from a [`Twin`]: a second copy of the cheater's engine, built from a
//! [`ForkRng`] with the same seed, that is handed every message the cheater receives and
//! draws other randomness from a chosen operation on. From then on one peer gets the twin's
//! messages and the others the cheater's; the seat signs both, so the peers hold two correctly
//! signed, different broadcasts.
//!
//! The module exists only with the `adversary` feature, which only test builds enable.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rand::{CryptoRng, RngCore};
use rand_chacha::ChaCha20Rng;

use crate::engine::{Engine, Outgoing, Step, To};
use crate::op::TableOp;
use crate::table::Capabilities;
use crate::PartyId;

/// A rewriting of a message's bytes.
pub type Edit = Arc<dyn Fn(&[u8]) -> Vec<u8> + Send + Sync>;

/// A test on a message's bytes.
pub type Predicate = Arc<dyn Fn(&[u8]) -> bool + Send + Sync>;

/// Which of the cheater's messages a deviation applies to.
#[derive(Clone)]
pub enum At {
    /// The `k`-th message it sends in the session (from 0; a broadcast is one message).
    Message(usize),
    /// Every message from the `k`-th on.
    From(usize),
    /// Every message whose bytes satisfy the predicate.
    Matching(Predicate),
}

/// What the cheater does to a chosen message.
#[derive(Clone)]
pub enum Deviation {
    /// Sends other bytes, to every recipient.
    Forge(Edit),
    /// Does not send it to `to` (the others still get it).
    Omit {
        /// The peer left out.
        to: PartyId,
    },
    /// Sends it twice.
    Replay,
    /// Sends it to nobody (with [`At::From`]: a player that falls silent).
    Withhold,
    /// Sends `to` another version, every other recipient the original.
    Equivocate {
        /// The peer that gets the other version.
        to: PartyId,
        /// How the other version is made.
        edit: Edit,
    },
}

/// One deviation and where it applies.
#[derive(Clone)]
pub struct Rule {
    /// Where.
    pub at: At,
    /// What.
    pub deviation: Deviation,
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = match &self.at {
            At::Message(k) => format!("message {k}"),
            At::From(k) => format!("messages from {k} on"),
            At::Matching(_) => "matching messages".to_owned(),
        };
        let what = match &self.deviation {
            Deviation::Forge(_) => "forge".to_owned(),
            Deviation::Omit { to } => format!("omit to {to}"),
            Deviation::Replay => "replay".to_owned(),
            Deviation::Withhold => "withhold".to_owned(),
            Deviation::Equivocate { to, .. } => format!("equivocate to {to}"),
        };
        write!(f, "{what} at {at}")
    }
}

/// A random source that draws from one stream until it is told to [`Fork`], then from
/// another: a cheater's [`Twin`] is the cheater's own engine up to the fork (the same keys and
/// nonces) and a different one after it.
#[derive(Clone, Debug)]
pub struct ForkRng {
    before: ChaCha20Rng,
    after: ChaCha20Rng,
    forked: Arc<AtomicBool>,
}

/// The switch of a [`ForkRng`].
#[derive(Clone, Debug, Default)]
pub struct Fork(Arc<AtomicBool>);

impl Fork {
    /// From now on the source draws from its second stream.
    pub fn now(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl ForkRng {
    /// Draws from `before`, and from `after` once the returned [`Fork`] is thrown.
    pub fn new(before: ChaCha20Rng, after: ChaCha20Rng) -> (ForkRng, Fork) {
        let fork = Fork::default();
        let rng = ForkRng {
            before,
            after,
            forked: Arc::clone(&fork.0),
        };
        (rng, fork)
    }

    /// A source that never forks (an honest player's, of the same type as a cheater's).
    pub fn unforked(rng: ChaCha20Rng) -> ForkRng {
        ForkRng::new(rng.clone(), rng).0
    }

    fn current(&mut self) -> &mut ChaCha20Rng {
        if self.forked.load(Ordering::SeqCst) {
            &mut self.after
        } else {
            &mut self.before
        }
    }
}

impl RngCore for ForkRng {
    fn next_u32(&mut self) -> u32 {
        self.current().next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        self.current().next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.current().fill_bytes(dest);
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.current().try_fill_bytes(dest)
    }
}

impl CryptoRng for ForkRng {}

/// A second copy of the cheater's engine whose messages one peer gets from an operation on
/// (see the [module docs](self)).
pub struct Twin<E> {
    /// The copy, built like the cheater's engine from a [`ForkRng`] of the same seed.
    pub engine: E,
    /// Its switch, thrown when the twin starts operation number `from_op`.
    pub fork: Fork,
    /// The operation (from 1, the setup) from which the twin diverges.
    pub from_op: usize,
    /// The peer that gets the twin's messages from then on.
    pub to: PartyId,
}

impl<E> fmt::Debug for Twin<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a twin for {} from operation {}", self.to, self.from_op)
    }
}

/// An honest engine that deviates by its [`Rule`]s, or sends one peer its [`Twin`]'s
/// messages (see the [module docs](self)).
#[derive(Debug)]
pub struct Adversary<E> {
    inner: E,
    rules: Vec<Rule>,
    sent: usize,
    deviated: usize,
    twin: Option<Twin<E>>,
    ops: usize,
}

impl<E: Engine> Adversary<E> {
    /// `inner`, deviating by `rules` (every rule that applies to a message, in order).
    pub fn new(inner: E, rules: Vec<Rule>) -> Adversary<E> {
        Adversary {
            inner,
            rules,
            sent: 0,
            deviated: 0,
            twin: None,
            ops: 0,
        }
    }

    /// `inner`, honest, except that from `twin.from_op` on `twin.to` gets the twin's messages.
    pub fn with_twin(inner: E, twin: Twin<E>) -> Adversary<E> {
        let mut adversary = Adversary::new(inner, Vec::new());
        adversary.twin = Some(twin);
        adversary
    }

    /// The honest engine inside.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// How many messages it has deviated on so far (a test's check that the attack ran).
    pub fn deviated(&self) -> usize {
        self.deviated
    }

    fn recipients(&self, to: To) -> Vec<PartyId> {
        match to {
            To::Party(p) => vec![p],
            To::All => PartyId::all(self.inner.parties())
                .filter(|&p| p != self.inner.me())
                .collect(),
        }
    }

    /// One outgoing message after every rule that applies.
    fn rewrite(&mut self, m: Outgoing) -> Vec<Outgoing> {
        let k = self.sent;
        self.sent += 1;
        let applies: Vec<Deviation> = self
            .rules
            .iter()
            .filter(|r| match &r.at {
                At::Message(n) => *n == k,
                At::From(n) => *n <= k,
                At::Matching(f) => f(&m.payload),
            })
            .map(|r| r.deviation.clone())
            .collect();
        if applies.is_empty() {
            return vec![m];
        }
        self.deviated += 1;
        // Per recipient, the bytes each gets (possibly none, possibly twice).
        let mut copies: Vec<(PartyId, Vec<Vec<u8>>)> = self
            .recipients(m.to)
            .into_iter()
            .map(|p| (p, vec![m.payload.clone()]))
            .collect();
        for d in applies {
            for (p, bytes) in &mut copies {
                match &d {
                    Deviation::Forge(edit) => bytes.iter_mut().for_each(|b| *b = edit(b)),
                    Deviation::Omit { to } if to == p => bytes.clear(),
                    Deviation::Withhold => bytes.clear(),
                    Deviation::Replay => {
                        let again = bytes.clone();
                        bytes.extend(again);
                    }
                    Deviation::Equivocate { to, edit } if to == p => {
                        bytes.iter_mut().for_each(|b| *b = edit(b));
                    }
                    Deviation::Omit { .. } | Deviation::Equivocate { .. } => {}
                }
            }
        }
        // The same bytes once to everyone stay one broadcast.
        let everyone = m.to == To::All
            && copies
                .iter()
                .all(|(_, b)| b.len() == 1 && b == &copies[0].1);
        if everyone {
            let payload = copies[0].1[0].clone();
            return vec![Outgoing {
                to: To::All,
                after: m.after,
                payload,
            }];
        }
        copies
            .into_iter()
            .flat_map(|(p, bytes)| {
                bytes.into_iter().map(move |payload| Outgoing {
                    to: To::Party(p),
                    after: m.after,
                    payload,
                })
            })
            .collect()
    }

    fn deviate(&mut self, step: Step) -> Step {
        let send = step
            .send
            .into_iter()
            .flat_map(|m| self.rewrite(m))
            .collect();
        Step {
            send,
            done: step.done,
        }
    }

    /// The twin's step on the same input; once it has diverged, its recipient gets the twin's
    /// messages in place of the cheater's. A twin that fails is dropped (the cheater goes on).
    fn with_twins_step(
        &mut self,
        step: Step,
        twin_step: impl FnOnce(&mut E) -> Result<Step, E::Error>,
    ) -> Step {
        let Some(twin) = self.twin.as_mut() else {
            return step;
        };
        let Ok(theirs) = twin_step(&mut twin.engine) else {
            self.twin = None;
            return step;
        };
        if self.ops < twin.from_op {
            return step;
        }
        let to = twin.to;
        let mut send: Vec<Outgoing> = step
            .send
            .into_iter()
            .flat_map(|m| self.rewrite_for(m, |p| p != to))
            .collect();
        let twins: Vec<Outgoing> = theirs
            .send
            .into_iter()
            .flat_map(|m| self.rewrite_for(m, |p| p == to))
            .collect();
        self.deviated += usize::from(!twins.is_empty());
        send.extend(twins);
        Step {
            send,
            done: step.done,
        }
    }

    /// `m`, addressed to those of its recipients that `keep` accepts, one by one.
    fn rewrite_for(&self, m: Outgoing, keep: impl Fn(PartyId) -> bool) -> Vec<Outgoing> {
        self.recipients(m.to)
            .into_iter()
            .filter(|&p| keep(p))
            .map(|p| Outgoing {
                to: To::Party(p),
                after: m.after,
                payload: m.payload.clone(),
            })
            .collect()
    }
}

impl<E: Engine> Engine for Adversary<E> {
    type Error = E::Error;

    fn capabilities(parties: usize) -> Capabilities {
        E::capabilities(parties)
    }

    fn me(&self) -> PartyId {
        self.inner.me()
    }

    fn parties(&self) -> usize {
        self.inner.parties()
    }

    fn start(&mut self, op: &TableOp) -> Result<Step, E::Error> {
        self.ops += 1;
        let step = self.inner.start(op)?;
        let step = self.deviate(step);
        if let Some(twin) = self.twin.as_ref().filter(|t| t.from_op == self.ops) {
            twin.fork.now();
        }
        Ok(self.with_twins_step(step, |twin| twin.start(op)))
    }

    fn receive(&mut self, from: PartyId, payload: &[u8]) -> Result<Step, E::Error> {
        let step = self.inner.receive(from, payload)?;
        let step = self.deviate(step);
        Ok(self.with_twins_step(step, |twin| twin.receive(from, payload)))
    }

    fn awaiting(&self) -> Vec<PartyId> {
        self.inner.awaiting()
    }

    fn echoes(&self, op: &TableOp) -> bool {
        self.inner.echoes(op)
    }

    fn is_broadcast(&self, payload: &[u8]) -> bool {
        self.inner.is_broadcast(payload)
    }
}
