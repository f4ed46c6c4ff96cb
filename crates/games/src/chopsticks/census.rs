//! Counting positions: codes, functionally distinct positions, reachable positions and ends.
//!
//! The seed's counts for the `(p, r)` game are of three kinds: *codes* (every digit string,
//! `r^{2p}`), *functionally distinct positions* (each player's hands as an unordered pair,
//! `C(r + 1, 2)^p`) and *reachable positions* (those some game from the start passes through,
//! the start and the ends included). The last needs a search; [`census`] walks the reachable
//! set with a bitset over the dense numbering of [`Indexer`], so four players with rollover 12
//! (37 million distinct positions) fit in a few megabytes.

use serde::Serialize;

use super::index::{Indexer, TooLarge};
use super::rules::{Rules, Status};

/// The counts of one set of rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Census {
    /// Players `p`.
    pub players: u8,
    /// Rollover `r`.
    pub rollover: u8,
    /// Digit strings `r^{h·p}`, when that fits in 64 bits.
    pub codes: Option<u64>,
    /// Functionally distinct positions (unordered hands), `C(r + h − 1, h)^p`.
    pub distinct: u64,
    /// Positions reachable from the start (the start and the ends included).
    pub reachable: u64,
    /// Reachable positions where the game is over.
    pub ends: u64,
}

/// The most numbered positions a census walks: its bitset then takes 1 GiB.
pub const MAX_CENSUS_SPACE: u64 = 1 << 33;

/// The most positions a census keeps waiting to be expanded (1 GiB of numbers).
const MAX_CENSUS_PENDING: usize = 1 << 27;

/// Counts the positions of `rules`, calling `progress(visited)` now and then. Rules with more
/// than [`MAX_CENSUS_SPACE`] numbered positions, or whose walk would keep more than 2^27
/// positions waiting, are [`TooLarge`]: the census stays within about 2 GiB.
pub fn census(rules: &Rules, progress: &mut dyn FnMut(u64)) -> Result<Census, TooLarge> {
    let ix = Indexer::new(rules)?;
    let space = ix.space();
    if space > MAX_CENSUS_SPACE {
        return Err(too_large(rules));
    }
    let words = usize::try_from(space.div_ceil(64)).map_err(|_| too_large(rules))?;
    let mut seen = Vec::new();
    seen.try_reserve_exact(words)
        .map_err(|_| too_large(rules))?;
    seen.resize(words, 0u64);
    let mut mark = |i: u64| -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        let new = seen[w] & (1 << b) == 0;
        seen[w] |= 1 << b;
        new
    };
    let start = ix.index(&rules.start());
    mark(start);
    let mut stack = vec![start];
    let (mut reachable, mut ends) = (0u64, 0u64);
    while let Some(i) = stack.pop() {
        reachable += 1;
        if reachable % (1 << 20) == 0 {
            progress(reachable);
        }
        let pos = ix.position(i);
        if rules.status(&pos) != Status::Ongoing {
            ends += 1;
            continue;
        }
        rules.for_each_move(&pos, |_, child, _| {
            let c = ix.index(&child);
            if mark(c) {
                stack.push(c);
            }
        });
        if stack.len() > MAX_CENSUS_PENDING {
            return Err(too_large(rules));
        }
    }
    progress(reachable);
    let h = u32::from(rules.hands) * u32::from(rules.players);
    Ok(Census {
        players: rules.players,
        rollover: rules.rollover,
        codes: u64::from(rules.rollover).checked_pow(h),
        distinct: (ix.multisets() as u64).pow(u32::from(rules.players)),
        reachable,
        ends,
    })
}

fn too_large(rules: &Rules) -> TooLarge {
    TooLarge {
        players: rules.players,
        hands: rules.hands,
        rollover: rules.rollover,
    }
}

/// `C(r + 1, 2)² − (C(r + 1, 2) + (r − 1) + 2)`: the seed's closed form for the reachable
/// positions of the two-player game with rollover `r > 2`.
pub fn seed_reachable_formula(r: u64) -> u64 {
    let pairs = r * (r + 1) / 2;
    pairs * pairs - (pairs + (r - 1) + 2)
}
