//! The finite-runtime search: iterative deepening over the number of steps, one task per
//! distinct top-level action, each with its own memo.
//!
//! A task is deterministic and owns its memo, so every count is the same for any number of
//! threads, and the counts of disjoint sets of tasks add up: a search split into shards by
//! top-level action ([`super::shard`]) merges to exactly the unsplit search.
//!
//! **The last step is a turn.** A shuffle never makes a non-final state final: if no positions
//! decode `f` in `S`, then for `ΠS` to decode at `(p, q)` every `πS` (`π ∈ Π`) would have to decode
//! at `(π⁻¹p, π⁻¹q)`, and `S` itself would; for a non-committed protocol a shuffle keeps the set of
//! inputs present. So with one step left only turns are tried.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use super::budget::{heap_bytes, table_bytes, Meter};
use super::canon::Key;
use super::problem::{Problem, State, Step};
use super::{DepthStats, Progress, SearchError};
use crate::model::Action;

/// Why a task stopped before deciding.
enum Halt {
    /// The memory budget was reached.
    Budget,
    /// The search failed.
    Error(SearchError),
}

impl From<SearchError> for Halt {
    fn from(e: SearchError) -> Halt {
        Halt::Error(e)
    }
}

/// What is known of a canonical state: budgets `< failed` proven insufficient, budgets
/// `≥ solved` sufficient (0: nothing known). Budgets are at most [`MAX_BUDGET`].
#[derive(Clone, Copy, Debug, Default)]
struct MemoEntry {
    failed: u16,
    solved: u16,
}

/// The largest step bound the finite search accepts.
pub(super) const MAX_BUDGET: usize = u16::MAX as usize - 1;

/// A memo whose bytes are counted against the budget.
#[derive(Default)]
struct Memo {
    map: HashMap<Key, MemoEntry>,
    /// Bytes of the table counted so far.
    table: u64,
}

impl Memo {
    fn get(&self, key: &[u8]) -> MemoEntry {
        self.map.get(key).copied().unwrap_or_default()
    }

    fn record(&mut self, key: Key, ok: bool, budget: usize, meter: &Meter) {
        let b = budget as u16 + 1;
        let e = match self.map.entry(key) {
            Entry::Occupied(o) => o.into_mut(),
            Entry::Vacant(v) => {
                meter.charge(heap_bytes(v.key().len()));
                v.insert(MemoEntry::default())
            }
        };
        if ok {
            e.solved = if e.solved == 0 { b } else { e.solved.min(b) };
        } else {
            e.failed = e.failed.max(b);
        }
        let table = table_bytes(self.map.capacity(), std::mem::size_of::<(Key, MemoEntry)>());
        if table > self.table {
            meter.charge(table - self.table);
            self.table = table;
        }
    }
}

/// One top-level action and everything its search has learnt.
struct Task<'a> {
    problem: &'a Problem,
    meter: &'a Meter,
    /// Its number in the list of distinct top-level actions (the same in every shard).
    index: usize,
    step: Step,
    memo: Memo,
    explored: u64,
    hits: u64,
    /// Whether a tripped meter stops the task (not while a found protocol is written out).
    enforce: bool,
}

impl Task<'_> {
    fn try_top(&mut self, budget: usize) -> Result<bool, Halt> {
        let children: Vec<State> = self.step.children.iter().map(|(_, c)| c.clone()).collect();
        for c in &children {
            if !self.solve(c, budget)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn solve(&mut self, st: &State, budget: usize) -> Result<bool, Halt> {
        let p = self.problem;
        if p.is_final(st) {
            return Ok(true);
        }
        if budget == 0 {
            return Ok(false);
        }
        if self.enforce && self.meter.tripped() {
            return Err(Halt::Budget);
        }
        let key = p.canonical(st);
        let entry = self.memo.get(&key);
        if entry.solved != 0 && usize::from(entry.solved) <= budget + 1 {
            self.hits += 1;
            return Ok(true);
        }
        if usize::from(entry.failed) > budget {
            self.hits += 1;
            return Ok(false);
        }
        self.explored += 1;
        let ok = if budget == 1 {
            self.ends_with_a_turn(st)
        } else {
            self.some_action_solves(st, budget)?
        };
        self.memo.record(key, ok, budget, self.meter);
        Ok(ok)
    }

    /// Whether one turn ends the protocol in every branch.
    fn ends_with_a_turn(&self, st: &State) -> bool {
        let mut turns = Vec::new();
        self.problem.expand_turns(st, &mut turns);
        turns
            .iter()
            .any(|t| t.children.iter().all(|(_, c)| self.problem.is_final(c)))
    }

    fn some_action_solves(&mut self, st: &State, budget: usize) -> Result<bool, Halt> {
        let steps = self.problem.expand(st)?;
        'steps: for step in &steps {
            for (_, c) in &step.children {
                if !self.solve(c, budget - 1)? {
                    continue 'steps;
                }
            }
            return Ok(true);
        }
        Ok(false)
    }

    fn build_top(&mut self, budget: usize) -> Result<Vec<Action>, Halt> {
        let step = self.step.clone();
        let mut bodies = Vec::new();
        for (_, c) in &step.children {
            bodies.push(self.build(c, budget)?);
        }
        Ok(self.problem.step_action(&step, bodies))
    }

    /// A protocol for a state known to be solvable within `budget`.
    fn build(&mut self, st: &State, budget: usize) -> Result<Vec<Action>, Halt> {
        let p = self.problem;
        if p.is_final(st) {
            return p.final_actions(st).ok_or_else(|| {
                Halt::Error(SearchError::Analysis("final state without a result".into()))
            });
        }
        if budget > 0 {
            for step in p.expand(st)? {
                let mut all = true;
                for (_, c) in &step.children {
                    if !self.solve(c, budget - 1)? {
                        all = false;
                        break;
                    }
                }
                if all {
                    let mut bodies = Vec::new();
                    for (_, c) in &step.children {
                        bodies.push(self.build(c, budget - 1)?);
                    }
                    return Ok(p.step_action(&step, bodies));
                }
            }
        }
        Err(Halt::Error(SearchError::Analysis(
            "internal: a state the memo called solvable has no solution".into(),
        )))
    }
}

/// Where a search stopped before deciding its bound.
#[derive(Clone, Debug)]
pub(super) struct Interrupted {
    /// The bound being searched when the budget was reached.
    pub(super) in_progress: usize,
    /// Top-level actions decided at that bound (none of them starts a protocol of that length).
    pub(super) decided: Vec<usize>,
    /// Top-level actions still open at that bound.
    pub(super) open: Vec<usize>,
}

/// The length of the protocols found and, per winning top-level action, a protocol body.
pub(super) type Found = (usize, Vec<(usize, Vec<Action>)>);

/// What the finite search did.
pub(super) struct FiniteRun {
    /// `(length, [(top-level action, protocol body)])`.
    pub(super) found: Option<Found>,
    pub(super) per_depth: Vec<DepthStats>,
    pub(super) explored: u64,
    pub(super) hits: u64,
    /// Distinct top-level actions (in every shard together), with how each prints.
    pub(super) top_level: Vec<String>,
    /// The top-level actions this shard searched.
    pub(super) mine: usize,
    pub(super) interrupted: Option<Interrupted>,
}

/// The top-level actions of the start, one per class of equivalent children, in the order of
/// [`Problem::expand`].
pub(super) fn distinct_top_level(
    problem: &Problem,
    start: &State,
) -> Result<Vec<Step>, SearchError> {
    let mut seen: HashSet<Vec<Key>> = HashSet::new();
    Ok(problem
        .expand(start)?
        .into_iter()
        .filter(|s| seen.insert(problem.children_key(s)))
        .collect())
}

/// Runs iterative deepening from `start` (not final) up to the query's bound.
pub(super) fn run(
    problem: &Problem,
    start: &State,
    progress: Progress<'_>,
    meter: &Meter,
) -> Result<FiniteRun, SearchError> {
    let query = &problem.query;
    if query.max_steps > MAX_BUDGET {
        return Err(SearchError::InvalidQuery(format!(
            "--max-steps {} is above the finite search's limit of {MAX_BUDGET}",
            query.max_steps
        )));
    }
    let top = distinct_top_level(problem, start)?;
    let top_level: Vec<String> = top.iter().map(|s| problem.describe(s.kind)).collect();
    let mut tasks: Vec<Task<'_>> = top
        .into_iter()
        .enumerate()
        .filter(|(i, _)| query.shard.is_none_or(|s| s.owns(*i)))
        .map(|(index, step)| Task {
            problem,
            meter,
            index,
            step,
            memo: Memo::default(),
            explored: 0,
            hits: 0,
            enforce: true,
        })
        .collect();
    let mut run = FiniteRun {
        found: None,
        per_depth: Vec::new(),
        explored: 0,
        hits: 0,
        top_level,
        mine: tasks.len(),
        interrupted: None,
    };
    for depth in 1..=query.max_steps {
        let t0 = Instant::now();
        let results = search_depth(&mut tasks, depth, progress);
        let (explored, hits) = tasks
            .iter()
            .fold((0, 0), |a, t| (a.0 + t.explored, a.1 + t.hits));
        run.per_depth.push(DepthStats {
            depth,
            states_explored: explored - run.explored,
            memo_hits: hits - run.hits,
            seconds: t0.elapsed().as_secs_f64(),
        });
        (run.explored, run.hits) = (explored, hits);
        let mut winners = Vec::new();
        let mut interrupted = Interrupted {
            in_progress: depth,
            decided: Vec::new(),
            open: Vec::new(),
        };
        for (t, r) in tasks.iter().zip(results) {
            match r {
                Ok(true) => winners.push(t.index),
                Ok(false) => interrupted.decided.push(t.index),
                Err(Halt::Budget) => interrupted.open.push(t.index),
                Err(Halt::Error(e)) => return Err(e),
            }
        }
        if !interrupted.open.is_empty() {
            run.interrupted = Some(interrupted);
        }
        if !winners.is_empty() {
            run.found = Some((depth, build(&mut tasks, &winners, depth, query.first)?));
        }
        if run.found.is_some() || run.interrupted.is_some() {
            break;
        }
    }
    Ok(run)
}

/// Runs every task at one depth, in parallel.
fn search_depth(
    tasks: &mut [Task<'_>],
    depth: usize,
    progress: Progress<'_>,
) -> Vec<Result<bool, Halt>> {
    let done = AtomicUsize::new(0);
    let total = tasks.len();
    tasks
        .par_iter_mut()
        .map(|t| {
            let r = t.try_top(depth - 1);
            progress(depth, done.fetch_add(1, Ordering::Relaxed) + 1, total);
            r
        })
        .collect()
}

/// Writes out one protocol per winning task (the first only with `--first`).
fn build(
    tasks: &mut [Task<'_>],
    winners: &[usize],
    depth: usize,
    first: bool,
) -> Result<Vec<(usize, Vec<Action>)>, SearchError> {
    let mut bodies = Vec::new();
    for t in tasks.iter_mut().filter(|t| winners.contains(&t.index)) {
        t.enforce = false;
        match t.build_top(depth - 1) {
            Ok(body) => bodies.push((t.index, body)),
            Err(Halt::Error(e)) => return Err(e),
            Err(Halt::Budget) => {}
        }
        if first {
            break;
        }
    }
    Ok(bodies)
}
