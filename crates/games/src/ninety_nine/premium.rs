//! Premium bids: declaring (bid cards face up) and revealing (the whole hand face up too).
//!
//! With a single premium bidder the formal procedure of Parlett's book is used: from the
//! dealer's left, each player in turn may offer to declare or reveal; a later player may only
//! outbid an earlier offer by revealing over a declaration; and an earlier declarer outbid in
//! that way may then raise his own offer to revealing, which wins because he sits earlier. So
//! revealing beats declaring, and between equal offers the player nearer the dealer's left
//! wins — the priority rule of the informal game, which [`resolve`] states directly.

use serde::{Deserialize, Serialize};

/// What a player says when premiums are offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Offer {
    /// No premium.
    Pass,
    /// Bid cards face up at the start of play.
    Declare,
    /// Bid cards and the hand face up.
    Reveal,
}

/// The premium auction of one deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Auction {
    /// Whether any number may declare (and nobody reveal).
    many: bool,
    /// Whether revealing is allowed (single premium only).
    reveal: bool,
    /// Seats in speaking order (from the dealer's left).
    order: Vec<usize>,
    /// How many have spoken in the first round.
    spoken: usize,
    /// The leading offer (single premium).
    best: Option<(usize, Offer)>,
    /// The first declarer, while his declaration might still be outbid.
    declarer: Option<usize>,
    /// Whether the outbid declarer has answered.
    raised: bool,
    /// Declarers (many may declare).
    declarers: Vec<usize>,
    /// Every offer made, in order.
    pub history: Vec<(usize, Offer)>,
}

impl Auction {
    /// An auction where at most one player gets a premium.
    pub fn single(order: Vec<usize>, reveal: bool) -> Auction {
        Auction::new(order, false, reveal)
    }

    /// An auction where any number may declare.
    pub fn many(order: Vec<usize>) -> Auction {
        Auction::new(order, true, false)
    }

    fn new(order: Vec<usize>, many: bool, reveal: bool) -> Auction {
        Auction {
            many,
            reveal,
            order,
            spoken: 0,
            best: None,
            declarer: None,
            raised: false,
            declarers: Vec::new(),
            history: Vec::new(),
        }
    }

    /// The outbid declarer who may still raise, once the first round is over.
    fn raiser(&self) -> Option<usize> {
        if self.spoken < self.order.len() || self.raised {
            return None;
        }
        match (self.best, self.declarer) {
            (Some((leader, Offer::Reveal)), Some(d)) if d != leader => Some(d),
            _ => None,
        }
    }

    /// The seat that speaks next, `None` once the auction is over.
    pub fn to_speak(&self) -> Option<usize> {
        if self.spoken < self.order.len() {
            return Some(self.order[self.spoken]);
        }
        self.raiser()
    }

    /// What the next speaker may say.
    pub fn legal(&self) -> Vec<Offer> {
        let mut out = vec![Offer::Pass];
        if self.to_speak().is_none() {
            return Vec::new();
        }
        if self.many {
            out.push(Offer::Declare);
            return out;
        }
        if self.raiser().is_some() {
            out.push(Offer::Reveal);
            return out;
        }
        if self.best.is_none() {
            out.push(Offer::Declare);
        }
        let outbids = self.best.is_none_or(|(_, o)| o == Offer::Declare);
        if self.reveal && outbids {
            out.push(Offer::Reveal);
        }
        out
    }

    /// Records the next speaker's offer; `Err` (and no change) if he may not make it.
    pub fn offer(&mut self, offer: Offer) -> Result<(), Offer> {
        let Some(seat) = self.to_speak() else {
            return Err(offer);
        };
        if !self.legal().contains(&offer) {
            return Err(offer);
        }
        self.history.push((seat, offer));
        if self.raiser().is_some() {
            self.raised = true;
            if offer == Offer::Reveal {
                self.best = Some((seat, Offer::Reveal));
            }
            return Ok(());
        }
        self.spoken += 1;
        match offer {
            Offer::Pass => {}
            Offer::Declare if self.many => self.declarers.push(seat),
            Offer::Declare => {
                self.best = Some((seat, Offer::Declare));
                self.declarer = Some(seat);
            }
            Offer::Reveal => {
                if self.declarer == Some(seat) {
                    self.declarer = None;
                }
                self.best = Some((seat, Offer::Reveal));
            }
        }
        Ok(())
    }

    /// The premiums won: `(seat, Declare | Reveal)`.
    pub fn premiums(&self) -> Vec<(usize, Offer)> {
        if self.many {
            return self
                .declarers
                .iter()
                .map(|&s| (s, Offer::Declare))
                .collect();
        }
        self.best.into_iter().collect()
    }
}

/// The informal rule: every player says what premium he wants at once; revealing beats
/// declaring, and between equal wishes the earlier seat in `order` wins.
pub fn resolve(wishes: &[(usize, Offer)], order: &[usize]) -> Option<(usize, Offer)> {
    let position = |seat: usize| order.iter().position(|&s| s == seat).unwrap_or(usize::MAX);
    wishes
        .iter()
        .copied()
        .filter(|&(_, o)| o != Offer::Pass)
        .min_by_key(|&(seat, o)| (core::cmp::Reverse(o), position(seat)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays the formal auction with players who each offer what they want, raising to what
    /// they want when outbid.
    fn formal(wants: [Offer; 3]) -> Option<(usize, Offer)> {
        let mut a = Auction::single(vec![0, 1, 2], true);
        while let Some(seat) = a.to_speak() {
            let legal = a.legal();
            let want = wants[seat];
            let say = if legal.contains(&want) {
                want
            } else {
                Offer::Pass
            };
            let say = if a.raiser().is_some() && want == Offer::Reveal {
                Offer::Reveal
            } else if a.raiser().is_some() {
                Offer::Pass
            } else {
                say
            };
            a.offer(say).expect("legal");
        }
        a.premiums().into_iter().next()
    }

    #[test]
    fn the_formal_auction_gives_the_informal_priority() {
        let all = [Offer::Pass, Offer::Declare, Offer::Reveal];
        for a in all {
            for b in all {
                for c in all {
                    let wants = [a, b, c];
                    let wishes: Vec<_> = wants.iter().copied().enumerate().collect();
                    assert_eq!(formal(wants), resolve(&wishes, &[0, 1, 2]), "{wants:?}");
                }
            }
        }
    }

    #[test]
    fn an_outbid_declarer_may_raise_to_reveal() {
        let mut a = Auction::single(vec![0, 1, 2], true);
        a.offer(Offer::Declare).expect("first may declare");
        assert_eq!(
            a.legal(),
            [Offer::Pass, Offer::Reveal],
            "a later player cannot declare"
        );
        a.offer(Offer::Reveal).expect("second reveals over him");
        assert_eq!(a.legal(), [Offer::Pass], "the third cannot outbid a reveal");
        a.offer(Offer::Pass).expect("third passes");
        assert_eq!(a.to_speak(), Some(0), "the declarer answers");
        a.offer(Offer::Reveal).expect("and raises");
        assert_eq!(a.premiums(), [(0, Offer::Reveal)]);
        assert_eq!(a.to_speak(), None);
    }

    #[test]
    fn any_number_may_declare_where_the_rules_allow() {
        let mut a = Auction::many(vec![1, 0]);
        assert_eq!(a.offer(Offer::Reveal), Err(Offer::Reveal));
        a.offer(Offer::Declare).expect("declare");
        a.offer(Offer::Declare).expect("declare too");
        assert_eq!(a.premiums(), [(1, Offer::Declare), (0, Offer::Declare)]);
    }
}
