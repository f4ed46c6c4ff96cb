//! Card symbols.

use core::fmt;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

/// The symbol on the face of a card.
///
/// Two-colour decks use [`Symbol::Club`] (♣, also written `C`) and [`Symbol::Heart`] (♥, `H`);
/// standard decks use distinct numbered cards [`Symbol::Card`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Symbol {
    /// ♣ (black).
    Club,
    /// ♥ (red).
    Heart,
    /// A distinct numbered card of a standard deck, numbered from 0.
    Card(u16),
}

impl Symbol {
    /// The Unicode glyph (♣, ♥) or the number of a distinct card.
    pub fn glyph(self) -> String {
        self.to_string()
    }

    /// The ASCII spelling (`C`, `H`, or `#n` for a numbered card).
    pub fn ascii(self) -> String {
        match self {
            Symbol::Club => "C".to_owned(),
            Symbol::Heart => "H".to_owned(),
            Symbol::Card(n) => format!("#{n}"),
        }
    }

    /// A number for the symbol, the same on every backend: ♣ is 0, ♥ is 1, card `k` is `k + 2`
    /// (saturating at `u16::MAX`). The encrypted deck maps it to a group element, the dealer
    /// sends it as a value.
    pub fn code(self) -> u16 {
        match self {
            Symbol::Club => 0,
            Symbol::Heart => 1,
            Symbol::Card(k) => k.saturating_add(2),
        }
    }

    /// The symbol of a [`code`](Symbol::code).
    pub fn from_code(code: u16) -> Symbol {
        match code {
            0 => Symbol::Club,
            1 => Symbol::Heart,
            k => Symbol::Card(k - 2),
        }
    }

    /// Parses one symbol character: `♣`, `♥`, `C`, `c`, `H` or `h`.
    pub fn from_char(c: char) -> Option<Symbol> {
        match c {
            '♣' | 'C' | 'c' => Some(Symbol::Club),
            '♥' | 'H' | 'h' => Some(Symbol::Heart),
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
        }
    }
}

/// Error returned when a string is not a card symbol.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a card symbol (expected ♣, ♥, C, H or #number)")]
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
        s.strip_prefix('#')
            .and_then(|n| n.parse().ok())
            .map(Symbol::Card)
            .ok_or_else(|| ParseSymbolError(s.to_owned()))
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
        ] {
            assert_eq!(Symbol::from_code(s.code()), s);
        }
        assert_eq!(Symbol::Card(3).code(), 5);
    }
}
