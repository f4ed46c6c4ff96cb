//! The exact solvers checked against independent computations: the Devyatka solver against a
//! plain minimax, against the symmetry of the deal, and against the game engine playing its
//! best cards.

use std::collections::HashMap;

use facedown_core::rng::seeded_rng;
use facedown_games::devyatka::{self, card_index, Deal, Devyatka, Move, Player, Solver};
use facedown_games::game::Game;

/// A plain minimax over the game engine, memoised on the table: no pruning, no bounds.
fn reference(game: &Devyatka, memo: &mut HashMap<(Vec<u8>, bool), i8>) -> i8 {
    if let Some(o) = game.outcome() {
        return o.result;
    }
    let view = game.view(facedown_core::PartyId(1));
    let mut table: Vec<u8> = view.table.iter().filter_map(|&c| card_index(c)).collect();
    table.sort_unstable();
    let key = (table, view.to_move == Player::Alice);
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let values = game.legal_moves().into_iter().map(|mv| {
        let mut next = game.clone();
        next.play(&mv).expect("legal");
        reference(&next, memo)
    });
    let v = if view.to_move == Player::Alice {
        values.max()
    } else {
        values.min()
    }
    .unwrap_or(0);
    memo.insert(key, v);
    v
}

#[test]
fn the_solver_agrees_with_a_plain_minimax_from_midgame_positions() {
    let mut solver = Solver::new();
    let mut rng = seeded_rng(5);
    for game_no in 0..12 {
        let deal = Deal::random(&mut rng);
        let first = if game_no % 2 == 0 {
            Player::Alice
        } else {
            Player::Bob
        };
        let mut game = Devyatka::start(&devyatka::Setup::new(&deal, first)).expect("valid");
        // Random moves until a dozen cards are down: the rest of the game is small enough for
        // the plain minimax.
        while game.view(facedown_core::PartyId(1)).table.len() < 12 && game.to_move().is_some() {
            let moves = game.legal_moves();
            let mv = moves[rand::Rng::gen_range(&mut rng, 0..moves.len())];
            game.play(&mv).expect("legal");
        }
        let expected = reference(&game, &mut HashMap::new());
        assert_eq!(game.value(&mut solver), expected, "game {game_no}");
    }
}

#[test]
fn exchanging_the_hands_negates_the_result() {
    let mut solver = Solver::new();
    let mut rng = seeded_rng(7);
    for _ in 0..8 {
        let deal = Deal::random(&mut rng);
        let a = solver.result(&deal, Player::Alice);
        let b = solver.result(&deal.swapped(), Player::Bob);
        assert_eq!(a, -b);
        assert_eq!(solver.importance(&deal), solver.importance(&deal.swapped()));
    }
}

#[test]
fn playing_the_solvers_best_cards_reaches_the_solvers_result() {
    let mut solver = Solver::new();
    let mut rng = seeded_rng(8);
    for _ in 0..6 {
        let deal = Deal::random(&mut rng);
        for first in [Player::Alice, Player::Bob] {
            let expected = solver.result(&deal, first);
            let mut game = Devyatka::start(&devyatka::Setup::new(&deal, first)).expect("valid");
            while game.to_move().is_some() {
                let best = game.best_cards(&mut solver);
                let mv = best.first().map_or(Move::Pass, |&c| Move::Play(c));
                game.play(&mv).expect("the best card is legal");
            }
            assert_eq!(game.outcome().expect("over").result, expected);
        }
    }
}
