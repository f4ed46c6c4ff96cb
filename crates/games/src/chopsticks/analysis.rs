//! The computations behind the seed's Chopsticks claims: move types, successors, unreachable
//! positions, predecessors, one-move lookahead, the cutoff strategy, the one-handed game.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde::Serialize;

use super::index::Indexer;
use super::rules::{Move, Position, Rules, Status};
use super::solve::{Graph, Solution, Value};

/// Reachable positions of ordinary two-player games stay far below this.
const LIMIT: usize = 1 << 22;

/// Every position of the rules' space (all combinations of sorted hands).
pub fn all_positions(rules: &Rules) -> Vec<Position> {
    let Ok(ix) = Indexer::new(rules) else {
        return Vec::new();
    };
    (0..ix.space()).map(|i| ix.position(i)).collect()
}

/// The distinct kinds of move of two-hand rules over every position, in the seed's notation:
/// attacks by the roles of the hands (`AC` = the mover's smaller hand on the opponent's
/// smaller), splits as `from–to` pairs, grouped by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MoveTypes {
    /// Attack roles, e.g. `AC`.
    pub attacks: BTreeSet<String>,
    /// Splits by kind (`transfer`, `division`, `suicide`, `meta`, `meta-suicide`, `halves`).
    pub splits: BTreeMap<&'static str, BTreeSet<String>>,
}

impl MoveTypes {
    /// How many kinds of move there are in all.
    pub fn total(&self) -> usize {
        self.attacks.len() + self.splits.values().map(BTreeSet::len).sum::<usize>()
    }

    /// The splits of one kind.
    pub fn of(&self, kind: &str) -> usize {
        self.splits.get(kind).map_or(0, BTreeSet::len)
    }
}

fn pair(h: &[u8]) -> String {
    h.iter()
        .filter_map(|&v| char::from_digit(u32::from(v), 36))
        .collect()
}

/// Collects the move kinds of `rules` (two players, two hands) over every position where the
/// game goes on.
pub fn move_types(rules: &Rules) -> MoveTypes {
    let mut out = MoveTypes::default();
    for pos in all_positions(rules) {
        if rules.status(&pos) != Status::Ongoing {
            continue;
        }
        let me = pos.hands_of(0);
        let them = pos.hands_of(1);
        for (mv, _) in rules.moves(&pos) {
            match mv {
                Move::Attack { from, to, .. } => {
                    for (i, _) in me.iter().enumerate().filter(|(_, &v)| v == from) {
                        for (j, _) in them.iter().enumerate().filter(|(_, &v)| v == to) {
                            let role = format!("{}{}", ['A', 'B'][i], ['C', 'D'][j]);
                            out.attacks.insert(role);
                        }
                    }
                }
                Move::Split { hands } => {
                    let to = &hands[..me.len()];
                    let kind = split_kind(me, to);
                    let name = format!("{}–{}", pair(me), pair(to));
                    out.splits.entry(kind).or_default().insert(name);
                }
                Move::Swap | Move::Flip { .. } | Move::Pass => {}
            }
        }
    }
    out
}

fn split_kind(from: &[u8], to: &[u8]) -> &'static str {
    let total = |h: &[u8]| h.iter().map(|&v| u32::from(v)).sum::<u32>();
    let dead_before = from.contains(&0);
    let dead_after = to.contains(&0);
    if total(to) < total(from) {
        return if dead_after { "meta-suicide" } else { "meta" };
    }
    match (dead_before, dead_after) {
        (false, true) => "suicide",
        (true, _) => "division",
        (false, false) => "transfer",
    }
}

/// The most distinct moves legal in one turn over the positions of `graph`, and a position
/// where that many are legal.
pub fn most_moves_in_a_turn(graph: &Graph) -> (usize, Position) {
    let rules = graph.rules;
    graph
        .positions
        .iter()
        .map(|p| (rules.moves(p).len(), *p))
        .max_by_key(|&(n, p)| (n, core::cmp::Reverse(p.code())))
        .unwrap_or((0, rules.start()))
}

/// The codes of the positions one move on from `code`, sorted.
pub fn successor_codes(rules: &Rules, code: &str) -> Result<Vec<String>, super::rules::RulesError> {
    let pos = rules.parse_position(code)?;
    let set: BTreeSet<String> = rules.moves(&pos).iter().map(|(_, p)| p.code()).collect();
    Ok(set.into_iter().collect())
}

/// Positions of the space that no game from the start reaches, by code.
pub fn unreachable(rules: &Rules, graph: &Graph) -> Vec<String> {
    let mut out: Vec<String> = all_positions(rules)
        .into_iter()
        .filter(|p| graph.id(p).is_none())
        .map(|p| p.code())
        .collect();
    out.sort();
    out
}

/// The positions of the whole space with a move to `target`, by code.
pub fn predecessors(rules: &Rules, target: &Position) -> Vec<String> {
    let mut out: Vec<String> = all_positions(rules)
        .into_iter()
        .filter(|p| rules.moves(p).iter().any(|(_, q)| q == target))
        .map(|p| p.code())
        .collect();
    out.sort();
    out
}

/// The solved graph of `rules` from the start.
pub fn solved(rules: &Rules) -> Result<(Graph, Solution), super::solve::GraphError> {
    let graph = Graph::from_start(rules, LIMIT)?;
    let solution = Solution::retrograde(&graph);
    Ok((graph, solution))
}

/// Whether a player who looks one move ahead — never making a move after which his opponent
/// can win at once — always has such a move, whatever his opponent does; checked for the
/// first and the second player. A position where he has none is returned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Lookahead {
    /// The first player never runs out of safe moves.
    pub first_safe: bool,
    /// The second player never runs out of safe moves.
    pub second_safe: bool,
    /// A position where the looking-ahead player had no safe move.
    pub trap: Option<String>,
}

/// Checks one-move lookahead in a two-player game.
pub fn one_move_lookahead(graph: &Graph, solution: &Solution) -> Lookahead {
    let safe = |child: u32| solution.value(child) != Value::Win(1);
    let mut trap = None;
    let mut check = |first: bool| -> bool {
        let mut seen: HashSet<(u32, bool)> = HashSet::new();
        let mut stack = vec![(0u32, first)];
        while let Some((id, mine)) = stack.pop() {
            if !seen.insert((id, mine)) || graph.status(id) != Status::Ongoing {
                continue;
            }
            let children: Vec<u32> = graph.successors(id).iter().map(|&(c, _)| c).collect();
            let next: Vec<u32> = if mine {
                children.into_iter().filter(|&c| safe(c)).collect()
            } else {
                children
            };
            if mine && next.is_empty() {
                trap.get_or_insert_with(|| graph.positions[id as usize].code());
                return false;
            }
            stack.extend(next.into_iter().map(|c| (c, !mine)));
        }
        true
    };
    let first_safe = check(true);
    let second_safe = check(false);
    Lookahead {
        first_safe,
        second_safe,
        trap,
    }
}

/// The fewest moves of lookahead that keep either player from losing: avoiding every position
/// from which the opponent can force a win within that many moves.
pub fn lookahead_needed(graph: &Graph, solution: &Solution) -> Option<u32> {
    (1..64).find(|&k| {
        [true, false].into_iter().all(|first| {
            let safe = |c: u32| !matches!(solution.value(c), Value::Win(d) if d <= k);
            let mut seen = std::collections::HashSet::new();
            let mut stack = vec![(0u32, first)];
            while let Some((id, mine)) = stack.pop() {
                if !seen.insert((id, mine)) || graph.status(id) != Status::Ongoing {
                    continue;
                }
                let next: Vec<u32> = graph
                    .successors(id)
                    .iter()
                    .map(|&(c, _)| c)
                    .filter(|&c| !mine || safe(c))
                    .collect();
                if mine && next.is_empty() {
                    return false;
                }
                stack.extend(next.into_iter().map(|c| (c, !mine)));
            }
            true
        })
    })
}

/// Whether a strategy of the seed's kind wins for the first player: after each of his moves
/// the hands at one seat are fixed (the seed's cutoff strategy: `[1211]`, then `[ab12]`),
/// except the forced first move, and he wins at once when he can. `strong`: every such choice
/// wins; `weak`: some choice wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StrategyCheck {
    /// Some choice of strategy moves forces a win.
    pub weak: bool,
    /// Every choice of strategy moves forces a win.
    pub strong: bool,
}

/// Checks a strategy in which the first player, at each turn, either wins at once or moves to a
/// position where the hands at `seat` (0: his opponent, now to move; 1: his own) are `target`
/// (the start's only move excepted).
pub fn check_strategy(graph: &Graph, seat: usize, target: &[u8]) -> StrategyCheck {
    StrategyCheck {
        weak: strategy_wins(graph, seat, target, false),
        strong: strategy_wins(graph, seat, target, true),
    }
}

fn strategy_wins(graph: &Graph, seat: usize, target: &[u8], every: bool) -> bool {
    // States are (position, whether the first player is to move); a position code does not
    // say which player is which. `won[2·i + 1]`: the first player, to move at `i`, wins by the
    // strategy.
    let n = graph.len();
    let mut reachable = vec![false; 2 * n];
    let mut stack = vec![(0u32, true)];
    while let Some((id, mine)) = stack.pop() {
        let slot = 2 * id as usize + usize::from(mine);
        if std::mem::replace(&mut reachable[slot], true) {
            continue;
        }
        for &(c, _) in graph.successors(id) {
            stack.push((c, !mine));
        }
    }
    let options = |id: u32| -> Vec<u32> {
        let all = graph.successors(id).iter().map(|&(c, _)| c);
        if id == 0 {
            return all.collect();
        }
        all.filter(|&c| graph.positions[c as usize].hands_of(seat) == target)
            .collect()
    };
    let mut won = vec![false; n];
    loop {
        let mut changed = false;
        for id in 0..n as u32 {
            if won[id as usize] || !reachable[2 * id as usize + 1] {
                continue;
            }
            if graph.status(id) != Status::Ongoing {
                continue;
            }
            let wins_now = graph
                .successors(id)
                .iter()
                .any(|&(c, _)| graph.status(c) == Status::Won(1));
            let forces = |c: u32| {
                graph.status(c) == Status::Ongoing
                    && graph.successors(c).iter().all(|&(r, _)| won[r as usize])
            };
            let choices = options(id);
            let ok = wins_now
                || (!choices.is_empty()
                    && if every {
                        choices.iter().all(|&c| forces(c))
                    } else {
                        choices.iter().any(|&c| forces(c))
                    });
            if ok {
                won[id as usize] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    won[0]
}

/// The length of the one-handed two-player game with rollover `r` (each player has one hand and
/// one move, so the game is forced), played out by the engine; `None` if it never ends.
pub fn one_handed_length(r: u8) -> Option<u32> {
    let mut rules = Rules::pr(2, r);
    rules.hands = 1;
    let mut pos = rules.start();
    for plies in 0..10_000u32 {
        if rules.status(&pos) != Status::Ongoing {
            return Some(plies);
        }
        pos = rules.moves(&pos).first()?.1;
    }
    None
}

/// The Fibonacci reading of the one-handed game: after `k` moves the hands are
/// `(F(k+2), F(k+1)) mod r`, so it ends after `α(r) − 2` moves, where `α(r)` is the first `n`
/// with `r | F(n)`.
pub fn fibonacci_length(r: u8) -> Option<u32> {
    let r = u64::from(r);
    let (mut a, mut b) = (0u64, 1u64); // F(0), F(1)
    for n in 1..100_000u32 {
        (a, b) = (b, (a + b) % r);
        if a % r == 0 {
            return n.checked_sub(2);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fibonacci_and_the_engine_agree_on_small_rollovers() {
        for r in 2..=12 {
            assert_eq!(one_handed_length(r), fibonacci_length(r), "r = {r}");
        }
    }
}
