//! The state algebra of the KWH tree: a state maps every card sequence that can lie on the
//! table to its per-input probabilities, and each action of the model is an operation on it.
//!
//! Every operation here is exact and allocation-light: the probabilities are [`Exact`], machine
//! integers while they fit (see [`super::exact`]), and additions and products skip the work when
//! a term is 0 or 1, which most terms are. What leaves a state (column sums, for the masses of
//! the walk) is [`Exact`] too.

use std::collections::BTreeMap;

use facedown_core::{Perm, Symbol};
use num_traits::{One, Zero};

use super::exact::Exact;
use crate::model::Q;
use crate::protocol::Sequence;

/// A state of the KWH tree: each reachable sequence with its per-input probabilities.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Sequence → `Pr[sequence | input i, view so far]` for each input `i`.
    pub entries: BTreeMap<Sequence, Vec<Exact>>,
}

/// Moves the card at position `i` to `π(i)`. `p.len()` must equal `s.len()`.
fn permute(p: &Perm, s: &[Symbol]) -> Sequence {
    let mut out = Sequence::new();
    permute_into(p, s, &mut out);
    out
}

/// [`permute`] into a buffer that is reused.
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
    /// The start state: input `i`'s starting row carries the unit vector `e_i`.
    pub fn start(rows: &[Sequence]) -> State {
        let k = rows.len();
        let mut state = State::default();
        for (i, row) in rows.iter().enumerate() {
            state
                .entries
                .entry(row.clone())
                .or_insert_with(|| vec![Exact::zero(); k])[i] = Exact::one();
        }
        state
    }

    /// The per-input total mass.
    pub fn column_sums(&self, inputs: usize) -> Vec<Exact> {
        let mut sums = vec![Exact::zero(); inputs];
        for v in self.entries.values() {
            for (s, x) in sums.iter_mut().zip(v) {
                add_to(s, x);
            }
        }
        sums
    }

    /// Applies a public permutation.
    pub fn permute(&self, p: &Perm) -> State {
        State {
            entries: self
                .entries
                .iter()
                .map(|(s, v)| (permute(p, s), v.clone()))
                .collect(),
        }
    }

    /// Applies a permutation that depends on the input: input `i`'s sequences move by
    /// `perm_of(i)` (a private input permutation).
    pub fn permute_per_input<'p>(&self, perm_of: impl Fn(usize) -> &'p Perm) -> State {
        let mut out: BTreeMap<Sequence, Vec<Exact>> = BTreeMap::new();
        for (s, v) in &self.entries {
            for (i, x) in v.iter().enumerate().filter(|(_, x)| !x.is_zero()) {
                let slot = out
                    .entry(permute(perm_of(i), s))
                    .or_insert_with(|| vec![Exact::zero(); v.len()]);
                add_to(&mut slot[i], x);
            }
        }
        State { entries: out }
    }

    /// Applies a shuffle with the given support: `F(π)·state[s]` accumulates at `π(s)`.
    pub fn shuffle(&self, dist: &[(Perm, Q)]) -> State {
        let dist: Vec<(&Perm, Exact)> = dist.iter().map(|(p, w)| (p, Exact::from_q(w))).collect();
        let mut out: BTreeMap<Sequence, Vec<Exact>> = BTreeMap::new();
        let mut t = Sequence::new();
        for (s, v) in &self.entries {
            for (p, w) in &dist {
                // Permute into one buffer: most products land on a sequence already present,
                // and then no key is allocated.
                permute_into(p, s, &mut t);
                let slot = match out.get_mut(&t) {
                    Some(slot) => slot,
                    None => out
                        .entry(t.clone())
                        .or_insert_with(|| vec![Exact::zero(); v.len()]),
                };
                for (acc, x) in slot.iter_mut().zip(v) {
                    if !x.is_zero() {
                        add_to(acc, &mul(w, x));
                    }
                }
            }
        }
        out.retain(|_, v| v.iter().any(|x| !x.is_zero()));
        State { entries: out }
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
    pub fn split_by(&self, key: impl Fn(&Sequence) -> Vec<Symbol>) -> BTreeMap<Vec<Symbol>, State> {
        let mut out: BTreeMap<Vec<Symbol>, State> = BTreeMap::new();
        for (s, v) in &self.entries {
            out.entry(key(s))
                .or_default()
                .entries
                .insert(s.clone(), v.clone());
        }
        out
    }

    /// [`State::split`], consuming the state: its sequences and probabilities move into the
    /// parts instead of being copied, and an observation is allocated only once per part.
    pub fn into_split(self, positions: &[usize]) -> BTreeMap<Vec<Symbol>, State> {
        let mut out: BTreeMap<Vec<Symbol>, State> = BTreeMap::new();
        let mut seen = Vec::with_capacity(positions.len());
        for (s, v) in self.entries {
            seen.clear();
            seen.extend(positions.iter().filter_map(|&p| s.get(p).copied()));
            let part = match out.get_mut(&seen) {
                Some(part) => part,
                None => out.entry(seen.clone()).or_default(),
            };
            part.entries.insert(s, v);
        }
        out
    }

    /// Divides each input's column by its total (columns with total 0 stay 0).
    pub fn normalize(&mut self, sums: &[Exact]) {
        for v in self.entries.values_mut() {
            for (x, s) in v.iter_mut().zip(sums) {
                if !s.is_zero() && !s.is_one() && !x.is_zero() {
                    *x = x.div(s);
                }
            }
        }
    }

    /// The sequences that are ⊥: carried by inputs with different outputs.
    pub fn bottom_sequences(&self, outputs: &[crate::model::Value]) -> Vec<&Sequence> {
        self.entries
            .iter()
            .filter(|(_, v)| is_bottom(v, outputs))
            .map(|(s, _)| s)
            .collect()
    }

    /// Column `i`, without zero entries.
    pub fn column(&self, i: usize) -> Vec<(&Sequence, &Exact)> {
        self.entries
            .iter()
            .filter_map(|(s, v)| v.get(i).filter(|x| !x.is_zero()).map(|x| (s, x)))
            .collect()
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
pub(crate) fn times(mass: &[Exact], sums: &[Exact]) -> Vec<Exact> {
    mass.iter().zip(sums).map(|(m, s)| mul(m, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Shuffle;
    use num_bigint::BigInt;

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
        let mut st = State::default();
        st.entries.insert(obs("CH"), vec![x(1, 2)]);
        st.entries.insert(obs("HC"), vec![x(1, 2)]);
        let perms = ["id", "(1 2)"].map(|c| Perm::parse_cycles(2, c).expect("valid"));
        let dist = Shuffle::Set {
            perms: perms.to_vec(),
            weights: None,
        }
        .distribution(2)
        .expect("valid");
        let out = st.shuffle(&dist);
        assert_eq!(out.entries[&obs("CH")], vec![x(1, 2)]);
        assert_eq!(out.entries[&obs("HC")], vec![x(1, 2)]);
        assert_eq!(out.column_sums(1), vec![Exact::one()], "never 3/2");
    }

    #[test]
    fn pitfall_3_bottom_needs_different_outputs() {
        let or = [false, true, true, true];
        assert!(!is_bottom(&[Q::zero(), q(1, 2), q(1, 2), Q::zero()], &or));
        assert!(is_bottom(&[q(1, 2), Q::zero(), Q::zero(), q(1, 2)], &or));
    }
}
