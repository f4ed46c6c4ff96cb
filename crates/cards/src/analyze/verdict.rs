//! The verdict: correctness, security (per observation), runtime, and the exact expected
//! number of shuffles, from what the walk recorded.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use num_traits::{One, Zero};
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::defect::Defect;
use super::exact::{Exact, Tracker};
use super::leakage::{exact_views, ExactViews, ViewDistribution};
use super::state::{add_to, mul};
use super::views::ViewId;
use super::walk::{Ending, Exploration, Leaf, TurnRecord};
use super::{Analysis, BranchProbability, Note};
use crate::model::Q;
use crate::print::render_view;

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
    /// Every level, strongest first.
    pub const ALL: [Security; 4] = [
        Security::Perfect,
        Security::InputPossibilistic,
        Security::OutputPossibilistic,
        Security::Insecure,
    ];

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
    /// Every class.
    pub const ALL: [Runtime; 3] = [Runtime::Finite, Runtime::LasVegas, Runtime::LasVegasRestart];

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

/// Solves `(I − P) x = a` over ℚ; `None` when singular.
fn solve(mut m: Vec<Vec<Exact>>, mut rhs: Vec<Exact>) -> Option<Vec<Exact>> {
    let n = rhs.len();
    for col in 0..n {
        let pivot = (col..n).find(|&r| !m[r][col].is_zero())?;
        m.swap(col, pivot);
        rhs.swap(col, pivot);
        let inv = Exact::one().div(&m[col][col]);
        for x in m[col].iter_mut().skip(col) {
            *x = mul(x, &inv);
        }
        rhs[col] = mul(&rhs[col], &inv);
        let pivot_row = m[col].clone();
        for r in 0..n {
            if r != col && !m[r][col].is_zero() {
                let factor = m[r][col].clone();
                for (x, y) in m[r].iter_mut().zip(&pivot_row).skip(col) {
                    if !y.is_zero() {
                        *x = &*x - &mul(&factor, y);
                    }
                }
                rhs[r] = &rhs[r] - &mul(&factor, &rhs[col]);
            }
        }
    }
    Some(rhs)
}

fn better(current: Option<u64>, candidate: u64, wins: impl Fn(u64, u64) -> bool) -> bool {
    match current {
        None => true,
        Some(c) => wins(candidate, c),
    }
}

/// The graph of segments: which node a leaf leads to, and what can be reached.
impl Exploration {
    pub(super) fn leaf_target(&self, leaf: &Leaf) -> Option<usize> {
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
    pub(super) fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        seen[0] = true;
        if self.nodes.len() == 1 {
            return seen;
        }
        let mut stack = vec![0];
        while let Some(x) = stack.pop() {
            for leaf in self.leaves.iter().filter(|l| l.node == x) {
                let target = self.leaf_target(leaf);
                if let Some(y) = target.filter(|&y| !seen[y] && self.positive(leaf)) {
                    seen[y] = true;
                    stack.push(y);
                }
            }
        }
        seen
    }

    /// `reach[x][y]`: `y` reachable from `x` in one or more steps.
    pub(super) fn closure(&self) -> Vec<Vec<bool>> {
        let n = self.nodes.len();
        let mut reach = vec![vec![false; n]; n];
        for leaf in &self.leaves {
            if let Some(y) = self.leaf_target(leaf).filter(|_| self.positive(leaf)) {
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

    /// Whether inputs `i` and `j` must look alike: to an outsider in the public model, to some
    /// player in the private model (see [`Exploration::sharing_player`]).
    ///
    /// In an exploration of one player's view ([`Exploration::viewer`]), only the inputs that
    /// player cannot tell apart must look alike.
    pub(super) fn alike(&self, committed: bool, i: usize, j: usize) -> bool {
        let same_output = committed || self.outputs[i] == self.outputs[j];
        same_output
            && match self.viewer {
                Some(p) => self.inputs[i].as_bytes().get(p) == self.inputs[j].as_bytes().get(p),
                None => self.players.is_empty() || self.sharing_player(i, j).is_some(),
            }
    }

    /// In the private model, the first player who cannot tell inputs `i` and `j` apart by his
    /// own input: he holds the same bit under both (his view must then not depend on which).
    pub(super) fn sharing_player(&self, i: usize, j: usize) -> Option<usize> {
        let (a, b) = (self.inputs[i].as_bytes(), self.inputs[j].as_bytes());
        (0..self.players.len()).find(|&p| a.get(p) == b.get(p))
    }
}

/// Shuffles: the exact expectation and the bounds.
impl Exploration {
    /// The exact expected number of shuffles per input (`None` where the protocol may not
    /// terminate).
    pub fn expected_shuffles(&self) -> Vec<Option<Q>> {
        let exact = self.expected_shuffles_exact();
        exact.iter().map(|e| e.as_ref().map(Exact::to_q)).collect()
    }

    fn expected_shuffles_exact(&self) -> Vec<Option<Exact>> {
        let n = self.nodes.len();
        (0..self.inputs.len())
            .map(|i| {
                let mut m = vec![vec![Exact::zero(); n]; n];
                let mut rhs = vec![Exact::zero(); n];
                for (x, row) in m.iter_mut().enumerate() {
                    row[x] = Exact::one();
                }
                for leaf in &self.leaves {
                    let p = &leaf.mass[i];
                    if p.is_zero() {
                        continue;
                    }
                    if leaf.shuffles > 0 {
                        let spent = mul(p, &Exact::from_integer(leaf.shuffles));
                        add_to(&mut rhs[leaf.node], &spent);
                    }
                    if let Some(y) = self.leaf_target(leaf) {
                        m[leaf.node][y] = &m[leaf.node][y] - p;
                    }
                }
                solve(m, rhs).map(|mut x| x.swap_remove(0))
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
}

/// Security, checked per observation.
impl Exploration {
    /// The strongest security level that holds, with the leak defects that rule out perfect
    /// security.
    fn security_level(&self, turns: &[MergedTurn<'_>], committed: bool) -> (Security, Vec<Defect>) {
        let k = self.inputs.len();
        let mut defects = Vec::new();
        let mut perfect = true;
        let mut input_poss = true;
        let mut output_poss = committed;
        let mut leaks = 0usize;
        let pairs: Vec<(usize, usize)> = (0..k)
            .flat_map(|i| ((i + 1)..k).map(move |j| (i, j)))
            .filter(|&(i, j)| self.alike(committed, i, j))
            .collect();
        for rec in turns {
            let mut reported = false;
            for &(i, j) in &pairs {
                let (a, b) = (&rec.mass[i], &rec.mass[j]);
                if a != b {
                    perfect = false;
                    if !reported {
                        reported = true;
                        leaks += 1;
                        if leaks <= 8 {
                            defects.push(self.leak(rec, i, j));
                        }
                    }
                }
                if a.is_zero() != b.is_zero() {
                    input_poss = false;
                }
            }
            if committed && !self.output_possible(&rec.mass) {
                output_poss = false;
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

    /// Whether an observation with these per-input masses, if possible at all, is possible
    /// under an input of each output value. In one player's view the inputs are those of his
    /// own bit: what he may not rule out is an output among the inputs he cannot tell apart.
    fn output_possible(&self, mass: &[Exact]) -> bool {
        let group = |i: usize| {
            self.viewer
                .map(|p| self.inputs[i].as_bytes().get(p).copied())
        };
        let k = self.inputs.len();
        (0..k).filter(|&i| !mass[i].is_zero()).all(|i| {
            let mates = || (0..k).filter(move |&j| group(j) == group(i));
            mates()
                .all(|j| mates().any(|l| self.outputs[l] == self.outputs[j] && !mass[l].is_zero()))
        })
    }

    /// The leak of `rec` between inputs `i` and `j`, against the player who cannot tell them
    /// apart in the private model.
    fn leak(&self, merged: &MergedTurn<'_>, i: usize, j: usize) -> Defect {
        let rec = merged.rec;
        let inputs = (self.inputs[i].clone(), self.inputs[j].clone());
        let probabilities = (merged.mass[i].to_q(), merged.mass[j].to_q());
        let player = self.viewer.or_else(|| self.sharing_player(i, j));
        match player.filter(|_| !self.players.is_empty()) {
            Some(p) => Defect::PlayerLeak {
                player: self.players[p].clone(),
                span: rec.span,
                observation: rec.observation.to_vec(),
                inputs,
                probabilities,
            },
            None => Defect::Leak {
                span: rec.span,
                result_basis: rec.result_basis,
                observation: rec.observation.to_vec(),
                inputs,
                probabilities,
            },
        }
    }

    /// The reachable turn records, those with the same turn, view before and observation added
    /// together. Paths that differ only by a private draw or look the view does not hold have
    /// the same view: to this viewer they are one path, and their masses add up. Without such
    /// outcomes every record has a view of its own and is taken as it is. Only the masses of a
    /// merged record are copied; the record itself is borrowed. Records of one segment are the
    /// same turn, observation and view before exactly when their views after are the same.
    /// The priors are added up only `with_priors` (only the branch probabilities read them).
    fn merged_turns(&self, reachable: &[bool], with_priors: bool) -> Vec<MergedTurn<'_>> {
        let live = self.turns.iter().filter(|r| reachable[r.node]);
        let of = |rec| MergedTurn::of(rec, with_priors);
        if !self.hidden_outcomes {
            return live.map(of).collect();
        }
        let mut index = TurnIndex::new(self);
        let mut merged: Vec<MergedTurn<'_>> = Vec::new();
        for rec in live {
            match index.get(rec) {
                Some(at) => merged[at].add(rec),
                None => {
                    index.insert(rec, merged.len());
                    merged.push(of(rec));
                }
            }
        }
        merged
    }

    /// The security level and leak defects of this exploration's viewer (see
    /// [`Exploration::viewer`]).
    pub(super) fn viewer_security(&self) -> (Security, Vec<Defect>) {
        let reachable = self.reachable();
        let committed = !self.has_open_ending();
        self.security_level(&self.merged_turns(&reachable, false), committed)
    }

    /// Whether the protocol is perfectly secure (the security check of
    /// [`Exploration::summarize`] alone).
    pub fn is_perfect(&self) -> bool {
        self.viewer_security().0 == Security::Perfect
    }

    /// Non-committed endings whose view does not determine the output.
    fn undetermined_views(&self, reachable: &[bool]) -> Vec<Defect> {
        // Open endings by view: paths that differ only by a private outcome this view does not
        // hold are one view, and the inputs that reach any of them reach it.
        let mut index: FxHashMap<(usize, ViewId), usize> = FxHashMap::default();
        let mut views: Vec<(usize, ViewId, Vec<bool>)> = Vec::new();
        for leaf in &self.leaves {
            if leaf.ending != Ending::Open || !reachable[leaf.node] {
                continue;
            }
            let at = *index.entry((leaf.node, leaf.view)).or_insert_with(|| {
                views.push((leaf.node, leaf.view, vec![false; leaf.mass.len()]));
                views.len() - 1
            });
            for (reached, m) in views[at].2.iter_mut().zip(leaf.mass.iter()) {
                *reached |= !m.is_zero();
            }
        }
        let mut out = Vec::new();
        for (node, view, reached) in views {
            let mut by_value: BTreeMap<_, Vec<String>> = BTreeMap::new();
            for i in (0..reached.len()).filter(|&i| reached[i]) {
                by_value
                    .entry(self.outputs[i])
                    .or_default()
                    .push(self.inputs[i].clone());
            }
            if by_value.len() > 1 {
                let by_output = by_value
                    .into_iter()
                    .map(|(v, inputs)| (self.function.value_text(v), inputs))
                    .collect();
                let prefix = if node == 0 {
                    String::new()
                } else {
                    format!("(from label {}) ", self.nodes[node].name)
                };
                out.push(Defect::ViewDoesNotDetermineOutput {
                    view: format!("{prefix}{}", render_view(&self.views.get(view))),
                    by_output,
                });
            }
        }
        out
    }

    /// The runtime class of the reachable segment graph.
    fn runtime(&self, reachable: &[bool]) -> Runtime {
        let reach = self.closure();
        let cyclic = (0..self.nodes.len()).any(|x| reachable[x] && reach[x][x]);
        let restarts = self
            .leaves
            .iter()
            .any(|l| l.ending == Ending::Restart && reachable[l.node] && self.positive(l));
        match (cyclic, restarts) {
            (false, _) => Runtime::Finite,
            (true, true) => Runtime::LasVegasRestart,
            (true, false) => Runtime::LasVegas,
        }
    }

    /// Per-branch probabilities `Pr[observation | reached the turn]`.
    fn branch_probabilities(&self, turns: &[MergedTurn<'_>]) -> Vec<BranchProbability> {
        turns
            .iter()
            .filter_map(|r| Some((r, r.prior.as_ref()?)))
            .map(|(r, prior)| BranchProbability {
                node: self.nodes[r.rec.node].name.clone(),
                span: r.rec.span,
                after: self.views.get(r.rec.before),
                observation: r.rec.observation.to_vec(),
                probability: prior
                    .iter()
                    .zip(r.mass.iter())
                    .map(|(p, m)| (!p.is_zero()).then(|| m.div(p).to_q()))
                    .collect(),
            })
            .collect()
    }

    /// Summarises the exploration into the verdict.
    pub fn summarize(&self) -> Result<Analysis, super::AnalysisError> {
        let dist = self.exact_view_distribution()?;
        Ok(self.summarize_exact(dist.as_ref()))
    }

    /// Summarises the exploration, given its view distribution (`None` for looping protocols).
    pub fn summarize_with(&self, views: Option<&ViewDistribution>) -> Analysis {
        self.summarize_exact(views.map(exact_views).as_ref())
    }

    /// Summarises the exploration, given its view distribution in [`Exact`] numbers. The
    /// arithmetic is the exploration's, and [`Analysis::arithmetic`] says whether it stayed
    /// small through the summary too.
    pub(super) fn summarize_exact(&self, views: Option<&ExactViews>) -> Analysis {
        let tracker = Tracker::start(self.arithmetic);
        let reachable = self.reachable();
        let mut defects = self.defects.clone();
        let mut notes = Vec::new();
        let committed = !self.has_open_ending();
        defects.extend(self.undetermined_views(&reachable));

        let expected = self.expected_shuffles_exact();
        for (i, e) in expected.iter().enumerate() {
            if e.is_none() {
                defects.push(Defect::NeverTerminates {
                    input: self.inputs[i].clone(),
                });
            }
        }
        let expected_max = if expected.iter().all(Option::is_some) {
            let vals: Vec<&Exact> = expected.iter().flatten().collect();
            if vals.windows(2).any(|w| w[0] != w[1]) {
                notes.push(Note::ExpectedShufflesDependOnInput);
            }
            vals.into_iter().max().map(Exact::to_q)
        } else {
            None
        };
        let (min_shuffles, max_shuffles) = self.shuffle_bounds();

        let turns = self.merged_turns(&reachable, true);
        let (security, leak_defects) = self.security_level(&turns, committed);
        defects.extend(leak_defects);
        let (security, ending_defects, ending_note) = self.ending_security(security);
        defects.extend(ending_defects);
        notes.extend(ending_note);
        if !committed {
            notes.push(Note::NonCommitted);
        }
        let leak = self.leak_measures(views, committed, security == Security::Perfect);
        notes.extend(leak.notes);
        let correct = !defects.iter().any(Defect::breaks_correctness);
        if self.bottom_sequences > 0 {
            notes.push(Note::BottomSequences(self.bottom_sequences));
        }
        let runtime = self.runtime(&reachable);
        let branches = self.branch_probabilities(&turns);
        Analysis {
            name: self.name.clone(),
            function: self.function.clone(),
            cards: self.cards,
            inputs: self.inputs.clone(),
            correct,
            security,
            committed,
            endings: self.endings(),
            runtime,
            expected_shuffles: expected_max,
            expected_shuffles_per_input: expected
                .iter()
                .map(|e| e.as_ref().map(Exact::to_q))
                .collect(),
            min_shuffles,
            max_shuffles,
            tv_distance: leak.tv,
            tv_worst: leak.worst,
            mutual_information_bits: leak.mutual_information,
            leak_beyond_output_bits: leak.beyond_output,
            tv_from_uniform_shuffles: None,
            players: Vec::new(),
            bottom_sequences: self.bottom_sequences,
            branches,
            defects,
            notes,
            arithmetic: tracker.used(),
        }
    }
}

/// Where the merged turn of each (segment, view after) is: by view id alone when the
/// exploration has one segment (a table indexed by id), by both in a hash map otherwise.
enum TurnIndex {
    OneSegment(Vec<Option<usize>>),
    Segments(FxHashMap<(usize, ViewId), usize>),
}

impl TurnIndex {
    fn new(ex: &Exploration) -> TurnIndex {
        if ex.nodes.len() == 1 {
            TurnIndex::OneSegment(vec![None; ex.views.len()])
        } else {
            TurnIndex::Segments(FxHashMap::default())
        }
    }

    /// The merged turn of `rec`'s segment and view after, if there is one yet.
    fn get(&self, rec: &TurnRecord) -> Option<usize> {
        match self {
            TurnIndex::OneSegment(slots) => slots[rec.after.index()],
            TurnIndex::Segments(map) => map.get(&(rec.node, rec.after)).copied(),
        }
    }

    /// Records that `rec`'s segment and view after are merged at `at`.
    fn insert(&mut self, rec: &TurnRecord, at: usize) {
        match self {
            TurnIndex::OneSegment(slots) => slots[rec.after.index()] = Some(at),
            TurnIndex::Segments(map) => {
                map.insert((rec.node, rec.after), at);
            }
        }
    }
}

/// A reachable turn record with the masses of the records merged into it (see
/// [`Exploration::merged_turns`]).
struct MergedTurn<'r> {
    rec: &'r TurnRecord,
    /// `None` when the priors were not asked for.
    prior: Option<Cow<'r, [Exact]>>,
    mass: Cow<'r, [Exact]>,
}

impl<'r> MergedTurn<'r> {
    fn of(rec: &'r TurnRecord, with_prior: bool) -> MergedTurn<'r> {
        MergedTurn {
            rec,
            prior: with_prior.then(|| Cow::Borrowed(&rec.prior[..])),
            mass: Cow::Borrowed(&rec.mass),
        }
    }

    /// Adds the masses of `other`, a record with the same view.
    fn add(&mut self, other: &TurnRecord) {
        add_all(self.mass.to_mut(), &other.mass);
        if let Some(prior) = self.prior.as_mut() {
            add_all(prior.to_mut(), &other.prior);
        }
    }
}

/// `acc[i] += x[i]` for every input.
fn add_all(acc: &mut [Exact], x: &[Exact]) {
    for (a, b) in acc.iter_mut().zip(x) {
        add_to(a, b);
    }
}
