//! Constructive attacks: recover cards from the complete views of a real game.
//!
//! The coalition pools its members' [`View`]s (as recorded by the dealer crate's players):
//! the permutations they hold, the helper halves they were given, every value message they
//! sent or received and every card they learned. Each value message sits at a node of the
//! value graph ([`crate::dealer`]); the attack propagates known values along the permutations
//! the coalition holds (forwards, or backwards through the inverse) until nothing changes, and
//! reads off `A(i)` wherever the `Card` node is reached. It never looks at anything outside
//! the pooled views; the harness compares what it recovers with the audit's deal.
//!
//! The scheme attacked is the permutation-sharing dealer \[perm-sharing-dealer\].

use std::collections::{BTreeMap, HashMap};

use facedown_core::{PartyId, Perm};
use facedown_dealer::scheme::Half;
use facedown_dealer::{Body, Operation, Scheme, Slot, View};

use crate::dealer::{edge, Node, Opening};
use crate::error::LeakageError;

/// What a coalition recovered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// `position → card` for every card the coalition can compute.
    pub cards: BTreeMap<usize, u16>,
}

/// The permutations the coalition holds, by slot.
fn held(scheme: &Scheme, views: &[&View]) -> Result<HashMap<Slot, Perm>, LeakageError> {
    let mut out = HashMap::new();
    for v in views {
        if v.deal.len() != scheme.cards {
            return Err(LeakageError::BadView {
                party: v.party,
                what: format!(
                    "a permutation of {} cards, not {}",
                    v.deal.len(),
                    scheme.cards
                ),
            });
        }
        out.insert(Slot::Deal(v.party), v.deal.clone());
        for (k, half, p) in &v.helpers {
            let slot = match half {
                Half::Outer => Slot::Outer(*k),
                Half::Inner => Slot::Inner(*k),
            };
            out.insert(slot, p.clone());
        }
        for (k, outer, inner) in &v.drawn_helpers {
            out.insert(Slot::Outer(*k), outer.clone());
            out.insert(Slot::Inner(*k), inner.clone());
        }
    }
    Ok(out)
}

fn propagate(scheme: &Scheme, known: &HashMap<Slot, Perm>, values: &mut HashMap<Node, usize>) {
    loop {
        let mut changed = false;
        for (slot, perm) in known {
            let (a, b) = edge(scheme, *slot);
            match (values.get(&a).copied(), values.get(&b).copied()) {
                (Some(x), None) => {
                    if let Some(y) = perm.get(x) {
                        values.insert(b, y);
                        changed = true;
                    }
                }
                (None, Some(y)) => {
                    if let Some(x) = perm.inverse().get(y) {
                        values.insert(a, x);
                        changed = true;
                    }
                }
                _ => {}
            }
        }
        if !changed {
            return;
        }
    }
}

/// Recovers every card the pooled `views` determine, for a game of `scheme` whose openings
/// were `operations` (public, from the transcript).
pub fn recover(
    scheme: &Scheme,
    operations: &[Operation],
    views: &[&View],
) -> Result<Recovered, LeakageError> {
    let known = held(scheme, views)?;
    let mut by_position: BTreeMap<usize, HashMap<Node, usize>> = BTreeMap::new();
    for i in 0..scheme.cards {
        by_position.insert(i, HashMap::from([(Node::Layer(0), i)]));
    }
    let mut op_info: HashMap<u32, (usize, Opening)> = HashMap::new();
    for op in operations {
        let o = Opening::new(scheme, usize::from(op.position), op.route)?;
        op_info.insert(op.id, (usize::from(op.position), o));
    }
    let bad = |party: PartyId, what: String| LeakageError::BadView { party, what };
    for v in views {
        for env in v.sent.iter().chain(&v.received) {
            if let Body::Value { op, hop, value } = env.body {
                let (pos, o) = op_info
                    .get(&op)
                    .ok_or_else(|| bad(v.party, format!("a value for unknown operation {op}")))?;
                let node = *o
                    .hop_nodes
                    .get(usize::from(hop))
                    .ok_or_else(|| bad(v.party, format!("hop {hop} beyond operation {op}")))?;
                if let Some(m) = by_position.get_mut(pos) {
                    m.insert(node, usize::from(value));
                }
            }
        }
        for l in &v.learned {
            if let Some(m) = by_position.get_mut(&usize::from(l.position)) {
                m.insert(Node::Card, usize::from(l.card));
            }
        }
    }
    let mut out = Recovered::default();
    for (i, mut values) in by_position {
        propagate(scheme, &known, &mut values);
        if let Some(&c) = values.get(&Node::Card) {
            out.cards.insert(i, c as u16);
        }
    }
    Ok(out)
}
