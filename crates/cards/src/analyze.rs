//! The exact analyzer: the Koch–Walzer–Härtel state tree \[KWH15\] in exact rationals.
//!
//! # The state
//!
//! A *state* maps every card sequence that can lie on the table to a vector with one entry per
//! input assignment `i`: `Pr[sequence | input i, what was seen so far]`. The start state maps the
//! layout of input `i` to the unit vector `e_i`. The actions act on states as follows.
//!
//! | action | new state |
//! |---|---|
//! | `perm π` | `s ↦ π(s)`: every sequence is re-keyed |
//! | `shuffle (Π, F)` | `Σ_{π∈Π} F(π) · state[s]` accumulated at `π(s)` (pitfall 2 of `cards.md`: the mass of `s` is *multiplied* by `F(π)`) |
//! | `turn T` | split by the observation `v` (the symbols at `T`, in position order); the child for `v` is the restriction to `v`, renormalised per input |
//! | `result P Q` | every sequence with mass for input `i` must decode to `f(i)` at `(P, Q)` |
//!
//! Alongside the state the analyzer carries the *mass* `m[i]`: the probability, under input `i`,
//! of the observations made so far. After a turn, `m_v[i] = m[i] · Σ_{s shows v} state[s][i]`.
//!
//! # Security
//!
//! Inputs that *must look alike* are all pairs for a committed protocol and the pairs with the
//! same output when some ending is non-committed (the view then reveals the output on purpose).
//! The check is made **per observation** (pitfall 1: pooling the observations of a turn always
//! passes, since every input's total is 1):
//!
//! * *perfect* — `m_v[i] = m_v[j]` for every turn, observation `v` and alike pair `(i, j)`;
//! * *input-possibilistic* — `m_v[i] > 0 ⇔ m_v[j] > 0` for the same;
//! * *output-possibilistic* (committed protocols only) — every observation possible under some
//!   input is possible under an input of each output value;
//! * *insecure* — none of these.
//!
//! Checking every prefix of the view is equivalent to checking whole views, because the
//! probability of a view is the product of the conditional probabilities along it.
//!
//! # Loops and the linear system
//!
//! `label L` and `goto L` cut the protocol into *segments*, one per node (the start and every
//! label). Each segment is explored once, from the state recorded at its node; any other arrival
//! at the node (by `goto` or by falling through `label L`) must bring the same renormalised state
//! (loop consistency, checked exactly for every input that can arrive). With `a_X[i]` the expected
//! number of shuffles spent in segment `X` and `P_XY[i]` the probability of leaving it for node
//! `Y` (`restart` leaves for the start node), the expected number of shuffles solves
//!
//! ```text
//! E_X[i] = a_X[i] + Σ_Y P_XY[i] · E_Y[i]
//! ```
//!
//! exactly, by Gaussian elimination over `ℚ`. A singular system means the protocol does not
//! terminate with probability 1.
//!
//! # Leakage
//!
//! For a protocol whose segment graph is acyclic the complete views are enumerated; the leak is
//! the largest total-variation distance `½ Σ_v |Pr[v | i] − Pr[v | j]|` over alike pairs (exact),
//! and the mutual information `I(X; V)` between a uniform input and the view, in bits (computed in
//! `f64` from the exact probabilities). For non-committed protocols `I(X; V)` includes the output
//! itself, so `I(X; V | f(X))` is reported as well.
//!
//! A random cut of five cards with weight `1/5 − ε` on the identity and `1/5 + ε/4` elsewhere
//! is at total-variation distance `(4/5)·(5|ε|/4)^L` from a uniform cut after `L` cuts
//! (Kim–Cetinkaya). Two inputs whose rows are distinct rotations of each other then see view
//! distributions at distance `(5|ε|/4)^L` from each other, `5/4` times that; the distance of each
//! input's view from the view under uniform shuffles, [`Analysis::tv_from_uniform_shuffles`], is
//! exactly the Kim–Cetinkaya distance.
//!
//! # Standard decks: the basis rule
//!
//! On a standard deck (distinct numbered cards, layout items `a(#1 #2)`, \[KSK19\]) a `result P Q`
//! reads lower card first = 0, higher first = 1 ([`crate::model::decode_bit`]). Decoding to
//! `f(i)` is not enough: the output's two cards, its *basis*, must be **the same unordered pair in
//! every sequence that reaches the `result`**, under any input and along any path (every arrival
//! at the action is compared; for `copy` with several pairs, each pair on its own). Otherwise the
//! cards themselves can tell the inputs apart once the output is opened or fed to another
//! protocol. A varying basis is a [`Defect::ResultBasisVaries`] ("result 3 4: the output's two
//! cards differ between runs (#1#2 vs #1#3), so the basis can leak") and makes
//! [`Analysis::correct`] false — the output is not a commitment in a fixed basis, so the protocol
//! does not compute a committed `f`.
//!
//! Whether it also *leaks* is a separate question, answered in [`Analysis::security`]: the basis
//! is treated as an observation of the `result` (it becomes visible when the output is opened).
//! Where the basis varies within one state, the path is split by the basis and the split is
//! checked per observation like a turn (it appears in [`Analysis::branches`] at the `result`'s
//! line, its observation being the bases, lower card first) and enters the leak measures. So a
//! basis that depends on the input (`a(#1 #4) b(#2 #3)` read at `result 1 3`: the cards reveal
//! `b`) is reported insecure, while a basis chosen by a shuffle independently of the input stays
//! perfect (and incorrect). Where the basis is fixed within a state but differs between arrivals,
//! it is a function of the view and adds no information. Two-colour results are untouched: a
//! correct one always lies on {♣, ♥}.
//!
//! # ⊥
//!
//! A sequence is ⊥ when inputs with **different** outputs both carry mass on it (pitfall 3: a
//! sequence carried only by inputs with the same output is not ⊥). From a ⊥ sequence no later
//! observation can separate those inputs, so every ending reached from it is wrong for one of
//! them (unless it restarts). ⊥ sequences are counted and marked in the state tree; correctness
//! itself is judged at the endings.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use facedown_core::{Perm, Symbol};
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};
use serde::Serialize;

use crate::model::{
    decode_bit, input_bits, Action, ActionKind, Function, LayoutItem, Protocol, Shuffle,
    ShuffleError, Span, Q,
};

/// The unordered pair of symbols at a result pair, lower first (the *basis* of a standard-deck
/// output, \[KSK19\]).
fn basis_of(s: &[Symbol], a: usize, b: usize) -> [Symbol; 2] {
    let (x, y) = (s[a], s[b]);
    if x <= y {
        [x, y]
    } else {
        [y, x]
    }
}

/// A row of cards, left to right.
pub type Sequence = Vec<Symbol>;

/// Limits that keep the analysis finite; exceeding one is an [`AnalysisError`].
#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    /// Most sequences a state may hold.
    pub max_sequences: usize,
    /// Most paths (leaves) explored over all segments.
    pub max_paths: usize,
    /// Most complete views enumerated for the leak.
    pub max_views: usize,
    /// Most `(permutation, sequence)` products one shuffle may compute.
    pub max_shuffle_work: usize,
    /// Whether to record the state tree (for [`crate::tree`]).
    pub record_tree: bool,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            max_sequences: 1 << 20,
            max_paths: 1 << 20,
            max_views: 1 << 20,
            max_shuffle_work: 1 << 26,
            record_tree: false,
        }
    }
}

/// Why the analyzer could not analyze a protocol at all (a malformed protocol or a limit).
///
/// Defects of a well-formed protocol (incorrect, insecure, missing branch, inconsistent loop) are
/// not errors: they are reported in [`Analysis::errors`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// A shuffle has no valid distribution (weights, sizes, positions).
    #[error("line {}, col {}: {source}", .span.line, .span.col)]
    Shuffle {
        /// Where the shuffle is written.
        span: Span,
        /// What is wrong with it.
        source: ShuffleError,
    },
    /// A permutation acts on a different number of cards than the protocol has.
    #[error("line {}, col {}: the permutation acts on {got} positions, the protocol has {cards} cards", .span.line, .span.col)]
    PermSize {
        /// Where it is written.
        span: Span,
        /// Its number of positions.
        got: usize,
        /// The protocol's number of cards.
        cards: usize,
    },
    /// A turned or result position is outside the row, or repeated.
    #[error("line {}, col {}: position {position} is not one of the {cards} cards (or is repeated)", .span.line, .span.col)]
    Position {
        /// Where it is written.
        span: Span,
        /// The offending position, 1-indexed.
        position: usize,
        /// The protocol's number of cards.
        cards: usize,
    },
    /// A branch's observation has the wrong length or is listed twice.
    #[error("line {}, col {}: branch `{observation}` {reason}", .span.line, .span.col)]
    Branch {
        /// Where the branch is written.
        span: Span,
        /// The observation, as written.
        observation: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// `goto` names a label that does not exist.
    #[error("line {}, col {}: no label `{label}`", .span.line, .span.col)]
    UnknownLabel {
        /// Where the goto is written.
        span: Span,
        /// The missing label.
        label: String,
    },
    /// A label is defined twice.
    #[error("line {}, col {}: label `{label}` is defined twice", .span.line, .span.col)]
    DuplicateLabel {
        /// The second definition.
        span: Span,
        /// The label.
        label: String,
    },
    /// The layout names an undeclared input, or the input count is unusable.
    #[error("layout: {0}")]
    Layout(String),
    /// The function does not fit the inputs.
    #[error("function: {0}")]
    Function(String),
    /// A state grew beyond [`AnalysisOptions::max_sequences`].
    #[error("line {}, col {}: more than {limit} card sequences in one state", .span.line, .span.col)]
    TooManySequences {
        /// The action that produced the state.
        span: Span,
        /// The limit.
        limit: usize,
    },
    /// A shuffle would cost more than [`AnalysisOptions::max_shuffle_work`].
    #[error("line {}, col {}: shuffle of {perms} permutations over {sequences} sequences exceeds the work limit {limit}", .span.line, .span.col)]
    TooMuchWork {
        /// The shuffle.
        span: Span,
        /// Permutations in its support.
        perms: usize,
        /// Sequences in the state.
        sequences: usize,
        /// The limit.
        limit: usize,
    },
    /// More paths than [`AnalysisOptions::max_paths`].
    #[error("more than {0} paths through the protocol")]
    TooManyPaths(usize),
    /// More complete views than [`AnalysisOptions::max_views`].
    #[error("more than {0} complete views")]
    TooManyViews(usize),
}

/// A defect of a well-formed protocol, found by the analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Defect {
    /// An observation can occur but the turn has no branch for it.
    MissingBranch {
        /// The turn.
        span: Span,
        /// The observation without a branch.
        observation: Vec<Symbol>,
    },
    /// A committed result does not decode to `f(input)`.
    WrongResult {
        /// The `result` action.
        span: Span,
        /// The input (bits, first input first).
        input: String,
        /// The sequence on the table.
        sequence: Sequence,
        /// The result pair (1-indexed).
        pair: (usize, usize),
    },
    /// A non-committed ending whose view is possible under inputs with different outputs.
    ViewDoesNotDetermineOutput {
        /// The view.
        view: String,
        /// Inputs with output 0 that can produce it.
        zeros: Vec<String>,
        /// Inputs with output 1 that can produce it.
        ones: Vec<String>,
    },
    /// The state arriving at a label differs from the one recorded there.
    LoopInconsistent {
        /// The `goto` or `label` where the second state arrives.
        span: Span,
        /// The label.
        label: String,
        /// One input whose state differs.
        input: String,
    },
    /// The protocol does not terminate with probability 1 (the linear system is singular).
    NeverTerminates {
        /// An input for which it may run forever.
        input: String,
    },
    /// An observation's probability differs between two inputs that must look alike.
    Leak {
        /// The turn (or the `result`, when `result_basis`).
        span: Span,
        /// Whether the "observation" is the basis of a `result` on numbered cards that varies
        /// within the state (see the [module docs](self)).
        result_basis: bool,
        /// The observation.
        observation: Vec<Symbol>,
        /// The two inputs.
        inputs: (String, String),
        /// Their probabilities of reaching this observation.
        probabilities: (Q, Q),
    },
    /// Further leak messages were suppressed.
    MoreLeaks(usize),
    /// A committed output on numbered cards whose two cards (its basis) are not the same in
    /// every sequence that reaches the `result` \[KSK19\]. Counted as incorrect: the output is
    /// no commitment in a fixed basis, and the basis itself can tell the inputs apart.
    ResultBasisVaries {
        /// The `result` action.
        span: Span,
        /// The result pair (1-indexed).
        pair: (usize, usize),
        /// Two of the bases met (unordered pairs, lower card first).
        bases: ([Symbol; 2], [Symbol; 2]),
    },
}

impl Defect {
    /// Whether the defect makes the protocol incorrect (rather than insecure).
    pub fn breaks_correctness(&self) -> bool {
        !matches!(self, Defect::Leak { .. } | Defect::MoreLeaks(_))
    }
}

fn at(span: Span) -> String {
    if span == Span::default() {
        "(built in code)".to_owned()
    } else {
        format!("line {}, col {}", span.line, span.col)
    }
}

/// Renders symbols as glyphs, `♣♥…`.
pub fn glyphs(symbols: &[Symbol]) -> String {
    symbols.iter().map(|s| s.to_string()).collect()
}

impl fmt::Display for Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Defect::MissingBranch { span, observation } => write!(
                f,
                "{}: observation {} can occur but the turn has no branch for it",
                at(*span),
                glyphs(observation)
            ),
            Defect::WrongResult {
                span,
                input,
                sequence,
                pair,
            } => write!(
                f,
                "{}: under input {input} the row can be {} and the result cards {} {} do not encode f({input})",
                at(*span),
                glyphs(sequence),
                pair.0,
                pair.1
            ),
            Defect::ViewDoesNotDetermineOutput { view, zeros, ones } => write!(
                f,
                "non-committed ending: the view {view} is possible under inputs {} (output 0) and {} (output 1)",
                zeros.join(","),
                ones.join(",")
            ),
            Defect::LoopInconsistent { span, label, input } => write!(
                f,
                "{}: the state arriving at label {label} differs from the state recorded there (input {input})",
                at(*span)
            ),
            Defect::NeverTerminates { input } => write!(
                f,
                "under input {input} the protocol does not terminate with probability 1"
            ),
            Defect::Leak {
                span,
                result_basis,
                observation,
                inputs,
                probabilities,
            } => write!(
                f,
                "{}: {} {} has probability {} under input {} but {} under input {}",
                at(*span),
                if *result_basis {
                    "the result's basis"
                } else {
                    "observation"
                },
                glyphs(observation),
                probabilities.0,
                inputs.0,
                probabilities.1,
                inputs.1
            ),
            Defect::MoreLeaks(n) => write!(f, "… and {n} more observations that leak"),
            Defect::ResultBasisVaries { span, pair, bases } => write!(
                f,
                "{}: result {} {}: the output's two cards differ between runs ({} vs {}), so the \
                 basis can leak",
                at(*span),
                pair.0,
                pair.1,
                glyphs(&bases.0),
                glyphs(&bases.1)
            ),
        }
    }
}

/// The security levels, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Security {
    /// The view's distribution is independent of the input (of everything but the output, for
    /// non-committed endings).
    Perfect,
    /// Every view possible under one input is possible under every input that must look alike.
    InputPossibilistic,
    /// Every view possible under some input is possible under an input of each output value.
    OutputPossibilistic,
    /// None of the above.
    Insecure,
}

impl Security {
    /// The name used in the format and the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Security::Perfect => "perfect",
            Security::InputPossibilistic => "input-possibilistic",
            Security::OutputPossibilistic => "output-possibilistic",
            Security::Insecure => "insecure",
        }
    }
}

impl fmt::Display for Security {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The runtime classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runtime {
    /// A bound on the number of steps.
    Finite,
    /// Restart-free Las Vegas: loops, finite in expectation.
    LasVegas,
    /// Las Vegas with restarts.
    LasVegasRestart,
}

impl Runtime {
    /// The name used in the format and the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::Finite => "finite",
            Runtime::LasVegas => "las-vegas",
            Runtime::LasVegasRestart => "las-vegas-restart",
        }
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One observation of a view: a turn and the symbols it showed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Observation {
    /// The turn.
    pub span: Span,
    /// The symbols seen, in position order.
    pub symbols: Vec<Symbol>,
}

/// Renders a view (a list of observations) as `♥♣ / ♣`; the empty view is `(nothing)`.
pub fn render_view(view: &[Observation]) -> String {
    if view.is_empty() {
        return "(nothing)".to_owned();
    }
    view.iter()
        .map(|o| glyphs(&o.symbols))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// A state of the KWH tree: each reachable sequence with its per-input probabilities.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Sequence → `Pr[sequence | input i, view so far]` for each input `i`.
    pub entries: BTreeMap<Sequence, Vec<Q>>,
}

/// Moves the card at position `i` to `π(i)`. `p.len()` must equal `s.len()`.
fn permute(p: &Perm, s: &[Symbol]) -> Sequence {
    let mut out = s.to_vec();
    for (i, &x) in s.iter().enumerate() {
        if let Some(j) = p.get(i) {
            out[j] = x;
        }
    }
    out
}

impl State {
    /// The per-input total mass.
    pub fn column_sums(&self, inputs: usize) -> Vec<Q> {
        let mut sums = vec![Q::zero(); inputs];
        for v in self.entries.values() {
            for (s, x) in sums.iter_mut().zip(v) {
                add_to(s, x);
            }
        }
        sums
    }

    /// Applies a public permutation.
    pub fn permute(&self, p: &Perm) -> State {
        State {
            entries: self
                .entries
                .iter()
                .map(|(s, v)| (permute(p, s), v.clone()))
                .collect(),
        }
    }

    /// Applies a shuffle with the given support: `F(π)·state[s]` accumulates at `π(s)`.
    pub fn shuffle(&self, dist: &[(Perm, Q)]) -> State {
        let mut out: BTreeMap<Sequence, Vec<Q>> = BTreeMap::new();
        for (s, v) in &self.entries {
            for (p, w) in dist {
                let t = permute(p, s);
                let slot = out.entry(t).or_insert_with(|| vec![Q::zero(); v.len()]);
                for (acc, x) in slot.iter_mut().zip(v) {
                    if !x.is_zero() {
                        add_to(acc, &mul(w, x));
                    }
                }
            }
        }
        out.retain(|_, v| v.iter().any(|x| !x.is_zero()));
        State { entries: out }
    }

    /// Splits by what the cards at `positions` (sorted, 0-indexed) show.
    pub fn split(&self, positions: &[usize]) -> BTreeMap<Vec<Symbol>, State> {
        let mut out: BTreeMap<Vec<Symbol>, State> = BTreeMap::new();
        for (s, v) in &self.entries {
            let obs: Vec<Symbol> = positions
                .iter()
                .filter_map(|&p| s.get(p).copied())
                .collect();
            out.entry(obs)
                .or_default()
                .entries
                .insert(s.clone(), v.clone());
        }
        out
    }

    /// Divides each input's column by its total (columns with total 0 stay 0).
    pub fn normalize(&mut self, sums: &[Q]) {
        for v in self.entries.values_mut() {
            for (x, s) in v.iter_mut().zip(sums) {
                if !s.is_zero() && !s.is_one() && !x.is_zero() {
                    *x = &*x / s;
                }
            }
        }
    }

    /// The sequences that are ⊥: carried by inputs with different outputs.
    pub fn bottom_sequences(&self, outputs: &[bool]) -> Vec<&Sequence> {
        self.entries
            .iter()
            .filter(|(_, v)| is_bottom(v, outputs))
            .map(|(s, _)| s)
            .collect()
    }
}

/// `acc += x`, skipping the big-integer work when a term is 0.
fn add_to(acc: &mut Q, x: &Q) {
    if x.is_zero() {
    } else if acc.is_zero() {
        *acc = x.clone();
    } else {
        *acc += x;
    }
}

/// `a · b`, skipping the big-integer work when a factor is 0 or 1 (most factors are).
/// Entrywise product: per input, the mass of reaching a node times the part of the state that
/// takes one branch there.
fn times(mass: &[Q], sums: &[Q]) -> Vec<Q> {
    mass.iter().zip(sums).map(|(m, s)| mul(m, s)).collect()
}

fn mul(a: &Q, b: &Q) -> Q {
    if a.is_zero() || b.is_zero() {
        Q::zero()
    } else if a.is_one() {
        b.clone()
    } else if b.is_one() {
        a.clone()
    } else {
        a * b
    }
}

/// Whether a sequence with per-input probabilities `v` is ⊥: inputs with **different** outputs
/// both have positive probability on it. Inputs that share an output never make it ⊥.
pub fn is_bottom(v: &[Q], outputs: &[bool]) -> bool {
    let mut seen = [false, false];
    for (x, &o) in v.iter().zip(outputs) {
        if !x.is_zero() {
            seen[usize::from(o)] = true;
        }
    }
    seen[0] && seen[1]
}

/// How a path ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A committed `result` (the action's span).
    Result(Span),
    /// The protocol ran out of actions: a non-committed ending.
    Open,
    /// Went to node (index into [`Exploration::nodes`]) by `goto` or by falling through a label.
    Node(usize),
    /// `restart`: back to the start node.
    Restart,
    /// An observation without a branch.
    Stuck(Span),
}

/// A path through one segment.
#[derive(Clone, Debug)]
pub struct Leaf {
    /// The node the segment starts at.
    pub node: usize,
    /// What was seen along the path.
    pub view: Vec<Observation>,
    /// Per input, the probability of this path from the node.
    pub mass: Vec<Q>,
    /// Shuffles executed along the path.
    pub shuffles: u64,
    /// How it ends.
    pub ending: Ending,
}

/// One observation of one turn, reached along one path of a segment.
#[derive(Clone, Debug)]
pub struct TurnRecord {
    /// The segment's node.
    pub node: usize,
    /// The turn.
    pub span: Span,
    /// What was seen before, in this segment.
    pub before: Vec<Observation>,
    /// The observation.
    pub observation: Vec<Symbol>,
    /// Per input, the probability of reaching the turn (from the node).
    pub prior: Vec<Q>,
    /// Per input, the probability of reaching the turn and seeing the observation.
    pub mass: Vec<Q>,
    /// Whether this is no turn but the basis of a `result` on numbered cards, split off as an
    /// observation because it varies within the state (see the [module docs](self)); the
    /// observation is then the bases of the result's pairs, lower card first.
    pub result_basis: bool,
}

/// A node of the segment graph: the start or a label, with the state recorded there.
#[derive(Clone, Debug)]
pub struct Node {
    /// `start` or the label's name.
    pub name: String,
    /// The state at the node.
    pub state: State,
    /// The node's vertex in the state tree, when recorded.
    pub tree_vertex: Option<usize>,
}

/// A vertex of the recorded state tree.
#[derive(Clone, Debug)]
pub struct TreeVertex {
    /// The state after the incoming edge's action.
    pub state: State,
    /// Per input, the probability of reaching this vertex from its segment's node.
    pub mass: Vec<Q>,
    /// What the vertex is (`start`, `label L`, `result 5 6`, `end`, …).
    pub kind: String,
}

/// An edge of the recorded state tree.
#[derive(Clone, Debug)]
pub struct TreeEdge {
    /// Source vertex.
    pub from: usize,
    /// Target vertex.
    pub to: usize,
    /// The action (and observation) that leads from `from` to `to`.
    pub label: String,
}

/// The KWH state tree as a graph (loops are edges back to label vertices).
#[derive(Clone, Debug, Default)]
pub struct StateTree {
    /// Vertices.
    pub vertices: Vec<TreeVertex>,
    /// Edges.
    pub edges: Vec<TreeEdge>,
}

/// Everything the exploration found, before it is summarised into an [`Analysis`].
#[derive(Clone, Debug)]
pub struct Exploration {
    /// The protocol's name.
    pub name: String,
    /// The function, as written.
    pub function: String,
    /// Number of cards.
    pub cards: usize,
    /// The input assignments as bit strings, first input first (`00`, `01`, …).
    pub inputs: Vec<String>,
    /// `f(input)` per input.
    pub outputs: Vec<bool>,
    /// The segment graph's nodes; node 0 is the start.
    pub nodes: Vec<Node>,
    /// Every path of every segment.
    pub leaves: Vec<Leaf>,
    /// Every (turn, observation) reached.
    pub turns: Vec<TurnRecord>,
    /// Defects found while exploring.
    pub defects: Vec<Defect>,
    /// Number of ⊥ sequences over all states explored.
    pub bottom_sequences: usize,
    /// The state tree, when [`AnalysisOptions::record_tree`] was set.
    pub tree: Option<StateTree>,
    max_views: usize,
}

/// The per-branch probabilities of one turn's observation.
#[derive(Clone, Debug, Serialize)]
pub struct BranchProbability {
    /// `start` or the label whose segment contains the turn.
    pub node: String,
    /// `line:col` of the turn.
    pub at: String,
    /// What was seen earlier in the segment.
    pub after: String,
    /// The observation.
    pub observation: String,
    /// Per input, `Pr[observation | reached the turn, input]` as an exact rational (null when the
    /// input cannot reach the turn).
    pub probability: Vec<Option<String>>,
}

/// The worst pair of a leak.
#[derive(Clone, Debug, Serialize)]
pub struct LeakWitness {
    /// The two inputs.
    pub inputs: [String; 2],
    /// The view whose probabilities differ most.
    pub view: String,
    /// Its probability under each input.
    pub probabilities: [String; 2],
}

/// The analyzer's verdict on a protocol (the JSON of `facedown cards analyze --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// From the header.
    pub name: String,
    /// From the header (`and`, `0001`, `copy`, …).
    pub function: String,
    /// Number of cards.
    pub cards: usize,
    /// The input assignments, first input first.
    pub inputs: Vec<String>,
    /// Every terminating run yields `f(input)` (committed results on numbered cards also keep
    /// one basis, see the [module docs](self)).
    pub correct: bool,
    /// The strongest security level that holds.
    pub security: Security,
    /// Whether every reachable ending is a committed `result`.
    pub committed: bool,
    /// The runtime class.
    pub runtime: Runtime,
    /// Exact expected number of shuffles (the largest over inputs if they differ); null when the
    /// protocol may not terminate.
    pub expected_shuffles: Option<String>,
    /// Exact expected number of shuffles per input.
    pub expected_shuffles_per_input: Vec<Option<String>>,
    /// Fewest shuffles of a run that ends.
    pub min_shuffles: Option<u64>,
    /// Most shuffles of a run; null when unbounded.
    pub max_shuffles: Option<u64>,
    /// Largest total-variation distance between the views of two inputs that must look alike
    /// (exact); null when not computed (looping protocols that are not perfectly secure).
    pub tv_distance: Option<String>,
    /// The same as a float.
    pub tv_distance_f64: Option<f64>,
    /// The worst pair and view (null when nothing leaks).
    pub tv_worst: Option<LeakWitness>,
    /// `I(X; V)` for uniform inputs, in bits.
    pub mutual_information_bits: Option<f64>,
    /// `I(X; V | f(X))`, in bits: what the view reveals beyond the output.
    pub leak_beyond_output_bits: Option<f64>,
    /// For protocols with non-uniform shuffles that are not perfectly secure but become so with
    /// every shuffle made uniform on its support: the largest over inputs of the total-variation
    /// distance between the view and the view under uniform shuffles (Kim–Cetinkaya).
    pub tv_from_uniform_shuffles: Option<String>,
    /// Number of ⊥ sequences met in the states explored.
    pub bottom_sequences: usize,
    /// Per-branch probabilities.
    pub branches: Vec<BranchProbability>,
    /// Human-readable reasons; empty when correct and secure.
    pub errors: Vec<String>,
    /// Remarks that are not defects.
    pub notes: Vec<String>,
    /// The typed defects behind [`Analysis::errors`].
    #[serde(skip)]
    pub defects: Vec<Defect>,
    /// [`Analysis::expected_shuffles`] as a rational.
    #[serde(skip)]
    pub expected_shuffles_exact: Option<Q>,
    /// [`Analysis::tv_distance`] as a rational.
    #[serde(skip)]
    pub tv_distance_exact: Option<Q>,
    /// [`Analysis::tv_from_uniform_shuffles`] as a rational.
    #[serde(skip)]
    pub tv_from_uniform_shuffles_exact: Option<Q>,
}

/// The function as written in the header.
pub fn function_name(f: &Function) -> String {
    match f {
        Function::Named(n) => n.keyword().to_owned(),
        Function::Table(t) => t.iter().map(|&b| if b { '1' } else { '0' }).collect(),
        Function::Copy => "copy".to_owned(),
    }
}

/// The input assignment `index` as a bit string, first input first.
pub fn input_label(index: usize, k: usize) -> String {
    input_bits(index, k)
        .into_iter()
        .map(|b| if b { '1' } else { '0' })
        .collect()
}

/// Analyzes a protocol with the default limits.
pub fn analyze(protocol: &Protocol) -> Result<Analysis, AnalysisError> {
    analyze_with(protocol, &AnalysisOptions::default())
}

/// Analyzes a protocol with the given limits.
pub fn analyze_with(
    protocol: &Protocol,
    opts: &AnalysisOptions,
) -> Result<Analysis, AnalysisError> {
    let ex = explore(protocol, opts)?;
    let views = ex.view_distribution()?;
    let mut analysis = ex.summarize_with(views.as_ref());
    if analysis.security != Security::Perfect && has_nonuniform_shuffle(protocol) {
        let ideal_ex = explore(&uniformized(protocol), opts)?;
        if ideal_ex.is_perfect() {
            if let (Some(a), Some(b)) = (views.as_ref(), ideal_ex.view_distribution()?) {
                let mut worst = Q::zero();
                for i in 0..ex.inputs.len() {
                    let d = tv(a, &b, i, i);
                    if d > worst {
                        worst = d;
                    }
                }
                analysis.tv_from_uniform_shuffles = Some(worst.to_string());
                analysis.tv_from_uniform_shuffles_exact = Some(worst);
            }
        }
    }
    Ok(analysis)
}

fn has_nonuniform_shuffle(p: &Protocol) -> bool {
    fn walk(actions: &[Action]) -> bool {
        actions.iter().any(|a| match &a.kind {
            ActionKind::Shuffle(Shuffle::Set {
                weights: Some(ws), ..
            }) => ws.iter().any(|w| w != &ws[0]),
            ActionKind::Turn {
                branches: Some(bs), ..
            } => bs.iter().any(|b| walk(&b.body)),
            _ => false,
        })
    }
    walk(&p.body)
}

/// The same protocol with every weighted shuffle made uniform on its support.
pub fn uniformized(p: &Protocol) -> Protocol {
    fn walk(actions: &[Action]) -> Vec<Action> {
        actions
            .iter()
            .map(|a| {
                let kind = match &a.kind {
                    ActionKind::Shuffle(Shuffle::Set {
                        perms,
                        weights: Some(ws),
                    }) => ActionKind::Shuffle(Shuffle::Set {
                        perms: perms
                            .iter()
                            .zip(ws)
                            .filter(|(_, w)| !w.is_zero())
                            .map(|(p, _)| p.clone())
                            .collect(),
                        weights: None,
                    }),
                    ActionKind::Turn {
                        positions,
                        branches: Some(bs),
                    } => ActionKind::Turn {
                        positions: positions.clone(),
                        branches: Some(
                            bs.iter()
                                .map(|b| crate::model::Branch {
                                    observation: b.observation.clone(),
                                    body: walk(&b.body),
                                    span: b.span,
                                })
                                .collect(),
                        ),
                    },
                    k => k.clone(),
                };
                Action { kind, span: a.span }
            })
            .collect()
    }
    Protocol {
        body: walk(&p.body),
        ..p.clone()
    }
}

type Frames<'p> = Vec<(&'p [Action], usize)>;

struct Walker<'p> {
    n: usize,
    k: usize,
    outputs: Vec<bool>,
    input_names: Vec<String>,
    labels: HashMap<String, Frames<'p>>,
    dists: HashMap<usize, Vec<(Perm, Q)>>,
    opts: AnalysisOptions,
    nodes: Vec<Node>,
    node_of: HashMap<String, usize>,
    leaves: Vec<Leaf>,
    turns: Vec<TurnRecord>,
    defects: Vec<Defect>,
    bottom: usize,
    tree: Option<StateTree>,
    pending: Vec<(usize, Frames<'p>)>,
    start: Frames<'p>,
    /// Per `result` action and pair: the bases met over every arrival, in order of first
    /// arrival (the standard-deck basis rule).
    bases: Vec<ResultBases>,
}

/// The bases a `result` pair met over every arrival at the action.
struct ResultBases {
    action: usize,
    span: Span,
    pair: (usize, usize),
    seen: Vec<[Symbol; 2]>,
}

struct PathState {
    node: usize,
    view: Vec<Observation>,
    mass: Vec<Q>,
    shuffles: u64,
    vertex: Option<usize>,
}

fn shuffle_key(s: &Shuffle) -> usize {
    std::ptr::from_ref(s) as usize
}

/// Explores a protocol: validates it, walks every segment and records what it finds.
pub fn explore(protocol: &Protocol, opts: &AnalysisOptions) -> Result<Exploration, AnalysisError> {
    let n = protocol.cards();
    let k = protocol.inputs.len();
    if k > 16 {
        return Err(AnalysisError::Layout(format!(
            "{k} inputs is more than the 16 the analyzer supports"
        )));
    }
    let count = protocol.input_count();
    for item in &protocol.layout {
        if let Some((name, _)) = item.input() {
            if !protocol.inputs.iter().any(|i| i == name) {
                return Err(AnalysisError::Layout(format!(
                    "`{name}` is not a declared input"
                )));
            }
        }
        if let LayoutItem::InputOn { cards, .. } = item {
            LayoutItem::check_commitment_cards(*cards)
                .map_err(|e| AnalysisError::Layout(format!("`{item}`: {e}")))?;
        }
    }
    match &protocol.function {
        Function::Table(t) if t.len() != count => {
            return Err(AnalysisError::Function(format!(
                "a truth table over {k} inputs needs {count} entries, not {}",
                t.len()
            )))
        }
        Function::Copy if k != 1 => {
            return Err(AnalysisError::Function(format!(
                "`copy` takes exactly one input, not {k}"
            )))
        }
        _ => {}
    }
    let mut outputs = Vec::with_capacity(count);
    let mut start_state = State::default();
    for i in 0..count {
        let bits = input_bits(i, k);
        let out = protocol.function.eval(&bits).ok_or_else(|| {
            AnalysisError::Function(format!("no value for input {}", input_label(i, k)))
        })?;
        outputs.push(out);
        let row = protocol.initial_row(&bits).ok_or_else(|| {
            AnalysisError::Layout("the layout does not fit the inputs".to_owned())
        })?;
        start_state
            .entries
            .entry(row)
            .or_insert_with(|| vec![Q::zero(); count])[i] = Q::one();
    }
    let mut walker = Walker {
        n,
        k: count,
        outputs,
        input_names: (0..count).map(|i| input_label(i, k)).collect(),
        labels: HashMap::new(),
        dists: HashMap::new(),
        opts: opts.clone(),
        nodes: Vec::new(),
        node_of: HashMap::new(),
        leaves: Vec::new(),
        turns: Vec::new(),
        defects: Vec::new(),
        bottom: 0,
        tree: opts.record_tree.then(StateTree::default),
        pending: Vec::new(),
        start: vec![(&protocol.body[..], 0)],
        bases: Vec::new(),
    };
    let mut gotos = Vec::new();
    walker.validate(&protocol.body, &Vec::new(), &mut gotos)?;
    for (span, label) in gotos {
        if !walker.labels.contains_key(&label) {
            return Err(AnalysisError::UnknownLabel { span, label });
        }
    }
    let vertex = walker.add_vertex(&start_state, &vec![Q::one(); count], "start".to_owned());
    walker.nodes.push(Node {
        name: "start".to_owned(),
        state: start_state,
        tree_vertex: vertex,
    });
    walker.node_of.insert(String::new(), 0);
    walker.pending.push((0, walker.start.clone()));
    while let Some((node, frames)) = walker.pending.pop() {
        let state = walker.nodes[node].state.clone();
        let sums = state.column_sums(count);
        let mass: Vec<Q> = sums
            .iter()
            .map(|s| if s.is_zero() { Q::zero() } else { Q::one() })
            .collect();
        let path = PathState {
            node,
            view: Vec::new(),
            mass,
            shuffles: 0,
            vertex: walker.nodes[node].tree_vertex,
        };
        walker.walk(frames, state, path)?;
    }
    for rb in &walker.bases {
        let numbered = rb
            .seen
            .iter()
            .any(|b| b.iter().any(|s| matches!(s, Symbol::Card(_))));
        if let (true, [first, second, ..]) = (numbered, rb.seen.as_slice()) {
            walker.defects.push(Defect::ResultBasisVaries {
                span: rb.span,
                pair: (rb.pair.0 + 1, rb.pair.1 + 1),
                bases: (*first, *second),
            });
        }
    }
    Ok(Exploration {
        name: protocol.name.clone(),
        function: function_name(&protocol.function),
        cards: n,
        inputs: walker.input_names,
        outputs: walker.outputs,
        nodes: walker.nodes,
        leaves: walker.leaves,
        turns: walker.turns,
        defects: walker.defects,
        bottom_sequences: walker.bottom,
        tree: walker.tree,
        max_views: opts.max_views,
    })
}

impl<'p> Walker<'p> {
    /// Checks positions, permutations, shuffles, branches and labels; indexes labels.
    fn validate(
        &mut self,
        block: &'p [Action],
        parents: &Frames<'p>,
        gotos: &mut Vec<(Span, String)>,
    ) -> Result<(), AnalysisError> {
        let n = self.n;
        let check_positions = |span: Span, ps: &[usize]| -> Result<(), AnalysisError> {
            let mut seen = vec![false; n];
            for &p in ps {
                if p >= n || std::mem::replace(&mut seen[p], true) {
                    return Err(AnalysisError::Position {
                        span,
                        position: p + 1,
                        cards: n,
                    });
                }
            }
            Ok(())
        };
        for (idx, action) in block.iter().enumerate() {
            let span = action.span;
            match &action.kind {
                ActionKind::Perm(p) => {
                    if p.len() != n {
                        return Err(AnalysisError::PermSize {
                            span,
                            got: p.len(),
                            cards: n,
                        });
                    }
                }
                ActionKind::Shuffle(s) => {
                    let dist = s
                        .distribution(n)
                        .map_err(|source| AnalysisError::Shuffle { span, source })?;
                    self.dists.insert(shuffle_key(s), dist);
                }
                ActionKind::Turn {
                    positions,
                    branches,
                } => {
                    check_positions(span, positions)?;
                    if let Some(bs) = branches {
                        let mut seen = Vec::new();
                        for b in bs {
                            if b.observation.len() != positions.len() {
                                return Err(AnalysisError::Branch {
                                    span: b.span,
                                    observation: glyphs(&b.observation),
                                    reason: "has a different number of symbols than cards turned",
                                });
                            }
                            if seen.contains(&&b.observation) {
                                return Err(AnalysisError::Branch {
                                    span: b.span,
                                    observation: glyphs(&b.observation),
                                    reason: "is listed twice",
                                });
                            }
                            seen.push(&b.observation);
                            let mut frames = parents.clone();
                            frames.push((block, idx + 1));
                            self.validate(&b.body, &frames, gotos)?;
                        }
                    }
                }
                ActionKind::Result(pairs) => {
                    let flat: Vec<usize> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
                    check_positions(span, &flat)?;
                }
                ActionKind::Label(name) => {
                    let mut frames = parents.clone();
                    frames.push((block, idx + 1));
                    if self.labels.insert(name.clone(), frames).is_some() {
                        return Err(AnalysisError::DuplicateLabel {
                            span,
                            label: name.clone(),
                        });
                    }
                }
                ActionKind::Goto(name) => gotos.push((span, name.clone())),
                ActionKind::Restart => {}
            }
        }
        Ok(())
    }

    fn add_vertex(&mut self, state: &State, mass: &[Q], kind: String) -> Option<usize> {
        let tree = self.tree.as_mut()?;
        tree.vertices.push(TreeVertex {
            state: state.clone(),
            mass: mass.to_vec(),
            kind,
        });
        Some(tree.vertices.len() - 1)
    }

    fn add_edge(&mut self, from: Option<usize>, to: Option<usize>, label: String) {
        if let (Some(tree), Some(from), Some(to)) = (self.tree.as_mut(), from, to) {
            tree.edges.push(TreeEdge { from, to, label });
        }
    }

    fn step_vertex(&mut self, path: &mut PathState, state: &State, label: String, kind: &str) {
        if self.tree.is_some() {
            let v = self.add_vertex(state, &path.mass, kind.to_owned());
            self.add_edge(path.vertex, v, label);
            path.vertex = v;
        }
    }

    fn leaf(&mut self, path: PathState, ending: Ending) -> Result<(), AnalysisError> {
        if self.leaves.len() >= self.opts.max_paths {
            return Err(AnalysisError::TooManyPaths(self.opts.max_paths));
        }
        self.leaves.push(Leaf {
            node: path.node,
            view: path.view,
            mass: path.mass,
            shuffles: path.shuffles,
            ending,
        });
        Ok(())
    }

    fn count_bottom(&mut self, state: &State) {
        self.bottom += state.bottom_sequences(&self.outputs).len();
    }

    /// Arrival at a label with `state`: record or compare; returns the node.
    fn arrive(
        &mut self,
        label: &str,
        state: &State,
        span: Span,
        from_vertex: Option<usize>,
        how: String,
    ) -> usize {
        if let Some(&node) = self.node_of.get(label) {
            let recorded = &self.nodes[node].state;
            let sums = state.column_sums(self.k);
            let rec_sums = recorded.column_sums(self.k);
            for i in 0..self.k {
                if sums[i].is_zero() {
                    continue;
                }
                let differs = rec_sums[i].is_zero() || column(state, i) != column(recorded, i);
                if differs {
                    self.defects.push(Defect::LoopInconsistent {
                        span,
                        label: label.to_owned(),
                        input: self.input_names[i].clone(),
                    });
                    break;
                }
            }
            let to = self.nodes[node].tree_vertex;
            self.add_edge(from_vertex, to, how);
            node
        } else {
            let node = self.nodes.len();
            let vertex = self.add_vertex(state, &vec![Q::one(); self.k], format!("label {label}"));
            self.add_edge(from_vertex, vertex, how);
            self.nodes.push(Node {
                name: label.to_owned(),
                state: state.clone(),
                tree_vertex: vertex,
            });
            self.node_of.insert(label.to_owned(), node);
            if let Some(frames) = self.labels.get(label) {
                self.pending.push((node, frames.clone()));
            }
            node
        }
    }

    /// Ends a path at `result`: records the bases of its pairs (the basis rule) and makes the
    /// leaf. When the basis of a pair on numbered cards varies *within* this state, the path is
    /// split by the bases as if they were an observation of the `result` (they become visible
    /// when the output is opened or used), so that the security check and the leak measures
    /// see what the basis reveals. A basis that is the same throughout the state is a function
    /// of the view and reveals nothing more, so such paths are left whole.
    fn result_leaves(
        &mut self,
        action: &Action,
        pairs: &[(usize, usize)],
        state: &State,
        path: PathState,
    ) -> Result<(), AnalysisError> {
        let key = std::ptr::from_ref(action) as usize;
        for &pair in pairs {
            let idx = match self
                .bases
                .iter()
                .position(|r| r.action == key && r.pair == pair)
            {
                Some(idx) => idx,
                None => {
                    self.bases.push(ResultBases {
                        action: key,
                        span: action.span,
                        pair,
                        seen: Vec::new(),
                    });
                    self.bases.len() - 1
                }
            };
            for s in state.entries.keys() {
                let b = basis_of(s, pair.0, pair.1);
                if !self.bases[idx].seen.contains(&b) {
                    self.bases[idx].seen.push(b);
                }
            }
        }
        // The bases of the pairs on numbered cards, per sequence.
        let numbered: Vec<(usize, usize)> = pairs
            .iter()
            .copied()
            .filter(|&(a, b)| {
                state
                    .entries
                    .keys()
                    .any(|s| matches!(s[a], Symbol::Card(_)) || matches!(s[b], Symbol::Card(_)))
            })
            .collect();
        let key_of = |s: &Sequence| -> Vec<Symbol> {
            numbered
                .iter()
                .flat_map(|&(a, b)| basis_of(s, a, b))
                .collect()
        };
        let mut keys = state.entries.keys().map(key_of);
        let first = keys.next();
        if keys.all(|k| Some(k) == first) {
            // One basis throughout (or no pair on numbered cards): nothing to split.
            return self.leaf(path, Ending::Result(action.span));
        }
        let mut groups: BTreeMap<Vec<Symbol>, State> = BTreeMap::new();
        for (s, v) in &state.entries {
            groups
                .entry(key_of(s))
                .or_default()
                .entries
                .insert(s.clone(), v.clone());
        }
        for (basis, sub) in groups {
            let sums = sub.column_sums(self.k);
            let mass = times(&path.mass, &sums);
            self.turns.push(TurnRecord {
                node: path.node,
                span: action.span,
                before: path.view.clone(),
                observation: basis.clone(),
                prior: path.mass.clone(),
                mass: mass.clone(),
                result_basis: true,
            });
            let mut view = path.view.clone();
            view.push(Observation {
                span: action.span,
                symbols: basis,
            });
            let child = PathState {
                node: path.node,
                view,
                mass,
                shuffles: path.shuffles,
                vertex: path.vertex,
            };
            self.leaf(child, Ending::Result(action.span))?;
        }
        Ok(())
    }

    fn walk(
        &mut self,
        mut frames: Frames<'p>,
        mut state: State,
        mut path: PathState,
    ) -> Result<(), AnalysisError> {
        loop {
            let Some(top) = frames.last_mut() else {
                self.step_vertex(&mut path, &state, "end".to_owned(), "end (non-committed)");
                return self.leaf(path, Ending::Open);
            };
            let (block, idx) = *top;
            let Some(action) = block.get(idx) else {
                frames.pop();
                continue;
            };
            top.1 += 1;
            let span = action.span;
            match &action.kind {
                ActionKind::Perm(p) => {
                    state = state.permute(p);
                    self.step_vertex(&mut path, &state, format!("perm {p}"), "");
                }
                ActionKind::Shuffle(s) => {
                    let dist = self.dists.get(&shuffle_key(s)).cloned().unwrap_or_default();
                    let work = dist.len().saturating_mul(state.entries.len());
                    if work > self.opts.max_shuffle_work {
                        return Err(AnalysisError::TooMuchWork {
                            span,
                            perms: dist.len(),
                            sequences: state.entries.len(),
                            limit: self.opts.max_shuffle_work,
                        });
                    }
                    state = state.shuffle(&dist);
                    if state.entries.len() > self.opts.max_sequences {
                        return Err(AnalysisError::TooManySequences {
                            span,
                            limit: self.opts.max_sequences,
                        });
                    }
                    path.shuffles += 1;
                    self.count_bottom(&state);
                    self.step_vertex(
                        &mut path,
                        &state,
                        format!("shuffle ({} perms)", dist.len()),
                        "",
                    );
                }
                ActionKind::Turn {
                    positions,
                    branches,
                } => {
                    let mut sorted = positions.clone();
                    sorted.sort_unstable();
                    let turned: Vec<String> = sorted.iter().map(|p| (p + 1).to_string()).collect();
                    let turned = turned.join(" ");
                    for (obs, mut sub) in state.split(&sorted) {
                        let sums = sub.column_sums(self.k);
                        let mass = times(&path.mass, &sums);
                        sub.normalize(&sums);
                        self.turns.push(TurnRecord {
                            node: path.node,
                            span,
                            before: path.view.clone(),
                            observation: obs.clone(),
                            prior: path.mass.clone(),
                            mass: mass.clone(),
                            result_basis: false,
                        });
                        let mut view = path.view.clone();
                        view.push(Observation {
                            span,
                            symbols: obs.clone(),
                        });
                        let mut child = PathState {
                            node: path.node,
                            view,
                            mass,
                            shuffles: path.shuffles,
                            vertex: path.vertex,
                        };
                        self.step_vertex(
                            &mut child,
                            &sub,
                            format!("turn {turned} → {}", glyphs(&obs)),
                            "",
                        );
                        let mut child_frames = frames.clone();
                        match branches {
                            None => {}
                            Some(bs) => match bs.iter().find(|b| b.observation == obs) {
                                Some(b) => child_frames.push((&b.body[..], 0)),
                                None => {
                                    self.defects.push(Defect::MissingBranch {
                                        span,
                                        observation: obs.clone(),
                                    });
                                    self.leaf(child, Ending::Stuck(span))?;
                                    continue;
                                }
                            },
                        }
                        self.walk(child_frames, sub, child)?;
                    }
                    return Ok(());
                }
                ActionKind::Result(pairs) => {
                    for (s, v) in &state.entries {
                        for (i, x) in v.iter().enumerate() {
                            if x.is_zero() {
                                continue;
                            }
                            for &(a, b) in pairs {
                                let got = decode_bit([s[a], s[b]]);
                                if got != Some(self.outputs[i]) {
                                    let d = Defect::WrongResult {
                                        span,
                                        input: self.input_names[i].clone(),
                                        sequence: s.clone(),
                                        pair: (a + 1, b + 1),
                                    };
                                    if self.defects.len() < 64 && !self.defects.contains(&d) {
                                        self.defects.push(d);
                                    }
                                }
                            }
                        }
                    }
                    let label = pairs
                        .iter()
                        .map(|(a, b)| format!("{} {}", a + 1, b + 1))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.step_vertex(&mut path, &state, format!("result {label}"), "result");
                    return self.result_leaves(action, pairs, &state, path);
                }
                ActionKind::Label(name) => {
                    let node = self.arrive(name, &state, span, path.vertex, "↓".to_owned());
                    return self.leaf(path, Ending::Node(node));
                }
                ActionKind::Goto(name) => {
                    let node = self.arrive(name, &state, span, path.vertex, format!("goto {name}"));
                    return self.leaf(path, Ending::Node(node));
                }
                ActionKind::Restart => {
                    let to = self.nodes[0].tree_vertex;
                    self.add_edge(path.vertex, to, "restart".to_owned());
                    return self.leaf(path, Ending::Restart);
                }
            }
        }
    }
}

/// Column `i` of a state, without zero entries.
fn column(state: &State, i: usize) -> Vec<(&Sequence, &Q)> {
    state
        .entries
        .iter()
        .filter_map(|(s, v)| v.get(i).filter(|x| !x.is_zero()).map(|x| (s, x)))
        .collect()
}

/// A view with its per-input probabilities.
type WeightedView = (Vec<Observation>, Vec<Q>);

/// Complete views with their per-input probabilities.
pub type ViewDistribution = BTreeMap<Vec<Observation>, Vec<Q>>;

/// Total-variation distance between the view distributions of input `i` in `a` and `j` in `b`.
fn tv(a: &ViewDistribution, b: &ViewDistribution, i: usize, j: usize) -> Q {
    let zero = Q::zero();
    let mut sum = Q::zero();
    for (v, pa) in a {
        let x = pa.get(i).unwrap_or(&zero);
        let y = b.get(v).and_then(|pb| pb.get(j)).unwrap_or(&zero);
        sum += (x - y).abs();
    }
    for (v, pb) in b {
        if !a.contains_key(v) {
            sum += pb.get(j).unwrap_or(&zero).abs();
        }
    }
    sum / Q::from_integer(BigInt::from(2))
}

fn q_f64(q: &Q) -> f64 {
    q.to_f64().unwrap_or(f64::NAN)
}

/// Solves `(I − P) x = a` over ℚ; `None` when singular.
fn solve(mut m: Vec<Vec<Q>>, mut rhs: Vec<Q>) -> Option<Vec<Q>> {
    let n = rhs.len();
    for col in 0..n {
        let pivot = (col..n).find(|&r| !m[r][col].is_zero())?;
        m.swap(col, pivot);
        rhs.swap(col, pivot);
        let inv = Q::one() / &m[col][col];
        for x in m[col].iter_mut().skip(col) {
            *x = &*x * &inv;
        }
        rhs[col] = &rhs[col] * &inv;
        let pivot_row = m[col].clone();
        for r in 0..n {
            if r != col && !m[r][col].is_zero() {
                let factor = m[r][col].clone();
                for (x, y) in m[r].iter_mut().zip(&pivot_row).skip(col) {
                    *x -= &factor * y;
                }
                let d = &factor * &rhs[col];
                rhs[r] -= d;
            }
        }
    }
    Some(rhs)
}

impl Exploration {
    fn leaf_target(&self, leaf: &Leaf) -> Option<usize> {
        match leaf.ending {
            Ending::Node(n) => Some(n),
            Ending::Restart => Some(0),
            _ => None,
        }
    }

    fn positive(&self, leaf: &Leaf) -> bool {
        leaf.mass.iter().any(|x| !x.is_zero())
    }

    /// Nodes reachable from the start along leaves with positive probability.
    fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(x) = stack.pop() {
            for leaf in self
                .leaves
                .iter()
                .filter(|l| l.node == x && self.positive(l))
            {
                if let Some(y) = self.leaf_target(leaf) {
                    if !seen[y] {
                        seen[y] = true;
                        stack.push(y);
                    }
                }
            }
        }
        seen
    }

    /// `reach[x][y]`: `y` reachable from `x` in one or more steps.
    fn closure(&self) -> Vec<Vec<bool>> {
        let n = self.nodes.len();
        let mut reach = vec![vec![false; n]; n];
        for leaf in self.leaves.iter().filter(|l| self.positive(l)) {
            if let Some(y) = self.leaf_target(leaf) {
                reach[leaf.node][y] = true;
            }
        }
        for k in 0..n {
            for i in 0..n {
                if reach[i][k] {
                    let via = reach[k].clone();
                    for (r, v) in reach[i].iter_mut().zip(via) {
                        *r |= v;
                    }
                }
            }
        }
        reach
    }

    /// Whether some non-committed ending is reachable.
    pub fn has_open_ending(&self) -> bool {
        let reach = self.reachable();
        self.leaves
            .iter()
            .any(|l| l.ending == Ending::Open && reach[l.node] && self.positive(l))
    }

    /// Whether inputs `i` and `j` must look alike.
    fn alike(&self, committed: bool, i: usize, j: usize) -> bool {
        committed || self.outputs[i] == self.outputs[j]
    }

    /// The complete views and their per-input probabilities, when the segment graph is acyclic
    /// (`None` for looping protocols). Views ending in every way are included.
    pub fn view_distribution(&self) -> Result<Option<ViewDistribution>, AnalysisError> {
        let reach = self.closure();
        if (0..self.nodes.len()).any(|x| reach[x][x]) {
            return Ok(None);
        }
        let mut memo: HashMap<usize, Vec<WeightedView>> = HashMap::new();
        let views = self.views_from(0, &mut memo)?;
        let mut out: ViewDistribution = BTreeMap::new();
        for (v, m) in views {
            let slot = out
                .entry(v)
                .or_insert_with(|| vec![Q::zero(); self.inputs.len()]);
            for (a, b) in slot.iter_mut().zip(&m) {
                *a += b;
            }
        }
        Ok(Some(out))
    }

    /// For each complete view (rendered as [`render_view`]), the output it determines: `Some(b)`
    /// when every input that can produce it has output `b`, `None` when inputs with both outputs
    /// can. `Ok(None)` for looping protocols.
    pub fn view_outputs(&self) -> Result<Option<BTreeMap<String, Option<bool>>>, AnalysisError> {
        let Some(dist) = self.view_distribution()? else {
            return Ok(None);
        };
        Ok(Some(
            dist.iter()
                .map(|(v, probs)| {
                    let mut outs = probs
                        .iter()
                        .zip(&self.outputs)
                        .filter(|(q, _)| !q.is_zero())
                        .map(|(_, &o)| o);
                    let first = outs.next();
                    let det = first.filter(|f| outs.all(|o| o == *f));
                    (render_view(v), det)
                })
                .collect(),
        ))
    }

    fn views_from(
        &self,
        node: usize,
        memo: &mut HashMap<usize, Vec<WeightedView>>,
    ) -> Result<Vec<WeightedView>, AnalysisError> {
        if let Some(v) = memo.get(&node) {
            return Ok(v.clone());
        }
        let mut out = Vec::new();
        for leaf in self.leaves.iter().filter(|l| l.node == node) {
            match self.leaf_target(leaf) {
                None => out.push((leaf.view.clone(), leaf.mass.clone())),
                Some(y) => {
                    for (v, m) in self.views_from(y, memo)? {
                        let mut view = leaf.view.clone();
                        view.extend(v);
                        let mass = leaf.mass.iter().zip(&m).map(|(a, b)| mul(a, b)).collect();
                        out.push((view, mass));
                    }
                }
            }
            if out.len() > self.max_views {
                return Err(AnalysisError::TooManyViews(self.max_views));
            }
        }
        memo.insert(node, out.clone());
        Ok(out)
    }

    /// The exact expected number of shuffles per input (`None` where the protocol may not
    /// terminate).
    pub fn expected_shuffles(&self) -> Vec<Option<Q>> {
        let n = self.nodes.len();
        (0..self.inputs.len())
            .map(|i| {
                let mut m = vec![vec![Q::zero(); n]; n];
                let mut rhs = vec![Q::zero(); n];
                for (x, row) in m.iter_mut().enumerate() {
                    row[x] = Q::one();
                }
                for leaf in &self.leaves {
                    let p = &leaf.mass[i];
                    if p.is_zero() {
                        continue;
                    }
                    rhs[leaf.node] += p * Q::from_integer(BigInt::from(leaf.shuffles));
                    if let Some(y) = self.leaf_target(leaf) {
                        m[leaf.node][y] -= p;
                    }
                }
                solve(m, rhs).map(|x| x[0].clone())
            })
            .collect()
    }

    /// Fewest and most shuffles of a run (`max` is `None` when unbounded).
    fn shuffle_bounds(&self) -> (Option<u64>, Option<u64>) {
        let n = self.nodes.len();
        let reachable = self.reachable();
        let reach = self.closure();
        let live: Vec<&Leaf> = self
            .leaves
            .iter()
            .filter(|l| reachable[l.node] && self.positive(l))
            .collect();
        // Min: Bellman–Ford over non-negative weights.
        let mut min: Vec<Option<u64>> = vec![None; n];
        for _ in 0..=n {
            for leaf in &live {
                let cand = match (&leaf.ending, self.leaf_target(leaf)) {
                    (Ending::Stuck(_), _) => None,
                    (_, None) => Some(leaf.shuffles),
                    (_, Some(y)) => min[y].map(|m| m + leaf.shuffles),
                };
                if let Some(c) = cand {
                    if better(min[leaf.node], c, |a, b| a < b) {
                        min[leaf.node] = Some(c);
                    }
                }
            }
        }
        // Max: unbounded when a cycle edge shuffles.
        let unbounded = live.iter().any(|l| {
            self.leaf_target(l)
                .is_some_and(|y| reach[y][l.node] && l.shuffles > 0)
        });
        if unbounded {
            return (min[0], None);
        }
        let mut max: Vec<Option<u64>> = vec![None; n];
        for _ in 0..=n {
            for leaf in &live {
                let cand = match self.leaf_target(leaf) {
                    None => Some(leaf.shuffles),
                    Some(y) => max[y].map(|m| m + leaf.shuffles),
                };
                if let Some(c) = cand {
                    if better(max[leaf.node], c, |a, b| a > b) {
                        max[leaf.node] = Some(c);
                    }
                }
            }
        }
        (min[0], max[0])
    }

    /// The strongest security level that holds (checked per observation), with the leak
    /// defects that rule out perfect security.
    fn security_level(&self, reachable: &[bool], committed: bool) -> (Security, Vec<Defect>) {
        let k = self.inputs.len();
        let mut defects = Vec::new();
        let mut perfect = true;
        let mut input_poss = true;
        let mut output_poss = committed;
        let mut leaks = 0usize;
        let values_present: Vec<bool> = [false, true]
            .iter()
            .map(|&o| self.outputs.contains(&o))
            .collect();
        for rec in self.turns.iter().filter(|r| reachable[r.node]) {
            let mut reported = false;
            for i in 0..k {
                for j in (i + 1)..k {
                    if !self.alike(committed, i, j) {
                        continue;
                    }
                    let (a, b) = (&rec.mass[i], &rec.mass[j]);
                    if a != b {
                        perfect = false;
                        if !reported {
                            reported = true;
                            leaks += 1;
                            if leaks <= 8 {
                                defects.push(Defect::Leak {
                                    span: rec.span,
                                    result_basis: rec.result_basis,
                                    observation: rec.observation.clone(),
                                    inputs: (self.inputs[i].clone(), self.inputs[j].clone()),
                                    probabilities: (a.clone(), b.clone()),
                                });
                            }
                        }
                    }
                    if a.is_zero() != b.is_zero() {
                        input_poss = false;
                    }
                }
            }
            if committed && rec.mass.iter().any(|x| !x.is_zero()) {
                for (o, &present) in values_present.iter().enumerate() {
                    if present
                        && !(0..k)
                            .any(|j| usize::from(self.outputs[j]) == o && !rec.mass[j].is_zero())
                    {
                        output_poss = false;
                    }
                }
            }
        }
        if leaks > 8 {
            defects.push(Defect::MoreLeaks(leaks - 8));
        }
        let level = if perfect {
            Security::Perfect
        } else if input_poss {
            Security::InputPossibilistic
        } else if output_poss {
            Security::OutputPossibilistic
        } else {
            Security::Insecure
        };
        (level, defects)
    }

    /// Summarises the exploration into the verdict.
    pub fn summarize(&self) -> Result<Analysis, AnalysisError> {
        let dist = self.view_distribution()?;
        Ok(self.summarize_with(dist.as_ref()))
    }

    /// Whether the protocol is perfectly secure (the security check of [`Exploration::summarize`]
    /// alone).
    pub fn is_perfect(&self) -> bool {
        let reachable = self.reachable();
        let committed = !self.has_open_ending();
        self.security_level(&reachable, committed).0 == Security::Perfect
    }

    /// Summarises the exploration, given its view distribution (`None` for looping protocols).
    pub fn summarize_with(&self, views: Option<&ViewDistribution>) -> Analysis {
        let k = self.inputs.len();
        let reachable = self.reachable();
        let reach = self.closure();
        let mut defects = self.defects.clone();
        let mut notes = Vec::new();

        // Non-committed endings: the view must determine the output.
        let open = self.has_open_ending();
        let committed = !open;
        for leaf in &self.leaves {
            if leaf.ending != Ending::Open || !reachable[leaf.node] {
                continue;
            }
            let zeros: Vec<String> = (0..k)
                .filter(|&i| !leaf.mass[i].is_zero() && !self.outputs[i])
                .map(|i| self.inputs[i].clone())
                .collect();
            let ones: Vec<String> = (0..k)
                .filter(|&i| !leaf.mass[i].is_zero() && self.outputs[i])
                .map(|i| self.inputs[i].clone())
                .collect();
            if !zeros.is_empty() && !ones.is_empty() {
                let prefix = if leaf.node == 0 {
                    String::new()
                } else {
                    format!("(from label {}) ", self.nodes[leaf.node].name)
                };
                defects.push(Defect::ViewDoesNotDetermineOutput {
                    view: format!("{prefix}{}", render_view(&leaf.view)),
                    zeros,
                    ones,
                });
            }
        }

        // Expected shuffles.
        let expected = self.expected_shuffles();
        for (i, e) in expected.iter().enumerate() {
            if e.is_none() {
                defects.push(Defect::NeverTerminates {
                    input: self.inputs[i].clone(),
                });
            }
        }
        let expected_max = if expected.iter().all(Option::is_some) {
            let vals: Vec<&Q> = expected.iter().flatten().collect();
            if vals.windows(2).any(|w| w[0] != w[1]) {
                notes.push(
                    "the expected number of shuffles depends on the input; the largest is reported"
                        .to_owned(),
                );
            }
            vals.into_iter().max().cloned()
        } else {
            None
        };
        let (min_shuffles, max_shuffles) = self.shuffle_bounds();

        // Runtime.
        let cyclic = (0..self.nodes.len()).any(|x| reachable[x] && reach[x][x]);
        let restarts = self
            .leaves
            .iter()
            .any(|l| l.ending == Ending::Restart && reachable[l.node] && self.positive(l));
        let runtime = if !cyclic {
            Runtime::Finite
        } else if restarts {
            Runtime::LasVegasRestart
        } else {
            Runtime::LasVegas
        };

        // Security, per observation.
        let (security, leak_defects) = self.security_level(&reachable, committed);
        let perfect = security == Security::Perfect;
        defects.extend(leak_defects);
        if open {
            notes.push(
                "non-committed: inputs must look alike only when they have the same output"
                    .to_owned(),
            );
        }

        // Leak measures.
        let mut tv_exact = None;
        let mut tv_worst = None;
        let mut mi = None;
        let mut mi_beyond = None;
        match views {
            Some(dist) => {
                let mut worst = Q::zero();
                for i in 0..k {
                    for j in (i + 1)..k {
                        if !self.alike(committed, i, j) {
                            continue;
                        }
                        let d = tv(dist, dist, i, j);
                        if d > worst || tv_worst.is_none() {
                            let zero = Q::zero();
                            let (view, pa, pb) = dist
                                .iter()
                                .map(|(v, p)| {
                                    (v, p.get(i).unwrap_or(&zero), p.get(j).unwrap_or(&zero))
                                })
                                .max_by(|x, y| (x.1 - x.2).abs().cmp(&(y.1 - y.2).abs()))
                                .map(|(v, a, b)| (render_view(v), a.to_string(), b.to_string()))
                                .unwrap_or_default();
                            tv_worst = Some(LeakWitness {
                                inputs: [self.inputs[i].clone(), self.inputs[j].clone()],
                                view,
                                probabilities: [pa, pb],
                            });
                            worst = d;
                        }
                    }
                }
                if worst.is_zero() {
                    tv_worst = None;
                }
                tv_exact = Some(worst);
                let fdist = float_views(dist);
                mi = Some(mutual_information(&fdist, &(0..k).collect::<Vec<_>>()));
                let mut beyond = 0.0;
                for o in [false, true] {
                    let class: Vec<usize> = (0..k).filter(|&i| self.outputs[i] == o).collect();
                    if !class.is_empty() {
                        beyond +=
                            class.len() as f64 / k as f64 * mutual_information(&fdist, &class);
                    }
                }
                mi_beyond = Some(if committed {
                    mi.unwrap_or(beyond)
                } else {
                    beyond
                });
            }
            None => {
                if perfect {
                    tv_exact = Some(Q::zero());
                    mi_beyond = Some(0.0);
                    if committed {
                        mi = Some(0.0);
                    } else {
                        notes.push(
                            "looping non-committed protocol: I(X;V) is not computed".to_owned(),
                        );
                    }
                } else {
                    notes.push(
                        "the leak of a looping protocol that is not perfectly secure is not quantified"
                            .to_owned(),
                    );
                }
            }
        }

        // Per-branch probabilities.
        let branches = self
            .turns
            .iter()
            .filter(|r| reachable[r.node])
            .map(|r| BranchProbability {
                node: self.nodes[r.node].name.clone(),
                at: format!("{}:{}", r.span.line, r.span.col),
                after: render_view(&r.before),
                observation: glyphs(&r.observation),
                probability: r
                    .prior
                    .iter()
                    .zip(&r.mass)
                    .map(|(p, m)| (!p.is_zero()).then(|| (m / p).to_string()))
                    .collect(),
            })
            .collect();

        let correct = !defects.iter().any(Defect::breaks_correctness);
        if self.bottom_sequences > 0 {
            notes.push(format!(
                "{} ⊥ sequences (carried by inputs with different outputs) were met",
                self.bottom_sequences
            ));
        }
        Analysis {
            name: self.name.clone(),
            function: self.function.clone(),
            cards: self.cards,
            inputs: self.inputs.clone(),
            correct,
            security,
            committed,
            runtime,
            expected_shuffles: expected_max.as_ref().map(ToString::to_string),
            expected_shuffles_per_input: expected
                .iter()
                .map(|e| e.as_ref().map(ToString::to_string))
                .collect(),
            min_shuffles,
            max_shuffles,
            tv_distance: tv_exact.as_ref().map(ToString::to_string),
            tv_distance_f64: tv_exact.as_ref().map(q_f64),
            tv_worst,
            mutual_information_bits: mi,
            leak_beyond_output_bits: mi_beyond,
            tv_from_uniform_shuffles: None,
            bottom_sequences: self.bottom_sequences,
            branches,
            errors: defects.iter().map(ToString::to_string).collect(),
            notes,
            defects,
            expected_shuffles_exact: expected_max,
            tv_distance_exact: tv_exact,
            tv_from_uniform_shuffles_exact: None,
        }
    }
}

fn better(current: Option<u64>, candidate: u64, wins: impl Fn(u64, u64) -> bool) -> bool {
    match current {
        None => true,
        Some(c) => wins(candidate, c),
    }
}

/// `I(X; V)` in bits for `X` uniform over `inputs`.
fn mutual_information(dist: &[Vec<f64>], inputs: &[usize]) -> f64 {
    let k = inputs.len() as f64;
    let mut mi = 0.0;
    for probs in dist {
        let pv = inputs.iter().map(|&i| probs[i]).sum::<f64>() / k;
        for &i in inputs {
            let px = probs[i];
            if px > 0.0 && pv > 0.0 {
                mi += px / k * (px / pv).log2();
            }
        }
    }
    mi.max(0.0)
}

/// The view distribution in `f64` (one exact-to-float conversion per entry).
fn float_views(dist: &ViewDistribution) -> Vec<Vec<f64>> {
    dist.values()
        .map(|probs| {
            probs
                .iter()
                .map(|q| if q.is_zero() { 0.0 } else { q_f64(q) })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Branch, LayoutItem, NamedFunction};

    fn perm(n: usize, s: &str) -> Perm {
        Perm::parse_cycles(n, s).expect("valid cycles")
    }

    fn a(kind: ActionKind) -> Action {
        Action::new(kind)
    }

    fn set(n: usize, perms: &[&str]) -> Action {
        a(ActionKind::Shuffle(Shuffle::Set {
            perms: perms.iter().map(|s| perm(n, s)).collect(),
            weights: None,
        }))
    }

    fn obs(s: &str) -> Vec<Symbol> {
        s.chars()
            .map(|c| Symbol::from_char(c).expect("symbol"))
            .collect()
    }

    fn turn(ps: &[usize], branches: Option<Vec<(&str, Vec<Action>)>>) -> Action {
        a(ActionKind::Turn {
            positions: ps.iter().map(|p| p - 1).collect(),
            branches: branches.map(|bs| {
                bs.into_iter()
                    .map(|(o, body)| Branch {
                        observation: obs(o),
                        body,
                        span: Span::default(),
                    })
                    .collect()
            }),
        })
    }

    fn input(name: &str, negated: bool) -> LayoutItem {
        LayoutItem::Input {
            name: name.to_owned(),
            negated,
        }
    }

    fn two_input(f: NamedFunction, layout: Vec<LayoutItem>, body: Vec<Action>) -> Protocol {
        Protocol {
            name: "test".to_owned(),
            inputs: vec!["a".to_owned(), "b".to_owned()],
            function: Function::Named(f),
            layout,
            body,
        }
    }

    fn five_card_trick() -> Protocol {
        two_input(
            NamedFunction::And,
            vec![
                input("a", true),
                LayoutItem::Card(Symbol::Heart),
                input("b", false),
            ],
            vec![
                a(ActionKind::Shuffle(Shuffle::Cut(vec![0, 1, 2, 3, 4]))),
                turn(&[1, 2, 3, 4, 5], None),
            ],
        )
    }

    fn mks(first_shuffle: bool) -> Protocol {
        let mut body = Vec::new();
        if first_shuffle {
            body.push(set(4, &["id", "(1 3)(2 4)"]));
        }
        body.push(set(4, &["id", "(2 3)"]));
        body.push(turn(
            &[2],
            Some(vec![
                ("H", vec![turn(&[1], None)]),
                ("C", vec![turn(&[4], None)]),
            ]),
        ));
        two_input(
            NamedFunction::And,
            vec![input("a", false), input("b", false)],
            body,
        )
    }

    fn q(n: i64, d: i64) -> Q {
        Q::new(BigInt::from(n), BigInt::from(d))
    }

    #[test]
    fn five_card_trick_is_correct_perfect_and_finite() {
        let an = analyze(&five_card_trick()).expect("analyzes");
        assert!(an.correct, "{:?}", an.errors);
        assert_eq!(an.security, Security::Perfect);
        assert_eq!(an.runtime, Runtime::Finite);
        assert_eq!(an.expected_shuffles.as_deref(), Some("1"));
        assert_eq!((an.min_shuffles, an.max_shuffles), (Some(1), Some(1)));
        assert!(!an.committed);
        assert!(an.errors.is_empty());
        assert_eq!(an.tv_distance.as_deref(), Some("0"));
        let mi = an.mutual_information_bits.expect("acyclic");
        let h = -(0.75f64 * 0.75f64.log2() + 0.25 * 0.25f64.log2());
        assert!(
            (mi - h).abs() < 1e-12,
            "the view reveals exactly the output"
        );
        assert!(an.leak_beyond_output_bits.expect("acyclic").abs() < 1e-12);
    }

    #[test]
    fn mks_needs_its_first_shuffle() {
        let good = analyze(&mks(true)).expect("analyzes");
        assert!(good.correct, "{:?}", good.errors);
        assert_eq!(good.security, Security::Perfect);
        assert_eq!(good.expected_shuffles.as_deref(), Some("2"));
        let bad = analyze(&mks(false)).expect("analyzes");
        assert!(bad.correct);
        assert_ne!(bad.security, Security::Perfect);
        let w = bad.tv_worst.expect("leak witness");
        assert!(bad.tv_distance_exact.expect("acyclic") > Q::zero());
        assert_eq!(w.inputs, ["01".to_owned(), "10".to_owned()]);
    }

    #[test]
    fn pitfall_1_security_is_checked_per_observation() {
        // COPY that turns its own input: pooled over the observations every input has total 1.
        let p = Protocol {
            name: "turn-the-input".to_owned(),
            inputs: vec!["a".to_owned()],
            function: Function::Copy,
            layout: vec![input("a", false), LayoutItem::Constant(false)],
            body: vec![turn(&[1], None), a(ActionKind::Result(vec![(0, 1)]))],
        };
        let ex = explore(&p, &AnalysisOptions::default()).expect("explores");
        let mut pooled = vec![Q::zero(); 2];
        for rec in &ex.turns {
            for (acc, m) in pooled.iter_mut().zip(&rec.mass) {
                *acc += m;
            }
        }
        assert_eq!(pooled[0], pooled[1], "pooling would call this secure");
        let an = ex.summarize().expect("summarizes");
        assert!(an.correct);
        assert_eq!(an.security, Security::Insecure);
        assert!(an.defects.iter().any(|d| matches!(d, Defect::Leak { .. })));
    }

    #[test]
    fn pitfall_2_shuffle_multiplies_by_the_weight() {
        let mut st = State::default();
        st.entries.insert(obs("CH"), vec![q(1, 2)]);
        st.entries.insert(obs("HC"), vec![q(1, 2)]);
        let dist = Shuffle::Set {
            perms: vec![perm(2, "id"), perm(2, "(1 2)")],
            weights: None,
        }
        .distribution(2)
        .expect("valid");
        let out = st.shuffle(&dist);
        assert_eq!(out.entries[&obs("CH")], vec![q(1, 2)]);
        assert_eq!(out.entries[&obs("HC")], vec![q(1, 2)]);
        assert_eq!(out.column_sums(1), vec![Q::one()], "never 3/2");
    }

    #[test]
    fn pitfall_3_bottom_needs_different_outputs() {
        let or = [false, true, true, true];
        assert!(!is_bottom(&[Q::zero(), q(1, 2), q(1, 2), Q::zero()], &or));
        assert!(is_bottom(&[q(1, 2), Q::zero(), Q::zero(), q(1, 2)], &or));
        let body = |swap: &str| vec![set(4, &["id", swap]), turn(&[1, 2, 3, 4], None)];
        let layout = || vec![input("a", false), input("b", false)];
        // The bisection cut makes 01 and 10 share ♥♣♣♥: both output 1 under OR, so not ⊥.
        let p = two_input(NamedFunction::Or, layout(), body("(1 3)(2 4)"));
        let an = analyze(&p).expect("analyzes");
        assert_eq!(an.bottom_sequences, 0);
        assert!(an.correct, "{:?}", an.errors);
        // Swapping inside each commitment makes 00 and 11 share rows: ⊥, and incorrect.
        let p = two_input(NamedFunction::Or, layout(), body("(1 2)(3 4)"));
        let an = analyze(&p).expect("analyzes");
        assert!(an.bottom_sequences > 0);
        assert!(!an.correct);
    }

    #[test]
    fn missing_branch_is_a_defect() {
        let p = two_input(
            NamedFunction::And,
            vec![input("a", false), input("b", false)],
            vec![turn(&[1], Some(vec![("C", vec![])]))],
        );
        let an = analyze(&p).expect("analyzes");
        assert!(!an.correct);
        assert!(an.defects.iter().any(
            |d| matches!(d, Defect::MissingBranch { observation, .. } if *observation == obs("H"))
        ));
    }

    #[test]
    fn wrong_function_is_incorrect() {
        let mut p = five_card_trick();
        p.function = Function::Named(NamedFunction::Or);
        let an = analyze(&p).expect("analyzes");
        assert!(!an.correct);
        assert!(an
            .defects
            .iter()
            .any(|d| matches!(d, Defect::ViewDoesNotDetermineOutput { .. })));
    }

    fn las_vegas() -> Protocol {
        let w = |n: i64, d: i64| q(n, d);
        let weighted = |s: &str| {
            a(ActionKind::Shuffle(Shuffle::Set {
                perms: vec![perm(4, "id"), perm(4, s)],
                weights: Some(vec![w(1, 3), w(2, 3)]),
            }))
        };
        let club = vec![
            set(4, &["id", "(1 3)"]),
            a(ActionKind::Label("SC".to_owned())),
            weighted("(1 2)(3 4)"),
            turn(
                &[4],
                Some(vec![
                    ("C", vec![a(ActionKind::Result(vec![(0, 1)]))]),
                    (
                        "H",
                        vec![
                            set(4, &["id", "(1 3)"]),
                            a(ActionKind::Perm(perm(4, "(1 3 4 2)"))),
                            a(ActionKind::Goto("SH".to_owned())),
                        ],
                    ),
                ]),
            ),
        ];
        let heart = vec![
            set(4, &["id", "(3 4)"]),
            a(ActionKind::Label("SH".to_owned())),
            weighted("(1 3)(2 4)"),
            turn(
                &[1],
                Some(vec![
                    ("H", vec![a(ActionKind::Result(vec![(1, 3)]))]),
                    (
                        "C",
                        vec![
                            set(4, &["id", "(3 4)"]),
                            a(ActionKind::Perm(perm(4, "(1 2 4 3)"))),
                            a(ActionKind::Goto("SC".to_owned())),
                        ],
                    ),
                ]),
            ),
        ];
        two_input(
            NamedFunction::And,
            vec![input("a", false), input("b", false)],
            vec![
                set(4, &["id", "(1 3)(2 4)"]),
                set(4, &["id", "(2 3)"]),
                turn(&[2], Some(vec![("C", club), ("H", heart)])),
            ],
        )
    }

    #[test]
    fn las_vegas_and_needs_eight_shuffles_in_expectation() {
        let an = analyze(&las_vegas()).expect("analyzes");
        assert!(an.correct, "{:?}", an.errors);
        assert_eq!(an.security, Security::Perfect);
        assert_eq!(an.runtime, Runtime::LasVegas);
        assert_eq!(an.expected_shuffles.as_deref(), Some("8"));
        assert_eq!(an.max_shuffles, None);
        assert_eq!(an.min_shuffles, Some(4));
        for b in an.branches.iter().filter(|b| b.node != "start") {
            let want = if b.observation == "♣" && b.node == "SC"
                || b.observation == "♥" && b.node == "SH"
            {
                "1/3"
            } else {
                "2/3"
            };
            assert!(
                b.probability.iter().all(|p| p.as_deref() == Some(want)),
                "{b:?}"
            );
        }
    }

    #[test]
    fn inconsistent_loop_is_a_defect() {
        // The loop re-enters its label after a public swap: the state differs.
        let p = Protocol {
            name: "bad-loop".to_owned(),
            inputs: vec!["a".to_owned()],
            function: Function::Copy,
            layout: vec![input("a", false), LayoutItem::Constant(false)],
            body: vec![
                a(ActionKind::Label("L".to_owned())),
                set(4, &["id", "(3 4)"]),
                turn(
                    &[3],
                    Some(vec![
                        ("C", vec![a(ActionKind::Result(vec![(0, 1)]))]),
                        (
                            "H",
                            vec![
                                a(ActionKind::Perm(perm(4, "(1 2)"))),
                                a(ActionKind::Goto("L".to_owned())),
                            ],
                        ),
                    ]),
                ),
            ],
        };
        let an = analyze(&p).expect("analyzes");
        assert!(!an.correct);
        assert!(an
            .defects
            .iter()
            .any(|d| matches!(d, Defect::LoopInconsistent { label, .. } if label == "L")));
    }

    #[test]
    fn bad_positions_and_labels_are_typed_errors() {
        let p = two_input(
            NamedFunction::And,
            vec![input("a", false), input("b", false)],
            vec![turn(&[5], None)],
        );
        assert!(matches!(
            analyze(&p),
            Err(AnalysisError::Position { position: 5, .. })
        ));
        let p = two_input(
            NamedFunction::And,
            vec![input("a", false), input("b", false)],
            vec![a(ActionKind::Goto("nowhere".to_owned()))],
        );
        assert!(matches!(
            analyze(&p),
            Err(AnalysisError::UnknownLabel { .. })
        ));
        let p = two_input(
            NamedFunction::And,
            vec![input("a", false), input("c", false)],
            vec![],
        );
        assert!(matches!(analyze(&p), Err(AnalysisError::Layout(_))));
    }

    #[test]
    fn state_limit_is_a_typed_error() {
        let opts = AnalysisOptions {
            max_sequences: 4,
            ..AnalysisOptions::default()
        };
        assert!(matches!(
            analyze_with(&five_card_trick(), &opts),
            Err(AnalysisError::TooManySequences { .. })
        ));
    }
}
