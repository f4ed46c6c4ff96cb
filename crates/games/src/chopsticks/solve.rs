//! The game graph and its retrograde solution.
//!
//! [`Graph::explore`] numbers every position reachable from a start (breadth first, so each
//! position's number comes with its distance from the start) and records the moves between them.
//! [`Solution::retrograde`] then labels positions backwards from the ends: for each position and
//! each seat, whether that player can force a win against every reply of all the others, and in
//! how many moves when both sides play best (the winner as fast as he can, the others as slowly
//! as they can). With two players that is the classical win / loss / draw of the mover with the
//! distance to the end; a position nobody can force is a draw — perfect play loops for ever.

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

use super::rules::{Position, Rules, Status};

/// Why a graph was not built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// More positions than the limit.
    #[error("more than {0} reachable positions")]
    TooLarge(usize),
    /// The rules are invalid.
    #[error(transparent)]
    Rules(#[from] super::rules::RulesError),
}

/// Every position reachable from a start, with the moves between them.
#[derive(Clone, Debug)]
pub struct Graph {
    /// The rules.
    pub rules: Rules,
    /// Position number `i` (0 is the start), in breadth-first order.
    pub positions: Vec<Position>,
    /// Distance of each position from the start, in moves.
    pub depth: Vec<u32>,
    ids: HashMap<Position, u32>,
    edge_start: Vec<u32>,
    /// `(child, shift)`: the position reached and how many seats the turn moved on.
    edges: Vec<(u32, u8)>,
}

impl Graph {
    /// Explores everything reachable from `start` (at most `limit` positions).
    pub fn explore(rules: &Rules, start: Position, limit: usize) -> Result<Graph, GraphError> {
        rules.validate()?;
        let mut graph = Graph {
            rules: *rules,
            positions: vec![start],
            depth: vec![0],
            ids: HashMap::from([(start, 0)]),
            edge_start: vec![0],
            edges: Vec::new(),
        };
        let mut next = 0;
        while next < graph.positions.len() {
            let pos = graph.positions[next];
            let depth = graph.depth[next] + 1;
            let mut children: Vec<(u32, u8)> = Vec::new();
            let mut error = None;
            rules.for_each_move(&pos, |_, child, shift| {
                let id = match graph.ids.get(&child) {
                    Some(&id) => id,
                    None => {
                        if graph.positions.len() >= limit {
                            error = Some(GraphError::TooLarge(limit));
                            return;
                        }
                        let id = graph.positions.len() as u32;
                        graph.ids.insert(child, id);
                        graph.positions.push(child);
                        graph.depth.push(depth);
                        id
                    }
                };
                if !children.contains(&(id, shift)) {
                    children.push((id, shift));
                }
            });
            if let Some(e) = error {
                return Err(e);
            }
            graph.edges.extend(children);
            graph.edge_start.push(graph.edges.len() as u32);
            next += 1;
        }
        Ok(graph)
    }

    /// Explores from the rules' start position.
    pub fn from_start(rules: &Rules, limit: usize) -> Result<Graph, GraphError> {
        Graph::explore(rules, rules.start(), limit)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the graph is empty (never: it holds at least the start).
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The number of `pos`, if reachable.
    pub fn id(&self, pos: &Position) -> Option<u32> {
        self.ids.get(pos).copied()
    }

    /// The positions one move on from position `id`, with the seat shift.
    pub fn successors(&self, id: u32) -> &[(u32, u8)] {
        let i = id as usize;
        &self.edges[self.edge_start[i] as usize..self.edge_start[i + 1] as usize]
    }

    /// The state of the game at position `id`.
    pub fn status(&self, id: u32) -> Status {
        self.rules.status(&self.positions[id as usize])
    }

    /// Positions where the game is over.
    pub fn ends(&self) -> Vec<u32> {
        (0..self.len() as u32)
            .filter(|&i| self.status(i) != Status::Ongoing)
            .collect()
    }

    /// Every game that moves farther from the start with each move (each position one move
    /// deeper than the last) and ends after exactly `moves` moves, as position sequences.
    pub fn outward_games(&self, moves: u32) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        let mut path = vec![0u32];
        self.extend_outward(moves, &mut path, &mut out);
        out
    }

    fn extend_outward(&self, moves: u32, path: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        let Some(&last) = path.last() else { return };
        let depth = self.depth[last as usize];
        if depth == moves {
            if self.status(last) != Status::Ongoing {
                out.push(path.clone());
            }
            return;
        }
        let mut seen: Vec<u32> = Vec::new();
        for &(child, _) in self.successors(last) {
            if self.depth[child as usize] == depth + 1 && !seen.contains(&child) {
                seen.push(child);
                path.push(child);
                self.extend_outward(moves, path, out);
                path.pop();
            }
        }
    }

    /// Whether some position can be visited twice in one game (a cycle among the positions
    /// where the game goes on), so that games of unbounded length exist.
    pub fn has_cycle(&self) -> bool {
        let n = self.len();
        let mut indegree = vec![0u32; n];
        for i in 0..n as u32 {
            for &(c, _) in self.successors(i) {
                indegree[c as usize] += 1;
            }
        }
        let mut stack: Vec<u32> = (0..n as u32)
            .filter(|&i| indegree[i as usize] == 0)
            .collect();
        let mut removed = 0;
        while let Some(i) = stack.pop() {
            removed += 1;
            for &(c, _) in self.successors(i) {
                indegree[c as usize] -= 1;
                if indegree[c as usize] == 0 {
                    stack.push(c);
                }
            }
        }
        removed < n
    }
}

/// The value of a two-player position for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "value", content = "moves")]
pub enum Value {
    /// He can force a win in this many moves (his and his opponent's).
    Win(u32),
    /// His opponent can force a win in this many moves.
    Loss(u32),
    /// Neither can force a win: best play goes on for ever.
    Draw,
}

/// The retrograde labels of every position of a graph.
#[derive(Clone, Debug)]
pub struct Solution {
    players: usize,
    /// `forced[i * players + s]`: the player at seat `s` of position `i` can force a win in
    /// this many moves.
    forced: Vec<Option<u32>>,
}

impl Solution {
    /// Labels every position of `graph`, backwards from the ends.
    pub fn retrograde(graph: &Graph) -> Solution {
        let p = usize::from(graph.rules.players);
        let n = graph.len();
        let mut forced = vec![None; n * p];
        let mut pending = vec![0u32; n * p];
        let mut parents: Vec<Vec<(u32, u8)>> = vec![Vec::new(); n];
        for i in 0..n as u32 {
            let out = graph.successors(i);
            for s in 1..p {
                pending[i as usize * p + s] = out.len() as u32;
            }
            for &(c, shift) in out {
                parents[c as usize].push((i, shift));
            }
        }
        let mut queue = VecDeque::new();
        for i in graph.ends() {
            if let Status::Won(w) = graph.status(i) {
                forced[i as usize * p + w] = Some(0);
                queue.push_back((i, w));
            }
        }
        while let Some((child, seat)) = queue.pop_front() {
            let Some(d) = forced[child as usize * p + seat] else {
                continue;
            };
            for &(parent, shift) in &parents[child as usize] {
                let s = (seat + usize::from(shift)) % p;
                let slot = parent as usize * p + s;
                if forced[slot].is_some() {
                    continue;
                }
                if s == 0 {
                    forced[slot] = Some(d + 1);
                    queue.push_back((parent, 0));
                } else {
                    pending[slot] -= 1;
                    if pending[slot] == 0 {
                        forced[slot] = Some(d + 1);
                        queue.push_back((parent, s));
                    }
                }
            }
        }
        Solution { players: p, forced }
    }

    /// Whether the player at `seat` of position `id` can force a win, and in how many moves.
    pub fn forced(&self, id: u32, seat: usize) -> Option<u32> {
        self.forced[id as usize * self.players + seat]
    }

    /// The seat (from the mover) of the player who can force a win at `id`, and in how many
    /// moves; `None` when nobody can.
    pub fn winner(&self, id: u32) -> Option<(usize, u32)> {
        (0..self.players).find_map(|s| self.forced(id, s).map(|d| (s, d)))
    }

    /// The two-player value of position `id` for the mover.
    pub fn value(&self, id: u32) -> Value {
        match self.winner(id) {
            Some((0, d)) => Value::Win(d),
            Some((_, d)) => Value::Loss(d),
            None => Value::Draw,
        }
    }

    /// The best successors of `id` for its mover: the fastest forced win, else the slowest
    /// loss, else (a draw) every successor where no opponent can force a win.
    pub fn best_successors(&self, graph: &Graph, id: u32) -> Vec<u32> {
        let p = self.players;
        let mine = |shift: u8| (p - usize::from(shift) % p) % p;
        let out = graph.successors(id);
        if let Some(d) = self.forced(id, 0) {
            return out
                .iter()
                .filter(|&&(c, s)| self.forced(c, mine(s)) == Some(d - 1))
                .map(|&(c, _)| c)
                .collect();
        }
        let safe: Vec<u32> = out
            .iter()
            .filter(|&&(c, _)| self.winner(c).is_none())
            .map(|&(c, _)| c)
            .collect();
        if !safe.is_empty() {
            return safe;
        }
        let longest = out
            .iter()
            .filter_map(|&(c, _)| self.winner(c).map(|(_, d)| d))
            .max();
        out.iter()
            .filter(|&&(c, _)| self.winner(c).map(|(_, d)| d) == longest)
            .map(|&(c, _)| c)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_position_is_a_loss_in_zero_for_the_mover() {
        let rules = Rules::standard();
        let end = rules.parse_position("0013").expect("valid");
        let graph = Graph::explore(&rules, end, 10).expect("tiny");
        let solution = Solution::retrograde(&graph);
        assert_eq!(solution.value(0), Value::Loss(0));
    }

    #[test]
    fn a_position_with_a_killing_blow_is_a_win_in_one() {
        let rules = Rules::standard();
        let pos = rules.parse_position("1401").expect("valid");
        let graph = Graph::explore(&rules, pos, 1000).expect("small");
        let solution = Solution::retrograde(&graph);
        assert_eq!(solution.value(0), Value::Win(1));
    }
}
