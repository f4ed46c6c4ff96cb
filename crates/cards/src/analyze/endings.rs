//! Mixed endings: protocols that end committed in some runs and non-committed in others.
//!
//! A committed ending (`result`) keeps the output face down, so its view must reveal nothing
//! about the inputs; a non-committed ending (the actions run out) reveals the output on purpose,
//! so its view may depend on the output but on nothing else. A protocol whose endings are all of
//! one kind is judged by the per-observation check of the verdict (every pair of inputs must look
//! alike, or every pair with the same output). A *mixed* protocol is judged by what each kind of
//! ending reveals:
//!
//! * the per-observation check with the non-committed relation (pairs with the same output)
//!   holds along every path, since every view may at most reveal the output;
//! * and every **complete view that ends committed** has the same probability under every two
//!   inputs that must look alike to a committed protocol (all pairs in the public model, or the
//!   pairs a player cannot tell apart by his input in the private model): a committed ending
//!   reached more often under one output than under the other tells the output that it claims
//!   to keep face down.
//!
//! Correctness is checked per branch kind by the walk and the verdict as before: every
//! committed result decodes to its output, every non-committed view determines the outputs.
//!
//! The complete views are enumerated along the acyclic segment graph; for a looping mixed
//! protocol the second check is not made and a note says so.

use num_traits::Zero;
use serde::Serialize;

use super::defect::Defect;
use super::state::times;
use super::verdict::Security;
use super::walk::{Ending, Exploration};
use super::Note;
use crate::model::Observation;

use super::exact::Exact;
use crate::print::render_view;

/// Which kinds of ending a protocol reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Endings {
    /// Every reachable ending is a committed `result`.
    Committed,
    /// No reachable ending is a committed `result`.
    NonCommitted,
    /// Some reachable endings are committed and some are not.
    Mixed,
}

impl Endings {
    /// Every kind, in the order of the format's claim table.
    pub const ALL: [Endings; 3] = [Endings::Committed, Endings::NonCommitted, Endings::Mixed];

    /// The name used in the format and the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Endings::Committed => "committed",
            Endings::NonCommitted => "non-committed",
            Endings::Mixed => "mixed",
        }
    }
}

impl std::fmt::Display for Endings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A complete view that ends at a committed `result`, with its probability per input.
type CommittedView = (Vec<Observation>, Vec<Exact>);

impl Exploration {
    /// Which kinds of ending are reachable with positive probability.
    pub fn endings(&self) -> Endings {
        let open = self.has_open_ending();
        let committed = self.reaches_result();
        match (committed, open) {
            (true, true) => Endings::Mixed,
            (_, true) => Endings::NonCommitted,
            _ => Endings::Committed,
        }
    }

    /// The security after the committed-ending check of a mixed protocol (module docs): the
    /// level the per-observation check found, weakened when a committed ending's view depends
    /// on the input, with the defects that say where; a note when the check cannot be made.
    /// Protocols whose endings are of one kind keep `level`.
    pub(super) fn ending_security(&self, level: Security) -> (Security, Vec<Defect>, Option<Note>) {
        if self.endings() != Endings::Mixed {
            return (level, Vec::new(), None);
        }
        let Some(views) = self.committed_views() else {
            return (level, Vec::new(), Some(Note::LoopingMixedEndings));
        };
        let k = self.inputs.len();
        let mut defects = Vec::new();
        let mut possible = true;
        for (view, mass) in &views {
            let pair = (0..k)
                .flat_map(|i| ((i + 1)..k).map(move |j| (i, j)))
                .find(|&(i, j)| self.alike(true, i, j) && mass[i] != mass[j]);
            if let Some((i, j)) = pair {
                possible &= mass[i].is_zero() == mass[j].is_zero();
                if defects.len() < 8 {
                    defects.push(Defect::CommittedEndingReveals {
                        view: render_view(view),
                        inputs: (self.inputs[i].clone(), self.inputs[j].clone()),
                        probabilities: (mass[i].to_q(), mass[j].to_q()),
                    });
                }
            }
        }
        let level = match (defects.is_empty(), possible) {
            (true, _) => level,
            (false, true) => level.max(Security::InputPossibilistic),
            (false, false) => Security::Insecure,
        };
        (level, defects, None)
    }

    /// The complete views (as [`render_view`] writes them) of the runs that end at a
    /// committed `result`; `None` when the segment graph has a cycle (or too many views). The
    /// actions a run takes follow from what it has seen, so a view ends one way only.
    pub fn committed_view_names(&self) -> Option<std::collections::BTreeSet<String>> {
        let views = self.committed_views()?;
        Some(views.iter().map(|(v, _)| render_view(v)).collect())
    }

    /// Whether some committed `result` is reachable with positive probability.
    fn reaches_result(&self) -> bool {
        let reachable = self.reachable();
        self.leaves.iter().any(|l| {
            matches!(l.ending, Ending::Result(_))
                && reachable[l.node]
                && l.mass.iter().any(|x| !x.is_zero())
        })
    }

    /// Every complete view from the start that ends committed, with its probability per input;
    /// `None` when the segment graph has a cycle (or too many views).
    fn committed_views(&self) -> Option<Vec<CommittedView>> {
        let mut out = Vec::new();
        let mut on_path = vec![false; self.nodes.len()];
        let one = vec![Exact::from_integer(1); self.inputs.len()];
        self.committed_from(0, &[], &one, &mut on_path, &mut out)
            .then_some(out)
    }

    /// Adds the committed views from `node` after `prefix` (seen with probability `mass`);
    /// false on a cycle or past the view limit.
    fn committed_from(
        &self,
        node: usize,
        prefix: &[Observation],
        mass: &[Exact],
        on_path: &mut [bool],
        out: &mut Vec<CommittedView>,
    ) -> bool {
        if std::mem::replace(&mut on_path[node], true) {
            return false;
        }
        for leaf in self.leaves.iter().filter(|l| l.node == node) {
            let mass: Vec<_> = times(mass, &leaf.mass);
            if mass.iter().all(Zero::is_zero) {
                continue;
            }
            let mut view = prefix.to_vec();
            view.extend(self.views.get(leaf.view));
            let ok = match (&leaf.ending, self.leaf_target(leaf)) {
                (_, Some(next)) => self.committed_from(next, &view, &mass, on_path, out),
                (Ending::Result(_), None) => {
                    out.push((view, mass));
                    out.len() <= self.max_views
                }
                _ => true,
            };
            if !ok {
                return false;
            }
        }
        on_path[node] = false;
        true
    }
}
