//! The importance of the first move: deals with distinct importances, the checker of the
//! problem's output, and a search for the achievable values.
//!
//! Random deals mostly have importance 0 (about four in five: the first move does not matter),
//! and large importances are rare, so deals are found by a local search: from a random deal,
//! exchange one of Alice's cards with one of Bob's, keep the exchange when the importance does
//! not drop (or, with a small probability, even when it does), and note every importance seen.
//! Every deal the search reports was solved exactly; the checker solves it again.

use std::collections::BTreeMap;

use rand::Rng;
use rand::RngCore;
use serde::Serialize;

use super::{Deal, DealError, Player, Solver, CARDS};

/// A deal with its two results and its importance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// The deal.
    #[serde(serialize_with = "lines")]
    pub deal: Deal,
    /// Result with Alice moving first.
    pub alice_first: i8,
    /// Result with Bob moving first.
    pub bob_first: i8,
    /// `|alice_first − bob_first|`.
    pub importance: u32,
}

fn lines<S: serde::Serializer>(deal: &Deal, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(deal.to_lines())
}

impl Found {
    /// Solves `deal`.
    pub fn solve(solver: &mut Solver, deal: Deal) -> Found {
        let alice_first = solver.result(&deal, Player::Alice);
        let bob_first = solver.result(&deal, Player::Bob);
        Found {
            deal,
            alice_first,
            bob_first,
            importance: (i32::from(alice_first) - i32::from(bob_first)).unsigned_abs(),
        }
    }
}

/// No importance exceeds this: a result lies in −18..=−1 or 1..=18 (never 0, someone empties his
/// hand first), so two results are at most 36 apart.
pub const MAX_IMPORTANCE: u32 = 36;

/// Why [`distinct_importances`] found no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// More distinct importances were asked for than there are values `0..=36`.
    #[error(
        "{wanted} distinct importances cannot exist: every importance is in 0..={MAX_IMPORTANCE}"
    )]
    Impossible {
        /// Wanted.
        wanted: usize,
    },
    /// The search ran out of evaluations.
    #[error(
        "found only {found} distinct importances in {evaluations} solved deals, {wanted} wanted"
    )]
    Exhausted {
        /// Distinct importances found.
        found: usize,
        /// Wanted.
        wanted: usize,
        /// Deals solved.
        evaluations: u64,
    },
}

/// A local search over deals; every deal it solves is offered to `seen`.
struct Climb<'a> {
    solver: Solver,
    rng: &'a mut dyn RngCore,
    evaluations: u64,
}

impl Climb<'_> {
    fn solve(&mut self, deal: Deal) -> Found {
        self.evaluations += 1;
        Found::solve(&mut self.solver, deal)
    }

    /// One of Alice's cards exchanged with one of Bob's.
    fn neighbour(&mut self, deal: &Deal) -> Deal {
        let alice = deal.alice_mask();
        let pick = |rng: &mut dyn RngCore, mask: u64| -> u64 {
            let k = rng.gen_range(0..mask.count_ones());
            let mut m = mask;
            for _ in 0..k {
                m &= m - 1;
            }
            m & m.wrapping_neg()
        };
        let a = pick(self.rng, alice);
        let b = pick(self.rng, !alice & ((1 << CARDS) - 1));
        Deal::from_mask(alice ^ a ^ b).unwrap_or(*deal)
    }

    /// Climbs from a random deal for `steps` exchanges, towards larger importances, and returns
    /// the best deal met. `seen` gets every solved deal.
    fn run(&mut self, steps: u64, seen: &mut dyn FnMut(&Found)) -> Found {
        let start = Deal::random(self.rng);
        let mut here = self.solve(start);
        seen(&here);
        let mut best = here;
        for _ in 0..steps {
            let deal = self.neighbour(&here.deal);
            let next = self.solve(deal);
            seen(&next);
            let worse = next.importance < here.importance;
            if !worse || self.rng.gen_bool(0.05) {
                here = next;
            }
            if here.importance > best.importance {
                best = here;
            }
        }
        best
    }
}

/// `k` deals with pairwise distinct importances (the smallest found of each value), sorted by
/// importance, found by a seeded local search that solves at most `budget` deals.
pub fn distinct_importances(
    k: usize,
    budget: u64,
    rng: &mut dyn RngCore,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<Found>, SearchError> {
    if k > MAX_IMPORTANCE as usize + 1 {
        return Err(SearchError::Impossible { wanted: k });
    }
    let mut found: BTreeMap<u32, Found> = BTreeMap::new();
    found.insert(0, Found::solve(&mut Solver::new(), nines_to_alice()));
    let mut climb = Climb {
        solver: Solver::new(),
        rng,
        evaluations: 1,
    };
    while found.len() < k && climb.evaluations < budget {
        let steps = 200.min(budget - climb.evaluations);
        climb.run(steps, &mut |f| {
            if let std::collections::btree_map::Entry::Vacant(slot) = found.entry(f.importance) {
                slot.insert(*f);
                progress(found.len());
            }
        });
    }
    if found.len() < k {
        return Err(SearchError::Exhausted {
            found: found.len(),
            wanted: k,
            evaluations: climb.evaluations,
        });
    }
    Ok(found.into_values().take(k).collect())
}

/// The deal of the problem's first note: every nine in Alice's hand (importance 0: if Bob
/// moves first he must pass, and the game is the one where Alice moves first). The rest is
/// dealt in pack order: Alice gets the nines and the next fourteen cards that are not nines.
pub fn nines_to_alice() -> Deal {
    let nines: u64 = (0..4).map(|s| 1u64 << (s * 9 + 3)).sum();
    let mut mask = nines;
    for i in 0..CARDS {
        if mask.count_ones() == 18 {
            break;
        }
        mask |= 1 << i;
    }
    Deal::from_mask(mask).unwrap_or(Deal {
        alice: nines | 0x3fff,
    })
}

/// What the search for achievable importances found.
#[derive(Clone, Debug, Serialize)]
pub struct Exploration {
    /// The first deal found of each importance.
    pub values: BTreeMap<u32, Found>,
    /// Deals solved.
    pub evaluations: u64,
    /// Climbs (restarts from a random deal).
    pub climbs: u64,
}

impl Exploration {
    /// The largest importance found.
    pub fn max(&self) -> Option<&Found> {
        self.values.values().next_back()
    }

    /// Importances between 0 and the largest found that were never met.
    pub fn gaps(&self) -> Vec<u32> {
        let top = self.max().map_or(0, |f| f.importance);
        (0..=top).filter(|v| !self.values.contains_key(v)).collect()
    }
}

/// Climbs towards large importances, `climbs` times `steps` exchanges, noting the first deal of
/// every importance met; `progress(evaluations, largest)` is called after each climb.
pub fn explore(
    climbs: u64,
    steps: u64,
    rng: &mut dyn RngCore,
    progress: &mut dyn FnMut(u64, u32),
) -> Exploration {
    let mut values: BTreeMap<u32, Found> = BTreeMap::new();
    let mut climb = Climb {
        solver: Solver::new(),
        rng,
        evaluations: 0,
    };
    for _ in 0..climbs {
        climb.run(steps, &mut |f| {
            values.entry(f.importance).or_insert(*f);
        });
        let top = values.keys().next_back().copied().unwrap_or(0);
        progress(climb.evaluations, top);
    }
    Exploration {
        values,
        evaluations: climb.evaluations,
        climbs,
    }
}

/// The problem's output format: for each deal, Alice's line and Bob's line.
pub fn format_output(deals: &[Found]) -> String {
    let mut out = String::new();
    for f in deals {
        let [a, b] = f.deal.to_lines();
        out.push_str(&a);
        out.push('\n');
        out.push_str(&b);
        out.push('\n');
    }
    out
}

/// What the checker found wrong with an output.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckError {
    /// The output is larger than any answer for `k ≤ 1000`.
    #[error("the output has more than {0} bytes")]
    TooLong(usize),
    /// Not `2k` non-empty lines.
    #[error("expected {expected} lines (two per deal), found {found}")]
    LineCount {
        /// `2k`.
        expected: usize,
        /// Non-empty lines found.
        found: usize,
    },
    /// A token is not a two-character card.
    #[error("line {line}: `{token}` is not written as two characters")]
    Token {
        /// 1-based line.
        line: usize,
        /// The token.
        token: String,
    },
    /// A pair of lines is not a deal.
    #[error("deal on lines {line}–{}: {error}", line + 1)]
    Deal {
        /// 1-based line of Alice's hand.
        line: usize,
        /// What is wrong.
        error: DealError,
    },
    /// Two deals share an importance.
    #[error("deals {first} and {second} both have importance {importance}")]
    Repeated {
        /// The shared importance.
        importance: u32,
        /// 1-based index of the first deal.
        first: usize,
        /// 1-based index of the second.
        second: usize,
    },
}

/// An output that passed the checker: each deal's results and importance.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    /// The deals in order.
    pub deals: Vec<Found>,
}

/// Most bytes the checker reads.
pub const MAX_OUTPUT: usize = 1 << 20;

/// Checks an answer to the problem for `k`: exactly `k` pairs of lines, each a deal of the 36
/// cards in the two-character format, and the importances pairwise distinct.
pub fn check_output(text: &str, k: usize) -> Result<Checked, CheckError> {
    if text.len() > MAX_OUTPUT {
        return Err(CheckError::TooLong(MAX_OUTPUT));
    }
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
        .collect();
    if lines.len() != 2 * k {
        return Err(CheckError::LineCount {
            expected: 2 * k,
            found: lines.len(),
        });
    }
    for &(line, text) in &lines {
        if let Some(token) = text.split_whitespace().find(|t| t.len() != 2) {
            let token = token.chars().take(16).collect();
            return Err(CheckError::Token { line, token });
        }
    }
    let mut solver = Solver::new();
    let mut deals = Vec::with_capacity(k);
    let mut by_importance: BTreeMap<u32, usize> = BTreeMap::new();
    for (index, pair) in lines.chunks(2).enumerate() {
        let (line, alice) = pair[0];
        let deal =
            Deal::parse(alice, pair[1].1).map_err(|error| CheckError::Deal { line, error })?;
        let found = Found::solve(&mut solver, deal);
        if let Some(&first) = by_importance.get(&found.importance) {
            return Err(CheckError::Repeated {
                importance: found.importance,
                first,
                second: index + 1,
            });
        }
        by_importance.insert(found.importance, index + 1);
        deals.push(found);
    }
    Ok(Checked { deals })
}
