//! Card symbols.

use core::fmt;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

/// The symbol on the face of a card.
///
/// Two-colour decks use [`Symbol::Club`] (♣, also written `C`) and [`Symbol::Heart`] (♥, `H`);
/// standard decks use distinct numbered cards [`Symbol::Card`]; a multiset deck (any number of
/// kinds, each repeated any number of times: Crépeau–Kilian's four colours, UNO colours) adds
/// further kinds [`Symbol::Kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Symbol {
    /// ♣ (black).
    Club,
    /// ♥ (red).
    Heart,
    /// A distinct numbered card of a standard deck, numbered from 0 to [`MAX_CARD_NUMBER`].
    Card(u16),
    /// A further kind of repeated symbol: `Kind(0)` is ♦ (`D`), `Kind(1)` is ♠ (`S`), and
    /// `Kind(k)` is written `%k`.
    Kind(u8),
}

/// The largest number of a [`Symbol::Card`] whose [`code`](Symbol::code) is its own (above it
/// the codes of the kinds begin).
pub const MAX_CARD_NUMBER: u16 = KIND_CODES - 3;

/// The code of [`Symbol::Kind`]`(0)`; kind `k` has code `KIND_CODES + k`.
const KIND_CODES: u16 = 0xFF00;

impl Symbol {
    /// The Unicode glyph (♣, ♥, ♦, ♠), the number of a distinct card, or `%k` for a further kind.
    pub fn glyph(self) -> String {
        self.to_string()
    }

    /// The ASCII spelling (`C`, `H`, or `#n` for a numbered card).
    pub fn ascii(self) -> String {
        match self {
            Symbol::Club => "C".to_owned(),
            Symbol::Heart => "H".to_owned(),
            Symbol::Card(n) => format!("#{n}"),
            Symbol::Kind(0) => "D".to_owned(),
            Symbol::Kind(1) => "S".to_owned(),
            Symbol::Kind(k) => format!("%{k}"),
        }
    }

    /// Whether the card is a distinct numbered card ([`Symbol::Card`]) rather than a repeated
    /// symbol.
    pub fn is_numbered(self) -> bool {
        matches!(self, Symbol::Card(_))
    }

    /// Whether the card is ♣ or ♥ (the two-colour deck).
    pub fn is_two_colour(self) -> bool {
        matches!(self, Symbol::Club | Symbol::Heart)
    }

    /// A number for the symbol, the same on every backend: ♣ is 0, ♥ is 1, card `k` is `k + 2`
    /// (saturating at `MAX_CARD_NUMBER + 2`), kind `k` is `0xFF00 + k`. The encrypted deck
    /// maps it to a group element, the dealer sends it as a value.
    pub fn code(self) -> u16 {
        match self {
            Symbol::Club => 0,
            Symbol::Heart => 1,
            Symbol::Card(k) => k.min(MAX_CARD_NUMBER) + 2,
            Symbol::Kind(k) => KIND_CODES + u16::from(k),
        }
    }

    /// The symbol of a [`code`](Symbol::code).
    pub fn from_code(code: u16) -> Symbol {
        match code {
            0 => Symbol::Club,
            1 => Symbol::Heart,
            k if k >= KIND_CODES => Symbol::Kind((k - KIND_CODES) as u8),
            k => Symbol::Card(k - 2),
        }
    }

    /// Parses one symbol character: `♣`, `♥`, `♦`, `♠` or their letters `C`, `H`, `D`, `S` in
    /// either case.
    pub fn from_char(c: char) -> Option<Symbol> {
        match c {
            '♣' | 'C' | 'c' => Some(Symbol::Club),
            '♥' | 'H' | 'h' => Some(Symbol::Heart),
            '♦' | 'D' | 'd' => Some(Symbol::Kind(0)),
            '♠' | 'S' | 's' => Some(Symbol::Kind(1)),
            _ => None,
        }
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Symbol::Club => f.write_str("♣"),
            Symbol::Heart => f.write_str("♥"),
            Symbol::Card(n) => write!(f, "#{n}"),
            Symbol::Kind(0) => f.write_str("♦"),
            Symbol::Kind(1) => f.write_str("♠"),
            Symbol::Kind(k) => write!(f, "%{k}"),
        }
    }
}

/// Error returned when a string is not a card symbol.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a card symbol (expected ♣, ♥, ♦, ♠, C, H, D, S, #number or %kind)")]
pub struct ParseSymbolError(pub String);

impl FromStr for Symbol {
    type Err = ParseSymbolError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut chars = s.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            if let Some(sym) = Symbol::from_char(c) {
                return Ok(sym);
            }
        }
        let card = s.strip_prefix('#').and_then(|n| n.parse().ok());
        let kind = s.strip_prefix('%').and_then(|k| k.parse().ok());
        match (card, kind) {
            (Some(n), _) if n <= MAX_CARD_NUMBER => Ok(Symbol::Card(n)),
            (_, Some(k)) => Ok(Symbol::Kind(k)),
            _ => Err(ParseSymbolError(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_and_unicode_spellings_agree() {
        for (s, sym) in [
            ("♣", Symbol::Club),
            ("c", Symbol::Club),
            ("H", Symbol::Heart),
        ] {
            assert_eq!(s.parse::<Symbol>(), Ok(sym));
        }
        assert_eq!("#12".parse::<Symbol>(), Ok(Symbol::Card(12)));
        assert!("x".parse::<Symbol>().is_err());
        assert!("♣♥".parse::<Symbol>().is_err());
    }

    #[test]
    fn codes_round_trip() {
        for s in [
            Symbol::Club,
            Symbol::Heart,
            Symbol::Card(0),
            Symbol::Card(51),
            Symbol::Card(MAX_CARD_NUMBER),
            Symbol::Kind(0),
            Symbol::Kind(1),
            Symbol::Kind(255),
        ] {
            assert_eq!(Symbol::from_code(s.code()), s);
        }
        assert_eq!(Symbol::Card(3).code(), 5);
    }

    #[test]
    fn kinds_are_spelt_three_ways_and_read_back() {
        for (text, sym) in [
            ("♦", Symbol::Kind(0)),
            ("d", Symbol::Kind(0)),
            ("S", Symbol::Kind(1)),
            ("%1", Symbol::Kind(1)),
            ("%7", Symbol::Kind(7)),
        ] {
            assert_eq!(text.parse::<Symbol>(), Ok(sym));
        }
        for sym in [Symbol::Kind(0), Symbol::Kind(1), Symbol::Kind(9)] {
            assert_eq!(sym.to_string().parse::<Symbol>(), Ok(sym));
            assert_eq!(sym.ascii().parse::<Symbol>(), Ok(sym));
        }
        assert!("%256".parse::<Symbol>().is_err());
        assert!(format!("#{}", MAX_CARD_NUMBER + 1)
            .parse::<Symbol>()
            .is_err());
    }
}
