//! The search problem: the deck's sequences, the states over them, and the actions on states
//! (shuffles, turns, results) with the security and finality tests of the module docs.

use std::collections::{HashMap, HashSet};

use facedown_core::{Perm, Symbol};

use super::shuffles::{all_perms, apply_seq, PermTable, ShuffleOp};
use super::{SearchError, SearchQuery, SearchRuntime, SearchSecurity, ShuffleClass};
use super::{MAX_CARDS, MAX_INPUTS, MAX_SUBGROUP_CARDS};
use crate::analyze::{analyze, Defect, Runtime};
use crate::model::{decode_bit, input_bits, Action, ActionKind, Branch, Function, LayoutItem};
use crate::protocol::{Protocol, ProtocolParts};

/// One column entry per input: exact weights (perfect mode) or 0/1 (possibilistic modes).
pub(super) type Col = [u64; MAX_INPUTS];

/// A KWH state: `(sequence index, column entries per input)`, sorted by sequence index, no zero
/// rows. In perfect mode each column holds coprime integers (its distribution, canonically).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct State {
    pub(super) rows: Vec<(u16, Col)>,
}

/// An action applied to a state, with its children.
#[derive(Clone, Debug)]
pub(super) struct Step {
    pub(super) kind: StepKind,
    /// `(observation: symbol ids at the turned positions, packed 4 bits each; child)`; one
    /// child for a shuffle.
    pub(super) children: Vec<(u64, State)>,
}

/// Which action a [`Step`] is.
#[derive(Clone, Copy, Debug)]
pub(super) enum StepKind {
    /// The shuffle with this index in [`Problem::shuffles`].
    Shuffle(usize),
    /// A turn of the positions in this bit mask.
    Turn(u16),
}

/// Which input relabellings are symmetries of the search (see the module docs of `canon`).
#[derive(Clone, Debug)]
pub(super) enum Columns {
    /// None: a Las Vegas `goto` must arrive at exactly the label's columns.
    Fixed,
    /// Any permutation of the inputs inside each output class (`classes[0]`: the inputs with
    /// `f = 0`, `classes[1]`: `f = 1`); with `swap`, also one that exchanges the classes
    /// together with the two colours.
    ByOutput {
        classes: [Vec<usize>; 2],
        swap: bool,
    },
}

/// Everything fixed by the query: deck, sequences, symmetries and actions.
pub(super) struct Problem {
    pub(super) query: SearchQuery,
    pub(super) n: usize,
    pub(super) k: usize,
    pub(super) outputs: Vec<bool>,
    /// States carry exact probabilities (perfect security, or any Las Vegas search: a loop must
    /// bring back exact distributions); otherwise only supports.
    pub(super) perfect: bool,
    /// Standard deck (distinct cards) rather than two colours.
    pub(super) standard: bool,
    /// The symbol of each symbol id (two colours: 0 = ♣, 1 = ♥; standard: cards in order).
    pub(super) symbols: Vec<Symbol>,
    /// Sequences (symbol ids per position) by index, and index by sequence.
    pub(super) seqs: Vec<Vec<u8>>,
    pub(super) index: HashMap<Vec<u8>, u16>,
    /// Permutations of the positions, in lexicographic order, and their products.
    pub(super) perms: PermTable,
    /// The induced map on sequence indices, per permutation.
    pub(super) perm_seq: Vec<Vec<u16>>,
    /// The input relabellings used as symmetries.
    pub(super) columns: Columns,
    /// The colour swap on sequence indices (two colours with as many ♣ as ♥).
    pub(super) complement: Option<Vec<u16>>,
    pub(super) shuffles: Vec<ShuffleOp>,
    pub(super) turns: Vec<u16>,
}

const NONE: u16 = u16::MAX;

/// Per-sequence sums of one shuffle, reused across the shuffles of one expansion.
pub(super) struct Accumulator {
    slots: Vec<Col>,
    touched: Vec<u16>,
}

impl Accumulator {
    fn new(sequences: usize) -> Accumulator {
        Accumulator {
            slots: vec![[0; MAX_INPUTS]; sequences],
            touched: Vec::new(),
        }
    }

    fn slot(&mut self, t: u16) -> &mut Col {
        let slot = &mut self.slots[usize::from(t)];
        if slot.iter().all(|&x| x == 0) {
            self.touched.push(t);
        }
        slot
    }

    /// The non-zero rows in sequence order; every slot is zero afterwards.
    fn drain(&mut self) -> Vec<(u16, Col)> {
        self.touched.sort_unstable();
        let rows = self
            .touched
            .iter()
            .map(|&t| (t, std::mem::take(&mut self.slots[usize::from(t)])))
            .collect();
        self.touched.clear();
        rows
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn to_perm(images: &[u8]) -> Option<Perm> {
    Perm::from_images(images.iter().map(|&x| usize::from(x)).collect()).ok()
}

/// The name of input `i` in found protocols.
pub(super) fn input_name(i: usize) -> String {
    ["a", "b", "c"]
        .get(i)
        .map_or_else(|| format!("x{i}"), |s| (*s).to_owned())
}

/// The number of inputs of `f`, or why it cannot be searched.
fn function_inputs(query: &SearchQuery) -> Result<usize, SearchError> {
    let bad = |reason: String| SearchError::BadFunction {
        function: query.function.to_string(),
        reason,
    };
    let expected = match &query.function {
        Function::Copy => 1,
        // On bits, `add-mod` is XOR.
        Function::Named(_) | Function::AddMod => 2,
        Function::Several(_) => {
            return Err(bad("the search looks for one output".to_owned()));
        }
        Function::Table(t) => {
            if !t.len().is_power_of_two() || t.len() < 2 || t.len() > MAX_INPUTS {
                return Err(bad(format!(
                    "a truth table has 2, 4 or 8 entries, not {}",
                    t.len()
                )));
            }
            t.len().trailing_zeros() as usize
        }
    };
    let k = query.inputs;
    if k != expected || k == 0 || (1usize << k) > MAX_INPUTS {
        return Err(bad(format!(
            "the function takes {expected} inputs, the query says {k}"
        )));
    }
    Ok(k)
}

impl Problem {
    /// Validates the query and sets up sequences, symmetries and actions.
    pub(super) fn new(query: &SearchQuery) -> Result<Problem, SearchError> {
        let las_vegas = query.runtime == SearchRuntime::LasVegas;
        let deck_text: String = query.deck.iter().map(|s| s.to_string()).collect();
        if query.deck.iter().any(|s| matches!(s, Symbol::Kind(_))) {
            return Err(SearchError::BadDeck {
                deck: deck_text,
                reason: "the search handles ♣/♥ and standard decks; ♦, ♠ and further kinds are \
                         for the analyzer"
                    .into(),
            });
        }
        let standard = query.deck.iter().any(|s| matches!(s, Symbol::Card(_)));
        if standard && !query.deck.iter().all(|s| matches!(s, Symbol::Card(_))) {
            return Err(SearchError::BadDeck {
                deck: deck_text,
                reason: "mixes numbered cards with ♣/♥".into(),
            });
        }
        let k = function_inputs(query)?;
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
        validate_deck(query, &deck_text, standard, k, clubs, hearts)?;
        validate_options(query, n)?;

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
            ids.extend(std::iter::repeat_n(1u8, hearts));
            ids
        };
        let perm_list = all_perms(n);
        // Sequences: every arrangement of the deck, in sorted order.
        let mut seqs: Vec<Vec<u8>> = perm_list.iter().map(|p| apply_seq(p, &deck_ids)).collect();
        seqs.sort_unstable();
        seqs.dedup();
        let index: HashMap<Vec<u8>, u16> = seqs
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i as u16))
            .collect();
        let lookup = |s: &Vec<u8>| index.get(s).copied().unwrap_or(NONE);
        let perm_seq: Vec<Vec<u16>> = perm_list
            .iter()
            .map(|p| seqs.iter().map(|s| lookup(&apply_seq(p, s))).collect())
            .collect();
        let complement = (!standard && clubs == hearts).then(|| {
            seqs.iter()
                .map(|s| lookup(&s.iter().map(|x| 1 - x).collect()))
                .collect::<Vec<u16>>()
        });
        let columns = if las_vegas {
            Columns::Fixed
        } else {
            let class = |o: bool| (0..1usize << k).filter(|&i| outputs[i] == o).collect();
            let classes: [Vec<usize>; 2] = [class(false), class(true)];
            let swap = complement.is_some() && classes[0].len() == classes[1].len();
            Columns::ByOutput { classes, swap }
        };
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
            perms: PermTable::new(perm_list),
            perm_seq,
            columns,
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

    /// The number of inputs `2^k` (columns of a state).
    pub(super) fn m(&self) -> usize {
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
        items.extend(std::iter::repeat_n(LayoutItem::Card(Symbol::Club), clubs));
        items.extend(std::iter::repeat_n(LayoutItem::Card(Symbol::Heart), hearts));
        items
    }

    /// A protocol with this body, named after the query.
    pub(super) fn protocol(
        &self,
        number: usize,
        len: usize,
        body: Vec<Action>,
    ) -> Result<Protocol, SearchError> {
        let f = &self.query.function;
        let parts = ProtocolParts {
            name: format!("search-{f}-{}cards-{len}steps-{number}", self.n),
            inputs: (0..self.k).map(input_name).collect(),
            function: self.query.function.clone(),
            layout: self.layout(),
            body,
            claim: None,
        };
        Ok(Protocol::new(parts)?)
    }

    /// The state of the layout: every input's sequence with weight 1 in its column.
    pub(super) fn start_state(&self) -> Result<State, SearchError> {
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

    // -- state operations ----------------------------------------------------------------------

    /// Divides each column by its gcd (perfect mode), or keeps only supports.
    pub(super) fn normalize(&self, rows: &mut [(u16, Col)]) {
        for i in 0..self.m() {
            if self.perfect {
                let mut g = 0;
                for r in rows.iter() {
                    g = gcd(g, r.1[i]);
                    if g == 1 {
                        break;
                    }
                }
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

    /// The state after a shuffle, summing into `acc` (left zeroed again).
    pub(super) fn apply_shuffle_with(
        &self,
        st: &State,
        op: &ShuffleOp,
        acc: &mut Accumulator,
    ) -> Result<State, SearchError> {
        let m = self.m();
        for &(s, col) in &st.rows {
            for &(p, w) in &op.support {
                let t = self.perm_seq[p as usize][usize::from(s)];
                let slot = acc.slot(t);
                for i in 0..m {
                    if col[i] != 0 {
                        let add = col[i].checked_mul(w).ok_or(SearchError::Overflow)?;
                        slot[i] = slot[i].checked_add(add).ok_or(SearchError::Overflow)?;
                    }
                }
            }
        }
        let mut rows = acc.drain();
        self.normalize(&mut rows);
        Ok(State { rows })
    }

    /// Column sums (saturating).
    pub(super) fn present(&self, st: &State) -> Vec<u64> {
        let mut sums = vec![0u64; self.m()];
        for (_, c) in &st.rows {
            for (s, x) in sums.iter_mut().zip(c) {
                *s = s.saturating_add(*x);
            }
        }
        sums
    }

    /// Which inputs a state carries (bit `i`: some sequence carries input `i`).
    pub(super) fn present_mask(st: &State) -> u32 {
        st.rows.iter().fold(0, |m, (_, c)| {
            c.iter()
                .enumerate()
                .fold(m, |m, (i, &x)| if x != 0 { m | 1 << i } else { m })
        })
    }

    /// Whether some sequence is carried by inputs with different outputs (⊥).
    pub(super) fn has_bottom(&self, st: &State) -> bool {
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

    /// The symbol ids at the turned positions, packed 4 bits each in position order.
    fn observe(&self, s: u16, turn: u16) -> u64 {
        let seq = &self.seqs[usize::from(s)];
        (0..self.n)
            .filter(|p| turn >> p & 1 == 1)
            .fold(0u64, |acc, p| acc << 4 | u64::from(seq[p]))
    }

    /// The positions whose card is the same in every sequence of the state (already known).
    fn known_positions(&self, st: &State) -> u16 {
        let Some((first, _)) = st.rows.first() else {
            return 0;
        };
        let first = &self.seqs[usize::from(*first)];
        (0..self.n)
            .filter(|&p| {
                st.rows
                    .iter()
                    .all(|(s, _)| self.seqs[usize::from(*s)][p] == first[p])
            })
            .fold(0u16, |m, p| m | 1 << p)
    }

    /// Splits by a turn; `None` when fewer than two observations or the turn is insecure.
    pub(super) fn apply_turn(&self, st: &State, turn: u16) -> Option<Vec<(u64, State)>> {
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
        let parent = self.present(st);
        if !groups.iter().all(|(_, rows)| self.secure(&parent, rows)) {
            return None;
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

    /// Whether the observation whose sequences are `rows` is allowed by the security notion.
    fn secure(&self, parent: &[u64], rows: &[(u16, Col)]) -> bool {
        let m = self.m();
        let mut a = vec![0u64; m];
        for (_, c) in rows {
            for i in 0..m {
                a[i] = a[i].saturating_add(c[i]);
            }
        }
        if self.query.security == SearchSecurity::OutputPossibilistic {
            // Every output the parent can still have must stay possible in every branch.
            let mut outs = [false; 2];
            let mut before = [false; 2];
            for i in 0..m {
                let o = usize::from(self.outputs[i]);
                outs[o] |= a[i] > 0;
                before[o] |= parent[i] > 0;
            }
            return (0..2).all(|o| !before[o] || outs[o]);
        }
        let alike = |i: usize, j: usize| self.query.committed || self.outputs[i] == self.outputs[j];
        for i in (0..m).filter(|&i| parent[i] != 0) {
            for j in (i + 1..m).filter(|&j| parent[j] != 0 && alike(i, j)) {
                let ok = match self.query.security {
                    SearchSecurity::Perfect => {
                        u128::from(a[i]) * u128::from(parent[j])
                            == u128::from(a[j]) * u128::from(parent[i])
                    }
                    _ => (a[i] > 0) == (a[j] > 0),
                };
                if !ok {
                    return false;
                }
            }
        }
        true
    }

    /// Every useful turn of `st`: secure, with ≥ 2 observations, no ⊥ child, and no card that
    /// is already known (turning it again shows nothing new, so the turn without it has the
    /// same children).
    pub(super) fn expand_turns(&self, st: &State, out: &mut Vec<Step>) {
        let known = self.known_positions(st);
        for &t in &self.turns {
            if t & known != 0 {
                continue;
            }
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
    }

    /// Every shuffle of the class that changes `st` without producing a ⊥ sequence.
    pub(super) fn expand_shuffles(
        &self,
        st: &State,
        out: &mut Vec<Step>,
    ) -> Result<(), SearchError> {
        let mut acc = Accumulator::new(self.seqs.len());
        let masks = self.output_masks(st);
        for (i, op) in self.shuffles.iter().enumerate() {
            if let Some(masks) = &masks {
                let [zero, one] = op.support.iter().fold([0u64; 2], |[z, o], &(p, _)| {
                    let [mz, mo] = masks[p as usize];
                    [z | mz, o | mo]
                });
                if zero & one != 0 {
                    continue; // some sequence would carry both outputs: ⊥
                }
            }
            let child = self.apply_shuffle_with(st, op, &mut acc)?;
            if child == *st || self.has_bottom(&child) {
                continue;
            }
            out.push(Step {
                kind: StepKind::Shuffle(i),
                children: vec![(0, child)],
            });
        }
        Ok(())
    }

    /// Per permutation `π`, the sequences of `πS` that carry an input of output 0 and those
    /// that carry one of output 1, as bit sets (`None` above 64 sequences). A shuffle's child
    /// has a ⊥ sequence exactly when the union of the first sets over its support meets the
    /// union of the second.
    fn output_masks(&self, st: &State) -> Option<Vec<[u64; 2]>> {
        if self.seqs.len() > 64 {
            return None;
        }
        let classes: Vec<[bool; 2]> = st
            .rows
            .iter()
            .map(|(_, c)| {
                let mut out = [false; 2];
                for i in (0..self.m()).filter(|&i| c[i] != 0) {
                    out[usize::from(self.outputs[i])] = true;
                }
                out
            })
            .collect();
        Some(
            self.perm_seq
                .iter()
                .map(|ps| {
                    let mut m = [0u64; 2];
                    for ((s, _), out) in st.rows.iter().zip(&classes) {
                        let bit = 1u64 << ps[usize::from(*s)];
                        for o in 0..2 {
                            if out[o] {
                                m[o] |= bit;
                            }
                        }
                    }
                    m
                })
                .collect(),
        )
    }

    /// Every useful action on `st`: turns first, then shuffles.
    pub(super) fn expand(&self, st: &State) -> Result<Vec<Step>, SearchError> {
        let mut out = Vec::new();
        self.expand_turns(st, &mut out);
        self.expand_shuffles(st, &mut out)?;
        Ok(out)
    }

    /// Whether a protocol may stop here.
    pub(super) fn is_final(&self, st: &State) -> bool {
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
    pub(super) fn result_pairs(&self, st: &State) -> Option<Vec<(usize, usize)>> {
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

    /// The actions that end a protocol at a final state.
    pub(super) fn final_actions(&self, st: &State) -> Option<Vec<Action>> {
        if self.query.committed {
            self.result_pairs(st)
                .map(|pairs| vec![Action::new(ActionKind::Result(pairs))])
        } else {
            Some(Vec::new())
        }
    }

    /// What makes two top-level actions the same protocol: their children's canonical forms.
    pub(super) fn children_key(&self, step: &Step) -> Vec<super::canon::Key> {
        step.children
            .iter()
            .map(|(_, c)| self.canonical(c))
            .collect()
    }

    /// A position relabelling `π` with `π(from) = to` (rows and per-input columns equal).
    pub(super) fn relabelling(&self, from: &State, to: &State) -> Option<Perm> {
        let mut buf: Vec<(u16, Col)> = Vec::with_capacity(from.rows.len());
        for (p, ps) in self.perm_seq.iter().enumerate() {
            buf.clear();
            buf.extend(from.rows.iter().map(|&(s, c)| (ps[usize::from(s)], c)));
            buf.sort_unstable_by_key(|r| r.0);
            if buf == to.rows {
                return to_perm(self.perms.images(p));
            }
        }
        None
    }

    /// Re-checks a found protocol with the exact analyzer.
    pub(super) fn recheck(&self, p: &Protocol) -> Result<crate::analyze::Analysis, SearchError> {
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
                .filter(|d| {
                    perfect
                        || !matches!(
                            d,
                            Defect::Leak { .. } | Defect::PlayerLeak { .. } | Defect::MoreLeaks(_)
                        )
                })
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

    /// The `.cards` actions of a step followed by its children's bodies.
    pub(super) fn step_action(&self, step: &Step, bodies: Vec<Vec<Action>>) -> Vec<Action> {
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
                                observation: self.observation_symbols(*obs, positions.len()),
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

    fn observation_symbols(&self, obs: u64, len: usize) -> Vec<Symbol> {
        (0..len)
            .map(|j| {
                let id = (obs >> (4 * (len - 1 - j)) & 0xf) as usize;
                self.symbols.get(id).copied().unwrap_or(Symbol::Club)
            })
            .collect()
    }

    /// How a step prints in a report (`shuffle …` or `turn …`).
    pub(super) fn describe(&self, kind: StepKind) -> String {
        match kind {
            StepKind::Shuffle(i) => format!("shuffle {}", self.shuffles[i].model),
            StepKind::Turn(t) => {
                let positions: Vec<String> = (0..self.n)
                    .filter(|p| t >> p & 1 == 1)
                    .map(|p| (p + 1).to_string())
                    .collect();
                format!("turn {}", positions.join(" "))
            }
        }
    }
}

fn validate_deck(
    query: &SearchQuery,
    deck_text: &str,
    standard: bool,
    k: usize,
    clubs: usize,
    hearts: usize,
) -> Result<(), SearchError> {
    let n = query.deck.len();
    let bad = |reason: String| SearchError::BadDeck {
        deck: deck_text.to_owned(),
        reason,
    };
    if standard && n < 2 * k {
        return Err(bad(format!("{k} input commitments need {} cards", 2 * k)));
    }
    if !standard && (clubs < k || hearts < k) {
        return Err(bad(format!(
            "{k} input commitments need {k} ♣ and {k} ♥; the deck has {clubs} ♣ and {hearts} ♥"
        )));
    }
    if n > MAX_CARDS {
        return Err(bad(format!(
            "at most {MAX_CARDS} cards (canonical forms cost up to n! per state)"
        )));
    }
    let distinct: HashSet<&Symbol> = query.deck.iter().collect();
    if standard && distinct.len() != n {
        return Err(bad("a standard deck needs distinct cards".into()));
    }
    Ok(())
}

fn validate_options(query: &SearchQuery, n: usize) -> Result<(), SearchError> {
    let invalid = |s: &str| Err(SearchError::InvalidQuery(s.to_owned()));
    if query.committed {
        let need = if query.function == Function::Copy {
            2 * query.copies
        } else {
            2
        };
        if query.function == Function::Copy && query.copies == 0 {
            return invalid("--copies must be at least 1");
        }
        if need > n {
            return Err(SearchError::InvalidQuery(format!(
                "{} output commitment(s) do not fit in {n} cards",
                need / 2
            )));
        }
    } else {
        if query.security == SearchSecurity::OutputPossibilistic {
            return invalid(
                "output-possibilistic security is defined for committed protocols only \
                 (add --committed)",
            );
        }
        if query.function == Function::Copy {
            return invalid("copy is a committed function (add --committed)");
        }
    }
    let subgroups = matches!(
        query.shuffles,
        ShuffleClass::UniformClosed
            | ShuffleClass::Closed
            | ShuffleClass::Any
            | ShuffleClass::Uniform
    );
    if subgroups && n > MAX_SUBGROUP_CARDS {
        return Err(SearchError::InvalidQuery(format!(
            "subgroups of S_n are enumerated for n ≤ {MAX_SUBGROUP_CARDS}; use --shuffles \
             random-cuts for {n} cards"
        )));
    }
    if query.max_support < 2 && matches!(query.shuffles, ShuffleClass::Any | ShuffleClass::Uniform)
    {
        return invalid("--max-support must be at least 2");
    }
    if let Some(shard) = query.shard {
        if query.runtime == SearchRuntime::LasVegas {
            return Err(SearchError::InvalidQuery(format!(
                "--shard {shard}: the Las Vegas search decides one fixed point over the whole \
                 state graph, which does not split; shard finite-runtime searches"
            )));
        }
    }
    Ok(())
}
