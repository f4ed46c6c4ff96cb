//! The harness: a protocol run that records every party's complete view, and exact measures
//! of what a coalition's view says about a target.
//!
//! A [`RecordedProtocol`] enumerates its runs with their exact probabilities (or samples one).
//! From a run it extracts the **view** of a coalition (everything its members hold, send,
//! receive and learn), the **ideal view** (what the coalition would know from an ideal trusted
//! dealer: its own cards and the public cards) and the value of a **target** (another player's
//! hand, the undealt cards, the whole deal, a protocol's input …).
//!
//! [`measure_exact`] builds the exact joint distribution of `(T, V, V_ideal)` with rational
//! probabilities and reports
//!
//! * `I(T; V)` and `I(T; V_ideal)` in bits,
//! * the **excess leakage** `I(T; V | V_ideal) = I(T; V, V_ideal) − I(T; V_ideal)`, which equals
//!   `I(T; V) − I(T; V_ideal)` whenever the view determines the ideal view (checked exactly and
//!   reported as [`Measure::ideal_in_view`]),
//! * whether the excess is **exactly** zero (conditional independence tested on the rationals,
//!   not on floats),
//! * the probability that the Bayes-optimal guess of `T` from the view is right, exactly,
//! * which coordinates of `T` the view determines.
//!
//! Bits are `f64` computed from the exact distribution (each term `p·log2(p(t,v)/(p(t)p(v)))`
//! with the ratio's numerator and denominator formed as exact integers); the zero test, the
//! guessing probability and the determined coordinates are exact.
//!
//! The harness is generic; in this crate its subject is the permutation-sharing dealer
//! \[perm-sharing-dealer\] ([`crate::dealer`]).

use std::collections::HashMap;
use std::fmt;

use facedown_core::PartyId;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use facedown_cards::search::{in_shard_order, MergeError, Shard, Trials};

use crate::error::LeakageError;

/// Exact probabilities.
pub type Q = BigRational;

/// A set of players pooling their views, numbered from 1.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Coalition(Vec<u16>);

impl Coalition {
    /// The coalition of `members` (sorted, deduplicated).
    pub fn new(members: impl IntoIterator<Item = PartyId>) -> Coalition {
        let mut v: Vec<u16> = members.into_iter().map(|p| p.0).collect();
        v.sort_unstable();
        v.dedup();
        Coalition(v)
    }

    /// Every non-empty proper subset of `1..=players`, by size then lexicographically.
    pub fn all_proper(players: usize) -> Vec<Coalition> {
        let mut out: Vec<Coalition> = (1u64..(1u64 << players) - 1)
            .map(|mask| {
                Coalition::new(
                    (0..players)
                        .filter(|j| mask >> j & 1 == 1)
                        .map(PartyId::from_index),
                )
            })
            .collect();
        out.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Whether `p` is a member.
    pub fn contains(&self, p: PartyId) -> bool {
        self.0.binary_search(&p.0).is_ok()
    }

    /// The members, ascending.
    pub fn members(&self) -> impl Iterator<Item = PartyId> + '_ {
        self.0.iter().map(|&p| PartyId(p))
    }

    /// The member numbers, ascending.
    pub fn numbers(&self) -> &[u16] {
        &self.0
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the coalition has no member.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Coalition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.0.iter().map(u16::to_string).collect();
        if self.0.len() == 1 {
            write!(f, "player {}", names.join(""))
        } else {
            write!(f, "players {}", names.join("+"))
        }
    }
}

/// A protocol whose runs record every party's complete view.
///
/// Views and target values are encoded as `Vec<u32>`; two runs give the same view exactly when
/// the encodings are equal, so an encoding must be injective on what the party can tell apart
/// (and fixed-length or self-delimiting where concatenated).
pub trait RecordedProtocol: Sync {
    /// One run: every random choice, or whatever determines every view.
    type Run;
    /// A quantity the coalition may want to learn.
    type Target: Clone + fmt::Display + Send + Sync;

    /// Number of parties, numbered `1..=parties()`.
    fn parties(&self) -> usize;

    /// The targets worth measuring for `coalition` (e.g. the hands of the players outside it).
    fn targets(&self, coalition: &Coalition) -> Vec<Self::Target>;

    /// Calls `f` once for every run with its exact probability; the probabilities sum to 1.
    fn for_each_run(&self, f: &mut dyn FnMut(&Self::Run, &Q)) -> Result<(), LeakageError>;

    /// Draws one run.
    fn sample_run(&self, rng: &mut ChaCha20Rng) -> Self::Run;

    /// The complete view of `coalition` in `run`.
    fn view(&self, run: &Self::Run, coalition: &Coalition) -> Vec<u32>;

    /// What `coalition` would know from an ideal trusted dealer in `run`.
    fn ideal_view(&self, run: &Self::Run, coalition: &Coalition) -> Vec<u32>;

    /// The value of `target` in `run` (one entry per coordinate, e.g. per card).
    fn target(&self, run: &Self::Run, target: &Self::Target) -> Vec<u32>;
}

/// Exact measures for one coalition and one target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measure {
    /// `H(T)` in bits.
    pub target_entropy_bits: f64,
    /// `I(T; V)` in bits.
    pub view_bits: f64,
    /// `I(T; V_ideal)` in bits.
    pub ideal_bits: f64,
    /// `I(T; V | V_ideal)` in bits: the excess leakage.
    pub excess_bits: f64,
    /// Whether `T` and `V` are exactly independent given `V_ideal` (excess exactly 0).
    pub excess_is_zero: bool,
    /// Whether the view determines the ideal view (then `excess = I(T;V) − I(T;V_ideal)`).
    pub ideal_in_view: bool,
    /// Exact probability that the best guess of `T` from `(V, V_ideal)` is right.
    pub guess_probability: String,
    /// The same as a float.
    pub guess_probability_f64: f64,
    /// Exact probability that the best guess of `T` from `V_ideal` alone is right.
    pub ideal_guess_probability: String,
    /// Coordinates of `T` not determined by the ideal view (hidden from an ideal coalition).
    pub hidden: usize,
    /// Of those, how many the view determines.
    pub determined: usize,
}

impl Measure {
    /// `determined / hidden`, or `None` when nothing is hidden.
    pub fn determined_fraction(&self) -> Option<f64> {
        (self.hidden > 0).then(|| self.determined as f64 / self.hidden as f64)
    }
}

type Key = Vec<u32>;

fn q_f64(q: &Q) -> f64 {
    q.to_f64().unwrap_or(f64::NAN)
}

/// Joint distribution with exact integer weights: `(t, v, v_ideal) → w`, probability `w / Σw`.
pub type Joint = HashMap<(Key, Key, Key), u128>;

type Id = u64;

/// Distinct keys numbered in order of appearance.
#[derive(Default)]
struct Interner {
    ids: HashMap<Key, Id>,
    keys: Vec<Key>,
}

impl Interner {
    fn id(&mut self, k: Key) -> Id {
        if let Some(&i) = self.ids.get(&k) {
            return i;
        }
        let i = self.keys.len() as Id;
        self.keys.push(k.clone());
        self.ids.insert(k, i);
        i
    }
}

/// The joint distribution over interned keys, and the target values by id.
#[derive(Default)]
struct Interned {
    joint: HashMap<(Id, Id, Id), u128>,
    t: Interner,
    v: Interner,
    vi: Interner,
}

impl Interned {
    fn add(&mut self, t: Key, v: Key, vi: Key, w: u128) {
        let k = (self.t.id(t), self.v.id(v), self.vi.id(vi));
        *self.joint.entry(k).or_insert(0) += w;
    }
}

fn add<K: std::hash::Hash + Eq + Copy>(map: &mut HashMap<K, u128>, k: K, w: u128) {
    *map.entry(k).or_insert(0) += w;
}

/// Coordinates determined by a conditioning variable: for each value of it, every target value
/// with positive probability agrees on the coordinate.
fn determined_mask(
    pairs: impl Iterator<Item = (Id, Id)>,
    targets: &[Key],
    width: usize,
) -> Vec<bool> {
    let mut first: HashMap<Id, (Id, Vec<bool>)> = HashMap::new();
    for (cond, t) in pairs {
        let e = first.entry(cond).or_insert_with(|| (t, vec![true; width]));
        let (base, tv) = (&targets[e.0 as usize], &targets[t as usize]);
        for (c, ok) in e.1.iter_mut().enumerate() {
            if base.get(c) != tv.get(c) {
                *ok = false;
            }
        }
    }
    let mut mask = vec![true; width];
    for (_, m) in first.values() {
        for (a, b) in mask.iter_mut().zip(m) {
            *a &= *b;
        }
    }
    mask
}

/// `Σ p(a,b) log2(p(a,b) / (p(a) p(b)))` over a joint given as `(a, b) → w` with total `total`.
fn mutual_information(joint: &HashMap<(Id, Id), u128>, total: u128) -> f64 {
    let mut pa: HashMap<Id, u128> = HashMap::new();
    let mut pb: HashMap<Id, u128> = HashMap::new();
    for (&(a, b), &w) in joint {
        add(&mut pa, a, w);
        add(&mut pb, b, w);
    }
    let t = total as f64;
    let mut bits = 0.0;
    for (&(a, b), &w) in joint {
        if w == 0 {
            continue;
        }
        // The ratio p(a,b)/(p(a)p(b)) = w·total/(w_a·w_b), from exact integers when the
        // products fit in 128 bits (always, for the decks enumerated here).
        let ratio = match (w.checked_mul(total), pa[&a].checked_mul(pb[&b])) {
            (Some(x), Some(y)) if x == y => 1.0,
            (Some(x), Some(y)) => x as f64 / y as f64,
            _ => (w as f64 / pa[&a] as f64) * (t / pb[&b] as f64),
        };
        bits += (w as f64 / t) * ratio.log2();
    }
    bits.max(0.0)
}

fn entropy(m: &HashMap<Id, u128>, total: u128) -> f64 {
    -m.values()
        .filter(|w| **w > 0)
        .map(|&w| {
            let x = w as f64 / total as f64;
            x * x.log2()
        })
        .sum::<f64>()
}

fn guess(joint: &HashMap<(Id, Id), u128>, total: u128) -> Q {
    // Σ_v max_t p(t, v), keys are (t, v).
    let mut best: HashMap<Id, u128> = HashMap::new();
    for (&(_, v), &w) in joint {
        let e = best.entry(v).or_insert(w);
        if w > *e {
            *e = w;
        }
    }
    let sum: u128 = best.values().sum();
    Q::new(BigInt::from(sum), BigInt::from(total))
}

/// Measures, exactly, what `coalition` learns about `target` in `protocol`, by enumerating every
/// run.
///
/// Runs of equal probability are counted as integers; if the probabilities differ, they are
/// brought to a common denominator (exactly) before the measures are taken.
pub fn measure_exact<P: RecordedProtocol>(
    protocol: &P,
    coalition: &Coalition,
    target: &P::Target,
) -> Result<Measure, LeakageError> {
    let mut base: Option<Q> = None;
    let mut counts = Interned::default();
    let mut other: HashMap<(Key, Key, Key), Q> = HashMap::new();
    protocol.for_each_run(&mut |run, p| {
        let (t, v, vi) = (
            protocol.target(run, target),
            protocol.view(run, coalition),
            protocol.ideal_view(run, coalition),
        );
        let b = base.get_or_insert_with(|| p.clone());
        if p == &*b {
            counts.add(t, v, vi, 1);
        } else {
            *other.entry((t, v, vi)).or_insert_with(Q::zero) += p;
        }
    })?;
    let Some(base) = base else {
        return Err(LeakageError::NotADistribution("0 (no runs)".into()));
    };
    if other.is_empty() {
        let total: u128 = counts.joint.values().sum();
        let check = &base * Q::from_integer(BigInt::from(total));
        if !check.is_one() {
            return Err(LeakageError::NotADistribution(check.to_string()));
        }
        return summarize_interned(&counts);
    }
    let mut exact: HashMap<(Key, Key, Key), Q> = other;
    for (&(t, v, vi), &c) in &counts.joint {
        let key = (
            counts.t.keys[t as usize].clone(),
            counts.v.keys[v as usize].clone(),
            counts.vi.keys[vi as usize].clone(),
        );
        *exact.entry(key).or_insert_with(Q::zero) += &base * Q::from_integer(BigInt::from(c));
    }
    summarize(&to_weights(exact)?)
}

/// Brings exact probabilities to integer weights over their common denominator.
pub fn to_weights(exact: HashMap<(Key, Key, Key), Q>) -> Result<Joint, LeakageError> {
    let total: Q = exact.values().fold(Q::zero(), |a, b| a + b);
    if !total.is_one() {
        return Err(LeakageError::NotADistribution(total.to_string()));
    }
    let lcm = exact
        .values()
        .fold(BigInt::from(1), |l, q| num_integer_lcm(&l, q.denom()));
    exact
        .into_iter()
        .map(|(k, q)| {
            let w = (q * Q::from_integer(lcm.clone())).to_integer();
            let w = w
                .to_u128()
                .ok_or_else(|| LeakageError::NotADistribution("weights overflow u128".into()))?;
            Ok((k, w))
        })
        .collect()
}

fn num_integer_lcm(a: &BigInt, b: &BigInt) -> BigInt {
    use num_integer::Integer;
    a.lcm(b)
}

/// Measures from an exact joint distribution with integer weights.
pub fn summarize(joint: &Joint) -> Result<Measure, LeakageError> {
    let mut i = Interned::default();
    for ((t, v, vi), &w) in joint {
        i.add(t.clone(), v.clone(), vi.clone(), w);
    }
    summarize_interned(&i)
}

fn summarize_interned(i: &Interned) -> Result<Measure, LeakageError> {
    let joint = &i.joint;
    let total: u128 = joint.values().sum();
    if total == 0 {
        return Err(LeakageError::NotADistribution("0".into()));
    }
    let width = i.t.keys.iter().map(Vec::len).max().unwrap_or(0);
    let mut t_v: HashMap<(Id, Id), u128> = HashMap::new();
    let mut t_vi: HashMap<(Id, Id), u128> = HashMap::new();
    let mut t_both: HashMap<(Id, Id), u128> = HashMap::new();
    let mut v_vi: HashMap<(Id, Id), u128> = HashMap::new();
    let mut pt: HashMap<Id, u128> = HashMap::new();
    let mut p_vi: HashMap<Id, u128> = HashMap::new();
    let mut v_to_vi: HashMap<Id, Id> = HashMap::new();
    let mut ideal_in_view = true;
    for (&(t, v, vi), &w) in joint {
        let both = v << 32 | vi;
        add(&mut t_v, (t, v), w);
        add(&mut t_vi, (t, vi), w);
        add(&mut t_both, (t, both), w);
        add(&mut v_vi, (v, vi), w);
        add(&mut pt, t, w);
        add(&mut p_vi, vi, w);
        if let Some(prev) = v_to_vi.insert(v, vi) {
            if prev != vi {
                ideal_in_view = false;
            }
        }
    }
    let view_bits = mutual_information(&t_v, total);
    let ideal_bits = mutual_information(&t_vi, total);
    let both_bits = mutual_information(&t_both, total);
    // Exact conditional independence of T and V given V_ideal:
    // w(t,v,vi)·w(vi) = w(t,vi)·w(v,vi) for every triple, and every (t, v) compatible with vi
    // occurs (otherwise a zero weight would break the identity).
    let big = |x: u128| BigInt::from(x);
    let mut zero = true;
    let mut count_per_vi: HashMap<Id, usize> = HashMap::new();
    for (&(t, v, vi), &w) in joint {
        if w == 0 {
            continue;
        }
        *count_per_vi.entry(vi).or_insert(0) += 1;
        let lhs = big(w) * big(p_vi[&vi]);
        let rhs = big(t_vi[&(t, vi)]) * big(v_vi[&(v, vi)]);
        if lhs != rhs {
            zero = false;
        }
    }
    if zero {
        let mut ts: HashMap<Id, usize> = HashMap::new();
        let mut vs: HashMap<Id, usize> = HashMap::new();
        for (&(_, vi), w) in &t_vi {
            if *w > 0 {
                *ts.entry(vi).or_insert(0) += 1;
            }
        }
        for (&(_, vi), w) in &v_vi {
            if *w > 0 {
                *vs.entry(vi).or_insert(0) += 1;
            }
        }
        for (vi, n) in &count_per_vi {
            if ts.get(vi).copied().unwrap_or(0) * vs.get(vi).copied().unwrap_or(0) != *n {
                zero = false;
            }
        }
    }
    let guess_q = guess(&t_both, total);
    let ideal_guess_q = guess(&t_vi, total);
    let ideal_mask = determined_mask(t_vi.keys().map(|&(t, vi)| (vi, t)), &i.t.keys, width);
    let both_mask = determined_mask(t_both.keys().map(|&(t, b)| (b, t)), &i.t.keys, width);
    let hidden = ideal_mask.iter().filter(|d| !**d).count();
    let determined = ideal_mask
        .iter()
        .zip(&both_mask)
        .filter(|(i, b)| !**i && **b)
        .count();
    let excess = if zero {
        0.0
    } else {
        (both_bits - ideal_bits).max(0.0)
    };
    Ok(Measure {
        target_entropy_bits: entropy(&pt, total),
        view_bits,
        ideal_bits,
        excess_bits: excess,
        excess_is_zero: zero,
        ideal_in_view,
        guess_probability_f64: q_f64(&guess_q),
        guess_probability: guess_q.to_string(),
        ideal_guess_probability: ideal_guess_q.to_string(),
        hidden,
        determined,
    })
}

/// The Wilson score interval for `successes` out of `trials` at normal quantile `z`
/// (e.g. `z = 3.29` for 99.9 %). Valid also at 0 and `trials` successes, unlike the Wald interval.
pub fn wilson(successes: u64, trials: u64, z: f64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    let lo = if successes == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if successes == trials {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// Adds up the rows of the shards `1/K … K/K` of one run of `trials` seeded trials, each
/// shard's rows in the unsplit run's order: `add(sum, row, first)` adds a shard's row into the
/// sum of its place (`first` is the first shard's row there), or says why the row does not
/// belong there. Returns the first shard's rows and the sums. Refuses parts that are not each
/// shard once, shards with another number of rows, and rows whose trials (`trials_of`) are not
/// their shard's share.
pub fn add_up_shards<R, S: Clone>(
    parts: Vec<(Shard, Vec<R>)>,
    trials: u64,
    (zero, trials_of): (S, impl Fn(&R) -> u64),
    add: impl Fn(&mut S, &R, &R) -> Result<(), String>,
) -> Result<(Vec<R>, Vec<S>), MergeError> {
    let mut parts = in_shard_order(parts, |(s, _)| Some(*s))?.into_iter();
    let Some((_, (first_shard, first))) = parts.next() else {
        return Err(MergeError::NoShards);
    };
    let mut sums = vec![zero; first.len()];
    let mut add_rows = |shard: Shard, rows: &[R], first: &[R]| {
        let differs = |what: String| MergeError::Inconsistent { shard, what };
        let share = Trials::share(trials, Some(shard)).len();
        if rows.len() != first.len() {
            return Err(differs(format!(
                "{} rows, the first shard has {}",
                rows.len(),
                first.len()
            )));
        }
        for ((row, one), sum) in rows.iter().zip(first).zip(&mut sums) {
            if trials_of(row) != share {
                return Err(differs(format!(
                    "a row of {} trials, its share is {share}",
                    trials_of(row)
                )));
            }
            add(sum, row, one).map_err(differs)?;
        }
        Ok(())
    };
    add_rows(first_shard, &first, &first)?;
    for (shard, (_, rows)) in parts {
        add_rows(shard, &rows, &first)?;
    }
    Ok((first, sums))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalitions_are_every_nonempty_proper_subset() {
        let c = Coalition::all_proper(3);
        assert_eq!(c.len(), 6);
        assert_eq!(c[0].to_string(), "player 1");
        assert_eq!(c[5].to_string(), "players 2+3");
        assert_eq!(Coalition::all_proper(4).len(), 14);
    }

    #[test]
    fn a_copied_bit_leaks_one_bit_and_an_independent_one_none() {
        // T uniform bit; V = T (copy) or V = fresh bit; ideal view empty.
        let mut copy = HashMap::new();
        let mut fresh = HashMap::new();
        for t in 0..2u32 {
            copy.insert((vec![t], vec![t], vec![]), 2u128);
            for v in 0..2u32 {
                fresh.insert((vec![t], vec![v], vec![]), 1u128);
            }
        }
        let m = summarize(&copy).expect("measure");
        assert!((m.excess_bits - 1.0).abs() < 1e-12);
        assert!(!m.excess_is_zero);
        assert_eq!(m.guess_probability, "1");
        assert_eq!((m.hidden, m.determined), (1, 1));
        let m = summarize(&fresh).expect("measure");
        assert!(m.excess_is_zero);
        assert_eq!(m.excess_bits, 0.0);
        assert_eq!(m.guess_probability, "1/2");
        assert_eq!((m.hidden, m.determined), (1, 0));
    }

    #[test]
    fn wilson_interval_covers_the_rate_and_stays_in_unit_interval() {
        let (lo, hi) = wilson(50, 100, 1.96);
        assert!(lo < 0.5 && 0.5 < hi && lo > 0.39 && hi < 0.61);
        let (lo, hi) = wilson(100, 100, 1.96);
        assert!(lo > 0.95 && hi == 1.0);
        assert_eq!(wilson(0, 0, 1.96), (0.0, 1.0));
    }
}
