//! Golf (Nine Holes), the card game of seed 002: a grid of face-down cards nobody has seen.
//!
//! Each player lays his cards face down in a grid — 3 × 3 for the nine-card game, two rows of
//! three for the six-card game — that not even he has seen. In the nine-card game each player
//! turns up three cards of his choice (and may then move one of two equal face-up cards so that
//! they share a row or a column); in the six-card game the two middle cards are turned up. In
//! his turn a player takes the top discard, which must replace one of his grid cards, or the top
//! stock card, which may replace one or be discarded; a replaced card goes face up to the
//! discard pile, and the new card lies face up. The round ends when one player has every card
//! face up — each other player then has one more turn — or when the stock runs out. Cards
//! score A = 1, 2–10 their value, J and Q 10, K 0, a Joker −2; three equal ranks in a row or a
//! column of the nine-card grid count 0 (a matching pair in a column of the six-card grid).
//! Nine rounds make a game; the lowest total wins.
//!
//! * [`Golf`]: one round as a [`Game`](crate::game::Game);
//! * [`score_grid`]: the score of a grid;
//! * [`GreedyBot`]: a greedy player;
//! * [`play_match`] / [`audit_match`]: the nine-round game.

/// The rules in brief (this crate's words), for `facedown games rules golf`.
pub const RULES: &str = "\
Golf (Nine Holes), two or more players; lowest total after nine rounds wins.

Deal: 9 cards each face down in a 3x3 grid (or 6 in two rows of three); nobody has seen them.
  One deck; two for four or more players; Jokers optional. The next card starts the discard
  pile; the rest is the stock.
Start: each player turns up 3 cards of his choice (six-card game: the two middle cards); with
  two equal face-up cards he may move one so that they share a row or column.
Turn: take the top discard and put it in the grid in place of any card, or take the top stock
  card and do the same or discard it. The replaced card goes face up on the discard pile.
End: when a player has every card face up, each other player has one more turn; the round also
  ends when the stock runs out.
Score: A 1, 2-10 face value, J and Q 10, K 0, Joker -2; three equal ranks in a row or column
  score 0 (six-card game: a pair in a column).
";

mod bot;
mod round;
mod series;

pub use bot::GreedyBot;
pub use round::{
    card_points, score_grid, Golf, Illegal, Layout, Move, Outcome, Rules, Setup, View,
};
pub use series::{audit_match, play_match, MatchAudit, MatchLog, MatchResult};
