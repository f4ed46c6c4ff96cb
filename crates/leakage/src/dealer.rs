//! The permutation-sharing dealer as a [`RecordedProtocol`]: schedules of openings, the value
//! graph every message lives on, an exhaustive model, and the fast exact reduction.
//!
//! # The value graph
//!
//! Every value that travels in an opening of position `i` is the image of `i` under a prefix
//! of the chain. Name the places a value can sit (the **nodes**):
//!
//! | node        | value                                   |
//! |-------------|-----------------------------------------|
//! | `Layer(0)`  | the position `i` (public)               |
//! | `Layer(j)`  | `A_j ∘ … ∘ A_1(i)`, `1 ≤ j < N`          |
//! | `Helper(k)` | `inner_k(A_{N−1} ∘ … ∘ A_1(i))` (`D3(…)`)  |
//! | `Card`      | `A(i)`                                  |
//!
//! Every permutation of the scheme is an **edge**: `A_j` from `Layer(j−1)` to `Layer(j)` (to
//! `Card` for `j = N`), the inner half of pair `k` from `Layer(N−1)` to `Helper(k)`, the outer
//! half from `Helper(k)` to `Card`. A coalition **knows** an edge when a member holds that
//! permutation (player `N` holds all of them); it **observes** a node of an opening when a
//! member sends, receives, computes or learns the value there.
//!
//! # What a coalition's view is a function of
//!
//! Reparametrise by prefixes: `B_j = A_j ∘ … ∘ A_1` are independent and uniform, `B_N = A`,
//! and `E_k = outer_k⁻¹` is uniform and independent of them (the inner half is
//! `E_k ∘ A_N`). Condition on the permutations the coalition holds. Contract every known edge:
//! the value at every node of a contracted component is a known relabelling of one
//! representative, and the representatives of distinct components are independent uniform
//! permutations of the deck — except that the component of `Layer(0)` is the identity and, if
//! it also contains `Card`, the whole deal is known. Hence, when `Layer(0)` and `Card` are not
//! joined by known edges, **everything the coalition sees is independent of `A` except the
//! values it observes in the component of `Card`**, and each of those gives `A(i)`. The view
//! is therefore, as far as `A` is concerned, exactly `A` restricted to
//!
//! ```text
//! R_S = { i opened : S observes, in the opening of i, a node joined to Card by known edges },
//! ```
//!
//! or the whole of `A` when `Layer(0)` is joined to `Card`. [`DealerReduced`] enumerates the
//! `n!` deals with that statistic as the view; [`DealerExhaustive`] enumerates every tuple of
//! permutations and builds the literal view (permutations held, every message value, every
//! card learned). The test `reduction_agrees_with_brute_force` checks that both give the same
//! numbers for every coalition, target and several schedules at `n = 3` and `n = 4`.
//!
//! The scheme measured is the permutation-sharing dealer \[perm-sharing-dealer\] as
//! `facedown_dealer` implements it.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use facedown_core::{PartyId, Perm};
use facedown_dealer::schedule::{SchedulePhase, Scheduled};
use facedown_dealer::{DealSchedule, DealShape, Plan, Recipient, Route, Scheme, Slot};
use num_bigint::BigInt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use crate::error::LeakageError;
use crate::harness::{Coalition, RecordedProtocol, Q};

/// A place a value can sit in an opening (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Node {
    /// `A_j ∘ … ∘ A_1(i)`; `Layer(0)` is the position itself.
    Layer(u16),
    /// The inner half of helper pair `k` applied to `Layer(N − 1)`.
    Helper(u16),
    /// The card `A(i)`.
    Card,
}

/// The edge of a permutation: `(from, to)`.
pub fn edge(scheme: &Scheme, slot: Slot) -> (Node, Node) {
    let n_players = scheme.players as u16;
    match slot {
        Slot::Deal(p) if p.0 >= n_players => (Node::Layer(p.0 - 1), Node::Card),
        Slot::Deal(p) => (Node::Layer(p.0.saturating_sub(1)), Node::Layer(p.0)),
        Slot::Inner(k) => (Node::Layer(n_players - 1), Node::Helper(k)),
        Slot::Outer(k) => (Node::Helper(k), Node::Card),
    }
}

/// Who holds a permutation: its owner, and the last player for helper halves.
pub fn holders(scheme: &Scheme, slot: Slot) -> Vec<PartyId> {
    let last = scheme.last();
    match slot {
        Slot::Deal(p) => vec![p],
        Slot::Inner(k) => scheme
            .pair(k)
            .map(|p| vec![p.inner_holder, last])
            .unwrap_or_default(),
        Slot::Outer(k) => scheme
            .pair(k)
            .map(|p| vec![p.outer_holder, last])
            .unwrap_or_default(),
    }
}

/// Every permutation of the scheme.
pub fn all_slots(scheme: &Scheme) -> Vec<Slot> {
    let mut v: Vec<Slot> = PartyId::all(scheme.players).map(Slot::Deal).collect();
    for k in 0..scheme.pairs.len() as u16 {
        v.push(Slot::Inner(k));
        v.push(Slot::Outer(k));
    }
    v
}

/// A short name of a permutation (`A2`, `C3[1]`, `D3`).
pub fn slot_name(scheme: &Scheme, slot: Slot) -> String {
    match slot {
        Slot::Deal(p) => format!("A{}", p.0),
        Slot::Inner(k) => scheme
            .pair(k)
            .map_or(format!("inner{k}"), |p| p.inner_name.clone()),
        Slot::Outer(k) => scheme
            .pair(k)
            .map_or(format!("outer{k}"), |p| p.outer_name.clone()),
    }
}

/// A readable name of a node's value.
pub fn node_name(scheme: &Scheme, node: Node) -> String {
    let prefix = |j: u16| -> String {
        (1..=j)
            .rev()
            .map(|x| format!("A{x}"))
            .collect::<Vec<_>>()
            .join("∘")
    };
    match node {
        Node::Layer(0) => "i".into(),
        Node::Layer(j) => format!("{}(i)", prefix(j)),
        Node::Helper(k) => format!(
            "{}∘{}(i)",
            slot_name(scheme, Slot::Inner(k)),
            prefix(scheme.players as u16 - 1)
        ),
        Node::Card => "A(i)".into(),
    }
}

/// One scheduled opening and who observes which node of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// The position opened.
    pub position: usize,
    /// The route.
    pub route: Route,
    /// The message path (from the dealer crate).
    pub plan: Plan,
    /// The node carried by each hop.
    pub hop_nodes: Vec<Node>,
    /// For each party (index 0 = player 1), the nodes it observes, in order of the path.
    pub observed: Vec<Vec<Node>>,
    /// Who learns the card (`None`: everyone).
    pub learner: Option<PartyId>,
}

impl Opening {
    /// The opening of `position` along `route`, with who observes what.
    pub fn new(scheme: &Scheme, position: usize, route: Route) -> Result<Opening, LeakageError> {
        let plan = scheme.plan(route)?;
        let n_players = scheme.players;
        let mut observed: Vec<Vec<Node>> = vec![vec![Node::Layer(0)]; n_players];
        let see = |p: PartyId, node: Node, observed: &mut Vec<Vec<Node>>| {
            if let Some(v) = observed.get_mut(p.index()) {
                if !v.contains(&node) {
                    v.push(node);
                }
            }
        };
        let mut node = Node::Layer(0);
        let mut hop_nodes = Vec::new();
        for hop in &plan.hops {
            see(hop.from, node, &mut observed);
            for &slot in &hop.apply {
                node = edge(scheme, slot).1;
                see(hop.from, node, &mut observed);
            }
            hop_nodes.push(node);
            match hop.to {
                Recipient::Party(p) => see(p, node, &mut observed),
                Recipient::All => {
                    for p in PartyId::all(n_players) {
                        see(p, node, &mut observed);
                    }
                }
            }
        }
        let learner = match plan.learner {
            Recipient::Party(p) => Some(p),
            Recipient::All => None,
        };
        if let Some(p) = learner {
            for &slot in &plan.finish {
                node = edge(scheme, slot).1;
                see(p, node, &mut observed);
            }
        }
        Ok(Opening {
            position,
            route,
            plan,
            hop_nodes,
            observed,
            learner,
        })
    }

    /// Whether the card goes to a member of `s` (or to everyone).
    pub fn ideal_for(&self, s: &Coalition) -> bool {
        self.learner.is_none_or(|p| s.contains(p))
    }
}

/// Which openings a deal makes: `hand` cards privately to each player (player `p` gets
/// positions `(p − 1)·hand .. p·hand`), then `public` cards to everyone — the schedule of
/// [`facedown_dealer::play_with_rng`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// The scheme.
    pub scheme: Scheme,
    /// Cards per hand.
    pub hand: usize,
    /// Public cards.
    pub public: usize,
    /// Every opening, hands first.
    pub openings: Vec<Opening>,
    /// The phases, in order: a name and the indices (into `openings`) of the openings run
    /// together as one batch.
    pub phases: Vec<(String, Vec<usize>)>,
    /// The file the schedule was read from, if any (what [`Schedule::describe`] says).
    pub label: Option<String>,
}

/// The driver's default phases: every private opening in one batch, then the public ones.
fn default_phases(openings: &[Opening]) -> Vec<(String, Vec<usize>)> {
    let split = |public: bool| -> Vec<usize> {
        (0..openings.len())
            .filter(|&k| (openings[k].route == Route::Public) == public)
            .collect()
    };
    [
        ("private openings", split(false)),
        ("public openings", split(true)),
    ]
    .into_iter()
    .filter(|(_, v)| !v.is_empty())
    .map(|(name, v)| (name.to_owned(), v))
    .collect()
}

impl Schedule {
    /// The schedule for `scheme`. In the published scheme player 2 has no private path and so
    /// gets no hand (his positions stay undealt).
    pub fn new(scheme: &Scheme, hand: usize, public: usize) -> Result<Schedule, LeakageError> {
        let shape = DealShape::new(scheme, hand, public)?;
        let mut openings = Vec::new();
        for p in PartyId::all(scheme.players) {
            let Ok(route) = scheme.private_route(p) else {
                continue;
            };
            for i in shape.hand_positions(p) {
                openings.push(Opening::new(scheme, i, route)?);
            }
        }
        for i in shape.public_positions() {
            openings.push(Opening::new(scheme, i, Route::Public)?);
        }
        Ok(Schedule {
            scheme: scheme.clone(),
            hand,
            public,
            phases: default_phases(&openings),
            openings,
            label: None,
        })
    }

    /// Any list of openings `(position, learner)`, `None` meaning public; `hand` and `public`
    /// are recorded as 0 and the number of public openings.
    pub fn custom(
        scheme: &Scheme,
        openings: &[(usize, Option<PartyId>)],
    ) -> Result<Schedule, LeakageError> {
        let mut out = Vec::new();
        for &(i, to) in openings {
            if i >= scheme.cards || out.iter().any(|o: &Opening| o.position == i) {
                return Err(LeakageError::Schedule(format!(
                    "position {i} is outside the deck or opened twice"
                )));
            }
            let route = match to {
                None => Route::Public,
                Some(p) => scheme.private_route(p)?,
            };
            out.push(Opening::new(scheme, i, route)?);
        }
        Ok(Schedule {
            scheme: scheme.clone(),
            hand: 0,
            public: openings.iter().filter(|o| o.1.is_none()).count(),
            phases: default_phases(&out),
            openings: out,
            label: None,
        })
    }

    /// A schedule read from a file ([`DealSchedule`]), described as `label`: its phases in
    /// order; `hand` is recorded as 0 and `public` as the number of public openings.
    pub fn from_file(
        scheme: &Scheme,
        file: &DealSchedule,
        label: &str,
    ) -> Result<Schedule, LeakageError> {
        let mut openings = Vec::new();
        let mut phases = Vec::new();
        for phase in &file.phases {
            let start = openings.len();
            for o in &phase.openings {
                openings.push(Opening::new(scheme, o.position, o.route)?);
            }
            phases.push((phase.name.clone(), (start..openings.len()).collect()));
        }
        Ok(Schedule {
            scheme: scheme.clone(),
            hand: 0,
            public: openings.iter().filter(|o| o.route == Route::Public).count(),
            openings,
            phases,
            label: Some(label.to_owned()),
        })
    }

    /// The first `k` openings, in the same phases.
    pub fn prefix(&self, k: usize) -> Schedule {
        let mut s = self.clone();
        s.openings.truncate(k);
        for (_, v) in &mut s.phases {
            v.retain(|&i| i < k);
        }
        s.phases.retain(|(_, v)| !v.is_empty());
        s.public = s
            .openings
            .iter()
            .filter(|o| o.route == Route::Public)
            .count();
        s
    }

    /// The same openings as the dealer crate's schedule, for its driver.
    pub fn to_deal_schedule(&self) -> DealSchedule {
        let phases = self
            .phases
            .iter()
            .map(|(name, v)| SchedulePhase {
                name: name.clone(),
                openings: v
                    .iter()
                    .filter_map(|&k| self.openings.get(k))
                    .map(|o| Scheduled {
                        position: o.position,
                        route: o.route,
                        to: o.learner,
                    })
                    .collect(),
            })
            .collect();
        DealSchedule { phases }
    }

    /// A one-line description (`hands of 2 + 1 public`).
    pub fn describe(&self) -> String {
        if let Some(label) = &self.label {
            return format!("schedule {label}");
        }
        match (self.hand, self.public) {
            (0, 0) => "nothing opened".into(),
            (0, k) => format!("{k} public"),
            (h, 0) => format!("hands of {h} (private)"),
            (h, k) => format!("hands of {h} + {k} public"),
        }
    }

    /// The positions of `p`'s hand (empty if he has no private path).
    pub fn hand_positions(&self, p: PartyId) -> Vec<usize> {
        self.openings
            .iter()
            .filter(|o| o.learner == Some(p))
            .map(|o| o.position)
            .collect()
    }

    /// Positions never opened.
    pub fn undealt(&self) -> Vec<usize> {
        (0..self.scheme.cards)
            .filter(|i| !self.openings.iter().any(|o| o.position == *i))
            .collect()
    }
}

/// A game played by the dealer crate's driver on a schedule.
#[derive(Clone, Debug)]
pub struct Played {
    /// Transcript, audit and every player's view.
    pub finished: facedown_dealer::Finished,
    /// Operations that never completed.
    pub aborted: Vec<u32>,
    /// The public cards as player 1 received them, in position order.
    pub public: Vec<u16>,
}

/// Plays `schedule` with the real driver (signed messages, commitments, audit): each phase in
/// one parallel batch (by default the private openings, then the public ones), then the audit. Player `cheat.0`
/// deviates as `cheat.1`.
pub fn play_schedule<R: rand::RngCore + rand::CryptoRng + ?Sized>(
    schedule: &Schedule,
    cheat: Option<(PartyId, facedown_dealer::Deviation)>,
    rng: &mut R,
) -> Result<Played, LeakageError> {
    let game = schedule
        .to_deal_schedule()
        .play_with_rng(schedule.scheme.clone(), cheat, rng)?;
    Ok(Played {
        finished: game.finished,
        aborted: game.aborted,
        public: game.public,
    })
}

/// What a coalition may want to learn.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DealerTarget {
    /// Another player's hand (the cards at his positions, in position order).
    Hand(PartyId),
    /// The cards at positions never opened, in position order.
    Undealt,
    /// The whole deal `A`.
    Deal,
    /// One card, `A(i)`: the target of a per-card marginal.
    Card(usize),
}

impl fmt::Display for DealerTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DealerTarget::Hand(p) => write!(f, "hand of player {}", p.0),
            DealerTarget::Undealt => f.write_str("undealt cards"),
            DealerTarget::Deal => f.write_str("whole deal"),
            DealerTarget::Card(i) => write!(f, "card at position {i}"),
        }
    }
}

impl DealerTarget {
    /// The positions whose cards make up the target.
    pub fn positions(&self, schedule: &Schedule) -> Vec<usize> {
        match self {
            DealerTarget::Hand(p) => schedule.hand_positions(*p),
            DealerTarget::Undealt => schedule.undealt(),
            DealerTarget::Deal => (0..schedule.scheme.cards).collect(),
            DealerTarget::Card(i) => vec![*i],
        }
    }

    /// The targets worth measuring for `s`: the hands of players outside it, the undealt
    /// cards, the whole deal (empty targets are left out).
    pub fn for_coalition(schedule: &Schedule, s: &Coalition) -> Vec<DealerTarget> {
        let mut v: Vec<DealerTarget> = PartyId::all(schedule.scheme.players)
            .filter(|p| !s.contains(*p) && !schedule.hand_positions(*p).is_empty())
            .map(DealerTarget::Hand)
            .collect();
        if !schedule.undealt().is_empty() {
            v.push(DealerTarget::Undealt);
        }
        v.push(DealerTarget::Deal);
        v
    }
}

/// How a coalition obtains a card: the node it observes and the known permutations that take
/// it to `A(i)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Derivation {
    /// Who observes the starting value.
    pub observer: PartyId,
    /// The node observed.
    pub node: Node,
    /// The permutations applied (name, inverted?).
    pub path: Vec<(Slot, bool)>,
}

/// What a coalition can compute from its view, derived from the value graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Knowledge {
    /// The permutations the coalition holds.
    pub known: Vec<Slot>,
    /// Whether `Layer(0)` is joined to `Card`: the coalition knows the whole deal `A`.
    pub whole_deal: bool,
    /// Positions whose card the coalition can compute, with how.
    pub cards: BTreeMap<usize, Derivation>,
}

impl Knowledge {
    /// Derives what `s` can compute under `schedule`.
    pub fn of(schedule: &Schedule, s: &Coalition) -> Knowledge {
        let scheme = &schedule.scheme;
        let known: Vec<Slot> = all_slots(scheme)
            .into_iter()
            .filter(|&slot| holders(scheme, slot).iter().any(|p| s.contains(*p)))
            .collect();
        // BFS from Card over known edges; parent[node] = (next node towards Card, slot, inverted).
        let mut parent: BTreeMap<Node, Option<(Node, Slot, bool)>> = BTreeMap::new();
        parent.insert(Node::Card, None);
        let mut queue = VecDeque::from([Node::Card]);
        while let Some(x) = queue.pop_front() {
            for &slot in &known {
                let (a, b) = edge(scheme, slot);
                // From `a`, applying `slot` reaches `b`; from `b`, its inverse reaches `a`.
                let step = if b == x {
                    Some((a, false))
                } else if a == x {
                    Some((b, true))
                } else {
                    None
                };
                if let Some((y, inverted)) = step {
                    if let std::collections::btree_map::Entry::Vacant(e) = parent.entry(y) {
                        e.insert(Some((x, slot, inverted)));
                        queue.push_back(y);
                    }
                }
            }
        }
        let path_from = |mut y: Node| -> Vec<(Slot, bool)> {
            let mut path = Vec::new();
            while let Some(Some((next, slot, inv))) = parent.get(&y) {
                path.push((*slot, *inv));
                y = *next;
            }
            path
        };
        let whole_deal = parent.contains_key(&Node::Layer(0));
        let mut cards = BTreeMap::new();
        if whole_deal {
            let first = s.members().next().unwrap_or(PartyId(1));
            for i in 0..scheme.cards {
                cards.insert(
                    i,
                    Derivation {
                        observer: first,
                        node: Node::Layer(0),
                        path: path_from(Node::Layer(0)),
                    },
                );
            }
        } else {
            for o in &schedule.openings {
                let best = s
                    .members()
                    .flat_map(|p| o.observed[p.index()].iter().map(move |n| (p, *n)))
                    .filter(|(_, n)| parent.contains_key(n))
                    .min_by_key(|(_, n)| path_from(*n).len());
                if let Some((p, n)) = best {
                    cards.insert(
                        o.position,
                        Derivation {
                            observer: p,
                            node: n,
                            path: path_from(n),
                        },
                    );
                }
            }
        }
        Knowledge {
            known,
            whole_deal,
            cards,
        }
    }

    /// A sentence explaining how the cards at `positions` are obtained (those the coalition
    /// would not know from an ideal dealer); empty if none.
    pub fn explain(&self, schedule: &Schedule, s: &Coalition, positions: &[usize]) -> String {
        let scheme = &schedule.scheme;
        if self.whole_deal {
            let held: Vec<String> = PartyId::all(scheme.players)
                .map(|p| {
                    if s.contains(p) {
                        format!("A{}", p.0)
                    } else {
                        let d = self.cards.values().next();
                        let via = d
                            .map(|d| {
                                d.path
                                    .iter()
                                    .filter(|(sl, _)| !matches!(sl, Slot::Deal(_)))
                                    .map(|(sl, _)| {
                                        let h = holders(scheme, *sl)
                                            .into_iter()
                                            .find(|h| s.contains(*h))
                                            .map_or(String::new(), |h| h.0.to_string());
                                        format!("{} (player {h})", slot_name(scheme, *sl))
                                    })
                                    .rev()
                                    .collect::<Vec<_>>()
                                    .join("∘")
                            })
                            .unwrap_or_default();
                        format!("A{} = {via}", p.0)
                    }
                })
                .collect();
            return format!(
                "{s} hold {}, so A = A{}∘…∘A1: the whole deal",
                held.join(", "),
                scheme.players
            );
        }
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let ideal: Vec<usize> = schedule
            .openings
            .iter()
            .filter(|o| o.ideal_for(s))
            .map(|o| o.position)
            .collect();
        for i in positions {
            if ideal.contains(i) {
                continue;
            }
            if let Some(d) = self.cards.get(i) {
                let apply: Vec<String> = d
                    .path
                    .iter()
                    .map(|(sl, inv)| {
                        format!("{}{}", slot_name(scheme, *sl), if *inv { "⁻¹" } else { "" })
                    })
                    .collect();
                let text = format!(
                    "player {} sees {} and applies {}",
                    d.observer.0,
                    node_name(scheme, d.node),
                    apply.join(" then ")
                );
                groups.entry(text).or_default().push(*i);
            }
        }
        groups
            .into_iter()
            .map(|(t, ps)| {
                let ps: Vec<String> = ps.iter().map(usize::to_string).collect();
                format!("{t} = A(i) for positions {}", ps.join(","))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Positions whose card is computable.
    pub fn positions(&self) -> Vec<usize> {
        self.cards.keys().copied().collect()
    }
}

/// All permutations of `0..n` in lexicographic order (as image vectors).
pub fn all_perms(n: usize) -> Vec<Vec<u16>> {
    let mut cur: Vec<u16> = (0..n as u16).collect();
    let mut out = vec![cur.clone()];
    while facedown_core::perm::next_permutation(&mut cur) {
        out.push(cur.clone());
    }
    out
}

/// `n!`, saturating.
fn factorial(n: usize) -> u128 {
    facedown_core::perm::factorial(n).unwrap_or(u128::MAX)
}

fn inv(p: &[u16]) -> Vec<u16> {
    let mut out = vec![0u16; p.len()];
    for (i, &x) in p.iter().enumerate() {
        out[usize::from(x)] = i as u16;
    }
    out
}

fn comp(a: &[u16], b: &[u16]) -> Vec<u16> {
    b.iter().map(|&x| a[usize::from(x)]).collect()
}

/// One literal run of the dealer: every permutation drawn.
#[derive(Clone, Debug)]
pub struct FullRun {
    /// `A_1 … A_N` as images.
    pub a: Vec<Vec<u16>>,
    /// Outer half of every pair.
    pub outer: Vec<Vec<u16>>,
    /// Inner half of every pair.
    pub inner: Vec<Vec<u16>>,
    /// `A = A_N ∘ … ∘ A_1`.
    pub deal: Vec<u16>,
}

impl FullRun {
    /// The run from the deal shares and the drawn helper halves (as the dealer draws them).
    pub fn new(scheme: &Scheme, a: Vec<Vec<u16>>, drawn: Vec<Vec<u16>>) -> FullRun {
        let n = scheme.cards;
        let mut deal: Vec<u16> = (0..n as u16).collect();
        for aj in &a {
            deal = comp(aj, &deal);
        }
        let a_last = a.last().cloned().unwrap_or_default();
        let mut outer = Vec::new();
        let mut inner = Vec::new();
        for (pair, r) in scheme.pairs.iter().zip(drawn) {
            match pair.drawn {
                facedown_dealer::scheme::Half::Outer => {
                    inner.push(comp(&inv(&r), &a_last));
                    outer.push(r);
                }
                facedown_dealer::scheme::Half::Inner => {
                    outer.push(comp(&a_last, &inv(&r)));
                    inner.push(r);
                }
            }
        }
        FullRun {
            a,
            outer,
            inner,
            deal,
        }
    }

    /// The value at `node` in the opening of `position`.
    pub fn value(&self, node: Node, position: usize) -> u16 {
        match node {
            Node::Card => self.deal[position],
            Node::Layer(j) => self
                .a
                .iter()
                .take(usize::from(j))
                .fold(position as u16, |x, aj| aj[usize::from(x)]),
            Node::Helper(k) => {
                let z = self.value(Node::Layer(self.a.len() as u16 - 1), position);
                self.inner[usize::from(k)][usize::from(z)]
            }
        }
    }
}

/// The dealer enumerated literally: every `A_j` and every drawn helper half range over all
/// `n!` permutations, `(n!)^(N + pairs)` runs. Views are literal: the permutations a player
/// holds, every value he observes in every opening, every card he learns. For tiny decks only;
/// it is the reference the fast reduction is checked against.
#[derive(Clone, Debug)]
pub struct DealerExhaustive {
    schedule: Schedule,
    perms: Vec<Vec<u16>>,
}

/// The largest number of runs [`DealerExhaustive`] accepts.
pub const EXHAUSTIVE_LIMIT: u128 = 50_000_000;

impl DealerExhaustive {
    /// The exhaustive model of `schedule`.
    pub fn new(schedule: Schedule) -> Result<DealerExhaustive, LeakageError> {
        let s = &schedule.scheme;
        let runs = factorial(s.cards).saturating_pow((s.players + s.pairs.len()) as u32);
        if runs > EXHAUSTIVE_LIMIT {
            return Err(LeakageError::TooManyRuns {
                runs,
                limit: EXHAUSTIVE_LIMIT,
            });
        }
        let perms = all_perms(s.cards);
        Ok(DealerExhaustive { schedule, perms })
    }
}

fn party_view(schedule: &Schedule, run: &FullRun, p: PartyId, out: &mut Vec<u32>) {
    let scheme = &schedule.scheme;
    let push = |out: &mut Vec<u32>, perm: &[u16]| out.extend(perm.iter().map(|&x| u32::from(x)));
    push(out, &run.a[p.index()]);
    for (k, pair) in scheme.pairs.iter().enumerate() {
        if p == scheme.last() || pair.outer_holder == p {
            push(out, &run.outer[k]);
        }
        if p == scheme.last() || pair.inner_holder == p {
            push(out, &run.inner[k]);
        }
    }
    for o in &schedule.openings {
        for &node in &o.observed[p.index()] {
            out.push(u32::from(run.value(node, o.position)));
        }
    }
}

fn ideal(schedule: &Schedule, deal: &[u16], s: &Coalition) -> Vec<u32> {
    schedule
        .openings
        .iter()
        .filter(|o| o.ideal_for(s))
        .map(|o| u32::from(deal[o.position]))
        .collect()
}

fn target_value(schedule: &Schedule, deal: &[u16], t: &DealerTarget) -> Vec<u32> {
    t.positions(schedule)
        .into_iter()
        .map(|i| u32::from(deal[i]))
        .collect()
}

fn random_perm(n: usize, rng: &mut ChaCha20Rng) -> Vec<u16> {
    let mut v: Vec<u16> = (0..n as u16).collect();
    v.shuffle(rng);
    v
}

impl RecordedProtocol for DealerExhaustive {
    type Run = FullRun;
    type Target = DealerTarget;

    fn parties(&self) -> usize {
        self.schedule.scheme.players
    }

    fn targets(&self, coalition: &Coalition) -> Vec<DealerTarget> {
        DealerTarget::for_coalition(&self.schedule, coalition)
    }

    fn for_each_run(&self, f: &mut dyn FnMut(&FullRun, &Q)) -> Result<(), LeakageError> {
        let s = &self.schedule.scheme;
        let slots = s.players + s.pairs.len();
        let m = self.perms.len();
        let total = BigInt::from(m).pow(slots as u32);
        let p = Q::new(BigInt::from(1), total);
        let mut idx = vec![0usize; slots];
        loop {
            let a = idx[..s.players]
                .iter()
                .map(|&k| self.perms[k].clone())
                .collect();
            let drawn = idx[s.players..]
                .iter()
                .map(|&k| self.perms[k].clone())
                .collect();
            f(&FullRun::new(s, a, drawn), &p);
            // Odometer.
            let mut d = 0;
            loop {
                if d == slots {
                    return Ok(());
                }
                idx[d] += 1;
                if idx[d] < m {
                    break;
                }
                idx[d] = 0;
                d += 1;
            }
        }
    }

    fn sample_run(&self, rng: &mut ChaCha20Rng) -> FullRun {
        sample_full(&self.schedule.scheme, rng)
    }

    fn view(&self, run: &FullRun, coalition: &Coalition) -> Vec<u32> {
        let mut out = Vec::new();
        for p in coalition.members() {
            party_view(&self.schedule, run, p, &mut out);
        }
        out
    }

    fn ideal_view(&self, run: &FullRun, coalition: &Coalition) -> Vec<u32> {
        ideal(&self.schedule, &run.deal, coalition)
    }

    fn target(&self, run: &FullRun, target: &DealerTarget) -> Vec<u32> {
        target_value(&self.schedule, &run.deal, target)
    }
}

/// Draws every permutation of one deal uniformly.
pub fn sample_full(scheme: &Scheme, rng: &mut ChaCha20Rng) -> FullRun {
    let n = scheme.cards;
    let a = (0..scheme.players).map(|_| random_perm(n, rng)).collect();
    let drawn = (0..scheme.pairs.len())
        .map(|_| random_perm(n, rng))
        .collect();
    FullRun::new(scheme, a, drawn)
}

/// The fast exact model: runs are the `n!` deals, and a coalition's view is `A` restricted to
/// the positions it can compute ([`Knowledge`]), which the [module docs](self) show carries
/// the same information about `A` as the literal view.
#[derive(Clone, Debug)]
pub struct DealerReduced {
    schedule: Schedule,
    knowledge: BTreeMap<Coalition, Vec<usize>>,
    perms: Vec<Vec<u16>>,
}

/// The largest deck [`DealerReduced`] enumerates (`10! = 3 628 800` deals).
pub const REDUCED_MAX_CARDS: usize = 10;

impl DealerReduced {
    /// The reduced model of `schedule`.
    pub fn new(schedule: Schedule) -> Result<DealerReduced, LeakageError> {
        let n = schedule.scheme.cards;
        if n > REDUCED_MAX_CARDS {
            return Err(LeakageError::TooManyRuns {
                runs: factorial(n),
                limit: factorial(REDUCED_MAX_CARDS),
            });
        }
        let knowledge = Coalition::all_proper(schedule.scheme.players)
            .into_iter()
            .map(|c| {
                let k = Knowledge::of(&schedule, &c).positions();
                (c, k)
            })
            .collect();
        Ok(DealerReduced {
            perms: all_perms(n),
            schedule,
            knowledge,
        })
    }

    /// The schedule.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }
}

/// A run of the reduced model: the deal.
pub type Deal = Vec<u16>;

impl RecordedProtocol for DealerReduced {
    type Run = Deal;
    type Target = DealerTarget;

    fn parties(&self) -> usize {
        self.schedule.scheme.players
    }

    fn targets(&self, coalition: &Coalition) -> Vec<DealerTarget> {
        DealerTarget::for_coalition(&self.schedule, coalition)
    }

    fn for_each_run(&self, f: &mut dyn FnMut(&Deal, &Q)) -> Result<(), LeakageError> {
        let p = Q::new(BigInt::from(1), BigInt::from(self.perms.len()));
        for d in &self.perms {
            f(d, &p);
        }
        Ok(())
    }

    fn sample_run(&self, rng: &mut ChaCha20Rng) -> Deal {
        random_perm(self.schedule.scheme.cards, rng)
    }

    fn view(&self, run: &Deal, coalition: &Coalition) -> Vec<u32> {
        match self.knowledge.get(coalition) {
            Some(ps) => ps.iter().map(|&i| u32::from(run[i])).collect(),
            None => Knowledge::of(&self.schedule, coalition)
                .positions()
                .into_iter()
                .map(|i| u32::from(run[i]))
                .collect(),
        }
    }

    fn ideal_view(&self, run: &Deal, coalition: &Coalition) -> Vec<u32> {
        ideal(&self.schedule, run, coalition)
    }

    fn target(&self, run: &Deal, target: &DealerTarget) -> Vec<u32> {
        target_value(&self.schedule, run, target)
    }
}

/// Converts a view's permutation to images.
pub fn images(p: &Perm) -> Vec<u16> {
    p.images().map(|x| x as u16).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::measure_exact;

    #[test]
    fn all_perms_lists_each_permutation_once() {
        let p = all_perms(4);
        assert_eq!(p.len(), 24);
        let set: std::collections::BTreeSet<_> = p.iter().collect();
        assert_eq!(set.len(), 24);
    }

    #[test]
    fn observed_nodes_follow_the_published_c3_d3_path() {
        let s = Scheme::published(4).expect("scheme");
        let o = Opening::new(&s, 0, Route::Helper(0)).expect("opening");
        // 1 → 2: A1(i); 2 → 1: D3∘A2∘A1(i); player 1 applies C3.
        assert_eq!(o.hop_nodes, vec![Node::Layer(1), Node::Helper(0)]);
        assert!(o.observed[0].contains(&Node::Card));
        assert!(!o.observed[1].contains(&Node::Card));
        assert!(o.observed[2] == vec![Node::Layer(0)]);
    }

    fn reduction_matches(scheme: &Scheme, hand: usize, public: usize) {
        let sched = Schedule::new(scheme, hand, public).expect("schedule");
        schedules_agree(sched);
    }

    fn schedules_agree(sched: Schedule) {
        let scheme = sched.scheme.clone();
        let (hand, public) = (sched.hand, sched.public);
        let full = DealerExhaustive::new(sched.clone()).expect("small");
        let fast = DealerReduced::new(sched).expect("small");
        for c in Coalition::all_proper(scheme.players) {
            for t in fast.targets(&c) {
                let a = measure_exact(&full, &c, &t).expect("exact");
                let b = measure_exact(&fast, &c, &t).expect("exact");
                let ctx = format!("{scheme:?} hand {hand} public {public}: {c} / {t}");
                assert_eq!(a.excess_is_zero, b.excess_is_zero, "{ctx}");
                assert!((a.excess_bits - b.excess_bits).abs() < 1e-9, "{ctx}");
                assert!((a.view_bits - b.view_bits).abs() < 1e-9, "{ctx}");
                assert_eq!(a.guess_probability, b.guess_probability, "{ctx}");
                assert_eq!((a.hidden, a.determined), (b.hidden, b.determined), "{ctx}");
            }
        }
    }

    #[test]
    fn reduction_agrees_with_brute_force_n3_three_players() {
        let g = Scheme::general(3, 3).expect("scheme");
        for (hand, public) in [(1, 0), (0, 2), (0, 3), (0, 0)] {
            reduction_matches(&g, hand, public);
        }
        let p = Scheme::published(3).expect("scheme");
        reduction_matches(&p, 1, 0);
        reduction_matches(&p, 0, 1);
    }

    #[test]
    fn reduction_agrees_with_brute_force_four_players_every_route() {
        // n = 2: every private route of N = 4 (to player 3 through the extra round via
        // player 2, to player 1 through D4[1] held by player 3, direct to player 4).
        let g = Scheme::general(4, 2).expect("scheme");
        for openings in [
            vec![(0, Some(PartyId(3))), (1, Some(PartyId(1)))],
            vec![(0, Some(PartyId(2))), (1, Some(PartyId(4)))],
            vec![(0, None), (1, Some(PartyId(3)))],
        ] {
            schedules_agree(Schedule::custom(&g, &openings).expect("schedule"));
        }
    }

    #[test]
    fn literal_views_match_the_driver() {
        // The model's node values are exactly the values the dealer's players send.
        use facedown_core::rng::seeded_rng;
        for (scheme, hand, public) in [
            (Scheme::general(3, 9).expect("scheme"), 2, 2),
            (Scheme::general(4, 9).expect("scheme"), 1, 3),
            (Scheme::published(7).expect("scheme"), 2, 1),
        ] {
            let sched = Schedule::new(&scheme, hand, public).expect("schedule");
            let game = play_schedule(&sched, None, &mut seeded_rng(5)).expect("game");
            let views = &game.finished.views;
            let a: Vec<Vec<u16>> = views.iter().map(|v| images(&v.deal)).collect();
            let last = &views[scheme.players - 1];
            let drawn: Vec<Vec<u16>> = scheme
                .pairs
                .iter()
                .zip(&last.drawn_helpers)
                .map(|(pair, (_, o, i))| match pair.drawn {
                    facedown_dealer::scheme::Half::Outer => images(o),
                    facedown_dealer::scheme::Half::Inner => images(i),
                })
                .collect();
            let run = FullRun::new(&scheme, a, drawn);
            assert_eq!(Some(run.deal.clone()), game.finished.audit.deal);
            let ops = &game.finished.transcript.operations;
            assert_eq!(ops.len(), sched.openings.len());
            for (op, o) in ops.iter().zip(&sched.openings) {
                assert_eq!(usize::from(op.position), o.position);
                for env in &game.finished.transcript.envelopes {
                    if let facedown_dealer::Body::Value { op: id, hop, value } = env.body {
                        if id == op.id {
                            let node = o.hop_nodes[usize::from(hop)];
                            assert_eq!(value, run.value(node, o.position), "{node:?}");
                        }
                    }
                }
            }
        }
    }
}
