//! Many deals in one session: what reusing the last player's helper permutations leaks.
//!
//! The published scheme has the last player `N` hand out helper halves (`C3`, `D3`, `F3`,
//! `G3`) that compose to his share `A_N`. If a session keeps them from deal to deal, `A_N`
//! is the same in every deal (the halves only compose to the share they were cut from),
//! while every other player draws a fresh `A_j`. Write `x = A_{N−1} ∘ … ∘ A_1(i)`, the value
//! at node `Layer(N − 1)` of the opening of position `i` (see [`crate::dealer`]). An observer
//! who sees `x` in an opening and also sees the card `A(i) = A_N(x)` learns one point of
//! `A_N`; under reuse those points stay valid, so in a later deal every opening in which he
//! sees `x` at a known point opens the card to him — whoever it was meant for.
//!
//! In the published scheme player 2 applies `A_2` to every opening, so he sees `x` every
//! time: each public card teaches him a point of `A_3`, and player 1's cards (through
//! `C3/D3`) and player 3's cards (direct) become readable one point at a time.
//!
//! # What is measured
//!
//! For one observer `p < N` and one target player, per deal `d` of the session,
//! **`fraction_read(d)`**: the expected fraction of the target's cards of deal `d` that the
//! observer's view at the end of deal `d` determines and his ideal view (his own cards and the
//! public cards of deals `1..=d`) does not.
//!
//! * [`Session::exact`] enumerates the runs — `A_N` once (reused) or per deal (fresh), and
//!   `B_d = A_{N−1} ∘ … ∘ A_1` per deal, every one uniform — with the observer's view reduced
//!   to the values that can depend on them: the `x` of every opening in which he sees it and
//!   every card he sees, deal by deal. (Everything else he holds is a function of his own
//!   permutations, of the other players' fresh `A_j` below `B_d`, or of helper halves drawn
//!   independently of `A_N`, so it is independent of the cards.) The fraction is an exact
//!   rational; the excess bits come from [`crate::harness::summarize`].
//! * [`Session::monte_carlo`] samples the same value graph at any deck size and runs the
//!   observer's attack: a table of the points of `A_N` he has seen, completed when one point
//!   is missing; every card it reads is checked against the truth. The per-trial fraction is
//!   bounded in `[0, 1]` and independent across trials, so its mean carries a Hoeffding
//!   interval (valid at every rate, including 0 and 1). The trials' integer counts (cards
//!   read, points known, wrong cards) are summed and the means taken at the end, so a run
//!   split into shards ([`Session::monte_carlo_share`]) merges exactly ([`merge_readings`]).
//!
//! The audit is left out of a session: it opens `A_N` and every helper half, which would end
//! any reuse after the first deal. The driver of `facedown_dealer` always draws fresh helpers;
//! these harnesses model reuse on the value graph.
//!
//! The scheme measured is the permutation-sharing dealer \[perm-sharing-dealer\].

use std::collections::HashMap;

use facedown_cards::search::{MergeError, Shard, Trials};
use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use num_bigint::BigInt;
use num_traits::ToPrimitive;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::dealer::{all_perms, Node, Schedule};
use crate::error::LeakageError;
use crate::harness::{add_up_shards, summarize, Joint, Q};

/// Whether the last player's helper halves (and so `A_N`) are kept from deal to deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Helpers {
    /// Drawn afresh for every deal (the scheme's requirement).
    Fresh,
    /// Handed out once and kept for the whole session.
    Reused,
}

/// The most deals in one session.
pub const MAX_DEALS: usize = 1000;

/// The most runs [`Session::exact`] enumerates.
pub const SESSION_EXACT_LIMIT: u128 = 2_000_000;

/// A session: the same schedule dealt `deals` times, measured for one observer and one target.
#[derive(Clone, Debug)]
pub struct Session {
    schedule: Schedule,
    deals: usize,
    helpers: Helpers,
    observer: PartyId,
    target: PartyId,
    roles: Roles,
}

/// What the observer sees in each opening of one deal.
#[derive(Clone, Debug)]
struct Roles {
    /// Openings (indices) in which the observer sees `x`.
    point: Vec<bool>,
    /// Openings whose card the observer sees (his own and the public ones).
    card: Vec<bool>,
    /// The target's openings (indices), in position order.
    target: Vec<usize>,
}

impl Roles {
    fn of(schedule: &Schedule, observer: PartyId, target: PartyId) -> Roles {
        let last = schedule.scheme.players as u16;
        let inner_held: Vec<u16> = (0..schedule.scheme.pairs.len() as u16)
            .filter(|&k| schedule.scheme.pair(k).map(|p| p.inner_holder) == Some(observer))
            .collect();
        let sees_x = |nodes: &[Node]| {
            nodes.iter().any(|n| match n {
                Node::Layer(j) => *j == last - 1,
                Node::Helper(k) => inner_held.contains(k),
                Node::Card => false,
            })
        };
        let ops = &schedule.openings;
        Roles {
            point: ops
                .iter()
                .map(|o| sees_x(&o.observed[observer.index()]))
                .collect(),
            card: ops
                .iter()
                .map(|o| o.learner.is_none_or(|l| l == observer))
                .collect(),
            target: (0..ops.len())
                .filter(|&k| ops[k].learner == Some(target))
                .collect(),
        }
    }
}

/// One deal of a session, measured exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExactReading {
    /// The deal, from 1.
    pub deal: usize,
    /// The target's cards in the deal.
    pub target_cards: usize,
    /// The expected fraction of them the observer reads, exactly (`"1/4"`).
    pub fraction_read: String,
    /// The same, rounded.
    pub fraction_read_f64: f64,
    /// `I(target's cards of deal d; view up to d | ideal view up to d)` in bits.
    pub excess_bits: f64,
    /// Whether that excess is exactly zero.
    pub excess_is_zero: bool,
}

/// One deal of a session, estimated by Monte Carlo.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct McReading {
    /// The deal, from 1.
    pub deal: usize,
    /// Trials (independent sessions).
    pub trials: u64,
    /// The target's cards in the deal.
    pub target_cards: usize,
    /// Mean fraction of them the observer's attack reads.
    pub fraction_read: f64,
    /// 99.9 % Hoeffding interval of that mean.
    pub interval: (f64, f64),
    /// Mean number of points of `A_N` the observer knows at the end of the deal.
    pub known_points: f64,
    /// Cards read wrongly (must be 0).
    pub wrong_cards: u64,
    /// The target's cards read, in all trials together.
    #[serde(default)]
    pub cards_read: u64,
    /// The points of `A_N` known at the end of the deal, summed over the trials.
    #[serde(default)]
    pub points_known: u64,
}

impl McReading {
    /// The reading of deal `deal` from its counts over `trials` trials: the means and the
    /// interval are computed from them.
    fn from_counts(deal: usize, trials: u64, target_cards: usize, sum: &Tally) -> McReading {
        let mean = |total: u64, per: usize| {
            if trials == 0 || per == 0 {
                0.0
            } else {
                total as f64 / (trials as f64 * per as f64)
            }
        };
        let fraction_read = mean(sum.read, target_cards);
        let half = hoeffding_half_width(trials);
        McReading {
            deal,
            trials,
            target_cards,
            fraction_read,
            interval: (
                (fraction_read - half).max(0.0),
                (fraction_read + half).min(1.0),
            ),
            known_points: mean(sum.known, 1),
            wrong_cards: sum.wrong,
            cards_read: sum.read,
            points_known: sum.known,
        }
    }
}

/// Adds up the readings of the shards `1/K … K/K` of one run of `trials` sessions into the
/// unsplit run's readings. Refuses shards of other deals or sizes, or whose trials are not
/// their share.
pub fn merge_readings(
    parts: Vec<(Shard, Vec<McReading>)>,
    trials: u64,
) -> Result<Vec<McReading>, MergeError> {
    let (first, sums) = add_up_shards(
        parts,
        trials,
        (Tally::default(), |r: &McReading| r.trials),
        |sum, row, one| {
            if (row.deal, row.target_cards) != (one.deal, one.target_cards) {
                return Err(format!(
                    "deal {} of {} cards where the first shard has deal {} of {}",
                    row.deal, row.target_cards, one.deal, one.target_cards
                ));
            }
            let add = |a: u64, b: u64| {
                a.checked_add(b)
                    .ok_or_else(|| "its counts overflow the sums".to_owned())
            };
            *sum = Tally {
                read: add(sum.read, row.cards_read)?,
                known: add(sum.known, row.points_known)?,
                wrong: add(sum.wrong, row.wrong_cards)?,
            };
            Ok(())
        },
    )?;
    Ok(first
        .iter()
        .zip(&sums)
        .map(|(one, sum)| McReading::from_counts(one.deal, trials, one.target_cards, sum))
        .collect())
}

/// The half-width of a 99.9 % Hoeffding interval for the mean of `trials` independent values
/// in `[0, 1]`.
pub fn hoeffding_half_width(trials: u64) -> f64 {
    if trials == 0 {
        return 1.0;
    }
    ((2.0f64 / 0.001).ln() / (2.0 * trials as f64)).sqrt()
}

/// One enumerated or sampled run: `A_N` per deal (the same one when reused) and `B_d`.
struct Run<'a> {
    last: Vec<&'a [u16]>,
    below: Vec<&'a [u16]>,
}

impl Session {
    /// A session of `deals` deals of `schedule`, measuring what `observer` reads of `target`'s
    /// cards.
    pub fn new(
        schedule: Schedule,
        deals: usize,
        helpers: Helpers,
        observer: PartyId,
        target: PartyId,
    ) -> Result<Session, LeakageError> {
        let players = schedule.scheme.players;
        let bad = |m: String| Err(LeakageError::Schedule(m));
        if !(1..=MAX_DEALS).contains(&deals) {
            return bad(format!("a session has 1..={MAX_DEALS} deals, not {deals}"));
        }
        if observer.0 == 0 || observer >= schedule.scheme.last() {
            return bad(format!(
                "the observer must be one of players 1..{} (player {players} holds A{players})",
                players - 1
            ));
        }
        if target.0 == 0 || usize::from(target.0) > players || target == observer {
            return bad(format!(
                "the target must be another of players 1..={players}"
            ));
        }
        let roles = Roles::of(&schedule, observer, target);
        if roles.target.is_empty() {
            return bad(format!(
                "player {} gets no cards in this schedule",
                target.0
            ));
        }
        Ok(Session {
            schedule,
            deals,
            helpers,
            observer,
            target,
            roles,
        })
    }

    /// The number of runs [`Session::exact`] enumerates.
    pub fn exact_runs(&self) -> u128 {
        let perms = facedown_core::perm::factorial(self.schedule.scheme.cards).unwrap_or(u128::MAX);
        let k = match self.helpers {
            Helpers::Reused => self.deals + 1,
            Helpers::Fresh => 2 * self.deals,
        };
        (0..k).fold(1u128, |acc, _| acc.saturating_mul(perms))
    }

    /// The observer.
    pub fn observer(&self) -> PartyId {
        self.observer
    }

    /// The target.
    pub fn target(&self) -> PartyId {
        self.target
    }

    /// The value `x` and the card of opening `k` in deal `d`.
    fn values(&self, run: &Run<'_>, d: usize, k: usize) -> (u16, u16) {
        let i = self.schedule.openings[k].position;
        let x = run.below[d][i];
        (x, run.last[d][usize::from(x)])
    }

    /// The observer's reduced view of deal `d` appended to `out`; `ideal` gets his cards.
    fn view_of_deal(&self, run: &Run<'_>, d: usize, out: &mut Vec<u32>, ideal: &mut Vec<u32>) {
        for k in 0..self.schedule.openings.len() {
            let (x, card) = self.values(run, d, k);
            if self.roles.point[k] {
                out.push(u32::from(x));
            }
            if self.roles.card[k] {
                out.push(u32::from(card));
                ideal.push(u32::from(card));
            }
        }
    }

    /// Calls `f` on every run, each with probability `1 / exact_runs()`.
    fn for_each_run(&self, perms: &[Vec<u16>], f: &mut dyn FnMut(&Run<'_>)) {
        let deals = self.deals;
        let slots = match self.helpers {
            Helpers::Reused => deals + 1,
            Helpers::Fresh => 2 * deals,
        };
        let mut idx = vec![0usize; slots];
        loop {
            let last: Vec<&[u16]> = (0..deals)
                .map(|d| match self.helpers {
                    Helpers::Reused => perms[idx[0]].as_slice(),
                    Helpers::Fresh => perms[idx[deals + d]].as_slice(),
                })
                .collect();
            let first_below = usize::from(self.helpers == Helpers::Reused);
            let below = (0..deals)
                .map(|d| perms[idx[first_below + d]].as_slice())
                .collect();
            f(&Run { last, below });
            let mut s = 0;
            loop {
                if s == slots {
                    return;
                }
                idx[s] += 1;
                if idx[s] < perms.len() {
                    break;
                }
                idx[s] = 0;
                s += 1;
            }
        }
    }

    /// The keys of deal `d` (0-based) in `run`: target, view up to `d`, ideal view up to `d`.
    fn keys(&self, run: &Run<'_>, d: usize) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let (mut v, mut vi) = (Vec::new(), Vec::new());
        for e in 0..=d {
            self.view_of_deal(run, e, &mut v, &mut vi);
        }
        let t = self
            .roles
            .target
            .iter()
            .map(|&k| u32::from(self.values(run, d, k).1))
            .collect();
        (t, v, vi)
    }

    /// Every deal measured exactly by enumeration (tiny decks only).
    pub fn exact(&self) -> Result<Vec<ExactReading>, LeakageError> {
        let runs = self.exact_runs();
        if runs > SESSION_EXACT_LIMIT {
            return Err(LeakageError::TooManyRuns {
                runs,
                limit: SESSION_EXACT_LIMIT,
            });
        }
        let perms = all_perms(self.schedule.scheme.cards);
        (0..self.deals)
            .map(|d| self.exact_deal(&perms, d, runs))
            .collect()
    }

    fn exact_deal(
        &self,
        perms: &[Vec<u16>],
        d: usize,
        runs: u128,
    ) -> Result<ExactReading, LeakageError> {
        let width = self.roles.target.len();
        let mut by_view = Determined::default();
        let mut by_ideal = Determined::default();
        let mut joint: Joint = HashMap::new();
        self.for_each_run(perms, &mut |run| {
            let (t, v, vi) = self.keys(run, d);
            by_view.see(&v, &t);
            by_ideal.see(&vi, &t);
            *joint.entry((t, v, vi)).or_insert(0) += 1;
        });
        let mut read: u128 = 0;
        self.for_each_run(perms, &mut |run| {
            let (_, v, vi) = self.keys(run, d);
            let (mv, mi) = (by_view.mask(&v), by_ideal.mask(&vi));
            read += mv.iter().zip(mi).filter(|(a, b)| **a && !**b).count() as u128;
        });
        let measure = summarize(&joint)?;
        let fraction = Q::new(BigInt::from(read), BigInt::from(runs * width as u128));
        Ok(ExactReading {
            deal: d + 1,
            target_cards: width,
            fraction_read_f64: fraction.to_f64().unwrap_or(f64::NAN),
            fraction_read: fraction.to_string(),
            excess_bits: measure.excess_bits,
            excess_is_zero: measure.excess_is_zero,
        })
    }

    /// Every deal estimated over `trials` sampled sessions (trial `t` seeded with
    /// [`trial_rng`]`(seed, t)`); `tick` is called once per trial.
    pub fn monte_carlo(
        &self,
        trials: u64,
        seed: u64,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<McReading>, LeakageError> {
        self.monte_carlo_share(Trials::all(trials), seed, tick)
    }

    /// [`Session::monte_carlo`] of one shard's share of the trials: trial `t` is the unsplit
    /// run's trial `t`, and each reading's `trials` is the share's.
    pub fn monte_carlo_share(
        &self,
        share: Trials,
        seed: u64,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<McReading>, LeakageError> {
        if share.count() == 0 {
            return Err(LeakageError::Schedule(
                "Monte Carlo needs at least one trial".into(),
            ));
        }
        let sums = share
            .par_iter()
            .map(|t| {
                let one = self.attack_trial(&mut trial_rng(seed, t));
                tick();
                one
            })
            .reduce(
                || vec![Tally::default(); self.deals],
                |a, b| a.into_iter().zip(b).map(|(x, y)| x.add(&y)).collect(),
            );
        Ok(sums
            .iter()
            .enumerate()
            .map(|(d, s)| McReading::from_counts(d + 1, share.len(), self.roles.target.len(), s))
            .collect())
    }

    /// One sampled session and the observer's attack on it.
    fn attack_trial(&self, rng: &mut ChaCha20Rng) -> Vec<Tally> {
        let n = self.schedule.scheme.cards;
        let mut draw = || {
            let mut v: Vec<u16> = (0..n as u16).collect();
            v.shuffle(rng);
            v
        };
        let reused = draw();
        let mut table = PointTable::new(n);
        let mut out = Vec::with_capacity(self.deals);
        for _ in 0..self.deals {
            let last = match self.helpers {
                Helpers::Reused => reused.clone(),
                Helpers::Fresh => {
                    table = PointTable::new(n);
                    draw()
                }
            };
            let below = draw();
            let run = Run {
                last: vec![&last],
                below: vec![&below],
            };
            for k in 0..self.schedule.openings.len() {
                if self.roles.point[k] && self.roles.card[k] {
                    let (x, card) = self.values(&run, 0, k);
                    table.learn(x, card);
                }
            }
            let mut tally = Tally {
                known: table.known as u64,
                ..Tally::default()
            };
            let mut read = 0usize;
            for &k in &self.roles.target {
                let (x, card) = self.values(&run, 0, k);
                match (self.roles.point[k], table.image(x)) {
                    (true, Some(c)) if c == card => read += 1,
                    (true, Some(_)) => tally.wrong += 1,
                    _ => {}
                }
            }
            tally.read = read as u64;
            out.push(tally);
        }
        out
    }
}

/// The points of `A_N` an observer has seen, completed when only one is missing.
struct PointTable {
    image: Vec<Option<u16>>,
    known: usize,
}

impl PointTable {
    fn new(n: usize) -> PointTable {
        PointTable {
            image: vec![None; n],
            known: 0,
        }
    }

    fn learn(&mut self, x: u16, card: u16) {
        let slot = &mut self.image[usize::from(x)];
        if slot.is_none() {
            *slot = Some(card);
            self.known += 1;
        }
        if self.known + 1 == self.image.len() {
            let mut used = vec![false; self.image.len()];
            for c in self.image.iter().flatten() {
                used[usize::from(*c)] = true;
            }
            let missing_card = used.iter().position(|u| !u);
            let missing_x = self.image.iter().position(Option::is_none);
            if let (Some(c), Some(x)) = (missing_card, missing_x) {
                self.image[x] = Some(c as u16);
                self.known += 1;
            }
        }
    }

    fn image(&self, x: u16) -> Option<u16> {
        self.image.get(usize::from(x)).copied().flatten()
    }
}

/// Per deal: the target's cards read, the known points and the wrong cards, summed over trials.
#[derive(Clone, Debug, Default)]
struct Tally {
    read: u64,
    known: u64,
    wrong: u64,
}

impl Tally {
    fn add(self, other: &Tally) -> Tally {
        Tally {
            read: self.read + other.read,
            known: self.known + other.known,
            wrong: self.wrong + other.wrong,
        }
    }
}

/// For each value of a conditioning key, which coordinates of the target every run with that
/// key agrees on.
#[derive(Default)]
struct Determined {
    groups: HashMap<Vec<u32>, (Vec<u32>, Vec<bool>)>,
}

impl Determined {
    fn see(&mut self, key: &[u32], target: &[u32]) {
        match self.groups.get_mut(key) {
            Some((first, mask)) => {
                for ((m, a), b) in mask.iter_mut().zip(first.iter()).zip(target) {
                    *m &= a == b;
                }
            }
            None => {
                self.groups
                    .insert(key.to_vec(), (target.to_vec(), vec![true; target.len()]));
            }
        }
    }

    fn mask(&self, key: &[u32]) -> &[bool] {
        self.groups.get(key).map_or(&[], |(_, m)| m.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use facedown_dealer::Scheme;

    #[test]
    fn the_point_table_completes_the_last_point() {
        let mut t = PointTable::new(3);
        t.learn(0, 2);
        assert_eq!((t.known, t.image(1)), (1, None));
        t.learn(2, 0);
        assert_eq!((t.known, t.image(1)), (3, Some(1)));
    }

    #[test]
    fn a_session_refuses_an_observer_holding_a_n_and_an_empty_target() {
        let sch = Schedule::new(&Scheme::published(4).expect("scheme"), 1, 1).expect("schedule");
        let s =
            |o: u16, t: u16| Session::new(sch.clone(), 2, Helpers::Reused, PartyId(o), PartyId(t));
        assert!(s(3, 1).is_err());
        assert!(
            s(1, 2).is_err(),
            "player 2 has no private path in the published scheme"
        );
        assert!(s(2, 2).is_err());
        assert!(s(2, 1).is_ok());
        assert!(Session::new(sch, 0, Helpers::Reused, PartyId(2), PartyId(1)).is_err());
    }
}
