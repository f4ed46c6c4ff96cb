//! The signed hops of the layer model's openings, kept for the end of the game, and the
//! verdict on them once every layer is opened.
//!
//! Every hop of a lane is one envelope signed by its holder. A hop to one player (an
//! intermediate position, or a card opened privately) is held by its two ends only; at the end
//! each player sends every other the ones he holds (his *bundle*, with the openings of his
//! layers), so that every player holds every hop. With the layers opened, every player then
//! recomputes each lane from its public start and names the **first** holder whose signed
//! output is not what his layers give his input ([`check`]):
//!
//! * every hop before his was right, so his input is the true one;
//! * two different envelopes signed by one holder for one hop (one sent, another shown at the
//!   end) name that holder: an honest holder signs one;
//! * a bundle that leaves out a hop its sender sent or received, relays one that is neither,
//!   carries a signature that does not verify or is longer than its sender's hops names its
//!   sender ([`check_bundle`]): an honest player holds every hop he took part in (the opening
//!   would not have ended otherwise) and relays nothing else.
//!
//! An honest holder is never named: his only output follows from his only input, and a second
//! version of that input is its sender's, found one hop earlier. After the end every card of
//! the layer model follows from the opened layers anyway, so the bundles show nothing new.

use std::collections::{BTreeMap, BTreeSet};

use facedown_core::PartyId;

use super::layers::{Route, Row};
use super::{EngineError, Result};
use crate::error::DealerError;
use crate::messages::{Body, Domain, Envelope, SessionId, VerifyingKeys};
use crate::scheme::Recipient;

/// What is wrong with a hop of a lane.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HopFault {
    /// The holder signed values his input and his layers as opened at the end do not give.
    #[error(
        "he signed {signed:?} where the value he was sent and his layers as opened at the \
         end give {follows:?}"
    )]
    Value {
        /// What he signed (positions, or the cards' codes on the last hop).
        signed: Vec<u16>,
        /// What follows.
        follows: Vec<u16>,
    },
    /// The holder signed two different envelopes for the hop.
    #[error("he signed two different envelopes for it")]
    TwoVersions,
}

/// What is wrong with the bundle of hops a player sent at the end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BundleFault {
    /// More envelopes than the hops he sent or received.
    #[error("it carries {got} envelopes where he took part in {most} hops")]
    TooMany {
        /// The envelopes in the bundle.
        got: usize,
        /// The hops to or from him.
        most: usize,
    },
    /// An envelope that is not a hop he sent or received, or whose signature does not verify.
    #[error("it relays an envelope that is not a signed hop to or from him")]
    Foreign,
    /// A hop he sent or received is missing.
    #[error("it leaves out hop {hop} of lane {lane}, which he took part in")]
    Missing {
        /// The lane.
        lane: u32,
        /// The hop.
        hop: u16,
    },
}

/// Who sees a lane's cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Audience {
    All,
    Party(PartyId),
}

/// A lane as every player knows it: its id, audience, holders and each position's route.
#[derive(Clone, Debug)]
pub(super) struct Record {
    pub(super) id: u32,
    pub(super) audience: Audience,
    pub(super) holders: Vec<PartyId>,
    pub(super) routes: Vec<Route>,
}

impl Record {
    /// The sender and recipient of hop `k`; `None` past the last hop, or on a last hop to its
    /// own holder (no message).
    fn hop(&self, k: usize) -> Option<(PartyId, Recipient)> {
        let from = *self.holders.get(k)?;
        let to = match self.holders.get(k + 1) {
            Some(&next) => Recipient::Party(next),
            None => match self.audience {
                Audience::All => Recipient::All,
                Audience::Party(p) if p != from => Recipient::Party(p),
                Audience::Party(_) => return None,
            },
        };
        Some((from, to))
    }
}

/// The hops of the lanes of a game and the signed envelopes of them this player holds.
#[derive(Clone, Debug, Default)]
pub(super) struct Evidence {
    lanes: Vec<Record>,
    /// The envelopes to one player this player sent or received (his bundle).
    held: Vec<Envelope>,
    /// The envelopes to everyone this player sent or received, and the others' bundles.
    pool: Vec<Envelope>,
}

impl Evidence {
    pub(super) fn add_lane(&mut self, lane: Record) {
        self.lanes.push(lane);
    }

    /// Keeps an envelope of a hop this player sent or received.
    pub(super) fn keep(&mut self, env: &Envelope) {
        match env.to {
            Recipient::All => self.pool.push(env.clone()),
            Recipient::Party(_) => self.held.push(env.clone()),
        }
    }

    /// This player's bundle.
    pub(super) fn held(&self) -> &[Envelope] {
        &self.held
    }

    /// The hops to one player that `party` sends or receives: every honest bundle holds one
    /// envelope of each.
    pub(super) fn hops_of(&self, party: PartyId) -> Vec<(u32, u16, PartyId, Recipient)> {
        let mut out = Vec::new();
        for lane in &self.lanes {
            for k in 0..lane.holders.len() {
                if let Some((from, to @ Recipient::Party(p))) = lane.hop(k) {
                    if from == party || p == party {
                        out.push((lane.id, k as u16, from, to));
                    }
                }
            }
        }
        out
    }

    /// Every player who must send a bundle.
    pub(super) fn bundlers(&self, parties: usize) -> BTreeSet<PartyId> {
        PartyId::all(parties)
            .filter(|&p| !self.hops_of(p).is_empty())
            .collect()
    }

    /// Checks `from`'s bundle (see [`BundleFault`]) and adds it to the evidence.
    pub(super) fn check_bundle(
        &mut self,
        session: &SessionId,
        keys: &VerifyingKeys,
        from: PartyId,
        bundle: Vec<Envelope>,
    ) -> Result<()> {
        let fault = |fault| EngineError::Bundle { party: from, fault };
        let hops = self.hops_of(from);
        if bundle.len() > hops.len() {
            return Err(fault(BundleFault::TooMany {
                got: bundle.len(),
                most: hops.len(),
            }));
        }
        let mut seen = BTreeSet::new();
        for env in &bundle {
            let Body::Values { lane, hop, .. } = env.body else {
                return Err(fault(BundleFault::Foreign));
            };
            let ours = hops
                .iter()
                .any(|&(l, k, f, to)| (l, k, f, to) == (lane, hop, env.from, env.to));
            if !ours || env.verify_in(Domain::Layers, session, keys).is_err() {
                return Err(fault(BundleFault::Foreign));
            }
            seen.insert((lane, hop));
        }
        if let Some(&(lane, hop, ..)) = hops.iter().find(|h| !seen.contains(&(h.0, h.1))) {
            return Err(fault(BundleFault::Missing { lane, hop }));
        }
        self.pool.extend(bundle);
        Ok(())
    }

    /// Recomputes every lane from the opened layers and names the first holder whose signed
    /// output does not follow (see the [module docs](self)).
    pub(super) fn check(&self, row: &Row) -> Result<()> {
        let versions = self.versions();
        for lane in &self.lanes {
            check_lane(row, lane, &versions)?;
        }
        Ok(())
    }

    /// One copy of each signed content this player holds, by hop.
    fn versions(&self) -> Versions {
        let mut out: Versions = BTreeMap::new();
        for env in self.held.iter().chain(&self.pool) {
            if let Body::Values { lane, hop, values } = &env.body {
                let v = out.entry((*lane, *hop)).or_default();
                let content = Signed {
                    from: env.from,
                    to: env.to,
                    seq: env.seq,
                    values: values.clone(),
                };
                if !v.contains(&content) {
                    v.push(content);
                }
            }
        }
        out
    }
}

/// What an envelope of a hop signs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Signed {
    from: PartyId,
    to: Recipient,
    seq: u32,
    values: Vec<u16>,
}

/// The distinct signed contents of each hop, by `(lane, hop)`.
type Versions = BTreeMap<(u32, u16), Vec<Signed>>;

/// One lane, hop by hop, against the true values of its positions.
fn check_lane(row: &Row, lane: &Record, versions: &Versions) -> Result<()> {
    let mut truth: Vec<usize> = lane.routes.iter().map(|r| r.start).collect();
    for k in 0..lane.holders.len() {
        for (x, route) in truth.iter_mut().zip(&lane.routes) {
            let layers = &route.segments.get(k).ok_or(route_error())?.1;
            *x = row.apply(layers, *x)?;
        }
        let Some((from, to)) = lane.hop(k) else {
            return Ok(());
        };
        let last = k + 1 == lane.holders.len();
        let follows: Vec<u16> = if last {
            truth
                .iter()
                .map(|&x| row.card(x).map(|c| c.code()))
                .collect::<Option<_>>()
                .ok_or(route_error())?
        } else {
            truth.iter().map(|&x| x as u16).collect()
        };
        let named = |fault| EngineError::FalseCard {
            party: from,
            lane: lane.id,
            hop: k as u16,
            fault,
        };
        let signed: Vec<&Signed> = versions
            .get(&(lane.id, k as u16))
            .into_iter()
            .flatten()
            .filter(|s| s.from == from && s.to == to)
            .collect();
        match signed.as_slice() {
            // No envelope of the hop at all: the evidence cannot judge the hops after it.
            [] => return Ok(()),
            [one] if one.values == follows => {}
            [one] => {
                return Err(named(HopFault::Value {
                    signed: one.values.clone(),
                    follows,
                }))
            }
            _ => return Err(named(HopFault::TwoVersions)),
        }
    }
    Ok(())
}

fn route_error() -> EngineError {
    DealerError::Config("a route leaves the row".into()).into()
}
