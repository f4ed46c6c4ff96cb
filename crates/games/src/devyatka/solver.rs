//! The exact solver of a Devyatka deal.
//!
//! The cards on the table of one suit are always an unbroken run through its nine (a card goes
//! down only next to a card of its suit already down, and the first is the nine), so a suit is
//! empty or a run `lo..=hi` with `lo ≤ 9 ≤ hi`: 4 · 6 + 1 = 25 states. Who holds each card is
//! fixed by the deal, so a position is the four runs and the player to move: at most
//! 25⁴ · 2 = 781 250 positions, every one of which the solver can store. It plays the game out
//! by depth-first search with a memo of the value of each position — the signed result under
//! optimal play: `+k` when Alice wins with Bob holding `k` cards, `−k` when Bob wins with Alice
//! holding `k`. Alice maximises it and Bob minimises it: each prefers any win to any loss, a
//! larger count left to his opponent when winning and a smaller count left to himself when
//! losing, which is exactly the order of the signed numbers.

use super::{Deal, Player, CARDS, NINE, RANKS};

const SUIT_STATES: usize = 25;
const POSITIONS: usize = SUIT_STATES * SUIT_STATES * SUIT_STATES * SUIT_STATES;

/// A suit's run: empty, or `lo..=hi` (rank indices, the nine is 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub(crate) lo: u8,
    pub(crate) hi: u8,
}

/// Code of a suit state: 0 for empty, `1 + 6·lo + (hi − 3)` for a run.
fn code(run: Option<Run>) -> u32 {
    match run {
        None => 0,
        Some(Run { lo, hi }) => 1 + 6 * u32::from(lo) + u32::from(hi - NINE),
    }
}

/// Solves deals, reusing one table of bounds (about 1.5 MB) from deal to deal.
///
/// The search is alpha-beta over the signed result, with the bounds learnt for each position
/// kept in the table (a position searched with a narrow window may only be bounded, and is
/// searched again if a later window needs more). The value of a position also lies between
/// `−(cards Alice holds)` and `+(cards Bob holds)`, which cuts many lines at once.
#[derive(Clone, Debug)]
pub struct Solver {
    /// `(lower, upper)` bounds on the value of each position.
    bounds: Vec<(i8, i8)>,
    alice: u64,
    loaded: bool,
    /// Positions searched for the current deal.
    evaluated: u64,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

/// One legal card of the mover: which card, the position it leads to, and how good it looks.
#[derive(Clone, Copy, Default)]
struct Step {
    card: u8,
    key: u32,
    codes: u32,
    order: i8,
}

const WIDEST: (i8, i8) = (-(CARDS as i8), CARDS as i8);

/// Per suit state: the code after putting down the next card below and above the run (or
/// `NONE`), and the rank of that card.
#[derive(Clone, Copy)]
struct Growth {
    down: u8,
    down_rank: u8,
    up: u8,
    up_rank: u8,
}

const NONE: u8 = u8::MAX;

const GROWTH: [Growth; SUIT_STATES] = {
    let mut table = [Growth {
        down: NONE,
        down_rank: 0,
        up: NONE,
        up_rank: 0,
    }; SUIT_STATES];
    // The empty suit grows by its nine (recorded as "down").
    table[0].down = 1 + 6 * NINE;
    table[0].down_rank = NINE;
    let mut lo = 0;
    while lo <= NINE {
        let mut hi = NINE;
        while hi < RANKS {
            let c = (1 + 6 * lo + (hi - NINE)) as usize;
            if lo > 0 {
                table[c].down = 1 + 6 * (lo - 1) + (hi - NINE);
                table[c].down_rank = lo - 1;
            }
            if hi + 1 < RANKS {
                table[c].up = 1 + 6 * lo + (hi + 1 - NINE);
                table[c].up_rank = hi + 1;
            }
            hi += 1;
        }
        lo += 1;
    }
    table
};

const PLACE: [u32; 4] = [1, 25, 625, 15625];

impl Solver {
    /// A solver with an empty table.
    pub fn new() -> Solver {
        Solver {
            bounds: vec![WIDEST; POSITIONS * 2],
            alice: 0,
            loaded: false,
            evaluated: 0,
        }
    }

    fn load(&mut self, deal: &Deal) {
        if !self.loaded || self.alice != deal.alice_mask() {
            self.bounds.fill(WIDEST);
            self.alice = deal.alice_mask();
            self.loaded = true;
            self.evaluated = 0;
        }
    }

    /// The signed result of `deal` under optimal play when `first` moves first.
    pub fn result(&mut self, deal: &Deal, first: Player) -> i8 {
        self.load(deal);
        self.search(0, 0, 0, first, WIDEST.0, WIDEST.1)
    }

    /// The importance of the first move: `|result(Alice first) − result(Bob first)|`.
    pub fn importance(&mut self, deal: &Deal) -> u32 {
        let a = self.result(deal, Player::Alice);
        let b = self.result(deal, Player::Bob);
        (i32::from(a) - i32::from(b)).unsigned_abs()
    }

    /// Positions searched so far for the current deal.
    pub fn evaluated(&self) -> u64 {
        self.evaluated
    }

    /// The cards the player holding `hand` (of the deal, `own`) may put down; `codes` holds
    /// the four suit codes, one per byte.
    fn steps(key: u32, codes: u32, hand: u64, own: u64, out: &mut [Step; 8]) -> usize {
        let mut n = 0;
        for suit in 0..4u8 {
            let shift = 8 * u32::from(suit);
            let c = (codes >> shift) & 0xff;
            let g = GROWTH[c as usize];
            for (next, rank) in [(g.down, g.down_rank), (g.up, g.up_rank)] {
                if next == NONE {
                    continue;
                }
                let card = suit * RANKS + rank;
                if hand & (1 << card) == 0 {
                    continue;
                }
                let place = PLACE[usize::from(suit)];
                out[n] = Step {
                    card,
                    key: key - c * place + u32::from(next) * place,
                    codes: codes & !(0xff << shift) | u32::from(next) << shift,
                    order: opens(card, own),
                };
                n += 1;
            }
        }
        // Insertion sort, most promising first.
        for i in 1..n {
            let mut j = i;
            while j > 0 && out[j - 1].order < out[j].order {
                out.swap(j - 1, j);
                j -= 1;
            }
        }
        n
    }

    fn hands(&self, table: u64) -> (u64, u64) {
        let all = (1u64 << CARDS) - 1;
        (self.alice & !table, all & !self.alice & !table)
    }

    /// The value of the position `key` (suit codes `codes`, cards `table` down) with `mover` to
    /// move: exact when it lies strictly inside `(alpha, beta)`, otherwise a bound on the side
    /// it falls.
    fn search(
        &mut self,
        key: u32,
        codes: u32,
        table: u64,
        mover: Player,
        alpha: i8,
        beta: i8,
    ) -> i8 {
        let slot = key as usize * 2 + mover as usize;
        let (alice, bob) = self.hands(table);
        let (mut lo, mut hi) = self.bounds[slot];
        lo = lo.max(-(alice.count_ones() as i8));
        hi = hi.min(bob.count_ones() as i8);
        if lo == hi || lo >= beta {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        self.evaluated += 1;
        let (alpha, beta) = (alpha.max(lo), beta.min(hi));
        let (hand, other, own) = match mover {
            Player::Alice => (alice, bob, self.alice),
            Player::Bob => (bob, alice, !self.alice),
        };
        let mut steps = [Step::default(); 8];
        let n = Self::steps(key, codes, hand, own, &mut steps);
        if let Some(v) = self.transposition_cutoff(&steps[..n], mover.other(), alpha, beta) {
            return v;
        }
        let v = if n == 0 {
            self.search(key, codes, table, mover.other(), alpha, beta)
        } else if hand.count_ones() == 1 {
            mover.sign() * other.count_ones() as i8
        } else {
            self.best_of(&steps[..n], table, mover, alpha, beta)
        };
        let entry = &mut self.bounds[slot];
        if v <= alpha {
            entry.1 = entry.1.min(v);
        } else if v >= beta {
            entry.0 = entry.0.max(v);
        } else {
            *entry = (v, v);
        }
        v
    }

    /// A child whose stored bounds already refute the window (enhanced transposition cutoff).
    fn transposition_cutoff(
        &self,
        steps: &[Step],
        next: Player,
        alpha: i8,
        beta: i8,
    ) -> Option<i8> {
        steps.iter().find_map(|s| {
            let (lo, hi) = self.bounds[s.key as usize * 2 + next as usize];
            match next {
                Player::Bob if lo >= beta => Some(lo),
                Player::Alice if hi <= alpha => Some(hi),
                _ => None,
            }
        })
    }

    /// Alpha-beta over the mover's cards (already in order).
    fn best_of(&mut self, steps: &[Step], table: u64, mover: Player, alpha: i8, beta: i8) -> i8 {
        let (mut alpha, mut beta) = (alpha, beta);
        let mut best = if mover == Player::Alice {
            i8::MIN
        } else {
            i8::MAX
        };
        for step in steps {
            let table = table | 1 << step.card;
            let v = self.search(step.key, step.codes, table, mover.other(), alpha, beta);
            if mover == Player::Alice {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The value of the position with cards `table` down and `mover` to move.
    pub(crate) fn value_at(&mut self, deal: &Deal, table: u64, mover: Player) -> i8 {
        self.load(deal);
        let (key, codes) = position_of(table);
        self.search(key, codes, table, mover, WIDEST.0, WIDEST.1)
    }

    /// The cards (indices) that are optimal for the player to move at `table`; empty when he
    /// must pass.
    pub(crate) fn best_cards(&mut self, deal: &Deal, table: u64, mover: Player) -> Vec<u8> {
        self.load(deal);
        let (key, codes) = position_of(table);
        let target = self.search(key, codes, table, mover, WIDEST.0, WIDEST.1);
        let (alice, bob) = self.hands(table);
        let (hand, other, own) = match mover {
            Player::Alice => (alice, bob, self.alice),
            Player::Bob => (bob, alice, !self.alice),
        };
        let mut steps = [Step::default(); 8];
        let n = Self::steps(key, codes, hand, own, &mut steps);
        let mut best = Vec::new();
        for step in &steps[..n] {
            let v = if hand.count_ones() == 1 {
                mover.sign() * other.count_ones() as i8
            } else {
                let table = table | 1 << step.card;
                self.search(
                    step.key,
                    step.codes,
                    table,
                    mover.other(),
                    WIDEST.0,
                    WIDEST.1,
                )
            };
            if v == target {
                best.push(step.card);
            }
        }
        best.sort_unstable();
        best
    }
}

/// What putting `card` down opens: `1` when the next card outwards from the nine is the
/// mover's (`own` is his mask of the deal), `−1` when it is his opponent's, `0` at the end of the
/// suit. A nine opens both neighbours.
fn opens(card: u8, own: u64) -> i8 {
    let rank = card % RANKS;
    let side = |next: u8| if own & 1 << next != 0 { 1 } else { -1 };
    let mut score = 0;
    if rank <= NINE && rank > 0 {
        score += side(card - 1);
    }
    if rank >= NINE && rank + 1 < RANKS {
        score += side(card + 1);
    }
    score
}

/// The solver's key and suit codes of a table (cards down as a bit mask). The table must be
/// runs through the nines, as every table of a legal game is.
pub(crate) fn position_of(table: u64) -> (u32, u32) {
    let (mut key, mut codes) = (0, 0);
    for (suit, place) in PLACE.iter().enumerate() {
        let bits = (table >> (suit * usize::from(RANKS))) & 0x1ff;
        let run = (bits != 0).then(|| Run {
            lo: bits.trailing_zeros() as u8,
            hi: 63 - bits.leading_zeros() as u8,
        });
        key += code(run) * place;
        codes |= code(run) << (8 * suit);
    }
    (key, codes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(code: u32) -> Option<Run> {
        (code > 0).then(|| Run {
            lo: ((code - 1) / 6) as u8,
            hi: ((code - 1) % 6) as u8 + NINE,
        })
    }

    #[test]
    fn suit_codes_round_trip() {
        assert_eq!(decode(0), None);
        for lo in 0..=NINE {
            for hi in NINE..RANKS {
                let run = Some(Run { lo, hi });
                assert_eq!(decode(code(run)), run);
                assert!(code(run) < SUIT_STATES as u32);
            }
        }
    }

    #[test]
    fn position_of_a_table_matches_the_runs() {
        // Clubs 8..T and the nine of diamonds on the table.
        let table = 0b111 << 2 | 1 << (9 + 3);
        let clubs = code(Some(Run { lo: 2, hi: 4 }));
        let diamonds = code(Some(Run { lo: 3, hi: 3 }));
        assert_eq!(
            position_of(table),
            (clubs + 25 * diamonds, clubs | diamonds << 8)
        );
    }

    #[test]
    fn growth_table_matches_the_codes() {
        for c in 1..SUIT_STATES as u32 {
            let Some(Run { lo, hi }) = decode(c) else {
                continue;
            };
            let g = GROWTH[c as usize];
            if lo > 0 {
                assert_eq!(decode(u32::from(g.down)), Some(Run { lo: lo - 1, hi }));
            }
            if hi + 1 < RANKS {
                assert_eq!(decode(u32::from(g.up)), Some(Run { lo, hi: hi + 1 }));
            }
        }
        assert_eq!(
            decode(u32::from(GROWTH[0].down)),
            Some(Run { lo: NINE, hi: NINE })
        );
    }
}
