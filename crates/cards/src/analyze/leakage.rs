//! Leakage measures: the distribution of complete views, and what it reveals.
//!
//! For a protocol whose segment graph is acyclic the complete views are enumerated with their
//! per-input probabilities; from them come the total-variation distance between inputs that
//! must look alike (exact), the mutual information between a uniform input and the view (in
//! `f64`, from the exact probabilities), and for biased shuffles the distance of each input's
//! view from the view the same protocol gives with uniform shuffles (Kim–Cetinkaya).
//!
//! In the private model the same measures are taken of every player's own view
//! ([`PlayerLeak`]): the pairs that must look alike are then those with his bit, and the
//! information is counted beyond his own input, `I(X; V_p | X_p, f(X))`.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use num_traits::{ToPrimitive, Zero};

use super::exact::Exact;
use super::state::{add_to, mul};
use super::views::ViewId;
use super::walk::Exploration;
use super::{AnalysisError, LeakWitness, Note};
use crate::model::{Action, ActionKind, Branch, Observation, Shuffle, Q};
use crate::print::render_view;
use crate::protocol::{Protocol, ProtocolError};

/// A view with its per-input probabilities.
type WeightedView = (Vec<Observation>, Vec<Exact>);

/// Complete views with their per-input probabilities.
pub type ViewDistribution = BTreeMap<Vec<Observation>, Vec<Q>>;

/// A complete view of an [`ExactViews`]: its id in the exploration's table when it is one
/// path's view (a protocol of one segment), written out when it joins the views of several
/// segments. A view is written out only where the analysis returns it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum CompleteView {
    /// A view of the exploration's [`super::Views`] table.
    Id(ViewId),
    /// The observations themselves.
    Written(Vec<Observation>),
}

/// A [`ViewDistribution`] in the analyzer's own numbers, small while they fit: every complete
/// view once, in increasing order of the views written out (the map's order), with its
/// per-input probabilities.
pub(super) type ExactViews = Vec<(CompleteView, Vec<Exact>)>;

/// A view distribution in [`Exact`] numbers.
pub(super) fn exact_views(dist: &ViewDistribution) -> ExactViews {
    dist.iter()
        .map(|(v, p)| {
            let probs = p.iter().map(Exact::from_q).collect();
            (CompleteView::Written(v.clone()), probs)
        })
        .collect()
}

/// The views of one exploration's distribution written out, for looking them up by view.
fn by_written<'d>(
    ex: &Exploration,
    dist: &'d ExactViews,
) -> BTreeMap<Vec<Observation>, &'d [Exact]> {
    dist.iter()
        .map(|(v, p)| (ex.written(v).into_owned(), p.as_slice()))
        .collect()
}

/// Total-variation distance between the views of inputs `i` and `j` in one distribution (the
/// same as `tv(dist, dist, i, j)`, without looking each view up again).
fn tv_within(dist: &ExactViews, i: usize, j: usize) -> Exact {
    let zero = Exact::zero();
    let mut sum = Exact::zero();
    for (_, p) in dist {
        let (x, y) = (p.get(i).unwrap_or(&zero), p.get(j).unwrap_or(&zero));
        if x != y {
            add_to(&mut sum, &(x - y).abs());
        }
    }
    sum.div(&Exact::from_integer(2))
}

/// Total-variation distance between the view distributions of input `i` in `a` and `j` in `b`.
fn tv(
    a: &BTreeMap<Vec<Observation>, &[Exact]>,
    b: &BTreeMap<Vec<Observation>, &[Exact]>,
    i: usize,
    j: usize,
) -> Exact {
    let zero = Exact::zero();
    let mut sum = Exact::zero();
    for (v, pa) in a {
        let x = pa.get(i).unwrap_or(&zero);
        let y = b.get(v).and_then(|pb| pb.get(j)).unwrap_or(&zero);
        if x != y {
            add_to(&mut sum, &(x - y).abs());
        }
    }
    for (v, pb) in b {
        if !a.contains_key(v) {
            add_to(&mut sum, &pb.get(j).unwrap_or(&zero).abs());
        }
    }
    sum.div(&Exact::from_integer(2))
}

impl Exploration {
    /// The complete views and their per-input probabilities, when the segment graph is acyclic
    /// (`None` for looping protocols). Views ending in every way are included.
    pub fn view_distribution(&self) -> Result<Option<ViewDistribution>, AnalysisError> {
        let exact = self.exact_view_distribution()?;
        Ok(exact.map(|dist| {
            dist.iter()
                .map(|(v, p)| {
                    (
                        self.written(v).into_owned(),
                        p.iter().map(Exact::to_q).collect(),
                    )
                })
                .collect()
        }))
    }

    /// A complete view of this exploration's distribution, written out.
    pub(super) fn written<'v>(&self, view: &'v CompleteView) -> Cow<'v, [Observation]> {
        match view {
            CompleteView::Id(id) => Cow::Owned(self.views.get(*id)),
            CompleteView::Written(v) => Cow::Borrowed(v),
        }
    }

    /// [`Exploration::view_distribution`] in [`Exact`] numbers.
    pub(super) fn exact_view_distribution(&self) -> Result<Option<ExactViews>, AnalysisError> {
        let reach = self.closure();
        if (0..self.nodes.len()).any(|x| reach[x][x]) {
            return Ok(None);
        }
        if self.nodes.len() == 1 && self.leaves.iter().all(|l| self.leaf_target(l).is_none()) {
            return self.one_segment_views().map(Some);
        }
        self.segment_graph_views().map(Some)
    }

    /// The complete views of an acyclic segment graph: each path of leaves from the start,
    /// its views joined and its masses multiplied.
    fn segment_graph_views(&self) -> Result<ExactViews, AnalysisError> {
        let mut memo: HashMap<usize, Vec<WeightedView>> = HashMap::new();
        let views = self.views_from(0, &mut memo)?;
        let mut out: BTreeMap<Vec<Observation>, Vec<Exact>> = BTreeMap::new();
        for (v, m) in views {
            let slot = out
                .entry(v)
                .or_insert_with(|| vec![Exact::zero(); self.inputs.len()]);
            for (a, b) in slot.iter_mut().zip(&m) {
                add_to(a, b);
            }
        }
        Ok(out
            .into_iter()
            .map(|(v, m)| (CompleteView::Written(v), m))
            .collect())
    }

    /// The complete views of a protocol with one segment and no loop: its leaves' views, those
    /// with the same view added together. The leaves are grouped by view id, and the views are
    /// ordered by the table without being written out (the general enumeration copies every
    /// leaf's view and mass).
    fn one_segment_views(&self) -> Result<ExactViews, AnalysisError> {
        if self.leaves.len() > self.max_views {
            return Err(AnalysisError::TooManyViews(self.max_views));
        }
        let mut slot_of: Vec<Option<usize>> = vec![None; self.views.len()];
        let mut grouped: Vec<(ViewId, Vec<Exact>)> = Vec::new();
        for leaf in &self.leaves {
            let slot = &mut slot_of[leaf.view.index()];
            match *slot {
                Some(at) => grouped[at]
                    .1
                    .iter_mut()
                    .zip(leaf.mass.iter())
                    .for_each(|(a, b)| add_to(a, b)),
                None => {
                    *slot = Some(grouped.len());
                    grouped.push((leaf.view, leaf.mass.to_vec()));
                }
            }
        }
        self.views.sort_by_view(&mut grouped);
        Ok(grouped
            .into_iter()
            .map(|(v, m)| (CompleteView::Id(v), m))
            .collect())
    }

    /// For each complete view (rendered as [`render_view`]), the output it determines: `Some(v)`
    /// when every input that can produce it has the joint output value `v`
    /// ([`crate::model::Value`]; the bit for one output), `None` when inputs of different values
    /// can. `Ok(None)` for looping protocols.
    pub fn view_outputs(
        &self,
    ) -> Result<Option<BTreeMap<String, Option<crate::model::Value>>>, AnalysisError> {
        let Some(dist) = self.exact_view_distribution()? else {
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
                    (render_view(&self.written(v)), det)
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
                None => out.push((self.views.get(leaf.view), leaf.mass.to_vec())),
                Some(y) => {
                    for (v, m) in self.views_from(y, memo)? {
                        let mut view = self.views.get(leaf.view);
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
        // The start is entered once: only a restart leads back to it, and a restart makes the
        // graph cyclic, which has no view distribution. Its views are not kept for later.
        if node != 0 {
            memo.insert(node, out.clone());
        }
        Ok(out)
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

/// A rational as the nearest `f64` (NaN if it does not fit).
pub fn q_f64(q: &Q) -> f64 {
    q.to_f64().unwrap_or(f64::NAN)
}

/// The view distribution in `f64`: one exact-to-float conversion per distinct run of equal
/// entries (a view distribution repeats a few probabilities many times, and a conversion is
/// a function of the value).
fn float_views<'d>(dist: &'d ExactViews) -> Vec<Vec<f64>> {
    let mut last: Option<(&Exact, f64)> = None;
    let mut float = |x: &'d Exact| -> f64 {
        if x.is_zero() {
            return 0.0;
        }
        match last {
            Some((y, f)) if y == x => f,
            _ => {
                let f = x.to_f64();
                last = Some((x, f));
                f
            }
        }
    };
    dist.iter()
        .map(|(_, probs)| probs.iter().map(&mut float).collect())
        .collect()
}

/// Whether some weighted shuffle has weights that differ.
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
    walk(p.body())
}

/// The same protocol with every weighted shuffle made uniform on its support (never an error
/// for a valid protocol: a support is never empty).
pub fn uniformized(p: &Protocol) -> Result<Protocol, ProtocolError> {
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
                                .map(|b| Branch {
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
    let mut parts = p.parts().clone();
    parts.body = walk(p.body());
    Protocol::new(parts)
}

/// The leak measures of an acyclic protocol, or the notes saying why they are not computed.
#[derive(Clone, Debug, Default)]
pub(super) struct LeakMeasures {
    pub(super) tv: Option<Q>,
    pub(super) worst: Option<LeakWitness>,
    pub(super) mutual_information: Option<f64>,
    pub(super) beyond_output: Option<f64>,
    pub(super) notes: Vec<Note>,
}

impl Exploration {
    /// The leak measures given the view distribution (`None` for looping protocols, where only
    /// a perfectly secure protocol's leak is known: none).
    pub(super) fn leak_measures(
        &self,
        views: Option<&ExactViews>,
        committed: bool,
        perfect: bool,
    ) -> LeakMeasures {
        let Some(dist) = views else {
            return LeakMeasures::looping(committed, perfect);
        };
        let k = self.inputs.len();
        let mut worst = Exact::zero();
        let mut worst_pair = None;
        for i in 0..k {
            for j in (i + 1)..k {
                if !self.alike(committed, i, j) {
                    continue;
                }
                let d = tv_within(dist, i, j);
                if d > worst || worst_pair.is_none() {
                    worst_pair = Some((i, j));
                    worst = d;
                }
            }
        }
        // The witness of the first pair at the largest distance, found once.
        let witness = worst_pair
            .filter(|_| !worst.is_zero())
            .map(|(i, j)| self.witness(dist, i, j));
        let fdist = float_views(dist);
        let mi = mutual_information(&fdist, &(0..k).collect::<Vec<_>>());
        let mut beyond = 0.0;
        for class in self.known_classes(committed) {
            beyond += class.len() as f64 / k as f64 * mutual_information(&fdist, &class);
        }
        LeakMeasures {
            tv: Some(worst.to_q()),
            worst: witness,
            mutual_information: Some(mi),
            beyond_output: Some(beyond),
            notes: Vec::new(),
        }
    }

    /// The inputs grouped by what the viewer may know of them anyway: the output when some
    /// ending is non-committed, and in a player's view ([`Exploration::viewer`]) his own input
    /// bit. `I(X; V | class)` is then what the view reveals beyond that: `I(X; V | f(X))` for
    /// the public view, `I(X; V | X_p, f(X))` for player `p` (without `f(X)` when committed).
    fn known_classes(&self, committed: bool) -> Vec<Vec<usize>> {
        let mut classes: BTreeMap<(Option<u8>, Option<crate::model::Value>), Vec<usize>> =
            BTreeMap::new();
        for i in 0..self.inputs.len() {
            let own = self
                .viewer
                .and_then(|p| self.inputs[i].as_bytes().get(p).copied());
            let output = (!committed).then(|| self.outputs[i]);
            classes.entry((own, output)).or_default().push(i);
        }
        classes.into_values().collect()
    }

    /// The view whose probabilities differ most between inputs `i` and `j`.
    fn witness(&self, dist: &ExactViews, i: usize, j: usize) -> LeakWitness {
        let zero = Exact::zero();
        let (view, pa, pb) = dist
            .iter()
            .map(|(v, p)| {
                let (a, b) = (p.get(i).unwrap_or(&zero), p.get(j).unwrap_or(&zero));
                (v, a, b, (a - b).abs())
            })
            .max_by(|x, y| x.3.cmp(&y.3))
            .map(|(v, a, b, _)| (self.written(v).into_owned(), a.to_q(), b.to_q()))
            .unwrap_or_default();
        LeakWitness {
            inputs: [self.inputs[i].clone(), self.inputs[j].clone()],
            view,
            probabilities: [pa, pb],
        }
    }
}

/// What one player's view reveals, in the private model: the leak measures of his own view
/// (the public view with what he drew and saw privately), judged against the inputs he cannot
/// tell apart by his own bit (and, for non-committed endings, by the output).
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerLeak {
    /// The player: the holder of the input of this name.
    pub player: String,
    /// Largest total-variation distance between his views of two inputs with his bit (and
    /// the same output, when some ending is non-committed), exact; `None` for a looping
    /// protocol whose view is not perfectly secure to him.
    pub tv_distance: Option<Q>,
    /// The worst pair and view (`None` when his view leaks nothing).
    pub tv_worst: Option<LeakWitness>,
    /// `I(X; V_p)` for uniform inputs, in bits: a float computed from the exact probabilities.
    pub mutual_information_bits: Option<f64>,
    /// `I(X; V_p | X_p, f(X))` for uniform inputs (`I(X; V_p | X_p)` when every ending is
    /// committed), in bits, a float computed from the exact probabilities: what his view
    /// reveals beyond his own input and the output he is meant to learn.
    pub leak_bits: Option<f64>,
}

impl Exploration {
    /// The leak measures of this exploration's viewer (an exploration by
    /// [`super::walk::explore_as`] with `Some(player)`), named `player`; `perfect` is his
    /// security verdict (a looping protocol's leak is known only when perfect).
    pub(super) fn player_leak(
        &self,
        player: &str,
        perfect: bool,
    ) -> Result<PlayerLeak, AnalysisError> {
        let views = self.exact_view_distribution()?;
        let committed = !self.has_open_ending();
        let m = self.leak_measures(views.as_ref(), committed, perfect);
        Ok(PlayerLeak {
            player: player.to_owned(),
            tv_distance: m.tv,
            tv_worst: m.worst,
            mutual_information_bits: m.mutual_information,
            leak_bits: m.beyond_output,
        })
    }
}

impl LeakMeasures {
    fn looping(committed: bool, perfect: bool) -> LeakMeasures {
        if !perfect {
            return LeakMeasures {
                notes: vec![Note::LoopingLeakNotQuantified],
                ..LeakMeasures::default()
            };
        }
        LeakMeasures {
            tv: Some(Q::zero()),
            worst: None,
            mutual_information: committed.then_some(0.0),
            beyond_output: Some(0.0),
            notes: if committed {
                Vec::new()
            } else {
                vec![Note::LoopingNonCommittedInformation]
            },
        }
    }
}

/// For a protocol with biased shuffles that is not perfectly secure but becomes so with every
/// shuffle made uniform on its support: the largest over inputs of the total-variation
/// distance between its view and the view under uniform shuffles (Kim–Cetinkaya). `None` when
/// that does not apply.
pub(super) fn distance_from_uniform_shuffles(
    protocol: &Protocol,
    ex: &Exploration,
    views: Option<&ExactViews>,
    opts: &super::AnalysisOptions,
) -> Result<Option<Q>, AnalysisError> {
    let (Some(a), true) = (views, has_nonuniform_shuffle(protocol)) else {
        return Ok(None);
    };
    let Ok(ideal) = uniformized(protocol) else {
        return Ok(None);
    };
    let ideal_ex = super::explore(&ideal, opts)?;
    if !ideal_ex.is_perfect() {
        return Ok(None);
    }
    let Some(b) = ideal_ex.exact_view_distribution()? else {
        return Ok(None);
    };
    let (a, b) = (by_written(ex, a), by_written(&ideal_ex, &b));
    let mut worst = Exact::zero();
    for i in 0..protocol.input_count() {
        let d = tv(&a, &b, i, i);
        if d > worst {
            worst = d;
        }
    }
    Ok(Some(worst.to_q()))
}

#[cfg(test)]
mod tests {
    use super::{CompleteView, Exact};
    use crate::analyze::explore_as;
    use crate::library::builtins;

    /// The one-segment shortcut gives exactly the views of the general path enumeration, for
    /// every built-in with one segment and every viewer.
    #[test]
    fn one_segment_views_equal_the_general_enumeration() {
        let mut checked = 0;
        for b in builtins() {
            let p = b.protocol();
            let viewers = std::iter::once(None).chain((0..p.input_count()).map(Some));
            for viewer in viewers {
                let ex = explore_as(&p, &Default::default(), viewer).expect("explores");
                let ends = ex.leaves.iter().all(|l| ex.leaf_target(l).is_none());
                if ex.nodes.len() != 1 || !ends {
                    continue;
                }
                let written = |dist: Vec<(CompleteView, Vec<Exact>)>| -> Vec<_> {
                    dist.iter()
                        .map(|(v, p)| (ex.written(v).into_owned(), p.clone()))
                        .collect()
                };
                let fast = written(ex.one_segment_views().expect("views"));
                let general = written(ex.segment_graph_views().expect("views"));
                assert_eq!(fast, general, "{}", b.name);
                checked += 1;
            }
        }
        assert!(checked > 40, "only {checked} explorations had one segment");
    }
}
