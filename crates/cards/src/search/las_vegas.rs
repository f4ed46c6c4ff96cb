//! Restart-free Las Vegas search (`--runtime las-vegas`).
//!
//! # The model
//!
//! A restart-free Las Vegas protocol \[KWH15\] may jump back (`goto`) to a state it has been in
//! before, up to a public permutation, instead of ending every branch. Whether a state can still be
//! completed then depends on which other states the protocol contains, so the finite search's
//! memo (keyed by the state alone) does not apply. This module works on the **state graph**
//! instead:
//!
//! 1. Every state reachable from the start in at most `L` steps is generated breadth first and
//!    expanded (a protocol may act on a state at distance `L` to loop back; children beyond `L`
//!    stay outside the region), one node per state up to a relabelling of positions (the
//!    frontier is expanded in parallel with
//!    rayon; node numbers are given in a fixed order afterwards, so the graph does not depend on
//!    the number of threads). Input relabellings and the colour swap are **not** used here: a
//!    `goto` must arrive at exactly the label's state for every input (the analyzer's loop
//!    consistency), and only a permutation of positions can be written before it.
//! 2. On that graph, the protocol must end with probability 1 under every input: the classic
//!    almost-sure reachability fixed point. Start with `W` = all nodes; compute the nodes from
//!    which an ending can be reached by *progressing* actions that stay inside `W` (rank 0: final
//!    states; rank `r`: some action all of whose children lie in `W` and, for every input present,
//!    some child that carries the input has rank `< r`); let `W` be those nodes; repeat until `W`
//!    no longer shrinks. If the start lies in `W`, a protocol exists: under each input, every
//!    action used keeps the run inside `W` and reaches a lower rank with positive probability,
//!    so the run ends with probability 1 (finite expected runtime). Conversely, when every child
//!    of a turn carries every input of its parent (committed protocols with perfect or
//!    input-possibilistic security) every restart-free protocol within the radius lies in `W`.
//!    Otherwise (non-committed protocols, whose turns may end the run for one output only, and
//!    output-possibilistic security) a protocol may need to choose different actions on
//!    different visits to one state; the search then also computes the per-input region
//!    (`Graph::winning_with_memory`) and, if the start lies there but not in `W`, refuses to
//!    answer ([`super::SearchError::Unsupported`]) rather than claim that none exists.
//! 3. The protocol is written out depth first from the start, choosing at each state the
//!    progressing action with the smallest rank; a state met again becomes `perm π; goto L` to
//!    the label where it was first written. Every protocol is then re-checked by the exact
//!    analyzer, which must find it correct, perfectly secure and of finite or restart-free Las
//!    Vegas runtime (it also reports the exact expected number of shuffles).
//!
//! One case is left out on purpose: a node is a state together with *which* inputs it carries,
//! while the analyzer's loop consistency only compares the inputs that can arrive. A `goto` that
//! arrives with fewer inputs than its label's state (possible only under output-possibilistic
//! security, where a turn may rule out some inputs of an output) is therefore not considered; a
//! "none" under that notion is a statement about protocols without such jumps.
//!
//! # What the bound means
//!
//! For a Las Vegas protocol, `--max-steps L` bounds the **radius**: every state the protocol
//! visits is reachable from the start in at most `L` steps (shuffles and turns); it may act on
//! states at distance `L` as long as what it reaches is within `L` again (a loop). Iterative
//! deepening over `L` makes the radius reported the smallest possible. A protocol of radius `L`
//! has a terminating run of at most `L` steps, so the run-minimal length of \[KSK19\] (their
//! restart-free mode looks for one valid run of exactly `L` actions that ends in a final state)
//! is at most our radius; a "none within radius `L`" here is the weaker statement of the two.
//!
//! # What it reproduces
//!
//! On `♣♣♥♥` with `--committed --shuffles closed` it finds, within radius 6 and in well under a
//! second, a four-card committed AND of the \[KWH15\] kind (the `{id: 1/3, π: 2/3}` shuffle,
//! exactly 8 shuffles in expectation, by the analyzer); with `--shuffles uniform-closed` it finds
//! none (\[KKWHS17\]: restart-free four-card AND needs non-uniform or non-closed shuffles);
//! with `--shuffles uniform --max-support 3` it finds one with uniform non-closed shuffles
//! (\[RI18\]). On five cards with `--shuffles random-cuts` it finds a committed AND made of
//! random cuts and random bisection cuts only (\[AHMS21\]) within radius 4.
//!
//! Loops need exact per-input distributions to match, so the Las Vegas search keeps exact
//! probabilities in its states whatever the security notion asked for; the notion only decides
//! which turns are allowed (so under `closed` and `any` the weights enumerated are the finite
//! family of the class table even in the possibilistic modes; a possibilistic search may find
//! protocols a perfect one
//! does not, and the analyzer re-checks each at the level asked for).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use indexmap::IndexSet;
use rayon::prelude::*;

use super::budget::{heap_bytes, table_bytes, Meter};
use super::canon::Key;
use super::problem::{Problem, State, Step};
use super::{DepthStats, Progress, SearchError};
use crate::model::{Action, ActionKind, Branch};

/// A node's actions, each as its children's keys (with the child when it is not a node yet).
type Expanded = Vec<Vec<(Key, Option<State>)>>;

/// The radius of the protocols found and their bodies.
type Found = (usize, Vec<Vec<Action>>);

/// Frontier nodes expanded between two looks at the memory budget.
const CHUNK: usize = 256;

/// A node of the state graph: one state up to a relabelling of positions. Its state is the one
/// its key encodes (`Problem::decode`).
#[derive(Debug)]
struct Node {
    /// Inputs present (bit `i`: some sequence carries input `i`).
    present: u32,
    /// Whether a protocol may stop here.
    is_final: bool,
    /// Steps from the start (breadth-first distance).
    distance: u32,
    /// Its actions: the range of `Graph::actions` that holds them; `None` while unexpanded.
    steps: Option<(u32, u32)>,
}

/// The state graph within a radius, stored compactly: node `v`'s key is `keys[v]`, its actions
/// are `actions[a]` for `a` in its range, action `a`'s children are
/// `children[actions[a]..actions[a + 1]]` (the list ends with a sentinel).
pub(super) struct Graph<'a> {
    problem: &'a Problem,
    nodes: Vec<Node>,
    keys: IndexSet<Key>,
    actions: Vec<u32>,
    children: Vec<u32>,
    /// Nodes first met at the current radius and not expanded yet.
    frontier: Vec<u32>,
    /// States generated that were already nodes.
    pub(super) hits: u64,
    /// Nodes expanded.
    pub(super) explored: u64,
    /// Bytes of the key heap blocks.
    key_bytes: u64,
    /// Bytes counted against the budget so far.
    counted: u64,
}

impl<'a> Graph<'a> {
    pub(super) fn new(problem: &'a Problem, start: &State) -> Graph<'a> {
        let mut g = Graph {
            problem,
            nodes: Vec::new(),
            keys: IndexSet::new(),
            actions: vec![0],
            children: Vec::new(),
            frontier: Vec::new(),
            hits: 0,
            explored: 0,
            key_bytes: 0,
            counted: 0,
        };
        let key = problem.canonical(start);
        g.intern(key, start, 0);
        g
    }

    fn intern(&mut self, key: Key, st: &State, distance: u32) -> u32 {
        if let Some(id) = self.keys.get_index_of(&key) {
            self.hits += 1;
            return id as u32;
        }
        let id = self.nodes.len() as u32;
        let is_final = self.problem.is_final(st);
        self.nodes.push(Node {
            present: Problem::present_mask(st),
            is_final,
            distance,
            steps: is_final.then_some((0, 0)),
        });
        self.key_bytes += heap_bytes(key.len());
        self.keys.insert(key);
        if !is_final {
            self.frontier.push(id);
        }
        id
    }

    /// The bytes the graph holds (see [`super::budget`]).
    fn bytes(&self) -> u64 {
        let slot = std::mem::size_of::<(u64, Key)>();
        self.nodes.capacity() as u64 * std::mem::size_of::<Node>() as u64
            + self.key_bytes
            + self.keys.capacity() as u64 * slot as u64
            + table_bytes(self.keys.capacity(), std::mem::size_of::<usize>())
            + 4 * (self.actions.capacity() + self.children.capacity()) as u64
    }

    /// Counts what the graph has grown by; `false` once the budget is passed.
    fn charge(&mut self, meter: &Meter) -> bool {
        let now = self.bytes();
        if now > self.counted {
            meter.charge(now - self.counted);
            self.counted = now;
        }
        !meter.tripped()
    }

    /// The state of node `v`.
    fn state(&self, v: u32) -> Result<State, SearchError> {
        self.keys
            .get_index(v as usize)
            .and_then(|k| self.problem.decode(k))
            .ok_or_else(|| SearchError::Analysis("internal: a node without its state".into()))
    }

    /// The actions of node `v`, each as its children's nodes.
    fn steps_of(&self, v: usize) -> Option<impl Iterator<Item = &[u32]> + '_> {
        let (from, to) = self.nodes[v].steps?;
        Some((from..to).map(move |a| {
            let a = a as usize;
            &self.children[self.actions[a] as usize..self.actions[a + 1] as usize]
        }))
    }

    /// Expands every node of the frontier — the nodes at distance `radius` — creating those at
    /// distance `radius + 1`. Returns `false` when the budget stopped it part way.
    pub(super) fn grow(
        &mut self,
        radius: usize,
        progress: Progress<'_>,
        meter: &Meter,
    ) -> Result<bool, SearchError> {
        let frontier = std::mem::take(&mut self.frontier);
        let done = AtomicUsize::new(0);
        let total = frontier.len();
        for (c, chunk) in frontier.chunks(CHUNK).enumerate() {
            if !self.charge(meter) {
                // Keep the rest for a later look at what is open.
                self.frontier.extend_from_slice(&frontier[c * CHUNK..]);
                return Ok(false);
            }
            let expanded = self.expand_chunk(chunk, radius, &done, total, progress)?;
            for (&v, steps) in chunk.iter().zip(expanded) {
                self.add_steps(v, steps, radius)?;
            }
        }
        Ok(self.charge(meter))
    }

    /// The actions of each node of `chunk`, with each child's key (and the child itself when it
    /// is not a node yet), in parallel.
    fn expand_chunk(
        &self,
        chunk: &[u32],
        radius: usize,
        done: &AtomicUsize,
        total: usize,
        progress: Progress<'_>,
    ) -> Result<Vec<Expanded>, SearchError> {
        let p = self.problem;
        chunk
            .par_iter()
            .map(|&v| {
                let steps = p.expand(&self.state(v)?)?;
                let out = steps
                    .into_iter()
                    .map(|s| {
                        s.children
                            .into_iter()
                            .map(|(_, c)| {
                                let key = p.canonical(&c);
                                let known = self.keys.contains(&key);
                                (key, (!known).then_some(c))
                            })
                            .collect()
                    })
                    .collect();
                progress(radius, done.fetch_add(1, Ordering::Relaxed) + 1, total);
                Ok(out)
            })
            .collect()
    }

    /// Records node `v`'s actions, interning their children; actions with the same children
    /// are kept once.
    fn add_steps(&mut self, v: u32, steps: Expanded, radius: usize) -> Result<(), SearchError> {
        let from = self.actions.len() as u32 - 1;
        let mut seen: HashSet<Vec<u32>> = HashSet::new();
        for children in steps {
            let mut ids = Vec::with_capacity(children.len());
            for (key, st) in children {
                let id = match (self.keys.get_index_of(&key), st) {
                    (Some(id), _) => {
                        self.hits += 1;
                        id as u32
                    }
                    (None, Some(st)) => self.intern(key, &st, radius as u32 + 1),
                    (None, None) => {
                        return Err(SearchError::Analysis(
                            "internal: a known state left the graph".into(),
                        ))
                    }
                };
                ids.push(id);
            }
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            if seen.insert(sorted) {
                self.children.extend_from_slice(&ids);
                self.actions.push(self.children.len() as u32);
            }
        }
        self.explored += 1;
        self.nodes[v as usize].steps = Some((from, self.actions.len() as u32 - 1));
        Ok(())
    }

    /// The almost-sure winning region among the nodes within `radius` steps of the start, and
    /// each node's rank (`u32::MAX` outside it).
    pub(super) fn winning(&self, radius: usize) -> Vec<u32> {
        let n = self.nodes.len();
        let mut in_w = self.within(radius);
        loop {
            let mut rank = vec![u32::MAX; n];
            for (v, node) in self.nodes.iter().enumerate() {
                if node.is_final && in_w[v] {
                    rank[v] = 0;
                }
            }
            let mut round = 0u32;
            loop {
                round += 1;
                let newly: Vec<usize> = (0..n)
                    .filter(|&v| in_w[v] && rank[v] == u32::MAX)
                    .filter(|&v| {
                        let present = self.nodes[v].present;
                        self.steps_of(v).is_some_and(|mut steps| {
                            steps.any(|e| self.progressing(e, present, &in_w, &rank, round))
                        })
                    })
                    .collect();
                if newly.is_empty() {
                    break;
                }
                for v in newly {
                    rank[v] = round;
                }
            }
            let next: Vec<bool> = rank.iter().map(|&r| r != u32::MAX).collect();
            if next == in_w {
                return rank;
            }
            in_w = next;
        }
    }

    /// Which nodes lie within `radius` steps of the start.
    fn within(&self, radius: usize) -> Vec<bool> {
        self.nodes
            .iter()
            .map(|node| node.distance as usize <= radius)
            .collect()
    }

    /// The winning region of the same fixed point when the protocol may choose *different*
    /// actions on different visits to a state (finite memory): under each input separately, an
    /// output must stay reachable through actions whose children all remain in the region. It
    /// contains [`Graph::winning`]'s region, and equals it when every child of a turn carries
    /// every input of its parent (committed queries with perfect or input-possibilistic
    /// security); elsewhere a start inside this region but outside the other means a protocol
    /// may exist that this search does not write.
    pub(super) fn winning_with_memory(&self, radius: usize) -> Vec<bool> {
        let n = self.nodes.len();
        let inputs = 1usize << self.problem.k;
        let mut in_w = self.within(radius);
        loop {
            let mut ok = in_w.clone();
            for i in 0..inputs {
                let carries = |v: usize| self.nodes[v].present >> i & 1 == 1;
                let mut reach: Vec<bool> = (0..n)
                    .map(|v| in_w[v] && self.nodes[v].is_final && carries(v))
                    .collect();
                loop {
                    let mut changed = false;
                    for v in 0..n {
                        if reach[v] || !in_w[v] || !carries(v) {
                            continue;
                        }
                        let escapes = self.steps_of(v).is_some_and(|mut steps| {
                            steps.any(|e| {
                                e.iter().all(|&c| in_w[c as usize])
                                    && e.iter().any(|&c| {
                                        self.nodes[c as usize].present >> i & 1 == 1
                                            && reach[c as usize]
                                    })
                            })
                        });
                        if escapes {
                            reach[v] = true;
                            changed = true;
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                for v in 0..n {
                    if in_w[v] && carries(v) && !reach[v] {
                        ok[v] = false;
                    }
                }
            }
            if ok == in_w {
                return in_w;
            }
            in_w = ok;
        }
    }

    /// Whether an action keeps inside `W` and, for every input present, reaches a node of rank
    /// `< below`.
    fn progressing(
        &self,
        children: &[u32],
        present: u32,
        in_w: &[bool],
        rank: &[u32],
        below: u32,
    ) -> bool {
        progressing(children, &self.nodes, present, in_w, rank, below)
    }

    fn node_of(&self, st: &State) -> Result<u32, SearchError> {
        self.keys
            .get_index_of(&self.problem.canonical(st))
            .map(|v| v as u32)
            .ok_or_else(|| SearchError::Analysis("internal: a state outside the graph".into()))
    }
}

/// Whether an action (its children's nodes) keeps inside `W` (nodes of finite rank or in
/// `in_w`) and, for every input present, reaches a node carrying it of rank `< below`.
fn progressing(
    children: &[u32],
    nodes: &[Node],
    present: u32,
    in_w: &[bool],
    rank: &[u32],
    below: u32,
) -> bool {
    children.iter().all(|&c| in_w[c as usize])
        && (0..32).filter(|i| present >> i & 1 == 1).all(|i| {
            children
                .iter()
                .any(|&c| nodes[c as usize].present >> i & 1 == 1 && rank[c as usize] < below)
        })
}

/// The score of an action: the largest over inputs of the smallest rank reached.
fn score(children: &[u32], nodes: &[Node], present: u32, rank: &[u32]) -> u32 {
    (0..32)
        .filter(|i| present >> i & 1 == 1)
        .map(|i| {
            children
                .iter()
                .filter(|&&c| nodes[c as usize].present >> i & 1 == 1)
                .map(|&c| rank[c as usize])
                .min()
                .unwrap_or(u32::MAX)
        })
        .max()
        .unwrap_or(0)
}

/// Writes one protocol out of the winning region.
pub(super) struct Emitter<'g, 'a> {
    graph: &'g Graph<'a>,
    rank: &'g [u32],
    /// The winning region (the nodes with a rank).
    in_w: Vec<bool>,
    /// Node → (label, the state where it was written).
    written: HashMap<u32, (String, State)>,
    targets: HashSet<String>,
}

impl<'g, 'a> Emitter<'g, 'a> {
    pub(super) fn new(graph: &'g Graph<'a>, rank: &'g [u32]) -> Self {
        Emitter {
            graph,
            rank,
            in_w: rank.iter().map(|&r| r != u32::MAX).collect(),
            written: HashMap::new(),
            targets: HashSet::new(),
        }
    }

    /// The actions `st` offers, each with its children's nodes.
    fn options(&self, st: &State) -> Result<Vec<(Step, Vec<u32>)>, SearchError> {
        let mut out = Vec::new();
        for step in self.graph.problem.expand(st)? {
            let mut ch = Vec::with_capacity(step.children.len());
            for (_, c) in &step.children {
                ch.push(self.graph.node_of(c)?);
            }
            out.push((step, ch));
        }
        Ok(out)
    }

    /// The actions of `st` (node `v`) that stay in the region and make progress, with their
    /// children's nodes.
    fn progressing_options(
        &self,
        st: &State,
        v: u32,
    ) -> Result<Vec<(Step, Vec<u32>)>, SearchError> {
        let present = self.graph.nodes[v as usize].present;
        let r = self.rank[v as usize];
        Ok(self
            .options(st)?
            .into_iter()
            .filter(|(_, ch)| {
                self.graph
                    .progressing(ch, present, &self.in_w, self.rank, r)
            })
            .collect())
    }

    /// The top-level actions of the start state that lead to a protocol.
    pub(super) fn winning_top(&self, start: &State) -> Result<Vec<Step>, SearchError> {
        let v = self.graph.node_of(start)?;
        Ok(self
            .progressing_options(start, v)?
            .into_iter()
            .map(|(s, _)| s)
            .collect())
    }

    /// The whole protocol starting with `first` at the start state.
    pub(super) fn protocol(
        &mut self,
        start: &State,
        first: &Step,
    ) -> Result<Vec<Action>, SearchError> {
        let mut body = self.write_with(start, first)?;
        strip_labels(&mut body, &self.targets);
        Ok(body)
    }

    fn write_with(&mut self, st: &State, step: &Step) -> Result<Vec<Action>, SearchError> {
        let v = self.graph.node_of(st)?;
        let label = format!("S{}", self.written.len() + 1);
        self.written.insert(v, (label.clone(), st.clone()));
        let mut bodies = Vec::with_capacity(step.children.len());
        for (_, c) in &step.children {
            bodies.push(self.write(c)?);
        }
        let mut out = vec![Action::new(ActionKind::Label(label))];
        out.extend(self.graph.problem.step_action(step, bodies));
        Ok(out)
    }

    fn write(&mut self, st: &State) -> Result<Vec<Action>, SearchError> {
        let p = self.graph.problem;
        if p.is_final(st) {
            return p
                .final_actions(st)
                .ok_or_else(|| SearchError::Analysis("final state without a result".into()));
        }
        let v = self.graph.node_of(st)?;
        if let Some((label, there)) = self.written.get(&v) {
            let label = label.clone();
            let perm = p.relabelling(st, there).ok_or_else(|| {
                SearchError::Analysis(
                    "internal: equal canonical forms without a relabelling".into(),
                )
            })?;
            self.targets.insert(label.clone());
            let mut out = Vec::new();
            if !perm.is_identity() {
                out.push(Action::new(ActionKind::Perm(perm)));
            }
            out.push(Action::new(ActionKind::Goto(label)));
            return Ok(out);
        }
        let present = self.graph.nodes[v as usize].present;
        let best = self
            .progressing_options(st, v)?
            .into_iter()
            .min_by_key(|(_, ch)| score(ch, &self.graph.nodes, present, self.rank))
            .map(|(s, _)| s)
            .ok_or_else(|| {
                SearchError::Analysis("internal: a winning state without a winning action".into())
            })?;
        self.write_with(st, &best)
    }
}

/// Removes the labels no `goto` names.
fn strip_labels(body: &mut Vec<Action>, targets: &HashSet<String>) {
    body.retain(|a| !matches!(&a.kind, ActionKind::Label(l) if !targets.contains(l)));
    for a in body.iter_mut() {
        if let ActionKind::Turn {
            branches: Some(branches),
            ..
        } = &mut a.kind
        {
            for Branch { body, .. } in branches.iter_mut() {
                strip_labels(body, targets);
            }
        }
    }
}

/// Runs the Las Vegas search up to `max_steps`: returns the radius and the protocols' bodies, the
/// per-radius statistics, and the number of top-level actions.
pub(super) fn run(
    problem: &Problem,
    start: &State,
    progress: Progress<'_>,
    meter: &Meter,
) -> Result<LasVegasResult, SearchError> {
    let mut graph = Graph::new(problem, start);
    let mut result = LasVegasResult {
        found: None,
        per_depth: Vec::new(),
        explored: 0,
        hits: 0,
        top_level_actions: problem.expand(start)?.len(),
        exhausted: false,
        interrupted: None,
        nodes: 0,
    };
    let (mut e0, mut h0) = (graph.explored, graph.hits);
    let mut t0 = Instant::now();
    // The start (distance 0) is expanded before the first radius.
    let mut complete = graph.grow(0, progress, meter)?;
    for radius in 1..=problem.query.max_steps {
        // A protocol within `radius` may act on states at distance `radius` (a loop back), so
        // they are expanded too; their children beyond the radius stay outside the region.
        complete = complete && graph.grow(radius, progress, meter)?;
        if !complete {
            result.interrupted = Some((radius, graph.frontier.len() as u64));
        } else {
            result.found = decide(problem, &graph, start, radius)?;
        }
        result.per_depth.push(DepthStats {
            depth: radius,
            states_explored: graph.explored - e0,
            memo_hits: graph.hits - h0,
            seconds: t0.elapsed().as_secs_f64(),
        });
        (e0, h0, t0) = (graph.explored, graph.hits, Instant::now());
        if result.found.is_some() || result.interrupted.is_some() {
            break;
        }
        if graph.frontier.is_empty() {
            result.exhausted = true;
            break;
        }
    }
    (result.explored, result.hits) = (graph.explored, graph.hits);
    result.nodes = graph.nodes.len() as u64;
    Ok(result)
}

/// The protocols within `radius`, if the start lies in the winning region.
fn decide(
    problem: &Problem,
    graph: &Graph<'_>,
    start: &State,
    radius: usize,
) -> Result<Option<Found>, SearchError> {
    // Per-input ranks can only differ from the shared ones when a turn may drop inputs.
    let shared_ranks_complete = problem.query.committed
        && matches!(
            problem.query.security,
            super::SearchSecurity::Perfect | super::SearchSecurity::InputPossibilistic
        );
    let rank = graph.winning(radius);
    let start_node = graph.node_of(start)?;
    if rank[start_node as usize] == u32::MAX {
        if !shared_ranks_complete && graph.winning_with_memory(radius)[start_node as usize] {
            return Err(SearchError::Unsupported(format!(
                "within radius {radius} a protocol may exist that must choose different actions \
                 on different visits to the same state (under different inputs); the Las Vegas \
                 search writes only protocols that choose one action per state, so it cannot \
                 decide this query"
            )));
        }
        return Ok(None);
    }
    let emitter = Emitter::new(graph, &rank);
    let mut seen = HashSet::new();
    let mut bodies = Vec::new();
    for top in emitter.winning_top(start)? {
        if !seen.insert(problem.children_key(&top)) {
            continue;
        }
        let mut e = Emitter::new(graph, &rank);
        bodies.push(e.protocol(start, &top)?);
        if problem.query.first {
            break;
        }
    }
    Ok(Some((radius, bodies)))
}

/// What [`run`] found.
pub(super) struct LasVegasResult {
    /// `(radius, protocol bodies)` when some protocol exists.
    pub(super) found: Option<Found>,
    pub(super) per_depth: Vec<DepthStats>,
    pub(super) explored: u64,
    pub(super) hits: u64,
    pub(super) top_level_actions: usize,
    /// Whether every reachable state was expanded with nothing found: then no protocol exists at
    /// any radius.
    pub(super) exhausted: bool,
    /// `(radius being searched, frontier states not expanded)` when the budget stopped it.
    pub(super) interrupted: Option<(usize, u64)>,
    /// Nodes of the state graph.
    pub(super) nodes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{parse_deck, parse_function, SearchQuery};

    /// A node by hand: `(inputs present, final, actions as children's nodes)`.
    type NodeSpec = (u32, bool, Option<Vec<Vec<u32>>>);

    impl<'a> Graph<'a> {
        /// A graph of nodes at distance 1 given by hand.
        fn by_hand(problem: &'a Problem, spec: &[NodeSpec]) -> Graph<'a> {
            let mut g = Graph {
                problem,
                nodes: Vec::new(),
                keys: IndexSet::new(),
                actions: vec![0],
                children: Vec::new(),
                frontier: Vec::new(),
                hits: 0,
                explored: 0,
                key_bytes: 0,
                counted: 0,
            };
            for (present, is_final, steps) in spec {
                let steps = steps.as_ref().map(|steps| {
                    let from = g.actions.len() as u32 - 1;
                    for children in steps {
                        g.children.extend_from_slice(children);
                        g.actions.push(g.children.len() as u32);
                    }
                    (from, g.actions.len() as u32 - 1)
                });
                g.nodes.push(Node {
                    present: *present,
                    is_final: *is_final,
                    distance: 1,
                    steps,
                });
            }
            g
        }
    }

    /// The non-committed loop a shared rank cannot see: at `v` a turn ends the run for output 0
    /// (inputs 00, 01, 10) or moves to `w`; at `w` a turn ends it for output 1 (input 11) or moves
    /// back to `v`. Each input ends with probability 1, yet no node gets a rank: the inputs of
    /// output 1 make no progress at `v`, those of output 0 none at `w`.
    #[test]
    fn a_loop_that_ends_each_output_at_a_different_state_is_seen_by_the_per_input_region() {
        let query = SearchQuery::new(
            parse_deck("♣♣♥♥").expect("deck"),
            parse_function("and").expect("function"),
            4,
        );
        let problem = Problem::new(&query).expect("problem");
        let (all, zero, one) = (0b1111, 0b0111, 0b1000);
        let graph = Graph::by_hand(
            &problem,
            &[
                (all, false, Some(vec![vec![2, 1]])), // v
                (all, false, Some(vec![vec![3, 0]])), // w
                (zero, true, Some(Vec::new())),       // output 0
                (one, true, Some(Vec::new())),        // output 1
            ],
        );
        let rank = graph.winning(4);
        assert_eq!(rank[0], u32::MAX, "no shared rank for v");
        assert_eq!(rank[1], u32::MAX, "no shared rank for w");
        let with_memory = graph.winning_with_memory(4);
        assert!(with_memory[0] && with_memory[1], "{with_memory:?}");
        // If w's other branch stays at w instead of returning to v, output 0 never ends there.
        let stuck = Graph::by_hand(
            &problem,
            &[
                (all, false, Some(vec![vec![2, 1]])),
                (all, false, Some(vec![vec![3, 1]])),
                (zero, true, Some(Vec::new())),
                (one, true, Some(Vec::new())),
            ],
        );
        assert!(!stuck.winning_with_memory(4)[1]);
    }
}
