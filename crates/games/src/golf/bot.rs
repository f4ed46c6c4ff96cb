//! A greedy Golf player.

use rand::RngCore;

use super::round::{card_points, score_grid, Golf, Layout, Move, View};
use crate::cards::Card;
use crate::game::Bot;

/// Plays the move that lowers his grid's expected score the most, counting every face-down card
/// at the mean of the cards he has not seen: it takes the discard when placing it gains at
/// least a point, otherwise draws from the stock, and places the card where it gains most
/// (discarding a stock card that gains less than half a point). It turns up a diagonal (one
/// known card in every row and column) and lines up equal cards when it can.
#[derive(Clone, Copy, Debug, Default)]
pub struct GreedyBot;

/// The mean points of the cards of the pack that `view` does not show.
fn unseen_mean(view: &View) -> f64 {
    let mut unseen: Vec<Card> = view.rules.pack();
    let mut seen: Vec<Card> = view.grids.iter().flatten().flatten().copied().collect();
    seen.extend(view.discard.iter().copied());
    seen.extend(view.holding);
    for card in seen {
        if let Some(i) = unseen.iter().position(|&c| c == card) {
            unseen.swap_remove(i);
        }
    }
    if unseen.is_empty() {
        return 5.0;
    }
    unseen
        .iter()
        .map(|&c| f64::from(card_points(c)))
        .sum::<f64>()
        / unseen.len() as f64
}

/// How much placing `card` at each position lowers the expected score of `grid`.
fn gains(layout: Layout, grid: &[Option<Card>], card: Card, unknown: f64) -> Vec<f64> {
    let before = score_grid(layout, grid, unknown);
    (0..grid.len())
        .map(|i| {
            let mut after = grid.to_vec();
            after[i] = Some(card);
            before - score_grid(layout, &after, unknown)
        })
        .collect()
}

fn best(gains: &[f64]) -> (usize, f64) {
    gains.iter().copied().enumerate().fold(
        (0, f64::NEG_INFINITY),
        |b, (i, g)| if g > b.1 { (i, g) } else { b },
    )
}

impl Bot<Golf> for GreedyBot {
    fn name(&self) -> &str {
        "greedy"
    }

    fn choose(&mut self, view: &View, legal: &[Move], _rng: &mut dyn RngCore) -> Move {
        let me = view.player.index();
        let grid = &view.grids[me];
        let unknown = unseen_mean(view);
        let first = legal[0];
        let pick = match first {
            Move::TurnUp(_) => Some(Move::TurnUp([0, 4, 8])),
            Move::Keep | Move::Arrange { .. } => legal.get(1).copied().or(Some(Move::Keep)),
            Move::DrawStock | Move::TakeDiscard => {
                let top = view.discard.last().copied();
                let take =
                    top.is_some_and(|c| best(&gains(view.layout, grid, c, unknown)).1 >= 1.0);
                Some(if take || !legal.contains(&Move::DrawStock) {
                    Move::TakeDiscard
                } else {
                    Move::DrawStock
                })
            }
            Move::Replace(_) | Move::Discard => view.holding.map(|c| {
                let (at, gain) = best(&gains(view.layout, grid, c, unknown));
                if gain < 0.5 && legal.contains(&Move::Discard) {
                    Move::Discard
                } else {
                    Move::Replace(at as u8)
                }
            }),
        };
        pick.filter(|m| legal.contains(m)).unwrap_or(first)
    }
}
