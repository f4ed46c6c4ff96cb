//! The exact semantics: the interpreter ([`crate::interpret`]) walks the protocol, and each
//! action acts on the KWH state of the path ([`super::state`]). The walk records what the
//! verdict and the leak measures need: the leaves of every segment, every (turn, observation)
//! reached with its per-input masses, the defects met on the way and, on request, the state
//! tree.

use facedown_core::{Perm, Symbol};
use num_traits::{One, Zero};

use super::defect::Defect;
use super::exact::{Arithmetic, Exact as X, Tracker};
use super::state::{times, State};
use super::views::{ViewId, Views};
use super::{AnalysisError, AnalysisOptions};
use crate::distribution::Distribution;
use crate::interpret::{Branching, Entry, Flow, Semantics};
use crate::model::{decode_bit, decode_number, decode_one_card, result_basis, Span, Q};
use crate::print::glyphs;
use crate::protocol::{Chooser, LabelId, PrivateBit, Protocol, Site};

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

/// Per input, a probability. Shared: a path's masses are also its turn records' and its
/// leaf's, and every player's view of a walk holds the same ones.
pub type Masses = std::sync::Arc<[X]>;

/// A path through one segment.
#[derive(Clone, Debug)]
pub struct Leaf {
    /// The node the segment starts at.
    pub node: usize,
    /// What was seen along the path (in [`Exploration::views`]).
    pub view: ViewId,
    /// Per input, the probability of this path from the node.
    pub mass: Masses,
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
    /// What was seen before, in this segment (in [`Exploration::views`]).
    pub before: ViewId,
    /// The observation (shared by every player's view of the record).
    pub observation: std::sync::Arc<[Symbol]>,
    /// The view with the observation, `before` followed by it. Two records of a segment
    /// with the same `after` are the same turn, observation and view before.
    pub after: ViewId,
    /// Per input, the probability of reaching the turn (from the node).
    pub prior: Masses,
    /// Per input, the probability of reaching the turn and seeing the observation.
    pub mass: Masses,
    /// Whether this is no turn but the basis of a `result` outside the two colours, split off as an
    /// observation because it varies within the state (see the [module docs](super)); the
    /// observation is then the bases of the result's pairs, lower card first.
    pub result_basis: bool,
}

impl TurnRecord {
    /// What `path` (before the turn) records when turn `span` shows `observation`: its view
    /// becomes `after` and its masses `mass`.
    fn of(path: &Path, span: Span, observation: &[Symbol], after: ViewId, mass: &Masses) -> Self {
        TurnRecord {
            node: path.node,
            span,
            before: path.view,
            observation: observation.into(),
            after,
            prior: path.mass.clone(),
            mass: mass.clone(),
            result_basis: false,
        }
    }
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
#[derive(Clone, Debug, PartialEq)]
pub struct TreeVertex {
    /// The state after the incoming edge's action.
    pub state: State,
    /// Per input, the probability of reaching this vertex from its segment's node.
    pub mass: Vec<Q>,
    /// What the vertex is (`start`, `label L`, `result 5 6`, `end`, …).
    pub kind: String,
}

/// An edge of the recorded state tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeEdge {
    /// Source vertex.
    pub from: usize,
    /// Target vertex.
    pub to: usize,
    /// The action (and observation) that leads from `from` to `to`.
    pub label: String,
}

/// The KWH state tree as a graph (loops are edges back to label vertices).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateTree {
    /// Vertices.
    pub vertices: Vec<TreeVertex>,
    /// Edges.
    pub edges: Vec<TreeEdge>,
}

/// Everything the exploration found, before it is summarised into an [`super::Analysis`].
#[derive(Clone, Debug)]
pub struct Exploration {
    /// The protocol's name.
    pub name: String,
    /// The function, as written.
    pub function: crate::model::Function,
    /// Number of cards.
    pub cards: usize,
    /// The input assignments as bit strings, first input first (`00`, `01`, …).
    pub inputs: Vec<String>,
    /// The joint output value per input ([`crate::model::Value`]: for one output, `f(input)`
    /// as 0 or 1).
    pub outputs: Vec<crate::model::Value>,
    /// The segment graph's nodes; node 0 is the start.
    pub nodes: Vec<Node>,
    /// Every distinct view of the walk: the leaves' and the records' views are ids into it.
    pub views: Views,
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
    /// In the private model (the protocol has a `private` action): the players, one per input
    /// (the holder of input `k` is named after it). Security is then judged per player. Empty
    /// in the public model, where every pair of inputs that must look alike does.
    pub players: Vec<String>,
    /// Whose view the exploration built: `None` for what everyone sees (the public view),
    /// `Some(p)` for player `p`'s (the public view with what he drew and saw privately). The
    /// security check then judges only the inputs that `viewer` cannot tell apart.
    pub viewer: Option<usize>,
    /// Whether some private outcome was left out of the view (another player's draw or look):
    /// paths then share views, and the security check adds their records up.
    pub(super) hidden_outcomes: bool,
    pub(super) max_views: usize,
    /// Which arithmetic the states used: small integers throughout, or big rationals (asked
    /// for, or after an overflow).
    pub arithmetic: Arithmetic,
}

/// Explores a protocol: walks every segment and records what it finds, with the public view.
pub fn explore(protocol: &Protocol, opts: &AnalysisOptions) -> Result<Exploration, AnalysisError> {
    explore_as(protocol, opts, None)
}

/// Explores a protocol with the view of `viewer` (`None`: the public view; `Some(p)`: the
/// holder of input `p`, who also sees his private draws and looks).
pub fn explore_as(
    protocol: &Protocol,
    opts: &AnalysisOptions,
    viewer: Option<usize>,
) -> Result<Exploration, AnalysisError> {
    walk_views(protocol, opts, viewer, false).map(|(ex, _)| ex)
}

/// The walk behind [`explore_as`]. With `every`, the views hold every private outcome, and
/// the returned [`Holders`] say whose each is (see [`super::each_view`]).
pub(super) fn walk_views(
    protocol: &Protocol,
    opts: &AnalysisOptions,
    viewer: Option<usize>,
    every: bool,
) -> Result<(Exploration, Holders), AnalysisError> {
    let arithmetic = Tracker::start(opts.arithmetic);
    let k = protocol.input_count();
    let mut exact = Exact {
        protocol,
        k,
        opts,
        nodes: Vec::new(),
        node_of: vec![Vec::new(); protocol.labels().len()],
        leaves: Vec::new(),
        turns: Vec::new(),
        defects: Vec::new(),
        bottom: 0,
        tree: opts.record_tree.then(StateTree::default),
        pending: Vec::new(),
        bases: Vec::new(),
        viewer,
        hidden_outcomes: false,
        holders: every.then(Holders::default),
        views: Views::default(),
    };
    let start = State::start(
        &(0..k)
            .map(|i| protocol.start_row(i).clone())
            .collect::<Vec<_>>(),
    );
    let vertex = exact.add_vertex(&start, &vec![X::one(); k], "start".to_owned());
    exact.nodes.push(Node {
        name: "start".to_owned(),
        state: start,
        tree_vertex: vertex,
    });
    exact.pending.push((0, Entry::Start));
    while let Some((node, entry)) = exact.pending.pop() {
        let state = exact.nodes[node].state.clone();
        let mass = state
            .column_sums(k)
            .iter()
            .map(|s| if s.is_zero() { X::zero() } else { X::one() })
            .collect();
        let path = Path {
            node,
            state,
            view: ViewId::EMPTY,
            mass,
            shuffles: 0,
            vertex: exact.nodes[node].tree_vertex,
            followed: None,
            bits: vec![None; protocol.private_bit_count()],
        };
        protocol.interpret(&mut exact, entry, path)?;
    }
    exact.basis_defects();
    let holders = exact.holders.take().unwrap_or_default();
    let ex = Exploration {
        name: protocol.name().to_owned(),
        function: protocol.function().clone(),
        cards: protocol.cards(),
        inputs: protocol.input_labels().to_vec(),
        outputs: protocol.values().to_vec(),
        nodes: exact.nodes,
        views: exact.views,
        leaves: exact.leaves,
        turns: exact.turns,
        defects: exact.defects,
        bottom_sequences: exact.bottom,
        tree: exact.tree,
        players: if protocol.has_private_actions() {
            protocol.inputs().to_vec()
        } else {
            Vec::new()
        },
        viewer,
        hidden_outcomes: exact.hidden_outcomes,
        max_views: opts.max_views,
        arithmetic: arithmetic.used(),
    };
    Ok((ex, holders))
}

/// Who made the private outcomes of a walk that kept every one of them in its views (who saw
/// each observation of a view is in the [`Views`] table itself).
#[derive(Clone, Debug, Default)]
pub(super) struct Holders {
    /// Per turn record: whose outcome it records (`None`: a public one).
    pub(super) turns: Vec<Option<usize>>,
    /// The players who made a private draw or look on some path.
    pub(super) outcomes_of: Vec<usize>,
}

/// One path of the exact walk.
pub(crate) struct Path {
    node: usize,
    state: State,
    view: ViewId,
    mass: Masses,
    shuffles: u64,
    vertex: Option<usize>,
    /// For a path just made by a turn: its record and, when the tree is recorded, its tree
    /// edge's label, kept until the interpreter follows it (so that records come in the order
    /// the paths are explored).
    followed: Option<(TurnRecord, Option<String>)>,
    /// The private bits known on this path (`None`: not named on it).
    bits: Vec<Option<bool>>,
}

/// The bases a `result` pair met over every arrival at the action.
struct ResultBases {
    action: usize,
    span: Span,
    pair: (usize, usize),
    seen: Vec<[Symbol; 2]>,
}

/// The exact semantics and what it has recorded so far.
struct Exact<'p> {
    protocol: &'p Protocol,
    k: usize,
    opts: &'p AnalysisOptions,
    nodes: Vec<Node>,
    /// Per label, the nodes recorded there (more than one only when arrivals disagree).
    node_of: Vec<Vec<usize>>,
    leaves: Vec<Leaf>,
    turns: Vec<TurnRecord>,
    defects: Vec<Defect>,
    bottom: usize,
    tree: Option<StateTree>,
    /// Segments still to explore (a stack).
    pending: Vec<(usize, Entry)>,
    /// Per `result` action and pair: the bases met over every arrival, in order of first
    /// arrival (the standard-deck basis rule).
    bases: Vec<ResultBases>,
    /// Whose view the paths carry (see [`Exploration::viewer`]).
    viewer: Option<usize>,
    /// Whether a private outcome was left out of a view.
    hidden_outcomes: bool,
    /// When every view is kept: whose each outcome is.
    holders: Option<Holders>,
    /// Every view met so far.
    views: Views,
}

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

impl Exact<'_> {
    fn add_vertex(&mut self, state: &State, mass: &[X], kind: String) -> Option<usize> {
        let tree = self.tree.as_mut()?;
        tree.vertices.push(TreeVertex {
            state: state.clone(),
            mass: mass.iter().map(X::to_q).collect(),
            kind,
        });
        Some(tree.vertices.len() - 1)
    }

    fn add_edge(&mut self, from: Option<usize>, to: Option<usize>, label: String) {
        if let (Some(tree), Some(from), Some(to)) = (self.tree.as_mut(), from, to) {
            tree.edges.push(TreeEdge { from, to, label });
        }
    }

    fn step_vertex(&mut self, path: &mut Path, label: impl FnOnce() -> String, kind: &str) {
        if self.tree.is_some() {
            let v = self.add_vertex(&path.state, &path.mass, kind.to_owned());
            self.add_edge(path.vertex, v, label());
            path.vertex = v;
        }
    }

    fn leaf(&mut self, path: Path, ending: Ending) -> Result<(), AnalysisError> {
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

    /// Records a turn (or a basis, or a private outcome of `holder`).
    fn record(&mut self, rec: TurnRecord, holder: Option<usize>) {
        if let Some(h) = self.holders.as_mut() {
            h.turns.push(holder);
        }
        self.turns.push(rec);
    }

    /// The view `before` followed by what turn `span` showed everyone.
    fn public_after(&mut self, before: ViewId, span: Span, symbols: &[Symbol]) -> ViewId {
        self.views.child(before, span, symbols, None)
    }

    /// Arrival at a label with the path's state; returns the node the path goes on from.
    ///
    /// The first arrival records the state as the label's node. A later arrival whose state
    /// agrees with a node of the label (on every input the path carries) goes to that node. One
    /// that agrees with none is a defect (the format asks every arrival to bring the state
    /// recorded there), but the analysis still follows it exactly: the state becomes one more
    /// node of the label, explored like the first, so that what an input really does after
    /// the label — end, loop forever, or go wrong — is what the verdict and the expected number
    /// of shuffles see.
    fn arrive(
        &mut self,
        site: Site,
        label: LabelId,
        path: &Path,
        how: String,
    ) -> Result<usize, AnalysisError> {
        let name = self.protocol.label_name(label).to_owned();
        let sums = path.state.column_sums(self.k);
        let disagrees = |recorded: &State| {
            let rec_sums = recorded.column_sums(self.k);
            (0..self.k).find(|&i| {
                !sums[i].is_zero()
                    && (rec_sums[i].is_zero() || path.state.column(i) != recorded.column(i))
            })
        };
        let known = self.node_of[label.index()].clone();
        if let Some(&node) = known
            .iter()
            .find(|&&n| disagrees(&self.nodes[n].state).is_none())
        {
            let to = self.nodes[node].tree_vertex;
            self.add_edge(path.vertex, to, how);
            return Ok(node);
        }
        if known.len() >= super::MAX_LABEL_STATES {
            return Err(AnalysisError::TooManyLabelStates { label: name });
        }
        if let Some(i) = known
            .first()
            .and_then(|&first| disagrees(&self.nodes[first].state))
        {
            self.defects.push(Defect::LoopInconsistent {
                span: site.span,
                label: name.clone(),
                input: self.protocol.input_labels()[i].clone(),
            });
        }
        let node = self.nodes.len();
        let vertex = self.add_vertex(
            &path.state,
            &vec![X::one(); self.k],
            format!("label {name}"),
        );
        self.add_edge(path.vertex, vertex, how);
        self.nodes.push(Node {
            name,
            state: path.state.clone(),
            tree_vertex: vertex,
        });
        self.node_of[label.index()].push(node);
        self.pending.push((node, Entry::After(label)));
        Ok(node)
    }

    /// Every committed result must decode to `f(i)` on every sequence input `i` can reach (with
    /// several outputs, pair `j` to output `j`).
    fn check_results(&mut self, span: Span, pairs: &[(usize, usize)], state: &State) {
        for (s, v) in state.rows() {
            for (i, x) in v.iter().enumerate() {
                if x.is_zero() {
                    continue;
                }
                for (j, &(a, b)) in pairs.iter().enumerate() {
                    if decode_bit([s[a], s[b]]) != Some(self.protocol.result_bit(i, j)) {
                        let d = Defect::WrongResult {
                            span,
                            output: self.protocol.output_name(j).map(str::to_owned),
                            input: self.protocol.input_labels()[i].clone(),
                            sequence: s.to_vec(),
                            pair: (a + 1, b + 1),
                        };
                        if self.defects.len() < 64 && !self.defects.contains(&d) {
                            self.defects.push(d);
                        }
                    }
                }
            }
        }
    }

    /// A committed number output must hold `f(i)` one-hot on `positions` on every sequence
    /// input `i` can reach.
    fn check_number_result(&mut self, span: Span, positions: &[usize], state: &State) {
        for (s, v) in state.rows() {
            for (i, x) in v.iter().enumerate() {
                let want = usize::try_from(self.protocol.values()[i]).unwrap_or(usize::MAX);
                if x.is_zero() || decode_number(s, positions) == Some(want) {
                    continue;
                }
                let d = Defect::WrongNumberResult {
                    span,
                    input: self.protocol.input_labels()[i].clone(),
                    sequence: s.to_vec(),
                    positions: positions.iter().map(|p| p + 1).collect(),
                };
                if self.defects.len() < 64 && !self.defects.contains(&d) {
                    self.defects.push(d);
                }
            }
        }
    }

    /// A one-card output must show `f(i)` (♥ for 1) on every sequence input `i` can reach.
    fn check_one_card_result(&mut self, span: Span, position: usize, state: &State) {
        for (s, v) in state.rows() {
            for (i, x) in v.iter().enumerate() {
                let want = self.protocol.result_bit(i, 0);
                if x.is_zero() || decode_one_card(s[position]) == Some(want) {
                    continue;
                }
                let d = Defect::WrongOneCardResult {
                    span,
                    input: self.protocol.input_labels()[i].clone(),
                    sequence: s.to_vec(),
                    position: position + 1,
                };
                if self.defects.len() < 64 && !self.defects.contains(&d) {
                    self.defects.push(d);
                }
            }
        }
    }

    /// Records the bases of a result's pairs over this arrival (the basis rule).
    fn record_bases(&mut self, site: Site, pairs: &[(usize, usize)], state: &State) {
        for &pair in pairs {
            let idx = match self
                .bases
                .iter()
                .position(|r| r.action == site.index && r.pair == pair)
            {
                Some(idx) => idx,
                None => {
                    self.bases.push(ResultBases {
                        action: site.index,
                        span: site.span,
                        pair,
                        seen: Vec::new(),
                    });
                    self.bases.len() - 1
                }
            };
            for s in state.sequences() {
                let b = basis_of(s, pair.0, pair.1);
                if !self.bases[idx].seen.contains(&b) {
                    self.bases[idx].seen.push(b);
                }
            }
        }
    }

    /// Ends a path at `result`. When the basis of a pair outside the two colours varies *within*
    /// this state, the path is split by the bases as if they were an observation of the
    /// `result` (they become visible when the output is opened or used), so that the security
    /// check and the leak measures see what the basis reveals. A basis that is the same
    /// throughout the state is a function of the view and reveals nothing more, so such paths
    /// are left whole.
    fn result_leaves(
        &mut self,
        site: Site,
        pairs: &[(usize, usize)],
        path: Path,
    ) -> Result<(), AnalysisError> {
        self.record_bases(site, pairs, &path.state);
        let numbered: Vec<(usize, usize)> = pairs
            .iter()
            .copied()
            .filter(|&(a, b)| {
                path.state
                    .sequences()
                    .any(|s| result_basis([s[a], s[b]]).is_some())
            })
            .collect();
        let key_of = |s: &[Symbol]| -> Vec<Symbol> {
            numbered
                .iter()
                .flat_map(|&(a, b)| basis_of(s, a, b))
                .collect()
        };
        let one_basis = {
            let mut keys = path.state.sequences().map(key_of);
            let first = keys.next();
            keys.all(|k| Some(k) == first)
        };
        if one_basis {
            // One basis throughout (or no pair outside the two colours): nothing to split.
            return self.leaf(path, Ending::Result(site.span));
        }
        for (basis, sub) in path.state.split_by(key_of) {
            let mass: Masses = times(&path.mass, &sub.column_sums(self.k));
            let view = self.public_after(path.view, site.span, &basis);
            let rec = TurnRecord {
                result_basis: true,
                ..TurnRecord::of(&path, site.span, &basis, view, &mass)
            };
            self.record(rec, None);
            let child = Path {
                node: path.node,
                state: State::default(),
                view,
                mass,
                shuffles: path.shuffles,
                vertex: path.vertex,
                followed: None,
                bits: Vec::new(),
            };
            self.leaf(child, Ending::Result(site.span))?;
        }
        Ok(())
    }

    /// A result pair outside the two colours whose basis varied over the arrivals is a defect.
    fn basis_defects(&mut self) {
        for rb in &self.bases {
            let numbered = rb.seen.iter().any(|b| result_basis(*b).is_some());
            if let (true, [first, second, ..]) = (numbered, rb.seen.as_slice()) {
                self.defects.push(Defect::ResultBasisVaries {
                    span: rb.span,
                    pair: (rb.pair.0 + 1, rb.pair.1 + 1),
                    bases: (*first, *second),
                });
            }
        }
    }
}

impl Semantics for Exact<'_> {
    type Path = Path;
    type Error = AnalysisError;

    fn permute(&mut self, _site: Site, perm: &Perm, path: &mut Path) -> Result<(), AnalysisError> {
        path.state = path.state.permute(perm);
        self.step_vertex(path, || format!("perm {perm}"), "");
        Ok(())
    }

    fn private_permute(
        &mut self,
        site: Site,
        input: usize,
        perms: &[Perm; 2],
        by: Chooser,
        path: &mut Path,
    ) -> Result<(), AnalysisError> {
        match by {
            Chooser::Input => {
                let k = self.protocol.inputs().len();
                let bit = |i: usize| usize::from(crate::model::input_bits(i, k)[input]);
                path.state = path.state.permute_per_input(|i| &perms[bit(i)]);
            }
            Chooser::Bit(b) => {
                let Some(value) = path.bits[b.0] else {
                    return Err(AnalysisError::UnboundPrivateBit {
                        span: site.span,
                        bit: self.protocol.private_bit_name(b).to_owned(),
                    });
                };
                path.state = path.state.permute(&perms[usize::from(value)]);
            }
        }
        let holder = &self.protocol.inputs()[input];
        self.step_vertex(path, || format!("private {holder} perm"), "");
        Ok(())
    }

    fn private_shuffle(
        &mut self,
        site: Site,
        input: usize,
        shuffle: &Distribution,
        bit: Option<PrivateBit>,
        path: Path,
    ) -> Result<Vec<Path>, AnalysisError> {
        let mut children = Vec::with_capacity(shuffle.len());
        for (index, (perm, weight)) in shuffle.support().iter().enumerate() {
            let weights = vec![X::from_q(weight); self.k];
            let mut child = self.private_child(&path, path.state.permute(perm), &weights);
            if let Some(b) = bit {
                child.bits[b.0] = Some(index == 1);
            }
            let drawn = vec![draw_symbol(index)];
            self.private_outcome(site, input, &path, &mut child, drawn, "draws");
            children.push(child);
        }
        Ok(children)
    }

    fn private_look(
        &mut self,
        site: Site,
        input: usize,
        positions: &[usize],
        bit: Option<PrivateBit>,
        path: Path,
    ) -> Result<Vec<Path>, AnalysisError> {
        let mut path = path;
        let mut children = Vec::new();
        for (seen, mut sub) in std::mem::take(&mut path.state).into_split(positions) {
            let sums = sub.column_sums(self.k);
            sub.normalize(&sums);
            let mut child = self.private_child(&path, sub, &sums);
            if let Some(b) = bit {
                let Some(value) = decode_bit([seen[0], seen[1]]) else {
                    self.defects.push(Defect::PrivateLookNoCommitment {
                        span: site.span,
                        observation: seen,
                    });
                    self.leaf(child, Ending::Stuck(site.span))?;
                    continue;
                };
                child.bits[b.0] = Some(value);
            }
            self.private_outcome(site, input, &path, &mut child, seen, "sees");
            children.push(child);
        }
        Ok(children)
    }

    fn shuffle(
        &mut self,
        site: Site,
        shuffle: &Distribution,
        path: &mut Path,
    ) -> Result<(), AnalysisError> {
        let sequences = path.state.len();
        let work = shuffle.len().saturating_mul(sequences);
        if work > self.opts.max_shuffle_work {
            return Err(AnalysisError::TooMuchWork {
                span: site.span,
                perms: shuffle.len(),
                sequences,
                limit: self.opts.max_shuffle_work,
            });
        }
        path.state = path.state.shuffle(shuffle.support());
        if path.state.len() > self.opts.max_sequences {
            return Err(AnalysisError::TooManySequences {
                span: site.span,
                limit: self.opts.max_sequences,
            });
        }
        path.shuffles += 1;
        self.bottom += path.state.bottom_sequences(self.protocol.values()).len();
        self.step_vertex(path, || format!("shuffle ({} perms)", shuffle.len()), "");
        Ok(())
    }

    fn turn(
        &mut self,
        site: Site,
        positions: &[usize],
        path: Path,
    ) -> Result<Vec<(Vec<Symbol>, Path)>, AnalysisError> {
        let turned = self.tree.is_some().then(|| {
            positions
                .iter()
                .map(|p| (p + 1).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        });
        let mut path = path;
        let split = std::mem::take(&mut path.state).into_split(positions);
        let mut children = Vec::with_capacity(split.len());
        for (obs, mut sub) in split {
            let sums = sub.column_sums(self.k);
            let mass: Masses = times(&path.mass, &sums);
            sub.normalize(&sums);
            let view = self.public_after(path.view, site.span, &obs);
            let record = TurnRecord::of(&path, site.span, &obs, view, &mass);
            let edge = turned
                .as_ref()
                .map(|turned| format!("turn {turned} → {}", glyphs(&obs)));
            let child = Path {
                node: path.node,
                state: sub,
                view,
                mass,
                shuffles: path.shuffles,
                vertex: path.vertex,
                followed: Some((record, edge)),
                bits: path.bits.clone(),
            };
            children.push((obs, child));
        }
        Ok(children)
    }

    fn observed(
        &mut self,
        _site: Site,
        _observation: &[Symbol],
        _branching: Branching,
        path: &mut Path,
    ) -> Result<(), AnalysisError> {
        if let Some((record, edge)) = path.followed.take() {
            self.record(record, None);
            self.step_vertex(path, || edge.unwrap_or_default(), "");
        }
        Ok(())
    }

    fn stuck(
        &mut self,
        site: Site,
        observation: &[Symbol],
        path: Path,
    ) -> Result<(), AnalysisError> {
        self.defects.push(Defect::MissingBranch {
            span: site.span,
            observation: observation.to_vec(),
        });
        self.leaf(path, Ending::Stuck(site.span))
    }

    fn result(
        &mut self,
        site: Site,
        pairs: &[(usize, usize)],
        mut path: Path,
    ) -> Result<(), AnalysisError> {
        self.check_results(site.span, pairs, &path.state);
        let label = || {
            let pairs: Vec<String> = pairs
                .iter()
                .map(|(a, b)| format!("{} {}", a + 1, b + 1))
                .collect();
            format!("result {}", pairs.join(", "))
        };
        self.step_vertex(&mut path, label, "result");
        self.result_leaves(site, pairs, path)
    }

    fn result_number(
        &mut self,
        site: Site,
        positions: &[usize],
        mut path: Path,
    ) -> Result<(), AnalysisError> {
        self.check_number_result(site.span, positions, &path.state);
        let label = || {
            let list: Vec<String> = positions.iter().map(|p| (p + 1).to_string()).collect();
            format!("result {}", list.join(" "))
        };
        self.step_vertex(&mut path, label, "result");
        // ♣/♥ cards only: no basis to check or split by.
        self.leaf(path, Ending::Result(site.span))
    }

    fn result_card(
        &mut self,
        site: Site,
        position: usize,
        mut path: Path,
    ) -> Result<(), AnalysisError> {
        self.check_one_card_result(site.span, position, &path.state);
        self.step_vertex(&mut path, || format!("result {}", position + 1), "result");
        // A correct one-card output is ♣ or ♥: no basis to check or split by.
        self.leaf(path, Ending::Result(site.span))
    }

    fn end(&mut self, mut path: Path) -> Result<(), AnalysisError> {
        self.step_vertex(&mut path, || "end".to_owned(), "end (non-committed)");
        self.leaf(path, Ending::Open)
    }

    fn label(
        &mut self,
        site: Site,
        label: LabelId,
        path: &mut Path,
    ) -> Result<Flow, AnalysisError> {
        let node = self.arrive(site, label, path, "↓".to_owned())?;
        self.end_at(path, Ending::Node(node))
    }

    fn goto(&mut self, site: Site, label: LabelId, path: &mut Path) -> Result<Flow, AnalysisError> {
        let how = format!("goto {}", self.protocol.label_name(label));
        let node = self.arrive(site, label, path, how)?;
        self.end_at(path, Ending::Node(node))
    }

    fn restart(&mut self, _site: Site, path: &mut Path) -> Result<Flow, AnalysisError> {
        let to = self.nodes[0].tree_vertex;
        self.add_edge(path.vertex, to, "restart".to_owned());
        self.end_at(path, Ending::Restart)
    }
}

/// How the holder of a private draw sees what he drew: `#k` for the `k`-th permutation of the
/// draw's support (from 1, in the support's order).
fn draw_symbol(index: usize) -> Symbol {
    Symbol::Card(u16::try_from(index + 1).unwrap_or(u16::MAX))
}

/// The private outcomes: one path per draw or per sight, seen by the holder alone.
impl Exact<'_> {
    /// A path after a private outcome: `state`, with the path's mass times `weights` (per input,
    /// the probability of the outcome).
    fn private_child(&self, path: &Path, state: State, weights: &[X]) -> Path {
        Path {
            node: path.node,
            state,
            view: path.view,
            mass: times(&path.mass, weights),
            shuffles: path.shuffles,
            vertex: path.vertex,
            followed: None,
            bits: path.bits.clone(),
        }
    }

    /// Records a private outcome on `child`: in the view and as a record when the exploration
    /// is the holder's, and in the state tree in every case.
    fn private_outcome(
        &mut self,
        site: Site,
        input: usize,
        parent: &Path,
        child: &mut Path,
        outcome: Vec<Symbol>,
        verb: &str,
    ) {
        let protocol = self.protocol;
        let holder = &protocol.inputs()[input];
        // Formatted only when the tree is recorded.
        let edge = || format!("private {holder} {verb} {}", glyphs(&outcome));
        self.step_vertex(child, edge, "");
        if let Some(h) = self.holders.as_mut() {
            if !h.outcomes_of.contains(&input) {
                h.outcomes_of.push(input);
            }
        } else if self.viewer != Some(input) {
            self.hidden_outcomes = true;
            return;
        }
        child.view = self
            .views
            .child(parent.view, site.span, &outcome, Some(input));
        let rec = TurnRecord::of(parent, site.span, &outcome, child.view, &child.mass);
        self.record(rec, Some(input));
    }
}

impl Exact<'_> {
    /// Ends the path at a node (the interpreter keeps the path; the leaf takes its record).
    fn end_at(&mut self, path: &mut Path, ending: Ending) -> Result<Flow, AnalysisError> {
        let taken = Path {
            node: path.node,
            state: State::default(),
            view: path.view,
            mass: path.mass.clone(),
            shuffles: path.shuffles,
            vertex: path.vertex,
            followed: None,
            bits: Vec::new(),
        };
        self.leaf(taken, ending)?;
        Ok(Flow::Stop)
    }
}
