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

mod bot;
mod round;
mod series;

pub use bot::GreedyBot;
pub use round::{
    card_points, score_grid, Golf, Illegal, Layout, Move, Outcome, Rules, Setup, View,
};
pub use series::{audit_match, play_match, MatchAudit, MatchLog, MatchResult};
