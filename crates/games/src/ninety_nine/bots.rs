//! A heuristic player, after the strategy notes of Parlett's page.
//!
//! * **Bidding**: for every choice of three bid cards, estimate the tricks the other cards will
//!   take (aces and guarded kings win, long trumps win, small cards lose) and prefer the choice
//!   whose bid is nearest the estimate. Ties go to laying aside middle cards (jacks, tens,
//!   nines), which may or may not win, and keeping aces and kings (likely winners) and sixes
//!   and sevens (likely losers), as the notes advise.
//! * **Premiums**: declare only an iron-clad bid of nothing (no card above a ten, no trump);
//!   never reveal. In Ninety-Nine Declared, declare with a long suit headed by the ace and king
//!   and name it trumps.
//! * **Play**: while tricks are still needed, win as cheaply as possible (lead high); once the bid
//!   is made, lose (lead low, play the highest card that does not win, and when forced to win,
//!   win with the highest card). The dummy plays its lowest legal card.

use rand::RngCore;

use super::bid::{bid_value, meanings};
use super::premium::Offer;
use super::state::{Move, Phase, View};
use super::trick::{played, winner};
use super::variant::Trump;
use crate::cards::{Card, Rank, Suit};
use crate::game::Bot;

use super::NinetyNine;

/// The heuristic player.
#[derive(Clone, Copy, Debug, Default)]
pub struct HeuristicBot;

impl Bot<NinetyNine> for HeuristicBot {
    fn name(&self) -> &str {
        "heuristic"
    }

    fn choose(&mut self, view: &View, legal: &[Move], _rng: &mut dyn RngCore) -> Move {
        let first = legal[0];
        let choice = match view.phase {
            Phase::Bid => choose_bid(view, legal),
            Phase::Premium => choose_premium(view, legal),
            Phase::NameTrump => Some(Move::Trump(longest_suit(&view.hand))),
            Phase::Play => choose_card(view, legal),
            Phase::Claim => legal.iter().copied().find(|m| *m == Move::Claim),
            Phase::Over => None,
        };
        choice.filter(|m| legal.contains(m)).unwrap_or(first)
    }
}

/// Rank position from the top of the pack's ranks (0 for the ace).
fn from_top(rank: Rank, view_ranks: &[Rank]) -> usize {
    view_ranks
        .iter()
        .rev()
        .position(|&r| r == rank)
        .unwrap_or(0)
}

/// Expected tricks of `cards` with `trump` (a rough count).
pub fn estimate(cards: &[Card], trump: Option<Trump>, ranks: &[Rank]) -> f64 {
    let trump = trump.flatten();
    let length = |s: Suit| cards.iter().filter(|c| c.suit() == Some(s)).count();
    let mut total = 0.0;
    for &card in cards {
        let (Some(rank), Some(suit)) = (card.rank(), card.suit()) else {
            total += 0.5;
            continue;
        };
        let len = length(suit);
        let top = from_top(rank, ranks);
        let mut value: f64 = match top {
            0 => 0.95,
            1 if len >= 2 => 0.6,
            1 => 0.3,
            2 if len >= 3 => 0.35,
            _ => 0.0,
        };
        if Some(suit) == trump {
            value = value.max(if len >= 4 { 0.6 } else { 0.25 }) + 0.1;
        } else if trump.is_some() && len <= 2 {
            value *= 0.8;
        }
        total += value;
    }
    total
}

fn choose_bid(view: &View, legal: &[Move]) -> Option<Move> {
    let ranks = view.variant.rules().ranks;
    let reading = view.variant.rules().reading;
    let stand_in = view.turned.and_then(Card::suit);
    let mut best: Option<(f64, Move)> = None;
    for &mv in legal {
        let Move::Bid(set) = mv else { continue };
        let kept: Vec<Card> = view
            .hand
            .iter()
            .copied()
            .filter(|c| !set.contains(c))
            .collect();
        let est = estimate(&kept, view.trump, &ranks);
        let bid = bid_value(&set, stand_in);
        let miss = meanings(bid, reading)
            .into_iter()
            .map(|m| (f64::from(m) - est).abs())
            .fold(f64::INFINITY, f64::min);
        let extremes = set
            .iter()
            .filter(|c| {
                c.rank().is_some_and(|r| {
                    let top = from_top(r, &ranks);
                    top <= 1 || top + 2 >= ranks.len()
                })
            })
            .count();
        let cost = miss + 0.15 * extremes as f64;
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, mv));
        }
    }
    best.map(|(_, m)| m)
}

fn choose_premium(view: &View, legal: &[Move]) -> Option<Move> {
    let declare = Move::Premium(Offer::Declare);
    if !legal.contains(&declare) {
        return Some(Move::Premium(Offer::Pass));
    }
    let strong_zero = |cards: &[Card]| {
        cards
            .iter()
            .all(|c| c.rank().is_some_and(|r| r <= Rank::Ten) && c.suit() != view.trump.flatten())
    };
    let sure = match view.bid {
        Some(bid) => {
            let stand_in = view.turned.and_then(Card::suit);
            bid_value(&bid, stand_in) == 0 && strong_zero(&view.hand)
        }
        None => {
            let suit = longest_suit(&view.hand);
            let in_suit: Vec<Rank> = view
                .hand
                .iter()
                .filter(|c| c.suit() == Some(suit))
                .filter_map(|c| c.rank())
                .collect();
            in_suit.len() >= 6 && in_suit.contains(&Rank::Ace) && in_suit.contains(&Rank::King)
        }
    };
    Some(if sure {
        declare
    } else {
        Move::Premium(Offer::Pass)
    })
}

fn longest_suit(hand: &[Card]) -> Suit {
    Suit::ALL
        .into_iter()
        .max_by_key(|&s| {
            let cards: Vec<&Card> = hand.iter().filter(|c| c.suit() == Some(s)).collect();
            let high = cards.iter().filter_map(|c| c.rank()).max();
            (cards.len(), high)
        })
        .unwrap_or(Suit::Clubs)
}

/// Tricks the seat still wants: `None` when it has made its bid (or cannot tell).
fn tricks_wanted(view: &View, seat: usize) -> Option<u32> {
    let bid = view.bid?;
    let reading = view.variant.rules().reading;
    let stand_in = view.turned.and_then(Card::suit);
    let won = view.won[seat];
    meanings(bid_value(&bid, stand_in), reading)
        .into_iter()
        .filter(|&m| m > won)
        .min()
        .map(|m| m - won)
}

fn choose_card(view: &View, legal: &[Move]) -> Option<Move> {
    let seat = view.to_play?;
    let cards: Vec<Card> = legal
        .iter()
        .filter_map(|m| match m {
            Move::Play(c) => Some(*c),
            _ => None,
        })
        .collect();
    let strength = |c: &Card| {
        let p = played(*c, view.turned);
        let trump = p.suit.is_some() && p.suit == view.trump.flatten();
        (trump, p.rank)
    };
    let lowest = cards.iter().copied().min_by_key(strength)?;
    let highest = cards.iter().copied().max_by_key(strength)?;
    if Some(seat) == view.dummy {
        return Some(Move::Play(lowest));
    }
    let want = tricks_wanted(view, seat).is_some_and(|n| n > 0);
    if view.current.is_empty() {
        return Some(Move::Play(if want { highest } else { lowest }));
    }
    let trump = view.trump.flatten();
    let wins = |c: Card| {
        let mut trick = view.current.clone();
        trick.push((seat, c));
        winner(&trick, trump, view.turned, false) == seat
    };
    let (winning, losing): (Vec<Card>, Vec<Card>) = cards.iter().partition(|&&c| wins(c));
    let pick = if want {
        winning
            .iter()
            .copied()
            .min_by_key(strength)
            .unwrap_or(lowest)
    } else {
        losing
            .iter()
            .copied()
            .max_by_key(strength)
            .unwrap_or(highest)
    };
    Some(Move::Play(pick))
}
