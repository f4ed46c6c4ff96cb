//! The dealer as a [`FaceDownTable`]: a row of face-down cards whose hidden order is a product
//! of secret layers held by the players.
//!
//! # The model
//!
//! Every card placed on the table is public ("base" row `b`); what hides it is a stack of
//! *layers*, permutations of the row applied one after another. With layers `L_1, …, L_k` (in
//! the order they were applied, `L = L_k ∘ … ∘ L_1`) position `j` holds `b[L⁻¹(j)]`.
//!
//! | table operation | layers |
//! |---|---|
//! | [`place`](FaceDownTable::place) | appends to `b` (public) |
//! | [`commit`](FaceDownTable::commit) by `p` | appends the sorted cards to `b`, then a secret layer held by `p` that puts them in `p`'s order (for a bit: swap or not) |
//! | [`rearrange`](FaceDownTable::rearrange) | a public layer |
//! | [`shuffle`](FaceDownTable::shuffle) `Uniform(G)`, `G` a group | one fresh uniform layer `g_p ∈ G` per player `p = 1..N`; `g_N ∘ … ∘ g_1` is uniform on `G` as soon as one player is honest |
//! | [`shuffle`](FaceDownTable::shuffle) `All` | the dealer's own deal `A = A_N ∘ … ∘ A_1` ([`Table`]), with its helper pairs and audit |
//! | `Uniform` over a non-group, `Weighted` | refused: per-player layers compose to a uniform element only over a group, and one player drawing alone would learn the permutation |
//!
//! Every secret layer is committed to when it is drawn (a broadcast [`Body::Commit`] with the
//! dealer's [`commit`] of its ordinal) and opened at
//! [`finish`](FaceDownTable::finish), where every opening is checked.
//!
//! **Opening position `j`** evaluates `L⁻¹(j)` along the chain of layer holders, last layer
//! first, as the dealer's chain evaluates `A(i)`: the current holder applies his layer's
//! inverse and sends the intermediate position to the holder of the next secret layer (a signed
//! [`Body::Value`] envelope); public layers are applied by whoever holds the value; a layer
//! that publicly cannot move the value (outside its support) is skipped. The holder of the
//! last secret layer on the chain reads `b[·]` and broadcasts the card ([`turn`]) or sends it
//! to the one party ([`open_to`]). After a deal, openings go through the dealer's own routes
//! (public, or private through the helper pairs) instead.
//!
//! **What this costs in privacy.** The intermediate positions are seen by the next holder. In
//! the dealer's deal every player holds exactly one layer and the values are uniform to each of
//! them; in a card protocol the same player holds several interleaved layers (his input
//! commitment, then his share of each shuffle), so the value he receives back can reveal
//! another player's share of a shuffle — and with it, after the turns, an input. The exact
//! size of this excess leakage for a single party is computed by enumerating every party's
//! random choices: [`enumerate_runs`] and [`excess_leakage`]. On a card protocol's row,
//! [`open_to`] is also weakened: the last holder on the chain learns the card too.
//!
//! Security model: honest-but-curious players who do not collude, as for the dealer itself.
//!
//! [`turn`]: FaceDownTable::turn
//! [`open_to`]: FaceDownTable::open_to

use std::collections::BTreeMap;

use ed25519_dalek::SigningKey;
use facedown_core::table::TableError;
use facedown_core::table::{Capabilities, FaceDownTable, SecurityModel, ShuffleSet, Support};
use facedown_core::{CommitCards, Cost, PartyId, Perm, Seen, Symbol, TableOp};
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};
use rand::{CryptoRng, Rng, RngCore};
use serde::{Deserialize, Serialize};

use crate::commit::{commit, verify, Commitment, Salt};
use crate::driver::Table;
use crate::error::DealerError;
use crate::messages::{Body, Envelope, Opening, SessionId};
use crate::rank::rank;
use crate::scheme::{Recipient, Route, Scheme, Slot};

/// Largest row (the ordinal of a layer is committed to as a number below `n!`).
pub const MAX_ROW: usize = 1024;

/// Why the dealer table refused or failed an operation.
#[derive(Debug, thiserror::Error)]
pub enum DealerTableError {
    /// Bad input: a position, permutation size, party or empty shuffle.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A uniform shuffle over a set that is not closed under composition.
    #[error(
        "the dealer cannot shuffle uniformly over these {size} permutations: they do not form a \
         group, so per-player layers do not compose to a uniform element"
    )]
    NotAGroup {
        /// Number of permutations listed.
        size: usize,
    },
    /// A weighted shuffle.
    #[error(
        "the dealer cannot perform a weighted shuffle: it cannot be composed from independent \
         per-player layers, and a single player drawing it would learn it"
    )]
    Weighted,
    /// A deal (`All`) with fewer than three players.
    #[error("the dealer's deal needs at least 3 players, this table has {0}")]
    DealPlayers(usize),
    /// A deal (`All`) over cards already hidden by secret layers.
    #[error(
        "the dealer's deal must start from public cards; this row already holds secret layers"
    )]
    DealOverSecrets,
    /// An operation the dealer's deal does not support once dealt.
    #[error(
        "after the dealer's deal only public rearrangements and openings are supported, not {0}"
    )]
    AfterDeal(&'static str),
    /// The row is too long for committed layers.
    #[error("a row of {0} cards is too long (at most {MAX_ROW})")]
    TooLong(usize),
    /// The dealer's deal failed (bad message, no private path …).
    #[error(transparent)]
    Dealer(#[from] DealerError),
    /// An opening through the deal did not complete.
    #[error("the opening of position {position} did not complete")]
    Aborted {
        /// The position.
        position: usize,
    },
    /// A layer's opening at the audit does not match its commitment.
    #[error("{party} opened a layer that does not match his commitment")]
    AuditMismatch {
        /// The party.
        party: PartyId,
    },
    /// The dealer's own audit of the deal failed.
    #[error("the dealer's audit failed: {0}")]
    DealAudit(String),
    /// An operation after [`finish`](FaceDownTable::finish).
    #[error("the game is finished")]
    Finished,
}

/// One thing a party saw that the ideal table would not have shown him.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ViewEvent {
    /// A layer he drew himself (an input commitment or his share of a shuffle).
    OwnLayer(Perm),
    /// An intermediate position received on an opening chain.
    Received {
        /// The sender.
        from: PartyId,
        /// The position.
        value: u16,
    },
    /// A card shown to everyone (also on the ideal table).
    Public(Symbol),
    /// A card shown to him alone (also on the ideal table).
    Private(Symbol),
}

#[derive(Clone, Debug)]
struct Layer {
    holder: Option<PartyId>,
    inverse: Perm,
    /// Positions the layer may move (public: the committed range, the shuffle's support).
    moves: Vec<bool>,
}

impl Layer {
    fn acts_on(&self, x: usize) -> bool {
        self.moves.get(x).copied().unwrap_or(false)
    }
}

#[derive(Clone, Debug)]
struct Secret {
    holder: PartyId,
    n: usize,
    perm: Perm,
    salt: Salt,
    commitment: Commitment,
}

#[derive(Debug)]
struct Deal {
    table: Option<Table>,
}

#[derive(Clone, Debug, Default)]
struct Script {
    forced: Vec<usize>,
    drawn: Vec<(usize, usize)>,
}

/// The permutation-sharing dealer as a face-down table (see the [module docs](self)).
#[derive(Debug)]
pub struct DealerTable<R> {
    parties: usize,
    base: Vec<Symbol>,
    layers: Vec<Layer>,
    deal: Option<Deal>,
    keys: Vec<SigningKey>,
    session: SessionId,
    seq: Vec<u32>,
    next_op: u32,
    cost: Cost,
    views: Vec<Vec<ViewEvent>>,
    secrets: Vec<Secret>,
    script: Option<Script>,
    finished: bool,
    rng: R,
}

fn symbol_code(s: Symbol) -> u16 {
    match s {
        Symbol::Club => 0,
        Symbol::Heart => 1,
        Symbol::Card(k) => k.saturating_add(2),
    }
}

impl<R: RngCore + CryptoRng> DealerTable<R> {
    /// An empty table for `parties` players with fresh signing keys, drawing from `rng`.
    pub fn with_rng(parties: usize, mut rng: R) -> Self {
        let keys = (0..parties)
            .map(|_| {
                let mut secret = [0u8; 32];
                rng.fill_bytes(&mut secret);
                SigningKey::from_bytes(&secret)
            })
            .collect();
        let mut session = [0u8; 32];
        rng.fill_bytes(&mut session);
        DealerTable {
            parties,
            base: Vec::new(),
            layers: Vec::new(),
            deal: None,
            keys,
            session: SessionId(session),
            seq: vec![0; parties],
            next_op: 0,
            cost: Cost::ZERO,
            views: vec![Vec::new(); parties],
            secrets: Vec::new(),
            script: None,
            finished: false,
            rng,
        }
    }

    /// What each party saw beyond his own inputs, player 1 first: his own layers, the
    /// intermediate positions he received, and the cards shown to him (the input of the exact
    /// leakage computation). Openings through the dealer's deal are in the deal's own views.
    pub fn views(&self) -> &[Vec<ViewEvent>] {
        &self.views
    }

    fn check_party(&self, party: PartyId) -> Result<(), TableError> {
        if party.0 == 0 || party.index() >= self.parties {
            return Err(TableError::Party {
                party,
                parties: self.parties,
            });
        }
        Ok(())
    }

    fn check_open(&self) -> Result<(), DealerTableError> {
        if self.finished {
            return Err(DealerTableError::Finished);
        }
        Ok(())
    }

    fn draw(&mut self, arity: usize) -> usize {
        match &mut self.script {
            Some(s) => {
                let k = s.drawn.len();
                let c = s.forced.get(k).copied().unwrap_or(0).min(arity - 1);
                s.drawn.push((c, arity));
                c
            }
            None => self.rng.gen_range(0..arity),
        }
    }

    /// Signs and sends one message, adding its deliveries and bytes to the cost.
    fn send(&mut self, from: PartyId, to: Recipient, body: Body) {
        let seq = self.seq[from.index()];
        self.seq[from.index()] += 1;
        let env = Envelope::sign(&self.session, &self.keys[from.index()], from, to, seq, body);
        let d = env.deliveries(self.parties);
        self.cost.messages += d;
        self.cost.bytes += d * env.to_bytes().len() as u64;
    }

    /// A secret layer drawn by `holder`: committed to in a broadcast, recorded for the audit.
    fn push_secret(&mut self, holder: PartyId, perm: Perm, moves: Vec<bool>) {
        let n = perm.len();
        let salt = Salt::random_with_rng(&mut self.rng);
        let slot = Slot::Deal(holder);
        let commitment =
            commit(n, holder, slot, &rank(&perm), &salt).unwrap_or(Commitment([0; 32]));
        self.send(
            holder,
            Recipient::All,
            Body::Commit {
                commitments: vec![(slot, commitment)],
            },
        );
        self.views[holder.index()].push(ViewEvent::OwnLayer(perm.clone()));
        self.layers.push(Layer {
            holder: Some(holder),
            inverse: perm.inverse(),
            moves,
        });
        self.secrets.push(Secret {
            holder,
            n,
            perm,
            salt,
            commitment,
        });
    }

    fn check_positions(&self, positions: &[usize]) -> Result<(), TableError> {
        match positions.iter().find(|&&p| p >= self.base.len()) {
            Some(&position) => Err(TableError::Position {
                position,
                len: self.base.len(),
            }),
            None => Ok(()),
        }
    }

    /// Evaluates `L⁻¹(j)` along the chain: the hops `(from, to, value)`, the final holder
    /// (`None` when the value stayed public) and the base position.
    fn chain(&self, j: usize) -> (Vec<(PartyId, PartyId, usize)>, Option<PartyId>, usize) {
        let mut x = j;
        let mut current: Option<PartyId> = None;
        let mut hops = Vec::new();
        for layer in self.layers.iter().rev() {
            if !layer.acts_on(x) {
                continue;
            }
            if let Some(h) = layer.holder {
                if current != Some(h) {
                    if let Some(c) = current {
                        hops.push((c, h, x));
                    }
                    current = Some(h);
                }
            }
            x = layer.inverse.apply(x);
        }
        (hops, current, x)
    }

    /// Opens `positions` along the layer chains; `to` is `None` for a public turn.
    fn open_chains(
        &mut self,
        positions: &[usize],
        to: Option<PartyId>,
    ) -> Result<Vec<Symbol>, DealerTableError> {
        self.check_positions(positions)?;
        let mut rounds = 0u64;
        let mut out = Vec::with_capacity(positions.len());
        for &j in positions {
            let op = self.next_op;
            self.next_op += 1;
            let (hops, last, x) = self.chain(j);
            let symbol = self.base[x];
            let mut hop_index = 0u16;
            for (from, dest, value) in hops {
                let value = u16::try_from(value).unwrap_or(u16::MAX);
                self.send(
                    from,
                    Recipient::Party(dest),
                    Body::Value {
                        op,
                        hop: hop_index,
                        value,
                    },
                );
                self.views[dest.index()].push(ViewEvent::Received { from, value });
                hop_index += 1;
            }
            match (last, to) {
                (Some(c), None) => {
                    self.send(
                        c,
                        Recipient::All,
                        Body::Value {
                            op,
                            hop: hop_index,
                            value: symbol_code(symbol),
                        },
                    );
                    hop_index += 1;
                    for v in &mut self.views {
                        v.push(ViewEvent::Public(symbol));
                    }
                }
                (Some(c), Some(p)) => {
                    if c != p {
                        self.send(
                            c,
                            Recipient::Party(p),
                            Body::Value {
                                op,
                                hop: hop_index,
                                value: symbol_code(symbol),
                            },
                        );
                        hop_index += 1;
                    }
                    self.views[p.index()].push(ViewEvent::Private(symbol));
                }
                (None, None) => {
                    for v in &mut self.views {
                        v.push(ViewEvent::Public(symbol));
                    }
                }
                (None, Some(p)) => self.views[p.index()].push(ViewEvent::Private(symbol)),
            }
            rounds = rounds.max(u64::from(hop_index));
            out.push(symbol);
        }
        self.cost.rounds += rounds;
        Ok(out)
    }

    /// Unwinds the public layers laid after a deal: the deal positions to open.
    fn deal_positions(&self, positions: &[usize]) -> Result<Vec<usize>, DealerTableError> {
        self.check_positions(positions)?;
        Ok(positions.iter().map(|&j| self.chain(j).2).collect())
    }

    fn open_deal(
        &mut self,
        positions: &[usize],
        to: Option<PartyId>,
    ) -> Result<Vec<Symbol>, DealerTableError> {
        let xs = self.deal_positions(positions)?;
        let table = self
            .deal
            .as_mut()
            .and_then(|d| d.table.as_mut())
            .ok_or(DealerTableError::Finished)?;
        let (name, route) = match to {
            None => ("open publicly".to_owned(), Route::Public),
            Some(p) => (
                format!("open privately to {p}"),
                table.scheme().private_route(p)?,
            ),
        };
        let openings: Vec<(usize, Route)> = xs.iter().map(|&x| (x, route)).collect();
        let batch = table.run(&name, &openings)?;
        self.cost += batch.cost;
        let learner = to.unwrap_or(PartyId(1));
        batch
            .per_op
            .iter()
            .zip(&xs)
            .map(|((op, _), &x)| {
                batch
                    .learned
                    .iter()
                    .find(|(who, l)| *who == learner && l.op == op.id)
                    .and_then(|(_, l)| self.base.get(usize::from(l.card)).copied())
                    .ok_or(DealerTableError::Aborted { position: x })
            })
            .collect()
    }
}

impl<R: RngCore + CryptoRng> FaceDownTable for DealerTable<R> {
    type Error = DealerTableError;

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            backend: "dealer".to_owned(),
            security: SecurityModel::HonestButCuriousNoCollusion,
            information_theoretic: true,
            commit: Support::Secure,
            uniform_shuffle: Support::Weakened(
                "over a group only, one secret layer per player; openings pass intermediate \
                 positions between interleaved layer holders, which can leak to one player \
                 (see excess_bits)"
                    .to_owned(),
            ),
            other_shuffle: Support::Unsupported(
                "a weighted shuffle cannot be composed from independent per-player layers; a \
                 single player drawing it would learn it"
                    .to_owned(),
            ),
            full_shuffle: if self.parties >= 3 {
                Support::Secure
            } else {
                Support::Unsupported("the dealer's deal needs at least 3 players".to_owned())
            },
            private_open: Support::Weakened(
                "secure for dealt cards (the dealer's helper-pair routes); on a card protocol's \
                 row the last layer holder on the chain also learns the card"
                    .to_owned(),
            ),
        }
    }

    fn parties(&self) -> usize {
        self.parties
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn cost(&self) -> Cost {
        self.cost
    }

    fn apply(&mut self, op: &TableOp) -> core::result::Result<Seen, DealerTableError> {
        match op {
            TableOp::Setup => {}
            TableOp::Place(c) => self.do_place(c)?,
            TableOp::Commit {
                party,
                cards: CommitCards::Known(c),
            } => self.do_commit(*party, c)?,
            TableOp::Commit { party, .. } => {
                return Err(TableError::HiddenCommit { party: *party }.into())
            }
            TableOp::Rearrange(p) => self.do_rearrange(p)?,
            TableOp::Shuffle(set) => self.do_shuffle(set)?,
            TableOp::Open(o) => {
                let public = if o.public.is_empty() {
                    Vec::new()
                } else {
                    self.do_turn(&o.public)?
                };
                let mut private = Vec::new();
                for (p, pos) in &o.private {
                    private.push(Some(self.do_open_to(*p, pos)?));
                }
                return Ok(Seen { public, private });
            }
            TableOp::Finish => self.do_finish()?,
        }
        Ok(Seen::default())
    }
}

impl<R: RngCore + CryptoRng> DealerTable<R> {
    fn do_place(&mut self, cards: &[Symbol]) -> Result<(), DealerTableError> {
        self.check_open()?;
        if self.deal.is_some() {
            return Err(DealerTableError::AfterDeal("placing cards"));
        }
        if self.base.len() + cards.len() > MAX_ROW {
            return Err(DealerTableError::TooLong(self.base.len() + cards.len()));
        }
        self.base.extend_from_slice(cards);
        Ok(())
    }

    fn do_commit(&mut self, party: PartyId, cards: &[Symbol]) -> Result<(), DealerTableError> {
        self.check_open()?;
        self.check_party(party)?;
        if self.deal.is_some() {
            return Err(DealerTableError::AfterDeal("input commitments"));
        }
        let start = self.base.len();
        let n = start + cards.len();
        if n > MAX_ROW {
            return Err(DealerTableError::TooLong(n));
        }
        let mut sorted = cards.to_vec();
        sorted.sort();
        // The layer moves sorted[i] (at start + i) to the position of its copy in `cards`.
        let mut used = vec![false; cards.len()];
        let mut images: Vec<usize> = (0..start).collect();
        for s in &sorted {
            let k = (0..cards.len())
                .find(|&k| !used[k] && cards[k] == *s)
                .ok_or(TableError::EmptyShuffle)?;
            used[k] = true;
            images.push(start + k);
        }
        let perm = Perm::from_images(images).map_err(|_| DealerTableError::TooLong(n))?;
        self.base.extend_from_slice(&sorted);
        let moves = (0..n).map(|i| i >= start).collect();
        self.push_secret(party, perm, moves);
        self.cost.rounds += 1;
        Ok(())
    }

    fn do_rearrange(&mut self, perm: &Perm) -> Result<(), DealerTableError> {
        self.check_open()?;
        if perm.len() != self.base.len() {
            return Err(TableError::PermSize {
                got: perm.len(),
                len: self.base.len(),
            }
            .into());
        }
        let moves = perm.images().enumerate().map(|(i, x)| i != x).collect();
        self.layers.push(Layer {
            holder: None,
            inverse: perm.inverse(),
            moves,
        });
        Ok(())
    }

    fn do_shuffle(&mut self, set: &ShuffleSet) -> Result<(), DealerTableError> {
        self.check_open()?;
        let n = self.base.len();
        match set {
            ShuffleSet::Weighted(_) => Err(DealerTableError::Weighted),
            ShuffleSet::Uniform(perms) => {
                if self.deal.is_some() {
                    return Err(DealerTableError::AfterDeal("further shuffles"));
                }
                set.check_fits(n)?;
                if !set.is_group() {
                    return Err(DealerTableError::NotAGroup { size: perms.len() });
                }
                let moves: Vec<bool> = (0..n)
                    .map(|i| perms.iter().any(|p| p.apply(i) != i))
                    .collect();
                for holder in PartyId::all(self.parties) {
                    let k = self.draw(perms.len());
                    self.push_secret(holder, perms[k].clone(), moves.clone());
                }
                // Every player commits to his layer in the same round.
                self.cost.rounds += 1;
                Ok(())
            }
            ShuffleSet::All => {
                if self.parties < 3 {
                    return Err(DealerTableError::DealPlayers(self.parties));
                }
                if self.deal.is_some() {
                    return Err(DealerTableError::AfterDeal("further shuffles"));
                }
                if self.layers.iter().any(|l| l.holder.is_some()) {
                    return Err(DealerTableError::DealOverSecrets);
                }
                // Only public layers so far: fold them into the base row.
                let row: Vec<Symbol> = (0..n).map(|j| self.base[self.chain(j).2]).collect();
                self.base = row;
                self.layers.clear();
                let table =
                    Table::setup_with_rng(Scheme::general(self.parties, n)?, None, &mut self.rng)?;
                if let Some(setup) = table.phases().first() {
                    self.cost += setup.cost;
                }
                self.deal = Some(Deal { table: Some(table) });
                Ok(())
            }
        }
    }

    fn do_turn(&mut self, positions: &[usize]) -> Result<Vec<Symbol>, DealerTableError> {
        self.check_open()?;
        if self.deal.is_some() {
            self.open_deal(positions, None)
        } else {
            self.open_chains(positions, None)
        }
    }

    fn do_open_to(
        &mut self,
        party: PartyId,
        positions: &[usize],
    ) -> Result<Vec<Symbol>, DealerTableError> {
        self.check_open()?;
        self.check_party(party)?;
        if self.deal.is_some() {
            self.open_deal(positions, Some(party))
        } else {
            self.open_chains(positions, Some(party))
        }
    }

    /// The audit: every player opens every layer he committed to (one broadcast each, in one
    /// round) and every opening is checked; after a deal, the dealer's own audit runs too.
    fn do_finish(&mut self) -> Result<(), DealerTableError> {
        self.check_open()?;
        self.finished = true;
        if !self.secrets.is_empty() {
            let mut by_party: BTreeMap<PartyId, Vec<Opening>> = BTreeMap::new();
            for s in &self.secrets {
                by_party.entry(s.holder).or_default().push(Opening {
                    slot: Slot::Deal(s.holder),
                    rank: rank(&s.perm),
                    salt: s.salt,
                });
            }
            for (party, openings) in by_party {
                self.send(party, Recipient::All, Body::Reveal { openings });
            }
            self.cost.rounds += 1;
            for s in &self.secrets {
                verify(
                    &s.commitment,
                    s.n,
                    s.holder,
                    Slot::Deal(s.holder),
                    &rank(&s.perm),
                    &s.salt,
                )
                .map_err(|_| DealerTableError::AuditMismatch { party: s.holder })?;
            }
        }
        if let Some(table) = self.deal.as_mut().and_then(|d| d.table.take()) {
            let finished = table.finish()?;
            if let Some(audit) = finished.phases.last() {
                self.cost += audit.cost;
            }
            if !finished.audit.passed {
                let what = finished
                    .audit
                    .first()
                    .map(|f| format!("{f:?}"))
                    .unwrap_or_else(|| "no finding".to_owned());
                return Err(DealerTableError::DealAudit(what));
            }
        }
        Ok(())
    }
}
/// One run of [`enumerate_runs`]: its probability's denominator, its result and every party's
/// view.
#[derive(Clone, Debug)]
pub struct Enumerated<T> {
    /// The run's probability is `1 / denominator` (the product of the number of choices at
    /// every draw).
    pub denominator: BigUint,
    /// What the run returned.
    pub outcome: T,
    /// Every party's [`ViewEvent`]s, player 1 first.
    pub views: Vec<Vec<ViewEvent>>,
}

/// Why [`enumerate_runs`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum EnumerateError<E: std::error::Error + 'static> {
    /// A run failed.
    #[error(transparent)]
    Run(E),
    /// More runs than the limit.
    #[error("more than {0} combinations of random choices")]
    TooMany(usize),
}

/// Runs `run` once for every combination of the players' random choices (each player's group
/// element at every shuffle), on fresh tables for `parties` players. Signing keys and salts
/// come from `seed` (they do not affect the views). Deals (`All`) are not enumerated.
pub fn enumerate_runs<T, E: std::error::Error + 'static>(
    parties: usize,
    seed: u64,
    max_runs: usize,
    mut run: impl FnMut(&mut DealerTable<rand_chacha::ChaCha20Rng>) -> Result<T, E>,
) -> Result<Vec<Enumerated<T>>, EnumerateError<E>> {
    let mut out = Vec::new();
    let mut forced: Vec<usize> = Vec::new();
    loop {
        if out.len() >= max_runs {
            return Err(EnumerateError::TooMany(max_runs));
        }
        let mut table = DealerTable::with_rng(parties, facedown_core::rng::seeded_rng(seed));
        table.script = Some(Script {
            forced: forced.clone(),
            drawn: Vec::new(),
        });
        let outcome = run(&mut table).map_err(EnumerateError::Run)?;
        let drawn = table.script.take().map(|s| s.drawn).unwrap_or_default();
        let denominator = drawn
            .iter()
            .fold(BigUint::one(), |acc, &(_, a)| acc * BigUint::from(a));
        out.push(Enumerated {
            denominator,
            outcome,
            views: table.views,
        });
        // Odometer: advance the last draw that has a next choice.
        match drawn.iter().rposition(|&(c, a)| c + 1 < a) {
            Some(k) => {
                forced = drawn[..k].iter().map(|&(c, _)| c).collect();
                forced.push(drawn[k].0 + 1);
            }
            None => return Ok(out),
        }
    }
}

/// Excess leakage of one party: how much more his view on a backend tells about a secret than
/// his view on the ideal table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Excess {
    /// `I(S; V) − I(S; W)` in bits, where `V` is the backend view and `W` the ideal view.
    pub bits: f64,
    /// `I(S; W)`: what the ideal view itself reveals (bits).
    pub ideal_bits: f64,
    /// Whether the excess is exactly zero (`S` independent of `V` given `W`, checked in exact
    /// integer arithmetic).
    pub exactly_zero: bool,
}

/// The excess leakage from a joint distribution given as weighted samples
/// `(weight, secret S, ideal view W, extra view E)`, where the backend view is `V = (W, E)`.
///
/// Weights are exact integers (probability = weight / total); the conditional independence
/// behind [`Excess::exactly_zero`] is checked exactly; only the logarithms are floating point.
pub fn excess_leakage<S: Ord + Clone, W: Ord + Clone, E: Ord + Clone>(
    samples: &[(BigUint, S, W, E)],
) -> Excess {
    let mut p_s: BTreeMap<S, BigUint> = BTreeMap::new();
    let mut p_w: BTreeMap<W, BigUint> = BTreeMap::new();
    let mut p_sw: BTreeMap<(S, W), BigUint> = BTreeMap::new();
    let mut p_v: BTreeMap<(W, E), BigUint> = BTreeMap::new();
    let mut p_sv: BTreeMap<(S, W, E), BigUint> = BTreeMap::new();
    let mut total = BigUint::zero();
    for (w8, s, w, e) in samples {
        total += w8;
        *p_s.entry(s.clone()).or_default() += w8;
        *p_w.entry(w.clone()).or_default() += w8;
        *p_sw.entry((s.clone(), w.clone())).or_default() += w8;
        *p_v.entry((w.clone(), e.clone())).or_default() += w8;
        *p_sv.entry((s.clone(), w.clone(), e.clone())).or_default() += w8;
    }
    // S ⊥ V | W  ⇔  P(s,w,e)·P(w) = P(s,w)·P(w,e) for every (s, w, e) (zero cells included:
    // those with P(s,w)·P(w,e) > 0 must appear).
    let mut exactly_zero = true;
    'outer: for ((w, e), pv) in &p_v {
        let pw = &p_w[w];
        for s in p_s.keys() {
            let psw = p_sw
                .get(&(s.clone(), w.clone()))
                .cloned()
                .unwrap_or_default();
            let psv = p_sv
                .get(&(s.clone(), w.clone(), e.clone()))
                .cloned()
                .unwrap_or_default();
            if psv * pw != psw * pv {
                exactly_zero = false;
                break 'outer;
            }
        }
    }
    let t = big_f64(&total);
    let h = |m: &mut dyn Iterator<Item = &BigUint>| -> f64 {
        m.map(|x| {
            let p = big_f64(x) / t;
            if p > 0.0 {
                -p * p.log2()
            } else {
                0.0
            }
        })
        .sum()
    };
    let hs = h(&mut p_s.values());
    let i_w = hs + h(&mut p_w.values()) - h(&mut p_sw.values());
    let i_v = hs + h(&mut p_v.values()) - h(&mut p_sv.values());
    Excess {
        bits: if exactly_zero {
            0.0
        } else {
            (i_v - i_w).max(0.0)
        },
        ideal_bits: i_w.max(0.0),
        exactly_zero,
    }
}

/// The common denominator of the runs: sample weights are `lcm / denominator`.
pub fn weights<T>(runs: &[Enumerated<T>]) -> Vec<BigUint> {
    let lcm = runs
        .iter()
        .fold(BigUint::one(), |acc, r| acc.lcm(&r.denominator));
    runs.iter().map(|r| &lcm / &r.denominator).collect()
}

fn big_f64(x: &BigUint) -> f64 {
    x.to_f64().unwrap_or(f64::INFINITY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use facedown_core::rng::seeded_rng;

    fn bit(b: bool) -> [Symbol; 2] {
        if b {
            [Symbol::Heart, Symbol::Club]
        } else {
            [Symbol::Club, Symbol::Heart]
        }
    }

    #[test]
    fn a_commitment_opens_to_its_cards_and_costs_signed_messages() {
        for b in [false, true] {
            let mut t = DealerTable::with_rng(2, seeded_rng(1));
            t.commit(PartyId(1), &bit(b)).expect("commit");
            let seen = t.turn(&[0, 1]).expect("in range");
            assert_eq!(seen, bit(b));
            // One commitment broadcast, two card broadcasts by the holder.
            assert_eq!(t.cost().messages, 3);
            assert!(t.cost().bytes > 3 * 64, "signatures are counted");
            t.finish().expect("honest audit passes");
            assert!(matches!(t.turn(&[0]), Err(DealerTableError::Finished)));
        }
    }

    #[test]
    fn group_shuffles_compose_and_non_groups_are_refused() {
        let cyc = |n: usize| -> Vec<Perm> {
            (0..n)
                .map(|k| Perm::from_images((0..n).map(|i| (i + k) % n).collect()).expect("perm"))
                .collect()
        };
        let mut t = DealerTable::with_rng(3, seeded_rng(2));
        t.place(&[Symbol::Card(0), Symbol::Card(1), Symbol::Card(2)])
            .expect("place");
        t.shuffle(&ShuffleSet::Uniform(cyc(3))).expect("a group");
        let mut seen = t.turn(&[0, 1, 2]).expect("in range");
        let first = seen[0];
        seen.sort();
        assert_eq!(seen, [Symbol::Card(0), Symbol::Card(1), Symbol::Card(2)]);
        assert!(matches!(first, Symbol::Card(_)));
        let mut not_group = cyc(3);
        not_group.pop();
        assert!(matches!(
            t.shuffle(&ShuffleSet::Uniform(not_group)),
            Err(DealerTableError::NotAGroup { size: 2 })
        ));
        assert!(matches!(
            t.shuffle(&ShuffleSet::Weighted(vec![(Perm::identity(3), 1)])),
            Err(DealerTableError::Weighted)
        ));
        assert!(matches!(
            t.turn(&[3]),
            Err(DealerTableError::Table(TableError::Position {
                position: 3,
                ..
            }))
        ));
    }

    #[test]
    fn a_deal_gives_each_player_his_hand_through_the_dealer() {
        let mut t = DealerTable::with_rng(3, seeded_rng(3));
        let deck: Vec<Symbol> = (0..9).map(Symbol::Card).collect();
        t.place(&deck).expect("place");
        t.shuffle(&ShuffleSet::All).expect("deal");
        let mut all = Vec::new();
        for p in PartyId::all(3) {
            let hand = t
                .open_to(p, &[p.index() * 3, p.index() * 3 + 1, p.index() * 3 + 2])
                .expect("private path");
            all.extend(hand);
        }
        all.sort();
        assert_eq!(all, deck);
        assert!(matches!(
            t.commit(PartyId(1), &bit(true)),
            Err(DealerTableError::AfterDeal(_))
        ));
        t.finish().expect("audit passes");
        assert!(t.cost().messages > 0);
    }

    #[test]
    fn deal_needs_three_players_and_public_cards() {
        let mut t = DealerTable::with_rng(2, seeded_rng(4));
        t.place(&[Symbol::Club, Symbol::Heart]).expect("place");
        assert!(matches!(
            t.shuffle(&ShuffleSet::All),
            Err(DealerTableError::DealPlayers(2))
        ));
        let mut t = DealerTable::with_rng(3, seeded_rng(4));
        t.commit(PartyId(2), &bit(true)).expect("commit");
        assert!(matches!(
            t.shuffle(&ShuffleSet::All),
            Err(DealerTableError::DealOverSecrets)
        ));
    }

    #[test]
    fn enumeration_covers_every_choice_with_total_probability_one() {
        let swap = Perm::parse_cycles(2, "(1 2)").expect("valid");
        let group = vec![Perm::identity(2), swap];
        let runs = enumerate_runs(3, 0, 100, |t| {
            t.place(&[Symbol::Club, Symbol::Heart])?;
            t.shuffle(&ShuffleSet::Uniform(group.clone()))?;
            t.turn(&[0])
        })
        .expect("small");
        assert_eq!(runs.len(), 8);
        let w = weights(&runs);
        assert!(w.iter().all(|x| *x == BigUint::one()));
        // The turned card is uniform: a public coin, nothing hidden to leak.
        let clubs = runs.iter().filter(|r| r.outcome == [Symbol::Club]).count();
        assert_eq!(clubs, 4);
    }

    #[test]
    fn excess_leakage_is_zero_for_a_function_of_the_ideal_view_and_one_bit_for_the_secret() {
        let one = BigUint::one();
        // Secret bit s; ideal view shows nothing; extra view shows s.
        let leaky: Vec<_> = [false, true]
            .iter()
            .map(|&s| (one.clone(), s, (), s))
            .collect();
        let e = excess_leakage(&leaky);
        assert!(!e.exactly_zero);
        assert!((e.bits - 1.0).abs() < 1e-12);
        // Extra view independent of s.
        let safe: Vec<_> = [(false, 0), (false, 1), (true, 0), (true, 1)]
            .iter()
            .map(|&(s, x)| (one.clone(), s, (), x))
            .collect();
        let e = excess_leakage(&safe);
        assert!(e.exactly_zero);
        assert_eq!(e.bits, 0.0);
    }
}
