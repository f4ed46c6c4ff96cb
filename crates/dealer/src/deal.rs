//! The shape of a deal: how many cards each hand gets and how many are opened publicly, checked
//! once against the scheme so that every position computed from it is in the deck.
//!
//! Hand and public counts come from the command line; `players × hand + public` can overflow
//! (`--hand 4611686018427387904` with four players wraps to 0 in a release build and would
//! have passed a plain comparison). [`DealShape::new`] computes it with checked arithmetic and
//! is the only way to build a shape, so the driver and the leakage harness, which take one,
//! never see an unchecked count.

use core::ops::Range;

use facedown_core::PartyId;

use crate::error::DealerError;
use crate::scheme::Scheme;

/// `hand` cards privately to each of `players` players (player `p` gets positions
/// `(p − 1)·hand .. p·hand`), then `public` cards to everyone (the positions after the hands).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DealShape {
    players: usize,
    hand: usize,
    public: usize,
}

impl DealShape {
    /// Checks that the hands and the public cards fit the scheme's deck.
    pub fn new(scheme: &Scheme, hand: usize, public: usize) -> Result<DealShape, DealerError> {
        let players = scheme.players;
        let dealt = players
            .checked_mul(hand)
            .and_then(|h| h.checked_add(public));
        match dealt {
            Some(d) if d <= scheme.cards => Ok(DealShape {
                players,
                hand,
                public,
            }),
            _ => Err(DealerError::Config(format!(
                "{players} hands of {hand} and {public} public cards do not fit a deck of {} cards",
                scheme.cards
            ))),
        }
    }

    /// Cards per hand.
    pub fn hand(&self) -> usize {
        self.hand
    }

    /// Public cards.
    pub fn public(&self) -> usize {
        self.public
    }

    /// Cards dealt in all: `players · hand + public` (at most the deck).
    pub fn dealt(&self) -> usize {
        self.players * self.hand + self.public
    }

    /// The positions of player `p`'s hand.
    pub fn hand_positions(&self, p: PartyId) -> Range<usize> {
        let start = p.index() * self.hand;
        start..start + self.hand
    }

    /// The positions of the public cards.
    pub fn public_positions(&self) -> Range<usize> {
        let start = self.players * self.hand;
        start..start + self.public
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_that_overflow_or_do_not_fit_are_refused() {
        let s = Scheme::general(4, 10).expect("scheme");
        assert!(DealShape::new(&s, 4_611_686_018_427_387_904, 0).is_err());
        assert!(DealShape::new(&s, 1, usize::MAX).is_err());
        assert!(DealShape::new(&s, 2, 3).is_err());
        let ok = DealShape::new(&s, 2, 2).expect("fits");
        assert_eq!(ok.dealt(), 10);
        assert_eq!(ok.hand_positions(PartyId(4)), 6..8);
        assert_eq!(ok.public_positions(), 8..10);
    }
}
