//! The state algebra of the KWH tree: a state maps every card sequence that can lie on the
//! table to its per-input probabilities, and each action of the model is an operation on it.
//!
//! Every operation here is exact and allocation-light: the probabilities are [`Exact`], machine
//! integers while they fit (see [`super::exact`]), and additions and products skip the work when
//! a term is 0 or 1, which most terms are. What leaves a state (column sums, for the masses of
//! the walk) is [`Exact`] too.

use std::collections::BTreeMap;
use std::hash::BuildHasher;

use facedown_core::{Perm, Symbol};
use hashbrown::HashTable;
use num_traits::{One, Zero};
use rustc_hash::FxBuildHasher;

use super::exact::Exact;
use crate::model::Q;
use crate::protocol::Sequence;

/// A state of the KWH tree: each reachable sequence with its per-input probabilities
/// (`Pr[sequence | input i, view so far]` for each input `i`).
///
/// The rows are kept flat, in increasing order of their sequences and each sequence once: one
/// vector of symbols and one of probabilities for the whole state, so that an action builds a
/// state with two allocations however many sequences it has.
#[derive(Clone, Debug, Default)]
pub struct State {
    /// Symbols per sequence.
    cards: usize,
    /// Probabilities per sequence: the number of inputs.
    inputs: usize,
    /// Number of sequences.
    rows: usize,
    /// The sequences, `cards` symbols each, increasing.
    sequences: Vec<Symbol>,
    /// `inputs` probabilities per sequence, in the sequences' order.
    probabilities: Vec<Exact>,
}

impl PartialEq for State {
    /// Two states are equal when they hold the same sequences with the same probabilities.
    fn eq(&self, other: &State) -> bool {
        self.rows == other.rows && self.rows().eq(other.rows())
    }
}

impl Eq for State {}

/// Moves the card at position `i` to `π(i)`, into a buffer that is reused. `p.len()` must
/// equal `s.len()`.
fn permute_into(p: &Perm, s: &[Symbol], out: &mut Sequence) {
    out.clear();
    out.extend_from_slice(s);
    for (i, &x) in s.iter().enumerate() {
        if let Some(j) = p.get(i) {
            out[j] = x;
        }
    }
}

impl State {
    /// A state from its rows, a sequence and its per-input probabilities each; the rows of a
    /// sequence given twice are added. `None` when two rows differ in length.
    pub fn from_rows(rows: impl IntoIterator<Item = (Sequence, Vec<Exact>)>) -> Option<State> {
        let mut rows = rows.into_iter().peekable();
        let Some((first, probs)) = rows.peek() else {
            return Some(State::default());
        };
        let mut out = Builder::new(first.len(), probs.len(), 0);
        for (s, v) in rows {
            if s.len() != out.rows.cards || v.len() != out.rows.inputs {
                return None;
            }
            for (acc, x) in out.row_mut(&s).iter_mut().zip(&v) {
                add_to(acc, x);
            }
        }
        Some(out.finish(|_| true))
    }

    /// The start state: input `i`'s starting row carries the unit vector `e_i`.
    pub fn start(rows: &[Sequence]) -> State {
        let k = rows.len();
        let mut state = Builder::new(rows.first().map_or(0, Vec::len), k, k);
        for (i, row) in rows.iter().enumerate() {
            state.row_mut(row)[i] = Exact::one();
        }
        state.finish(|_| true)
    }

    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no sequence is reachable.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The sequence of row `r`.
    fn sequence(&self, r: usize) -> &[Symbol] {
        &self.sequences[r * self.cards..(r + 1) * self.cards]
    }

    /// The per-input probabilities of row `r`.
    fn row(&self, r: usize) -> &[Exact] {
        &self.probabilities[r * self.inputs..(r + 1) * self.inputs]
    }

    /// Every sequence with its per-input probabilities, in increasing order of the sequences.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = (&[Symbol], &[Exact])> + '_ {
        (0..self.rows).map(|r| (self.sequence(r), self.row(r)))
    }

    /// Every sequence, increasing.
    pub fn sequences(&self) -> impl ExactSizeIterator<Item = &[Symbol]> + '_ {
        (0..self.rows).map(|r| self.sequence(r))
    }

    /// The per-input probabilities of `sequence`, when it is reachable.
    pub fn get(&self, sequence: &[Symbol]) -> Option<&[Exact]> {
        let (mut lo, mut hi) = (0, self.rows);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.sequence(mid).cmp(sequence) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(self.row(mid)),
            }
        }
        None
    }

    /// The per-input total mass.
    pub fn column_sums(&self, inputs: usize) -> Vec<Exact> {
        if self.rows == 1 && self.inputs == inputs {
            // One row is its own total (a turn that shows every card makes such parts).
            return self.row(0).to_vec();
        }
        let mut sums = vec![Exact::zero(); inputs];
        for (_, v) in self.rows() {
            for (s, x) in sums.iter_mut().zip(v) {
                add_to(s, x);
            }
        }
        sums
    }

    /// Applies a public permutation.
    pub fn permute(&self, p: &Perm) -> State {
        // A permutation of the positions is one of the sequences: no two rows meet, and only
        // their order changes.
        let cards = self.cards;
        let mut moved = self.sequences.clone();
        for (s, out) in self.sequences().zip(moved.chunks_exact_mut(cards.max(1))) {
            for (i, &x) in s.iter().enumerate() {
                if let Some(j) = p.get(i) {
                    out[j] = x;
                }
            }
        }
        let at = |r: usize| &moved[r * cards..(r + 1) * cards];
        if (1..self.rows).all(|r| at(r - 1) < at(r)) {
            // Still increasing: the rows keep their places.
            return State {
                rows: self.rows,
                sequences: moved,
                probabilities: self.probabilities.clone(),
                ..self.empty_like()
            };
        }
        let mut order: Vec<usize> = (0..self.rows).collect();
        order.sort_unstable_by(|&a, &b| at(a).cmp(at(b)));
        let mut out = State {
            sequences: Vec::with_capacity(moved.len()),
            probabilities: Vec::with_capacity(self.probabilities.len()),
            ..self.empty_like()
        };
        for &r in &order {
            out.push(at(r), self.row(r).iter().cloned());
        }
        out
    }

    /// Applies a permutation that depends on the input: input `i`'s sequences move by
    /// `perm_of(i)` (a private input permutation).
    pub fn permute_per_input<'p>(&self, perm_of: impl Fn(usize) -> &'p Perm) -> State {
        let mut out = Builder::new(self.cards, self.inputs, self.rows);
        let mut t = Sequence::new();
        for (s, v) in self.rows() {
            for (i, x) in v.iter().enumerate().filter(|(_, x)| !x.is_zero()) {
                permute_into(perm_of(i), s, &mut t);
                add_to(&mut out.row_mut(&t)[i], x);
            }
        }
        out.finish(|_| true)
    }

    /// Applies a shuffle with the given support: `F(π)·state[s]` accumulates at `π(s)`.
    pub fn shuffle(&self, dist: &[(Perm, Q)]) -> State {
        let dist: Vec<(&Perm, Exact)> = dist.iter().map(|(p, w)| (p, Exact::from_q(w))).collect();
        let mut out = Builder::new(self.cards, self.inputs, self.rows);
        let mut t = Sequence::new();
        for (s, v) in self.rows() {
            for (p, w) in &dist {
                permute_into(p, s, &mut t);
                for (acc, x) in out.row_mut(&t).iter_mut().zip(v) {
                    if !x.is_zero() {
                        add_to(acc, &mul(w, x));
                    }
                }
            }
        }
        out.finish(|v| v.iter().any(|x| !x.is_zero()))
    }

    /// Splits by what the cards at `positions` (sorted, 0-indexed) show.
    pub fn split(&self, positions: &[usize]) -> BTreeMap<Vec<Symbol>, State> {
        self.split_by(|s| {
            positions
                .iter()
                .filter_map(|&p| s.get(p).copied())
                .collect()
        })
    }

    /// Splits by a key of each sequence.
    pub fn split_by(&self, key: impl Fn(&[Symbol]) -> Vec<Symbol>) -> BTreeMap<Vec<Symbol>, State> {
        let mut out: BTreeMap<Vec<Symbol>, State> = BTreeMap::new();
        for (s, v) in self.rows() {
            out.entry(key(s))
                .or_insert_with(|| self.empty_like())
                .push(s, v.iter().cloned());
        }
        out
    }

    /// [`State::split`], consuming the state: its probabilities move into the parts instead
    /// of being copied, and each part and its observation are allocated once, at their final
    /// size. The parts come in increasing order of their observations, as the map orders them.
    pub fn into_split(mut self, positions: &[usize]) -> Vec<(Vec<Symbol>, State)> {
        let (cards, inputs) = (self.cards, self.inputs);
        let width = positions.iter().filter(|&&p| p < cards).count();
        let mut seen = Vec::with_capacity(self.rows * width);
        for r in 0..self.rows {
            let s = self.sequence(r);
            seen.extend(positions.iter().filter_map(|&p| s.get(p).copied()));
        }
        let key = |r: usize| &seen[r * width..(r + 1) * width];
        // Stable: the rows of one part keep their increasing order.
        let mut order: Vec<usize> = (0..self.rows).collect();
        order.sort_by(|&a, &b| key(a).cmp(key(b)));
        let mut out = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let first = key(order[start]);
            let len = order[start..]
                .iter()
                .take_while(|&&r| key(r) == first)
                .count();
            let mut part = State {
                sequences: Vec::with_capacity(len * cards),
                probabilities: Vec::with_capacity(len * inputs),
                ..self.empty_like()
            };
            for &r in &order[start..start + len] {
                let v = &mut self.probabilities[r * inputs..(r + 1) * inputs];
                let taken = v.iter_mut().map(|x| std::mem::replace(x, Exact::zero()));
                part.push(&self.sequences[r * cards..(r + 1) * cards], taken);
            }
            out.push((first.to_vec(), part));
            start += len;
        }
        out
    }

    /// Divides each input's column by its total (columns with total 0 stay 0).
    pub fn normalize(&mut self, sums: &[Exact]) {
        if self.inputs == 0 {
            return;
        }
        for v in self.probabilities.chunks_exact_mut(self.inputs) {
            for (x, s) in v.iter_mut().zip(sums) {
                if !s.is_zero() && !s.is_one() && !x.is_zero() {
                    *x = x.div(s);
                }
            }
        }
    }

    /// The sequences that are ⊥: carried by inputs with different outputs.
    pub fn bottom_sequences(&self, outputs: &[crate::model::Value]) -> Vec<&[Symbol]> {
        self.rows()
            .filter(|(_, v)| is_bottom(v, outputs))
            .map(|(s, _)| s)
            .collect()
    }

    /// Column `i`, without zero entries.
    pub fn column(&self, i: usize) -> Vec<(&[Symbol], &Exact)> {
        self.rows()
            .filter_map(|(s, v)| v.get(i).filter(|x| !x.is_zero()).map(|x| (s, x)))
            .collect()
    }

    /// A state without rows, of this one's shape.
    fn empty_like(&self) -> State {
        State {
            cards: self.cards,
            inputs: self.inputs,
            ..State::default()
        }
    }

    /// Appends a row; the caller keeps the sequences increasing.
    fn push(&mut self, s: &[Symbol], v: impl Iterator<Item = Exact>) {
        self.sequences.extend_from_slice(s);
        self.probabilities.extend(v);
        self.rows += 1;
    }

    /// The rows `order` names, in that order.
    fn gather(mut self, order: &[usize]) -> State {
        let mut out = State {
            sequences: Vec::with_capacity(order.len() * self.cards),
            probabilities: Vec::with_capacity(order.len() * self.inputs),
            ..self.empty_like()
        };
        let (cards, inputs) = (self.cards, self.inputs);
        for &r in order {
            let v = &mut self.probabilities[r * inputs..(r + 1) * inputs];
            let taken = v.iter_mut().map(|x| std::mem::replace(x, Exact::zero()));
            out.push(&self.sequences[r * cards..(r + 1) * cards], taken);
        }
        out
    }
}

/// A state under construction: rows in order of arrival, each sequence once (found by a hash
/// of its symbols, so that no sequence is allocated on its own).
struct Builder {
    /// The rows so far (unordered), with the state's shape.
    rows: State,
    index: HashTable<usize>,
}

impl Builder {
    /// A builder for about `rows` sequences.
    fn new(cards: usize, inputs: usize, rows: usize) -> Builder {
        Builder {
            rows: State {
                cards,
                inputs,
                rows: 0,
                sequences: Vec::with_capacity(rows * cards),
                probabilities: Vec::with_capacity(rows * inputs),
            },
            index: HashTable::with_capacity(rows),
        }
    }

    /// The probabilities of `s`, zeros when it is new.
    fn row_mut(&mut self, s: &[Symbol]) -> &mut [Exact] {
        let rows = &mut self.rows;
        let (cards, inputs) = (rows.cards, rows.inputs);
        let hash = FxBuildHasher.hash_one(s);
        let found = self
            .index
            .find(hash, |&r| &rows.sequences[r * cards..(r + 1) * cards] == s)
            .copied();
        let r = match found {
            Some(r) => r,
            None => {
                let r = rows.rows;
                rows.push(s, std::iter::repeat_n(Exact::zero(), inputs));
                let sequences = &rows.sequences;
                self.index.insert_unique(hash, r, |&r| {
                    FxBuildHasher.hash_one(&sequences[r * cards..(r + 1) * cards])
                });
                r
            }
        };
        &mut rows.probabilities[r * inputs..(r + 1) * inputs]
    }

    /// The rows that `keep`, in increasing order of their sequences.
    fn finish(self, keep: impl Fn(&[Exact]) -> bool) -> State {
        let rows = self.rows;
        let mut order: Vec<usize> = (0..rows.rows).filter(|&r| keep(rows.row(r))).collect();
        order.sort_unstable_by(|&a, &b| rows.sequence(a).cmp(rows.sequence(b)));
        if order.len() == rows.rows && order.iter().enumerate().all(|(i, &r)| i == r) {
            return rows;
        }
        rows.gather(&order)
    }
}

/// Whether a sequence with per-input probabilities `v` is ⊥: inputs with **different** outputs
/// both have positive probability on it. Inputs that share an output never make it ⊥.
/// `outputs` are bits or joint values of several outputs ([`crate::model::Value`]).
pub fn is_bottom<T: Zero, O: PartialEq>(v: &[T], outputs: &[O]) -> bool {
    let mut carried = v.iter().zip(outputs).filter(|(x, _)| !x.is_zero());
    let first = carried.next().map(|(_, o)| o);
    carried.any(|(_, o)| Some(o) != first)
}

/// `acc += x`, skipping the work when a term is 0.
pub(crate) fn add_to<T: Zero + Clone>(acc: &mut T, x: &T)
where
    for<'a> &'a T: std::ops::Add<&'a T, Output = T>,
{
    if x.is_zero() {
    } else if acc.is_zero() {
        *acc = x.clone();
    } else {
        *acc = &*acc + x;
    }
}

/// `a · b`, skipping the work when a factor is 0 or 1 (most factors are).
pub(crate) fn mul<T: Zero + One + Clone + PartialEq>(a: &T, b: &T) -> T
where
    for<'a> &'a T: std::ops::Mul<&'a T, Output = T>,
{
    if a.is_zero() || b.is_zero() {
        T::zero()
    } else if a.is_one() {
        b.clone()
    } else if b.is_one() {
        a.clone()
    } else {
        a * b
    }
}

/// Entrywise product: per input, the mass of reaching a node times the part of the state that
/// takes one branch there.
pub(crate) fn times<C: FromIterator<Exact>>(mass: &[Exact], sums: &[Exact]) -> C {
    mass.iter().zip(sums).map(|(m, s)| mul(m, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Shuffle;
    use num_bigint::BigInt;
    use proptest::prelude::*;

    fn obs(s: &str) -> Vec<Symbol> {
        s.chars()
            .map(|c| Symbol::from_char(c).expect("symbol"))
            .collect()
    }

    fn q(n: i64, d: i64) -> Q {
        Q::new(BigInt::from(n), BigInt::from(d))
    }

    fn x(n: i64, d: i64) -> Exact {
        Exact::from_q(&q(n, d))
    }

    #[test]
    fn pitfall_2_shuffle_multiplies_by_the_weight() {
        let st = State::from_rows([(obs("CH"), vec![x(1, 2)]), (obs("HC"), vec![x(1, 2)])])
            .expect("one shape");
        let perms = ["id", "(1 2)"].map(|c| Perm::parse_cycles(2, c).expect("valid"));
        let dist = Shuffle::Set {
            perms: perms.to_vec(),
            weights: None,
        }
        .distribution(2)
        .expect("valid");
        let out = st.shuffle(&dist);
        assert_eq!(out.get(&obs("CH")), Some(&[x(1, 2)][..]));
        assert_eq!(out.get(&obs("HC")), Some(&[x(1, 2)][..]));
        assert_eq!(out.column_sums(1), vec![Exact::one()], "never 3/2");
    }

    fn rows_strategy() -> impl Strategy<Value = Vec<(Sequence, Vec<Exact>)>> {
        let symbol = prop_oneof![
            Just(Symbol::Club),
            Just(Symbol::Heart),
            Just(Symbol::Card(7))
        ];
        let row = (
            prop::collection::vec(symbol, 4),
            prop::collection::vec((0i64..4, 1i64..4), 2),
        );
        prop::collection::vec(row, 0..12).prop_map(|rows| {
            rows.into_iter()
                .map(|(s, v)| (s, v.into_iter().map(|(n, d)| x(n, d)).collect()))
                .collect()
        })
    }

    proptest! {
        /// The flat rows are the map they replace: each sequence once, in increasing order,
        /// with the sum of its rows, whatever order the rows come in.
        #[test]
        fn a_state_is_its_rows_added_by_sequence_in_order(rows in rows_strategy()) {
            let state = State::from_rows(rows.clone()).expect("one shape");
            let mut sums: BTreeMap<Sequence, Vec<Exact>> = BTreeMap::new();
            for (s, v) in &rows {
                let slot = sums.entry(s.clone()).or_insert_with(|| vec![Exact::zero(); 2]);
                for (a, b) in slot.iter_mut().zip(v) {
                    add_to(a, b);
                }
            }
            let flat: Vec<(Sequence, Vec<Exact>)> =
                state.rows().map(|(s, v)| (s.to_vec(), v.to_vec())).collect();
            prop_assert_eq!(flat, sums.into_iter().collect::<Vec<_>>());
            let reversed = State::from_rows(rows.into_iter().rev()).expect("one shape");
            prop_assert_eq!(&reversed, &state);
            for (s, v) in state.rows() {
                prop_assert_eq!(state.get(s), Some(v));
            }
        }

        /// A public permutation moves every sequence and keeps the rows sorted: its inverse
        /// gives the state back.
        #[test]
        fn a_permutation_then_its_inverse_is_the_same_state(
            rows in rows_strategy(),
            images in Just((0..4usize).collect::<Vec<_>>()).prop_shuffle(),
        ) {
            let state = State::from_rows(rows).expect("one shape");
            let p = Perm::from_images(images).expect("a permutation");
            let moved = state.permute(&p);
            prop_assert!(moved.sequences().zip(moved.sequences().skip(1)).all(|(a, b)| a < b));
            prop_assert_eq!(moved.permute(&p.inverse()), state);
        }
    }

    #[test]
    fn rows_of_two_shapes_are_no_state() {
        let rows = [(obs("CH"), vec![x(1, 2)]), (obs("CHC"), vec![x(1, 2)])];
        assert_eq!(State::from_rows(rows), None);
    }

    #[test]
    fn pitfall_3_bottom_needs_different_outputs() {
        let or = [false, true, true, true];
        assert!(!is_bottom(&[Q::zero(), q(1, 2), q(1, 2), Q::zero()], &or));
        assert!(is_bottom(&[q(1, 2), Q::zero(), Q::zero(), q(1, 2)], &or));
    }
}
