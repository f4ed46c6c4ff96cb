//! Canonical forms of states under the search's symmetry group, as compact byte keys.
//!
//! # The group
//!
//! A state is a matrix: one row per card sequence, one column per input. The group acting on it
//! is `G = P × C`, where `P` relabels positions (a free permutation; it permutes the rows through
//! the sequences they stand for) and `C` relabels inputs (it permutes columns):
//!
//! * finite runtime: `C` is every permutation of the inputs that keeps `f` — all permutations
//!   *inside* each output class `f⁻¹(0)`, `f⁻¹(1)`, so `C = Sym(f⁻¹(0)) × Sym(f⁻¹(1))` — and,
//!   when the deck has as many ♣ as ♥ and the classes are of equal size, the ones that exchange
//!   the two classes together with the two colours (every card's colour swapped);
//! * Las Vegas: `C` is trivial (a `goto` must meet exactly its label's columns).
//!
//! Why these are symmetries of the search (so that equivalent states need the same number of
//! steps): a shuffle or a turn treats every column alike and moves rows only through positions,
//! so it commutes with every element of `C` and is conjugated by every element of `P` into
//! another action of the class (every class is closed under conjugation, every turn set is
//! allowed). The security test compares columns pairwise — all pairs when committed, pairs of
//! the same output otherwise — and `C` maps such pairs to such pairs. A state is final when some
//! positions decode `f(i)` in every column `i`; `C` keeps `f(i)` (or negates it together with
//! every colour, which negates the decoded bit too), and `P` moves the positions. The ⊥ test is
//! preserved likewise. Normalising each column to coprime integers commutes with both.
//!
//! # The canonical form
//!
//! `key(S) = min_{(π, σ) ∈ G} enc((π, σ)·S)` for an injective encoding `enc`, the minimum taken in
//! byte order. It is computed without visiting all of `G`:
//!
//! 1. **Columns by sorting.** For a fixed `π`, the rows of `π·S` are fixed (sorted by sequence);
//!    `C` permutes columns freely inside each class, so the least image over `C` lists each
//!    class's columns in sorted order. Sorting is therefore exact for the `C` part, and the
//!    colour-swapping half of `C` is a second variant (every sequence complemented, the classes
//!    listed in the other order).
//! 2. **Positions by refinement.** Each position gets a colour computed from the state alone:
//!    per column, the weighted sum of a mixing function of the card at that position; per class,
//!    the sorted list of those sums; then rounds of refinement in which a position's colour
//!    absorbs the sorted list of `(colour of q, pair statistic of p and q)` over the other
//!    positions `q` (the pair statistic: per column, the weighted sum of a mixing function of
//!    the two cards, sorted per class with the single sums). These colours are invariant under
//!    `C` and move with `P`: relabelling positions by `τ` relabels the colours by `τ`. Only the
//!    `π` that send the positions in increasing order of colour to the slots `0, 1, …` are
//!    tried (every ordering inside a group of equal colour).
//!
//! The set of `π` tried for `τ·S` is exactly `{π τ⁻¹}` for those tried for `S`, so both meet the
//! same images and the same minimum: the key is invariant. It is an image of `S` itself, so equal
//! keys mean equivalent states: it is complete. Collisions of the mixing function can only merge
//! colour groups, which tries more `π` and changes neither property. A state with a trivial
//! automorphism group and distinct colours costs one image instead of `n! · |C|`.
//!
//! # The encoding
//!
//! `[rows (LEB128)] [sequence index per row: 1 byte, or 2 when the deck has more than 256
//! sequences] [per row: the column entries in the canonical column order, LEB128 in perfect
//! mode, one bit per column in the possibilistic modes]`. A four-row possibilistic state of
//! four inputs takes 9 bytes.

use super::problem::{Col, Columns, Problem, State};
use super::shuffles::all_perms;
use super::MAX_INPUTS;

/// A canonical form: an exact, compact encoding of the least image of a state.
pub(super) type Key = Box<[u8]>;

/// A fixed 64-bit mixing function (SplitMix64's finaliser).
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn combine(h: u64, x: u64) -> u64 {
    mix(h ^ x.wrapping_mul(0x2545_f491_4f6c_dd1d))
}

fn hash_sorted(h: u64, values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values.iter().fold(h, |h, &v| combine(h, v))
}

fn push_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8 & 0x7f) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut x = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        x |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(x);
        }
    }
    None
}

/// Reusable buffers of one canonical-form computation.
#[derive(Default)]
struct Scratch {
    rows: Vec<(u16, Col)>,
    order: Vec<usize>,
    out: Vec<u8>,
}

impl Problem {
    /// The canonical form of a state (see the module docs).
    pub(super) fn canonical(&self, st: &State) -> Key {
        let mut best: Vec<u8> = Vec::new();
        let mut scratch = Scratch::default();
        let plain = self.column_groups(false);
        self.least_image(&st.rows, &plain, &mut best, &mut scratch);
        if let (Columns::ByOutput { swap: true, .. }, Some(comp)) =
            (&self.columns, &self.complement)
        {
            let mut rows: Vec<(u16, Col)> = st
                .rows
                .iter()
                .map(|&(s, c)| (comp[usize::from(s)], c))
                .collect();
            rows.sort_unstable_by_key(|r| r.0);
            let swapped = self.column_groups(true);
            self.least_image(&rows, &swapped, &mut best, &mut scratch);
        }
        best.into_boxed_slice()
    }

    /// The column classes in the order they are listed (`swapped`: the colour-swapping half).
    fn column_groups(&self, swapped: bool) -> Vec<Vec<usize>> {
        match &self.columns {
            Columns::Fixed => (0..self.m()).map(|i| vec![i]).collect(),
            Columns::ByOutput { classes, .. } => {
                let [zero, one] = classes.clone();
                if swapped {
                    vec![one, zero]
                } else {
                    vec![zero, one]
                }
            }
        }
    }

    /// Lowers `best` to the least image of `rows` over the position relabellings allowed by the
    /// colour refinement, with columns sorted inside each group.
    fn least_image(
        &self,
        rows: &[(u16, Col)],
        groups: &[Vec<usize>],
        best: &mut Vec<u8>,
        scratch: &mut Scratch,
    ) {
        let cells = self.position_cells(rows, groups);
        let mut images = vec![0u8; self.n];
        self.each_admissible(&cells, 0, 0, &mut images, &mut |images| {
            let p = self.perms.rank(images) as usize;
            self.encode_image(rows, &self.perm_seq[p], groups, scratch);
            if best.is_empty() || scratch.out < *best {
                std::mem::swap(best, &mut scratch.out);
            }
        });
    }

    /// Calls `visit` with the images of every `π` sending cell `c` (in cell order) onto the
    /// slots after the earlier cells, in every order.
    fn each_admissible(
        &self,
        cells: &[Vec<u8>],
        c: usize,
        slot: u8,
        images: &mut [u8],
        visit: &mut dyn FnMut(&[u8]),
    ) {
        let Some(cell) = cells.get(c) else {
            visit(images);
            return;
        };
        for order in all_perms(cell.len()) {
            for (j, &pos) in cell.iter().enumerate() {
                images[usize::from(pos)] = slot + order[j];
            }
            self.each_admissible(cells, c + 1, slot + cell.len() as u8, images, visit);
        }
    }

    /// Writes `enc` of the image of `rows` under the relabelling `ps` (on sequence indices), its
    /// columns sorted inside each group, into `scratch.out`.
    fn encode_image(
        &self,
        rows: &[(u16, Col)],
        ps: &[u16],
        groups: &[Vec<usize>],
        scratch: &mut Scratch,
    ) {
        let Scratch {
            rows: image,
            order,
            out,
        } = scratch;
        image.clear();
        image.extend(rows.iter().map(|&(s, c)| (ps[usize::from(s)], c)));
        image.sort_unstable_by_key(|r| r.0);
        order.clear();
        for g in groups {
            let from = order.len();
            order.extend_from_slice(g);
            order[from..].sort_by(|&a, &b| {
                image
                    .iter()
                    .map(|r| r.1[a])
                    .cmp(image.iter().map(|r| r.1[b]))
            });
        }
        out.clear();
        push_varint(out, image.len() as u64);
        let wide = self.seqs.len() > 256;
        for (s, _) in image.iter() {
            if wide {
                out.extend_from_slice(&s.to_be_bytes());
            } else {
                out.push(*s as u8);
            }
        }
        for (_, c) in image.iter() {
            if self.perfect {
                for &j in order.iter() {
                    push_varint(out, c[j]);
                }
            } else {
                let bits = order
                    .iter()
                    .enumerate()
                    .fold(0u8, |b, (k, &j)| b | u8::from(c[j] != 0) << k);
                out.push(bits);
            }
        }
    }

    /// The positions grouped by colour (see the module docs), groups in increasing colour.
    fn position_cells(&self, rows: &[(u16, Col)], groups: &[Vec<usize>]) -> Vec<Vec<u8>> {
        let n = self.n;
        let m = self.m();
        // single[j][p]: per column, the weighted sum of mix(card at p).
        let mut single = vec![[0u64; 8]; m];
        for &(s, c) in rows {
            let seq = &self.seqs[usize::from(s)];
            for j in (0..m).filter(|&j| c[j] != 0) {
                for p in 0..n {
                    single[j][p] =
                        single[j][p].wrapping_add(c[j].wrapping_mul(mix(u64::from(seq[p]))));
                }
            }
        }
        let mut colour: Vec<u64> = (0..n)
            .map(|p| {
                groups.iter().fold(0, |h, g| {
                    let mut v: Vec<u64> = g.iter().map(|&j| single[j][p]).collect();
                    hash_sorted(combine(h, 1), &mut v)
                })
            })
            .collect();
        let distinct = |c: &[u64]| {
            let mut v = c.to_vec();
            v.sort_unstable();
            v.dedup();
            v.len()
        };
        let mut count = distinct(&colour);
        if count < n {
            let pair = self.pair_statistics(rows, groups, &single);
            loop {
                let next: Vec<u64> = (0..n)
                    .map(|p| {
                        let mut around: Vec<u64> = (0..n)
                            .filter(|&q| q != p)
                            .map(|q| combine(colour[q], pair[p * n + q]))
                            .collect();
                        hash_sorted(colour[p], &mut around)
                    })
                    .collect();
                let next_count = distinct(&next);
                colour = next;
                if next_count <= count || next_count == n {
                    break;
                }
                count = next_count;
            }
        }
        let mut positions: Vec<u8> = (0..n as u8).collect();
        positions.sort_by_key(|&p| (colour[usize::from(p)], p));
        let mut cells: Vec<Vec<u8>> = Vec::new();
        for p in positions {
            match cells.last_mut() {
                Some(cell) if colour[usize::from(cell[0])] == colour[usize::from(p)] => {
                    cell.push(p)
                }
                _ => cells.push(vec![p]),
            }
        }
        cells
    }

    /// Per ordered pair `(p, q)`: per class, the sorted list over its columns of the two single
    /// sums and the weighted sum of a mixing function of the cards at `p` and `q`.
    fn pair_statistics(
        &self,
        rows: &[(u16, Col)],
        groups: &[Vec<usize>],
        single: &[[u64; 8]],
    ) -> Vec<u64> {
        let n = self.n;
        let m = self.m();
        let mut joint = vec![0u64; m * n * n];
        for &(s, c) in rows {
            let seq = &self.seqs[usize::from(s)];
            for j in (0..m).filter(|&j| c[j] != 0) {
                for p in 0..n {
                    for q in 0..n {
                        let cards = u64::from(seq[p]) << 8 | u64::from(seq[q]);
                        let slot = &mut joint[(j * n + p) * n + q];
                        *slot = slot.wrapping_add(c[j].wrapping_mul(mix(cards)));
                    }
                }
            }
        }
        let mut out = vec![0u64; n * n];
        for p in 0..n {
            for q in (0..n).filter(|&q| q != p) {
                out[p * n + q] = groups.iter().fold(0, |h, g| {
                    let mut v: Vec<u64> = g
                        .iter()
                        .map(|&j| {
                            let h = combine(single[j][p], single[j][q]);
                            combine(h, joint[(j * n + p) * n + q])
                        })
                        .collect();
                    hash_sorted(combine(h, 2), &mut v)
                });
            }
        }
        out
    }

    /// The state a key encodes: an image of the state the key was made from under the group
    /// (for the Las Vegas search, whose columns are fixed, a relabelling of its positions).
    pub(super) fn decode(&self, key: &[u8]) -> Option<State> {
        let mut at = 0;
        let r = usize::try_from(read_varint(key, &mut at)?).ok()?;
        let wide = self.seqs.len() > 256;
        let mut rows = Vec::with_capacity(r);
        for _ in 0..r {
            let s = if wide {
                let b = key.get(at..at + 2)?;
                at += 2;
                u16::from_be_bytes([b[0], b[1]])
            } else {
                at += 1;
                u16::from(*key.get(at - 1)?)
            };
            rows.push((s, [0u64; MAX_INPUTS]));
        }
        // The k-th entry of a row belongs to the k-th column of the classes listed in order.
        let slots: Vec<usize> = self.column_groups(false).concat();
        for row in rows.iter_mut() {
            if self.perfect {
                for &j in &slots {
                    row.1[j] = read_varint(key, &mut at)?;
                }
            } else {
                let bits = *key.get(at)?;
                at += 1;
                for (k, &j) in slots.iter().enumerate() {
                    row.1[j] = u64::from(bits >> k & 1);
                }
            }
        }
        (at == key.len()).then_some(State { rows })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{parse_deck, parse_function, SearchQuery, SearchRuntime, ShuffleClass};

    fn problem(deck: &str, f: &str, runtime: SearchRuntime) -> Problem {
        let mut q = SearchQuery::new(
            parse_deck(deck).expect("deck"),
            parse_function(f).expect("function"),
            3,
        );
        q.committed = true;
        q.runtime = runtime;
        q.shuffles = ShuffleClass::Closed;
        Problem::new(&q).expect("problem")
    }

    /// Every state two steps from the start.
    fn states(p: &Problem) -> Vec<State> {
        let start = p.start_state().expect("start");
        let mut out = vec![start.clone()];
        for step in p.expand(&start).expect("expand") {
            for (_, c) in step.children {
                for s2 in p.expand(&c).expect("expand") {
                    out.extend(s2.children.into_iter().map(|(_, c)| c));
                }
                out.push(c);
            }
        }
        out
    }

    /// Every element `(σ, colour swap)` of the column group, written out: `σ` sends column `i`
    /// to `σ[i]`.
    fn column_group(p: &Problem) -> Vec<(Vec<u8>, bool)> {
        let m = p.m();
        let mut out = Vec::new();
        for sigma in all_perms(m) {
            for swap in [false, true] {
                let allowed = match &p.columns {
                    Columns::Fixed => {
                        !swap && sigma.iter().enumerate().all(|(i, &x)| usize::from(x) == i)
                    }
                    Columns::ByOutput { swap: can_swap, .. } => {
                        (!swap || *can_swap)
                            && (0..m)
                                .all(|i| p.outputs[usize::from(sigma[i])] == (p.outputs[i] ^ swap))
                    }
                };
                if allowed {
                    out.push((sigma.clone(), swap));
                }
            }
        }
        out
    }

    /// `(π, σ)·S` for the `π` with index `perm` and a column-group element.
    fn act(p: &Problem, st: &State, perm: usize, (sigma, swap): &(Vec<u8>, bool)) -> State {
        let mut rows: Vec<(u16, Col)> = st
            .rows
            .iter()
            .map(|&(s, c)| {
                let s = match (swap, &p.complement) {
                    (true, Some(comp)) => comp[usize::from(s)],
                    _ => s,
                };
                let mut moved = [0u64; MAX_INPUTS];
                for i in 0..p.m() {
                    moved[usize::from(sigma[i])] = c[i];
                }
                (p.perm_seq[perm][usize::from(s)], moved)
            })
            .collect();
        rows.sort_unstable_by_key(|r| r.0);
        State { rows }
    }

    #[test]
    fn keys_are_invariant_under_the_group_and_decode_to_an_image_of_the_state() {
        for (deck, f, runtime) in [
            ("♣♣♥♥", "and", SearchRuntime::Finite),
            ("♣♣♥♥", "xor", SearchRuntime::Finite),
            ("♣♣♣♥♥", "and", SearchRuntime::Finite),
            ("♣♣♥♥", "and", SearchRuntime::LasVegas),
            ("1234", "xor", SearchRuntime::Finite),
        ] {
            let p = problem(deck, f, runtime);
            let group = column_group(&p);
            let all = states(&p);
            assert!(all.len() > 10, "{deck} {f}: {} states", all.len());
            for st in all.iter().step_by(all.len() / 40 + 1) {
                let key = p.canonical(st);
                for perm in (0..p.perm_seq.len()).step_by(5) {
                    for g in &group {
                        assert_eq!(p.canonical(&act(&p, st, perm, g)), key, "{deck} {f}");
                    }
                }
                // Completeness: the key is itself an image of the state.
                let back = p.decode(&key).expect("decodes");
                let image = (0..p.perm_seq.len())
                    .any(|perm| group.iter().any(|g| act(&p, st, perm, g) == back));
                assert!(image, "{deck} {f}: the key is no image of the state");
            }
        }
    }

    #[test]
    fn states_that_are_not_equivalent_get_different_keys() {
        let p = problem("♣♣♣♥♥", "and", SearchRuntime::Finite);
        let group = column_group(&p);
        let all = states(&p);
        let sample: Vec<&State> = all.iter().step_by(all.len() / 30 + 1).collect();
        for (x, a) in sample.iter().enumerate() {
            for b in &sample[x + 1..] {
                let equivalent = (0..p.perm_seq.len())
                    .any(|perm| group.iter().any(|g| act(&p, a, perm, g) == **b));
                assert_eq!(p.canonical(a) == p.canonical(b), equivalent);
            }
        }
    }
}
