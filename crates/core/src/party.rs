//! Party identifiers.

use core::fmt;

use serde::{Deserialize, Serialize};

/// A party (player) of a multi-party protocol, numbered from 1 as in the papers and the seed
/// documents. The zero-based index is available through [`PartyId::index`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PartyId(pub u16);

impl PartyId {
    /// The party with zero-based index `index` (party `index + 1`).
    pub fn from_index(index: usize) -> Self {
        PartyId(u16::try_from(index + 1).unwrap_or(u16::MAX))
    }

    /// The zero-based index of this party (party 1 has index 0).
    pub fn index(self) -> usize {
        usize::from(self.0).saturating_sub(1)
    }

    /// All parties `1..=n`.
    pub fn all(n: usize) -> impl Iterator<Item = PartyId> {
        (0..n).map(PartyId::from_index)
    }
}

impl fmt::Display for PartyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "player {}", self.0)
    }
}
