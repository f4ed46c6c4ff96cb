//! Chopsticks, the hand game: the `(p, r)` game with the seed's variants, its exact solution and
//! its position counts.
//!
//! Each player shows fingers on two hands; a hand with no finger is dead. A move is an *attack*
//! (add the fingers of one of your live hands to a live hand of an opponent; with the official
//! rollover a hand reaching exactly `r` dies and over `r` loses `r`) or a *split* (redistribute
//! your own fingers: a *transfer* between two live hands, or a *division* reviving a dead hand;
//! the hands must change and none may reach `r`). A player with two dead hands is out; the last
//! player left wins. Positions are written as in the seed: each player's hands in ascending
//! order, the player to move first (`[1312]`).
//!
//! * [`rules`]: [`Rules`] (players, hands, rollover and every variant as a switch), positions and
//!   moves;
//! * [`solve`]: the reachable game graph and its retrograde [`Solution`] — win, loss or draw
//!   and the distance to the end for every position;
//! * [`summary`]: the solution counted — positions won by the mover, by another player, by
//!   nobody, the longest forced win and the value of the start;
//! * [`census`](mod@census): codes, distinct, reachable and end positions of any `(p, r)`;
//! * [`index`]: the dense numbering of positions the census uses.
//!
//! The game has no hidden information; here it is the exact-solver example, a game graph small
//! enough to see whole.

/// The rules in brief (this crate's words), for `facedown games rules chopsticks`.
pub const RULES: &str = "\
Chopsticks, the hand game: p players, each with two hands that start with one finger up.

Attack: add the fingers of one of your live hands to a live hand of an opponent. With the
  official rollover a hand reaching exactly 5 dies; over 5 it loses 5.
Split: move fingers between your own hands - a transfer between two live hands, or a division
  reviving a dead hand; the hands must change and none may reach 5.
A player with two dead hands is out; the last player left wins.
Positions are written [ABCD]: the mover's hands A <= B, then the other player's C <= D.
Variants (--rules): cutoff, misere, suicide, meta, swaps=N, logan, sudden-death, zombie,
  integers, self-attack, suns, transfers-only, divisions-only, halves, halves-odd, no-splits,
  hands=N, out-pass; --rollover R for the (p, r) game.
";

pub mod analysis;
pub mod census;
pub mod index;
pub mod rules;
pub mod solve;
pub mod summary;

pub use census::{census, Census};
pub use rules::{Move, Overflow, Position, Rules, Splits, Status};
pub use solve::{Graph, Solution, Value};
pub use summary::{Summary, SweepError};

use facedown_core::PartyId;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::game::{Bot, Game, SetupError};

/// A game of Chopsticks: the rules, where it starts, and a move limit after which it is a draw
/// (perfect play never ends, and nor may a game between bots).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The rules.
    pub rules: Rules,
    /// The start position code (the rules' start when `None`).
    pub start: Option<String>,
    /// Moves after which the game is drawn.
    pub move_limit: u32,
}

impl Setup {
    /// The rules from their start, drawn after `move_limit` moves.
    pub fn new(rules: Rules, move_limit: u32) -> Setup {
        Setup {
            rules,
            start: None,
            move_limit,
        }
    }
}

/// A game in progress.
#[derive(Clone, Debug)]
pub struct Chopsticks {
    setup: Setup,
    position: Position,
    /// Index of the player at seat 0 of the position.
    first: usize,
    plies: u32,
}

/// What a player sees: everything (the game has no hidden information).
#[derive(Clone, Debug, Serialize)]
pub struct View {
    /// The rules.
    pub rules: Rules,
    /// The position, the player to move first.
    pub position: Position,
    /// The code of the position.
    pub code: String,
    /// Which player is at seat 0 of the position.
    pub mover: PartyId,
    /// Moves made so far.
    pub plies: u32,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The winner, `None` for a draw.
    pub winner: Option<PartyId>,
    /// Moves played.
    pub plies: u32,
    /// The final position.
    pub position: String,
    /// Whether the move limit ended the game.
    pub move_limit: bool,
}

/// A move that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("played {mv} at {position}, which is not a legal move there")]
pub struct Illegal {
    /// The move.
    pub mv: String,
    /// The position code.
    pub position: String,
}

impl Chopsticks {
    /// The position, the player to move first.
    pub fn position(&self) -> &Position {
        &self.position
    }

    fn over(&self) -> bool {
        self.plies >= self.setup.move_limit
            || self.setup.rules.status(&self.position) != Status::Ongoing
    }
}

impl Game for Chopsticks {
    type Setup = Setup;
    type Move = Move;
    type View = View;
    type Outcome = Outcome;
    type Illegal = Illegal;

    const NAME: &'static str = "chopsticks";

    fn start(setup: &Setup) -> Result<Self, SetupError> {
        let rules = setup.rules;
        rules.validate().map_err(|e| SetupError(e.to_string()))?;
        let position = match &setup.start {
            Some(code) => rules
                .parse_position(code)
                .map_err(|e| SetupError(e.to_string()))?,
            None => rules.start(),
        };
        Ok(Chopsticks {
            setup: setup.clone(),
            position,
            first: 0,
            plies: 0,
        })
    }

    fn setup(&self) -> &Setup {
        &self.setup
    }

    fn players(&self) -> usize {
        usize::from(self.setup.rules.players)
    }

    fn to_move(&self) -> Option<PartyId> {
        (!self.over()).then(|| PartyId::from_index(self.first))
    }

    fn legal_moves(&self) -> Vec<Move> {
        if self.over() {
            return Vec::new();
        }
        let moves = self.setup.rules.moves(&self.position);
        moves.into_iter().map(|(m, _)| m).collect()
    }

    fn play(&mut self, mv: &Move) -> Result<(), Illegal> {
        let mut next = None;
        if !self.over() {
            self.setup
                .rules
                .for_each_move(&self.position, |m, child, shift| {
                    if m == *mv && next.is_none() {
                        next = Some((child, shift));
                    }
                });
        }
        let (child, shift) = next.ok_or_else(|| Illegal {
            mv: mv.to_string(),
            position: self.position.to_string(),
        })?;
        self.position = child;
        self.first = (self.first + usize::from(shift)) % self.players();
        self.plies += 1;
        Ok(())
    }

    fn view(&self, _player: PartyId) -> View {
        View {
            rules: self.setup.rules,
            position: self.position,
            code: self.position.code(),
            mover: PartyId::from_index(self.first),
            plies: self.plies,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.over() {
            return None;
        }
        let winner = match self.setup.rules.status(&self.position) {
            Status::Won(seat) => Some(PartyId::from_index((self.first + seat) % self.players())),
            _ => None,
        };
        Some(Outcome {
            winner,
            plies: self.plies,
            position: self.position.to_string(),
            move_limit: winner.is_none() && self.plies >= self.setup.move_limit,
        })
    }
}

/// Plays perfectly from the retrograde solution of the rules: the fastest forced win, else the
/// slowest loss, else any move that keeps the draw (chosen at random).
#[derive(Clone, Debug)]
pub struct SolverBot {
    graph: Graph,
    solution: Solution,
}

impl SolverBot {
    /// Solves the game of `rules` from its start (at most `limit` positions).
    pub fn new(rules: &Rules, limit: usize) -> Result<SolverBot, solve::GraphError> {
        let graph = Graph::from_start(rules, limit)?;
        let solution = Solution::retrograde(&graph);
        Ok(SolverBot { graph, solution })
    }
}

impl Bot<Chopsticks> for SolverBot {
    fn name(&self) -> &str {
        "solver"
    }

    fn choose(&mut self, view: &View, legal: &[Move], rng: &mut dyn RngCore) -> Move {
        use rand::seq::SliceRandom;
        let moves = view.rules.moves(&view.position);
        let best: Vec<Move> = match self.graph.id(&view.position) {
            Some(id) => {
                let targets = self.solution.best_successors(&self.graph, id);
                moves
                    .iter()
                    .filter(|(_, p)| self.graph.id(p).is_some_and(|c| targets.contains(&c)))
                    .map(|(m, _)| *m)
                    .collect()
            }
            None => Vec::new(),
        };
        let pool = if best.is_empty() { legal } else { &best[..] };
        pool.choose(rng).copied().unwrap_or(legal[0])
    }
}
