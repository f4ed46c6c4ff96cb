//! The layer model's public state — the base row and the stack of layers, with this player's
//! own secret layers — the public route of an opening, and the exchanges of commitments and of
//! their openings.

use facedown_core::table::{ShuffleSet, TableError};
use facedown_core::{CommitCards, PartyId, Perm, Symbol};

use super::{EngineError, Result, MAX_ROW};
use crate::commit::{commit, verify, Commitment, Salt};
use crate::error::DealerError;
use crate::messages::{Body, Envelope, Opening};
use crate::rank::{rank, unrank};
use crate::scheme::{Recipient, Slot};

/// A secret layer this player drew.
#[derive(Clone, Debug)]
struct Secret {
    perm: Perm,
    inverse: Perm,
    salt: Salt,
}

#[derive(Clone, Debug)]
struct Layer {
    /// `None` for a public layer.
    holder: Option<PartyId>,
    /// The row's length when the layer was laid (it moves nothing beyond).
    n: usize,
    /// `reach[x]`: every position the value at `x` may come from (`g⁻¹(x)` for every `g` the
    /// layer may be; public knowledge).
    reach: Vec<Vec<usize>>,
    /// A public layer's inverse.
    public: Option<Perm>,
    /// This player's own layer.
    own: Option<Secret>,
    /// Another holder's layer once he opened it at the end: its inverse.
    opened: Option<Perm>,
    commitment: Option<Commitment>,
}

impl Layer {
    /// Where the value at `x` may come from (itself beyond the layer's row).
    fn sources(&self, x: usize) -> Vec<usize> {
        self.reach.get(x).cloned().unwrap_or_else(|| vec![x])
    }

    /// Whether the layer may move the value at `x`.
    fn may_move(&self, x: usize) -> bool {
        self.reach.get(x).is_some_and(|r| r.len() > 1 || r[0] != x)
    }
}

/// The layers a shuffle lays: one per drawer (every player for a group, player 1 alone
/// otherwise), each an element of `perms` chosen with `weights`, from layer `first` on.
#[derive(Clone, Debug)]
pub(super) struct Drawn {
    pub(super) drawers: Vec<PartyId>,
    pub(super) weights: Vec<u64>,
    pub(super) perms: Vec<Perm>,
    pub(super) first: usize,
}

/// The route of one position's value: the value after the public prefix, then each holder in
/// turn with the layers it applies (indices, last layer first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Route {
    /// The value the first holder starts from (the base position if there is no holder).
    pub(super) start: usize,
    /// `(holder, layers)` in order.
    pub(super) segments: Vec<(PartyId, Vec<usize>)>,
}

impl Route {
    /// The holders, in order.
    pub(super) fn holders(&self) -> Vec<PartyId> {
        self.segments.iter().map(|(h, _)| *h).collect()
    }
}

/// The base row and the layers.
#[derive(Clone, Debug, Default)]
pub(super) struct Row {
    base: Vec<Symbol>,
    layers: Vec<Layer>,
}

impl Row {
    /// The number of cards.
    pub(super) fn len(&self) -> usize {
        self.base.len()
    }

    /// The card at base position `x`.
    pub(super) fn card(&self, x: usize) -> Option<Symbol> {
        self.base.get(x).copied()
    }

    /// Whether `symbol` is one of the row's cards.
    pub(super) fn holds(&self, symbol: Symbol) -> bool {
        self.base.contains(&symbol)
    }

    /// Whether any layer is secret.
    pub(super) fn has_secrets(&self) -> bool {
        self.layers.iter().any(|l| l.holder.is_some())
    }

    fn grow(&mut self, cards: &[Symbol]) -> Result<usize> {
        let start = self.base.len();
        let n = start + cards.len();
        if n > MAX_ROW {
            return Err(EngineError::TooLong(n));
        }
        self.base.extend_from_slice(cards);
        Ok(start)
    }

    pub(super) fn place(&mut self, cards: &[Symbol]) -> Result<()> {
        self.grow(cards).map(drop)
    }

    /// The layer of `party`'s commitment of `cards` (their multiset joins the base row).
    pub(super) fn commit(&mut self, party: PartyId, cards: &CommitCards) -> Result<usize> {
        let start = self.grow(&cards.multiset())?;
        let n = self.base.len();
        let reach = (0..n)
            .map(|x| {
                if x >= start {
                    (start..n).collect()
                } else {
                    vec![x]
                }
            })
            .collect();
        self.layers.push(Layer {
            holder: Some(party),
            n,
            reach,
            public: None,
            own: None,
            opened: None,
            commitment: None,
        });
        Ok(self.layers.len() - 1)
    }

    /// A public rearrangement.
    pub(super) fn rearrange(&mut self, perm: &Perm) -> Result<()> {
        let n = self.base.len();
        if perm.len() != n {
            return Err(TableError::PermSize {
                got: perm.len(),
                len: n,
            }
            .into());
        }
        let inverse = perm.inverse();
        self.layers.push(Layer {
            holder: None,
            n,
            reach: (0..n).map(|x| vec![inverse.apply(x)]).collect(),
            public: Some(inverse),
            own: None,
            opened: None,
            commitment: None,
        });
        Ok(())
    }

    /// The layers of a shuffle; `None` if the shuffle moves no card.
    pub(super) fn shuffle(&mut self, set: &ShuffleSet, parties: usize) -> Result<Option<Drawn>> {
        let n = self.base.len();
        set.check_fits(n)?;
        let (perms, weights, drawers): (Vec<Perm>, Vec<u64>, Vec<PartyId>) = match set {
            ShuffleSet::All => return Err(EngineError::OutOfOrder("a deal is not a layer")),
            ShuffleSet::Uniform(p) if set.is_group() => {
                (p.clone(), vec![1; p.len()], PartyId::all(parties).collect())
            }
            ShuffleSet::Uniform(p) => (p.clone(), vec![1; p.len()], vec![PartyId(1)]),
            ShuffleSet::Weighted(w) => {
                let kept: Vec<_> = w.iter().filter(|(_, x)| *x > 0).collect();
                (
                    kept.iter().map(|(p, _)| p.clone()).collect(),
                    kept.iter().map(|(_, x)| *x).collect(),
                    vec![PartyId(1)],
                )
            }
        };
        let inverses: Vec<Perm> = perms.iter().map(Perm::inverse).collect();
        let reach: Vec<Vec<usize>> = (0..n)
            .map(|x| {
                let mut r: Vec<usize> = inverses.iter().map(|q| q.apply(x)).collect();
                r.sort_unstable();
                r.dedup();
                r
            })
            .collect();
        if (0..n).all(|x| reach[x] == [x]) {
            return Ok(None);
        }
        let first = self.layers.len();
        for &holder in &drawers {
            self.layers.push(Layer {
                holder: Some(holder),
                n,
                reach: reach.clone(),
                public: None,
                own: None,
                opened: None,
                commitment: None,
            });
        }
        Ok(Some(Drawn {
            drawers,
            weights,
            perms,
            first,
        }))
    }

    /// Fixes this player's layer `layer` to `perm` with `salt`; returns its commitment.
    pub(super) fn own(
        &mut self,
        me: PartyId,
        layer: usize,
        perm: Perm,
        salt: Salt,
    ) -> Result<Commitment> {
        let l = self
            .layers
            .get_mut(layer)
            .filter(|l| l.holder == Some(me))
            .ok_or(EngineError::OutOfOrder("a layer of another player"))?;
        let commitment = commit(l.n, me, Slot::Deal(me), &rank(&perm), &salt)
            .ok_or(EngineError::TooLong(l.n))?;
        l.commitment = Some(commitment);
        l.own = Some(Secret {
            inverse: perm.inverse(),
            perm,
            salt,
        });
        Ok(commitment)
    }

    /// The row as it lies, when no layer is secret.
    pub(super) fn as_it_lies(&self) -> Vec<Symbol> {
        (0..self.base.len())
            .map(|j| {
                let x = self.layers.iter().rev().fold(j, |x, l| match &l.public {
                    Some(inv) if x < l.n => inv.apply(x),
                    _ => x,
                });
                self.base[x]
            })
            .collect()
    }

    /// The public route of the value at position `j` (see the [engine docs](super)).
    pub(super) fn route(&self, j: usize) -> Route {
        let mut possible = vec![false; self.base.len()];
        possible[j] = true;
        let mut start = j;
        let mut segments: Vec<(PartyId, Vec<usize>)> = Vec::new();
        for (i, layer) in self.layers.iter().enumerate().rev() {
            match layer.holder {
                None => {
                    if segments.is_empty() {
                        start = layer.sources(start)[0];
                    } else if let Some(last) = segments.last_mut() {
                        last.1.push(i);
                    }
                }
                Some(h) => {
                    if !(0..possible.len()).any(|x| possible[x] && layer.may_move(x)) {
                        continue;
                    }
                    match segments.last_mut() {
                        Some((holder, layers)) if *holder == h => layers.push(i),
                        _ => segments.push((h, vec![i])),
                    }
                }
            }
            let mut next = vec![false; possible.len()];
            for x in (0..possible.len()).filter(|&x| possible[x]) {
                for y in layer.sources(x) {
                    next[y] = true;
                }
            }
            possible = next;
        }
        Route { start, segments }
    }

    /// Applies `layers` (this player's secret ones and public ones) to the value `x`.
    pub(super) fn apply(&self, layers: &[usize], x: usize) -> Result<usize> {
        layers.iter().try_fold(x, |x, &i| {
            let l = &self.layers[i];
            let inverse = match (&l.public, &l.own, &l.opened) {
                (Some(inv), _, _) | (None, None, Some(inv)) => inv,
                (None, Some(own), _) => &own.inverse,
                (None, None, None) => {
                    return Err(EngineError::OutOfOrder("a layer of another player"))
                }
            };
            Ok(if x < l.n { inverse.apply(x) } else { x })
        })
    }

    fn layers_of(&self, party: PartyId) -> impl Iterator<Item = &Layer> {
        self.layers.iter().filter(move |l| l.holder == Some(party))
    }
}

/// The sorted multiset of `cards` laid as `order`: the permutation of the row that moves the
/// commitment's cards, laid sorted at the end of the row, to `order`.
pub(super) fn arrangement(row: &Row, layer: usize, order: &[Symbol]) -> Result<Perm> {
    let n = row.layers[layer].n;
    let start = n - order.len();
    let mut used = vec![false; order.len()];
    let mut images: Vec<usize> = (0..start).collect();
    for s in &row.base[start..n] {
        let k = (0..order.len())
            .find(|&k| !used[k] && order[k] == *s)
            .ok_or(TableError::EmptyShuffle)?;
        used[k] = true;
        images.push(start + k);
    }
    Perm::from_images(images).map_err(|_| EngineError::TooLong(n))
}

/// Commitments awaited from other players, one per layer.
#[derive(Debug)]
pub(super) struct Commits {
    waiting: Vec<(PartyId, usize)>,
}

impl Commits {
    pub(super) fn of(waiting: Vec<(PartyId, usize)>) -> Commits {
        Commits { waiting }
    }

    pub(super) fn awaiting(&self) -> Vec<PartyId> {
        let mut out: Vec<PartyId> = self.waiting.iter().map(|(p, _)| *p).collect();
        out.dedup();
        out
    }

    pub(super) fn is_done(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Records the commitment `from` broadcast in `env` (already checked).
    pub(super) fn receive(&mut self, row: &mut Row, from: PartyId, env: &Envelope) -> Result<()> {
        let unexpected = |what: &str| DealerError::Unexpected {
            from,
            what: what.into(),
        };
        let k = self
            .waiting
            .iter()
            .position(|(p, _)| *p == from)
            .ok_or_else(|| unexpected("a commitment nobody awaits"))?;
        let Body::Commit { commitments } = &env.body else {
            return Err(unexpected("a message other than a commitment").into());
        };
        let [(slot, c)] = commitments.as_slice() else {
            return Err(unexpected("commitments to several layers at once").into());
        };
        if *slot != Slot::Deal(from) || env.to != Recipient::All {
            return Err(unexpected("a commitment to another slot, or not broadcast").into());
        }
        let (_, layer) = self.waiting.remove(k);
        row.layers[layer].commitment = Some(*c);
        Ok(())
    }
}

/// The end of a card protocol: every holder opens every layer he drew.
#[derive(Debug)]
pub(super) struct Reveals {
    waiting: Vec<PartyId>,
}

impl Reveals {
    /// The openings this player broadcasts (if he holds any layer), and whom to await.
    pub(super) fn begin(row: &Row, me: PartyId) -> (Reveals, Option<Body>) {
        let mut waiting: Vec<PartyId> = Vec::new();
        for l in &row.layers {
            if let Some(h) = l.holder.filter(|&h| h != me && !waiting.contains(&h)) {
                waiting.push(h);
            }
        }
        waiting.sort();
        let openings: Vec<Opening> = row
            .layers_of(me)
            .filter_map(|l| l.own.as_ref())
            .map(|s| Opening {
                slot: Slot::Deal(me),
                rank: rank(&s.perm),
                salt: s.salt,
            })
            .collect();
        let body = (!openings.is_empty()).then_some(Body::Reveal { openings });
        (Reveals { waiting }, body)
    }

    /// Awaits the ends of `parties` too (the players who hold hops but no layer).
    pub(super) fn also_await(&mut self, parties: impl IntoIterator<Item = PartyId>) {
        self.waiting.extend(parties);
        self.waiting.sort();
        self.waiting.dedup();
    }

    pub(super) fn awaiting(&self) -> Vec<PartyId> {
        self.waiting.clone()
    }

    pub(super) fn is_done(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Checks every opening of `from` (in `reveal`, broadcast; none if he holds no layer)
    /// against the commitment he broadcast.
    pub(super) fn receive(
        &mut self,
        row: &mut Row,
        from: PartyId,
        reveal: Option<&Envelope>,
    ) -> Result<()> {
        let openings: &[Opening] = match reveal.map(|env| (&env.body, env.to)) {
            None => &[],
            Some((Body::Reveal { openings }, Recipient::All)) => openings,
            Some((Body::Reveal { .. }, _)) => {
                return Err(EngineError::AuditMismatch { party: from })
            }
            Some(_) => {
                return Err(DealerError::Unexpected {
                    from,
                    what: "a message other than the openings of his layers".into(),
                }
                .into())
            }
        };
        let layers: Vec<&Layer> = row.layers_of(from).collect();
        if openings.len() != layers.len() {
            return Err(EngineError::AuditMismatch { party: from });
        }
        for (o, l) in openings.iter().zip(layers) {
            let opened = l.commitment.as_ref().is_some_and(|c| {
                o.slot == Slot::Deal(from) && verify(c, l.n, from, o.slot, &o.rank, &o.salt).is_ok()
            });
            if !opened {
                return Err(EngineError::AuditMismatch { party: from });
            }
        }
        let held = row.layers.iter_mut().filter(|l| l.holder == Some(from));
        for (o, l) in openings.iter().zip(held) {
            let perm =
                unrank(l.n, &o.rank).map_err(|_| EngineError::AuditMismatch { party: from })?;
            l.opened = Some(perm.inverse());
        }
        self.waiting.retain(|&p| p != from);
        Ok(())
    }
}
