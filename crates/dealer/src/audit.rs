//! The end-of-game audit.
//!
//! After play every player broadcasts the ordinals and salts of everything he committed to.
//! The audit, run by anyone on the signed [`Transcript`]:
//!
//! 1. verifies every signature, as a message of the deal
//!    ([`Domain::Deal`](crate::Domain::Deal)): a transcript with a forged or unattributable
//!    message is rejected with a typed error — it cannot be used to blame anyone;
//! 2. checks every opening against its commitment, **enforcing `0 ≤ X < n!`**;
//! 3. checks every helper half the last player sent: the drawn half must be the committed
//!    one and `outer ∘ inner` must equal the opened `A_N`;
//! 4. walks every scheduled opening hop by hop and recomputes each forwarded value from the
//!    value its sender *received* and the sender's opened permutation (or the helper half the
//!    sender was given) — so only the sender of a wrong value is blamed, never an honest player
//!    who forwarded it;
//! 5. names the player behind the first inconsistency **in protocol order** (setup, each
//!    opening hop by hop, the openings of the commitments), with the message index.
//!
//! **Who is named.** Every finding names the signer of a message the protocol does not call
//! for, or the player who owed a missing one. The signatures are in the deal's domain, where
//! an honest player signs exactly the protocol's messages of this session, once each: a
//! message of another domain (the layer model's) does not verify here at all. So two
//! different messages one player signed for one slot (a hop of an opening, a helper half, his
//! commitments, his openings) are his equivocation: he is named, and neither version is used
//! to judge anyone — the walk of that opening stops there, or none of his permutations is
//! opened. A *copy* of a message (the same sender, recipient, number and body) is the same
//! message again, which whoever holds it can make: it is read once and names nobody. Without
//! the first rule a second version taken as the next holder's input would make the next
//! holder's honest output "wrong". For
//! the same reason findings are not ordered by transcript index: that order follows sequence
//! numbers, which each sender picks for his own messages (a receiver checks only that they
//! increase). A player who relays in the transcript exchange an envelope that the deal does
//! not call for is refused by the engine, naming the relayer, before any audit
//! ([`crate::engine`]).
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
use crate::scheme::{Half, Hop, Operation, Plan, Recipient, Scheme, Slot};
use crate::transcript::Transcript;

/// What is wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FindingKind {
    /// The player never broadcast his commitments.
    MissingCommit,
    /// The player committed to the wrong set of permutations.
    MalformedCommit,
    /// The player never opened his commitments.
    MissingReveal,
    /// The player's openings do not cover exactly his commitments.
    MalformedReveal,
    /// The player signed two different broadcasts of his commitments: he equivocated, and
    /// neither is used (none of his permutations is opened, so nobody is judged by them).
    TwoCommits,
    /// The player signed two different broadcasts of his openings: neither is used (none of
    /// his permutations is opened).
    TwoReveals,
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
    /// The sender signed two different messages for one hop: he equivocated, and neither
    /// is taken as the next holder's input (the opening is not walked further).
    TwoVersions {
        /// Operation.
        op: u32,
        /// Hop in its plan.
        hop: u16,
    },
    /// The last player signed two different messages for one helper half: neither is used to
    /// judge its holder.
    TwoHelpers {
        /// Helper pair.
        pair: u16,
        /// Which half.
        half: Half,
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
    place: Place,
}

/// Where a finding lies in the protocol. Findings are reported in this order — setup (each
/// player's commitments, then each helper half), each opening hop by hop, the openings of the
/// commitments — and the audit names the player behind the first. Not in transcript order:
/// that follows sequence numbers, which every sender chooses for his own messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// A player's commitments.
    Commit(PartyId),
    /// A helper half.
    Helper(u16, Half),
    /// A hop of an opening.
    Hop(u32, u16),
    /// A player's openings of his commitments.
    Reveal(PartyId),
    /// A message that has no place in a deal.
    #[default]
    Nowhere,
}

impl Place {
    /// The place of the slot an envelope fills.
    fn of(e: &Envelope) -> Place {
        match &e.body {
            Body::Commit { .. } => Place::Commit(e.from),
            Body::Helper { pair, half, .. } => Place::Helper(*pair, *half),
            Body::Value { op, hop, .. } => Place::Hop(*op, *hop),
            Body::Reveal { .. } => Place::Reveal(e.from),
            Body::Values { .. } => Place::Nowhere,
        }
    }
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

#[derive(Default)]
struct Ctx {
    findings: Vec<Finding>,
}

impl Ctx {
    fn flag(&mut self, player: PartyId, message: Option<usize>, place: Place, what: FindingKind) {
        self.findings.push(Finding {
            player,
            message,
            what,
            place,
        });
    }

    /// A signed message the protocol does not call for, blamed on its signer: every envelope
    /// of the transcript is signed for the deal ([`Domain::Deal`](crate::Domain::Deal)), where
    /// an honest player signs only the messages the protocol calls for.
    fn unexpected(&mut self, i: usize, e: &Envelope, reason: &str) {
        self.flag(
            e.from,
            Some(i),
            Place::of(e),
            FindingKind::Unexpected {
                reason: reason.into(),
            },
        );
    }

    /// The findings in protocol order.
    fn into_findings(self) -> Vec<Finding> {
        let mut findings = self.findings;
        findings.sort_by_key(|f| f.place);
        findings
    }
}

/// Which envelopes of `t` are copies of an earlier one: the same sender, recipient, number
/// and body (the same signed statement, whatever the signature bytes). A copy is the same
/// message again — anyone holding it can make one, so it is nobody's deviation — and the
/// audit reads each message once.
fn copies(t: &Transcript) -> Vec<bool> {
    let mut seen = std::collections::HashSet::new();
    t.envelopes
        .iter()
        .map(|e| !seen.insert(e.signed_bytes(crate::Domain::Deal, &t.params.session)))
        .collect()
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
    if t.params.roster.keys.len() != scheme.players {
        return Err(DealerError::Transcript(format!(
            "the roster has {} keys for {} players",
            t.params.roster.keys.len(),
            scheme.players
        )));
    }
    let copies = copies(t);
    check_envelopes(t, &copies, signatures)?;
    let plans = plans(t)?;
    let mut ctx = Ctx::default();
    let messages = Messages::sort(t, &copies, &mut ctx);
    let opened = open_commitments(t, &messages, &mut ctx);
    let helpers = check_helpers(scheme, &messages, &opened, &mut ctx);
    let perms = Perms {
        opened: &opened,
        helpers: &helpers,
    };
    let mut matched = vec![false; t.envelopes.len()];
    let openings = t
        .operations
        .iter()
        .filter_map(|op| {
            let plan = plans.get(&op.id)?;
            let walk = Walk {
                t,
                values: &messages.values,
                perms: &perms,
            };
            let card = walk.opening(op, plan, &mut matched, &mut ctx);
            Some(Recomputed {
                op: op.id,
                position: op.position,
                learner: plan.learner,
                card,
            })
        })
        .collect();
    for (i, e) in t.envelopes.iter().enumerate() {
        if matches!(e.body, Body::Value { .. }) && !matched[i] && !copies[i] {
            ctx.unexpected(i, e, "a value message no scheduled opening calls for");
        }
    }
    let findings = ctx.into_findings();
    Ok(AuditReport {
        passed: findings.is_empty(),
        blame: findings.first().map(|f| f.player),
        findings,
        deal: deal_of(scheme.players, scheme.cards, &opened),
        openings,
    })
}

/// Step 1: signatures (in the deal's domain), parties, ranges, sequence numbers. The signatures
/// are checked in one batch first; only when it fails are they checked one by one, where the
/// first failure is the error (so it is the same error, in the same order, as without the
/// batch). A sequence number that does not increase is its signer's: both envelopes are his,
/// signed for this deal. A copy of an earlier envelope (`copies`) is that envelope again: its
/// signature is checked, its number is not compared.
fn check_envelopes(
    t: &Transcript,
    copies: &[bool],
    signatures: Signatures,
) -> Result<(), DealerError> {
    let n = t.params.scheme.cards;
    let signatures = match signatures {
        Signatures::Check if signatures_batch_verify(t) => Signatures::Checked,
        s => s,
    };
    let mut last_seq: BTreeMap<PartyId, u32> = BTreeMap::new();
    for (e, &copy) in t.envelopes.iter().zip(copies) {
        if signatures == Signatures::Check {
            e.verify(&t.params.session, &t.params.roster)?;
        }
        if copy {
            continue;
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
    Ok(())
}

/// The plan of every scheduled operation, by id.
fn plans(t: &Transcript) -> Result<BTreeMap<u32, Plan>, DealerError> {
    let scheme = &t.params.scheme;
    let mut plans = BTreeMap::new();
    for op in &t.operations {
        if usize::from(op.position) >= scheme.cards {
            return Err(DealerError::Transcript(format!(
                "operation {} opens position {} of a {}-card deck",
                op.id, op.position, scheme.cards
            )));
        }
        if plans.insert(op.id, scheme.plan(op.route)?).is_some() {
            return Err(DealerError::Transcript(format!(
                "operation {} is scheduled twice",
                op.id
            )));
        }
    }
    Ok(plans)
}

/// Step 2: the transcript's messages by kind and slot (each once: copies are left out), and the
/// misplaced ones flagged.
struct Messages<'t> {
    /// Every version of each player's commitments.
    commits: BTreeMap<PartyId, Vec<(usize, &'t [SlotCommitment])>>,
    /// Every version of each player's openings.
    reveals: BTreeMap<PartyId, Vec<(usize, &'t Vec<Opening>)>>,
    /// Every version of each helper half the last player sent its holder.
    helpers: BTreeMap<(u16, Half), Vec<(usize, &'t Perm)>>,
    /// Every value message of each hop, by `(operation, hop)`.
    values: BTreeMap<(u32, u16), Vec<usize>>,
}

impl<'t> Messages<'t> {
    fn sort(t: &'t Transcript, copies: &[bool], ctx: &mut Ctx) -> Messages<'t> {
        let scheme = &t.params.scheme;
        let mut m = Messages {
            commits: BTreeMap::new(),
            reveals: BTreeMap::new(),
            helpers: BTreeMap::new(),
            values: BTreeMap::new(),
        };
        for (i, e) in t.envelopes.iter().enumerate() {
            if copies[i] {
                continue;
            }
            match &e.body {
                Body::Commit { commitments } => {
                    if e.to != Recipient::All {
                        ctx.unexpected(i, e, "commitments sent privately");
                        continue;
                    }
                    if commitments.iter().map(|(s, _)| *s).collect::<Vec<_>>()
                        != scheme.committed_slots(e.from)
                    {
                        ctx.flag(e.from, Some(i), Place::of(e), FindingKind::MalformedCommit);
                    }
                    m.commits.entry(e.from).or_default().push((i, commitments));
                }
                Body::Reveal { openings } => {
                    if e.to != Recipient::All {
                        ctx.unexpected(i, e, "openings sent privately");
                    } else {
                        m.reveals.entry(e.from).or_default().push((i, openings));
                    }
                }
                Body::Helper { pair, half, perm } => {
                    let holder = scheme.pair(*pair).map(|p| match half {
                        Half::Outer => p.outer_holder,
                        Half::Inner => p.inner_holder,
                    });
                    if e.from != scheme.last() || holder.map(Recipient::Party) != Some(e.to) {
                        ctx.unexpected(i, e, "a helper half not called for by the scheme");
                    } else {
                        m.helpers.entry((*pair, *half)).or_default().push((i, perm));
                    }
                }
                Body::Value { op, hop, .. } => m.values.entry((*op, *hop)).or_default().push(i),
                Body::Values { .. } => ctx.unexpected(i, e, "a layer-model opening inside a deal"),
            }
        }
        m
    }
}

/// Every permutation whose opening matches its commitment; the others flagged. A player who
/// signed two versions of his commitments, or of his openings, is named, and neither version
/// is used: none of his permutations is opened, as for a hop or a helper half in two versions.
fn open_commitments(t: &Transcript, m: &Messages<'_>, ctx: &mut Ctx) -> BTreeMap<Slot, Perm> {
    let scheme = &t.params.scheme;
    let n = scheme.cards;
    let mut opened = BTreeMap::new();
    for party in PartyId::all(scheme.players) {
        let commits = m.commits.get(&party).map(Vec::as_slice).unwrap_or(&[]);
        let cs = match commits {
            [] => {
                let what = FindingKind::MissingCommit;
                ctx.flag(party, None, Place::Commit(party), what);
                continue;
            }
            [(_, cs)] => *cs,
            [(i, _), ..] => {
                let what = FindingKind::TwoCommits;
                ctx.flag(party, Some(*i), Place::Commit(party), what);
                continue;
            }
        };
        let place = Place::Reveal(party);
        let (ri, os) = match m.reveals.get(&party).map(Vec::as_slice).unwrap_or(&[]) {
            [] => {
                ctx.flag(party, None, place, FindingKind::MissingReveal);
                continue;
            }
            [(ri, os)] => (*ri, *os),
            [(ri, _), ..] => {
                ctx.flag(party, Some(*ri), place, FindingKind::TwoReveals);
                continue;
            }
        };
        if os.iter().map(|o| o.slot).collect::<Vec<_>>() != scheme.committed_slots(party) {
            ctx.flag(party, Some(ri), place, FindingKind::MalformedReveal);
            continue;
        }
        for (o, (_, c)) in os.iter().zip(cs.iter()) {
            let what = match verify(c, n, party, o.slot, &o.rank, &o.salt) {
                Ok(()) => match unrank(n, &o.rank) {
                    Ok(p) => {
                        opened.insert(o.slot, p);
                        continue;
                    }
                    Err(_) => FindingKind::RankOutOfRange { slot: o.slot },
                },
                Err(CommitError::RankOutOfRange) => FindingKind::RankOutOfRange { slot: o.slot },
                Err(CommitError::Mismatch) => FindingKind::CommitmentMismatch { slot: o.slot },
            };
            ctx.flag(party, Some(ri), place, what);
        }
    }
    opened
}

/// The helper halves of one version each, by `(pair, half)`.
type Helpers<'t> = BTreeMap<(u16, Half), (usize, &'t Perm)>;

/// Step 3: helper halves: each sent once, the drawn one as committed, the pair composing to the
/// opened `A_N`. A half the last player signed in two versions is his equivocation, and
/// neither version is used to judge its holder (both are left out of the result).
fn check_helpers<'t>(
    scheme: &Scheme,
    m: &Messages<'t>,
    opened: &BTreeMap<Slot, Perm>,
    ctx: &mut Ctx,
) -> Helpers<'t> {
    let last = scheme.last();
    let mut single = Helpers::new();
    for (k, pair) in scheme.pairs.iter().enumerate() {
        let k = k as u16;
        for half in [Half::Outer, Half::Inner] {
            let place = Place::Helper(k, half);
            match m.helpers.get(&(k, half)).map(Vec::as_slice).unwrap_or(&[]) {
                [] => ctx.flag(
                    last,
                    None,
                    place,
                    FindingKind::MissingHelper { pair: k, half },
                ),
                [one] => {
                    single.insert((k, half), *one);
                }
                [(i, _), ..] => ctx.flag(
                    last,
                    Some(*i),
                    place,
                    FindingKind::TwoHelpers { pair: k, half },
                ),
            }
        }
        let outer = single.get(&(k, Half::Outer));
        let inner = single.get(&(k, Half::Inner));
        let (drawn_slot, drawn_msg, derived_msg) = match pair.drawn {
            Half::Outer => (Slot::Outer(k), outer, inner),
            Half::Inner => (Slot::Inner(k), inner, outer),
        };
        if let (Some(&(i, p)), Some(c)) = (drawn_msg, opened.get(&drawn_slot)) {
            if p != c {
                ctx.flag(
                    last,
                    Some(i),
                    Place::Helper(k, pair.drawn),
                    FindingKind::HelperNotCommitted {
                        pair: k,
                        half: pair.drawn,
                    },
                );
            }
        }
        let a_last = opened.get(&Slot::Deal(last));
        if let (Some(&(_, o)), Some(&(_, inn)), Some(&(di, _)), Some(a)) =
            (outer, inner, derived_msg, a_last)
        {
            if o.compose(inn).ok().as_ref() != Some(a) {
                let derived = match pair.drawn {
                    Half::Outer => Half::Inner,
                    Half::Inner => Half::Outer,
                };
                ctx.flag(
                    last,
                    Some(di),
                    Place::Helper(k, derived),
                    FindingKind::HelpersDoNotCompose { pair: k },
                );
            }
        }
    }
    single
}

/// The permutations a hop may apply: the opened `A_j` and the helper halves of one version.
struct Perms<'a, 't> {
    opened: &'a BTreeMap<Slot, Perm>,
    helpers: &'a Helpers<'t>,
}

impl Perms<'_, '_> {
    fn get(&self, slot: Slot) -> Option<&Perm> {
        match slot {
            Slot::Deal(_) => self.opened.get(&slot),
            Slot::Outer(k) => self.helpers.get(&(k, Half::Outer)).map(|x| x.1),
            Slot::Inner(k) => self.helpers.get(&(k, Half::Inner)).map(|x| x.1),
        }
    }

    /// `slots` applied to `v`, if every one is known.
    fn apply(&self, slots: &[Slot], v: usize) -> Option<usize> {
        slots.iter().try_fold(v, |v, &s| self.get(s)?.get(v))
    }
}

/// Step 4: the openings, hop by hop.
struct Walk<'a, 't> {
    t: &'t Transcript,
    values: &'a BTreeMap<(u32, u16), Vec<usize>>,
    perms: &'a Perms<'a, 't>,
}

impl Walk<'_, '_> {
    /// Walks one opening: each hop's value is recomputed from the value its sender received
    /// (the previous hop's) and the permutations he applies, so only the sender of a wrong
    /// value is named. The walk stops at a hop that is missing, or that its sender signed in
    /// two versions (neither is taken as the next holder's input: he is named, and nobody
    /// after him). The card the learner obtained, if the walk went through.
    fn opening(
        &self,
        op: &Operation,
        plan: &Plan,
        matched: &mut [bool],
        ctx: &mut Ctx,
    ) -> Option<u16> {
        let own: Vec<Vec<usize>> = (0..plan.hops.len())
            .map(|h| self.own_messages(op.id, h as u16, &plan.hops[h], matched, ctx))
            .collect();
        let mut input = usize::from(op.position);
        for (h, (hop, own)) in plan.hops.iter().zip(&own).enumerate() {
            let h = h as u16;
            let place = Place::Hop(op.id, h);
            let i = match own.as_slice() {
                [] => {
                    let what = FindingKind::MissingValue { op: op.id, hop: h };
                    ctx.flag(hop.from, None, place, what);
                    return None;
                }
                [i] => *i,
                [i, ..] => {
                    let what = FindingKind::TwoVersions { op: op.id, hop: h };
                    ctx.flag(hop.from, Some(*i), place, what);
                    return None;
                }
            };
            let Body::Value { value, .. } = self.t.envelopes[i].body else {
                return None;
            };
            if let Some(expected) = self.perms.apply(&hop.apply, input) {
                if expected != usize::from(value) {
                    let what = FindingKind::WrongValue {
                        op: op.id,
                        hop: h,
                        expected: expected as u16,
                        got: value,
                    };
                    ctx.flag(hop.from, Some(i), place, what);
                }
            }
            input = usize::from(value);
        }
        self.perms.apply(&plan.finish, input).map(|c| c as u16)
    }

    /// The messages of hop `h` of `op` between its two players (each marked as called for);
    /// the others are flagged.
    fn own_messages(
        &self,
        op: u32,
        h: u16,
        hop: &Hop,
        matched: &mut [bool],
        ctx: &mut Ctx,
    ) -> Vec<usize> {
        let idxs = self.values.get(&(op, h)).map(Vec::as_slice).unwrap_or(&[]);
        let mut own = Vec::with_capacity(1);
        for &j in idxs {
            matched[j] = true;
            let e = &self.t.envelopes[j];
            if e.from == hop.from && e.to == hop.to {
                own.push(j);
            } else {
                ctx.unexpected(j, e, "a hop between the wrong players");
            }
        }
        own
    }
}

/// `A(i)` for every position, if every `A_j` was opened.
fn deal_of(players: usize, n: usize, opened: &BTreeMap<Slot, Perm>) -> Option<Vec<u16>> {
    PartyId::all(players)
        .map(|p| opened.get(&Slot::Deal(p)))
        .collect::<Option<Vec<_>>>()
        .map(|perms| {
            (0..n)
                .map(|i| perms.iter().fold(i, |v, p| p.apply(v)) as u16)
                .collect()
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
            FindingKind::TwoCommits => write!(f, "signed two versions of his commitments")?,
            FindingKind::TwoReveals => write!(f, "signed two versions of his openings")?,
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
            FindingKind::TwoVersions { op, hop } => write!(
                f,
                "signed two different values for hop {hop} of opening {op}"
            )?,
            FindingKind::TwoHelpers { pair, half } => write!(
                f,
                "signed two different {half:?} halves of helper pair {pair}"
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
