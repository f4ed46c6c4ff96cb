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
//! * the first finding's kind.
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

use std::collections::BTreeMap;

use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use facedown_dealer::{Deviation, Scheme};

use crate::dealer::{play_schedule, Played, Schedule};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::LeakageError;
use crate::harness::wilson;
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

/// Runs every deviation `trials` times on a deal of `hand` cards per player and `public`
/// public cards; `tick` is called once per game.
pub fn cheat_table(
    schedule: &Schedule,
    trials: u64,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<CheatRow>, LeakageError> {
    let scheme = &schedule.scheme;
    let devs = deviations(scheme, schedule.public);
    let half = (scheme.cards / 2) as u16;
    devs.into_iter()
        .map(|(p, dev, name, models)| {
            let games: Result<Vec<_>, LeakageError> = (0..trials)
                .into_par_iter()
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
                    let game = match dev {
                        Some(d) => play_schedule(schedule, Some((p, d)), &mut trial_rng(seed, t))?,
                        None => honest.clone(),
                    };
                    tick();
                    Ok((learned(&honest) != learned(&game), game))
                })
                .collect();
            let games = games?;
            let mut row = CheatRow {
                player: p.0,
                deviation: name.into(),
                models: models.into(),
                trials,
                steered: 0,
                aborted: 0,
                detected: 0,
                detected_interval: (0.0, 1.0),
                named: 0,
                named_interval: (0.0, 1.0),
                framed: 0,
                first_findings: BTreeMap::new(),
                favourable: None,
            };
            let mut fav = (0u64, 0u64);
            for (steered, g) in &games {
                row.steered += u64::from(*steered);
                row.aborted += u64::from(!g.aborted.is_empty());
                let a = &g.finished.audit;
                if !a.passed {
                    row.detected += 1;
                    match a.blame {
                        Some(b) if b == p => row.named += 1,
                        Some(_) => row.framed += 1,
                        None => {}
                    }
                }
                if let Some(f) = a.first() {
                    let kind = serde_json::to_value(&f.what)
                        .ok()
                        .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(String::from))
                        .unwrap_or_else(|| "unknown".into());
                    *row.first_findings.entry(kind).or_insert(0) += 1;
                }
                if g.aborted.is_empty() {
                    if let Some(&c) = g.public.first() {
                        fav.1 += 1;
                        fav.0 += u64::from(c >= half);
                    }
                }
            }
            if name == "selective-abort" {
                row.favourable = Some(fav);
            }
            row.detected_interval = wilson(row.detected, trials, Z);
            row.named_interval = wilson(row.named, trials, Z);
            Ok(row)
        })
        .collect()
}

/// The cheating table as markdown.
pub fn markdown(rows: &[CheatRow]) -> String {
    let mut s = String::from(
        "| player | deviation | models | steered | aborted | detected | named [99.9 % Wilson] | framed | first finding |\n\
         |---:|---|---|---:|---:|---:|---|---:|---|\n",
    );
    for r in rows {
        let first: Vec<String> = r
            .first_findings
            .iter()
            .map(|(k, n)| format!("{k} ×{n}"))
            .collect();
        let models = match r.favourable {
            Some((f, c)) => format!(
                "{} (public card in the upper half in {f} of {c} completed games)",
                r.models
            ),
            None => r.models.clone(),
        };
        s.push_str(&format!(
            "| {} | `{}` | {} | {}/{} | {} | {}/{} | {}/{} [{:.3}, {:.3}] | {} | {} |\n",
            r.player,
            r.deviation,
            models,
            r.steered,
            r.trials,
            r.aborted,
            r.detected,
            r.trials,
            r.named,
            r.trials,
            r.named_interval.0,
            r.named_interval.1,
            r.framed,
            if first.is_empty() {
                "—".into()
            } else {
                first.join(", ")
            },
        ));
    }
    s
}
