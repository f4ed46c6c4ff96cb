//! Announcing a choice through the table: a player's bits committed as cards, then turned.
//!
//! A player announces a number of `w` bits as `w` pairs of cards in the encoding of the card
//! protocols: ♣♥ is 0, ♥♣ is 1. He commits the pairs, two bits at a time ([`FaceDownTable::commit`]; everyone else
//! gives the public multiset, `w` ♣ and `w` ♥, [`FaceDownTable::commit_hidden`]) and the table
//! turns them for everyone. So an announcement is bound to its author by the backend's own
//! commitment, reaches every player identically (the backends' echo round), and costs nothing
//! beyond the operations every backend already has: no new message kind, no change to an
//! engine. A pair that is not ♣♥ or ♥♣ is the announcer's fault, seen by everyone at once.

use facedown_core::table::FaceDownTable;
use facedown_core::{PartyId, Symbol};

/// Why an announcement could not be heard.
#[derive(Debug, thiserror::Error)]
pub enum AnnounceError<E: std::error::Error + 'static> {
    /// The table failed (its error names whom it blames).
    #[error(transparent)]
    Table(E),
    /// The announcer committed cards that are not the encoding of bits.
    #[error("{by} announced cards that encode no bits (pair {pair})")]
    Malformed {
        /// The announcer.
        by: PartyId,
        /// The first bad pair.
        pair: usize,
    },
    /// A number does not fit the width announced for it (a defect of the caller).
    #[error("{value} does not fit in {width} bits")]
    TooWide {
        /// The number.
        value: u16,
        /// Its width.
        width: u8,
    },
}

/// The cards of `values`, each `widths[i]` bits wide, most significant bit first.
pub fn encode<E: std::error::Error>(
    values: &[u16],
    widths: &[u8],
) -> Result<Vec<Symbol>, AnnounceError<E>> {
    let mut cards = Vec::new();
    for (&value, &width) in values.iter().zip(widths) {
        if width < 16 && value >> width != 0 {
            return Err(AnnounceError::TooWide { value, width });
        }
        for bit in (0..width).rev() {
            if value >> bit & 1 == 1 {
                cards.extend([Symbol::Heart, Symbol::Club]);
            } else {
                cards.extend([Symbol::Club, Symbol::Heart]);
            }
        }
    }
    Ok(cards)
}

/// The numbers the turned `cards` encode, or the index of the first pair that is not a bit.
pub fn decode(cards: &[Symbol], widths: &[u8]) -> Result<Vec<u16>, usize> {
    let mut pairs = cards.chunks(2).enumerate();
    let mut values = Vec::with_capacity(widths.len());
    for &width in widths {
        let mut value = 0u16;
        for _ in 0..width {
            let (i, pair) = pairs.next().ok_or(cards.len() / 2)?;
            let bit = match pair {
                [Symbol::Club, Symbol::Heart] => 0,
                [Symbol::Heart, Symbol::Club] => 1,
                _ => return Err(i),
            };
            value = value << 1 | bit;
        }
        values.push(value);
    }
    Ok(values)
}

/// Bits per commitment: the encrypted deck commits at most five cards at once, so an
/// announcement is several commitments of two bits (four cards) each, turned together.
pub const COMMIT_BITS: usize = 2;

/// Hears (and, when `mine` is given, makes) `by`'s announcement of numbers of the given
/// widths: `mine` is the announcer's own view; every other player passes `None`.
pub fn announce<T: FaceDownTable>(
    table: &mut T,
    by: PartyId,
    mine: Option<&[u16]>,
    widths: &[u8],
) -> Result<Vec<u16>, AnnounceError<T::Error>> {
    let bits: usize = widths.iter().map(|&w| usize::from(w)).sum();
    let start = table.len();
    let cards = mine.map(|values| encode(values, widths)).transpose()?;
    for chunk in (0..bits).step_by(COMMIT_BITS) {
        let pairs = COMMIT_BITS.min(bits - chunk);
        match &cards {
            Some(cards) => table
                .commit(by, &cards[2 * chunk..2 * (chunk + pairs)])
                .map_err(AnnounceError::Table)?,
            None => {
                let mut multiset = vec![Symbol::Club; pairs];
                multiset.extend(vec![Symbol::Heart; pairs]);
                table
                    .commit_hidden(by, &multiset)
                    .map_err(AnnounceError::Table)?;
            }
        }
    }
    let positions: Vec<usize> = (start..start + 2 * bits).collect();
    let cards = table.turn(&positions).map_err(AnnounceError::Table)?;
    decode(&cards, widths).map_err(|pair| AnnounceError::Malformed { by, pair })
}

/// [`announce`], with an announcement whose cards encode no number told apart from a failure:
/// `Ok(Err(pair))` names the first bad pair, for which the announcer alone is to blame.
pub fn hear<T: FaceDownTable>(
    table: &mut T,
    by: PartyId,
    mine: Option<&[u16]>,
    widths: &[u8],
) -> Result<Result<Vec<u16>, usize>, super::SessionError<T::Error>> {
    match announce(table, by, mine, widths) {
        Ok(values) => Ok(Ok(values)),
        Err(AnnounceError::Malformed { pair, .. }) => Ok(Err(pair)),
        Err(e) => Err(e.into()),
    }
}

/// The bits needed to name any of `n` things.
pub fn width_for(n: usize) -> u8 {
    let mut w = 0u8;
    while w < 16 && (1usize << w) < n {
        w += 1;
    }
    w.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use facedown_core::table::TableError;

    #[test]
    fn numbers_survive_the_card_encoding() {
        let widths = [6, 1, 2];
        let cards = encode::<TableError>(&[37, 1, 2], &widths).expect("fits");
        assert_eq!(cards.len(), 2 * 9);
        assert_eq!(decode(&cards, &widths), Ok(vec![37, 1, 2]));
        assert!(matches!(
            encode::<TableError>(&[4], &[2]),
            Err(AnnounceError::TooWide { value: 4, width: 2 })
        ));
        let mut bad = cards;
        bad[2] = Symbol::Club;
        bad[3] = Symbol::Club;
        assert_eq!(decode(&bad, &widths), Err(1));
        assert_eq!(width_for(36), 6);
        assert_eq!(width_for(2), 1);
        assert_eq!(width_for(1), 1);
    }
}
