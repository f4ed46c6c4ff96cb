//! Sharded searches: shard `I/K` searches the distinct top-level actions whose number is
//! `I − 1` modulo `K`, and [`merge`] combines the `K` outcomes into exactly the outcome of the
//! unsplit search.
//!
//! # Why the merge is exact
//!
//! The finite search runs one task per distinct top-level action, in a fixed order that does not
//! depend on the shard; each task owns its memo, so what it explores at depth `d` does not depend
//! on which other tasks run beside it. The unsplit search stops at the first depth `L*` at which
//! some task succeeds; a shard stops at the first depth at which one of *its* tasks succeeds, or
//! at the bound. So:
//!
//! * the length is `L* = min` over the shards that found one, and only shards that found at
//!   `L*` contribute protocols (one per winning task, in task order; with `--first` the one of
//!   the least task);
//! * the work at depth `d ≤ L*` is the sum over the shards of their work at depth `d` (every
//!   shard searched every depth up to `L*`: a shard that found later, or none, went past it);
//! * "no protocol within the bound" holds only when every shard says so.
//!
//! Seconds are not additive: the merged per-depth seconds are the slowest shard's, the merged
//! total is the sum (the CPU the split cost), and each shard's own figures are kept in
//! [`super::SearchOutcome::merged_from`]. Every merged protocol is parsed again and re-checked
//! by the exact analyzer against the query, so a shard file edited by hand cannot slip an
//! incorrect protocol into the merge.
//!
//! The Las Vegas search is one fixed point over the whole state graph and is not sharded (a
//! typed error says so).

use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::problem::Problem;
use super::{
    DepthStats, FoundAnalysis, MemoryReport, SearchError, SearchOutcome, SearchQuery, SearchStatus,
    ShardSummary, StopReport, TopAction,
};

/// Shard `index` of `count` (1-based: `1/3`, `2/3`, `3/3`); always `1 ≤ index ≤ count`, also
/// when read from JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ShardFields")]
pub struct Shard {
    index: usize,
    count: usize,
}

/// A shard as written in JSON, before it is checked.
#[derive(Deserialize)]
struct ShardFields {
    index: usize,
    count: usize,
}

impl TryFrom<ShardFields> for Shard {
    type Error = MergeError;

    fn try_from(f: ShardFields) -> Result<Shard, MergeError> {
        Shard::new(f.index, f.count)
    }
}

/// Why a shard spec or a set of shard outcomes was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// A shard spec is not `I/K` with `1 ≤ I ≤ K`.
    #[error("bad shard `{0}`: expected I/K with 1 ≤ I ≤ K (e.g. 2/3)")]
    BadShard(String),
    /// Nothing to merge.
    #[error("no shard outcomes to merge")]
    NoShards,
    /// An outcome that does not come from a sharded search.
    #[error("outcome {position} is not a shard (it was run without --shard)")]
    NotAShard {
        /// Its position among the inputs, from 1.
        position: usize,
    },
    /// Shards of different splits.
    #[error("shard {shard} belongs to a split into {got} shards, the others to {expected}")]
    CountMismatch {
        /// The shard.
        shard: Shard,
        /// The count of the first shard.
        expected: usize,
        /// Its count.
        got: usize,
    },
    /// The same shard twice.
    #[error("shard {0} is given twice")]
    Duplicate(Shard),
    /// A shard is missing.
    #[error("shard {0} is missing")]
    Missing(Shard),
    /// Shards that disagree on what the unsplit search is (a different query or version).
    #[error("shard {shard} disagrees with the others: {what}")]
    Inconsistent {
        /// The shard.
        shard: Shard,
        /// What differs.
        what: String,
    },
    /// A protocol of a shard does not parse or is rejected by the analyzer.
    #[error("shard {shard}: {reason}")]
    Rejected {
        /// The shard.
        shard: Shard,
        /// Why.
        reason: String,
    },
    /// The query itself is not valid.
    #[error("{0}")]
    Query(#[from] SearchError),
}

impl Shard {
    /// Shard `index` of `count`.
    pub fn new(index: usize, count: usize) -> Result<Shard, MergeError> {
        if index == 0 || index > count {
            return Err(MergeError::BadShard(format!("{index}/{count}")));
        }
        Ok(Shard { index, count })
    }

    /// Which shard, from 1.
    pub fn index(&self) -> usize {
        self.index
    }

    /// How many shards.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether the top-level action numbered `task` (from 0) belongs to this shard.
    pub fn owns(&self, task: usize) -> bool {
        task % self.count == self.index - 1
    }

    /// How many of `tasks` top-level actions belong to this shard.
    pub fn share(&self, tasks: usize) -> usize {
        (tasks + self.count - self.index) / self.count
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = MergeError;

    fn from_str(s: &str) -> Result<Shard, MergeError> {
        let bad = || MergeError::BadShard(s.to_owned());
        let (i, k) = s.split_once('/').ok_or_else(bad)?;
        let index = i.trim().parse().map_err(|_| bad())?;
        let count = k.trim().parse().map_err(|_| bad())?;
        Shard::new(index, count).map_err(|_| bad())
    }
}

/// Trials `0 … count − 1` of a seeded Monte-Carlo run, or the share of them that one shard runs:
/// trial `t` belongs to shard `(t mod K) + 1`. Every trial draws from a generator of
/// `(seed, t)` alone, so a shard's trials are the unsplit run's trials of the same numbers, and
/// the integer tallies of the `K` shards add up to the unsplit run's, whatever the thread count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trials {
    count: u64,
    shard: Option<Shard>,
}

impl From<u64> for Trials {
    /// All `count` trials.
    fn from(count: u64) -> Trials {
        Trials::all(count)
    }
}

impl Trials {
    /// All `count` trials.
    pub fn all(count: u64) -> Trials {
        Trials { count, shard: None }
    }

    /// The share of `count` trials that `shard` runs (all of them without a shard).
    pub fn share(count: u64, shard: Option<Shard>) -> Trials {
        Trials { count, shard }
    }

    /// The trials of the whole run.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The shard, if any.
    pub fn shard(&self) -> Option<Shard> {
        self.shard
    }

    /// The first trial of the share and the step between its trials.
    fn first_and_step(&self) -> (u64, u64) {
        self.shard
            .map_or((0, 1), |s| ((s.index - 1) as u64, s.count as u64))
    }

    /// How many trials this share runs.
    pub fn len(&self) -> u64 {
        let (first, step) = self.first_and_step();
        if first >= self.count {
            0
        } else {
            (self.count - first - 1) / step + 1
        }
    }

    /// Whether the share has no trial.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether trial `t` is in this share.
    pub fn contains(&self, t: u64) -> bool {
        let (first, step) = self.first_and_step();
        t < self.count && t % step == first
    }

    /// The numbers of this share's trials, on rayon's pool.
    pub fn par_iter(&self) -> impl ParallelIterator<Item = u64> {
        let (first, step) = self.first_and_step();
        (0..self.len())
            .into_par_iter()
            .map(move |j| first + j * step)
    }

    /// The numbers of this share's trials, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u64> {
        let (first, step) = self.first_and_step();
        (0..self.len()).map(move |j| first + j * step)
    }
}

/// Checks that `parts` are the shards `1/K … K/K` of one run, each once, and returns them in
/// shard order; `shard_of` reads a part's shard (`None`: it was run without `--shard`). Every
/// sharded computation's merge starts here.
pub fn in_shard_order<T>(
    parts: Vec<T>,
    shard_of: impl Fn(&T) -> Option<Shard>,
) -> Result<Vec<(Shard, T)>, MergeError> {
    let mut out: Vec<(Shard, T)> = Vec::with_capacity(parts.len());
    for (position, part) in parts.into_iter().enumerate() {
        let shard = shard_of(&part).ok_or(MergeError::NotAShard {
            position: position + 1,
        })?;
        if let Some((first, _)) = out.first() {
            if shard.count != first.count {
                return Err(MergeError::CountMismatch {
                    shard,
                    expected: first.count,
                    got: shard.count,
                });
            }
        }
        if out.iter().any(|(s, _)| *s == shard) {
            return Err(MergeError::Duplicate(shard));
        }
        out.push((shard, part));
    }
    let count = out.first().ok_or(MergeError::NoShards)?.0.count;
    out.sort_by_key(|(s, _)| s.index);
    // Distinct indices in 1..=count: the first index not where it belongs is missing.
    for (i, (shard, _)) in out.iter().enumerate() {
        if shard.index != i + 1 {
            return Err(MergeError::Missing(Shard {
                index: i + 1,
                count,
            }));
        }
    }
    if out.len() < count {
        return Err(MergeError::Missing(Shard {
            index: out.len() + 1,
            count,
        }));
    }
    Ok(out)
}

/// The shards must describe one search: the same top-level actions and shuffles, each with its
/// share of the tasks.
fn check_consistent(parts: &[(Shard, SearchOutcome)]) -> Result<(), MergeError> {
    let (_, first) = &parts[0];
    for (shard, p) in parts {
        let differs = |what: String| {
            Err(MergeError::Inconsistent {
                shard: *shard,
                what,
            })
        };
        if p.top_level_actions != first.top_level_actions || p.shuffle_count != first.shuffle_count
        {
            return differs(format!(
                "{} top-level actions and {} shuffles, the first shard has {} and {}",
                p.top_level_actions, p.shuffle_count, first.top_level_actions, first.shuffle_count
            ));
        }
        if p.shard_tasks != shard.share(p.top_level_actions) {
            return differs(format!(
                "it searched {} top-level actions, its share is {}",
                p.shard_tasks,
                shard.share(p.top_level_actions)
            ));
        }
        let foreign = p.protocol_tasks.iter().flatten().find(|&&t| !shard.owns(t));
        if let Some(t) = foreign {
            return differs(format!(
                "it reports a protocol of top-level action {t}, not its own"
            ));
        }
        if p.protocols.len() != p.protocol_tasks.len() || p.protocols.len() != p.analyses.len() {
            return differs("its protocols, their tasks and their analyses do not match".into());
        }
    }
    Ok(())
}

/// The last depth a shard searched completely.
fn completed(p: &SearchOutcome, max_steps: usize) -> usize {
    match (&p.stop, p.length) {
        (Some(stop), _) => stop.last_completed,
        (None, Some(len)) => len.saturating_sub(1),
        (None, None) => max_steps,
    }
}

/// Merges the outcomes of the shards `1/K … K/K` of one finite-runtime search into the outcome
/// of the unsplit search (see the module docs). The query is the shards' query (its `shard` is
/// ignored); the merged protocols are re-checked by the analyzer against it.
pub fn merge(query: &SearchQuery, parts: Vec<SearchOutcome>) -> Result<SearchOutcome, MergeError> {
    let parts = in_shard_order(parts, |p| p.shard)?;
    check_consistent(&parts)?;
    let mut unsplit = query.clone();
    unsplit.shard = None;
    let problem = Problem::new(&unsplit)?;
    let length = parts.iter().filter_map(|(_, p)| p.length).min();
    let through = length.unwrap_or(query.max_steps);
    let mut merged = SearchOutcome {
        status: SearchStatus::None,
        found: length.is_some(),
        length,
        protocols: Vec::new(),
        models: Vec::new(),
        protocol_tasks: Vec::new(),
        states_explored: 0,
        memo_hits: 0,
        top_level_actions: parts[0].1.top_level_actions,
        shard_tasks: parts[0].1.top_level_actions,
        shuffle_count: parts[0].1.shuffle_count,
        per_depth: merged_depths(&parts, through)?,
        exhausted: false,
        analyses: Vec::new(),
        stop: merged_stop(&parts, query.max_steps, length),
        memory: MemoryReport {
            budget_bytes: parts
                .iter()
                .filter_map(|(_, p)| p.memory.budget_bytes)
                .max(),
            peak_bytes: parts
                .iter()
                .map(|(_, p)| p.memory.peak_bytes)
                .max()
                .unwrap_or(0),
        },
        shard: None,
        merged_from: parts
            .iter()
            .map(|(shard, p)| ShardSummary {
                shard: *shard,
                status: p.status,
                states_explored: p.states_explored,
                seconds: p.seconds,
                peak_bytes: p.memory.peak_bytes,
            })
            .collect(),
        seconds: parts.iter().map(|(_, p)| p.seconds).sum(),
        threads: parts.iter().map(|(_, p)| p.threads).max().unwrap_or(1),
    };
    // Saturating: each per-depth figure was checked, only forged ones get near 2⁶⁴ together.
    merged.states_explored = merged
        .per_depth
        .iter()
        .map(|d| d.states_explored)
        .fold(0, u64::saturating_add);
    merged.memo_hits = merged
        .per_depth
        .iter()
        .map(|d| d.memo_hits)
        .fold(0, u64::saturating_add);
    if let Some(len) = length {
        collect_protocols(&problem, &parts, len, query.first, &mut merged)?;
    }
    merged.status = match (merged.found, &merged.stop) {
        (true, _) => SearchStatus::Found,
        (false, Some(_)) => SearchStatus::Stopped,
        (false, None) => SearchStatus::None,
    };
    Ok(merged)
}

/// Per depth up to `through`: the shards' work summed, the slowest shard's seconds. Counts that
/// do not fit in 64 bits (only a forged shard has them) are refused.
fn merged_depths(
    parts: &[(Shard, SearchOutcome)],
    through: usize,
) -> Result<Vec<DepthStats>, MergeError> {
    let deepest = parts
        .iter()
        .map(|(_, p)| p.per_depth.last().map_or(0, |d| d.depth))
        .max()
        .unwrap_or(0);
    let mut out = Vec::new();
    for depth in 0..=through.min(deepest) {
        let at: Vec<(Shard, &DepthStats)> = parts
            .iter()
            .filter_map(|(s, p)| {
                p.per_depth
                    .iter()
                    .find(|d| d.depth == depth)
                    .map(|d| (*s, d))
            })
            .collect();
        let Some((_, first)) = at.first() else {
            continue;
        };
        // A start that is already final is depth 0 in every shard: count it once.
        let (mut states, mut hits) = (first.states_explored, first.memo_hits);
        if depth > 0 {
            (states, hits) = (0, 0);
            for (shard, d) in &at {
                let overflow = || MergeError::Inconsistent {
                    shard: *shard,
                    what: format!("its counts at depth {depth} overflow"),
                };
                states = states.checked_add(d.states_explored).ok_or_else(overflow)?;
                hits = hits.checked_add(d.memo_hits).ok_or_else(overflow)?;
            }
        }
        out.push(DepthStats {
            depth,
            states_explored: states,
            memo_hits: hits,
            seconds: at.iter().map(|(_, d)| d.seconds).fold(0.0, f64::max),
        });
    }
    Ok(out)
}

/// The stop report of the merged search: at the least depth any shard did not complete (below
/// or at the length found), the union of the open top-level actions there.
fn merged_stop(
    parts: &[(Shard, SearchOutcome)],
    max_steps: usize,
    length: Option<usize>,
) -> Option<StopReport> {
    let stopped: Vec<&StopReport> = parts.iter().filter_map(|(_, p)| p.stop.as_ref()).collect();
    let in_progress = stopped.iter().map(|s| s.in_progress).min()?;
    if length.is_some_and(|len| in_progress > len) {
        return None;
    }
    let last_completed = parts
        .iter()
        .map(|(_, p)| completed(p, max_steps))
        .min()
        .unwrap_or(0)
        .min(in_progress.saturating_sub(1));
    let mut open: Vec<TopAction> = stopped
        .iter()
        .filter(|s| s.in_progress == in_progress)
        .flat_map(|s| s.open_top_level_actions.iter().cloned())
        .collect();
    open.sort_by_key(|a| a.index);
    let total = parts[0].1.top_level_actions;
    let decided = (0..total)
        .filter(|t| open.iter().all(|a| a.index != *t))
        .collect();
    Some(StopReport {
        reason: stopped
            .iter()
            .find(|s| s.in_progress == in_progress)
            .map_or_else(String::new, |s| s.reason.clone()),
        last_completed,
        in_progress,
        max_steps,
        decided_top_level_actions: decided,
        open_top_level_actions: open,
        open_states: None,
        graph_nodes: None,
    })
}

/// The protocols of the shards that found at `len`, in task order, each parsed and re-checked.
fn collect_protocols(
    problem: &Problem,
    parts: &[(Shard, SearchOutcome)],
    len: usize,
    first: bool,
    merged: &mut SearchOutcome,
) -> Result<(), MergeError> {
    let mut found: Vec<(Option<usize>, Shard, &String, &FoundAnalysis)> = Vec::new();
    for (shard, p) in parts.iter().filter(|(_, p)| p.length == Some(len)) {
        for ((task, text), a) in p.protocol_tasks.iter().zip(&p.protocols).zip(&p.analyses) {
            found.push((*task, *shard, text, a));
        }
    }
    found.sort_by_key(|f| (f.0, f.1.index));
    // A protocol of length 0 (the start is final) is reported by every shard: keep one.
    found.dedup_by_key(|f| f.0);
    if first {
        found.truncate(1);
    }
    for (task, shard, text, reported) in found {
        let rejected = |reason: String| MergeError::Rejected { shard, reason };
        let model = crate::parse::parse(text)
            .map_err(|e| rejected(format!("a protocol does not parse: {e}")))?;
        let analysis = problem
            .recheck(&model)
            .map_err(|e| rejected(e.to_string()))?;
        if FoundAnalysis::from(&analysis) != *reported {
            return Err(rejected(format!(
                "the analysis it reports for top-level action {task:?} is not the analyzer's"
            )));
        }
        merged.protocols.push(text.clone());
        merged.protocol_tasks.push(task);
        merged.analyses.push(reported.clone());
        merged.models.push(model);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_parse_and_split_the_tasks() {
        let s: Shard = "2/3".parse().expect("parses");
        assert_eq!(s, Shard { index: 2, count: 3 });
        assert_eq!(s.to_string(), "2/3");
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(
                matches!(bad.parse::<Shard>(), Err(MergeError::BadShard(_))),
                "{bad}"
            );
        }
        for bad in [
            r#"{"index":0,"count":3}"#,
            r#"{"index":4,"count":3}"#,
            r#"{"index":1,"count":0}"#,
        ] {
            assert!(serde_json::from_str::<Shard>(bad).is_err(), "{bad}");
        }
        let read: Shard = serde_json::from_str(r#"{"index":2,"count":3}"#).expect("valid");
        assert_eq!(read, s);
        let shards: Vec<Shard> = (1..=3).map(|i| Shard::new(i, 3).expect("valid")).collect();
        for tasks in 0..10 {
            for t in 0..tasks {
                assert_eq!(shards.iter().filter(|s| s.owns(t)).count(), 1);
            }
            assert_eq!(shards.iter().map(|s| s.share(tasks)).sum::<usize>(), tasks);
            for s in &shards {
                assert_eq!(s.share(tasks), (0..tasks).filter(|&t| s.owns(t)).count());
            }
        }
    }

    #[test]
    fn the_trials_of_the_shards_are_the_trials_of_the_run_each_once() {
        for count in [0u64, 1, 2, 3, 4, 10, 11] {
            assert_eq!(Trials::all(count).par_iter().count() as u64, count);
            assert!(Trials::all(count).iter().eq(0..count));
            let mut seen: Vec<u64> = Vec::new();
            for i in 1..=3 {
                let share = Trials::share(count, Some(Shard::new(i, 3).expect("valid")));
                let mine: Vec<u64> = share.par_iter().collect();
                assert_eq!(mine.len() as u64, share.len());
                assert!(mine.iter().all(|&t| share.contains(t)));
                seen.extend(mine);
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..count).collect::<Vec<_>>());
        }
    }
}
