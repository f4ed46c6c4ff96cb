//! The solver's summary of a whole game: the retrograde labels of every reachable position,
//! counted.
//!
//! For a `(p, r)` game, [`Summary::of`] explores the graph from the start, labels it with
//! [`Solution::retrograde`] and counts, over the reachable positions that are not over, those
//! where the player to move can force a win, those where another player can (with two players:
//! the mover loses), and those nobody can force (draws), with the longest forced win and the
//! value of the start. These are the rows of the solver's tables in `docs/games.md`.

use serde::Serialize;

use super::rules::{Rules, Status};
use super::solve::{Graph, GraphError, Solution};

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
