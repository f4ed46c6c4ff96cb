//! The end-of-game audit.
//!
//! After play every player broadcasts the ordinals and salts of everything he committed to.
//! The audit, run by anyone on the signed [`Transcript`]:
//!
//! 1. verifies every signature (a transcript with a forged or unattributable message is
//!    rejected with a typed error — it cannot be used to blame anyone);
//! 2. checks every opening against its commitment, **enforcing `0 ≤ X < n!`**;
//! 3. checks every helper half the last player sent: the drawn half must be the committed
//!    one and `outer ∘ inner` must equal the opened `A_N`;
//! 4. walks every scheduled opening hop by hop and recomputes each forwarded value from the
//!    value its sender *received* and the sender's opened permutation (or the helper half the
//!    sender was given) — so only the sender of a wrong value is blamed, never an honest player
//!    who forwarded it;
//! 5. names the player behind the first inconsistency in transcript order, with the message
//!    index.
//!
//! A missing message is blamed on the player who should have sent it. On pairwise channels
//! that is as far as a transcript can go: the sender could claim the message was lost. This and
//! the privacy cost of the audit (it opens every permutation, so folded hands become public)
//! are discussed in the [notes](crate::notes).
//!
//! Part of the permutation-sharing dealer \[perm-sharing-dealer\]; see the [crate docs](crate).

use std::collections::BTreeMap;

use facedown_core::{PartyId, Perm};
use serde::{Deserialize, Serialize};

use crate::commit::{verify, CommitError, Commitment};
use crate::error::DealerError;
use crate::messages::{verify_all, Body, Envelope, Opening};
use crate::rank::unrank;
use crate::scheme::{Half, Recipient, Slot};
use crate::transcript::Transcript;

/// What is wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FindingKind {
    /// The player never broadcast his commitments.
    MissingCommit,
    /// The player committed to the wrong set of permutations or more than once.
    MalformedCommit,
    /// The player never opened his commitments.
    MissingReveal,
    /// The player's openings do not cover exactly his commitments, or he opened twice.
    MalformedReveal,
    /// An opened ordinal is `≥ n!`.
    RankOutOfRange {
        /// Which permutation.
        slot: Slot,
    },
    /// An opening does not match its commitment (he opened a different permutation).
    CommitmentMismatch {
        /// Which permutation.
        slot: Slot,
    },
    /// The last player did not send a helper half.
    MissingHelper {
        /// Helper pair.
        pair: u16,
        /// Which half.
        half: Half,
    },
    /// The drawn helper half sent differs from the committed one.
    HelperNotCommitted {
        /// Helper pair.
        pair: u16,
        /// Which half.
        half: Half,
    },
    /// `outer ∘ inner ≠ A_N` for a helper pair.
    HelpersDoNotCompose {
        /// Helper pair.
        pair: u16,
    },
    /// A forwarded value differs from what the sender's permutation gives.
    WrongValue {
        /// Operation.
        op: u32,
        /// Hop in its plan.
        hop: u16,
        /// What the opened permutations give.
        expected: u16,
        /// What was sent.
        got: u16,
    },
    /// A message of an opening was never sent.
    MissingValue {
        /// Operation.
        op: u32,
        /// Hop in its plan.
        hop: u16,
    },
    /// A correctly signed message that the protocol does not call for.
    Unexpected {
        /// Why.
        reason: String,
    },
}

/// One inconsistency, attributed to a player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The deviating player.
    pub player: PartyId,
    /// Index of the offending message in the transcript (`None` for a missing message).
    pub message: Option<usize>,
    /// What is wrong.
    pub what: FindingKind,
    #[serde(skip)]
    order: (usize, u8),
}

/// An opening as the audit recomputes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recomputed {
    /// The operation.
    pub op: u32,
    /// The position.
    pub position: u16,
    /// Who learned it (everyone for a public opening).
    pub learner: Recipient,
    /// The card the learner obtained, if every message was present and every permutation it
    /// depends on could be opened.
    pub card: Option<u16>,
}

/// The audit's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditReport {
    /// No inconsistency.
    pub passed: bool,
    /// The player behind the first inconsistency.
    pub blame: Option<PartyId>,
    /// Every inconsistency, first first.
    pub findings: Vec<Finding>,
    /// `A(i)` for every position, if every `A_j` was opened correctly.
    pub deal: Option<Vec<u16>>,
    /// Every scheduled opening, recomputed.
    pub openings: Vec<Recomputed>,
}

impl AuditReport {
    /// The first inconsistency.
    pub fn first(&self) -> Option<&Finding> {
        self.findings.first()
    }
}

type SlotCommitment = (Slot, Commitment);

struct Ctx {
    findings: Vec<Finding>,
}

impl Ctx {
    fn flag(
        &mut self,
        player: PartyId,
        message: Option<usize>,
        order: (usize, u8),
        what: FindingKind,
    ) {
        self.findings.push(Finding {
            player,
            message,
            what,
            order,
        });
    }
    fn unexpected(&mut self, i: usize, e: &Envelope, reason: &str) {
        self.flag(
            e.from,
            Some(i),
            (i, 0),
            FindingKind::Unexpected {
                reason: reason.into(),
            },
        );
    }
}

/// Audits a transcript. Malformed transcripts (bad signatures, unknown parties, out-of-range
/// values, an impossible schedule) are errors; deviations by correctly identified players are
/// findings in the report.
pub fn audit(t: &Transcript) -> Result<AuditReport, DealerError> {
    audit_with(t, Signatures::Check)
}

/// Whether [`audit_with`] checks every envelope's signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signatures {
    /// Check them (an auditor given a saved transcript).
    Check,
    /// The caller has checked every one itself (a player that verified each envelope as it
    /// arrived, and every relayed one).
    Checked,
}

/// Whether every envelope of `t` is correctly signed, checked in one batch.
fn signatures_batch_verify(t: &Transcript) -> bool {
    let Ok(keys) = t.params.roster.verifying_keys() else {
        return false;
    };
    let all: Vec<&Envelope> = t.envelopes.iter().collect();
    verify_all(&all, &t.params.session, &keys).is_ok()
}

/// [`audit`], with the signatures checked or not.
pub fn audit_with(t: &Transcript, signatures: Signatures) -> Result<AuditReport, DealerError> {
    let scheme = &t.params.scheme;
    scheme.validate()?;
    let n = scheme.cards;
    let last = scheme.last();
    if t.params.roster.keys.len() != scheme.players {
        return Err(DealerError::Transcript(format!(
            "the roster has {} keys for {} players",
            t.params.roster.keys.len(),
            scheme.players
        )));
    }
    // 1. Signatures, parties, ranges, sequence numbers. The signatures are checked in one
    // batch first; only when it fails are they checked one by one below, where the first
    // failure is the error (so it is the same error, in the same order, as without the batch).
    let signatures = match signatures {
        Signatures::Check if signatures_batch_verify(t) => Signatures::Checked,
        s => s,
    };
    let mut last_seq: BTreeMap<PartyId, u32> = BTreeMap::new();
    for e in &t.envelopes {
        if signatures == Signatures::Check {
            e.verify(&t.params.session, &t.params.roster)?;
        }
        if let Some(&s) = last_seq.get(&e.from) {
            if e.seq <= s {
                return Err(DealerError::Replay {
                    from: e.from,
                    seq: e.seq,
                });
            }
        }
        last_seq.insert(e.from, e.seq);
        match &e.body {
            Body::Value { value, .. } if usize::from(*value) >= n => {
                return Err(DealerError::CardOutOfRange {
                    from: e.from,
                    value: u64::from(*value),
                    cards: n,
                })
            }
            Body::Helper { perm, .. } if perm.len() != n => {
                return Err(DealerError::Unexpected {
                    from: e.from,
                    what: format!("a helper permutation on {} positions", perm.len()),
                })
            }
            _ => {}
        }
    }
    let mut ops = BTreeMap::new();
    for op in &t.operations {
        if usize::from(op.position) >= n {
            return Err(DealerError::Transcript(format!(
                "operation {} opens position {} of a {n}-card deck",
                op.id, op.position
            )));
        }
        let plan = scheme.plan(op.route)?;
        if ops.insert(op.id, (op, plan)).is_some() {
            return Err(DealerError::Transcript(format!(
                "operation {} is scheduled twice",
                op.id
            )));
        }
    }

    let mut ctx = Ctx { findings: vec![] };
    let end = t.envelopes.len();

    // 2. Commitments and openings.
    let mut commits: BTreeMap<PartyId, (usize, &[SlotCommitment])> = BTreeMap::new();
    let mut reveals: BTreeMap<PartyId, (usize, &Vec<Opening>)> = BTreeMap::new();
    let mut helper_msgs: BTreeMap<(u16, Half), (usize, &Perm)> = BTreeMap::new();
    let mut values: BTreeMap<(u32, u16), Vec<usize>> = BTreeMap::new();
    for (i, e) in t.envelopes.iter().enumerate() {
        match &e.body {
            Body::Commit { commitments } => {
                if e.to != Recipient::All {
                    ctx.unexpected(i, e, "commitments sent privately");
                } else if commits.insert(e.from, (i, commitments)).is_some()
                    || commitments.iter().map(|(s, _)| *s).collect::<Vec<_>>()
                        != scheme.committed_slots(e.from)
                {
                    ctx.flag(e.from, Some(i), (i, 0), FindingKind::MalformedCommit);
                }
            }
            Body::Reveal { openings } => {
                if e.to != Recipient::All {
                    ctx.unexpected(i, e, "openings sent privately");
                } else if reveals.insert(e.from, (i, openings)).is_some() {
                    ctx.flag(e.from, Some(i), (i, 0), FindingKind::MalformedReveal);
                }
            }
            Body::Helper { pair, half, perm } => {
                let holder = scheme.pair(*pair).map(|p| match half {
                    Half::Outer => p.outer_holder,
                    Half::Inner => p.inner_holder,
                });
                if e.from != last || holder.map(Recipient::Party) != Some(e.to) {
                    ctx.unexpected(i, e, "a helper half not called for by the scheme");
                } else if helper_msgs.insert((*pair, *half), (i, perm)).is_some() {
                    ctx.unexpected(i, e, "the same helper half twice");
                }
            }
            Body::Value { op, hop, .. } => values.entry((*op, *hop)).or_default().push(i),
            Body::Values { .. } => ctx.unexpected(i, e, "a layer-model opening inside a deal"),
        }
    }
    let mut opened: BTreeMap<Slot, Perm> = BTreeMap::new();
    for party in PartyId::all(scheme.players) {
        let slots = scheme.committed_slots(party);
        let Some(&(_, cs)) = commits.get(&party) else {
            ctx.flag(party, None, (0, 0), FindingKind::MissingCommit);
            continue;
        };
        let Some(&(ri, os)) = reveals.get(&party) else {
            ctx.flag(party, None, (end, 0), FindingKind::MissingReveal);
            continue;
        };
        if os.iter().map(|o| o.slot).collect::<Vec<_>>() != slots {
            ctx.flag(party, Some(ri), (ri, 0), FindingKind::MalformedReveal);
            continue;
        }
        for (o, (_, c)) in os.iter().zip(cs.iter()) {
            match verify(c, n, party, o.slot, &o.rank, &o.salt) {
                Ok(()) => match unrank(n, &o.rank) {
                    Ok(p) => {
                        opened.insert(o.slot, p);
                    }
                    Err(_) => ctx.flag(
                        party,
                        Some(ri),
                        (ri, 0),
                        FindingKind::RankOutOfRange { slot: o.slot },
                    ),
                },
                Err(CommitError::RankOutOfRange) => ctx.flag(
                    party,
                    Some(ri),
                    (ri, 0),
                    FindingKind::RankOutOfRange { slot: o.slot },
                ),
                Err(CommitError::Mismatch) => ctx.flag(
                    party,
                    Some(ri),
                    (ri, 0),
                    FindingKind::CommitmentMismatch { slot: o.slot },
                ),
            }
        }
    }

    // 3. Helper halves.
    let a_last = opened.get(&Slot::Deal(last)).cloned();
    for (k, pair) in scheme.pairs.iter().enumerate() {
        let k = k as u16;
        let outer = helper_msgs.get(&(k, Half::Outer));
        let inner = helper_msgs.get(&(k, Half::Inner));
        for (half, msg) in [(Half::Outer, outer), (Half::Inner, inner)] {
            if msg.is_none() {
                ctx.flag(
                    last,
                    None,
                    (0, 1),
                    FindingKind::MissingHelper { pair: k, half },
                );
            }
        }
        let (drawn_slot, drawn_msg, derived_msg) = match pair.drawn {
            Half::Outer => (Slot::Outer(k), outer, inner),
            Half::Inner => (Slot::Inner(k), inner, outer),
        };
        if let (Some(&(i, p)), Some(c)) = (drawn_msg, opened.get(&drawn_slot)) {
            if p != c {
                ctx.flag(
                    last,
                    Some(i),
                    (i, 0),
                    FindingKind::HelperNotCommitted {
                        pair: k,
                        half: pair.drawn,
                    },
                );
            }
        }
        if let (Some(&(_, o)), Some(&(_, inn)), Some(&(di, _)), Some(a)) =
            (outer, inner, derived_msg, a_last.as_ref())
        {
            if o.compose(inn).ok().as_ref() != Some(a) {
                ctx.flag(
                    last,
                    Some(di),
                    (di, 0),
                    FindingKind::HelpersDoNotCompose { pair: k },
                );
            }
        }
    }

    // 4. Every opening, hop by hop.
    let perm_for = |slot: Slot| -> Option<&Perm> {
        match slot {
            Slot::Deal(_) => opened.get(&slot),
            Slot::Outer(k) => helper_msgs.get(&(k, Half::Outer)).map(|x| x.1),
            Slot::Inner(k) => helper_msgs.get(&(k, Half::Inner)).map(|x| x.1),
        }
    };
    let apply = |slots: &[Slot], v: usize| -> Option<usize> {
        slots.iter().try_fold(v, |v, &s| perm_for(s)?.get(v))
    };
    let mut matched = vec![false; end];
    let mut recomputed = Vec::new();
    for op in &t.operations {
        let Some((_, plan)) = ops.get(&op.id) else {
            continue;
        };
        let mut input = usize::from(op.position);
        let mut prev = 0usize;
        let mut complete = true;
        for (h, hop) in plan.hops.iter().enumerate() {
            let h16 = h as u16;
            let idxs = values.get(&(op.id, h16)).map(Vec::as_slice).unwrap_or(&[]);
            let Some(&i) = idxs.first() else {
                ctx.flag(
                    hop.from,
                    None,
                    (prev, 1),
                    FindingKind::MissingValue {
                        op: op.id,
                        hop: h16,
                    },
                );
                complete = false;
                break;
            };
            for &j in idxs {
                matched[j] = true;
            }
            for &j in &idxs[1..] {
                ctx.unexpected(j, &t.envelopes[j], "a second message for the same hop");
            }
            let e = &t.envelopes[i];
            if e.from != hop.from || e.to != hop.to {
                ctx.unexpected(i, e, "a hop between the wrong players");
                complete = false;
                break;
            }
            let Body::Value { value, .. } = e.body else {
                continue;
            };
            if let Some(expected) = apply(&hop.apply, input) {
                if expected != usize::from(value) {
                    ctx.flag(
                        hop.from,
                        Some(i),
                        (i, 0),
                        FindingKind::WrongValue {
                            op: op.id,
                            hop: h16,
                            expected: expected as u16,
                            got: value,
                        },
                    );
                }
            }
            input = usize::from(value);
            prev = i;
        }
        let card = if complete {
            apply(&plan.finish, input).map(|c| c as u16)
        } else {
            None
        };
        recomputed.push(Recomputed {
            op: op.id,
            position: op.position,
            learner: plan.learner,
            card,
        });
    }
    for (i, e) in t.envelopes.iter().enumerate() {
        if matches!(e.body, Body::Value { .. }) && !matched[i] {
            ctx.unexpected(i, e, "a value message no scheduled opening calls for");
        }
    }

    let deal = PartyId::all(scheme.players)
        .map(|p| opened.get(&Slot::Deal(p)))
        .collect::<Option<Vec<_>>>()
        .map(|perms| {
            (0..n)
                .map(|i| perms.iter().fold(i, |v, p| p.apply(v)) as u16)
                .collect()
        });
    let mut findings = ctx.findings;
    findings.sort_by_key(|f| f.order);
    Ok(AuditReport {
        passed: findings.is_empty(),
        blame: findings.first().map(|f| f.player),
        findings,
        deal,
        openings: recomputed,
    })
}

impl core::fmt::Display for Finding {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: ", self.player)?;
        match &self.what {
            FindingKind::MissingCommit => write!(f, "never broadcast his commitments")?,
            FindingKind::MalformedCommit => write!(f, "committed to the wrong permutations")?,
            FindingKind::MissingReveal => write!(f, "never opened his commitments")?,
            FindingKind::MalformedReveal => write!(f, "opened the wrong set of commitments")?,
            FindingKind::RankOutOfRange { slot } => {
                write!(f, "opened {slot} with an ordinal ≥ n!")?
            }
            FindingKind::CommitmentMismatch { slot } => {
                write!(f, "opened a different {slot} than he committed to")?
            }
            FindingKind::MissingHelper { pair, half } => {
                write!(f, "never sent the {half:?} half of helper pair {pair}")?
            }
            FindingKind::HelperNotCommitted { pair, half } => write!(
                f,
                "sent a {half:?} half of helper pair {pair} other than the committed one"
            )?,
            FindingKind::HelpersDoNotCompose { pair } => write!(
                f,
                "helper pair {pair} does not compose to his opened permutation"
            )?,
            FindingKind::WrongValue {
                op,
                hop,
                expected,
                got,
            } => write!(
                f,
                "sent {got} instead of {expected} (opening {op}, hop {hop})"
            )?,
            FindingKind::MissingValue { op, hop } => {
                write!(f, "never sent hop {hop} of opening {op}")?
            }
            FindingKind::Unexpected { reason } => write!(f, "{reason}")?,
        }
        if let Some(m) = self.message {
            write!(f, " [transcript message #{m}]")?;
        }
        Ok(())
    }
}
