//! Bid cards: three cards laid aside whose suits encode the bid.
//!
//! Each bid card counts by its suit — ♦ 0, ♠ 1, ♥ 2, ♣ 3 (a diamond is a nought, a spade has
//! one point, a heart two lobes, a club three leaves) — and the bid is the sum, 0 to 9. Ranks do
//! not matter. A Joker counts as the turned-up card it stands for.

use serde::Serialize;

use super::variant::BidReading;
use crate::cards::{Card, Suit};

/// The tricks a bid card of this suit stands for.
pub fn suit_value(suit: Suit) -> u32 {
    match suit {
        Suit::Diamonds => 0,
        Suit::Spades => 1,
        Suit::Hearts => 2,
        Suit::Clubs => 3,
    }
}

/// The number a set of bid cards encodes; `stand_in` is the suit a Joker counts as.
pub fn bid_value(cards: &[Card], stand_in: Option<Suit>) -> u32 {
    cards
        .iter()
        .map(|c| c.suit().or(stand_in).map_or(0, suit_value))
        .sum()
}

/// The trick counts a bid number may mean under a reading.
pub fn meanings(bid: u32, reading: BidReading) -> Vec<u32> {
    match reading {
        BidReading::Exact => vec![bid],
        BidReading::ZeroOrTen if bid == 0 => vec![0, 10],
        BidReading::ZeroOrTen => vec![bid],
        BidReading::PlusTen if bid <= 3 => vec![bid, bid + 10],
        BidReading::PlusTen => vec![bid],
    }
}

/// Whether `tricks` makes `bid`.
pub fn made(bid: u32, tricks: u32, reading: BidReading) -> bool {
    meanings(bid, reading).contains(&tricks)
}

/// By how many tricks `tricks` misses `bid`, reading it in the bidder's favour.
pub fn deviation(bid: u32, tricks: u32, reading: BidReading) -> u32 {
    meanings(bid, reading)
        .into_iter()
        .map(|m| m.abs_diff(tricks))
        .min()
        .unwrap_or(0)
}

/// How many ways (suit multisets) there are to write each bid with three cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Encodings {
    /// `ways[b]`: the suit multisets whose values sum to `b`, as suit symbols.
    pub ways: Vec<Vec<String>>,
}

/// Every suit multiset of three bid cards, grouped by the bid it encodes.
pub fn encodings() -> Encodings {
    let mut ways = vec![Vec::new(); 10];
    let suits = [Suit::Diamonds, Suit::Spades, Suit::Hearts, Suit::Clubs];
    for a in 0..4 {
        for b in a..4 {
            for c in b..4 {
                let set = [suits[a], suits[b], suits[c]];
                let value: u32 = set.iter().map(|&s| suit_value(s)).sum();
                ways[value as usize].push(set.iter().map(|s| s.symbol()).collect());
            }
        }
    }
    Encodings { ways }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::Rank;

    #[test]
    fn ranks_do_not_count_and_a_joker_counts_as_its_stand_in() {
        let c = |r, s| Card::new(r, s);
        let bid = [
            c(Rank::Ace, Suit::Clubs),
            c(Rank::Six, Suit::Clubs),
            c(Rank::Nine, Suit::Hearts),
        ];
        assert_eq!(bid_value(&bid, None), 8);
        let with_joker = [Card::joker(0), c(Rank::Six, Suit::Spades), bid[2]];
        assert_eq!(bid_value(&with_joker, Some(Suit::Clubs)), 6);
    }

    #[test]
    fn readings_give_the_bidder_the_benefit_of_the_doubt() {
        assert!(made(0, 10, BidReading::ZeroOrTen));
        assert!(!made(0, 10, BidReading::Exact));
        assert!(made(2, 12, BidReading::PlusTen));
        assert_eq!(deviation(3, 11, BidReading::PlusTen), 2);
        assert_eq!(deviation(3, 11, BidReading::Exact), 8);
    }
}
