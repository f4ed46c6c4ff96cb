//! The solver's summary of a whole game: the retrograde labels of every reachable position,
//! counted.
//!
//! For a `(p, r)` game, [`Summary::of`] explores the graph from the start, labels it with
//! [`Solution::retrograde`] and counts, over the reachable positions that are not over, those
//! where the player to move can force a win, those where another player can (with two players:
//! the mover loses), and those nobody can force (draws), with the longest forced win and the
//! value of the start. These are the rows of the solver's tables in `docs/games.md`.
//!
//! [`Summary::by_sweeps`] computes the same counts without the graph, for games too large to
//! hold one (four players with rollover 12: 36.5 million reachable positions): the reachable
//! set comes from a bitset over the dense numbering of [`Indexer`], the labels are one byte per
//! position and seat, and they are found by sweeps rather than backwards from the ends — sweep
//! `k` labels every position where a player can force a win in exactly `k` moves (the mover:
//! some move reaches a position he forces in fewer; another player: every move does), until a
//! sweep labels nothing. That is the fixpoint the retrograde analysis reaches, in memory
//! proportional to the positions, at the price of one move generation per position per sweep.

use serde::Serialize;

use super::index::{Indexer, TooLarge};
use super::rules::{Rules, Status};
use super::solve::{Graph, GraphError, Solution};

/// Why [`Summary::by_sweeps`] gave no summary.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SweepError {
    /// The positions cannot be numbered, or their labels would not fit in memory.
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
    /// Some forced win is longer than a label can say (254 moves).
    #[error("a forced win longer than {0} moves: beyond the labels of the sweeps")]
    TooDeep(u32),
}

/// The retrograde solution of one game, counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Players.
    pub players: u8,
    /// Rollover.
    pub rollover: u8,
    /// Positions reachable from the start, the start and the ends included.
    pub reachable: usize,
    /// Reachable positions where the game is over.
    pub ends: usize,
    /// Positions not over where the player to move can force a win.
    pub mover_wins: usize,
    /// Positions not over where another player can force a win against all the others.
    pub other_wins: usize,
    /// Positions not over where nobody can force a win: best play goes on for ever.
    pub nobody: usize,
    /// The longest forced win over all positions, in moves (0 when there is none).
    pub longest_win: u32,
    /// At the start: the seat (from the first player) who can force a win, and in how many
    /// moves; `None` when nobody can.
    pub start: Option<(usize, u32)>,
}

impl Summary {
    /// Solves the game of `rules` from its start (at most `limit` positions).
    pub fn of(rules: &Rules, limit: usize) -> Result<Summary, GraphError> {
        let graph = Graph::from_start(rules, limit)?;
        let solution = Solution::retrograde(&graph);
        Ok(Summary::count(&graph, &solution))
    }

    /// Counts the labels of a solved graph.
    pub fn count(graph: &Graph, solution: &Solution) -> Summary {
        let mut summary = Summary {
            players: graph.rules.players,
            rollover: graph.rules.rollover,
            reachable: graph.len(),
            ends: 0,
            mover_wins: 0,
            other_wins: 0,
            nobody: 0,
            longest_win: 0,
            start: solution.winner(0),
        };
        for id in 0..graph.len() as u32 {
            if graph.status(id) != Status::Ongoing {
                summary.ends += 1;
                continue;
            }
            match solution.winner(id) {
                Some((0, d)) => {
                    summary.mover_wins += 1;
                    summary.longest_win = summary.longest_win.max(d);
                }
                Some((_, d)) => {
                    summary.other_wins += 1;
                    summary.longest_win = summary.longest_win.max(d);
                }
                None => summary.nobody += 1,
            }
        }
        summary
    }

    /// The same counts as [`Summary::of`], by sweeps over the dense numbering of positions
    /// (see the module docs); `progress(sweep)` is called after every sweep. Refuses games
    /// whose numbering exceeds 2³² positions (16 GB of labels for four players).
    pub fn by_sweeps(rules: &Rules, progress: &mut dyn FnMut(u32)) -> Result<Summary, SweepError> {
        let ix = Indexer::new(rules)?;
        let space = usize::try_from(ix.space())
            .ok()
            .filter(|&n| n <= 1 << 32)
            .ok_or(TooLarge {
                players: rules.players,
                hands: rules.hands,
                rollover: rules.rollover,
            })?;
        let p = usize::from(rules.players);
        let (reachable, ongoing) = reachable_set(rules, &ix, space);
        // `label[i * p + s]`: 0 unknown, `d + 1` when seat `s` of position `i` forces a win in `d`.
        let mut label = vec![0u8; space * p];
        let mut summary = Summary {
            players: rules.players,
            rollover: rules.rollover,
            reachable: reachable.len(),
            ends: reachable.len() - ongoing.len(),
            mover_wins: 0,
            other_wins: 0,
            nobody: 0,
            longest_win: 0,
            start: None,
        };
        for &i in &reachable {
            if let Status::Won(w) = rules.status(&ix.position(i)) {
                label[i as usize * p + w] = 1;
            }
        }
        let mut unlabelled = ongoing;
        let deepest = u32::from(u8::MAX) - 1;
        for sweep in 1.. {
            let before = unlabelled.len();
            unlabelled.retain(|&i| !sweep_one(rules, &ix, &mut label, i, sweep));
            progress(sweep);
            if unlabelled.len() == before {
                break;
            }
            if sweep == deepest {
                return Err(SweepError::TooDeep(deepest));
            }
            summary.longest_win = sweep;
        }
        summary.nobody = unlabelled.len();
        for &i in &reachable {
            let row = &label[i as usize * p..(i as usize + 1) * p];
            match row.iter().position(|&l| l > 0) {
                Some(0) if summary_ongoing(rules, &ix, i) => summary.mover_wins += 1,
                Some(_) if summary_ongoing(rules, &ix, i) => summary.other_wins += 1,
                _ => {}
            }
        }
        let start = ix.index(&rules.start()) as usize;
        summary.start = label[start * p..(start + 1) * p]
            .iter()
            .position(|&l| l > 0)
            .map(|s| (s, u32::from(label[start * p + s]) - 1));
        Ok(summary)
    }

    /// The start's value in words: `draw`, or who forces a win and in how many moves.
    pub fn start_in_words(&self) -> String {
        match self.start {
            None => "nobody can force a win".into(),
            Some((0, d)) if self.players == 2 => format!("first player wins in {d}"),
            Some((_, d)) if self.players == 2 => format!("second player wins in {d}"),
            Some((s, d)) => format!("player {} wins in {d}", s + 1),
        }
    }
}

/// Whether position `i` is not over.
fn summary_ongoing(rules: &Rules, ix: &Indexer, i: u64) -> bool {
    rules.status(&ix.position(i)) == Status::Ongoing
}

/// The reachable positions (depth first from the start), and those of them not over.
fn reachable_set(rules: &Rules, ix: &Indexer, space: usize) -> (Vec<u64>, Vec<u64>) {
    let mut seen = vec![0u64; space.div_ceil(64)];
    let mut mark = |i: u64| {
        let (w, b) = ((i / 64) as usize, i % 64);
        let new = seen[w] & (1 << b) == 0;
        seen[w] |= 1 << b;
        new
    };
    let start = ix.index(&rules.start());
    mark(start);
    let (mut stack, mut all, mut ongoing) = (vec![start], Vec::new(), Vec::new());
    while let Some(i) = stack.pop() {
        all.push(i);
        let pos = ix.position(i);
        if rules.status(&pos) != Status::Ongoing {
            continue;
        }
        ongoing.push(i);
        rules.for_each_move(&pos, |_, child, _| {
            let c = ix.index(&child);
            if mark(c) {
                stack.push(c);
            }
        });
    }
    (all, ongoing)
}

/// Sweep `k` at position `i`: labels the seat that forces a win in exactly `k` moves, if any
/// (the mover: some child where he forces a win in fewer; another seat: every child, at least
/// one). Returns whether it labelled one.
fn sweep_one(rules: &Rules, ix: &Indexer, label: &mut [u8], i: u64, k: u32) -> bool {
    let p = usize::from(rules.players);
    let mut mover = false;
    let mut every = vec![true; p];
    let mut children = 0;
    rules.for_each_move(&ix.position(i), |_, child, shift| {
        children += 1;
        let c = ix.index(&child) as usize;
        for (s, all) in every.iter_mut().enumerate() {
            // Seat `s` here is seat `s − shift` at the child.
            let at_child = (s + p - usize::from(shift) % p) % p;
            let l = u32::from(label[c * p + at_child]);
            let forced = l > 0 && l <= k;
            if s == 0 {
                mover |= forced;
            } else {
                *all &= forced;
            }
        }
    });
    let seat = if mover {
        Some(0)
    } else if children > 0 {
        (1..p).find(|&s| every[s])
    } else {
        None
    };
    match seat {
        Some(s) => {
            label[i as usize * p + s] = (k + 1) as u8;
            true
        }
        None => false,
    }
}
