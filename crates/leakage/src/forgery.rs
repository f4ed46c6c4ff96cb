//! Coalitions that cheat: two or more players pool what they hold to force another player's
//! card, and the audit names whoever signed the forged value — not necessarily everyone who
//! took part.
//!
//! The strategy measured here, **forge a card**: a coalition `S` picks a target player `t ∉ S`
//! and a card `c`. In `t`'s private opening the last message before `t` carries a value `w`
//! to which `t` applies the permutations of [`facedown_dealer::Plan::finish`] (the outer half
//! `C3` of his helper pair in the published scheme). If a member of `S` sends that message and
//! `S` holds every permutation `t` applies afterwards, `S` can compute `w' = finish⁻¹(c)` and
//! send it: `t` then computes the card `c`. With the published scheme, players 2 and 3 force
//! player 1's card: player 3 knows `C3` (he drew it), player 2 sends `D3(x)`; the harness
//! computes `C3⁻¹(c)` from player 3's view and makes player 2 send it.
//!
//! The harness plays each trial twice with the same seed (the deviation changes nothing that
//! is drawn): honestly, to read the coalition's permutations and the forger's message index,
//! then with the forgery, through the real driver with signed messages and the audit. It
//! reports how often `t` holds `c`, who the audit names, and whether any accomplice appears in
//! any finding.
//!
//! The scheme played is the permutation-sharing dealer \[perm-sharing-dealer\].

use std::collections::BTreeMap;

use facedown_cards::search::{MergeError, Shard, Trials};
use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use facedown_dealer::{Body, Deviation, Recipient, Slot};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::dealer::{images, play_schedule, Played, Schedule};
use crate::error::LeakageError;
use crate::harness::{add_up_shards, wilson, Coalition};
use crate::montecarlo::Z;

/// One coalition forgery, measured over seeded games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForgeryRow {
    /// The coalition's members.
    pub coalition: Vec<u16>,
    /// The member who sends the forged value (and signs it).
    pub forger: u16,
    /// The members who only supply knowledge.
    pub accomplices: Vec<u16>,
    /// The player whose card is forced.
    pub target: u16,
    /// The card forced on him.
    pub card: u16,
    /// Games.
    pub trials: u64,
    /// Games in which the target's first private card is `card` after the forgery.
    pub forced: u64,
    /// Games in which it was `card` in the honest game already.
    pub honest_already: u64,
    /// Games in which the audit fails.
    pub detected: u64,
    /// Games in which the audit blames the forger.
    pub forger_named: u64,
    /// Wilson interval of the naming rate.
    pub forger_named_interval: (f64, f64),
    /// Games in which some finding names an accomplice.
    pub accomplice_named: u64,
    /// Games in which some finding names a player outside the coalition (must be 0).
    pub framed: u64,
    /// Who the audit blamed, with how often.
    pub blamed: BTreeMap<u16, u64>,
}

/// Why a coalition cannot forge a target's card.
fn unreachable(why: String) -> LeakageError {
    LeakageError::Schedule(why)
}

/// How the coalition forges: who sends, which of his value messages, and the value.
#[derive(Debug)]
struct Plan {
    forger: PartyId,
    nth: usize,
    value: u16,
    op: u32,
}

/// The member of `s` who sends the last message of `target`'s private opening: the forger.
/// It follows from the scheme alone, so a shard with no game knows it too.
fn forger_of(schedule: &Schedule, s: &Coalition, target: PartyId) -> Result<PartyId, LeakageError> {
    let scheme = &schedule.scheme;
    let plan = scheme.plan(scheme.private_route(target)?)?;
    let last = plan
        .hops
        .last()
        .ok_or_else(|| unreachable("an opening with no message".into()))?;
    if last.to != Recipient::Party(target) || !s.contains(last.from) {
        return Err(unreachable(format!(
            "no member of {s} sends the last message to player {}",
            target.0
        )));
    }
    Ok(last.from)
}

/// Finds the forgery in the honest game `g`: the target's first private opening, its last
/// hop, and `finish⁻¹(card)` from the coalition's permutations.
fn plan(
    schedule: &Schedule,
    g: &Played,
    s: &Coalition,
    target: PartyId,
    card: u16,
) -> Result<Plan, LeakageError> {
    let forger = forger_of(schedule, s, target)?;
    let plan = schedule
        .scheme
        .plan(schedule.scheme.private_route(target)?)?;
    // The permutations the target applies after the last message, as images, known to S.
    let mut finish = Vec::new();
    for &slot in &plan.finish {
        finish.push(known_images(schedule, g, s, slot)?);
    }
    let inverse = |p: &[u16], c: u16| p.iter().position(|&y| y == c).map(|x| x as u16);
    let value = finish
        .iter()
        .rev()
        .try_fold(card, |c, p| inverse(p, c))
        .ok_or_else(|| unreachable(format!("card {card} is outside the deck")))?;
    let view = &g.finished.views[target.index()];
    let op = view
        .learned
        .iter()
        .find(|l| !l.public)
        .map(|l| l.op)
        .ok_or_else(|| unreachable(format!("player {} learns no private card", target.0)))?;
    let hop = (plan.hops.len() - 1) as u16;
    let nth = g.finished.views[forger.index()]
        .sent
        .iter()
        .filter(|e| matches!(e.body, Body::Value { .. }))
        .position(|e| matches!(e.body, Body::Value { op: o, hop: h, .. } if o == op && h == hop))
        .ok_or_else(|| unreachable("the forger never sends that message".into()))?;
    Ok(Plan {
        forger,
        nth,
        value,
        op,
    })
}

/// The images of `slot` from the view of a member of `s` who holds it.
fn known_images(
    schedule: &Schedule,
    g: &Played,
    s: &Coalition,
    slot: Slot,
) -> Result<Vec<u16>, LeakageError> {
    let last = schedule.scheme.last();
    for p in s.members() {
        let view = &g.finished.views[p.index()];
        let found = match slot {
            Slot::Deal(q) if q == p => Some(images(&view.deal)),
            Slot::Deal(_) => None,
            Slot::Outer(k) | Slot::Inner(k) if p == last => view
                .drawn_helpers
                .iter()
                .find(|(j, _, _)| *j == k)
                .map(|(_, o, i)| images(if matches!(slot, Slot::Outer(_)) { o } else { i })),
            Slot::Outer(k) | Slot::Inner(k) => view
                .helpers
                .iter()
                .find(|(j, half, _)| {
                    *j == k
                        && (*half == facedown_dealer::scheme::Half::Outer)
                            == matches!(slot, Slot::Outer(_))
                })
                .map(|(_, _, perm)| images(perm)),
        };
        if let Some(imgs) = found {
            return Ok(imgs);
        }
    }
    Err(unreachable(format!(
        "{s} does not hold {}",
        crate::dealer::slot_name(&schedule.scheme, slot)
    )))
}

/// One game's outcome, or the sum of several.
#[derive(Clone, Debug, Default)]
struct Tally {
    forced: u64,
    honest_already: u64,
    detected: u64,
    forger_named: u64,
    accomplice_named: u64,
    framed: u64,
    blamed: BTreeMap<u16, u64>,
}

impl Tally {
    fn merge(mut self, o: Tally) -> Tally {
        self.forced += o.forced;
        self.honest_already += o.honest_already;
        self.detected += o.detected;
        self.forger_named += o.forger_named;
        self.accomplice_named += o.accomplice_named;
        self.framed += o.framed;
        for (k, v) in o.blamed {
            *self.blamed.entry(k).or_insert(0) += v;
        }
        self
    }

    /// The sum with a shard's row, or `None` if a count overflows.
    fn checked_add(mut self, r: &ForgeryRow) -> Option<Tally> {
        let add = |a: &mut u64, b: u64| -> Option<()> {
            *a = a.checked_add(b)?;
            Some(())
        };
        add(&mut self.forced, r.forced)?;
        add(&mut self.honest_already, r.honest_already)?;
        add(&mut self.detected, r.detected)?;
        add(&mut self.forger_named, r.forger_named)?;
        add(&mut self.accomplice_named, r.accomplice_named)?;
        add(&mut self.framed, r.framed)?;
        for (&k, &v) in &r.blamed {
            add(self.blamed.entry(k).or_insert(0), v)?;
        }
        Some(self)
    }

    /// The row of `trials` games of coalition `s`, forger `forger`, forcing `(target, card)`.
    fn row(
        self,
        s: &Coalition,
        forger: PartyId,
        (target, card): (u16, u16),
        trials: u64,
    ) -> ForgeryRow {
        ForgeryRow {
            coalition: s.numbers().to_vec(),
            forger: forger.0,
            accomplices: s.members().filter(|p| *p != forger).map(|p| p.0).collect(),
            target,
            card,
            trials,
            forced: self.forced,
            honest_already: self.honest_already,
            detected: self.detected,
            forger_named: self.forger_named,
            forger_named_interval: wilson(self.forger_named, trials, Z),
            accomplice_named: self.accomplice_named,
            framed: self.framed,
            blamed: self.blamed,
        }
    }
}

fn card_of(g: &Played, target: PartyId, op: u32) -> Option<u16> {
    g.finished.views[target.index()]
        .learned
        .iter()
        .find(|l| l.op == op)
        .map(|l| l.card)
}

/// Runs the forgery of `target`'s first private card to `card` by coalition `s` over `trials`
/// seeded games (a count, or one shard's [`Trials`]: game `t` is the unsplit run's game `t`);
/// `tick` is called once per game.
pub fn forge_card(
    schedule: &Schedule,
    s: &Coalition,
    target: PartyId,
    card: u16,
    trials: impl Into<Trials>,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<ForgeryRow, LeakageError> {
    if s.contains(target) {
        return Err(unreachable(format!("player {} is in {s}", target.0)));
    }
    let share: Trials = trials.into();
    if share.count() == 0 {
        return Err(unreachable("no trials".into()));
    }
    let forger = forger_of(schedule, s, target)?;
    let tally = share
        .par_iter()
        .map(|t| {
            let honest = play_schedule(schedule, None, &mut trial_rng(seed, t))?;
            let p = plan(schedule, &honest, s, target, card)?;
            let dev = Deviation::ForgeValue {
                nth: p.nth,
                value: p.value,
            };
            let g = play_schedule(schedule, Some((p.forger, dev)), &mut trial_rng(seed, t))?;
            tick();
            Ok::<_, LeakageError>(one(&honest, &g, s, &p, target, card))
        })
        .try_reduce(Tally::default, |a, b| Ok(a.merge(b)))?;
    Ok(tally.row(s, forger, (target.0, card), share.len()))
}

/// Adds up the rows of the shards `1/K … K/K` of one forgery run of `trials` games into the
/// unsplit run's row, the interval computed from the summed counts. Refuses a row of another
/// coalition, target or card, or whose games are not its shard's share.
pub fn merge_rows(parts: Vec<(Shard, ForgeryRow)>, trials: u64) -> Result<ForgeryRow, MergeError> {
    let parts = parts.into_iter().map(|(s, r)| (s, vec![r])).collect();
    let (first, sums) = add_up_shards(
        parts,
        trials,
        (Tally::default(), |r: &ForgeryRow| r.trials),
        |sum: &mut Tally, row, one| {
            if (
                &row.coalition,
                row.forger,
                &row.accomplices,
                row.target,
                row.card,
            ) != (
                &one.coalition,
                one.forger,
                &one.accomplices,
                one.target,
                one.card,
            ) {
                return Err(format!(
                    "a forgery of player {}'s card to {} by {:?}",
                    row.target, row.card, row.coalition
                ));
            }
            *sum = std::mem::take(sum)
                .checked_add(row)
                .ok_or_else(|| "its counts overflow the sums".to_owned())?;
            Ok(())
        },
    )?;
    let (Some(one), Some(sum)) = (first.into_iter().next(), sums.into_iter().next()) else {
        return Err(MergeError::NoShards);
    };
    let coalition = Coalition::new(one.coalition.iter().map(|&p| PartyId(p)));
    Ok(sum.row(
        &coalition,
        PartyId(one.forger),
        (one.target, one.card),
        trials,
    ))
}

fn one(honest: &Played, g: &Played, s: &Coalition, p: &Plan, target: PartyId, card: u16) -> Tally {
    let a = &g.finished.audit;
    let mut t = Tally {
        forced: u64::from(card_of(g, target, p.op) == Some(card)),
        honest_already: u64::from(card_of(honest, target, p.op) == Some(card)),
        detected: u64::from(!a.passed),
        forger_named: u64::from(a.blame == Some(p.forger)),
        ..Tally::default()
    };
    if let Some(b) = a.blame {
        t.blamed.insert(b.0, 1);
    }
    let named = |q: PartyId| a.findings.iter().any(|f| f.player == q);
    t.accomplice_named = u64::from(s.members().any(|q| q != p.forger && named(q)));
    t.framed = u64::from(a.findings.iter().any(|f| !s.contains(f.player)));
    t
}
