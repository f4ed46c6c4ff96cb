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
//! | `shuffle (Π, F)` | `Σ_{π∈Π} F(π) · state[s]` accumulated at `π(s)` (the mass of `s` is *multiplied* by `F(π)`, never added to: see pitfall 2 below) |
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
//! In the private model these figures describe the public view. Each player `p` also gets his
//! own ([`Analysis::players`]), from the view he alone has (the public view with his private
//! draws and looks): the largest distance over the pairs of inputs he must not tell apart
//! (his bit the same, and the output too for non-committed endings), exact, and
//! `I(X; V_p | X_p, f(X))` in bits, a float from the exact probabilities, which conditions on
//! his own input as well, since he knows it. A protocol whose public view is perfect can leak
//! to one player: the five-card trick cut privately by Alice shows her `b`.
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
//! # Three pitfalls, each a test
//!
//! 1. A security check that pools the observations of a turn always passes (every input's
//!    total is 1); it must compare inputs within each observation.
//! 2. A shuffle accumulates `F(π) · state[s]` at `π(s)`; adding `F(π)` to the mass instead can
//!    give a probability of 3/2.
//! 3. A sequence is ⊥ only when inputs with *different* outputs share it.
//!
//! # The code
//!
//! | module | concern |
//! |---|---|
//! | [`state`] | the state algebra: [`State`] and how each action acts on it |
//! | `walk` | the exact semantics run by the [interpreter](crate::interpret): leaves, turn records, the state tree ([`explore`]) |
//! | `views` | every distinct view of a walk, once: the ids the records and the grouping use |
//! | `each_view` | every player's view of a protocol with private outcomes, from one walk |
//! | `verdict` | correctness, security per observation, runtime, expected shuffles ([`Exploration::summarize`]) |
//! | `leakage` | the view distribution, total variation, mutual information, the distance from uniform shuffles |
//! | `defect` | [`Defect`]: what is wrong with a protocol |
//!
//! [`Analysis`] keeps every number exact; its JSON writes rationals as strings (`"15/2"`) and
//! adds rounded floats where the old reports had them. The text form is
//! [`crate::print::analysis_text`].
//!
//! # ⊥
//!
//! A sequence is ⊥ when inputs with **different** outputs both carry mass on it (pitfall 3: a
//! sequence carried only by inputs with the same output is not ⊥). From a ⊥ sequence no later
//! observation can separate those inputs, so every ending reached from it is wrong for one of
//! them (unless it restarts). ⊥ sequences are counted and marked in the state tree; correctness
//! itself is judged at the endings.

mod defect;
mod each_view;
mod endings;
pub mod exact;
mod leakage;
pub mod state;
mod verdict;
mod views;
mod walk;

use facedown_core::Symbol;
use serde::ser::{Serialize, Serializer};

pub use defect::Defect;
pub use endings::Endings;
pub use exact::{Arithmetic, Exact};
pub use leakage::{q_f64, uniformized, PlayerLeak, ViewDistribution};
pub use state::{is_bottom, State};
pub use verdict::{Runtime, Security};
pub use views::{ViewId, Views};
pub use walk::{
    explore, explore_as, Ending, Exploration, Leaf, Node, StateTree, TreeEdge, TreeVertex,
    TurnRecord,
};

pub use crate::model::Observation;
use crate::model::{Function, Span, Q};
use crate::print::{glyphs, render_view};
use crate::protocol::Protocol;
pub use crate::protocol::Sequence;

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
    /// The analysis's arithmetic (states, masses, verdict and leak measures):
    /// [`Arithmetic::Small`] (the default) is machine integers falling back to big rationals on
    /// overflow; [`Arithmetic::Big`] is big rationals throughout. Both give the same numbers.
    pub arithmetic: Arithmetic,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            max_sequences: 1 << 20,
            max_paths: 1 << 20,
            max_views: 1 << 20,
            max_shuffle_work: 1 << 26,
            record_tree: false,
            arithmetic: Arithmetic::Small,
        }
    }
}

/// Why the analyzer could not finish: a limit of [`AnalysisOptions`] was exceeded.
///
/// A [`Protocol`] is well-formed by construction; its defects (incorrect, insecure, missing
/// branch, inconsistent loop) are not errors but findings, reported in [`Analysis::defects`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
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
    /// A private permutation is chosen by a bit that no action on this path named (it was
    /// named in a branch the path did not take).
    #[error("line {}, col {}: `by {bit}`: the bit is not known on every path that reaches here", .span.line, .span.col)]
    UnboundPrivateBit {
        /// The private permutation.
        span: Span,
        /// The bit's name.
        bit: String,
    },
    /// Arrivals at one label brought more than [`MAX_LABEL_STATES`] different states (a loop
    /// whose state keeps changing).
    #[error("label `{label}` is reached in more than {MAX_LABEL_STATES} different states")]
    TooManyLabelStates {
        /// The label.
        label: String,
    },
}

/// The most different states the analysis follows from one label (the first is the one the
/// format asks every arrival to bring; the others are defects, followed so that the verdict
/// stays exact).
pub const MAX_LABEL_STATES: usize = 64;

/// The per-branch probabilities of one turn's observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchProbability {
    /// `start` or the label whose segment contains the turn.
    pub node: String,
    /// The turn (or the `result` whose basis is observed).
    pub span: Span,
    /// What was seen earlier in the segment.
    pub after: Vec<Observation>,
    /// The observation.
    pub observation: Vec<Symbol>,
    /// Per input, `Pr[observation | reached the turn, input]` (`None` when the input cannot
    /// reach the turn).
    pub probability: Vec<Option<Q>>,
}

/// The worst pair of a leak.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeakWitness {
    /// The two inputs.
    pub inputs: [String; 2],
    /// The view whose probabilities differ most.
    pub view: Vec<Observation>,
    /// Its probability under each input.
    pub probabilities: [Q; 2],
}

/// A remark of the analysis that is not a defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// Some ending is non-committed, so only inputs with the same output must look alike.
    NonCommitted,
    /// The expected number of shuffles differs between inputs (the largest is reported).
    ExpectedShufflesDependOnInput,
    /// A looping non-committed protocol: `I(X; V)` is not computed.
    LoopingNonCommittedInformation,
    /// A looping protocol that is not perfectly secure: its leak is not quantified.
    LoopingLeakNotQuantified,
    /// This many ⊥ sequences were met.
    BottomSequences(usize),
    /// A looping protocol with mixed endings: what its committed endings reveal is not checked
    /// beyond the per-observation check.
    LoopingMixedEndings,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Note::NonCommitted => f.write_str(
                "non-committed: inputs must look alike only when they have the same output",
            ),
            Note::ExpectedShufflesDependOnInput => f.write_str(
                "the expected number of shuffles depends on the input; the largest is reported",
            ),
            Note::LoopingNonCommittedInformation => {
                f.write_str("looping non-committed protocol: I(X;V) is not computed")
            }
            Note::LoopingLeakNotQuantified => f.write_str(
                "the leak of a looping protocol that is not perfectly secure is not quantified",
            ),
            Note::BottomSequences(n) => write!(
                f,
                "{n} ⊥ sequences (carried by inputs with different outputs) were met"
            ),
            Note::LoopingMixedEndings => f.write_str(
                "looping protocol with mixed endings: its committed endings are checked per \
                 observation only",
            ),
        }
    }
}

/// The analyzer's verdict on a protocol, every number exact (its JSON is the output of
/// `facedown cards analyze --json`).
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// From the header.
    pub name: String,
    /// From the header.
    pub function: Function,
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
    /// Which kinds of ending are reachable: all committed, none, or both (see
    /// [`Endings`]; a mixed protocol's committed endings must reveal nothing).
    pub endings: Endings,
    /// The runtime class.
    pub runtime: Runtime,
    /// Exact expected number of shuffles (the largest over inputs if they differ); `None` when
    /// the protocol may not terminate.
    pub expected_shuffles: Option<Q>,
    /// Exact expected number of shuffles per input.
    pub expected_shuffles_per_input: Vec<Option<Q>>,
    /// Fewest shuffles of a run that ends.
    pub min_shuffles: Option<u64>,
    /// Most shuffles of a run; `None` when unbounded.
    pub max_shuffles: Option<u64>,
    /// Largest total-variation distance between the views of two inputs that must look alike;
    /// `None` when not computed (looping protocols that are not perfectly secure). In the
    /// private model this is the public view's; each player's own is in
    /// [`Analysis::players`].
    pub tv_distance: Option<Q>,
    /// The worst pair and view (`None` when nothing leaks).
    pub tv_worst: Option<LeakWitness>,
    /// `I(X; V)` for uniform inputs, in bits.
    pub mutual_information_bits: Option<f64>,
    /// `I(X; V | f(X))`, in bits: what the view reveals beyond the output.
    pub leak_beyond_output_bits: Option<f64>,
    /// For protocols with non-uniform shuffles that are not perfectly secure but become so with
    /// every shuffle made uniform on its support: the largest over inputs of the total-variation
    /// distance between the view and the view under uniform shuffles (Kim–Cetinkaya).
    pub tv_from_uniform_shuffles: Option<Q>,
    /// In the private model (some action is private), what each player's own view reveals,
    /// in the order of the inputs (empty in the public model).
    pub players: Vec<PlayerLeak>,
    /// Number of ⊥ sequences met in the states explored.
    pub bottom_sequences: usize,
    /// Per-branch probabilities.
    pub branches: Vec<BranchProbability>,
    /// What is wrong; empty when correct and perfectly secure.
    pub defects: Vec<Defect>,
    /// Remarks that are not defects.
    pub notes: Vec<Note>,
    /// The arithmetic the analysis used ([`AnalysisOptions::arithmetic`]; `big` also when the
    /// small path overflowed and fell back). It changes the time, never a number.
    pub arithmetic: Arithmetic,
}

impl Analysis {
    /// The defects as sentences (the JSON's `errors`).
    pub fn errors(&self) -> Vec<String> {
        self.defects.iter().map(ToString::to_string).collect()
    }
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
    let tracker = exact::Tracker::start(opts.arithmetic);
    let (ex, players) = if protocol.has_private_actions() {
        let (public, players) = each_view::explore_each_view(protocol, opts)?;
        (public, Some(players))
    } else {
        (explore(protocol, opts)?, None)
    };
    let views = ex.exact_view_distribution()?;
    let mut analysis = ex.summarize_exact(views.as_ref());
    if let Some(players) = players {
        each_player(&players, protocol.has_private_observations(), &mut analysis)?;
    }
    if analysis.security != Security::Perfect {
        analysis.tv_from_uniform_shuffles =
            leakage::distance_from_uniform_shuffles(protocol, &ex, views.as_ref(), opts)?;
    }
    analysis.arithmetic = tracker.used();
    Ok(analysis)
}

/// In the private model every player's view (`players`, one exploration each, all from one
/// walk: see `each_view`) has its leak measures recorded in [`Analysis::players`]. With
/// private draws or looks the players' views differ, and each is also judged against the
/// inputs he cannot tell apart: the security level is then the weakest over the players, and
/// the leaks are theirs (the public view is part of every player's, so its leaks are among
/// them). With private permutations only, every player sees the public view, and its verdict
/// stands.
/// `judged`: whether the protocol has private draws or looks.
fn each_player(
    players: &[Exploration],
    judged: bool,
    analysis: &mut Analysis,
) -> Result<(), AnalysisError> {
    if judged {
        analysis.defects.retain(|d| !d.is_leak());
    }
    let mut security = Security::Perfect;
    for ex in players {
        let (level, leaks) = ex.viewer_security();
        let name = ex.players[ex.viewer.unwrap_or_default()].clone();
        analysis
            .players
            .push(ex.player_leak(&name, level == Security::Perfect)?);
        if judged {
            security = security.max(level);
            analysis.defects.extend(leaks);
        }
    }
    if judged {
        analysis.security = security;
    }
    Ok(())
}

/// `q` as the JSON writes it.
fn text(q: &Q) -> String {
    q.to_string()
}

#[derive(serde::Serialize)]
struct BranchJson {
    node: String,
    at: String,
    after: String,
    observation: String,
    probability: Vec<Option<String>>,
}

#[derive(serde::Serialize)]
struct WitnessJson<'a> {
    inputs: &'a [String; 2],
    view: String,
    probabilities: [String; 2],
}

impl<'a> WitnessJson<'a> {
    fn of(w: &'a LeakWitness) -> WitnessJson<'a> {
        WitnessJson {
            inputs: &w.inputs,
            view: render_view(&w.view),
            probabilities: [text(&w.probabilities[0]), text(&w.probabilities[1])],
        }
    }
}

/// One player's leak measures in the JSON: the distance exact (a string) with its float, the
/// information in bits (floats).
#[derive(serde::Serialize)]
struct PlayerJson<'a> {
    player: &'a str,
    tv_distance: Option<String>,
    tv_distance_f64: Option<f64>,
    tv_worst: Option<WitnessJson<'a>>,
    mutual_information_bits: Option<f64>,
    leak_bits: Option<f64>,
}

impl<'a> PlayerJson<'a> {
    fn of(p: &'a PlayerLeak) -> PlayerJson<'a> {
        PlayerJson {
            player: &p.player,
            tv_distance: p.tv_distance.as_ref().map(text),
            tv_distance_f64: p.tv_distance.as_ref().map(leakage::q_f64),
            tv_worst: p.tv_worst.as_ref().map(WitnessJson::of),
            mutual_information_bits: p.mutual_information_bits,
            leak_bits: p.leak_bits,
        }
    }
}

#[derive(serde::Serialize)]
struct AnalysisJson<'a> {
    name: &'a str,
    function: String,
    cards: usize,
    inputs: &'a [String],
    correct: bool,
    security: Security,
    committed: bool,
    endings: Endings,
    outputs: Vec<crate::model::OutputSummary>,
    runtime: Runtime,
    expected_shuffles: Option<String>,
    expected_shuffles_per_input: Vec<Option<String>>,
    min_shuffles: Option<u64>,
    max_shuffles: Option<u64>,
    tv_distance: Option<String>,
    tv_distance_f64: Option<f64>,
    tv_worst: Option<WitnessJson<'a>>,
    mutual_information_bits: Option<f64>,
    leak_beyond_output_bits: Option<f64>,
    tv_from_uniform_shuffles: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    players: Vec<PlayerJson<'a>>,
    bottom_sequences: usize,
    branches: Vec<BranchJson>,
    errors: Vec<String>,
    notes: Vec<String>,
    arithmetic: Arithmetic,
}

impl Serialize for Analysis {
    /// Rationals as strings in lowest terms, with `tv_distance_f64` beside the exact distance,
    /// defects as the sentences of `errors`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let branches = self
            .branches
            .iter()
            .map(|b| BranchJson {
                node: b.node.clone(),
                at: format!("{}:{}", b.span.line, b.span.col),
                after: render_view(&b.after),
                observation: glyphs(&b.observation),
                probability: b.probability.iter().map(|p| p.as_ref().map(text)).collect(),
            })
            .collect();
        AnalysisJson {
            name: &self.name,
            function: self.function.to_string(),
            cards: self.cards,
            inputs: &self.inputs,
            correct: self.correct,
            security: self.security,
            committed: self.committed,
            endings: self.endings,
            outputs: self.function.summary(),
            runtime: self.runtime,
            expected_shuffles: self.expected_shuffles.as_ref().map(text),
            expected_shuffles_per_input: self
                .expected_shuffles_per_input
                .iter()
                .map(|e| e.as_ref().map(text))
                .collect(),
            min_shuffles: self.min_shuffles,
            max_shuffles: self.max_shuffles,
            tv_distance: self.tv_distance.as_ref().map(text),
            tv_distance_f64: self.tv_distance.as_ref().map(leakage::q_f64),
            tv_worst: self.tv_worst.as_ref().map(WitnessJson::of),
            mutual_information_bits: self.mutual_information_bits,
            leak_beyond_output_bits: self.leak_beyond_output_bits,
            tv_from_uniform_shuffles: self.tv_from_uniform_shuffles.as_ref().map(text),
            players: self.players.iter().map(PlayerJson::of).collect(),
            bottom_sequences: self.bottom_sequences,
            branches,
            errors: self.errors(),
            notes: self.notes.iter().map(ToString::to_string).collect(),
            arithmetic: self.arithmetic,
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Action, ActionKind, Branch, LayoutItem, NamedFunction, Shuffle};
    use crate::protocol::{ProtocolError, ProtocolParts};
    use facedown_core::Perm;
    use num_bigint::BigInt;
    use num_traits::Zero;

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

    fn parts(
        inputs: &[&str],
        function: Function,
        layout: Vec<LayoutItem>,
        body: Vec<Action>,
    ) -> ProtocolParts {
        ProtocolParts {
            name: "test".to_owned(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            function,
            layout,
            body,
            claim: None,
        }
    }

    fn protocol(parts: ProtocolParts) -> Protocol {
        Protocol::new(parts).expect("a valid protocol")
    }

    fn two_input(f: NamedFunction, layout: Vec<LayoutItem>, body: Vec<Action>) -> Protocol {
        protocol(parts(&["a", "b"], Function::Named(f), layout, body))
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
        assert!(an.correct, "{:?}", an.errors());
        assert_eq!(an.security, Security::Perfect);
        assert_eq!(an.runtime, Runtime::Finite);
        assert_eq!(an.expected_shuffles, Some(q(1, 1)));
        assert_eq!((an.min_shuffles, an.max_shuffles), (Some(1), Some(1)));
        assert!(!an.committed);
        assert!(an.defects.is_empty());
        assert_eq!(an.tv_distance, Some(Q::zero()));
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
        assert!(good.correct, "{:?}", good.errors());
        assert_eq!(good.security, Security::Perfect);
        assert_eq!(good.expected_shuffles, Some(q(2, 1)));
        let bad = analyze(&mks(false)).expect("analyzes");
        assert!(bad.correct);
        assert_ne!(bad.security, Security::Perfect);
        let w = bad.tv_worst.expect("leak witness");
        assert!(bad.tv_distance.expect("acyclic") > Q::zero());
        assert_eq!(w.inputs, ["01".to_owned(), "10".to_owned()]);
    }

    #[test]
    fn pitfall_1_security_is_checked_per_observation() {
        // COPY that turns its own input: pooled over the observations every input has total 1.
        let p = protocol(parts(
            &["a"],
            Function::Copy,
            vec![input("a", false), LayoutItem::Constant(false)],
            vec![turn(&[1], None), a(ActionKind::Result(vec![(0, 1)]))],
        ));
        let ex = explore(&p, &AnalysisOptions::default()).expect("explores");
        let mut pooled = vec![Exact::zero(); 2];
        for rec in &ex.turns {
            for (acc, m) in pooled.iter_mut().zip(rec.mass.iter()) {
                *acc = &*acc + m;
            }
        }
        assert_eq!(pooled[0], pooled[1], "pooling would call this secure");
        let an = ex.summarize().expect("summarizes");
        assert!(an.correct);
        assert_eq!(an.security, Security::Insecure);
        assert!(an.defects.iter().any(|d| matches!(d, Defect::Leak { .. })));
    }

    #[test]
    fn pitfall_3_bottom_needs_different_outputs() {
        let body = |swap: &str| vec![set(4, &["id", swap]), turn(&[1, 2, 3, 4], None)];
        let layout = || vec![input("a", false), input("b", false)];
        // The bisection cut makes 01 and 10 share ♥♣♣♥: both output 1 under OR, so not ⊥.
        let p = two_input(NamedFunction::Or, layout(), body("(1 3)(2 4)"));
        let an = analyze(&p).expect("analyzes");
        assert_eq!(an.bottom_sequences, 0);
        assert!(an.correct, "{:?}", an.errors());
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
        let mut or = five_card_trick().into_parts();
        or.function = Function::Named(NamedFunction::Or);
        let an = analyze(&protocol(or)).expect("analyzes");
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
        assert!(an.correct, "{:?}", an.errors());
        assert_eq!(an.security, Security::Perfect);
        assert_eq!(an.runtime, Runtime::LasVegas);
        assert_eq!(an.expected_shuffles, Some(q(8, 1)));
        assert_eq!(an.max_shuffles, None);
        assert_eq!(an.min_shuffles, Some(4));
        for b in an.branches.iter().filter(|b| b.node != "start") {
            let want = if b.observation == obs("C") && b.node == "SC"
                || b.observation == obs("H") && b.node == "SH"
            {
                "1/3"
            } else {
                "2/3"
            };
            let want: Q = want.parse().expect("a fraction");
            assert!(
                b.probability.iter().all(|p| p.as_ref() == Some(&want)),
                "{b:?}"
            );
        }
    }

    #[test]
    fn inconsistent_loop_is_a_defect() {
        // The loop re-enters its label after a public swap: the state differs.
        let p = protocol(parts(
            &["a"],
            Function::Copy,
            vec![input("a", false), LayoutItem::Constant(false)],
            vec![
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
        ));
        let an = analyze(&p).expect("analyzes");
        assert!(!an.correct);
        assert!(an
            .defects
            .iter()
            .any(|d| matches!(d, Defect::LoopInconsistent { label, .. } if label == "L")));
    }

    #[test]
    fn bad_positions_and_labels_are_protocol_errors() {
        let ab = || vec![input("a", false), input("b", false)];
        let and = || Function::Named(NamedFunction::And);
        assert!(matches!(
            Protocol::new(parts(&["a", "b"], and(), ab(), vec![turn(&[5], None)])),
            Err(ProtocolError::Position { position: 5, .. })
        ));
        let goto = a(ActionKind::Goto("nowhere".to_owned()));
        assert!(matches!(
            Protocol::new(parts(&["a", "b"], and(), ab(), vec![goto])),
            Err(ProtocolError::UndefinedLabel { .. })
        ));
        let ac = vec![input("a", false), input("c", false)];
        assert!(matches!(
            Protocol::new(parts(&["a", "b"], and(), ac, vec![])),
            Err(ProtocolError::UndeclaredInput(_))
        ));
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
