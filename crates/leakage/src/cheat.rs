//! The cheating harness: every [`Deviation`] of every player that can make it, run over many
//! seeded games, against the honest game with the same seed.
//!
//! For each deviation the harness reports, over `trials` games (trial `t` seeded with
//! [`facedown_core::rng::trial_rng`]`(seed, t)`; the deviations do not change what is drawn, so
//! the honest game with the same seed is the same deal played honestly):
//!
//! * **steered**: games in which some player ended up with a card (private or public) that
//!   differs from the honest game's — what the cheater changed before the audit;
//! * **aborted**: games in which some opening never completed;
//! * **detected** and **named**: games in which the audit fails, and in which its first
//!   finding names the cheater (with Wilson intervals);
//! * the first finding's kind;
//! * **no such message**: games in which the deviation names a message the player never sends
//!   (`value@0` of a player who sends nothing in the schedule) — reported, never counted as a
//!   clean pass.
//!
//! Two strategic deviations are built from the dealer's primitives:
//!
//! * **selective abort** by the last player: he sees each public card before anyone else and
//!   withholds the announcement when the card is in the lower half of the deck. The harness
//!   reports the rate of public cards in the upper half among completed games (1/2 would be
//!   fair);
//! * **late choice** of a permutation ([`Deviation::SwitchPermutation`]: he plays
//!   `A_j ∘ (1 2)` after committing to `A_j`).
//!
//! The scheme played is the permutation-sharing dealer \[perm-sharing-dealer\].
//!
//! A run splits into shards by game ([`cheat_table_share`]); every row holds integer counts,
//! and [`merge_rows`] adds them up and computes the intervals from the sums, so the merge is the
//! unsplit table exactly.

use std::collections::BTreeMap;

use facedown_cards::search::{MergeError, Shard, Trials};
use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use facedown_dealer::{Deviation, Scheme};

use crate::dealer::{play_schedule, Played, Schedule};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::LeakageError;
use crate::harness::{add_up_shards, wilson};
use crate::montecarlo::Z;

/// One deviation, measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheatRow {
    /// The cheater.
    pub player: u16,
    /// The deviation, in the dealer CLI's syntax (`value@0`, `switch`, …) or `selective-abort`.
    pub deviation: String,
    /// What it models.
    pub models: String,
    /// Games.
    pub trials: u64,
    /// Games where some learned card differs from the honest game.
    pub steered: u64,
    /// Games with an opening that never completed.
    pub aborted: u64,
    /// Games where the audit fails.
    pub detected: u64,
    /// Wilson interval of the detection rate.
    pub detected_interval: (f64, f64),
    /// Games where the audit's first finding names the cheater.
    pub named: u64,
    /// Wilson interval of the naming rate.
    pub named_interval: (f64, f64),
    /// Games where the audit names someone else (must be 0).
    pub framed: u64,
    /// Games in which the message the deviation names does not exist (the player sends fewer
    /// messages): the game is honest, and not counted as a cheater who escaped.
    pub no_such_message: u64,
    /// The first finding's kind, with how often it was first.
    pub first_findings: BTreeMap<String, u64>,
    /// For selective abort: completed games whose public card is in the upper half, and the
    /// completed games.
    pub favourable: Option<(u64, u64)>,
}

fn deviations(
    scheme: &Scheme,
    public: usize,
) -> Vec<(PartyId, Option<Deviation>, &'static str, &'static str)> {
    let last = scheme.last();
    let mut v = Vec::new();
    for p in PartyId::all(scheme.players) {
        v.push((
            p,
            Some(Deviation::WrongValue { nth: 0, offset: 0 }),
            "value@0",
            "forwards a wrong value in his first value message",
        ));
        v.push((
            p,
            Some(Deviation::SwitchPermutation),
            "switch",
            "late choice: plays (and opens) A_j∘(1 2) after committing to A_j",
        ));
        v.push((
            p,
            Some(Deviation::RevealOther),
            "reveal",
            "plays honestly, opens a different permutation than committed",
        ));
        v.push((
            p,
            Some(Deviation::Withhold { nth: 0 }),
            "withhold@0",
            "stops sending from his first value message (abort)",
        ));
    }
    if public > 0 {
        v.push((
            last,
            Some(Deviation::WrongAnnouncement { nth: 0 }),
            "announce@0",
            "the last player announces a wrong public card",
        ));
        v.push((
            last,
            None,
            "selective-abort",
            "the last player withholds the first public card when it is in the lower half",
        ));
    }
    if !scheme.pairs.is_empty() {
        v.push((
            last,
            Some(Deviation::WrongHelper),
            "helper",
            "the last player hands out a helper half that does not compose to A_N",
        ));
    }
    v
}

fn learned(game: &Played) -> Vec<(u16, u32, u16)> {
    let mut out: Vec<(u16, u32, u16)> = game
        .finished
        .views
        .iter()
        .flat_map(|v| v.learned.iter().map(move |l| (v.party.0, l.op, l.card)))
        .collect();
    out.sort_unstable();
    out
}

/// What the games of one deviation add up to.
#[derive(Debug, Default)]
struct Outcome {
    steered: u64,
    aborted: u64,
    detected: u64,
    named: u64,
    framed: u64,
    no_such_message: u64,
    first_findings: BTreeMap<String, u64>,
    /// Completed games whose first public card is in the upper half, and completed games.
    favourable: (u64, u64),
}

impl Outcome {
    /// One game of the deviation of `cheater`: whether it steered what was learned, and what
    /// the audit said.
    fn of(g: &Played, steered: bool, cheater: PartyId, half: u16) -> Outcome {
        let a = &g.finished.audit;
        let mut o = Outcome {
            steered: u64::from(steered),
            aborted: u64::from(!g.aborted.is_empty()),
            ..Outcome::default()
        };
        if !a.passed {
            o.detected = 1;
            match a.blame {
                Some(b) if b == cheater => o.named = 1,
                Some(_) => o.framed = 1,
                None => {}
            }
        }
        if let Some(f) = a.first() {
            let kind = serde_json::to_value(&f.what)
                .ok()
                .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(String::from))
                .unwrap_or_else(|| "unknown".into());
            o.first_findings.insert(kind, 1);
        }
        if g.aborted.is_empty() {
            if let Some(&c) = g.public.first() {
                o.favourable = (u64::from(c >= half), 1);
            }
        }
        o
    }

    fn merge(mut self, other: Outcome) -> Outcome {
        self.steered += other.steered;
        self.aborted += other.aborted;
        self.detected += other.detected;
        self.named += other.named;
        self.framed += other.framed;
        self.no_such_message += other.no_such_message;
        for (k, n) in other.first_findings {
            *self.first_findings.entry(k).or_insert(0) += n;
        }
        self.favourable.0 += other.favourable.0;
        self.favourable.1 += other.favourable.1;
        self
    }
}

impl CheatRow {
    /// The row with its Wilson intervals computed from its counts.
    fn with_intervals(mut self) -> CheatRow {
        self.detected_interval = wilson(self.detected, self.trials, Z);
        self.named_interval = wilson(self.named, self.trials, Z);
        self
    }

    /// This row's counts plus `other`'s (the same deviation), or `None` when a sum overflows.
    fn checked_add(&self, other: &CheatRow) -> Option<CheatRow> {
        let mut first_findings = self.first_findings.clone();
        for (k, n) in &other.first_findings {
            let slot = first_findings.entry(k.clone()).or_insert(0);
            *slot = slot.checked_add(*n)?;
        }
        let favourable = match (self.favourable, other.favourable) {
            (Some((a, b)), Some((c, d))) => Some((a.checked_add(c)?, b.checked_add(d)?)),
            (None, None) => None,
            _ => return None,
        };
        Some(CheatRow {
            trials: self.trials.checked_add(other.trials)?,
            steered: self.steered.checked_add(other.steered)?,
            aborted: self.aborted.checked_add(other.aborted)?,
            detected: self.detected.checked_add(other.detected)?,
            named: self.named.checked_add(other.named)?,
            framed: self.framed.checked_add(other.framed)?,
            no_such_message: self.no_such_message.checked_add(other.no_such_message)?,
            first_findings,
            favourable,
            ..self.clone()
        })
    }
}

/// Adds up the tables of the shards `1/K … K/K` of one run of `trials` games per deviation
/// into the unsplit table. Refuses shards whose rows are other deviations, whose games are not
/// their share, or whose counts do not add up.
pub fn merge_rows(
    parts: Vec<(Shard, Vec<CheatRow>)>,
    trials: u64,
) -> Result<Vec<CheatRow>, MergeError> {
    let (_, sums) = add_up_shards(
        parts,
        trials,
        (None, |r: &CheatRow| r.trials),
        |sum: &mut Option<CheatRow>, row, one| {
            if (row.player, &row.deviation, &row.models)
                != (one.player, &one.deviation, &one.models)
            {
                return Err(format!(
                    "a row of player {} deviating by {}",
                    row.player, row.deviation
                ));
            }
            let added = match sum {
                None => Some(row.clone()),
                Some(s) => s.checked_add(row),
            };
            *sum = Some(
                added.ok_or_else(|| format!("its counts of {} do not add up", row.deviation))?,
            );
            Ok(())
        },
    )?;
    Ok(sums
        .into_iter()
        .flatten()
        .map(CheatRow::with_intervals)
        .collect())
}

/// Runs every deviation `trials` times on a deal of `hand` cards per player and `public`
/// public cards; `tick` is called once per game.
pub fn cheat_table(
    schedule: &Schedule,
    trials: u64,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<CheatRow>, LeakageError> {
    cheat_table_share(schedule, Trials::all(trials), seed, tick)
}

/// [`cheat_table`] of one shard's share of the games: game `t` is the unsplit run's game `t`,
/// and each row's `trials` is the share's.
pub fn cheat_table_share(
    schedule: &Schedule,
    share: Trials,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<CheatRow>, LeakageError> {
    let trials = share.len();
    let scheme = &schedule.scheme;
    let devs = deviations(scheme, schedule.public);
    let half = (scheme.cards / 2) as u16;
    devs.into_iter()
        .map(|(p, dev, name, models)| {
            // Each game is summed into an [`Outcome`] as it ends: memory does not grow with
            // the number of trials.
            let sum = share
                .par_iter()
                .map(|t| {
                    let honest = play_schedule(schedule, None, &mut trial_rng(seed, t))?;
                    let dev = match dev {
                        Some(d) => Some(d),
                        None => {
                            // Selective abort: the last player learns the first public card
                            // first; he withholds it when it is in the lower half.
                            let card = honest.public.first().copied().unwrap_or(half);
                            (card < half).then(|| {
                                // His value messages: one per opening he takes part in before
                                // the public batch (hands) — the announcement comes after.
                                let before = honest.finished.views.get(p.index()).map_or(0, |v| {
                                    v.sent
                                        .iter()
                                        .filter(|e| {
                                            matches!(e.body, facedown_dealer::Body::Value { .. })
                                                && e.to != facedown_dealer::Recipient::All
                                        })
                                        .count()
                                });
                                Deviation::Withhold { nth: before }
                            })
                        }
                    };
                    let view = &honest.finished.views[p.index()];
                    if dev.is_some_and(|d| !d.names_a_message(view)) {
                        tick();
                        return Ok(Outcome {
                            no_such_message: 1,
                            ..Outcome::default()
                        });
                    }
                    let game = match dev {
                        Some(d) => play_schedule(schedule, Some((p, d)), &mut trial_rng(seed, t))?,
                        None => honest.clone(),
                    };
                    tick();
                    Ok::<_, LeakageError>(Outcome::of(
                        &game,
                        learned(&honest) != learned(&game),
                        p,
                        half,
                    ))
                })
                .try_reduce(Outcome::default, |a, b| Ok(a.merge(b)))?;
            let mut row = CheatRow {
                player: p.0,
                deviation: name.into(),
                models: models.into(),
                trials,
                steered: sum.steered,
                aborted: sum.aborted,
                detected: sum.detected,
                detected_interval: (0.0, 1.0),
                named: sum.named,
                named_interval: (0.0, 1.0),
                framed: sum.framed,
                no_such_message: sum.no_such_message,
                first_findings: sum.first_findings,
                favourable: None,
            };
            let fav = sum.favourable;
            if name == "selective-abort" {
                row.favourable = Some(fav);
            }
            Ok(row.with_intervals())
        })
        .collect()
}
