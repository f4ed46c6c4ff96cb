//! Monte-Carlo estimates for decks too large to enumerate (`n = 52`).
//!
//! Each trial plays a real game with the dealer crate's driver (signed messages, commitments,
//! audit), seeded with [`facedown_core::rng::trial_rng`]`(seed, trial)`, so the result does not
//! depend on the number of threads. For every coalition and target, the constructive attack
//! ([`crate::attack::recover`]) runs on the coalition's pooled views, and the harness counts
//!
//! * **recovered**: hidden target cards (those an ideal dealer would not show the coalition)
//!   that the attack computes — every one is checked against the audit's deal, and any wrong
//!   card is counted as an error;
//! * **all recovered**: trials in which the attack recovers every hidden card of the target;
//! * **guessed**: trials in which the coalition's best guess of the first hidden card is right
//!   — the recovered card if there is one, else a uniformly random card among those it does
//!   not know (the Bayes-optimal guess, since the posterior of an unknown card is uniform over
//!   the cards the coalition does not know).
//!
//! Rates are Bernoulli over independent trials, so their uncertainty is stated as a **Wilson
//! score interval** ([`crate::harness::wilson`]), which is valid at rates 0 and 1 where the
//! normal approximation fails. Card-level fractions are averaged over trials and shown
//! without an interval: cards within one trial are not independent.
//!
//! The scheme played is the permutation-sharing dealer \[perm-sharing-dealer\].
//!
//! A run splits into shards by trial ([`monte_carlo_share`], [`Trials`]): each row carries its
//! integer counts, and [`merge_rows`] adds the shards' counts and computes the fraction and the
//! intervals from the sums, so the merge is the unsplit run's rows exactly.

use facedown_cards::search::{MergeError, Shard, Trials};
use facedown_core::rng::trial_rng;
use facedown_dealer::Scheme;
use rand::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::attack::recover;
use crate::dealer::{play_schedule, DealerTarget, Schedule};
use crate::error::LeakageError;
use crate::harness::{add_up_shards, wilson, Coalition};

/// Normal quantile of the intervals (99.9 % two-sided).
pub const Z: f64 = 3.290_527;

/// The estimate for one coalition and target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct McRow {
    /// The coalition's player numbers.
    pub coalition: Vec<u16>,
    /// The target.
    pub target: String,
    /// Trials.
    pub trials: u64,
    /// Hidden cards of the target per trial.
    pub hidden: usize,
    /// Mean fraction of hidden cards recovered.
    pub recovered_fraction: f64,
    /// Hidden cards recovered, in all trials together.
    #[serde(default)]
    pub recovered: u64,
    /// Trials where every hidden card was recovered.
    pub all_recovered: u64,
    /// Wilson interval of the all-recovered rate.
    pub all_recovered_interval: (f64, f64),
    /// Trials where the best guess of the first hidden card was right.
    pub guessed: u64,
    /// Wilson interval of the guessing rate.
    pub guessed_interval: (f64, f64),
    /// Recovered cards that disagree with the audit's deal (must be 0).
    pub wrong_cards: u64,
}

#[derive(Clone, Default)]
struct Tally {
    recovered: u64,
    all: u64,
    guessed: u64,
    wrong: u64,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.recovered += other.recovered;
        self.all += other.all;
        self.guessed += other.guessed;
        self.wrong += other.wrong;
    }

    /// [`Tally::add`], or `None` when a sum overflows (only forged counts get there).
    fn checked_add(&mut self, other: &Tally) -> Option<()> {
        *self = Tally {
            recovered: self.recovered.checked_add(other.recovered)?,
            all: self.all.checked_add(other.all)?,
            guessed: self.guessed.checked_add(other.guessed)?,
            wrong: self.wrong.checked_add(other.wrong)?,
        };
        Some(())
    }
}

impl McRow {
    /// The row of a coalition and target from its counts over `trials` trials: the fraction
    /// and the intervals are computed from them.
    fn from_counts(
        coalition: Vec<u16>,
        target: String,
        (trials, hidden): (u64, usize),
        sum: &Tally,
    ) -> McRow {
        let recovered_fraction = if hidden == 0 || trials == 0 {
            0.0
        } else {
            sum.recovered as f64 / (trials as f64 * hidden as f64)
        };
        McRow {
            coalition,
            target,
            trials,
            hidden,
            recovered_fraction,
            recovered: sum.recovered,
            all_recovered: sum.all,
            all_recovered_interval: wilson(sum.all, trials, Z),
            guessed: sum.guessed,
            guessed_interval: wilson(sum.guessed, trials, Z),
            wrong_cards: sum.wrong,
        }
    }

    fn counts(&self) -> Tally {
        Tally {
            recovered: self.recovered,
            all: self.all_recovered,
            guessed: self.guessed,
            wrong: self.wrong_cards,
        }
    }
}

/// Adds up the rows of the shards `1/K … K/K` of one run of `trials` trials (each shard's rows
/// in the unsplit run's order) into the unsplit run's rows. Refuses shards whose rows are of
/// other coalitions or targets, or whose trials are not their share.
pub fn merge_rows(parts: Vec<(Shard, Vec<McRow>)>, trials: u64) -> Result<Vec<McRow>, MergeError> {
    let (first, sums) = add_up_shards(
        parts,
        trials,
        (Tally::default(), |r: &McRow| r.trials),
        |sum, row, one| {
            if (&row.coalition, &row.target, row.hidden)
                != (&one.coalition, &one.target, one.hidden)
            {
                return Err(format!(
                    "a row of coalition {:?} against {}",
                    row.coalition, row.target
                ));
            }
            sum.checked_add(&row.counts())
                .ok_or_else(|| "its counts overflow the sums".to_owned())
        },
    )?;
    Ok(first
        .into_iter()
        .zip(&sums)
        .map(|(one, sum)| McRow::from_counts(one.coalition, one.target, (trials, one.hidden), sum))
        .collect())
}

/// Runs `trials` seeded games of `schedule` and estimates every coalition × target; `tick` is
/// called once per finished trial (for a progress bar).
pub fn monte_carlo(
    schedule: &Schedule,
    trials: u64,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<McRow>, LeakageError> {
    monte_carlo_share(schedule, Trials::all(trials), seed, tick)
}

/// [`monte_carlo`] of one shard's share of the trials: trial `t` is the unsplit run's trial
/// `t`, and each row's `trials` is the share's.
pub fn monte_carlo_share(
    schedule: &Schedule,
    share: Trials,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<McRow>, LeakageError> {
    let scheme: &Scheme = &schedule.scheme;
    let jobs: Vec<(Coalition, DealerTarget)> = Coalition::all_proper(scheme.players)
        .into_iter()
        .flat_map(|c| {
            DealerTarget::for_coalition(schedule, &c)
                .into_iter()
                .map(move |t| (c.clone(), t))
        })
        .collect();
    let hidden: Vec<Vec<usize>> = jobs
        .iter()
        .map(|(c, t)| {
            let ideal: Vec<usize> = schedule
                .openings
                .iter()
                .filter(|o| o.ideal_for(c))
                .map(|o| o.position)
                .collect();
            t.positions(schedule)
                .into_iter()
                .filter(|i| !ideal.contains(i))
                .collect()
        })
        .collect();
    // Each trial's tallies are added up as it ends: memory does not grow with `trials`.
    let sums: Vec<Tally> = share
        .par_iter()
        .map(|t| {
            let mut rng = trial_rng(seed, t);
            let game = play_schedule(schedule, None, &mut rng)?;
            let deal = game.finished.audit.deal.clone().unwrap_or_default();
            let ops = &game.finished.transcript.operations;
            let mut out = Vec::with_capacity(jobs.len());
            for ((c, _), hid) in jobs.iter().zip(&hidden) {
                let views: Vec<_> = game
                    .finished
                    .views
                    .iter()
                    .filter(|v| c.contains(v.party))
                    .collect();
                let rec = recover(scheme, ops, &views)?;
                let mut tally = Tally::default();
                for (i, card) in &rec.cards {
                    if deal.get(*i) != Some(card) {
                        tally.wrong += 1;
                    }
                }
                let got = hid.iter().filter(|i| rec.cards.contains_key(i)).count();
                tally.recovered = got as u64;
                tally.all = u64::from(got == hid.len());
                if let Some(first) = hid.first() {
                    let guess = match rec.cards.get(first) {
                        Some(&c) => c,
                        None => {
                            let known: Vec<u16> = rec.cards.values().copied().collect();
                            let unknown: Vec<u16> = (0..scheme.cards as u16)
                                .filter(|x| !known.contains(x))
                                .collect();
                            unknown[rng.gen_range(0..unknown.len())]
                        }
                    };
                    tally.guessed = u64::from(deal.get(*first) == Some(&guess));
                }
                out.push(tally);
            }
            tick();
            Ok::<_, LeakageError>(out)
        })
        .try_reduce(
            || vec![Tally::default(); jobs.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    x.add(y);
                }
                Ok(a)
            },
        )?;
    Ok(jobs
        .iter()
        .zip(&hidden)
        .zip(&sums)
        .map(|(((c, t), hid), sum)| {
            McRow::from_counts(
                c.numbers().to_vec(),
                t.to_string(),
                (share.len(), hid.len()),
                sum,
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monte_carlo_is_the_same_for_any_thread_count() {
        let scheme = Scheme::general(3, 6).expect("scheme");
        let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
        let a = monte_carlo(&sched, 24, 3, &|| {}).expect("mc");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("pool");
        let b = pool.install(|| monte_carlo(&sched, 24, 3, &|| {}).expect("mc"));
        assert_eq!(a, b);
        let c = monte_carlo(&sched, 24, 4, &|| {}).expect("mc");
        assert_ne!(a, c, "another seed gives other games");
    }

    #[test]
    fn three_shards_merge_to_the_unsplit_rows() {
        let scheme = Scheme::general(3, 6).expect("scheme");
        let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
        let whole = monte_carlo(&sched, 10, 3, &|| {}).expect("mc");
        let shard = |i| Shard::new(i, 3).expect("valid");
        let parts: Vec<(Shard, Vec<McRow>)> = (1..=3)
            .map(|i| {
                let share = Trials::share(10, Some(shard(i)));
                (
                    shard(i),
                    monte_carlo_share(&sched, share, 3, &|| {}).expect("mc"),
                )
            })
            .collect();
        assert_eq!(merge_rows(parts.clone(), 10).expect("merges"), whole);
        assert!(matches!(
            merge_rows(parts[1..].to_vec(), 10),
            Err(MergeError::Missing(s)) if s == shard(1)
        ));
        assert!(matches!(
            merge_rows(parts, 11),
            Err(MergeError::Inconsistent { .. })
        ));
    }
}
