//! The dealer's own deal inside an engine: the shuffle `All` runs this player's
//! [`Player`](crate::player::Player) (commitments and helper halves), openings go through the
//! scheme's routes, and the end of the game opens every commitment, exchanges the envelopes
//! received privately and runs the audit on the whole signed transcript.

use std::collections::{BTreeMap, BTreeSet};

use facedown_core::engine::{After, Step, To};
use facedown_core::table::TableError;
use facedown_core::{Opening, PartyId, Perm, Seen, Symbol};
use rand::{CryptoRng, RngCore};

use super::{envelope_step, DealerEngine, DealerMessage, EngineError, Pending, Result, Stage};
use crate::audit::{audit_with, Signatures};
use crate::error::DealerError;
use crate::messages::{Body, Envelope};
use crate::player::{Params, Player, PlayerAwaitingSetup, PlayerDone, PlayerReady};
use crate::scheme::{Half, Operation, Recipient, Route, Scheme};
use crate::transcript::Transcript;

/// A deal at one player.
pub(super) struct Deal {
    params: Params,
    /// The row as it lay when dealt: `A(i)` names one of its cards.
    base: Vec<Symbol>,
    /// Inverses of the public rearrangements since the deal, in order.
    after: Vec<Perm>,
    ready: Option<PlayerReady>,
    operations: Vec<Operation>,
}

impl Deal {
    /// The number of cards dealt: positions past it are the appendix of later commitments.
    pub(super) fn len(&self) -> usize {
        self.base.len()
    }

    pub(super) fn rearrange(&mut self, perm: &Perm) -> Result<()> {
        if perm.len() != self.base.len() {
            return Err(TableError::PermSize {
                got: perm.len(),
                len: self.base.len(),
            }
            .into());
        }
        self.after.push(perm.inverse());
        Ok(())
    }

    /// The deal position under row position `j`.
    fn position(&self, j: usize) -> usize {
        self.after.iter().rev().fold(j, |x, inv| inv.apply(x))
    }
}

/// Where a dealt card goes in the opening: the `k`-th public position, or a card of private
/// group `g` (in order).
#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    Public(usize),
    Private(usize),
}

/// The step of a deal under way at one player.
pub(super) enum Phase {
    Setup {
        waiting: Box<PlayerAwaitingSetup>,
        owed: BTreeMap<PartyId, usize>,
        received: Vec<Envelope>,
    },
    Open {
        expected: BTreeMap<(u32, u16), PartyId>,
        targets: Vec<(u32, Target)>,
        groups: usize,
    },
    Reveal {
        done: Box<PlayerDone>,
        waiting: BTreeSet<PartyId>,
    },
    Exchange {
        envelopes: Vec<Envelope>,
        waiting: BTreeSet<PartyId>,
    },
}

impl Phase {
    pub(super) fn awaiting(&self) -> Vec<PartyId> {
        match self {
            Phase::Setup { owed, .. } => owed
                .iter()
                .filter(|(_, &k)| k > 0)
                .map(|(p, _)| *p)
                .collect(),
            Phase::Open { expected, .. } => {
                let set: BTreeSet<PartyId> = expected.values().copied().collect();
                set.into_iter().collect()
            }
            Phase::Reveal { waiting, .. } | Phase::Exchange { waiting, .. } => {
                waiting.iter().copied().collect()
            }
        }
    }
}

fn unexpected(from: PartyId, what: &str) -> EngineError {
    DealerError::Unexpected {
        from,
        what: what.into(),
    }
    .into()
}

fn send_all(envelopes: &[Envelope], after: After) -> Step {
    let mut step = Step::wait();
    for env in envelopes {
        step.send.extend(envelope_step(env, after).send);
    }
    step
}

/// The setup messages `me` awaits: every other player's commitments, and the helper halves
/// the last player owes it.
fn owed(scheme: &Scheme, me: PartyId) -> BTreeMap<PartyId, usize> {
    let mut owed: BTreeMap<PartyId, usize> = PartyId::all(scheme.players)
        .filter(|&p| p != me)
        .map(|p| (p, 1))
        .collect();
    for pair in &scheme.pairs {
        for holder in [pair.outer_holder, pair.inner_holder] {
            if holder == me {
                *owed.entry(scheme.last()).or_default() += 1;
            }
        }
    }
    owed
}

impl<R: RngCore + CryptoRng> DealerEngine<R> {
    /// The shuffle `All`: the dealer's deal of the row as it lies.
    pub(super) fn begin_deal(&mut self) -> Result<Step> {
        let (me, parties, key, deviation) =
            (self.me, self.parties, self.key.clone(), self.deviation);
        if parties < 3 {
            return Err(EngineError::DealPlayers(parties));
        }
        let Stage::Table(t) = &mut self.stage else {
            return Err(EngineError::OutOfOrder("before the setup"));
        };
        if !matches!(t.pending, Pending::Idle) {
            return Err(EngineError::OutOfOrder("during another operation"));
        }
        if t.deal.is_some() {
            return Err(EngineError::AfterDeal("further shuffles"));
        }
        if t.row.has_secrets() {
            return Err(EngineError::DealOverSecrets);
        }
        let base = t.row.as_it_lies();
        // The layer model goes on past the dealt cards: commitments made after the deal (a
        // game's announcements) form a row of their own, positions `base.len()..`.
        t.row = super::layers::Row::default();
        t.evidence = super::evidence::Evidence::default();
        let params = Params {
            scheme: Scheme::general(parties, base.len())?,
            session: t.session,
            roster: t.roster.clone(),
        };
        let player = Player::new_with_rng(params.clone(), me, key, deviation, &mut self.rng)?;
        let (waiting, out) = player.commit();
        t.pending = Pending::Deal(Phase::Setup {
            waiting: Box::new(waiting),
            owed: owed(&params.scheme, me),
            received: Vec::new(),
        });
        t.deal = Some(Deal {
            params,
            base,
            after: Vec::new(),
            ready: None,
            operations: Vec::new(),
        });
        Ok(send_all(&out, After::Start))
    }

    pub(super) fn deal_envelope(
        &mut self,
        phase: Phase,
        from: PartyId,
        env: Envelope,
    ) -> Result<Step> {
        if env.from != from {
            return Err(DealerError::Malformed {
                peer: from,
                reason: format!("it relayed a message of {} as its own", env.from),
            }
            .into());
        }
        match phase {
            Phase::Setup {
                waiting,
                mut owed,
                mut received,
            } => {
                if let Some(k) = owed.get_mut(&from).filter(|k| **k > 0) {
                    *k -= 1;
                }
                received.push(env);
                if owed.values().any(|&k| k > 0) {
                    return self.park(Phase::Setup {
                        waiting,
                        owed,
                        received,
                    });
                }
                let ready = waiting.receive_setup(&received)?;
                self.deal_mut()?.ready = Some(ready);
                Ok(Step::done(Seen::default()))
            }
            Phase::Open {
                mut expected,
                targets,
                groups,
            } => {
                let Body::Value { op, hop, .. } = env.body else {
                    return Err(unexpected(from, "a message other than a value during play"));
                };
                if expected.remove(&(op, hop)) != Some(from) {
                    return Err(unexpected(from, "a value no opening awaits from it"));
                }
                let deal = self.deal_mut()?;
                let ready = deal
                    .ready
                    .as_mut()
                    .ok_or(EngineError::OutOfOrder("not dealt"))?;
                let (out, _) = ready.receive(&env)?;
                let step = send_all(&out, After::Received);
                if !expected.is_empty() {
                    self.park(Phase::Open {
                        expected,
                        targets,
                        groups,
                    })?;
                    return Ok(step);
                }
                let seen = self.dealt_seen(&targets, groups)?;
                Ok(Step {
                    done: Some(seen),
                    ..step
                })
            }
            Phase::Reveal {
                mut done,
                mut waiting,
            } => {
                if !waiting.remove(&from) {
                    return Err(unexpected(from, "a second set of openings"));
                }
                done.receive_reveal(&env)?;
                if !waiting.is_empty() {
                    return self.park(Phase::Reveal { done, waiting });
                }
                self.exchange(*done)
            }
            Phase::Exchange { .. } => Err(unexpected(from, "an envelope during the exchange")),
        }
    }

    fn deal_mut(&mut self) -> Result<&mut Deal> {
        self.table()?
            .deal
            .as_mut()
            .ok_or(EngineError::OutOfOrder("not dealt"))
    }

    fn park(&mut self, phase: Phase) -> Result<Step> {
        self.table()?.pending = Pending::Deal(phase);
        Ok(Step::wait())
    }

    /// An opening after the deal: each position through the scheme's route.
    pub(super) fn open_dealt(&mut self, opening: &Opening) -> Result<Step> {
        let me = self.me;
        let deal = self.deal_mut()?;
        let scheme = deal.params.scheme.clone();
        let mut openings: Vec<(Target, usize, Route)> = opening
            .public
            .iter()
            .enumerate()
            .map(|(k, &j)| (Target::Public(k), j, Route::Public))
            .collect();
        for (g, (p, ps)) in opening.private.iter().enumerate() {
            let route = scheme.private_route(*p)?;
            openings.extend(ps.iter().map(|&j| (Target::Private(g), j, route)));
        }
        let mut expected = BTreeMap::new();
        let mut targets = Vec::with_capacity(openings.len());
        let mut out = Vec::new();
        for (target, j, route) in openings {
            let id = deal.operations.len() as u32;
            let position = u16::try_from(deal.position(j))
                .map_err(|_| EngineError::TooLong(deal.base.len()))?;
            let op = Operation {
                id,
                position,
                route,
            };
            for (k, hop) in scheme.plan(route)?.hops.iter().enumerate() {
                let to_me = match hop.to {
                    Recipient::Party(p) => p == me,
                    Recipient::All => hop.from != me,
                };
                if to_me {
                    expected.insert((id, k as u16), hop.from);
                }
            }
            let ready = deal
                .ready
                .as_mut()
                .ok_or(EngineError::OutOfOrder("not dealt"))?;
            out.extend(ready.schedule(op)?);
            deal.operations.push(op);
            targets.push((id, target));
        }
        let step = send_all(&out, After::Start);
        let groups = opening.private.len();
        if expected.is_empty() {
            let seen = self.dealt_seen(&targets, groups)?;
            return Ok(Step {
                done: Some(seen),
                ..step
            });
        }
        self.park(Phase::Open {
            expected,
            targets,
            groups,
        })?;
        Ok(step)
    }

    /// What this player learned of the opening's operations.
    fn dealt_seen(&mut self, targets: &[(u32, Target)], groups: usize) -> Result<Seen> {
        let deal = self.deal_mut()?;
        let ready = deal
            .ready
            .as_ref()
            .ok_or(EngineError::OutOfOrder("not dealt"))?;
        let learned = &ready.view().learned;
        let mut public: Vec<Option<Symbol>> = Vec::new();
        let mut private: Vec<Option<Vec<Symbol>>> = vec![None; groups];
        for &(id, target) in targets {
            let card = learned
                .iter()
                .find(|l| l.op == id)
                .and_then(|l| deal.base.get(usize::from(l.card)).copied());
            match target {
                Target::Public(k) => {
                    public.resize(public.len().max(k + 1), None);
                    public[k] = card;
                }
                Target::Private(g) => {
                    if let Some(card) = card {
                        private[g].get_or_insert_with(Vec::new).push(card);
                    }
                }
            }
        }
        let public =
            public
                .into_iter()
                .collect::<Option<Vec<_>>>()
                .ok_or(EngineError::OutOfOrder(
                    "a public card that was never learned",
                ))?;
        Ok(Seen { public, private })
    }

    /// The end of a game with a deal: every player opens every commitment.
    pub(super) fn finish_deal(&mut self) -> Result<Step> {
        let (me, parties) = (self.me, self.parties);
        let deal = self.deal_mut()?;
        let ready = deal
            .ready
            .take()
            .ok_or(EngineError::OutOfOrder("not dealt"))?;
        let (done, env) = ready.reveal();
        let waiting = PartyId::all(parties).filter(|&p| p != me).collect();
        self.park(Phase::Reveal {
            done: Box::new(done),
            waiting,
        })?;
        Ok(envelope_step(&env, After::Start))
    }

    /// Every opening is in: send the others what this player received privately **and what
    /// it sent privately**, so that an envelope one side leaves out still reaches the audit
    /// from the other side, and nobody is blamed for a message he did send.
    fn exchange(&mut self, done: PlayerDone) -> Result<Step> {
        let (me, parties) = (self.me, self.parties);
        let view = done.into_view();
        let private: Vec<Envelope> = view
            .received
            .iter()
            .chain(&view.sent)
            .filter(|e| e.to != Recipient::All)
            .cloned()
            .collect();
        let envelopes = view.sent.iter().chain(&view.received).cloned().collect();
        let waiting = PartyId::all(parties).filter(|&p| p != me).collect();
        self.park(Phase::Exchange { envelopes, waiting })?;
        let payload = DealerMessage::Transcript(private).to_bytes();
        Ok(Step::wait().with(To::All, After::Everything, payload))
    }

    /// Another player's private envelopes, received and sent. Each must be one the relayer
    /// took part in (addressed to him, or sent by him to another player), signed for the deal
    /// by its sender, and a message the deal calls for ([`called_for`]). Anything else — a
    /// forgery, a misaddressed envelope, a hop of the layer model, a message of no scheduled
    /// opening — is the relayer's fault: he presented it, whoever signed it. A second version
    /// of a message passes here and is the audit's to judge: both versions are signed by their
    /// sender in the deal's domain, so they prove that he, not the relayer, equivocated.
    pub(super) fn receive_transcript(
        &mut self,
        from: PartyId,
        list: Vec<Envelope>,
    ) -> Result<Step> {
        let t = self.table()?;
        let Pending::Deal(Phase::Exchange {
            mut envelopes,
            mut waiting,
        }) = std::mem::replace(&mut t.pending, Pending::Idle)
        else {
            return Err(unexpected(from, "a transcript outside the exchange"));
        };
        if !waiting.remove(&from) {
            return Err(unexpected(from, "a second transcript"));
        }
        let deal = t
            .deal
            .as_ref()
            .ok_or(EngineError::OutOfOrder("not dealt"))?;
        for env in &list {
            let scheduled = called_for(&deal.params.scheme, &deal.operations, env);
            if !took_part(from, env) || !scheduled || env.verify_with(&t.session, &t.keys).is_err()
            {
                return Err(DealerError::Malformed {
                    peer: from,
                    reason: "its transcript relays an envelope it neither received nor sent, \
                             or one the deal does not call for"
                        .into(),
                }
                .into());
            }
        }
        envelopes.extend(list);
        if !waiting.is_empty() {
            t.pending = Pending::Deal(Phase::Exchange { envelopes, waiting });
            return Ok(Step::wait());
        }
        self.audit_deal(envelopes)
    }

    /// The audit of the whole signed transcript.
    fn audit_deal(&mut self, mut envelopes: Vec<Envelope>) -> Result<Step> {
        let deal = self.deal_mut()?;
        // One copy of each envelope, in an order that keeps every honest sender's sequence
        // numbers increasing: setup, play, openings; within a phase by sequence number. The
        // order names nobody: the audit orders its findings by place in the protocol.
        envelopes.sort_by_key(|e| (phase_of(&e.body), e.seq, e.from, e.to_bytes()));
        envelopes.dedup();
        let mut transcript = Transcript::new(deal.params.clone());
        transcript.operations = deal.operations.clone();
        transcript.envelopes = envelopes;
        // This player verified every envelope itself: as it arrived, or as it was relayed.
        let report = audit_with(&transcript, Signatures::Checked)?;
        let failed = (!report.passed).then(|| EngineError::DealAudit {
            blame: report.blame,
            finding: report
                .first()
                .map_or_else(|| "no finding".to_owned(), ToString::to_string),
        });
        self.audit = Some(report);
        self.stage = Stage::Finished;
        match failed {
            Some(e) => Err(e),
            None => Ok(Step::done(Seen::default())),
        }
    }
}

/// Whether `relayer` took part in the private envelope `env`: it is addressed to him, or he
/// sent it to another player.
fn took_part(relayer: PartyId, env: &Envelope) -> bool {
    let received = env.to == Recipient::Party(relayer) && env.from != relayer;
    let sent = env.from == relayer
        && !matches!(env.to, Recipient::All)
        && env.to != Recipient::Party(relayer);
    received || sent
}

/// Whether the deal's schedule calls for the private envelope `env`, between its sender and
/// recipient: a helper half from the last player to its holder, or a hop of a scheduled
/// opening. (Broadcasts reach every player directly and are never relayed.)
fn called_for(scheme: &Scheme, operations: &[Operation], env: &Envelope) -> bool {
    match &env.body {
        Body::Helper { pair, half, .. } => {
            let holder = scheme.pair(*pair).map(|p| match half {
                Half::Outer => p.outer_holder,
                Half::Inner => p.inner_holder,
            });
            env.from == scheme.last() && holder.map(Recipient::Party) == Some(env.to)
        }
        Body::Value { op, hop, .. } => operations
            .iter()
            .find(|o| o.id == *op)
            .and_then(|o| scheme.plan(o.route).ok())
            .and_then(|plan| plan.hops.get(usize::from(*hop)).cloned())
            .is_some_and(|h| h.from == env.from && h.to == env.to),
        Body::Commit { .. } | Body::Reveal { .. } | Body::Values { .. } => false,
    }
}

fn phase_of(body: &Body) -> u8 {
    match body {
        Body::Commit { .. } | Body::Helper { .. } => 0,
        Body::Value { .. } | Body::Values { .. } => 1,
        Body::Reveal { .. } => 2,
    }
}
