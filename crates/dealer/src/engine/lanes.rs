//! Openings on the layer model: the positions of one opening grouped into *lanes* (the same
//! route, the same audience), one signed message per hop of a lane.

use std::collections::BTreeMap;

use facedown_core::engine::{After, Step};
use facedown_core::{Opening, PartyId, Seen, Symbol};
use rand::{CryptoRng, RngCore};

use super::evidence::{Audience, Record};
use super::layers::Route;
use super::{
    check_opening, envelope_step, idle_table, DealerEngine, EngineError, Pending, Result, ViewEvent,
};
use crate::error::DealerError;
use crate::messages::{Body, Envelope};
use crate::scheme::Recipient;

/// Where a position's card goes in the opening: the `k`-th public position, or position `k`
/// of private group `g`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Public(usize),
    Private(usize, usize),
}

#[derive(Debug)]
struct Lane {
    id: u32,
    audience: Audience,
    holders: Vec<PartyId>,
    items: Vec<(Target, Route)>,
}

/// An opening in progress at one player.
#[derive(Debug)]
pub(super) struct Open {
    lanes: Vec<Lane>,
    public: Vec<Option<Symbol>>,
    /// The private group shown to this player, if any: its index and its cards.
    mine: Option<(usize, Vec<Option<Symbol>>)>,
    /// The number of private groups of the opening.
    groups: usize,
    expected: BTreeMap<(u32, u16), PartyId>,
}

impl Open {
    pub(super) fn awaiting(&self) -> Vec<PartyId> {
        let mut out: Vec<PartyId> = self.expected.values().copied().collect();
        out.sort();
        out.dedup();
        out
    }

    fn fill(&mut self, target: Target, card: Symbol) {
        match target {
            Target::Public(k) => self.public[k] = Some(card),
            Target::Private(g, k) => {
                if let Some((mine, cards)) = &mut self.mine {
                    if *mine == g {
                        cards[k] = Some(card);
                    }
                }
            }
        }
    }

    fn seen(&self) -> Seen {
        let mut private = vec![None; self.groups];
        if let Some((g, cards)) = &self.mine {
            private[*g] = Some(cards.iter().flatten().copied().collect());
        }
        Seen {
            public: self.public.iter().flatten().copied().collect(),
            private,
        }
    }
}

/// An opening after a deal of `dealt` cards that shows only cards committed since, as positions
/// of their own row; `None` when it shows dealt cards only (or nothing was dealt).
fn after_deal(opening: &Opening, dealt: usize) -> Option<Result<Opening>> {
    let positions = || {
        let private = opening.private.iter().flat_map(|(_, ps)| ps);
        opening.public.iter().chain(private)
    };
    if dealt == 0 || positions().all(|&j| j < dealt) {
        return None;
    }
    if positions().any(|&j| j < dealt) {
        return Some(Err(EngineError::MixedOpening));
    }
    let shift = |ps: &[usize]| ps.iter().map(|&j| j - dealt).collect();
    Some(Ok(Opening {
        public: shift(&opening.public),
        private: opening
            .private
            .iter()
            .map(|(p, ps)| (*p, shift(ps)))
            .collect(),
    }))
}

impl<R: RngCore + CryptoRng> DealerEngine<R> {
    pub(super) fn begin_open(&mut self, opening: &Opening) -> Result<Step> {
        let (me, parties) = (self.me, self.parties);
        let t = idle_table(&mut self.stage)?;
        let dealt = t.deal.as_ref().map_or(0, |d| d.len());
        check_opening(opening, dealt + t.row.len(), parties)?;
        let shifted;
        let opening = match after_deal(opening, dealt) {
            Some(Ok(later)) => {
                shifted = later;
                &shifted
            }
            Some(Err(e)) => return Err(e),
            None if t.deal.is_some() => return self.open_dealt(opening),
            None => opening,
        };
        let mut targets: Vec<(Target, Audience, usize)> = Vec::new();
        for (k, &j) in opening.public.iter().enumerate() {
            targets.push((Target::Public(k), Audience::All, j));
        }
        for (g, (p, ps)) in opening.private.iter().enumerate() {
            for (k, &j) in ps.iter().enumerate() {
                targets.push((Target::Private(g, k), Audience::Party(*p), j));
            }
        }
        let mine = opening
            .private
            .iter()
            .position(|(p, _)| *p == me)
            .map(|g| (g, vec![None; opening.private[g].1.len()]));
        let mut open = Open {
            lanes: Vec::new(),
            public: vec![None; opening.public.len()],
            mine,
            groups: opening.private.len(),
            expected: BTreeMap::new(),
        };
        let mut next_lane = t.next_lane;
        for (target, audience, j) in targets {
            let route = t.row.route(j);
            if route.segments.is_empty() {
                let card = t
                    .row
                    .card(route.start)
                    .ok_or(DealerError::Config("a route leaves the row".into()))?;
                if visible(audience, me) {
                    self.view.push(shown(audience, card));
                    open.fill(target, card);
                }
                continue;
            }
            let holders = route.holders();
            match open
                .lanes
                .iter_mut()
                .find(|l| l.audience == audience && l.holders == holders)
            {
                Some(lane) => lane.items.push((target, route)),
                None => {
                    open.lanes.push(Lane {
                        id: next_lane,
                        audience,
                        holders,
                        items: vec![(target, route)],
                    });
                    next_lane += 1;
                }
            }
        }
        t.next_lane = next_lane;
        for lane in &open.lanes {
            expect(&mut open.expected, lane, me);
            t.evidence.add_lane(Record {
                id: lane.id,
                audience: lane.audience,
                holders: lane.holders.clone(),
                routes: lane.items.iter().map(|(_, r)| r.clone()).collect(),
            });
        }
        let mut step = Step::wait();
        for l in 0..open.lanes.len() {
            if open.lanes[l].holders[0] == me {
                let values: Vec<usize> = open.lanes[l].items.iter().map(|(_, r)| r.start).collect();
                let more = self.advance(&mut open, l, 0, values, After::Start)?;
                step.send.extend(more.send);
            }
        }
        self.settle(open, step)
    }

    /// This player is holder `k` of lane `l` and holds `values`: applies its layers, then
    /// forwards the result or, as the last holder, sends the cards.
    fn advance(
        &mut self,
        open: &mut Open,
        l: usize,
        k: usize,
        values: Vec<usize>,
        after: After,
    ) -> Result<Step> {
        let (me, key) = (self.me, self.key.clone());
        let t = self.table()?;
        let lane = &open.lanes[l];
        let mut out = Vec::with_capacity(values.len());
        for ((_, route), v) in lane.items.iter().zip(values) {
            out.push(t.row.apply(&route.segments[k].1, v)?);
        }
        let (id, hop) = (lane.id, k as u16);
        if k + 1 < lane.holders.len() {
            let to = Recipient::Party(lane.holders[k + 1]);
            let env = t.sign(&key, me, to, values_body(id, hop, &out));
            t.evidence.keep(&env);
            return Ok(envelope_step(&env, after));
        }
        let cards: Vec<Symbol> = out
            .iter()
            .map(|&x| t.row.card(x))
            .collect::<Option<_>>()
            .ok_or(DealerError::Config("a route leaves the row".into()))?;
        let codes: Vec<usize> = cards.iter().map(|c| usize::from(c.code())).collect();
        let (audience, targets): (Audience, Vec<_>) =
            (lane.audience, lane.items.iter().map(|(t, _)| *t).collect());
        let to = match audience {
            Audience::All => Some(Recipient::All),
            Audience::Party(p) if p != me => Some(Recipient::Party(p)),
            Audience::Party(_) => None,
        };
        let step = match to {
            Some(to) => {
                let env = t.sign(&key, me, to, values_body(id, hop, &codes));
                t.evidence.keep(&env);
                envelope_step(&env, after)
            }
            None => Step::wait(),
        };
        if visible(audience, me) {
            for (target, card) in targets.into_iter().zip(cards) {
                self.view.push(shown(audience, card));
                open.fill(target, card);
            }
        }
        Ok(step)
    }

    pub(super) fn receive_values(
        &mut self,
        mut open: Open,
        from: PartyId,
        env: Envelope,
    ) -> Result<Step> {
        let me = self.me;
        let unexpected = |what: &str| DealerError::Unexpected {
            from,
            what: what.into(),
        };
        let Body::Values { lane, hop, values } = env.body.clone() else {
            return Err(unexpected("a message other than an opening's values").into());
        };
        if open.expected.get(&(lane, hop)) != Some(&from) {
            return Err(unexpected("a value no opening awaits from it").into());
        }
        open.expected.remove(&(lane, hop));
        self.table()?.evidence.keep(&env);
        let l = open
            .lanes
            .iter()
            .position(|x| x.id == lane)
            .ok_or_else(|| unexpected("a value of an unknown lane"))?;
        if values.len() != open.lanes[l].items.len() {
            return Err(unexpected("a lane's values of the wrong count").into());
        }
        let k = usize::from(hop) + 1;
        let mut step = Step::wait();
        if k < open.lanes[l].holders.len() && open.lanes[l].holders[k] == me {
            let len = self.table()?.row.len();
            if let Some(&v) = values.iter().find(|&&v| usize::from(v) >= len) {
                return Err(DealerError::CardOutOfRange {
                    from,
                    value: u64::from(v),
                    cards: len,
                }
                .into());
            }
            for &value in &values {
                self.view.push(ViewEvent::Received { from, value });
            }
            let values = values.iter().map(|&v| usize::from(v)).collect();
            step = self.advance(&mut open, l, k, values, After::Received)?;
        } else {
            // A public card is a broadcast by its address, so the echo round compares it.
            if open.lanes[l].audience == Audience::All && env.to != Recipient::All {
                return Err(unexpected("a public card addressed to one player").into());
            }
            self.receive_cards(&mut open, l, from, &values)?;
        }
        self.settle(open, step)
    }

    fn receive_cards(
        &mut self,
        open: &mut Open,
        l: usize,
        from: PartyId,
        codes: &[u16],
    ) -> Result<()> {
        let t = self.table()?;
        let cards: Vec<Symbol> = codes.iter().map(|&c| Symbol::from_code(c)).collect();
        if let Some(&c) = cards.iter().find(|&&c| !t.row.holds(c)) {
            return Err(DealerError::Unexpected {
                from,
                what: format!("it showed {c}, a card that is not on the table"),
            }
            .into());
        }
        let lane = &open.lanes[l];
        let audience = lane.audience;
        let targets: Vec<Target> = lane.items.iter().map(|(t, _)| *t).collect();
        for (target, card) in targets.into_iter().zip(cards) {
            self.view.push(shown(audience, card));
            open.fill(target, card);
        }
        Ok(())
    }

    /// Ends the opening here once nothing more is awaited.
    fn settle(&mut self, open: Open, mut step: Step) -> Result<Step> {
        if open.expected.is_empty() {
            step.done = Some(open.seen());
            return Ok(step);
        }
        self.table()?.pending = Pending::Open(open);
        Ok(step)
    }
}

fn visible(audience: Audience, me: PartyId) -> bool {
    match audience {
        Audience::All => true,
        Audience::Party(p) => p == me,
    }
}

fn shown(audience: Audience, card: Symbol) -> ViewEvent {
    match audience {
        Audience::All => ViewEvent::Public(card),
        Audience::Party(_) => ViewEvent::Private(card),
    }
}

fn values_body(lane: u32, hop: u16, values: &[usize]) -> Body {
    Body::Values {
        lane,
        hop,
        values: values.iter().map(|&v| v as u16).collect(),
    }
}

/// The messages this player awaits on `lane`: the hop before each of its turns, and the cards
/// if it sees them and is not their last holder.
fn expect(expected: &mut BTreeMap<(u32, u16), PartyId>, lane: &Lane, me: PartyId) {
    let last = lane.holders.len() - 1;
    for k in 1..=last {
        if lane.holders[k] == me {
            expected.insert((lane.id, (k - 1) as u16), lane.holders[k - 1]);
        }
    }
    if lane.holders[last] != me && visible(lane.audience, me) {
        expected.insert((lane.id, last as u16), lane.holders[last]);
    }
}
