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
//! The module exists only with the `adversary` feature, which only test builds enable.

use std::fmt;
use std::sync::Arc;

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

/// An honest engine that deviates by its [`Rule`]s (see the [module docs](self)).
#[derive(Debug)]
pub struct Adversary<E> {
    inner: E,
    rules: Vec<Rule>,
    sent: usize,
    deviated: usize,
}

impl<E: Engine> Adversary<E> {
    /// `inner`, deviating by `rules` (every rule that applies to a message, in order).
    pub fn new(inner: E, rules: Vec<Rule>) -> Adversary<E> {
        Adversary {
            inner,
            rules,
            sent: 0,
            deviated: 0,
        }
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
        let step = self.inner.start(op)?;
        Ok(self.deviate(step))
    }

    fn receive(&mut self, from: PartyId, payload: &[u8]) -> Result<Step, E::Error> {
        let step = self.inner.receive(from, payload)?;
        Ok(self.deviate(step))
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
