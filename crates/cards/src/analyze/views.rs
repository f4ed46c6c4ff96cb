//! Views, interned once per walk.
//!
//! A view is the list of observations a path has made. Paths and turn records share their
//! views' prefixes, and the verdict and the leak measures group records by view, so the walk
//! keeps every distinct view once, in a [`Views`] table, and the paths, leaves and records
//! hold a [`ViewId`]. A view is its parent (the view before its last observation) with one
//! observation added: the table is a trie, and two views are the same exactly when their ids
//! are, so grouping by view compares integers.

use std::hash::BuildHasher;
use std::sync::Arc;

use facedown_core::Symbol;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::model::{Observation, Span};

/// A view in its exploration's [`Views`] table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ViewId(usize);

impl ViewId {
    /// The empty view (nothing seen yet).
    pub const EMPTY: ViewId = ViewId(0);

    pub(super) fn index(self) -> usize {
        self.0
    }
}

/// One observation, interned: an index into [`Observations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Seen(usize);

/// Every distinct observation of a walk, once: the list, and an index found by a hash of the
/// turn and the symbols (so that looking one up copies nothing).
#[derive(Clone, Debug, Default)]
struct Observations {
    list: Vec<Observation>,
    index: HashTable<Seen>,
}

impl Observations {
    /// The observation of turn `span` showing `symbols`, added when new.
    fn intern(&mut self, span: Span, symbols: &[Symbol]) -> Seen {
        let hash = FxBuildHasher.hash_one((span, symbols));
        let list = &mut self.list;
        let same = |o: &Observation| o.span == span && o.symbols == symbols;
        if let Some(&seen) = self.index.find(hash, |&Seen(i)| same(&list[i])) {
            return seen;
        }
        let seen = Seen(list.len());
        list.push(Observation {
            span,
            symbols: symbols.to_vec(),
        });
        self.index.insert_unique(hash, seen, |&Seen(i)| {
            let o = &list[i];
            FxBuildHasher.hash_one((o.span, o.symbols.as_slice()))
        });
        seen
    }
}

/// One view of the table: the view before its last observation, that observation, and who
/// alone saw it (`None`: everyone).
#[derive(Clone, Copy, Debug)]
struct Entry {
    parent: ViewId,
    last: Seen,
    holder: Option<usize>,
    len: usize,
}

/// Every distinct view of one exploration; [`ViewId::EMPTY`] is always present. The
/// observations are shared with the tables of each player's view made from this one.
#[derive(Clone, Debug)]
pub struct Views {
    entries: Vec<Entry>,
    children: FxHashMap<(ViewId, Seen), ViewId>,
    observations: Arc<Observations>,
}

impl Default for Views {
    fn default() -> Views {
        Views {
            entries: vec![Entry {
                parent: ViewId::EMPTY,
                last: Seen(usize::MAX),
                holder: None,
                len: 0,
            }],
            children: FxHashMap::default(),
            observations: Arc::default(),
        }
    }
}

impl Views {
    /// The observations of `id`, first first.
    pub fn get(&self, id: ViewId) -> Vec<Observation> {
        let mut out = Vec::with_capacity(self.len_of(id));
        let mut at = id;
        while at != ViewId::EMPTY {
            let e = &self.entries[at.index()];
            out.push(self.observations.list[e.last.0].clone());
            at = e.parent;
        }
        out.reverse();
        out
    }

    /// The number of observations in `id`.
    pub fn len_of(&self, id: ViewId) -> usize {
        self.entries[id.index()].len
    }

    /// The number of distinct views, the empty one included.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: the empty view is in every table.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// `parent` followed by what turn `span` showed (`symbols`), which only `holder` saw
    /// (`None`: everyone saw it); a view already in the table keeps its id.
    pub(super) fn child(
        &mut self,
        parent: ViewId,
        span: Span,
        symbols: &[Symbol],
        holder: Option<usize>,
    ) -> ViewId {
        let last = Arc::make_mut(&mut self.observations).intern(span, symbols);
        self.child_seen(parent, last, holder)
    }

    fn child_seen(&mut self, parent: ViewId, last: Seen, holder: Option<usize>) -> ViewId {
        let next = ViewId(self.entries.len());
        let len = self.entries[parent.index()].len + 1;
        let entries = &mut self.entries;
        *self.children.entry((parent, last)).or_insert_with(|| {
            entries.push(Entry {
                parent,
                last,
                holder,
                len,
            });
            next
        })
    }

    /// Sorts `items` in increasing order of their views written out (the order of
    /// `Vec<Observation>`), without writing any out: observations are interned, so a view
    /// compares as the list of its observations' ranks. The views must be distinct.
    pub(super) fn sort_by_view<T>(&self, items: &mut [(ViewId, T)]) {
        let list = &self.observations.list;
        let mut order: Vec<usize> = (0..list.len()).collect();
        order.sort_unstable_by(|&a, &b| list[a].cmp(&list[b]));
        let mut rank = vec![0; list.len()];
        for (r, &o) in order.iter().enumerate() {
            rank[o] = r;
        }
        items.sort_by_cached_key(|&(id, _)| self.ranks(id, &rank));
    }

    /// The ranks of the observations of `id`, first first.
    fn ranks(&self, id: ViewId, rank: &[usize]) -> Vec<usize> {
        let mut out = vec![0; self.len_of(id)];
        let mut at = id;
        for slot in out.iter_mut().rev() {
            let e = &self.entries[at.index()];
            *slot = rank[e.last.0];
            at = e.parent;
        }
        out
    }

    /// The same views with only the observations `viewer` sees (`None`: the public ones), and
    /// for each view of this table its id in the new one. A parent always has a smaller id
    /// than its children, so one pass in order maps every view.
    pub(super) fn seen_by(&self, viewer: Option<usize>) -> (Views, Vec<ViewId>) {
        let mut out = Views {
            observations: Arc::clone(&self.observations),
            ..Views::default()
        };
        out.entries.reserve(self.entries.len() - 1);
        out.children.reserve(self.children.len());
        let mut map = vec![ViewId::EMPTY; self.entries.len()];
        for (id, e) in self.entries.iter().enumerate().skip(1) {
            let parent = map[e.parent.index()];
            map[id] = if e.holder.is_none() || e.holder == viewer {
                out.child_seen(parent, e.last, e.holder)
            } else {
                parent
            };
        }
        (out, map)
    }
}

/// A view's id in the table made by [`Views::seen_by`].
pub(super) fn mapped(map: &[ViewId], id: ViewId) -> ViewId {
    map[id.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize) -> Span {
        Span { line, col: 1 }
    }

    fn seen(span: usize, symbol: Symbol) -> Observation {
        Observation {
            span: Span { line: span, col: 1 },
            symbols: vec![symbol],
        }
    }

    #[test]
    fn the_same_view_reached_twice_has_one_id() {
        let mut views = Views::default();
        let a = views.child(ViewId::EMPTY, at(1), &[Symbol::Club], None);
        let b = views.child(ViewId::EMPTY, at(1), &[Symbol::Heart], None);
        assert_ne!(a, b);
        assert_eq!(views.child(ViewId::EMPTY, at(1), &[Symbol::Club], None), a);
        let ab = views.child(a, at(2), &[Symbol::Heart], None);
        assert_eq!(
            views.get(ab),
            [seen(1, Symbol::Club), seen(2, Symbol::Heart)]
        );
        assert_eq!(views.len(), 4);
    }

    #[test]
    fn a_viewer_keeps_the_public_observations_and_his_own() {
        let mut views = Views::default();
        let mine = views.child(ViewId::EMPTY, at(1), &[Symbol::Card(1)], Some(0));
        let theirs = views.child(mine, at(2), &[Symbol::Card(3)], Some(1));
        let public = views.child(theirs, at(3), &[Symbol::Heart], None);
        let (alice, map) = views.seen_by(Some(0));
        assert_eq!(
            alice.get(mapped(&map, public)),
            [seen(1, Symbol::Card(1)), seen(3, Symbol::Heart)]
        );
        assert_eq!(mapped(&map, theirs), mapped(&map, mine));
        let (everyone, map) = views.seen_by(None);
        assert_eq!(everyone.get(mapped(&map, public)), [seen(3, Symbol::Heart)]);
        assert_eq!(mapped(&map, mine), ViewId::EMPTY);
    }
}
