//! Playing cards, named by identity.
//!
//! A move that plays a card names the card itself (`QH`, the Joker `JK`, the second copy of the
//! seven of hearts `7H#1`), never a position in a hand, so a log says what was played and a
//! secure table can check it against what the player owned. Cards print and parse in the
//! two-character format of Codeforces 1769 (`6C TD AS`): rank `2`–`9`, `T`, `J`, `Q`, `K`, `A`
//! (and `11`, `12` for the elevens and twelves of the 60-card Five Hundred pack), then the suit
//! `C`, `D`, `S` or `H`. A card of a second deck carries `#n`.

use core::fmt;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

/// The four suits, in the order of the Codeforces format (clubs, diamonds, spades, hearts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Suit {
    /// ♣ (`C`).
    Clubs,
    /// ♦ (`D`).
    Diamonds,
    /// ♠ (`S`).
    Spades,
    /// ♥ (`H`).
    Hearts,
}

impl Suit {
    /// All four suits.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Spades, Suit::Hearts];

    /// The suit's index in [`Suit::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The letter of the card format.
    pub fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Spades => 'S',
            Suit::Hearts => 'H',
        }
    }

    /// The suit symbol.
    pub fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Spades => '♠',
            Suit::Hearts => '♥',
        }
    }

    fn from_letter(c: char) -> Option<Suit> {
        Suit::ALL.into_iter().find(|s| s.letter() == c)
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// Ranks from low to high. `Eleven` and `Twelve` exist only in the 60-card Five Hundred pack,
/// where they rank between the ten and the jack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum Rank {
    Two,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Eleven,
    Twelve,
    Jack,
    Queen,
    King,
    Ace,
}

impl Rank {
    /// Every rank, low to high.
    pub const ALL: [Rank; 15] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Eleven,
        Rank::Twelve,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The thirteen ranks of a standard pack, two to ace.
    pub const STANDARD: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The nine ranks six to ace of the 36-card pack.
    pub const SIX_TO_ACE: [Rank; 9] = [
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The text of the rank in the card format.
    pub fn text(self) -> &'static str {
        const TEXT: [&str; 15] = [
            "2", "3", "4", "5", "6", "7", "8", "9", "T", "11", "12", "J", "Q", "K", "A",
        ];
        TEXT[self as usize]
    }

    fn from_text(s: &str) -> Option<Rank> {
        Rank::ALL.into_iter().find(|r| r.text() == s)
    }
}

/// What a card shows: a rank of a suit, or a Joker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Face {
    /// A suited card.
    Suited(Rank, Suit),
    /// A Joker.
    Joker,
}

/// One physical card: its face and, when a pack holds several cards with the same face (two
/// decks, several Jokers, duplicated ranks), which copy it is (0 for the first).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Card {
    /// What the card shows.
    pub face: Face,
    /// Which copy of that face (0 for the first deck).
    pub copy: u8,
}

impl Card {
    /// The first copy of `rank` of `suit`.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card {
            face: Face::Suited(rank, suit),
            copy: 0,
        }
    }

    /// Joker number `copy`.
    pub const fn joker(copy: u8) -> Card {
        Card {
            face: Face::Joker,
            copy,
        }
    }

    /// The same face, another copy.
    pub const fn with_copy(self, copy: u8) -> Card {
        Card {
            face: self.face,
            copy,
        }
    }

    /// The rank, `None` for a Joker.
    pub fn rank(self) -> Option<Rank> {
        match self.face {
            Face::Suited(r, _) => Some(r),
            Face::Joker => None,
        }
    }

    /// The suit, `None` for a Joker.
    pub fn suit(self) -> Option<Suit> {
        match self.face {
            Face::Suited(_, s) => Some(s),
            Face::Joker => None,
        }
    }

    /// Whether this is a Joker.
    pub fn is_joker(self) -> bool {
        self.face == Face::Joker
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.face {
            Face::Suited(r, s) => write!(f, "{}{}", r.text(), s.letter())?,
            Face::Joker => write!(f, "JK")?,
        }
        if self.copy > 0 {
            write!(f, "#{}", self.copy)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A card text that is not a card.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a card (rank 2–9, T, 11, 12, J, Q, K or A, then suit C, D, S or H; JK for a Joker; #n for copy n)")]
pub struct CardParseError(pub String);

impl FromStr for Card {
    type Err = CardParseError;

    fn from_str(text: &str) -> Result<Card, CardParseError> {
        let bad = || CardParseError(text.chars().take(16).collect());
        let (body, copy) = match text.split_once('#') {
            Some((body, n)) => (body, n.parse::<u8>().map_err(|_| bad())?),
            None => (text, 0),
        };
        if body == "JK" {
            return Ok(Card::joker(copy));
        }
        let mut chars = body.chars();
        let suit = chars
            .next_back()
            .and_then(Suit::from_letter)
            .ok_or_else(bad)?;
        let rank = Rank::from_text(chars.as_str()).ok_or_else(bad)?;
        Ok(Card::new(rank, suit).with_copy(copy))
    }
}

impl From<Card> for String {
    fn from(card: Card) -> String {
        card.to_string()
    }
}

impl TryFrom<String> for Card {
    type Error = CardParseError;

    fn try_from(text: String) -> Result<Card, CardParseError> {
        text.parse()
    }
}

/// The cards of `ranks` in every suit, `copies` times over, then `jokers` Jokers.
pub fn pack(ranks: &[Rank], copies: u8, jokers: u8) -> Vec<Card> {
    let mut cards = Vec::with_capacity(ranks.len() * 4 * usize::from(copies) + usize::from(jokers));
    for copy in 0..copies {
        for suit in Suit::ALL {
            for &rank in ranks {
                cards.push(Card::new(rank, suit).with_copy(copy));
            }
        }
    }
    cards.extend((0..jokers).map(Card::joker));
    cards
}

/// Parses cards separated by whitespace.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, CardParseError> {
    text.split_whitespace().map(str::parse).collect()
}

/// Cards separated by spaces.
pub fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `cards` is a rearrangement of `pack` (each card exactly once).
pub fn is_permutation_of(cards: &[Card], pack: &[Card]) -> bool {
    let mut a = cards.to_vec();
    let mut b = pack.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_of_every_pack_round_trips_through_its_text() {
        for card in pack(&Rank::ALL, 2, 4) {
            let text = card.to_string();
            assert_eq!(text.parse::<Card>(), Ok(card), "{text}");
        }
    }

    #[test]
    fn the_codeforces_format_is_two_characters() {
        let cards = parse_cards("6C TD AS 9H").expect("valid");
        assert_eq!(cards_text(&cards), "6C TD AS 9H");
        assert!(pack(&Rank::SIX_TO_ACE, 1, 0)
            .iter()
            .all(|c| c.to_string().len() == 2));
    }

    #[test]
    fn malformed_card_texts_are_typed_errors() {
        for bad in ["", "X", "1C", "TX", "JK#", "7H#300", "AS#x", "10H", "JKK"] {
            assert!(bad.parse::<Card>().is_err(), "{bad}");
        }
    }

    #[test]
    fn json_of_a_card_is_its_text() {
        let card = Card::new(Rank::Queen, Suit::Hearts).with_copy(1);
        let json = serde_json::to_string(&card).expect("serialises");
        assert_eq!(json, "\"QH#1\"");
        assert_eq!(serde_json::from_str::<Card>(&json).expect("parses"), card);
        assert!(serde_json::from_str::<Card>("\"ZZ\"").is_err());
    }
}
