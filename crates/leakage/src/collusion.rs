//! The collusion table and the leakage-against-openings sweep (the command line prints them).
//!
//! For a schedule of openings, every non-empty proper coalition `S` and every target `T`
//! ([`DealerTarget::for_coalition`]), a [`Row`] gives the exact excess leakage
//! `I(T; V_S | V_S^ideal)` in bits, the fraction of the target's hidden cards the view
//! determines, and the attack that achieves it ([`Knowledge::explain`]).
//!
//! The scheme analysed is the permutation-sharing dealer \[perm-sharing-dealer\].

use facedown_dealer::Variant;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::dealer::{DealerExhaustive, DealerReduced, DealerTarget, Knowledge, Schedule};
use crate::error::LeakageError;
use crate::harness::{measure_exact, Coalition, Measure};

/// How the numbers are computed (written `exact`, `brute-force`, `closed-form`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Exact, by enumerating the `n!` deals with the reduced view ([`DealerReduced`]).
    Exact,
    /// Exact, by enumerating every permutation literally ([`DealerExhaustive`]); tiny decks.
    BruteForce,
    /// The closed form that the reduction implies ([`closed_form_measure`]), for any deck;
    /// checked against [`Method::Exact`] for small decks by the tests.
    ClosedForm,
}

/// The excess leakage about one card of a target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Marginal {
    /// The position `i`.
    pub position: usize,
    /// `I(A(i); V | V_ideal)` in bits.
    pub excess_bits: f64,
    /// Whether it is exactly zero.
    pub excess_is_zero: bool,
}

/// One line of the collusion table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// `general` or `published`.
    pub scheme: String,
    /// Number of players `N`.
    pub players: usize,
    /// Deck size `n`.
    pub cards: usize,
    /// The schedule of openings, in words.
    pub schedule: String,
    /// Cards per hand.
    pub hand: usize,
    /// Public cards.
    pub public: usize,
    /// The coalition's player numbers.
    pub coalition: Vec<u16>,
    /// The target, in words.
    pub target: String,
    /// Excess leakage `I(T; V | V_ideal)` in bits (float from the exact distribution).
    pub excess_bits: f64,
    /// Whether the excess is exactly zero (tested on exact rationals).
    pub excess_is_zero: bool,
    /// Fraction of the target's hidden cards (unknown to an ideal coalition) that the view
    /// determines; `None` when nothing is hidden.
    pub determined_fraction: Option<f64>,
    /// Hidden cards of the target.
    pub hidden: usize,
    /// Of which determined.
    pub determined: usize,
    /// The attack that achieves the leakage (empty when there is none).
    pub attack: String,
    /// All exact measures.
    pub measure: Measure,
    /// The per-card marginals: for each position `i` of the target, the excess leakage
    /// `I(A(i); V | V_ideal)` about that one card alone, in bits. A marginal counts what the
    /// view says about one card whatever it says about the others, so the marginals of a
    /// target need not add up to its joint `excess_bits` (knowing two cards are different is
    /// joint information that no marginal shows).
    pub marginal: Vec<Marginal>,
    /// What the audit reveals: it opens every commitment, so afterwards every coalition
    /// knows the whole deal; this is `H(T | V_ideal)` in bits, the target's uncertainty that
    /// an ideal dealer would have kept and the audit removes (every folded hand made public).
    pub audit_reveals_bits: f64,
    /// How it was computed.
    pub method: Method,
}

fn variant_name(v: Variant) -> &'static str {
    match v {
        Variant::General => "general",
        Variant::Published => "published",
    }
}

/// The collusion table of `schedule`: every coalition × target.
pub fn collusion_table(schedule: &Schedule, method: Method) -> Result<Vec<Row>, LeakageError> {
    let players = schedule.scheme.players;
    if method == Method::ClosedForm {
        return Ok(Coalition::all_proper(players)
            .into_iter()
            .flat_map(|c| {
                DealerTarget::for_coalition(schedule, &c)
                    .into_iter()
                    .map(move |t| (c.clone(), t))
            })
            .map(|(c, t)| {
                let m = closed_form_measure(schedule, &c, &t);
                let mut r = row(schedule, &c, &t, m, method);
                let closed = |t: &DealerTarget| Ok(closed_form_measure(schedule, &c, t));
                r.marginal = marginals(schedule, &t, closed).unwrap_or_default();
                r
            })
            .collect());
    }
    let reduced = DealerReduced::new(schedule.clone());
    let exhaustive = match method {
        Method::BruteForce => Some(DealerExhaustive::new(schedule.clone())?),
        Method::Exact | Method::ClosedForm => None,
    };
    let reduced = match (&exhaustive, reduced) {
        (None, r) => Some(r?),
        (Some(_), r) => r.ok(),
    };
    let mut jobs: Vec<(Coalition, DealerTarget)> = Vec::new();
    for c in Coalition::all_proper(players) {
        for t in DealerTarget::for_coalition(schedule, &c) {
            jobs.push((c.clone(), t));
        }
    }
    jobs.par_iter()
        .map(|(c, t)| {
            let measure = |t: &DealerTarget| -> Result<Measure, LeakageError> {
                Ok(match (&exhaustive, &reduced) {
                    (Some(e), _) => measure_exact(e, c, t)?,
                    (None, Some(r)) => measure_exact(r, c, t)?,
                    (None, None) => closed_form_measure(schedule, c, t),
                })
            };
            let mut r = row(schedule, c, t, measure(t)?, method);
            r.marginal = marginals(schedule, t, measure)?;
            Ok(r)
        })
        .collect()
}

/// The marginal of every position of `t` (none for a single card, which is its own marginal).
fn marginals(
    schedule: &Schedule,
    t: &DealerTarget,
    measure: impl Fn(&DealerTarget) -> Result<Measure, LeakageError>,
) -> Result<Vec<Marginal>, LeakageError> {
    if matches!(t, DealerTarget::Card(_)) {
        return Ok(Vec::new());
    }
    t.positions(schedule)
        .into_iter()
        .map(|i| {
            let m = measure(&DealerTarget::Card(i))?;
            Ok(Marginal {
                position: i,
                excess_bits: m.excess_bits,
                excess_is_zero: m.excess_is_zero,
            })
        })
        .collect()
}

fn row(schedule: &Schedule, c: &Coalition, t: &DealerTarget, m: Measure, method: Method) -> Row {
    let attack = if m.excess_is_zero {
        String::new()
    } else {
        let k = Knowledge::of(schedule, c);
        let direct = k.explain(schedule, c, &t.positions(schedule));
        if direct.is_empty() {
            let all: Vec<usize> = (0..schedule.scheme.cards).collect();
            format!(
                "indirect: {}; those cards are not in the target",
                k.explain(schedule, c, &all)
            )
        } else {
            direct
        }
    };
    Row {
        scheme: variant_name(schedule.scheme.variant).into(),
        players: schedule.scheme.players,
        cards: schedule.scheme.cards,
        schedule: schedule.describe(),
        hand: schedule.hand,
        public: schedule.public,
        coalition: c.numbers().to_vec(),
        target: t.to_string(),
        excess_bits: m.excess_bits,
        excess_is_zero: m.excess_is_zero,
        determined_fraction: m.determined_fraction(),
        hidden: m.hidden,
        determined: m.determined,
        attack,
        // Exactly 0 when the ideal view determines every card of the target.
        audit_reveals_bits: if m.hidden == 0 {
            0.0
        } else {
            (m.target_entropy_bits - m.ideal_bits).max(0.0)
        },
        measure: m,
        method,
        marginal: Vec::new(),
    }
}

fn log2_falling(n: usize, k: usize) -> f64 {
    // log2(n · (n−1) ⋯ (n−k+1))
    (0..k).map(|j| ((n - j) as f64).log2()).sum()
}

/// The closed form of the excess leakage for a target made of the cards at `target`
/// positions when the coalition knows the cards at `known` and would know those at `ideal`
/// (`ideal ⊆ known`): the deal is uniform, so `I(A|_P; A|_R) = log2 n^(|P|)↓ −
/// log2 (n − |R|)^(|P∖R|)↓` (falling factorials), and the excess is the difference for `R =
/// known` and `R = ideal`.
pub fn closed_form_excess(n: usize, target: &[usize], known: &[usize], ideal: &[usize]) -> f64 {
    let info = |r: &[usize]| {
        let outside = target.iter().filter(|i| !r.contains(i)).count();
        log2_falling(n, target.len()) - log2_falling(n - r.len(), outside)
    };
    (info(known) - info(ideal)).max(0.0)
}

/// Every measure in closed form (see [`closed_form_excess`]): the deal is uniform and the view
/// is `A` restricted to the positions of [`Knowledge::of`], so with `R` those positions,
/// `P` the target's and `I` the ideal ones: the best guess of `T` is right with probability
/// `1 / (n − |R|)^(|P∖R|)↓`, the excess is zero exactly when `R = I` or `P ⊆ I`, and a
/// hidden card of `P ∖ I` is determined exactly when it lies in `R` or only one card is left
/// outside `R`.
pub fn closed_form_measure(schedule: &Schedule, c: &Coalition, t: &DealerTarget) -> Measure {
    let n = schedule.scheme.cards;
    let p = t.positions(schedule);
    let known = Knowledge::of(schedule, c).positions();
    let ideal: Vec<usize> = schedule
        .openings
        .iter()
        .filter(|o| o.ideal_for(c))
        .map(|o| o.position)
        .collect();
    let info = |r: &[usize]| {
        let outside = p.iter().filter(|i| !r.contains(i)).count();
        log2_falling(n, p.len()) - log2_falling(n - r.len(), outside)
    };
    let falling = |from: usize, k: usize| -> num_bigint::BigInt {
        (0..k).fold(num_bigint::BigInt::from(1), |a, j| a * (from - j))
    };
    let guess = |r: &[usize]| {
        let outside = p.iter().filter(|i| !r.contains(i)).count();
        crate::harness::Q::new(1.into(), falling(n - r.len(), outside)).to_string()
    };
    // A position outside R is determined only by elimination, when one card is left.
    let determined_by = |r: &[usize], i: &usize| r.contains(i) || n - r.len() <= 1;
    let hidden: Vec<usize> = p
        .iter()
        .copied()
        .filter(|i| !determined_by(&ideal, i))
        .collect();
    let zero = hidden.is_empty() || known.len() == ideal.len();
    let (vb, ib) = (info(&known), info(&ideal));
    let gq = guess(&known);
    Measure {
        target_entropy_bits: log2_falling(n, p.len()),
        view_bits: vb,
        ideal_bits: ib,
        excess_bits: if zero { 0.0 } else { (vb - ib).max(0.0) },
        excess_is_zero: zero,
        ideal_in_view: true,
        guess_probability_f64: gq
            .split_once('/')
            .and_then(|(a, b)| Some(a.parse::<f64>().ok()? / b.parse::<f64>().ok()?))
            .unwrap_or(1.0),
        guess_probability: gq,
        ideal_guess_probability: guess(&ideal),
        hidden: hidden.len(),
        determined: hidden.iter().filter(|i| determined_by(&known, i)).count(),
    }
}

/// One point of a sweep: the excess leakage about the whole deal after `openings` openings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The coalition.
    pub coalition: Vec<u16>,
    /// `public` or `private` openings.
    pub kind: String,
    /// Number of openings.
    pub openings: usize,
    /// Excess leakage about the whole deal, bits.
    pub excess_bits: f64,
    /// Exactly zero.
    pub excess_is_zero: bool,
}

/// Excess leakage about the whole deal against the number of openings, for every coalition:
/// `k = 0..=n` public openings, and hands of `h = 0..=n/N` (so `N·h` private openings).
/// Exact enumeration for `n ≤ 8`, the closed form beyond.
pub fn sweep(scheme: &facedown_dealer::Scheme) -> Result<Vec<SweepPoint>, LeakageError> {
    let n = scheme.cards;
    let mut schedules = Vec::new();
    for k in 0..=n {
        schedules.push(("public", k, Schedule::new(scheme, 0, k)?));
    }
    for h in 1..=n / scheme.players {
        let s = Schedule::new(scheme, h, 0)?;
        let k = s.openings.len();
        schedules.push(("private", k, s));
    }
    sweep_points(scheme, schedules)
}

/// Excess leakage about the whole deal after each prefix of `schedule` (0 to all of its
/// openings, in order), for every coalition; kind `"schedule"`. Exact for `n ≤ 8`, the closed
/// form beyond.
pub fn sweep_schedule(schedule: &Schedule) -> Result<Vec<SweepPoint>, LeakageError> {
    let schedules = (0..=schedule.openings.len())
        .map(|k| ("schedule", k, schedule.prefix(k)))
        .collect();
    sweep_points(&schedule.scheme, schedules)
}

fn sweep_points(
    scheme: &facedown_dealer::Scheme,
    schedules: Vec<(&str, usize, Schedule)>,
) -> Result<Vec<SweepPoint>, LeakageError> {
    let n = scheme.cards;
    let mut out = Vec::new();
    for (kind, k, s) in schedules {
        let model = if n <= crate::dealer::REDUCED_MAX_CARDS.min(8) {
            Some(DealerReduced::new(s.clone())?)
        } else {
            None
        };
        let coalitions = Coalition::all_proper(scheme.players);
        let pts: Result<Vec<SweepPoint>, LeakageError> = coalitions
            .par_iter()
            .map(|c| {
                let m = match &model {
                    Some(model) => measure_exact(model, c, &DealerTarget::Deal)?,
                    None => closed_form_measure(&s, c, &DealerTarget::Deal),
                };
                Ok(SweepPoint {
                    coalition: c.numbers().to_vec(),
                    kind: kind.into(),
                    openings: k,
                    excess_bits: m.excess_bits,
                    excess_is_zero: m.excess_is_zero,
                })
            })
            .collect();
        out.extend(pts?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use facedown_dealer::Scheme;

    #[test]
    fn closed_form_agrees_with_enumeration() {
        let scheme = Scheme::general(3, 6).expect("scheme");
        let sched = Schedule::new(&scheme, 1, 2).expect("schedule");
        for r in collusion_table(&sched, Method::Exact).expect("table") {
            let c = Coalition::new(r.coalition.iter().map(|&p| facedown_core::PartyId(p)));
            let t = DealerTarget::for_coalition(&sched, &c)
                .into_iter()
                .find(|t| t.to_string() == r.target)
                .expect("target");
            let known = Knowledge::of(&sched, &c).positions();
            let ideal: Vec<usize> = sched
                .openings
                .iter()
                .filter(|o| o.ideal_for(&c))
                .map(|o| o.position)
                .collect();
            let f = closed_form_excess(6, &t.positions(&sched), &known, &ideal);
            assert!((f - r.excess_bits).abs() < 1e-9, "{r:?} vs {f}");
            let m = closed_form_measure(&sched, &c, &t);
            assert_eq!(m.excess_is_zero, r.excess_is_zero, "{r:?}");
            assert_eq!(m.guess_probability, r.measure.guess_probability, "{r:?}");
            assert_eq!((m.hidden, m.determined), (r.hidden, r.determined), "{r:?}");
            assert!((m.view_bits - r.measure.view_bits).abs() < 1e-9, "{r:?}");
        }
    }
}
