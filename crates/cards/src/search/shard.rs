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
//! [`super::SearchOutcome::merged_from`].
//!
//! # What a merge trusts
//!
//! Nothing a shard file says is used before it is checked against the query. Before any loop
//! runs over a shard's numbers, each shard's outcome must be one the search can produce
//! ([`Forgery`] lists what is refused): its top-level actions and shuffles are those of the
//! query (recomputed from the start state), its length is within the bound and agrees with
//! `found` and its status, its work covers exactly the depths `1 … D` up to where it ended
//! (`D` the length, the depth it stopped at, or the bound) and adds up to its totals, a find
//! lists its protocols and a non-find none, and a stop report is one of that shard's. Every
//! merged protocol is parsed again, must be written as the search writes it for this query
//! (same header, shuffles of the class, allowed turns, the claimed number of steps, starting
//! with its top-level action) and is re-checked by the exact analyzer, so a shard file edited
//! by hand cannot slip an incorrect protocol, or a length or work its protocols do not bear
//! out, into the merge. What no check can see is a shard that hides a protocol it found (says
//! "none" where it would have found one): only running that shard again tells.
//!
//! The Las Vegas search is one fixed point over the whole state graph and is not sharded (a
//! typed error says so).

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::problem::Problem;
use super::{
    DepthStats, FoundAnalysis, MemoryReport, SearchError, SearchOutcome, SearchQuery,
    SearchRuntime, SearchStatus, ShardSummary, StopReport, TopAction,
};
use crate::model::{Action, ActionKind};

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
    /// A shard's outcome claims what its computation cannot have produced: only a file edited
    /// by hand (or damaged) says it.
    #[error("shard {shard} is refused: {forgery}")]
    Forged {
        /// The shard.
        shard: Shard,
        /// What it claims.
        forgery: Forgery,
    },
    /// The query itself is not valid.
    #[error("{0}")]
    Query(#[from] SearchError),
}

/// What a shard claims that the search or the simulator cannot have produced (see
/// [`MergeError::Forged`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Forgery {
    /// Protocols longer than the query's bound.
    #[error("it claims protocols of {length} step(s), the bound is {max_steps}")]
    LengthBeyondBound {
        /// The length it claims.
        length: usize,
        /// The query's bound.
        max_steps: usize,
    },
    /// `found` says one thing, `length` the other.
    #[error("it says found = {found} with the length {}", some(.length))]
    FoundDisagreesWithLength {
        /// What `found` says.
        found: bool,
        /// What `length` says.
        length: Option<usize>,
    },
    /// A length of 0 for a start that is not final, or another for one that is.
    #[error(
        "it claims the length {}, the start is {} final",
        some(.length),
        if *.start_final { "already" } else { "not" }
    )]
    LengthDisagreesWithStart {
        /// The length it claims.
        length: Option<usize>,
        /// Whether the query's start is final.
        start_final: bool,
    },
    /// A status that does not follow from what the shard found and whether it stopped.
    #[error("its status is {status:?}, what it found and where it stopped make it {expected:?}")]
    StatusDisagrees {
        /// Its status.
        status: SearchStatus,
        /// The status its other fields give.
        expected: SearchStatus,
    },
    /// The Las Vegas search's exhaustion, in a finite search.
    #[error("it claims the Las Vegas search's exhaustion in a finite search")]
    Exhausted,
    /// A find without a protocol.
    #[error("it claims protocols of {length} step(s) and lists none")]
    NoProtocolOfLength {
        /// The length it claims.
        length: usize,
    },
    /// Protocols without a find.
    #[error("it lists {count} protocol(s) but found none")]
    ProtocolsWithoutFind {
        /// How many it lists.
        count: usize,
    },
    /// More than one protocol although the query keeps the first only.
    #[error("it lists {count} protocols, --first keeps one")]
    SeveralWithFirst {
        /// How many it lists.
        count: usize,
    },
    /// A protocol's top-level action that is none of the query's, is listed out of order, or
    /// is missing (or present) where the length says otherwise.
    #[error("it reports a protocol of top-level action {}, which {why}", some(.task))]
    BadTask {
        /// The top-level action.
        task: Option<usize>,
        /// What is wrong with it.
        why: &'static str,
    },
    /// Other top-level actions or shuffles than the query's.
    #[error(
        "it counts {top_level_actions} top-level actions and {shuffles} shuffles, the query has \
         {expected_top_level_actions} and {expected_shuffles}"
    )]
    OtherSearch {
        /// Its count of top-level actions.
        top_level_actions: usize,
        /// Its count of shuffles.
        shuffles: usize,
        /// The query's top-level actions.
        expected_top_level_actions: usize,
        /// The query's shuffles.
        expected_shuffles: usize,
    },
    /// Work at a depth past the query's bound.
    #[error("it reports work at depth {depth}, past the bound {max_steps}")]
    DepthBeyondBound {
        /// The depth.
        depth: usize,
        /// The query's bound.
        max_steps: usize,
    },
    /// Work at a depth past the one where the shard ended (its length, or where it stopped).
    #[error("it reports work at depth {depth}, past depth {end} where it ended")]
    DepthBeyondEnd {
        /// The depth.
        depth: usize,
        /// Where it ended.
        end: usize,
    },
    /// The work per depth is not that of consecutive depths up to where the shard ended.
    #[error("its work per depth has depth {got} where depth {expected} belongs")]
    DepthOutOfPlace {
        /// The depth that belongs there.
        expected: usize,
        /// The depth it has.
        got: usize,
    },
    /// The work per depth stops before the depth where the shard ended.
    #[error("its work per depth ends at depth {}, it ended at depth {end}", some(.last))]
    DepthsMissing {
        /// The last depth it has.
        last: Option<usize>,
        /// Where it ended.
        end: usize,
    },
    /// A total that is not the sum of the work per depth.
    #[error("it counts {total} {what} in all, its depths add up to {}", some(.sum))]
    WorkDisagrees {
        /// `states explored` or `memo hits`.
        what: &'static str,
        /// Its total.
        total: u64,
        /// The sum over its depths (`None`: it overflows).
        sum: Option<u64>,
    },
    /// A stop report that is not one of this shard's.
    #[error("its stop report {0}")]
    Stop(&'static str),
    /// A protocol with a number of steps other than the length.
    #[error("its protocol of top-level action {} has {steps} step(s), not {length}", some(.task))]
    ProtocolOfOtherLength {
        /// The protocol's top-level action.
        task: Option<usize>,
        /// Its steps (shuffles and turns on its longest path).
        steps: usize,
        /// The length claimed.
        length: usize,
    },
    /// A protocol with an action the search does not write (another action kind, a shuffle
    /// outside the class, a turn the query does not allow).
    #[error(
        "its protocol of top-level action {} has `{action}`, which this search does not write",
        some(.task)
    )]
    ForeignAction {
        /// The protocol's top-level action.
        task: Option<usize>,
        /// The action.
        action: String,
    },
    /// A protocol that does not start with its top-level action.
    #[error(
        "its protocol of top-level action {task} starts with `{got}`, that action is `{expected}`"
    )]
    NotOfItsTask {
        /// The protocol's top-level action.
        task: usize,
        /// How the protocol starts.
        got: String,
        /// How that top-level action prints.
        expected: String,
    },
    /// A protocol whose header (name, inputs, function, layout) is not the one the search
    /// writes for this query.
    #[error(
        "its protocol of top-level action {} is not written as this search writes it",
        some(.task)
    )]
    NotAsWritten {
        /// The protocol's top-level action.
        task: Option<usize>,
    },
    /// A simulation's total that is not the sum of its inputs' runs.
    #[error("it counts {claimed} runs in all, its inputs' runs add up to {}", some(.sum))]
    TotalRuns {
        /// Its total.
        claimed: u64,
        /// The sum over its inputs (`None`: it overflows).
        sum: Option<u64>,
    },
    /// Shuffle counts no runs can have: the largest above the sum, the sum above the runs
    /// times the largest, or sums of squares outside what the sum and the largest allow.
    #[error(
        "its shuffle counts of input {input} (sum {sum}, largest {max}, sum of squares \
         {sum_of_squares}) are not those of {runs} runs"
    )]
    ShuffleCounts {
        /// The input.
        input: String,
        /// Its runs.
        runs: u64,
        /// The claimed sum of the shuffle counts.
        sum: u64,
        /// The claimed largest shuffle count.
        max: u64,
        /// The claimed sum of their squares.
        sum_of_squares: u128,
    },
    /// One of several outputs read at other runs than the committed ones, or right less often
    /// than every output together.
    #[error(
        "its readings of output {output} for input {input} are not those of its committed runs"
    )]
    OutputReadings {
        /// The input.
        input: String,
        /// The output.
        output: String,
    },
    /// A view that is not written as the simulator writes one (observations of `♣ ♥ ♦ ♠ #n
    /// %n` joined by ` / `, `(nothing)` or `(longer view)`).
    #[error("it lists `{view}`, which is not a view")]
    MalformedView {
        /// The view as listed.
        view: String,
    },
    /// A view listed twice (its counts would be added twice).
    #[error("it lists the {whose} `{view}` twice")]
    ViewTwice {
        /// `view`, or whose private view it is.
        whose: String,
        /// The view.
        view: String,
    },
    /// A view listed with no run that saw it.
    #[error("it lists the {whose} `{view}`, which no run saw")]
    UnseenView {
        /// `view`, or whose private view it is.
        whose: String,
        /// The view.
        view: String,
    },
    /// A view whose counts are not one per input of the protocol, like the others'.
    #[error("its {whose} `{view}` has {got} counts, not {expected}")]
    ViewWidth {
        /// `view`, or whose private view it is.
        whose: String,
        /// The view.
        view: String,
        /// Its counts.
        got: usize,
        /// The counts of the others (at least one per simulated input).
        expected: usize,
    },
    /// A view counted for an input the shard did not simulate.
    #[error("its {whose} `{view}` is counted for an input it did not simulate")]
    ViewOfAnotherInput {
        /// `view`, or whose private view it is.
        whose: String,
        /// The view.
        view: String,
    },
    /// Views that do not count the runs: every run sees one view, except a run stuck on a
    /// private bit it never named, which may see none.
    #[error(
        "its {whose}s count {} runs of {}, it ran {runs} of which {stuck} stuck",
        .seen.map_or_else(|| "more than 2^64 - 1".to_owned(), |s| s.to_string()),
        .input.as_ref().map_or("its inputs together".to_owned(), |i| format!("input {i}"))
    )]
    ViewRuns {
        /// `view`, or whose private view it is.
        whose: String,
        /// The input (`None`: the simulated inputs together).
        input: Option<String>,
        /// The runs its views count (`None`: they overflow).
        seen: Option<u64>,
        /// The runs it ran.
        runs: u64,
        /// Of which stuck.
        stuck: u64,
    },
    /// More correct runs than runs, or fewer than the committed runs that were right.
    #[error("it counts {correct} correct runs of input {input}, between {least} and {runs} are possible")]
    CorrectRuns {
        /// The input.
        input: String,
        /// Its correct runs.
        correct: u64,
        /// Its committed runs that were right.
        least: u64,
        /// Its runs.
        runs: u64,
    },
}

/// An optional number as an error message says it: the number, or `none` (for a sum: it
/// overflows 64 bits).
fn some<T: fmt::Display>(n: &Option<T>) -> String {
    n.as_ref()
        .map_or_else(|| "none".to_owned(), ToString::to_string)
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

    /// How many of `tasks` top-level actions belong to this shard (no overflow, whatever
    /// `tasks` a shard file claims).
    pub fn share(&self, tasks: usize) -> usize {
        tasks / self.count + usize::from(tasks % self.count >= self.index)
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

/// The problem of the unsplit search: a finite-runtime query within the finite search's bound
/// (the only kind a shard can come from).
fn unsplit_problem(query: &SearchQuery) -> Result<Problem, MergeError> {
    let invalid = |why: String| MergeError::Query(SearchError::InvalidQuery(why));
    if query.runtime != SearchRuntime::Finite {
        return Err(invalid(
            "the Las Vegas search is not sharded, so there are no shards of it to merge".into(),
        ));
    }
    if query.max_steps > super::finite::MAX_BUDGET {
        return Err(invalid(format!(
            "--max-steps {} is above the finite search's limit of {}",
            query.max_steps,
            super::finite::MAX_BUDGET
        )));
    }
    let mut unsplit = query.clone();
    unsplit.shard = None;
    Ok(Problem::new(&unsplit)?)
}

/// What the query fixes before any shard is read, to check each shard's claims against.
struct Expected {
    /// The query's bound.
    max_steps: usize,
    /// Whether the query keeps the first protocol only.
    first: bool,
    /// Whether the start is already final (then every shard found the protocol of 0 steps).
    start_final: bool,
    /// How each distinct top-level action prints, in task order (none for a final start).
    top: Vec<String>,
    /// How each shuffle of the class prints.
    shuffles: HashSet<String>,
    /// How many shuffles the class has.
    shuffle_count: usize,
}

impl Expected {
    /// Recomputes from the query what every shard must agree with: the start, its distinct
    /// top-level actions (as the finite search lists them) and the shuffles of the class.
    fn of(problem: &Problem) -> Result<Expected, MergeError> {
        let start = problem.start_state()?;
        let start_final = problem.is_final(&start);
        let top = if start_final {
            Vec::new()
        } else {
            super::finite::distinct_top_level(problem, &start)?
                .iter()
                .map(|step| problem.describe(step.kind))
                .collect()
        };
        Ok(Expected {
            max_steps: problem.query.max_steps,
            first: problem.query.first,
            start_final,
            top,
            shuffles: problem
                .shuffles
                .iter()
                .map(|s| s.model.to_string())
                .collect(),
            shuffle_count: problem.shuffles.len(),
        })
    }

    /// Whether shard `shard`'s outcome is one the search can produce (see the module docs),
    /// checked without a loop over any number it claims.
    fn check(&self, shard: Shard, p: &SearchOutcome) -> Result<(), Forgery> {
        self.check_search(p)?;
        self.check_length(p)?;
        self.check_protocol_list(p)?;
        check_status(p)?;
        self.check_stop(shard, p)?;
        self.check_depths(p)?;
        check_totals(p)
    }

    /// The top-level actions and shuffles are the query's.
    fn check_search(&self, p: &SearchOutcome) -> Result<(), Forgery> {
        if p.top_level_actions != self.top.len() || p.shuffle_count != self.shuffle_count {
            return Err(Forgery::OtherSearch {
                top_level_actions: p.top_level_actions,
                shuffles: p.shuffle_count,
                expected_top_level_actions: self.top.len(),
                expected_shuffles: self.shuffle_count,
            });
        }
        Ok(())
    }

    /// The length is within the bound, agrees with `found` and with the start.
    fn check_length(&self, p: &SearchOutcome) -> Result<(), Forgery> {
        if p.exhausted {
            return Err(Forgery::Exhausted);
        }
        if p.found != p.length.is_some() {
            return Err(Forgery::FoundDisagreesWithLength {
                found: p.found,
                length: p.length,
            });
        }
        if let Some(length) = p.length.filter(|&l| l > self.max_steps) {
            return Err(Forgery::LengthBeyondBound {
                length,
                max_steps: self.max_steps,
            });
        }
        if self.start_final != (p.length == Some(0)) {
            return Err(Forgery::LengthDisagreesWithStart {
                length: p.length,
                start_final: self.start_final,
            });
        }
        Ok(())
    }

    /// A find lists protocols (one with `--first`), each of a distinct top-level action of the
    /// query in increasing order (none for the protocol of 0 steps); a non-find lists none.
    fn check_protocol_list(&self, p: &SearchOutcome) -> Result<(), Forgery> {
        let count = p.protocols.len();
        match p.length {
            Some(length) if count == 0 => return Err(Forgery::NoProtocolOfLength { length }),
            None if count > 0 => return Err(Forgery::ProtocolsWithoutFind { count }),
            _ if self.first && count > 1 => return Err(Forgery::SeveralWithFirst { count }),
            _ => {}
        }
        let bad = |task: Option<usize>, why: &'static str| Err(Forgery::BadTask { task, why });
        let mut previous: Option<usize> = None;
        for &task in &p.protocol_tasks {
            match (task, p.length == Some(0)) {
                (Some(_), true) => return bad(task, "a protocol of 0 steps does not have"),
                (None, false) => return bad(task, "only a protocol of 0 steps has"),
                (Some(t), false) if t >= self.top.len() => {
                    return bad(task, "is none of the query's top-level actions")
                }
                (Some(t), false) if previous.is_some_and(|q| q >= t) => {
                    return bad(task, "is listed twice or out of order")
                }
                _ => previous = task,
            }
        }
        Ok(())
    }

    /// A stop report is the finite search's at a depth within the bound (the depth of the find,
    /// if any), with some top-level action open ([`Expected::check_stop_tasks`]).
    fn check_stop(&self, shard: Shard, p: &SearchOutcome) -> Result<(), Forgery> {
        let Some(stop) = &p.stop else {
            return Ok(());
        };
        let claims = [
            (self.start_final, "comes from a search whose start is final"),
            (stop.max_steps != self.max_steps, "is for another bound"),
            (
                stop.in_progress == 0 || stop.in_progress > self.max_steps,
                "stops at a depth outside 1 … the bound",
            ),
            (
                stop.last_completed != stop.in_progress.saturating_sub(1),
                "has not completed the depth before the one it stopped at",
            ),
            (
                p.length.is_some_and(|l| l != stop.in_progress),
                "stops at another depth than its find",
            ),
            (
                stop.open_states.is_some() || stop.graph_nodes.is_some(),
                "is the Las Vegas search's",
            ),
            (
                stop.open_top_level_actions.is_empty(),
                "leaves no top-level action open",
            ),
        ];
        if let Some((_, what)) = claims.iter().find(|(claimed, _)| *claimed) {
            return Err(Forgery::Stop(what));
        }
        self.check_stop_tasks(shard, p, stop)
    }

    /// The stop report's open and decided top-level actions are the shard's own, each listed
    /// once, in order, in one list only, all of them when nothing was found, and named as the
    /// query names them.
    fn check_stop_tasks(
        &self,
        shard: Shard,
        p: &SearchOutcome,
        stop: &StopReport,
    ) -> Result<(), Forgery> {
        let open: Vec<usize> = stop
            .open_top_level_actions
            .iter()
            .map(|a| a.index)
            .collect();
        let decided = &stop.decided_top_level_actions;
        let own = |tasks: &[usize]| {
            tasks.windows(2).all(|w| w[0] < w[1])
                && tasks.iter().all(|&t| t < self.top.len() && shard.owns(t))
        };
        if !own(&open) || !own(decided) {
            return Err(Forgery::Stop(
                "lists top-level actions out of order, twice or of another shard",
            ));
        }
        let open_set: HashSet<usize> = open.iter().copied().collect();
        if decided.iter().any(|t| open_set.contains(t)) {
            return Err(Forgery::Stop(
                "has a top-level action both open and decided",
            ));
        }
        let listed = open.len() + decided.len();
        if listed > p.shard_tasks || (!p.found && listed != p.shard_tasks) {
            return Err(Forgery::Stop(
                "does not account for the shard's top-level actions",
            ));
        }
        let misnamed = stop
            .open_top_level_actions
            .iter()
            .any(|a| self.top[a.index] != a.action);
        if misnamed {
            return Err(Forgery::Stop("names a top-level action wrongly"));
        }
        Ok(())
    }

    /// The work per depth is that of the depths from the first (0 for a final start, else 1)
    /// to where the shard ended, one entry each, in order.
    fn check_depths(&self, p: &SearchOutcome) -> Result<(), Forgery> {
        let end = match (p.length, &p.stop) {
            (Some(len), _) => len,
            (None, Some(stop)) => stop.in_progress,
            (None, None) => self.max_steps,
        };
        let first = usize::from(!self.start_final);
        for (i, d) in p.per_depth.iter().enumerate() {
            if d.depth > self.max_steps {
                return Err(Forgery::DepthBeyondBound {
                    depth: d.depth,
                    max_steps: self.max_steps,
                });
            }
            if d.depth > end {
                return Err(Forgery::DepthBeyondEnd {
                    depth: d.depth,
                    end,
                });
            }
            if d.depth != first + i {
                return Err(Forgery::DepthOutOfPlace {
                    expected: first + i,
                    got: d.depth,
                });
            }
        }
        if p.per_depth.len() < (end + 1).saturating_sub(first) {
            return Err(Forgery::DepthsMissing {
                last: p.per_depth.last().map(|d| d.depth),
                end,
            });
        }
        Ok(())
    }

    /// A merged protocol is written as the search writes it for this query: only shuffles of
    /// the class, allowed turns and a result, `length` steps on its longest path, starting with
    /// its top-level action, under the header the search gives it.
    fn check_written(
        &self,
        problem: &Problem,
        (task, length): (Option<usize>, usize),
        model: &crate::protocol::Protocol,
    ) -> Result<(), Forgery> {
        let steps = self
            .steps(problem, model.body())
            .map_err(|action| Forgery::ForeignAction { task, action })?;
        if steps != length {
            return Err(Forgery::ProtocolOfOtherLength {
                task,
                steps,
                length,
            });
        }
        if let Some(t) = task {
            let got = model
                .body()
                .first()
                .map_or_else(String::new, |a| crate::print::describe(&a.kind));
            if got != self.top[t] {
                return Err(Forgery::NotOfItsTask {
                    task: t,
                    got,
                    expected: self.top[t].clone(),
                });
            }
        }
        let number = task.map_or(1, |t| t + 1);
        let rewritten = problem.protocol(number, length, model.body().to_vec());
        if rewritten.map_or(true, |p| p.to_string() != model.to_string()) {
            return Err(Forgery::NotAsWritten { task });
        }
        Ok(())
    }

    /// The most steps (shuffles and turns) on a path through `body`, or how the first action
    /// this search does not write prints.
    fn steps(&self, problem: &Problem, body: &[Action]) -> Result<usize, String> {
        let mut total = 0usize;
        for action in body {
            let cost = match &action.kind {
                ActionKind::Shuffle(s) if self.shuffles.contains(&s.to_string()) => 1,
                ActionKind::Turn {
                    positions,
                    branches,
                } if turn_allowed(problem, positions) => {
                    let mut longest = 0;
                    for b in branches.iter().flatten() {
                        longest = longest.max(self.steps(problem, &b.body)?);
                    }
                    longest.saturating_add(1)
                }
                ActionKind::Result(_) => 0,
                other => return Err(crate::print::describe(other)),
            };
            total = total.saturating_add(cost);
        }
        Ok(total)
    }
}

/// Whether the search turns exactly these positions (each once, on the deck, in ascending
/// order, and one card only with `--single-card-turns`).
fn turn_allowed(problem: &Problem, positions: &[usize]) -> bool {
    let ascending = positions.windows(2).all(|w| w[0] < w[1]);
    let mask = positions
        .iter()
        .try_fold(0u16, |m, &p| (p < problem.n && p < 16).then(|| m | 1 << p));
    ascending && mask.is_some_and(|m| problem.turns.binary_search(&m).is_ok())
}

/// The status follows from the find and the stop report.
fn check_status(p: &SearchOutcome) -> Result<(), Forgery> {
    let expected = match (p.found, &p.stop) {
        (true, _) => SearchStatus::Found,
        (false, Some(_)) => SearchStatus::Stopped,
        (false, None) => SearchStatus::None,
    };
    if p.status != expected {
        return Err(Forgery::StatusDisagrees {
            status: p.status,
            expected,
        });
    }
    Ok(())
}

/// The totals are the sums of the work per depth.
fn check_totals(p: &SearchOutcome) -> Result<(), Forgery> {
    let sum = |of: fn(&DepthStats) -> u64| {
        p.per_depth
            .iter()
            .try_fold(0u64, |a, d| a.checked_add(of(d)))
    };
    let totals = [
        (
            "states explored",
            p.states_explored,
            sum(|d| d.states_explored),
        ),
        ("memo hits", p.memo_hits, sum(|d| d.memo_hits)),
    ];
    match totals
        .into_iter()
        .find(|(_, total, sum)| Some(*total) != *sum)
    {
        Some((what, total, sum)) => Err(Forgery::WorkDisagrees { what, total, sum }),
        None => Ok(()),
    }
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
    let problem = unsplit_problem(query)?;
    let expected = Expected::of(&problem)?;
    for (shard, p) in &parts {
        expected
            .check(*shard, p)
            .map_err(|forgery| MergeError::Forged {
                shard: *shard,
                forgery,
            })?;
    }
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
        collect_protocols(&problem, &expected, &parts, len, &mut merged)?;
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
                // Each shard's depths were checked to increase one by one.
                let at = p.per_depth.binary_search_by_key(&depth, |d| d.depth).ok()?;
                Some((*s, &p.per_depth[at]))
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

/// The protocols of the shards that found at `len`, in task order, each parsed, checked to be
/// written as the search writes it ([`Expected::check_written`]) and re-checked.
fn collect_protocols(
    problem: &Problem,
    expected: &Expected,
    parts: &[(Shard, SearchOutcome)],
    len: usize,
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
    if expected.first {
        found.truncate(1);
    }
    for (task, shard, text, reported) in found {
        let rejected = |reason: String| MergeError::Rejected { shard, reason };
        let model = crate::parse::parse(text)
            .map_err(|e| rejected(format!("a protocol does not parse: {e}")))?;
        expected
            .check_written(problem, (task, len), &model)
            .map_err(|forgery| MergeError::Forged { shard, forgery })?;
        let analysis = problem
            .recheck(&model)
            .map_err(|e| rejected(e.to_string()))?;
        if FoundAnalysis::from(&analysis) != *reported {
            return Err(rejected(format!(
                "the analysis it reports for top-level action {task:?} is not the analyzer's"
            )));
        }
        merged.protocols.push(model.to_string());
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
