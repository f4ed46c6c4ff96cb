//! Seed 002 (Golf): the scoring example, the six-card pair rule, and the three-player claim.

use facedown_games::claims::golf_stock_runs_out;
use facedown_games::golf::{card_points, score_grid, Layout, Rules};

#[test]
fn claim_the_example_scores_11_with_three_fours_as_a_triple() {
    let grid: Vec<_> = ["AS", "KD", "3C", "4C", "4D", "4H", "AD", "6H", "KH"]
        .iter()
        .map(|t| t.parse().ok())
        .collect();
    assert_eq!(score_grid(Layout::Nine, &grid, 0.0), 11.0);
    let face: i32 = grid.iter().flatten().map(|&c| card_points(c)).sum();
    assert_eq!(face, 23, "12 more without the triple");
}

#[test]
fn claim_three_players_with_one_deck_do_not_always_run_out_of_stock() {
    let p = golf_stock_runs_out(Rules::nine(3), 200, 2002);
    assert!(p.hits < p.trials, "some round ends with a player out");
    assert!(p.hits > 0, "and some with the stock empty");
    assert!(p.low <= p.hits as f64 / p.trials as f64 && p.hits as f64 / p.trials as f64 <= p.high);
    let two = golf_stock_runs_out(Rules::nine(2), 200, 2002);
    assert!(two.hits < p.hits, "two players run out less often");
}
