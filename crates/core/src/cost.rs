//! Cost accounting: messages, bytes and rounds.
//!
//! *Rounds* are the length of the longest chain of messages that must happen one after another
//! (the quantity that dominates on a real network); messages sent in parallel in one round count
//! once towards rounds.

use core::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// What running (part of) a protocol cost on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cost {
    /// Number of point-to-point or broadcast messages sent.
    pub messages: u64,
    /// Total payload bytes of those messages (serialized size).
    pub bytes: u64,
    /// Number of sequential communication rounds.
    pub rounds: u64,
}

impl Cost {
    /// Costs nothing.
    pub const ZERO: Cost = Cost {
        messages: 0,
        bytes: 0,
        rounds: 0,
    };

    /// Sequential composition: `self` then `other` (everything adds up).
    pub fn then(self, other: Cost) -> Cost {
        self + other
    }

    /// Parallel composition: messages and bytes add, rounds are the maximum of the two.
    pub fn alongside(self, other: Cost) -> Cost {
        Cost {
            messages: self.messages + other.messages,
            bytes: self.bytes + other.bytes,
            rounds: self.rounds.max(other.rounds),
        }
    }
}

impl Add for Cost {
    type Output = Cost;
    fn add(self, other: Cost) -> Cost {
        Cost {
            messages: self.messages + other.messages,
            bytes: self.bytes + other.bytes,
            rounds: self.rounds + other.rounds,
        }
    }
}

impl AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        *self = *self + other;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_composition_takes_the_longer_chain() {
        let a = Cost {
            messages: 2,
            bytes: 10,
            rounds: 2,
        };
        let b = Cost {
            messages: 3,
            bytes: 5,
            rounds: 1,
        };
        assert_eq!(
            a.alongside(b),
            Cost {
                messages: 5,
                bytes: 15,
                rounds: 2
            }
        );
        assert_eq!(a.then(b).rounds, 3);
    }
}
