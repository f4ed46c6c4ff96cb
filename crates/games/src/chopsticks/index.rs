//! A dense numbering of positions, for bitsets and tables over the whole position space.
//!
//! A player's hands are a multiset of `h` values below `r`: there are `M = C(r + h − 1, h)` of
//! them (`C(r + 1, 2)` for two hands). With the swap counter (`S` values) and the zombie flag
//! (`Z`), a player has `P = M·S·Z` states and a position is a number below `P^p`.

use super::rules::{Position, Rules, MAX_HANDS};

/// Numbers positions densely for one set of rules.
#[derive(Clone, Debug)]
pub struct Indexer {
    players: usize,
    hands: usize,
    rollover: usize,
    counters: u64,
    zombie: u64,
    per_player: u64,
    /// Multiset rank of each base-`r` code of sorted hands (`u32::MAX` for unsorted codes).
    rank: Vec<u32>,
    /// The sorted hands of each rank.
    unrank: Vec<[u8; MAX_HANDS]>,
    space: u64,
}

/// The space is too large to number in 64 bits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{players} players with {hands} hands and rollover {rollover}: too many positions to number"
)]
pub struct TooLarge {
    /// Players.
    pub players: u8,
    /// Hands.
    pub hands: u8,
    /// Rollover.
    pub rollover: u8,
}

impl Indexer {
    /// The numbering of the positions of `rules`.
    pub fn new(rules: &Rules) -> Result<Indexer, TooLarge> {
        let too_large = TooLarge {
            players: rules.players,
            hands: rules.hands,
            rollover: rules.rollover,
        };
        let h = usize::from(rules.hands);
        let r = usize::from(rules.rollover);
        let codes = r.checked_pow(h as u32).filter(|&c| c <= 1 << 24);
        let codes = codes.ok_or(too_large.clone())?;
        let mut rank = vec![u32::MAX; codes];
        let mut unrank = Vec::new();
        for (code, slot) in rank.iter_mut().enumerate() {
            let digits = digits_of(code, r, h);
            if digits.windows(2).all(|w| w[0] <= w[1]) {
                *slot = unrank.len() as u32;
                let mut hands = [0; MAX_HANDS];
                hands[..h].copy_from_slice(&digits);
                unrank.push(hands);
            }
        }
        let counters = rules.pass_bound().map_or(1, |b| u64::from(b) + 1);
        let zombie = if rules.zombie { 2 } else { 1 };
        let per_player = unrank.len() as u64 * counters * zombie;
        let space = (0..rules.players)
            .try_fold(1u64, |acc, _| acc.checked_mul(per_player))
            .ok_or(too_large)?;
        Ok(Indexer {
            players: usize::from(rules.players),
            hands: h,
            rollover: r,
            counters,
            zombie,
            per_player,
            rank,
            unrank,
            space,
        })
    }

    /// Number of positions (every combination of every player's states).
    pub fn space(&self) -> u64 {
        self.space
    }

    /// Number of distinct hand multisets of one player, `C(r + h − 1, h)`.
    pub fn multisets(&self) -> usize {
        self.unrank.len()
    }

    /// The number of `pos`.
    pub fn index(&self, pos: &Position) -> u64 {
        let mut index = 0;
        for k in (0..self.players).rev() {
            let code = pos.fingers[k][..self.hands]
                .iter()
                .fold(0usize, |acc, &v| acc * self.rollover + usize::from(v));
            let m = u64::from(self.rank[code]);
            let c = u64::from(pos.swaps[k]).min(self.counters - 1);
            let z = u64::from(pos.is_zombie(k)) % self.zombie;
            index = index * self.per_player + (m * self.counters + c) * self.zombie + z;
        }
        index
    }

    /// The position numbered `index`.
    pub fn position(&self, mut index: u64) -> Position {
        let mut pos = Position {
            players: self.players as u8,
            hands: self.hands as u8,
            fingers: Default::default(),
            swaps: Default::default(),
            zombies: 0,
        };
        for k in 0..self.players {
            let mut state = index % self.per_player;
            index /= self.per_player;
            if state % self.zombie == 1 {
                pos.zombies |= 1 << k;
            }
            state /= self.zombie;
            pos.swaps[k] = (state % self.counters) as u8;
            pos.fingers[k] = self.unrank[(state / self.counters) as usize];
        }
        pos
    }
}

fn digits_of(mut code: usize, base: usize, len: usize) -> Vec<u8> {
    let mut digits = vec![0; len];
    for d in digits.iter_mut().rev() {
        *d = (code % base) as u8;
        code /= base;
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_is_a_bijection_on_the_two_player_space() {
        let rules = Rules::standard();
        let ix = Indexer::new(&rules).expect("small");
        assert_eq!(ix.multisets(), 15);
        assert_eq!(ix.space(), 225);
        for i in 0..ix.space() {
            assert_eq!(ix.index(&ix.position(i)), i);
        }
    }

    #[test]
    fn counters_and_zombies_are_numbered_too() {
        let mut rules = Rules::pr(3, 4);
        rules.zombie = true;
        rules.swaps = Some(2);
        let ix = Indexer::new(&rules).expect("small");
        assert_eq!(ix.space(), (10u64 * 3 * 2).pow(3));
        for i in (0..ix.space()).step_by(7) {
            assert_eq!(ix.index(&ix.position(i)), i);
        }
    }
}
