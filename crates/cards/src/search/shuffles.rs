//! The shuffles of each class, enumerated once per query.
//!
//! # One shuffle per left translate
//!
//! A shuffle `Π` followed by the permutation `τ` is the shuffle `τΠ = {τ∘π : π ∈ Π}` with the
//! same weights: it draws the same `π` and then moves every card by `τ`. Permutations are free
//! (see the module docs of `search`), and `τ(ΠS)` is a relabelling of `ΠS`, so `Π` and `τΠ` lead
//! to equivalent children of every state: only one shuffle per class `{τΠ}` needs to be tried.
//! Every class has members that contain the identity (`π⁻¹Π` for each `π ∈ Π`); the one kept is
//! the least of those (as a sorted list of permutation indices and weights). A subgroup is the
//! only member of its class that contains the identity, so groups are kept as they are; the
//! sets `{π₁, π₂}` of `any` and `uniform` become the sets `{id, σ}` with `σ` and `σ⁻¹` merged
//! (`σ⁻¹{id, σ} = {σ⁻¹, id}`), and `{id: 1/3, π: 2/3}` and `{id: 2/3, π: 1/3}` merge for an
//! involution `π`. This divides the number of two-element sets on six cards by about 720.

use std::collections::{HashMap, HashSet};

use facedown_core::Perm;
use num_bigint::BigInt;

use super::problem::Problem;
use super::{SearchError, ShuffleClass};
use crate::model::{Shuffle, Q};

/// The most shuffles a class may enumerate.
const MAX_SHUFFLES: usize = 2_000_000;

/// A shuffle as the search applies it.
#[derive(Clone, Debug)]
pub(super) struct ShuffleOp {
    /// `(perm index, integer weight)`; the weights' common denominator is their sum.
    pub(super) support: Vec<(u32, u64)>,
    /// How it prints.
    pub(super) model: Shuffle,
}

/// The permutations of `n` positions in lexicographic order of their images (identity first).
pub(super) struct PermTable {
    list: Vec<Vec<u8>>,
    n: usize,
}

impl PermTable {
    pub(super) fn new(list: Vec<Vec<u8>>) -> PermTable {
        let n = list.first().map_or(0, Vec::len);
        PermTable { list, n }
    }

    /// The number of permutations (`n!`).
    pub(super) fn len(&self) -> usize {
        self.list.len()
    }

    /// The images of permutation `i`: the card at position `j` moves to `images[j]`.
    pub(super) fn images(&self, i: usize) -> &[u8] {
        &self.list[i]
    }

    /// The index of a permutation given by its images (its lexicographic rank).
    pub(super) fn rank(&self, images: &[u8]) -> u32 {
        let mut rank = 0u32;
        let mut used = 0u32;
        for (j, &x) in images.iter().enumerate() {
            let smaller_unused = (0..x).filter(|&y| used >> y & 1 == 0).count() as u32;
            rank = rank * (self.n - j) as u32 + smaller_unused;
            used |= 1 << x;
        }
        rank
    }

    /// First `a`, then `b`.
    pub(super) fn then(&self, a: u32, b: u32) -> u32 {
        let (pa, pb) = (&self.list[a as usize], &self.list[b as usize]);
        let img: Vec<u8> = pa.iter().map(|&x| pb[usize::from(x)]).collect();
        self.rank(&img)
    }

    /// The inverse of `a`.
    pub(super) fn inverse(&self, a: u32) -> u32 {
        let pa = &self.list[a as usize];
        let mut img = vec![0u8; self.n];
        for (j, &x) in pa.iter().enumerate() {
            img[usize::from(x)] = j as u8;
        }
        self.rank(&img)
    }

    fn to_perm(&self, i: u32) -> Option<Perm> {
        Perm::from_images(
            self.list[i as usize]
                .iter()
                .map(|&x| usize::from(x))
                .collect(),
        )
        .ok()
    }

    fn is_involution(&self, i: usize) -> bool {
        let p = &self.list[i];
        p.iter()
            .enumerate()
            .all(|(j, &x)| usize::from(p[usize::from(x)]) == j)
    }

    /// The least translate `π⁻¹Π` (`π ∈ Π`) of a support, sorted.
    fn least_translate(&self, support: &[(u32, u64)]) -> Vec<(u32, u64)> {
        let mut best: Option<Vec<(u32, u64)>> = None;
        for &(p, _) in support {
            let tau = self.inverse(p);
            let mut moved: Vec<(u32, u64)> = support
                .iter()
                .map(|&(q, w)| (self.then(q, tau), w))
                .collect();
            moved.sort_unstable();
            if best.as_ref().is_none_or(|b| moved < *b) {
                best = Some(moved);
            }
        }
        best.unwrap_or_default()
    }
}

/// Every permutation of `n` positions as images, in lexicographic order, identity first.
pub(super) fn all_perms(n: usize) -> Vec<Vec<u8>> {
    let mut cur: Vec<u8> = (0..n as u8).collect();
    let mut out = vec![cur.clone()];
    while facedown_core::perm::next_permutation(&mut cur) {
        out.push(cur.clone());
    }
    out
}

/// Moves the symbol at position `i` to `p[i]`.
pub(super) fn apply_seq(p: &[u8], seq: &[u8]) -> Vec<u8> {
    let mut out = seq.to_vec();
    for (i, &pi) in p.iter().enumerate() {
        out[usize::from(pi)] = seq[i];
    }
    out
}

fn images_u8(p: &Perm) -> Vec<u8> {
    p.images().map(|x| x as u8).collect()
}

fn binomial(n: usize, k: usize) -> usize {
    (0..k).fold(1usize, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

/// Every ordered `k`-tuple of distinct positions below `n`.
fn ordered_subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    fn rec(n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for x in 0..n {
            if !cur.contains(&x) {
                cur.push(x);
                rec(n, k, cur, out);
                cur.pop();
            }
        }
    }
    let mut out = Vec::new();
    rec(n, k, &mut Vec::new(), &mut out);
    out
}

/// Calls `visit` on every sorted `k`-subset of `from..n`.
fn each_subset(from: usize, n: usize, k: usize, visit: &mut dyn FnMut(&[usize])) {
    fn rec(
        start: usize,
        n: usize,
        k: usize,
        cur: &mut Vec<usize>,
        visit: &mut dyn FnMut(&[usize]),
    ) {
        if cur.len() == k {
            visit(cur);
            return;
        }
        for x in start..n {
            cur.push(x);
            rec(x + 1, n, k, cur, visit);
            cur.pop();
        }
    }
    rec(from, n, k, &mut Vec::new(), visit);
}

/// Collects the shuffles of a class, one per left translate.
struct Collector<'a> {
    perms: &'a PermTable,
    perfect: bool,
    seen: HashSet<Vec<(u32, u64)>>,
    ops: Vec<ShuffleOp>,
}

impl Collector<'_> {
    /// Adds a shuffle; `model` is how a group or cut prints, `None` for a set (printed from its
    /// least translate).
    fn push(&mut self, mut support: Vec<(u32, u64)>, model: Option<Shuffle>) {
        if !self.perfect {
            for w in &mut support {
                w.1 = 1;
            }
        }
        support.sort_unstable();
        let least = self.perms.least_translate(&support);
        if least.len() < 2 || !self.seen.insert(least.clone()) {
            return;
        }
        let model = match model {
            Some(m) if least == support => m,
            _ => self.set_model(&least),
        };
        self.ops.push(ShuffleOp {
            support: least,
            model,
        });
    }

    fn set_model(&self, support: &[(u32, u64)]) -> Shuffle {
        let perms = support
            .iter()
            .filter_map(|&(p, _)| self.perms.to_perm(p))
            .collect();
        let total: u64 = support.iter().map(|w| w.1).sum();
        let weights = support.iter().any(|w| w.1 != support[0].1).then(|| {
            support
                .iter()
                .map(|&(_, w)| Q::new(BigInt::from(w), BigInt::from(total)))
                .collect()
        });
        Shuffle::Set { perms, weights }
    }
}

impl Problem {
    /// The shuffles of the query's class (see the class table of the module docs).
    pub(super) fn enumerate_shuffles(&self) -> Result<Vec<ShuffleOp>, SearchError> {
        let mut c = Collector {
            perms: &self.perms,
            perfect: self.perfect,
            seen: HashSet::new(),
            ops: Vec::new(),
        };
        match self.query.shuffles {
            ShuffleClass::RandomCuts => self.cuts_and_bisections(&mut c, true),
            ShuffleClass::Cuts => self.cuts_and_bisections(&mut c, false),
            ShuffleClass::UniformClosed
            | ShuffleClass::Closed
            | ShuffleClass::Any
            | ShuffleClass::Uniform => {
                self.subgroup_shuffles(&mut c);
                if matches!(
                    self.query.shuffles,
                    ShuffleClass::Closed | ShuffleClass::Any
                ) {
                    self.weighted_involutions(&mut c);
                }
                if matches!(
                    self.query.shuffles,
                    ShuffleClass::Any | ShuffleClass::Uniform
                ) {
                    self.small_sets(&mut c)?;
                }
            }
        }
        Ok(c.ops)
    }

    /// Random cuts (every ordered subset up to rotation) and, if asked, bisection cuts.
    fn cuts_and_bisections(&self, c: &mut Collector<'_>, bisections: bool) {
        let n = self.n;
        for k in 2..=n {
            for subset in ordered_subsets(n, k) {
                if subset.iter().skip(1).any(|&x| x < subset[0]) {
                    continue; // rotation representative: smallest first
                }
                let Ok(rot) = crate::model::cut_rotations(n, &subset) else {
                    continue;
                };
                let support = rot
                    .iter()
                    .map(|p| (self.perms.rank(&images_u8(p)), 1))
                    .collect();
                c.push(support, Some(Shuffle::Cut(subset)));
            }
        }
        // Bisection cuts {id, (p1 q1)…(pm qm)} with m ≥ 2 (m = 1 is a cut of two).
        for m in 2..=if bisections { n / 2 } else { 0 } {
            for left in ordered_subsets(n, m) {
                if left.windows(2).any(|w| w[0] > w[1]) {
                    continue; // left half as a sorted set
                }
                for right in ordered_subsets(n, m) {
                    if right.iter().any(|r| left.contains(r)) || right[0] < left[0] {
                        continue;
                    }
                    let mut img: Vec<u8> = (0..n as u8).collect();
                    for (&a, &b) in left.iter().zip(&right) {
                        img[a] = b as u8;
                        img[b] = a as u8;
                    }
                    let pi = self.perms.rank(&img);
                    c.push(
                        vec![(0, 1), (pi, 1)],
                        Some(Shuffle::Bisect(left.clone(), right)),
                    );
                }
            }
        }
    }

    /// Uniform over every non-trivial subgroup.
    fn subgroup_shuffles(&self, c: &mut Collector<'_>) {
        for (elems, gens) in cached_subgroups(&self.perms).iter() {
            let model =
                Shuffle::Generated(gens.iter().filter_map(|&g| self.perms.to_perm(g)).collect());
            c.push(elems.iter().map(|&e| (e, 1)).collect(), Some(model));
        }
    }

    /// `{id: 1/3, π: 2/3}` for every involution `π` (and `{id: 2/3, π: 1/3}`, its translate).
    fn weighted_involutions(&self, c: &mut Collector<'_>) {
        for i in 1..self.perms.len() {
            if self.perms.is_involution(i) {
                c.push(vec![(0, 1), (i as u32, 2)], None);
            }
        }
    }

    /// Uniform over every set of `2..=max_support` permutations that contains the identity
    /// (every set is a translate of one).
    fn small_sets(&self, c: &mut Collector<'_>) -> Result<(), SearchError> {
        let total = self.perms.len();
        let sizes = 2..=self.query.max_support.min(total);
        let sets = sizes
            .clone()
            .map(|size| binomial(total - 1, size - 1))
            .fold(0usize, usize::saturating_add);
        if sets > MAX_SHUFFLES {
            return Err(SearchError::InvalidQuery(format!(
                "--max-support {} on {} cards enumerates more than {MAX_SHUFFLES} shuffles \
                 (the sets of 2 to {} permutations that contain the identity alone do)",
                self.query.max_support,
                self.n,
                sizes.end()
            )));
        }
        for size in sizes {
            each_subset(1, total, size - 1, &mut |rest| {
                let mut support = vec![(0u32, 1u64)];
                support.extend(rest.iter().map(|&i| (i as u32, 1)));
                c.push(support, None);
            });
        }
        Ok(())
    }
}

/// Subgroups of `S_n` as `(sorted element indices, generators)`, computed once per process.
type Subgroups = std::sync::Arc<Vec<(Vec<u32>, Vec<u32>)>>;

fn cached_subgroups(perms: &PermTable) -> Subgroups {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<HashMap<usize, Subgroups>>> =
        std::sync::OnceLock::new();
    let n = perms.n;
    let cache = CACHE.get_or_init(Default::default);
    if let Some(g) = cache.lock().ok().and_then(|c| c.get(&n).cloned()) {
        return g;
    }
    let g: Subgroups = std::sync::Arc::new(subgroups(perms));
    if let Ok(mut c) = cache.lock() {
        c.insert(n, g.clone());
    }
    g
}

/// Every non-trivial subgroup of `S_n`, by closing the cyclic subgroups under joins with cyclic
/// subgroups until nothing new appears. Every subgroup is the join of the cyclic subgroups of
/// its elements, so the closure finds all of them.
fn subgroups(perms: &PermTable) -> Vec<(Vec<u32>, Vec<u32>)> {
    let total = perms.len();
    let words = total.div_ceil(64);
    let mut table = vec![0u32; total * total];
    for a in 0..total {
        for b in 0..total {
            // a ∘ b: first b, then a.
            table[a * total + b] = perms.then(b as u32, a as u32);
        }
    }
    let close = |gens: &[u32]| -> Vec<u64> {
        let mut bits = vec![0u64; words];
        let mut stack = vec![0u32];
        bits[0] |= 1;
        while let Some(x) = stack.pop() {
            for &g in gens {
                let y = table[g as usize * total + x as usize];
                let (w, b) = (y as usize / 64, y as usize % 64);
                if bits[w] >> b & 1 == 0 {
                    bits[w] |= 1 << b;
                    stack.push(y);
                }
            }
        }
        bits
    };
    let has = |bits: &[u64], x: u32| bits[x as usize / 64] >> (x % 64) & 1 == 1;
    let mut found: HashMap<Vec<u64>, Vec<u32>> = HashMap::new();
    let mut order: Vec<Vec<u64>> = Vec::new();
    let mut cyclic: Vec<(Vec<u64>, u32)> = Vec::new();
    for g in 1..total as u32 {
        let bits = close(&[g]);
        if !found.contains_key(&bits) {
            found.insert(bits.clone(), vec![g]);
            order.push(bits.clone());
            cyclic.push((bits, g));
        }
    }
    let mut frontier: Vec<Vec<u64>> = order.clone();
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for h in &frontier {
            let gens = found.get(h).cloned().unwrap_or_default();
            for (cbits, g) in &cyclic {
                if has(h, *g) {
                    continue;
                }
                // Skip when the cyclic group already contains H (the join is the cyclic group).
                if h.iter().zip(cbits).all(|(a, b)| a & !b == 0) {
                    continue;
                }
                let mut ng = gens.clone();
                ng.push(*g);
                let bits = close(&ng);
                if !found.contains_key(&bits) {
                    found.insert(bits.clone(), ng);
                    order.push(bits.clone());
                    next.push(bits);
                }
            }
        }
        frontier = next;
    }
    order
        .into_iter()
        .map(|bits| {
            let elems: Vec<u32> = (0..total as u32).filter(|&x| has(&bits, x)).collect();
            let gens = found.get(&bits).cloned().unwrap_or_default();
            (elems, gens)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subgroups_of_s3_and_s4_are_all_found() {
        for (n, count) in [(3, 6), (4, 30)] {
            // Non-trivial subgroups: all but {id}.
            assert_eq!(
                subgroups(&PermTable::new(all_perms(n))).len(),
                count - 1,
                "S_{n}"
            );
        }
    }

    #[test]
    fn perms_are_listed_identity_first_and_ranked_by_their_position() {
        let p = all_perms(4);
        assert_eq!(p.len(), 24);
        assert_eq!(p[0], vec![0, 1, 2, 3]);
        let distinct: HashSet<_> = p.iter().collect();
        assert_eq!(distinct.len(), 24);
        let table = PermTable::new(p.clone());
        for (i, images) in p.iter().enumerate() {
            assert_eq!(table.rank(images) as usize, i);
            let inv = table.inverse(i as u32);
            assert_eq!(table.then(i as u32, inv), 0, "π then π⁻¹ is the identity");
        }
    }

    #[test]
    fn translates_of_a_set_share_one_least_translate() {
        let table = PermTable::new(all_perms(4));
        let (a, b, c) = (5u32, 11u32, 17u32);
        let least = table.least_translate(&[(a, 1), (b, 1), (c, 1)]);
        assert_eq!(least[0].0, 0, "the least translate contains the identity");
        for tau in 0..24u32 {
            let mut moved: Vec<(u32, u64)> =
                [a, b, c].iter().map(|&p| (table.then(p, tau), 1)).collect();
            moved.sort_unstable();
            assert_eq!(table.least_translate(&moved), least, "τ = {tau}");
        }
    }
}
