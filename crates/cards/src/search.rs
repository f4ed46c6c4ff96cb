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
//! three relabellings, and the final-state test is preserved), so the memo is keyed by a canonical
//! form: the lexicographically least image over the whole symmetry group (brute force over the
//! `n!` position relabellings; the search refuses more than [`MAX_CARDS`] cards). The memo
//! records, per canonical state, the largest budget proven insufficient and whether some budget
//! sufficed. Iterative deepening over the total budget `L = 0, 1, …, --max-steps` makes the first
//! length found the shortest.
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
//! The top-level actions (every shuffle of the class and every turn applied to the start state)
//! are searched in parallel with rayon, each with its own memo, depth by depth. At the first depth
//! where some top-level action succeeds, **one protocol per top-level action that succeeds** is
//! reported (top-level actions whose children are equivalent are reported once), in the fixed
//! order of the action list; `--first` keeps the first. Since each task is deterministic and owns
//! its memo, the protocols and every count (states explored, memo hits) are the same for any
//! number of threads.
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

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::time::Instant;

use facedown_core::{Perm, Symbol};
use num_bigint::BigInt;
use rayon::prelude::*;

pub mod las_vegas;

use crate::analyze::{analyze, Defect, Runtime, Security};
use crate::model::{
    decode_bit, input_bits, Action, ActionKind, Branch, Function, LayoutItem, NamedFunction,
    Shuffle, Q,
};
use crate::protocol::{Protocol, ProtocolParts};

/// The largest number of cards the search accepts (canonical forms cost `n!` per state).
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchRuntime {
    /// A bound on the number of steps.
    Finite,
    /// Restart-free Las Vegas: loops back to earlier states (see [`las_vegas`]).
    LasVegas,
}

/// Security notion asked for (see [`crate::analyze`] for the definitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
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
    /// Number of inputs (2 for the named functions, 1 for `copy`).
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
}

impl SearchQuery {
    /// A query with the defaults of the CLI: finite runtime, perfect security, closed shuffles,
    /// non-committed, every protocol, `copy` makes 2 copies, supports of size 2 for `any`.
    pub fn new(deck: Vec<Symbol>, function: Function, max_steps: usize) -> SearchQuery {
        let inputs = match &function {
            Function::Copy => 1,
            Function::Table(t) => t.len().trailing_zeros() as usize,
            Function::Named(_) => 2,
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
            None => return Err(bad(&format!("`{c}` is not ♣, ♥, C or H"))),
        }
    }
    Ok(out)
}

/// Parses a function: a name (`and`, `or`, `xor`, `nand`, `nor`, `xnor`, `copy`) or a truth
/// table of length 2, 4 or 8 over the inputs in binary order.
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
#[derive(Clone, Debug, serde::Serialize)]
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

/// What a search found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SearchOutcome {
    /// Whether some protocol within the bound exists.
    pub found: bool,
    /// The length (steps) of the protocols found: the shortest possible.
    pub length: Option<usize>,
    /// The protocols found, each re-checked by the analyzer, as `.cards` texts.
    pub protocols: Vec<String>,
    /// The same protocols as models.
    #[serde(skip)]
    pub models: Vec<Protocol>,
    /// States expanded (memo misses), over all depths and tasks.
    pub states_explored: u64,
    /// Memo hits, over all depths and tasks.
    pub memo_hits: u64,
    /// Number of top-level actions (the parallel tasks).
    pub top_level_actions: usize,
    /// Number of shuffles in the class on this many cards.
    pub shuffle_count: usize,
    /// Work per depth.
    pub per_depth: Vec<DepthStats>,
    /// Las Vegas search only: every state reachable from the start was expanded and none of
    /// them leads to a protocol, so none exists at any length (not just within the bound).
    pub exhausted: bool,
    /// What the analyzer says of each protocol (same order as `protocols`).
    pub analyses: Vec<FoundAnalysis>,
    /// Wall-clock seconds of the whole search (setup, search and re-checks).
    pub seconds: f64,
    /// Rayon threads available (results do not depend on it).
    pub threads: usize,
}

/// The analyzer's verdict on a protocol the search found.
#[derive(Clone, Debug, serde::Serialize)]
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
    if query.runtime == SearchRuntime::LasVegas && !problem.is_final(&start_state) {
        let r = las_vegas::run(&problem, &start_state, progress)?;
        return problem.outcome(
            Work {
                found: r.found,
                per_depth: r.per_depth,
                explored: r.explored,
                hits: r.hits,
                top_level_actions: r.top_level_actions,
                exhausted: r.exhausted,
            },
            start,
        );
    }
    let mut per_depth = Vec::new();
    let mut explored = 0u64;
    let mut hits = 0u64;

    let top = problem.expand(&start_state)?;
    let top_count = top.len();
    let mut found: Option<(usize, Vec<Vec<Action>>)> = None;

    if problem.is_final(&start_state) {
        let body = problem.final_actions(&start_state).unwrap_or_default();
        found = Some((0, vec![body]));
        per_depth.push(DepthStats {
            depth: 0,
            states_explored: 1,
            memo_hits: 0,
            seconds: start.elapsed().as_secs_f64(),
        });
        explored = 1;
    } else {
        let mut tasks: Vec<Task<'_>> = top
            .into_iter()
            .map(|step| Task {
                problem: &problem,
                step,
                memo: HashMap::new(),
                canon_cache: HashMap::new(),
                explored: 0,
                hits: 0,
            })
            .collect();
        for depth in 1..=query.max_steps {
            let t0 = Instant::now();
            let done = std::sync::atomic::AtomicUsize::new(0);
            let before: (u64, u64) = tasks
                .iter()
                .fold((0, 0), |a, t| (a.0 + t.explored, a.1 + t.hits));
            let results: Vec<Result<bool, SearchError>> = tasks
                .par_iter_mut()
                .map(|t| {
                    let r = t.try_top(depth - 1);
                    let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    progress(depth, k, top_count);
                    r
                })
                .collect();
            let after: (u64, u64) = tasks
                .iter()
                .fold((0, 0), |a, t| (a.0 + t.explored, a.1 + t.hits));
            per_depth.push(DepthStats {
                depth,
                states_explored: after.0 - before.0,
                memo_hits: after.1 - before.1,
                seconds: t0.elapsed().as_secs_f64(),
            });
            explored = after.0;
            hits = after.1;
            let mut winners = Vec::new();
            for (i, r) in results.into_iter().enumerate() {
                if r? {
                    winners.push(i);
                }
            }
            if winners.is_empty() {
                continue;
            }
            // Reconstruct one protocol per winning top-level action, distinct by children.
            let mut seen = HashSet::new();
            let mut bodies = Vec::new();
            for i in winners {
                let t = &mut tasks[i];
                if !seen.insert(problem.children_key(&t.step)) {
                    continue;
                }
                bodies.push(t.build_top(depth - 1)?);
                if query.first {
                    break;
                }
            }
            found = Some((depth, bodies));
            break;
        }
    }

    problem.outcome(
        Work {
            found,
            per_depth,
            explored,
            hits,
            top_level_actions: top_count,
            exhausted: false,
        },
        start,
    )
}

/// What a search did, before the protocols are re-checked.
struct Work {
    found: Option<(usize, Vec<Vec<Action>>)>,
    per_depth: Vec<DepthStats>,
    explored: u64,
    hits: u64,
    top_level_actions: usize,
    exhausted: bool,
}

impl Problem {
    /// Re-checks the protocols found and assembles the outcome.
    fn outcome(&self, work: Work, start: Instant) -> Result<SearchOutcome, SearchError> {
        let mut outcome = SearchOutcome {
            found: false,
            length: None,
            protocols: Vec::new(),
            models: Vec::new(),
            analyses: Vec::new(),
            states_explored: work.explored,
            memo_hits: work.hits,
            top_level_actions: work.top_level_actions,
            shuffle_count: self.shuffles.len(),
            per_depth: work.per_depth,
            exhausted: work.exhausted,
            seconds: 0.0,
            threads: rayon::current_num_threads(),
        };
        if let Some((len, bodies)) = work.found {
            outcome.found = true;
            outcome.length = Some(len);
            for (k, body) in bodies.into_iter().enumerate() {
                let p = self.protocol(k + 1, len, body)?;
                let a = self.recheck(&p)?;
                outcome.analyses.push(FoundAnalysis {
                    runtime: a.runtime.as_str().to_owned(),
                    security: a.security.to_string(),
                    expected_shuffles: a.expected_shuffles.as_ref().map(ToString::to_string),
                    min_shuffles: a.min_shuffles,
                    max_shuffles: a.max_shuffles,
                });
                outcome.protocols.push(p.to_string());
                outcome.models.push(p);
            }
        }
        outcome.seconds = start.elapsed().as_secs_f64();
        Ok(outcome)
    }
}

// ---------------------------------------------------------------------------------------------
// The problem: deck, sequences, symmetries, actions.

/// Sequences are bitmasks of the ♥ positions; states are sorted rows.
type Col = [u64; MAX_INPUTS];

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    /// `(sequence index, column entries per input)`, sorted by sequence index, no zero rows.
    rows: Vec<(u16, Col)>,
}

#[derive(Clone, Debug)]
struct ShuffleOp {
    /// `(perm index, integer weight)`; the weights' common denominator is their sum.
    support: Vec<(u32, u64)>,
    /// How it prints.
    model: Shuffle,
}

struct Problem {
    query: SearchQuery,
    n: usize,
    k: usize,
    outputs: Vec<bool>,
    /// States carry exact probabilities (perfect security, or any Las Vegas search: a loop must
    /// bring back exact distributions); otherwise only supports.
    perfect: bool,
    /// Standard deck (distinct cards) rather than two colours.
    standard: bool,
    /// The symbol of each symbol id (two colours: 0 = ♣, 1 = ♥; standard: cards in order).
    symbols: Vec<Symbol>,
    /// Sequences (symbol ids per position) by index, and index by sequence.
    seqs: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, u16>,
    /// All permutations of `n` positions (images), and the induced map on sequence indices.
    perms: Vec<Vec<u8>>,
    perm_seq: Vec<Vec<u16>>,
    /// Column symmetries `(σ, colour swap)`: new column `σ[i]` gets old column `i`.
    col_syms: Vec<(Vec<usize>, bool)>,
    complement: Option<Vec<u16>>,
    shuffles: Vec<ShuffleOp>,
    turns: Vec<u16>,
}

/// An action applied to a state, with its children.
#[derive(Clone, Debug)]
struct Step {
    kind: StepKind,
    /// `(observation: symbol ids at the turned positions, packed 4 bits each; child)`; one
    /// child for a shuffle.
    children: Vec<(u64, State)>,
}

#[derive(Clone, Debug)]
enum StepKind {
    Shuffle(usize),
    Turn(u16),
}

const NONE: u16 = u16::MAX;

fn gcd(a: u64, b: u64) -> u64 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn all_perms(n: usize) -> Vec<Vec<u8>> {
    // Lexicographic order, identity first.
    let mut cur: Vec<u8> = (0..n as u8).collect();
    let mut out = vec![cur.clone()];
    while facedown_core::perm::next_permutation(&mut cur) {
        out.push(cur.clone());
    }
    out
}

/// Moves the symbol at position `i` to `p[i]`.
fn apply_seq(p: &[u8], seq: &[u8]) -> Vec<u8> {
    let mut out = seq.to_vec();
    for (i, &pi) in p.iter().enumerate() {
        out[usize::from(pi)] = seq[i];
    }
    out
}

fn to_perm(images: &[u8]) -> Option<Perm> {
    Perm::from_images(images.iter().map(|&x| usize::from(x)).collect()).ok()
}

impl Problem {
    fn new(query: &SearchQuery) -> Result<Problem, SearchError> {
        let las_vegas = query.runtime == SearchRuntime::LasVegas;
        let deck_text: String = query.deck.iter().map(|s| s.to_string()).collect();
        let standard = query.deck.iter().any(|s| matches!(s, Symbol::Card(_)));
        if standard && !query.deck.iter().all(|s| matches!(s, Symbol::Card(_))) {
            return Err(SearchError::BadDeck {
                deck: deck_text,
                reason: "mixes numbered cards with ♣/♥".into(),
            });
        }
        let k = query.inputs;
        let expected_k = match &query.function {
            Function::Copy => 1,
            Function::Named(_) => 2,
            Function::Table(t) => {
                if !t.len().is_power_of_two() || t.len() < 2 || t.len() > MAX_INPUTS {
                    return Err(SearchError::BadFunction {
                        function: query.function.to_string(),
                        reason: format!("a truth table has 2, 4 or 8 entries, not {}", t.len()),
                    });
                }
                t.len().trailing_zeros() as usize
            }
        };
        if k != expected_k || k == 0 || (1usize << k) > MAX_INPUTS {
            return Err(SearchError::BadFunction {
                function: query.function.to_string(),
                reason: format!("the function takes {expected_k} inputs, the query says {k}"),
            });
        }
        let outputs: Vec<bool> = (0..1usize << k)
            .map(|i| query.function.eval(&input_bits(i, k)).unwrap_or(false))
            .collect();
        if outputs.iter().all(|&o| o == outputs[0]) {
            return Err(SearchError::BadFunction {
                function: query.function.to_string(),
                reason: "the function is constant; nothing to compute".into(),
            });
        }
        let n = query.deck.len();
        let clubs = query.deck.iter().filter(|s| **s == Symbol::Club).count();
        let hearts = n - clubs;
        if standard && n < 2 * k {
            return Err(SearchError::BadDeck {
                deck: deck_text,
                reason: format!("{k} input commitments need {} cards", 2 * k),
            });
        }
        if !standard && (clubs < k || hearts < k) {
            return Err(SearchError::BadDeck {
                deck: deck_text,
                reason: format!(
                    "{k} input commitments need {k} ♣ and {k} ♥; the deck has {clubs} ♣ and {hearts} ♥"
                ),
            });
        }
        if n > MAX_CARDS {
            return Err(SearchError::BadDeck {
                deck: deck_text,
                reason: format!("at most {MAX_CARDS} cards (canonical forms cost n! per state)"),
            });
        }
        if query.committed {
            let need = if query.function == Function::Copy {
                2 * query.copies
            } else {
                2
            };
            if query.function == Function::Copy && query.copies == 0 {
                return Err(SearchError::InvalidQuery(
                    "--copies must be at least 1".into(),
                ));
            }
            if need > n {
                return Err(SearchError::InvalidQuery(format!(
                    "{} output commitment(s) do not fit in {n} cards",
                    need / 2
                )));
            }
        } else {
            if query.security == SearchSecurity::OutputPossibilistic {
                return Err(SearchError::InvalidQuery(
                    "output-possibilistic security is defined for committed protocols only \
                     (add --committed)"
                        .into(),
                ));
            }
            if query.function == Function::Copy {
                return Err(SearchError::InvalidQuery(
                    "copy is a committed function (add --committed)".into(),
                ));
            }
        }
        if matches!(
            query.shuffles,
            ShuffleClass::UniformClosed
                | ShuffleClass::Closed
                | ShuffleClass::Any
                | ShuffleClass::Uniform
        ) && n > MAX_SUBGROUP_CARDS
        {
            return Err(SearchError::InvalidQuery(format!(
                "subgroups of S_n are enumerated for n ≤ {MAX_SUBGROUP_CARDS}; use --shuffles \
                 random-cuts for {n} cards"
            )));
        }
        if query.max_support < 2
            && matches!(query.shuffles, ShuffleClass::Any | ShuffleClass::Uniform)
        {
            return Err(SearchError::InvalidQuery(
                "--max-support must be at least 2".into(),
            ));
        }

        // Symbol ids: two colours 0 = ♣, 1 = ♥; a standard deck numbers its cards in order.
        let symbols: Vec<Symbol> = if standard {
            let mut cards = query.deck.clone();
            cards.sort_unstable();
            cards
        } else {
            vec![Symbol::Club, Symbol::Heart]
        };
        let deck_ids: Vec<u8> = if standard {
            (0..n as u8).collect()
        } else {
            let mut ids = vec![0u8; clubs];
            ids.extend(std::iter::repeat(1u8).take(hearts));
            ids
        };
        let perms = all_perms(n);
        // Sequences: every arrangement of the deck, in sorted order.
        let mut all: Vec<Vec<u8>> = perms.iter().map(|p| apply_seq(p, &deck_ids)).collect();
        all.sort_unstable();
        all.dedup();
        let seqs = all;
        let index: HashMap<Vec<u8>, u16> = seqs
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i as u16))
            .collect();
        let lookup = |s: &Vec<u8>| index.get(s).copied().unwrap_or(NONE);
        let perm_seq: Vec<Vec<u16>> = perms
            .iter()
            .map(|p| seqs.iter().map(|s| lookup(&apply_seq(p, s))).collect())
            .collect();
        let complement = (!standard && clubs == hearts).then(|| {
            seqs.iter()
                .map(|s| lookup(&s.iter().map(|x| 1 - x).collect()))
                .collect::<Vec<u16>>()
        });
        // Column symmetries: permutations of the 2^k inputs with f(σ(i)) = f(i) ⊕ c.
        let m = 1usize << k;
        let mut col_syms = Vec::new();
        for sigma in all_perms(m) {
            let sigma: Vec<usize> = sigma.into_iter().map(usize::from).collect();
            for c in [false, true] {
                if c && complement.is_none() {
                    continue;
                }
                // A `goto` can only relabel positions (see `las_vegas`).
                if las_vegas && (c || sigma.iter().enumerate().any(|(i, &x)| i != x)) {
                    continue;
                }
                if (0..m).all(|i| outputs[sigma[i]] == (outputs[i] ^ c)) {
                    col_syms.push((sigma.clone(), c));
                }
            }
        }
        let mut problem = Problem {
            query: query.clone(),
            n,
            k,
            outputs,
            perfect: query.security == SearchSecurity::Perfect || las_vegas,
            standard,
            symbols,
            seqs,
            index,
            perms,
            perm_seq,
            col_syms,
            complement,
            shuffles: Vec::new(),
            turns: (1u32..(1 << n))
                .filter(|t| !query.single_card_turns || t.is_power_of_two())
                .map(|t| t as u16)
                .collect(),
        };
        problem.shuffles = problem.enumerate_shuffles()?;
        Ok(problem)
    }

    fn m(&self) -> usize {
        1 << self.k
    }

    fn layout(&self) -> Vec<LayoutItem> {
        if self.standard {
            // Input i on the (2i)-th and (2i+1)-th lowest cards, lower first = 0; then helpers.
            let mut items: Vec<LayoutItem> = (0..self.k)
                .map(|i| LayoutItem::InputOn {
                    name: input_name(i),
                    negated: false,
                    cards: [self.symbols[2 * i], self.symbols[2 * i + 1]],
                })
                .collect();
            items.extend(
                self.symbols[2 * self.k..]
                    .iter()
                    .map(|&c| LayoutItem::Card(c)),
            );
            return items;
        }
        let mut items: Vec<LayoutItem> = (0..self.k)
            .map(|i| LayoutItem::Input {
                name: input_name(i),
                negated: false,
            })
            .collect();
        let clubs = self
            .query
            .deck
            .iter()
            .filter(|s| **s == Symbol::Club)
            .count()
            - self.k;
        let hearts = self.n - self.k - clubs - self.k;
        items.extend(std::iter::repeat(LayoutItem::Card(Symbol::Club)).take(clubs));
        items.extend(std::iter::repeat(LayoutItem::Card(Symbol::Heart)).take(hearts));
        items
    }

    fn protocol(
        &self,
        number: usize,
        len: usize,
        body: Vec<Action>,
    ) -> Result<Protocol, SearchError> {
        let f = &self.query.function;
        Protocol::new(ProtocolParts {
            name: format!("search-{f}-{}cards-{len}steps-{number}", self.n),
            inputs: (0..self.k).map(input_name).collect(),
            function: self.query.function.clone(),
            layout: self.layout(),
            body,
            claim: None,
        })
        .map_err(SearchError::Invalid)
    }

    fn start_state(&self) -> Result<State, SearchError> {
        let skeleton = self.protocol(0, 0, Vec::new())?;
        let mut rows: Vec<(u16, Col)> = Vec::new();
        for i in 0..self.m() {
            let ids: Vec<u8> = if self.standard {
                let bits = input_bits(i, self.k);
                let mut ids: Vec<u8> = (0..self.n as u8).collect();
                for (j, b) in bits.iter().enumerate() {
                    if *b {
                        ids.swap(2 * j, 2 * j + 1);
                    }
                }
                ids
            } else {
                let row = skeleton
                    .initial_row(&input_bits(i, self.k))
                    .ok_or_else(|| {
                        SearchError::InvalidQuery("layout does not fit the inputs".into())
                    })?;
                row.iter().map(|s| u8::from(*s == Symbol::Heart)).collect()
            };
            let s = self.index.get(&ids).copied().ok_or_else(|| {
                SearchError::InvalidQuery("the layout is not an arrangement of the deck".into())
            })?;
            let mut col = [0u64; MAX_INPUTS];
            col[i] = 1;
            rows.push((s, col));
        }
        rows.sort_unstable();
        Ok(State { rows })
    }

    // -- shuffles ------------------------------------------------------------------------------

    fn perm_index(&self) -> HashMap<Vec<u8>, u32> {
        self.perms
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), i as u32))
            .collect()
    }

    fn enumerate_shuffles(&self) -> Result<Vec<ShuffleOp>, SearchError> {
        let n = self.n;
        let pidx = self.perm_index();
        let mut ops: Vec<ShuffleOp> = Vec::new();
        let mut seen: HashSet<Vec<(u32, u64)>> = HashSet::new();
        let perfect = self.perfect;
        let mut push = |mut support: Vec<(u32, u64)>, model: Shuffle| {
            support.sort_unstable();
            if !perfect {
                for w in &mut support {
                    w.1 = 1;
                }
            }
            if support.len() >= 2 && seen.insert(support.clone()) {
                ops.push(ShuffleOp { support, model });
            }
        };
        let cuts_and_bisections = |push: &mut dyn FnMut(Vec<(u32, u64)>, Shuffle),
                                   bisections: bool| {
            // Random cuts: every ordered subset up to rotation (the group generated by a k-cycle).
            for k in 2..=n {
                for subset in ordered_subsets(n, k) {
                    if subset.iter().skip(1).any(|&x| x < subset[0]) {
                        continue; // rotation representative: smallest first
                    }
                    let Ok(rot) = crate::model::cut_rotations(n, &subset) else {
                        continue;
                    };
                    let support = rot
                        .iter()
                        .filter_map(|p| pidx.get(&images_u8(p)).map(|&i| (i, 1)))
                        .collect();
                    push(support, Shuffle::Cut(subset));
                }
            }
            // Bisection cuts {id, (p1 q1)…(pm qm)} with m ≥ 2 (m = 1 is a cut of two).
            for m in 2..=if bisections { n / 2 } else { 0 } {
                for left in ordered_subsets(n, m) {
                    if left.windows(2).any(|w| w[0] > w[1]) {
                        continue; // left half as a sorted set
                    }
                    for right in ordered_subsets(n, m) {
                        if right.iter().any(|r| left.contains(r)) || right[0] < left[0] {
                            continue;
                        }
                        let mut img: Vec<u8> = (0..n as u8).collect();
                        for (&a, &b) in left.iter().zip(&right) {
                            img[a] = b as u8;
                            img[b] = a as u8;
                        }
                        let Some(&pi) = pidx.get(&img) else { continue };
                        push(vec![(0, 1), (pi, 1)], Shuffle::Bisect(left.clone(), right));
                    }
                }
            }
        };
        match self.query.shuffles {
            ShuffleClass::RandomCuts => cuts_and_bisections(&mut push, true),
            ShuffleClass::Cuts => cuts_and_bisections(&mut push, false),
            ShuffleClass::UniformClosed
            | ShuffleClass::Closed
            | ShuffleClass::Any
            | ShuffleClass::Uniform => {
                let groups = cached_subgroups(&self.perms, &pidx);
                for (elems, gens) in groups.iter() {
                    let model = Shuffle::Generated(
                        gens.iter()
                            .filter_map(|&g| to_perm(&self.perms[g as usize]))
                            .collect(),
                    );
                    push(elems.iter().map(|&e| (e, 1)).collect(), model);
                }
                if matches!(
                    self.query.shuffles,
                    ShuffleClass::Closed | ShuffleClass::Any
                ) {
                    for (i, p) in self.perms.iter().enumerate().skip(1) {
                        let involution = p
                            .iter()
                            .enumerate()
                            .all(|(j, &x)| p[usize::from(x)] as usize == j);
                        if !involution {
                            continue;
                        }
                        let Some(pp) = to_perm(p) else { continue };
                        for (a, b) in [(1u64, 2u64), (2, 1)] {
                            push(
                                vec![(0, a), (i as u32, b)],
                                Shuffle::Set {
                                    perms: vec![Perm::identity(n), pp.clone()],
                                    weights: Some(vec![
                                        Q::new(BigInt::from(a), BigInt::from(3)),
                                        Q::new(BigInt::from(b), BigInt::from(3)),
                                    ]),
                                },
                            );
                        }
                    }
                }
                if matches!(
                    self.query.shuffles,
                    ShuffleClass::Any | ShuffleClass::Uniform
                ) {
                    let total = self.perms.len();
                    for size in 2..=self.query.max_support.min(total) {
                        if binomial(total, size) > 2_000_000 {
                            return Err(SearchError::InvalidQuery(format!(
                                "--max-support {} on {n} cards enumerates more than 2,000,000 shuffles \
                                 (the sets of {size} permutations alone do)",
                                self.query.max_support
                            )));
                        }
                        for set in ordered_subsets_sorted(total, size) {
                            let perms: Vec<Perm> = set
                                .iter()
                                .filter_map(|&i| to_perm(&self.perms[i]))
                                .collect();
                            push(
                                set.iter().map(|&i| (i as u32, 1)).collect(),
                                Shuffle::Set {
                                    perms,
                                    weights: None,
                                },
                            );
                        }
                    }
                }
            }
        }
        Ok(ops)
    }

    // -- state operations ----------------------------------------------------------------------

    fn normalize(&self, rows: &mut [(u16, Col)]) {
        let m = self.m();
        for i in 0..m {
            if self.perfect {
                let g = rows.iter().fold(0, |g, r| gcd(g, r.1[i]));
                if g > 1 {
                    for r in rows.iter_mut() {
                        r.1[i] /= g;
                    }
                }
            } else {
                for r in rows.iter_mut() {
                    r.1[i] = u64::from(r.1[i] != 0);
                }
            }
        }
    }

    fn apply_shuffle(&self, st: &State, op: &ShuffleOp) -> Result<State, SearchError> {
        let m = self.m();
        let mut acc: Vec<Col> = vec![[0; MAX_INPUTS]; self.seqs.len()];
        for &(s, col) in &st.rows {
            for &(p, w) in &op.support {
                let t = self.perm_seq[p as usize][usize::from(s)];
                let slot = &mut acc[usize::from(t)];
                for i in 0..m {
                    if col[i] != 0 {
                        let add = col[i].checked_mul(w).ok_or(SearchError::Overflow)?;
                        slot[i] = slot[i].checked_add(add).ok_or(SearchError::Overflow)?;
                    }
                }
            }
        }
        let mut rows: Vec<(u16, Col)> = acc
            .into_iter()
            .enumerate()
            .filter(|(_, c)| c.iter().any(|&x| x != 0))
            .map(|(s, c)| (s as u16, c))
            .collect();
        self.normalize(&mut rows);
        Ok(State { rows })
    }

    fn present(&self, st: &State) -> Vec<u64> {
        let mut sums = vec![0u64; self.m()];
        for (_, c) in &st.rows {
            for (s, x) in sums.iter_mut().zip(c) {
                *s = s.saturating_add(*x);
            }
        }
        sums
    }

    fn has_bottom(&self, st: &State) -> bool {
        st.rows.iter().any(|(_, c)| {
            let mut seen = [false; 2];
            for i in 0..self.m() {
                if c[i] != 0 {
                    seen[usize::from(self.outputs[i])] = true;
                }
            }
            seen[0] && seen[1]
        })
    }

    /// Splits by a turn; `None` when fewer than two observations or the turn is insecure.
    /// The symbol ids at the turned positions, packed 4 bits each in position order.
    fn observe(&self, s: u16, turn: u16) -> u64 {
        let seq = &self.seqs[usize::from(s)];
        (0..self.n)
            .filter(|p| turn >> p & 1 == 1)
            .fold(0u64, |acc, p| acc << 4 | u64::from(seq[p]))
    }

    fn apply_turn(&self, st: &State, turn: u16) -> Option<Vec<(u64, State)>> {
        let mut groups: Vec<(u64, Vec<(u16, Col)>)> = Vec::new();
        for &(s, c) in &st.rows {
            let obs = self.observe(s, turn);
            match groups.iter_mut().find(|g| g.0 == obs) {
                Some(g) => g.1.push((s, c)),
                None => groups.push((obs, vec![(s, c)])),
            }
        }
        if groups.len() < 2 {
            return None;
        }
        groups.sort_unstable_by_key(|g| g.0);
        let m = self.m();
        let parent = self.present(st);
        let alike = |i: usize, j: usize| self.query.committed || self.outputs[i] == self.outputs[j];
        let output_possibilistic = self.query.security == SearchSecurity::OutputPossibilistic;
        for (_, rows) in &groups {
            let mut a = vec![0u64; m];
            for (_, c) in rows {
                for i in 0..m {
                    a[i] = a[i].saturating_add(c[i]);
                }
            }
            // Output-possibilistic security compares outputs, not inputs (below).
            for i in (0..m).filter(|_| !output_possibilistic) {
                if parent[i] == 0 {
                    continue;
                }
                for j in i + 1..m {
                    if parent[j] == 0 || !alike(i, j) {
                        continue;
                    }
                    let ok = match self.query.security {
                        SearchSecurity::Perfect => {
                            u128::from(a[i]) * u128::from(parent[j])
                                == u128::from(a[j]) * u128::from(parent[i])
                        }
                        _ => (a[i] > 0) == (a[j] > 0),
                    };
                    if !ok {
                        return None;
                    }
                }
            }
            if output_possibilistic {
                // Every output the parent can still have must stay possible in every branch.
                let mut outs = [false; 2];
                let mut before = [false; 2];
                for i in 0..m {
                    let o = usize::from(self.outputs[i]);
                    outs[o] |= a[i] > 0;
                    before[o] |= parent[i] > 0;
                }
                if (0..2).any(|o| before[o] && !outs[o]) {
                    return None;
                }
            }
        }
        Some(
            groups
                .into_iter()
                .map(|(obs, mut rows)| {
                    self.normalize(&mut rows);
                    (obs, State { rows })
                })
                .collect(),
        )
    }

    /// Every useful action on `st`: secure turns with ≥ 2 observations and shuffles that change
    /// the state, skipping those that produce a ⊥ sequence.
    fn expand(&self, st: &State) -> Result<Vec<Step>, SearchError> {
        let mut out = Vec::new();
        for &t in &self.turns {
            if let Some(children) = self.apply_turn(st, t) {
                if children.iter().any(|(_, c)| self.has_bottom(c)) {
                    continue;
                }
                out.push(Step {
                    kind: StepKind::Turn(t),
                    children,
                });
            }
        }
        for (i, op) in self.shuffles.iter().enumerate() {
            let child = self.apply_shuffle(st, op)?;
            if child == *st || self.has_bottom(&child) {
                continue;
            }
            out.push(Step {
                kind: StepKind::Shuffle(i),
                children: vec![(0, child)],
            });
        }
        Ok(out)
    }

    /// Whether a protocol may stop here.
    fn is_final(&self, st: &State) -> bool {
        if self.query.committed {
            self.result_pairs(st).is_some()
        } else {
            let p = self.present(st);
            let mut outs = [false; 2];
            for i in 0..self.m() {
                if p[i] > 0 {
                    outs[usize::from(self.outputs[i])] = true;
                }
            }
            !(outs[0] && outs[1])
        }
    }

    /// Whether positions `(a, b)` hold a commitment to `f(i)` in every sequence input `i` can
    /// have. Two colours: ♣♥ = 0, ♥♣ = 1. Standard deck (\[KSK19\]): lower card first = 0, and
    /// the same two cards throughout (otherwise the basis itself could leak).
    fn decodes(&self, st: &State, a: usize, b: usize) -> bool {
        let mut basis: Option<(u8, u8)> = None;
        st.rows.iter().all(|(s, c)| {
            let seq = &self.seqs[usize::from(*s)];
            let (x, y) = (seq[a], seq[b]);
            let bit = if self.standard {
                let pair = (x.min(y), x.max(y));
                if *basis.get_or_insert(pair) != pair {
                    return false;
                }
                x > y
            } else {
                match decode_bit([self.symbols[usize::from(x)], self.symbols[usize::from(y)]]) {
                    Some(bit) => bit,
                    None => return false,
                }
            };
            (0..self.m()).all(|i| c[i] == 0 || self.outputs[i] == bit)
        })
    }

    /// The result positions of a committed final state (the first in a fixed order).
    fn result_pairs(&self, st: &State) -> Option<Vec<(usize, usize)>> {
        let want = if self.query.function == Function::Copy {
            self.query.copies
        } else {
            1
        };
        let mut pairs = Vec::new();
        for a in 0..self.n {
            for b in 0..self.n {
                if a != b && self.decodes(st, a, b) {
                    pairs.push((a, b));
                }
            }
        }
        fn pick(
            pairs: &[(usize, usize)],
            want: usize,
            used: u32,
            acc: &mut Vec<(usize, usize)>,
        ) -> bool {
            if acc.len() == want {
                return true;
            }
            for (k, &(a, b)) in pairs.iter().enumerate() {
                if used >> a & 1 == 0 && used >> b & 1 == 0 {
                    acc.push((a, b));
                    if pick(&pairs[k + 1..], want, used | 1 << a | 1 << b, acc) {
                        return true;
                    }
                    acc.pop();
                }
            }
            false
        }
        let mut acc = Vec::new();
        pick(&pairs, want, 0, &mut acc).then_some(acc)
    }

    fn final_actions(&self, st: &State) -> Option<Vec<Action>> {
        if self.query.committed {
            self.result_pairs(st)
                .map(|pairs| vec![Action::new(ActionKind::Result(pairs))])
        } else {
            Some(Vec::new())
        }
    }

    /// What makes two top-level actions the same protocol: their children's canonical forms.
    fn children_key(&self, step: &Step) -> Vec<Vec<u64>> {
        step.children
            .iter()
            .map(|(_, c)| self.canonical(c))
            .collect()
    }

    /// A position relabelling `π` with `π(from) = to` (rows and per-input columns equal).
    fn relabelling(&self, from: &State, to: &State) -> Option<Perm> {
        let mut buf: Vec<(u16, Col)> = Vec::with_capacity(from.rows.len());
        for (p, ps) in self.perm_seq.iter().enumerate() {
            buf.clear();
            buf.extend(from.rows.iter().map(|&(s, c)| (ps[usize::from(s)], c)));
            buf.sort_unstable_by_key(|r| r.0);
            if buf == to.rows {
                return to_perm(&self.perms[p]);
            }
        }
        None
    }

    /// The canonical form: the least image over position relabellings × column symmetries.
    fn canonical(&self, st: &State) -> Vec<u64> {
        let m = self.m();
        let mut best: Option<Vec<(u16, Col)>> = None;
        let mut buf: Vec<(u16, Col)> = Vec::with_capacity(st.rows.len());
        for (sigma, c) in &self.col_syms {
            for ps in &self.perm_seq {
                buf.clear();
                for &(s, col) in &st.rows {
                    let s0 = match (c, &self.complement) {
                        (true, Some(comp)) => comp[usize::from(s)],
                        _ => s,
                    };
                    let mut nc = [0u64; MAX_INPUTS];
                    for i in 0..m {
                        nc[sigma[i]] = col[i];
                    }
                    buf.push((ps[usize::from(s0)], nc));
                }
                // Sequences are distinct within a state, so ordering by sequence is enough.
                buf.sort_unstable_by_key(|r| r.0);
                if best.as_ref().map_or(true, |b| buf < *b) {
                    best = Some(buf.clone());
                }
            }
        }
        let mut out = Vec::with_capacity(st.rows.len() * (m + 1));
        for (s, c) in best.unwrap_or_default() {
            out.push(u64::from(s));
            out.extend_from_slice(&c[..m]);
        }
        out
    }

    fn recheck(&self, p: &Protocol) -> Result<crate::analyze::Analysis, SearchError> {
        let a = analyze(p).map_err(|e| SearchError::Analysis(e.to_string()))?;
        let mut reasons = Vec::new();
        if !a.correct {
            reasons.push("not correct".to_owned());
        }
        if a.security > self.query.security.analyzer_level() {
            reasons.push(format!("security is only {}", a.security));
        }
        let runtime_ok = match self.query.runtime {
            SearchRuntime::Finite => a.runtime == Runtime::Finite,
            SearchRuntime::LasVegas => matches!(a.runtime, Runtime::Finite | Runtime::LasVegas),
        };
        if !runtime_ok {
            reasons.push(format!("runtime is {}", a.runtime));
        }
        if a.committed != self.query.committed {
            reasons.push(format!("committed = {}", a.committed));
        }
        // A leak (an observation whose probability differs between inputs) is a defect of
        // perfect security only; the possibilistic levels are judged by `a.security` above.
        let perfect = self.query.security == SearchSecurity::Perfect;
        reasons.extend(
            a.defects
                .iter()
                .filter(|d| perfect || !matches!(d, Defect::Leak { .. } | Defect::MoreLeaks(_)))
                .map(ToString::to_string),
        );
        if reasons.is_empty() {
            Ok(a)
        } else {
            Err(SearchError::OracleRejected {
                text: p.to_string(),
                reasons: reasons.join("; "),
            })
        }
    }

    fn step_action(&self, step: &Step, bodies: Vec<Vec<Action>>) -> Vec<Action> {
        match step.kind {
            StepKind::Shuffle(i) => {
                let mut out = vec![Action::new(ActionKind::Shuffle(
                    self.shuffles[i].model.clone(),
                ))];
                out.extend(bodies.into_iter().flatten());
                out
            }
            StepKind::Turn(t) => {
                let positions: Vec<usize> = (0..self.n).filter(|p| t >> p & 1 == 1).collect();
                let branches = if bodies.iter().all(Vec::is_empty) {
                    None
                } else {
                    Some(
                        step.children
                            .iter()
                            .zip(bodies)
                            .map(|((obs, _), body)| Branch {
                                observation: positions
                                    .iter()
                                    .enumerate()
                                    .map(|(j, _)| {
                                        let shift = 4 * (positions.len() - 1 - j);
                                        let id = (obs >> shift & 0xf) as usize;
                                        self.symbols.get(id).copied().unwrap_or(Symbol::Club)
                                    })
                                    .collect(),
                                body,
                                span: Default::default(),
                            })
                            .collect(),
                    )
                };
                vec![Action::new(ActionKind::Turn {
                    positions,
                    branches,
                })]
            }
        }
    }
}

fn input_name(i: usize) -> String {
    ["a", "b", "c"]
        .get(i)
        .map_or_else(|| format!("x{i}"), |s| (*s).to_owned())
}

fn images_u8(p: &Perm) -> Vec<u8> {
    p.images().map(|x| x as u8).collect()
}

fn binomial(n: usize, k: usize) -> usize {
    (0..k).fold(1usize, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

/// Every ordered `k`-tuple of distinct positions below `n`.
fn ordered_subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn rec(n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for x in 0..n {
            if !cur.contains(&x) {
                cur.push(x);
                rec(n, k, cur, out);
                cur.pop();
            }
        }
    }
    rec(n, k, &mut cur, &mut out);
    out
}

/// Every sorted `k`-subset of `0..n`.
fn ordered_subsets_sorted(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn rec(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for x in start..n {
            cur.push(x);
            rec(x + 1, n, k, cur, out);
            cur.pop();
        }
    }
    rec(0, n, k, &mut cur, &mut out);
    out
}

/// Subgroups of `S_n` per `n`, computed once per process (about seconds for `n = 6`).
type Subgroups = std::sync::Arc<Vec<(Vec<u32>, Vec<u32>)>>;

fn cached_subgroups(perms: &[Vec<u8>], pidx: &HashMap<Vec<u8>, u32>) -> Subgroups {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<HashMap<usize, Subgroups>>> =
        std::sync::OnceLock::new();
    let n = perms.first().map_or(0, Vec::len);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(g) = cache.lock().ok().and_then(|c| c.get(&n).cloned()) {
        return g;
    }
    let g: Subgroups = std::sync::Arc::new(subgroups(perms, pidx));
    if let Ok(mut c) = cache.lock() {
        c.insert(n, g.clone());
    }
    g
}

/// Every subgroup of `S_n` (as sorted element indices, with a generating set), by closing the
/// cyclic subgroups under joins with cyclic subgroups until nothing new appears. Every subgroup
/// is the join of the cyclic subgroups of its elements, so the closure finds all of them.
fn subgroups(perms: &[Vec<u8>], pidx: &HashMap<Vec<u8>, u32>) -> Vec<(Vec<u32>, Vec<u32>)> {
    let total = perms.len();
    let n = perms.first().map_or(0, Vec::len);
    let words = total.div_ceil(64);
    let compose = |a: u32, b: u32| -> u32 {
        // a ∘ b: first b, then a.
        let pa = &perms[a as usize];
        let pb = &perms[b as usize];
        let img: Vec<u8> = (0..n).map(|i| pa[usize::from(pb[i])]).collect();
        pidx.get(&img).copied().unwrap_or(0)
    };
    let mut table = vec![0u32; total * total];
    for a in 0..total {
        for b in 0..total {
            table[a * total + b] = compose(a as u32, b as u32);
        }
    }
    let close = |gens: &[u32]| -> Vec<u64> {
        let mut bits = vec![0u64; words];
        let mut stack = vec![0u32];
        bits[0] |= 1;
        while let Some(x) = stack.pop() {
            for &g in gens {
                let y = table[g as usize * total + x as usize];
                let (w, b) = (y as usize / 64, y as usize % 64);
                if bits[w] >> b & 1 == 0 {
                    bits[w] |= 1 << b;
                    stack.push(y);
                }
            }
        }
        bits
    };
    let has = |bits: &[u64], x: u32| bits[x as usize / 64] >> (x % 64) & 1 == 1;
    let mut found: HashMap<Vec<u64>, Vec<u32>> = HashMap::new();
    let mut order: Vec<Vec<u64>> = Vec::new();
    // Cyclic subgroups.
    let mut cyclic: Vec<(Vec<u64>, u32)> = Vec::new();
    for g in 1..total as u32 {
        let bits = close(&[g]);
        if !found.contains_key(&bits) {
            found.insert(bits.clone(), vec![g]);
            order.push(bits.clone());
            cyclic.push((bits, g));
        }
    }
    let mut frontier: Vec<Vec<u64>> = order.clone();
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for h in &frontier {
            let gens = found.get(h).cloned().unwrap_or_default();
            for (cbits, g) in &cyclic {
                if has(h, *g) {
                    continue;
                }
                // Skip when the cyclic group already contains H (the join is the cyclic group).
                if h.iter().zip(cbits).all(|(a, b)| a & !b == 0) {
                    continue;
                }
                let mut ng = gens.clone();
                ng.push(*g);
                let bits = close(&ng);
                if !found.contains_key(&bits) {
                    found.insert(bits.clone(), ng);
                    order.push(bits.clone());
                    next.push(bits);
                }
            }
        }
        frontier = next;
    }
    order
        .into_iter()
        .map(|bits| {
            let elems: Vec<u32> = (0..total as u32).filter(|&x| has(&bits, x)).collect();
            let gens = found.get(&bits).cloned().unwrap_or_default();
            (elems, gens)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The search proper.

#[derive(Clone, Copy, Debug, Default)]
struct MemoEntry {
    /// Largest budget proven insufficient (`None`: none yet).
    failed: Option<usize>,
    /// Smallest budget known to suffice.
    solved: Option<usize>,
}

struct Task<'a> {
    problem: &'a Problem,
    step: Step,
    memo: HashMap<Vec<u64>, MemoEntry>,
    /// Canonical forms of states met verbatim before (saves the `n!` relabellings).
    canon_cache: HashMap<State, Vec<u64>>,
    explored: u64,
    hits: u64,
}

impl fmt::Debug for Task<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("step", &self.step.kind)
            .finish()
    }
}

impl Task<'_> {
    fn try_top(&mut self, budget: usize) -> Result<bool, SearchError> {
        let children: Vec<State> = self.step.children.iter().map(|(_, c)| c.clone()).collect();
        for c in &children {
            if !self.solve(c, budget)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn solve(&mut self, st: &State, budget: usize) -> Result<bool, SearchError> {
        let p = self.problem;
        if p.is_final(st) {
            return Ok(true);
        }
        if budget == 0 {
            return Ok(false);
        }
        let key = match self.canon_cache.get(st) {
            Some(k) => k.clone(),
            None => {
                let k = p.canonical(st);
                self.canon_cache.insert(st.clone(), k.clone());
                k
            }
        };
        let entry = self.memo.get(&key).copied().unwrap_or_default();
        if entry.solved.is_some_and(|s| s <= budget) {
            self.hits += 1;
            return Ok(true);
        }
        if entry.failed.is_some_and(|f| f >= budget) {
            self.hits += 1;
            return Ok(false);
        }
        self.explored += 1;
        let steps = p.expand(st)?;
        let mut ok = false;
        'steps: for step in &steps {
            for (_, c) in &step.children {
                if !self.solve(c, budget - 1)? {
                    continue 'steps;
                }
            }
            ok = true;
            break;
        }
        let e = self.memo.entry(key).or_default();
        if ok {
            e.solved = Some(e.solved.map_or(budget, |s| s.min(budget)));
        } else {
            e.failed = Some(e.failed.map_or(budget, |f| f.max(budget)));
        }
        Ok(ok)
    }

    fn build_top(&mut self, budget: usize) -> Result<Vec<Action>, SearchError> {
        let step = self.step.clone();
        let mut bodies = Vec::new();
        for (_, c) in &step.children {
            bodies.push(self.build(c, budget)?);
        }
        Ok(self.problem.step_action(&step, bodies))
    }

    /// A protocol for a state known to be solvable within `budget`.
    fn build(&mut self, st: &State, budget: usize) -> Result<Vec<Action>, SearchError> {
        let p = self.problem;
        if p.is_final(st) {
            return p
                .final_actions(st)
                .ok_or_else(|| SearchError::Analysis("final state without a result".into()));
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
        Err(SearchError::Analysis(
            "internal: a state the memo called solvable has no solution".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subgroups_of_s3_and_s4_are_all_found() {
        for (n, count) in [(3, 6), (4, 30)] {
            let perms = all_perms(n);
            let pidx: HashMap<Vec<u8>, u32> = perms
                .iter()
                .enumerate()
                .map(|(i, p)| (p.clone(), i as u32))
                .collect();
            // Non-trivial subgroups: all but {id}.
            assert_eq!(subgroups(&perms, &pidx).len(), count - 1, "S_{n}");
        }
    }

    #[test]
    fn perms_are_listed_identity_first_and_complete() {
        let p = all_perms(4);
        assert_eq!(p.len(), 24);
        assert_eq!(p[0], vec![0, 1, 2, 3]);
        let distinct: HashSet<_> = p.iter().collect();
        assert_eq!(distinct.len(), 24);
    }

    #[test]
    fn decks_and_functions_parse() {
        assert_eq!(parse_deck("♣♣♥♥").expect("deck").len(), 4);
        assert_eq!(parse_deck("CCHHH").expect("deck").len(), 5);
        assert!(matches!(parse_deck("1234"), Ok(d) if d[3] == Symbol::Card(4)));
        assert!(parse_deck("♣x").is_err());
        assert!(parse_deck("1123").is_err());
        assert!(parse_deck("").is_err());
        assert!(parse_function("0001").is_ok());
        assert!(parse_function("001").is_err());
        assert!(parse_function("nope").is_err());
    }
}
