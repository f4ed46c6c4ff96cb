//! The importance of the first move: deals with distinct importances, the checker of the
//! problem's output, and a search for the achievable values.
//!
//! Random deals mostly have importance 0 (about four in five: the first move does not matter),
//! and large importances are rare, so deals are found by a local search: from a random deal,
//! exchange one of Alice's cards with one of Bob's, keep the exchange when the importance does
//! not drop (or, with a small probability, even when it does), and note every importance seen.
//! Every deal the search reports was solved exactly; the checker solves it again.
//!
//! # Climbs, streams and shards
//!
//! Climb `c` (from 0) draws from its own generator, stream `c` of the run's seed
//! ([`facedown_core::rng::trial_rng`]), never from a stream shared with other climbs. So a
//! climb meets the same deals whichever machine runs it, and a run can be split by climbs: a
//! share of the climbs returns a [`ClimbLog`] (for each climb, the importances it met that no
//! earlier climb of the share had met, with their first deals), and [`distinct_from`] and
//! [`exploration_from`] put the logs of every share together into exactly the answer of the
//! unsplit run — for each importance, the deal first met in the least climb that met it.
//! A share of the search for `k` distinct importances stops once *it* holds `k`; the union of
//! all climbs up to that climb holds at least `k` too, so every share has run every climb the
//! unsplit search runs.

use std::collections::{BTreeMap, BTreeSet};

use facedown_core::rng::trial_rng;
use rand::Rng;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use super::{Deal, DealError, Player, Solver, CARDS};

/// A deal with its two results and its importance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// The deal.
    #[serde(serialize_with = "lines", deserialize_with = "from_lines")]
    pub deal: Deal,
    /// Result with Alice moving first.
    pub alice_first: i8,
    /// Result with Bob moving first.
    pub bob_first: i8,
    /// `|alice_first − bob_first|`.
    pub importance: u32,
}

fn lines<S: serde::Serializer>(deal: &Deal, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(deal.to_lines())
}

fn from_lines<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Deal, D::Error> {
    let [alice, bob] = <[String; 2]>::deserialize(d)?;
    Deal::parse(&alice, &bob).map_err(serde::de::Error::custom)
}

impl Found {
    /// Solves `deal`.
    pub fn solve(solver: &mut Solver, deal: Deal) -> Found {
        let alice_first = solver.result(&deal, Player::Alice);
        let bob_first = solver.result(&deal, Player::Bob);
        Found {
            deal,
            alice_first,
            bob_first,
            importance: (i32::from(alice_first) - i32::from(bob_first)).unsigned_abs(),
        }
    }
}

/// No importance exceeds this: a result lies in −18..=−1 or 1..=18 (never 0, someone empties his
/// hand first), so two results are at most 36 apart.
pub const MAX_IMPORTANCE: u32 = 36;

/// Why [`distinct_importances`] found no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// More distinct importances were asked for than there are values `0..=36`.
    #[error(
        "{wanted} distinct importances cannot exist: every importance is in 0..={MAX_IMPORTANCE}"
    )]
    Impossible {
        /// Wanted.
        wanted: usize,
    },
    /// The logs of a split search do not cover the climbs the unsplit search runs (a share
    /// stopped or was cut before them).
    #[error("a share of the climbs stopped before the climbs the unsplit search runs")]
    CutShort,
    /// The search ran out of evaluations.
    #[error(
        "found only {found} distinct importances in {evaluations} solved deals, {wanted} wanted"
    )]
    Exhausted {
        /// Distinct importances found.
        found: usize,
        /// Wanted.
        wanted: usize,
        /// Deals solved.
        evaluations: u64,
    },
}

/// A local search over deals; every deal it solves is offered to `seen`.
struct Climb<'a> {
    solver: &'a mut Solver,
    rng: &'a mut dyn RngCore,
    evaluations: u64,
}

impl Climb<'_> {
    fn solve(&mut self, deal: Deal) -> Found {
        self.evaluations += 1;
        Found::solve(self.solver, deal)
    }

    /// One of Alice's cards exchanged with one of Bob's.
    fn neighbour(&mut self, deal: &Deal) -> Deal {
        let alice = deal.alice_mask();
        let pick = |rng: &mut dyn RngCore, mask: u64| -> u64 {
            let k = rng.gen_range(0..mask.count_ones());
            let mut m = mask;
            for _ in 0..k {
                m &= m - 1;
            }
            m & m.wrapping_neg()
        };
        let a = pick(self.rng, alice);
        let b = pick(self.rng, !alice & ((1 << CARDS) - 1));
        Deal::from_mask(alice ^ a ^ b).unwrap_or(*deal)
    }

    /// Climbs from a random deal for `steps` exchanges, towards larger importances, and returns
    /// the best deal met. `seen` gets every solved deal.
    fn run(&mut self, steps: u64, seen: &mut dyn FnMut(&Found)) -> Found {
        let start = Deal::random(self.rng);
        let mut here = self.solve(start);
        seen(&here);
        let mut best = here;
        for _ in 0..steps {
            let deal = self.neighbour(&here.deal);
            let next = self.solve(deal);
            seen(&next);
            let worse = next.importance < here.importance;
            if !worse || self.rng.gen_bool(0.05) {
                here = next;
            }
            if here.importance > best.importance {
                best = here;
            }
        }
        best
    }
}

/// What one climb met first: the importances no earlier climb of its log had met, each with
/// the first deal of it the climb solved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClimbFinds {
    /// The climb's number (its stream of the seed).
    pub climb: u64,
    /// The deals, by importance.
    pub deals: Vec<Found>,
}

/// The climbs of a run, or of one share of them, in climb order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClimbLog {
    /// Climbs run.
    pub climbs_run: u64,
    /// The last climb run.
    pub last_climb: Option<u64>,
    /// Whether every climb of the share was run (a search for `k` importances stops early).
    pub complete: bool,
    /// Deals solved.
    pub evaluations: u64,
    /// The climbs that met an importance new to the log.
    pub finds: Vec<ClimbFinds>,
}

/// Runs the climbs `climbs` (in increasing order) of steps `steps(c)` with seed `seed`, until
/// `enough(importances met)`; `met` holds the importances known before the first climb.
fn run_climbs(
    climbs: impl IntoIterator<Item = u64>,
    (seed, steps): (u64, &dyn Fn(u64) -> u64),
    mut met: BTreeSet<u32>,
    enough: &dyn Fn(usize) -> bool,
    progress: &mut dyn FnMut(&ClimbLog, &BTreeSet<u32>),
) -> ClimbLog {
    let mut solver = Solver::new();
    let mut log = ClimbLog {
        complete: true,
        ..ClimbLog::default()
    };
    for c in climbs {
        if enough(met.len()) {
            log.complete = false;
            break;
        }
        let mut rng = trial_rng(seed, c);
        let mut climb = Climb {
            solver: &mut solver,
            rng: &mut rng,
            evaluations: 0,
        };
        let mut deals = Vec::new();
        climb.run(steps(c), &mut |f| {
            if met.insert(f.importance) {
                deals.push(*f);
            }
        });
        log.evaluations += climb.evaluations;
        log.climbs_run += 1;
        log.last_climb = Some(c);
        if !deals.is_empty() {
            deals.sort_by_key(|f| f.importance);
            log.finds.push(ClimbFinds { climb: c, deals });
        }
        progress(&log, &met);
    }
    log
}

/// Exchanges per climb of the search for distinct importances.
pub const CLIMB_STEPS: u64 = 200;

/// How many climbs a search for distinct importances that solves at most `budget` deals runs
/// at most: the deal of [`nines_to_alice`] is the first deal solved, each climb solves its
/// start and [`CLIMB_STEPS`] neighbours, and the last climb is cut to the budget.
pub fn budget_climbs(budget: u64) -> u64 {
    budget.saturating_sub(1).div_ceil(CLIMB_STEPS + 1)
}

/// The exchanges of climb `c` of a search with `budget`.
fn budget_steps(budget: u64, c: u64) -> u64 {
    let before = 1 + c.saturating_mul(CLIMB_STEPS + 1);
    CLIMB_STEPS.min(budget.saturating_sub(before))
}

/// The climbs `climbs` (a share of `0..budget_climbs(budget)`, in increasing order) of the
/// search for `k` distinct importances with seed `seed`, stopping once they met `k`;
/// `progress` gets the number of importances met after each climb.
pub fn distinct_climbs(
    k: usize,
    (budget, seed): (u64, u64),
    climbs: impl IntoIterator<Item = u64>,
    progress: &mut dyn FnMut(usize),
) -> Result<ClimbLog, SearchError> {
    if k > MAX_IMPORTANCE as usize + 1 {
        return Err(SearchError::Impossible { wanted: k });
    }
    let max = budget_climbs(budget);
    let steps = move |c| budget_steps(budget, c);
    Ok(run_climbs(
        climbs.into_iter().filter(|&c| c < max),
        (seed, &steps),
        BTreeSet::from([0]),
        &|met| met >= k,
        &mut |_, met| progress(met.len()),
    ))
}

/// The answer of a search for distinct importances.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Distinct {
    /// `k` deals with pairwise distinct importances, sorted by importance.
    pub deals: Vec<Found>,
    /// Climbs the unsplit search ran.
    pub climbs: u64,
    /// Deals it solved.
    pub evaluations: u64,
}

/// Why the logs of a split search do not make up a whole one.
fn cut_short() -> SearchError {
    SearchError::CutShort
}

/// Puts the logs of the shares of one search for `k` distinct importances with `budget`
/// together (one log: the unsplit run) into the unsplit search's answer: the importances met
/// climb by climb, each with the deal of the least climb that met it, up to the first climb
/// after which `k` are known. Refuses logs that stopped before that climb.
pub fn distinct_from(k: usize, budget: u64, logs: &[ClimbLog]) -> Result<Distinct, SearchError> {
    let mut found: BTreeMap<u32, Found> = BTreeMap::new();
    found.insert(0, Found::solve(&mut Solver::new(), nines_to_alice()));
    let mut finds: Vec<&ClimbFinds> = logs.iter().flat_map(|l| &l.finds).collect();
    finds.sort_by_key(|f| f.climb);
    let mut last = None;
    for f in finds {
        if found.len() >= k {
            break;
        }
        for d in &f.deals {
            found.entry(d.importance).or_insert(*d);
        }
        last = Some(f.climb);
    }
    let covered = |l: &ClimbLog| l.complete || (l.last_climb >= last && found.len() >= k);
    if !logs.iter().all(covered) {
        return Err(cut_short());
    }
    let climbs = if found.len() >= k {
        last.map_or(0, |c| c + 1)
    } else {
        budget_climbs(budget)
    };
    let evaluations = 1
        + (0..climbs)
            .map(|c| budget_steps(budget, c) + 1)
            .sum::<u64>();
    if found.len() < k {
        return Err(SearchError::Exhausted {
            found: found.len(),
            wanted: k,
            evaluations,
        });
    }
    Ok(Distinct {
        deals: found.into_values().take(k).collect(),
        climbs,
        evaluations,
    })
}

/// `k` deals with pairwise distinct importances (the first found of each value), sorted by
/// importance, found by a seeded local search that solves at most `budget` deals: climb `c`
/// draws from stream `c` of `seed`.
pub fn distinct_importances(
    k: usize,
    budget: u64,
    seed: u64,
    progress: &mut dyn FnMut(usize),
) -> Result<Distinct, SearchError> {
    let log = distinct_climbs(k, (budget, seed), 0..budget_climbs(budget), progress)?;
    distinct_from(k, budget, &[log])
}

/// The deal of the problem's first note: every nine in Alice's hand (importance 0: if Bob
/// moves first he must pass, and the game is the one where Alice moves first). The rest is
/// dealt in pack order: Alice gets the nines and the next fourteen cards that are not nines.
pub fn nines_to_alice() -> Deal {
    let nines: u64 = (0..4).map(|s| 1u64 << (s * 9 + 3)).sum();
    let mut mask = nines;
    for i in 0..CARDS {
        if mask.count_ones() == 18 {
            break;
        }
        mask |= 1 << i;
    }
    Deal::from_mask(mask).unwrap_or(Deal {
        alice: nines | 0x3fff,
    })
}

/// What the search for achievable importances found.
#[derive(Clone, Debug, Serialize)]
pub struct Exploration {
    /// The first deal found of each importance.
    pub values: BTreeMap<u32, Found>,
    /// Deals solved.
    pub evaluations: u64,
    /// Climbs (restarts from a random deal).
    pub climbs: u64,
}

impl Exploration {
    /// The largest importance found.
    pub fn max(&self) -> Option<&Found> {
        self.values.values().next_back()
    }

    /// Importances between 0 and the largest found that were never met.
    pub fn gaps(&self) -> Vec<u32> {
        let top = self.max().map_or(0, |f| f.importance);
        (0..=top).filter(|v| !self.values.contains_key(v)).collect()
    }
}

/// The climbs `climbs` (a share of `0..total`, in increasing order) of an exploration of
/// `steps` exchanges per climb with seed `seed`; `progress(evaluations, largest)` is called
/// after each climb.
pub fn explore_climbs(
    climbs: impl IntoIterator<Item = u64>,
    (steps, seed): (u64, u64),
    progress: &mut dyn FnMut(u64, u32),
) -> ClimbLog {
    run_climbs(
        climbs,
        (seed, &move |_| steps),
        BTreeSet::new(),
        &|_| false,
        &mut |log, met| progress(log.evaluations, met.last().copied().unwrap_or(0)),
    )
}

/// Puts the logs of the shares of one exploration of `climbs` climbs together into the
/// unsplit exploration: the first deal of each importance in climb order, the deals solved
/// summed. Refuses logs that did not run their whole share.
pub fn exploration_from(climbs: u64, logs: &[ClimbLog]) -> Result<Exploration, SearchError> {
    if !logs.iter().all(|l| l.complete) {
        return Err(cut_short());
    }
    let mut finds: Vec<&ClimbFinds> = logs.iter().flat_map(|l| &l.finds).collect();
    finds.sort_by_key(|f| f.climb);
    let mut values: BTreeMap<u32, Found> = BTreeMap::new();
    for d in finds.into_iter().flat_map(|f| &f.deals) {
        values.entry(d.importance).or_insert(*d);
    }
    Ok(Exploration {
        values,
        evaluations: logs.iter().map(|l| l.evaluations).sum(),
        climbs,
    })
}

/// Climbs towards large importances, `climbs` times `steps` exchanges, noting the first deal of
/// every importance met (climb `c` draws from stream `c` of `seed`);
/// `progress(evaluations, largest)` is called after each climb.
pub fn explore(
    climbs: u64,
    steps: u64,
    seed: u64,
    progress: &mut dyn FnMut(u64, u32),
) -> Exploration {
    let log = explore_climbs(0..climbs, (steps, seed), progress);
    exploration_from(climbs, &[log]).unwrap_or(Exploration {
        values: BTreeMap::new(),
        evaluations: 0,
        climbs,
    })
}

/// The problem's output format: for each deal, Alice's line and Bob's line.
pub fn format_output(deals: &[Found]) -> String {
    let mut out = String::new();
    for f in deals {
        let [a, b] = f.deal.to_lines();
        out.push_str(&a);
        out.push('\n');
        out.push_str(&b);
        out.push('\n');
    }
    out
}

/// What the checker found wrong with an output.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckError {
    /// The output is larger than any answer for `k ≤ 1000`.
    #[error("the output has more than {0} bytes")]
    TooLong(usize),
    /// Not `2k` non-empty lines.
    #[error("expected {expected} lines (two per deal), found {found}")]
    LineCount {
        /// `2k`.
        expected: usize,
        /// Non-empty lines found.
        found: usize,
    },
    /// A token is not a two-character card.
    #[error("line {line}: `{token}` is not written as two characters")]
    Token {
        /// 1-based line.
        line: usize,
        /// The token.
        token: String,
    },
    /// A pair of lines is not a deal.
    #[error("deal on lines {line}–{}: {error}", line + 1)]
    Deal {
        /// 1-based line of Alice's hand.
        line: usize,
        /// What is wrong.
        error: DealError,
    },
    /// Two deals share an importance.
    #[error("deals {first} and {second} both have importance {importance}")]
    Repeated {
        /// The shared importance.
        importance: u32,
        /// 1-based index of the first deal.
        first: usize,
        /// 1-based index of the second.
        second: usize,
    },
}

/// An output that passed the checker: each deal's results and importance.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    /// The deals in order.
    pub deals: Vec<Found>,
}

/// Most bytes the checker reads.
pub const MAX_OUTPUT: usize = 1 << 20;

/// Checks an answer to the problem for `k`: exactly `k` pairs of lines, each a deal of the 36
/// cards in the two-character format, and the importances pairwise distinct.
pub fn check_output(text: &str, k: usize) -> Result<Checked, CheckError> {
    if text.len() > MAX_OUTPUT {
        return Err(CheckError::TooLong(MAX_OUTPUT));
    }
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
        .collect();
    if lines.len() != 2 * k {
        return Err(CheckError::LineCount {
            expected: 2 * k,
            found: lines.len(),
        });
    }
    for &(line, text) in &lines {
        if let Some(token) = text.split_whitespace().find(|t| t.len() != 2) {
            let token = token.chars().take(16).collect();
            return Err(CheckError::Token { line, token });
        }
    }
    let mut solver = Solver::new();
    let mut deals = Vec::with_capacity(k);
    let mut by_importance: BTreeMap<u32, usize> = BTreeMap::new();
    for (index, pair) in lines.chunks(2).enumerate() {
        let (line, alice) = pair[0];
        let deal =
            Deal::parse(alice, pair[1].1).map_err(|error| CheckError::Deal { line, error })?;
        let found = Found::solve(&mut solver, deal);
        if let Some(&first) = by_importance.get(&found.importance) {
            return Err(CheckError::Repeated {
                importance: found.importance,
                first,
                second: index + 1,
            });
        }
        by_importance.insert(found.importance, index + 1);
        deals.push(found);
    }
    Ok(Checked { deals })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Climbs `0..total` dealt out to three shards, climb `c` to shard `c mod 3`.
    fn thirds(total: u64) -> [Vec<u64>; 3] {
        [0, 1, 2].map(|i| (i..total).step_by(3).collect())
    }

    #[test]
    fn a_search_for_distinct_importances_split_by_climbs_merges_to_the_unsplit_search() {
        let (k, budget, seed) = (9, 20_000, 3);
        let whole = distinct_importances(k, budget, seed, &mut |_| {}).expect("found");
        assert_eq!(whole.deals.len(), k);
        let logs: Vec<ClimbLog> = thirds(budget_climbs(budget))
            .into_iter()
            .map(|share| distinct_climbs(k, (budget, seed), share, &mut |_| {}).expect("a log"))
            .collect();
        assert_eq!(distinct_from(k, budget, &logs), Ok(whole));
        // A share that stopped before the climbs the unsplit search runs is refused.
        let mut cut = logs;
        cut[1] = ClimbLog::default();
        assert_eq!(distinct_from(k, budget, &cut), Err(SearchError::CutShort));
    }

    #[test]
    fn an_exploration_split_by_climbs_merges_to_the_unsplit_exploration() {
        let (climbs, steps, seed) = (7, 60, 5);
        let whole = explore(climbs, steps, seed, &mut |_, _| {});
        assert_eq!(whole.evaluations, climbs * (steps + 1));
        let logs: Vec<ClimbLog> = thirds(climbs)
            .into_iter()
            .map(|share| explore_climbs(share, (steps, seed), &mut |_, _| {}))
            .collect();
        let merged = exploration_from(climbs, &logs).expect("merged");
        assert_eq!(
            (merged.values, merged.evaluations),
            (whole.values, whole.evaluations)
        );
        let mut cut = logs;
        cut[2].complete = false;
        assert!(exploration_from(climbs, &cut).is_err());
    }
}
