//! Tricks: following suit and who wins.

use serde::Serialize;

use super::variant::Trump;
use crate::cards::{Card, Face, Rank, Suit};

/// A card as it plays: a Joker takes the face of the turned-up card it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// Its suit (`None` only for a Joker with nothing to stand for).
    pub suit: Option<Suit>,
    /// Its rank.
    pub rank: Option<Rank>,
}

/// How `card` plays when Jokers stand for `stand_in`.
pub fn played(card: Card, stand_in: Option<Card>) -> Played {
    let face = match (card.face, stand_in) {
        (Face::Joker, Some(up)) => up.face,
        (face, _) => face,
    };
    match face {
        Face::Suited(rank, suit) => Played {
            suit: Some(suit),
            rank: Some(rank),
        },
        Face::Joker => Played {
            suit: None,
            rank: None,
        },
    }
}

/// A finished trick: the cards in the order played, with the seat that played each, and the
/// winner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Trick {
    /// `(seat, card)` in order of play.
    pub cards: Vec<(usize, Card)>,
    /// The winning seat.
    pub winner: usize,
}

/// The seat that wins a complete trick. `all_trumps` is the "all trumps" rule of no-trump
/// deals: the highest card wins whatever its suit. Of two cards with the same face the first
/// played wins.
pub fn winner(
    cards: &[(usize, Card)],
    trump: Trump,
    stand_in: Option<Card>,
    all_trumps: bool,
) -> usize {
    let led = cards.first().and_then(|&(_, c)| played(c, stand_in).suit);
    let in_suit = |s: Option<Suit>| cards.iter().any(|&(_, c)| played(c, stand_in).suit == s);
    let contest = if trump.is_none() && all_trumps {
        None
    } else if trump.is_some() && in_suit(trump) {
        Some(trump)
    } else {
        Some(led)
    };
    let mut best: Option<(usize, Option<Rank>)> = None;
    for &(seat, card) in cards {
        let p = played(card, stand_in);
        if contest.is_some_and(|s| p.suit != s) {
            continue;
        }
        // Strictly higher: an equal card played later does not win.
        if best.is_none_or(|(_, r)| p.rank > r) {
            best = Some((seat, p.rank));
        }
    }
    best.map_or(0, |(seat, _)| seat)
}

/// Whether `hand` holds a card that plays as `suit`.
pub fn holds_suit(hand: &[Card], suit: Suit, stand_in: Option<Card>) -> Option<Card> {
    hand.iter()
        .copied()
        .find(|&c| played(c, stand_in).suit == Some(suit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> Card {
        text.parse().expect("card")
    }

    #[test]
    fn trumps_beat_the_suit_led_and_the_highest_of_the_suit_led_wins_otherwise() {
        let trick = [(0, c("KH")), (1, c("AH")), (2, c("6C"))];
        assert_eq!(winner(&trick, Some(Suit::Clubs), None, false), 2);
        assert_eq!(winner(&trick, Some(Suit::Spades), None, false), 1);
        assert_eq!(winner(&trick, None, None, false), 1);
    }

    #[test]
    fn all_trumps_lets_a_higher_card_of_another_suit_win_without_trumps() {
        let trick = [(0, c("KH")), (1, c("AS")), (2, c("QH"))];
        assert_eq!(winner(&trick, None, None, false), 0);
        assert_eq!(winner(&trick, None, None, true), 1);
    }

    #[test]
    fn a_joker_plays_as_the_turned_up_card() {
        let up = c("QS");
        let trick = [(0, c("JS")), (1, Card::joker(0)), (2, c("KH"))];
        assert_eq!(winner(&trick, Some(Suit::Spades), Some(up), false), 1);
        assert_eq!(
            holds_suit(&[Card::joker(0)], Suit::Spades, Some(up)),
            Some(Card::joker(0))
        );
    }

    #[test]
    fn of_two_equal_cards_the_first_played_wins() {
        let trick = [(0, c("8H")), (1, c("8H#1")), (2, c("7H"))];
        assert_eq!(winner(&trick, None, None, false), 0);
    }
}
