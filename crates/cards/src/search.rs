//! Protocol search and lower bounds: find every shortest card protocol for a function, or show
//! that none exists within a bound on its length.
//!
//! # What is searched
//!
//! The search runs over **KWH states** \[KWH15\], not over protocol texts. A state maps each card
//! sequence that can lie on the table to one entry per input assignment `i`:
//!
//! * in `perfect` mode, `Pr[sequence | input i, what was seen]`, stored per input as a column of
//!   coprime non-negative integers (the column divided by its sum is the exact conditional
//!   distribution, so equal columns mean equal distributions: the representation is canonical);
//! * in the two possibilistic modes, whether the sequence is possible under input `i` (0 or 1).
//!   Shuffle weights do not matter there, only their supports.
//!
//! From the start state (the layout of every input) the search is an **AND–OR search**: a shuffle
//! leads to one child state, a turn splits the state into one child per possible observation, and
//! the protocol must succeed in *every* child. A state is *final* when a committed `result` can be
//! read from it (`--committed`: some positions `P Q` decode to `f(i)` in every sequence that input
//! `i` can have), or, for non-committed protocols, when every input still possible has the same
//! output (the view has determined the output; the branch ends there, as in \[dB89\] and \[MKS12\]).
//! A state with a ⊥ sequence (one carried by inputs with different outputs) is dead and pruned:
//! no later observation can separate those inputs.
//!
//! # What a step is, and how it matches Koch–Schrempp–Kirsten
//!
//! **Every shuffle and every turn is one step; permutations and `result` are free.** This is the
//! length of \[KSK19\]'s model checker as the project's notes describe it. In the stored
//! `findProtocol.c` of `mi-ki/cardCryptoVerification` a permutation is a shuffle with a
//! one-element set; since their shuffle sets are arbitrary sets (not necessarily containing the
//! identity), a permutation before a shuffle, a turn or the result is absorbed into it there as
//! well, so the two counts agree except for protocols that end in a bare permutation — which never
//! helps. Their `CLOSED_PROTOCOL` mode (closed shuffles) is the exception where a permutation
//! cannot be absorbed into a following shuffle; here it is still free, so our bound for the closed
//! classes is at most theirs. Turns with a single possible observation are skipped (they change
//! nothing), as in \[KSK19\] (`MIN_TURN_OBSERVATIONS = 2`).
//!
//! Permutations are free, so the search never emits one: every shuffle class below is closed under
//! conjugation and every turn set is allowed, so a permutation can always be pushed to the end of
//! the protocol where it only renames the `result` positions. Found protocols therefore consist of
//! shuffles, turns and results only.
//!
//! # Symmetry reduction and memoisation
//!
//! Two states are equivalent when one becomes the other by
//!
//! * a relabelling of positions (a free permutation),
//! * a relabelling of the inputs that keeps `f` (`f(σ(i)) = f(i)`; e.g. swapping `01` and `10`
//!   for AND), or one that negates it together with swapping the two colours
//!   (`f(σ(i)) = ¬f(i)`, used when the deck has as many ♣ as ♥).
//!
//! Equivalent states are solvable within the same number of steps (the actions commute with all
//! three relabellings, and the final-state test is preserved; the proof is in the docs of the
//! private `canon` module, and in `docs/search.md`), so the memo is keyed by a canonical form:
//! the least image over the whole group, computed by sorting columns inside each output class
//! and trying only the position relabellings that a colour refinement of the positions allows —
//! one or a few images for most states instead of `n!` times the input relabellings. Keys are
//! compact byte strings (a few bytes per row). The memo records, per canonical state, the
//! largest budget proven insufficient and the smallest known to suffice. Iterative deepening
//! over the total budget `L = 0, 1, …, --max-steps` makes the first length found the shortest.
//!
//! Three more reductions are sound for the same reason: a shuffle `Π` is tried once per left
//! translate `τΠ` (the private `shuffles` module), a turn never includes a card that is already
//! known (it shows nothing new), and with one step left only turns are tried (a shuffle cannot
//! make a state final; the private `finite` module).
//!
//! # Shuffle classes, and what "complete" means for each
//!
//! A shuffle is given by its support `Π ⊆ S_n` and its weights.
//!
//! | class | what is enumerated | complete for |
//! |---|---|---|
//! | `cuts` | the cyclic rotations of every ordered subset of ≥ 2 positions (`shuffle cut`), uniform; no bisection cuts | exactly this class |
//! | `random-cuts` | the cyclic rotations of every ordered subset of ≥ 2 positions (`shuffle cut`), and every random bisection cut `{id, (p₁ q₁)…(p_m q_m)}` (`shuffle bisect`), uniform | exactly this class |
//! | `uniform-closed` | uniform over **every** non-trivial subgroup of `S_n` (all of them, found by closing the set of subgroups under joins with cyclic subgroups), `n ≤` [`MAX_SUBGROUP_CARDS`] | exactly this class |
//! | `closed` | `uniform-closed`, plus `{id: p, π: 1−p}` for every involution `π` and `p ∈ {1/3, 2/3}` | closed uniform shuffles and this finite family of non-uniform ones; in the possibilistic modes weights are irrelevant, so there it is complete for all closed shuffles |
//! | `any` | `closed`, plus every uniform shuffle on a set of 2 permutations (`--max-support` raises the size) | that finite family; in the possibilistic modes complete for every shuffle with support of at most `--max-support` permutations or a subgroup |
//! | `uniform` | `uniform-closed`, plus every uniform shuffle on a set of 2 permutations (`--max-support` raises the size); no weighted shuffles | uniform shuffles whose support is a subgroup or has at most `--max-support` permutations |
//!
//! Closed shuffles with arbitrary rational weights form an infinite family, so no finite search
//! is complete for them in `perfect` mode: a "none found" under `closed` or `any` with `perfect`
//! security is a lower bound for the enumerated family only. The \[KSK19\] code's "random cuts"
//! (`FORCE_RANDOM_CUTS`) is a narrower, differently written predicate (see
//! `papers/notes/KSK19.md`); ours is the table's.
//!
//! # Every protocol, parallelism and determinism
//!
//! The top-level actions (every shuffle of the class and every turn applied to the start state,
//! one per class of equivalent children) are searched in parallel with rayon, each with its own
//! memo, depth by depth. At the first depth where some top-level action succeeds, **one protocol
//! per top-level action that succeeds** is reported, in the fixed order of the action list;
//! `--first` keeps the first. Since each task is deterministic and owns its memo, the protocols
//! and every count (states explored, memo hits) are the same for any number of threads — and the
//! counts of disjoint sets of tasks add up, which is what makes a sharded search
//! ([`SearchQuery::shard`], [`shard::merge`]) merge to exactly the unsplit one.
//!
//! # Memory
//!
//! [`SearchQuery::max_memory`] bounds the bytes of the search's own tables (memos, the Las Vegas
//! state graph; what is counted is listed in the private `budget` module). When the count passes
//! it, the search stops cleanly: [`SearchOutcome::status`] is [`SearchStatus::Stopped`] and
//! [`SearchOutcome::stop`] says which bound was completed last, which is in progress, and which
//! top-level actions (or, for Las Vegas, how many frontier states) are still open.
//!
//! Every protocol reported has been re-checked by the exact analyzer ([`crate::analyze`]):
//! correct, at least the requested security, finite runtime (or restart-free Las Vegas when
//! asked for), and committed exactly when asked; its verdict is in
//! [`SearchOutcome::analyses`].
//! A disagreement is an error ([`SearchError::OracleRejected`]), never a silent result.
//!
//! # Standard decks
//!
//! A deck of distinct numbered cards (`--deck 1234`) is searched the same way, with the
//! \[KSK19\] encoding: input `a` is the two lowest cards, `b` the next two, helpers follow; a
//! commitment is 0 when its lower card lies first, and a committed result must use the same two
//! cards in every sequence (otherwise the basis itself could leak). Position relabellings and
//! input relabellings are used as symmetries; colour swap is not. Finds are written with the
//! format's standard-deck commitments (`layout a(#1 #2) b(#3 #4)`) and re-checked by the
//! analyzer like any other, including its rule that a result's two cards never vary.
//!
//! # Las Vegas runtime
//!
//! `--runtime las-vegas` searches restart-free Las Vegas protocols (`label`/`goto` loops) on the
//! graph of reachable states with an almost-sure-reachability fixed point; `--max-steps` then
//! bounds the *radius* (every state visited lies within that many steps of the start), and when
//! the whole reachable state space is exhausted without a protocol the outcome says so
//! ([`SearchOutcome::exhausted`]): then none exists at any length. See [`las_vegas`] for the
//! model, the guarantees and how the radius relates to \[KSK19\]'s run length. Its states keep
//! exact probabilities under every security notion (loops must bring back exact distributions).

use std::collections::HashSet;
use std::time::Instant;

use facedown_core::Symbol;
use serde::{Deserialize, Serialize};

mod budget;
mod canon;
mod finite;
pub mod las_vegas;
pub mod private;
mod problem;
pub mod shard;
mod shuffles;

pub use shard::{in_shard_order, merge, MergeError, Shard, Trials};

use crate::analyze::Security;
use crate::model::{Action, Function, NamedFunction};
use crate::protocol::Protocol;
use budget::Meter;
use problem::Problem;

/// The largest number of cards the search accepts (canonical forms cost up to `n!` per state).
pub const MAX_CARDS: usize = 7;
/// The largest number of cards for which every subgroup of `S_n` is enumerated.
pub const MAX_SUBGROUP_CARDS: usize = 6;
/// The largest number of inputs (columns of a state).
pub const MAX_INPUTS: usize = 8;

/// Why a search could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// The deck string is malformed.
    #[error("bad deck `{deck}`: {reason}")]
    BadDeck {
        /// The deck as given.
        deck: String,
        /// What is wrong.
        reason: String,
    },
    /// The function is malformed (bad truth-table length, constant, …).
    #[error("bad function `{function}`: {reason}")]
    BadFunction {
        /// The function as given.
        function: String,
        /// What is wrong.
        reason: String,
    },
    /// The combination of options is not meaningful.
    #[error("invalid query: {0}")]
    InvalidQuery(String),
    /// The query is meaningful but this search does not handle it.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// An exact weight left the 64-bit range (raise the issue: the state representation is too
    /// small for this query).
    #[error("arithmetic overflow in a state's integer weights")]
    Overflow,
    /// A protocol the search found was not confirmed by the exact analyzer — a bug.
    #[error("the analyzer rejects a protocol the search found ({reasons}):\n{text}")]
    OracleRejected {
        /// The `.cards` text.
        text: String,
        /// What the analyzer said.
        reasons: String,
    },
    /// The analyzer could not analyze a found protocol.
    #[error("the analyzer failed on a found protocol: {0}")]
    Analysis(String),
    /// A protocol the search built is malformed — a bug.
    #[error("the search built a malformed protocol: {0}")]
    Invalid(#[from] crate::protocol::ProtocolError),
}

/// Runtime class asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchRuntime {
    /// A bound on the number of steps.
    Finite,
    /// Restart-free Las Vegas: loops back to earlier states (see [`las_vegas`]).
    LasVegas,
}

/// Security notion asked for (see [`crate::analyze`] for the definitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchSecurity {
    /// Probabilities of every observation equal across inputs that must look alike.
    Perfect,
    /// Possible under one input ⇔ possible under every alike input.
    InputPossibilistic,
    /// Possible under some input ⇒ possible under an input of each output (committed only).
    OutputPossibilistic,
}

impl SearchSecurity {
    fn analyzer_level(self) -> Security {
        match self {
            SearchSecurity::Perfect => Security::Perfect,
            SearchSecurity::InputPossibilistic => Security::InputPossibilistic,
            SearchSecurity::OutputPossibilistic => Security::OutputPossibilistic,
        }
    }
}

/// The shuffle class searched (see the module docs for exactly what each enumerates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShuffleClass {
    /// Closed shuffles plus small uniform sets.
    Any,
    /// Uniform shuffles only: every subgroup, plus every set of at most `--max-support`
    /// permutations (no weighted shuffles).
    Uniform,
    /// Closed shuffles (uniform ones and a finite family of weighted ones).
    Closed,
    /// Uniform over any subgroup.
    UniformClosed,
    /// Random cuts and random bisection cuts.
    RandomCuts,
    /// Random cuts only (cyclic rotations of an ordered subset of positions), no bisection cuts.
    Cuts,
}

/// A search query.
#[derive(Clone, Debug)]
pub struct SearchQuery {
    /// The deck, left to right as the layout will have it: inputs first, then helpers.
    pub deck: Vec<Symbol>,
    /// The function computed.
    pub function: Function,
    /// Number of inputs (2 for the named functions, 1 for `copy`, 1–3 for a truth table).
    pub inputs: usize,
    /// Number of output commitments for `copy`.
    pub copies: usize,
    /// Bound on the number of steps (shuffles + turns).
    pub max_steps: usize,
    /// Runtime class.
    pub runtime: SearchRuntime,
    /// Security notion.
    pub security: SearchSecurity,
    /// Shuffle class.
    pub shuffles: ShuffleClass,
    /// Whether the output must be a commitment (`result`).
    pub committed: bool,
    /// Stop after the first protocol.
    pub first: bool,
    /// For `--shuffles any`: the largest uniform non-group support enumerated.
    pub max_support: usize,
    /// Turn one card at a time only (as \[KSK19\] does); otherwise any non-empty set of cards.
    pub single_card_turns: bool,
    /// The most bytes the search's tables may hold (`None`: no bound); see the module docs.
    pub max_memory: Option<u64>,
    /// Search only this shard of the top-level actions (finite runtime only); see [`shard`].
    pub shard: Option<Shard>,
}

impl SearchQuery {
    /// A query with the defaults of the CLI: finite runtime, perfect security, closed shuffles,
    /// non-committed, every protocol, `copy` makes 2 copies, supports of size 2 for `any`, no
    /// memory bound, no shard.
    pub fn new(deck: Vec<Symbol>, function: Function, max_steps: usize) -> SearchQuery {
        let inputs = match &function {
            Function::Copy => 1,
            Function::Table(t) => t.len().trailing_zeros() as usize,
            Function::Named(_) | Function::Several(_) | Function::AddMod => 2,
        };
        SearchQuery {
            deck,
            function,
            inputs,
            copies: 2,
            max_steps,
            runtime: SearchRuntime::Finite,
            security: SearchSecurity::Perfect,
            shuffles: ShuffleClass::Closed,
            committed: false,
            first: false,
            max_support: 2,
            single_card_turns: false,
            max_memory: None,
            shard: None,
        }
    }
}

/// Parses a deck: a string of `♣`/`♥`/`C`/`H` (two colours), or of digits / space-separated
/// numbers naming distinct cards (a standard deck, \[KSK19\] encoding).
pub fn parse_deck(text: &str) -> Result<Vec<Symbol>, SearchError> {
    let bad = |reason: &str| SearchError::BadDeck {
        deck: text.to_owned(),
        reason: reason.to_owned(),
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(bad("empty deck"));
    }
    let mut out = Vec::new();
    if trimmed
        .chars()
        .all(|c| c.is_ascii_digit() || c == ' ' || c == ',')
    {
        let tokens: Vec<&str> = if trimmed.contains([' ', ',']) {
            trimmed
                .split([' ', ','])
                .filter(|t| !t.is_empty())
                .collect()
        } else {
            trimmed.split("").filter(|t| !t.is_empty()).collect()
        };
        for t in tokens {
            let n: u16 = t.parse().map_err(|_| bad("card number out of range"))?;
            out.push(Symbol::Card(n));
        }
        let distinct: HashSet<&Symbol> = out.iter().collect();
        if distinct.len() != out.len() {
            return Err(bad("a standard deck needs distinct cards"));
        }
        return Ok(out);
    }
    for c in trimmed.chars() {
        if c.is_whitespace() {
            continue;
        }
        match Symbol::from_char(c) {
            Some(s) => out.push(s),
            None => return Err(bad(&format!("`{c}` is not ♣, ♥, ♦, ♠, C, H, D or S"))),
        }
    }
    Ok(out)
}

/// Parses a function: a name (`and`, `or`, `xor`, `nand`, `nor`, `xnor`, `copy`) or a truth
/// table of length 2, 4 or 8 over the inputs in binary order (`01101001` is the XOR of three).
pub fn parse_function(text: &str) -> Result<Function, SearchError> {
    if let Some(f) = NamedFunction::from_keyword(text) {
        return Ok(Function::Named(f));
    }
    if text == "copy" {
        return Ok(Function::Copy);
    }
    let bad = |reason: String| SearchError::BadFunction {
        function: text.to_owned(),
        reason,
    };
    if text.is_empty() || !text.chars().all(|c| c == '0' || c == '1') {
        return Err(bad(
            "expected and, or, xor, nand, nor, xnor, copy or a truth table of 0s and 1s".into(),
        ));
    }
    let len = text.len();
    if !len.is_power_of_two() || !(2..=MAX_INPUTS).contains(&len) {
        return Err(bad(format!(
            "a truth table has 2, 4 or 8 entries (1 to 3 inputs), not {len}"
        )));
    }
    Ok(Function::Table(text.chars().map(|c| c == '1').collect()))
}

/// Time and work spent at one depth of the iterative deepening (one radius of the Las Vegas
/// search).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepthStats {
    /// The step budget (the radius, for the Las Vegas search).
    pub depth: usize,
    /// States expanded at this depth: memo misses summed over the top-level tasks (finite), or
    /// graph nodes expanded (Las Vegas).
    pub states_explored: u64,
    /// Memo hits at this depth (Las Vegas: generated states that were already nodes).
    pub memo_hits: u64,
    /// Wall-clock seconds for this depth.
    pub seconds: f64,
}

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchStatus {
    /// Protocols of the shortest length were found ([`SearchOutcome::length`]).
    Found,
    /// No protocol within the bound exists.
    None,
    /// Las Vegas: every reachable state was expanded and none leads to a protocol, so none
    /// exists at any length.
    Exhausted,
    /// The memory budget stopped the search before it decided its bound (inconclusive; see
    /// [`SearchOutcome::stop`]).
    Stopped,
}

/// A top-level action, numbered as in every shard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopAction {
    /// Its number in the list of distinct top-level actions.
    pub index: usize,
    /// How it prints (`shuffle …`, `turn …`).
    pub action: String,
}

/// Where and why a search stopped before deciding its bound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopReport {
    /// Why it stopped.
    pub reason: String,
    /// Every protocol of at most this many steps (radius, for Las Vegas) is ruled out.
    pub last_completed: usize,
    /// The bound being searched when it stopped; it and every bound up to
    /// [`SearchQuery::max_steps`] are open.
    pub in_progress: usize,
    /// The query's bound.
    pub max_steps: usize,
    /// Finite search: top-level actions decided at `in_progress` (none starts a protocol of
    /// that length).
    pub decided_top_level_actions: Vec<usize>,
    /// Finite search: top-level actions still open at `in_progress`.
    pub open_top_level_actions: Vec<TopAction>,
    /// Las Vegas search: states at distance `in_progress` not expanded yet.
    pub open_states: Option<u64>,
    /// Las Vegas search: nodes of the state graph when it stopped.
    pub graph_nodes: Option<u64>,
}

/// What the memory budget allowed and what the search's tables held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryReport {
    /// The budget in bytes (`None`: unbounded).
    pub budget_bytes: Option<u64>,
    /// The most bytes the search's tables held at once.
    pub peak_bytes: u64,
}

/// One shard of a merged search (see [`merge`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardSummary {
    /// Which shard.
    pub shard: Shard,
    /// How it ended.
    pub status: SearchStatus,
    /// States it explored.
    pub states_explored: u64,
    /// Its wall-clock seconds.
    pub seconds: f64,
    /// Its memory peak.
    pub peak_bytes: u64,
}

/// What a search found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SearchOutcome {
    /// How the search ended.
    pub status: SearchStatus,
    /// Whether some protocol within the bound exists.
    pub found: bool,
    /// The length (steps) of the protocols found: the shortest possible.
    pub length: Option<usize>,
    /// The protocols found, each re-checked by the analyzer, as `.cards` texts.
    pub protocols: Vec<String>,
    /// The same protocols as models.
    #[serde(skip)]
    pub models: Vec<Protocol>,
    /// The top-level action each protocol starts with (finite search; `None` for a protocol of
    /// length 0 and for Las Vegas finds).
    pub protocol_tasks: Vec<Option<usize>>,
    /// States expanded (memo misses), over all depths and tasks.
    pub states_explored: u64,
    /// Memo hits, over all depths and tasks.
    pub memo_hits: u64,
    /// Number of distinct top-level actions (the parallel tasks), in all shards together.
    pub top_level_actions: usize,
    /// The top-level actions this search (or shard) searched.
    pub shard_tasks: usize,
    /// Number of shuffles in the class on this many cards (one per left translate).
    pub shuffle_count: usize,
    /// Work per depth.
    pub per_depth: Vec<DepthStats>,
    /// Las Vegas search only: every state reachable from the start was expanded and none of
    /// them leads to a protocol, so none exists at any length (not just within the bound).
    pub exhausted: bool,
    /// What the analyzer says of each protocol (same order as `protocols`).
    pub analyses: Vec<FoundAnalysis>,
    /// Set when the memory budget stopped the search (with [`SearchStatus::Found`]: the length
    /// is the shortest, but the list of protocols may be incomplete).
    pub stop: Option<StopReport>,
    /// The memory budget and what was used of it.
    pub memory: MemoryReport,
    /// The shard searched, if any.
    pub shard: Option<Shard>,
    /// For a merged search: its shards.
    pub merged_from: Vec<ShardSummary>,
    /// Wall-clock seconds of the whole search (setup, search and re-checks; merged: the sum
    /// over the shards).
    pub seconds: f64,
    /// Rayon threads available (results do not depend on it).
    pub threads: usize,
}

/// The analyzer's verdict on a protocol the search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundAnalysis {
    /// `finite` or `las-vegas`.
    pub runtime: String,
    /// The strongest security level that holds.
    pub security: String,
    /// Exact expected number of shuffles (largest over inputs), as a rational.
    pub expected_shuffles: Option<String>,
    /// Fewest shuffles of a run that ends.
    pub min_shuffles: Option<u64>,
    /// Most shuffles of a run; `None` when unbounded.
    pub max_shuffles: Option<u64>,
}

impl From<&crate::analyze::Analysis> for FoundAnalysis {
    fn from(a: &crate::analyze::Analysis) -> FoundAnalysis {
        FoundAnalysis {
            runtime: a.runtime.as_str().to_owned(),
            security: a.security.to_string(),
            expected_shuffles: a.expected_shuffles.as_ref().map(ToString::to_string),
            min_shuffles: a.min_shuffles,
            max_shuffles: a.max_shuffles,
        }
    }
}

/// Progress of a running search: `(depth, tasks finished at this depth, tasks)`.
pub type Progress<'a> = &'a (dyn Fn(usize, usize, usize) + Sync);

/// Runs a search (see the module docs).
pub fn search(query: &SearchQuery) -> Result<SearchOutcome, SearchError> {
    search_with_progress(query, &|_, _, _| {})
}

/// Runs a search, reporting progress after each top-level task.
pub fn search_with_progress(
    query: &SearchQuery,
    progress: Progress<'_>,
) -> Result<SearchOutcome, SearchError> {
    let start = Instant::now();
    let problem = Problem::new(query)?;
    let start_state = problem.start_state()?;
    let meter = Meter::new(query.max_memory);
    let work = if problem.is_final(&start_state) {
        let body = problem.final_actions(&start_state).unwrap_or_default();
        Work {
            found: Some((0, vec![(None, body)])),
            per_depth: vec![DepthStats {
                depth: 0,
                states_explored: 1,
                memo_hits: 0,
                seconds: start.elapsed().as_secs_f64(),
            }],
            explored: 1,
            ..Work::default()
        }
    } else if query.runtime == SearchRuntime::LasVegas {
        Work::from_las_vegas(
            las_vegas::run(&problem, &start_state, progress, &meter)?,
            &meter,
            query.max_steps,
        )
    } else {
        Work::from_finite(
            finite::run(&problem, &start_state, progress, &meter)?,
            &meter,
            query.max_steps,
        )
    };
    problem.outcome(work, &meter, start)
}

/// A protocol body and the top-level action it starts with (if any).
type TaskBody = (Option<usize>, Vec<Action>);

/// What a search did, before the protocols are re-checked.
#[derive(Default)]
struct Work {
    /// `(length, [(top-level action, body)])`.
    found: Option<(usize, Vec<TaskBody>)>,
    per_depth: Vec<DepthStats>,
    explored: u64,
    hits: u64,
    top_level_actions: usize,
    shard_tasks: usize,
    exhausted: bool,
    stop: Option<StopReport>,
}

fn budget_reason(meter: &Meter) -> String {
    format!(
        "the memory budget of {} bytes was reached ({} bytes counted)",
        meter.limit().unwrap_or(u64::MAX),
        meter.peak()
    )
}

impl Work {
    fn from_finite(run: finite::FiniteRun, meter: &Meter, max_steps: usize) -> Work {
        let stop = run.interrupted.map(|i| StopReport {
            reason: budget_reason(meter),
            last_completed: i.in_progress - 1,
            in_progress: i.in_progress,
            max_steps,
            decided_top_level_actions: i.decided,
            open_top_level_actions: i
                .open
                .into_iter()
                .map(|index| TopAction {
                    index,
                    action: run.top_level[index].clone(),
                })
                .collect(),
            open_states: None,
            graph_nodes: None,
        });
        Work {
            found: run.found.map(|(len, bodies)| {
                (len, bodies.into_iter().map(|(i, b)| (Some(i), b)).collect())
            }),
            per_depth: run.per_depth,
            explored: run.explored,
            hits: run.hits,
            top_level_actions: run.top_level.len(),
            shard_tasks: run.mine,
            exhausted: false,
            stop,
        }
    }

    fn from_las_vegas(run: las_vegas::LasVegasResult, meter: &Meter, max_steps: usize) -> Work {
        let stop = run.interrupted.map(|(radius, open)| StopReport {
            reason: budget_reason(meter),
            last_completed: radius - 1,
            in_progress: radius,
            max_steps,
            decided_top_level_actions: Vec::new(),
            open_top_level_actions: Vec::new(),
            open_states: Some(open),
            graph_nodes: Some(run.nodes),
        });
        Work {
            found: run
                .found
                .map(|(len, bodies)| (len, bodies.into_iter().map(|b| (None, b)).collect())),
            per_depth: run.per_depth,
            explored: run.explored,
            hits: run.hits,
            top_level_actions: run.top_level_actions,
            shard_tasks: run.top_level_actions,
            exhausted: run.exhausted,
            stop,
        }
    }
}

impl Problem {
    /// Re-checks the protocols found and assembles the outcome.
    fn outcome(
        &self,
        work: Work,
        meter: &Meter,
        start: Instant,
    ) -> Result<SearchOutcome, SearchError> {
        let status = match (&work.found, &work.stop, work.exhausted) {
            (Some(_), _, _) => SearchStatus::Found,
            (None, Some(_), _) => SearchStatus::Stopped,
            (None, None, true) => SearchStatus::Exhausted,
            (None, None, false) => SearchStatus::None,
        };
        let mut outcome = SearchOutcome {
            status,
            found: false,
            length: None,
            protocols: Vec::new(),
            models: Vec::new(),
            protocol_tasks: Vec::new(),
            analyses: Vec::new(),
            states_explored: work.explored,
            memo_hits: work.hits,
            top_level_actions: work.top_level_actions,
            shard_tasks: work.shard_tasks,
            shuffle_count: self.shuffles.len(),
            per_depth: work.per_depth,
            exhausted: work.exhausted,
            stop: work.stop,
            memory: MemoryReport {
                budget_bytes: meter.limit(),
                peak_bytes: meter.peak(),
            },
            shard: self.query.shard,
            merged_from: Vec::new(),
            seconds: 0.0,
            threads: rayon::current_num_threads(),
        };
        if let Some((len, bodies)) = work.found {
            outcome.found = true;
            outcome.length = Some(len);
            for (k, (task, body)) in bodies.into_iter().enumerate() {
                let number = task.map_or(k + 1, |t| t + 1);
                let p = self.protocol(number, len, body)?;
                let a = self.recheck(&p)?;
                outcome.analyses.push(FoundAnalysis::from(&a));
                outcome.protocols.push(p.to_string());
                outcome.protocol_tasks.push(task);
                outcome.models.push(p);
            }
        }
        outcome.seconds = start.elapsed().as_secs_f64();
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decks_and_functions_parse() {
        assert_eq!(parse_deck("♣♣♥♥").expect("deck").len(), 4);
        assert_eq!(parse_deck("CCHHH").expect("deck").len(), 5);
        assert!(matches!(parse_deck("1234"), Ok(d) if d[3] == Symbol::Card(4)));
        assert!(parse_deck("♣x").is_err());
        assert!(parse_deck("1123").is_err());
        assert!(parse_deck("").is_err());
        assert!(parse_function("0001").is_ok());
        assert!(parse_function("01101001").is_ok());
        assert!(parse_function("001").is_err());
        assert!(parse_function("nope").is_err());
    }
}
