//! The exact solvers checked against independent computations: the Devyatka solver against a
//! plain minimax, against the symmetry of the deal, and against the game engine playing its
//! best cards; the Chopsticks solution table against a depth-bounded search over the engine.

use std::collections::HashMap;

use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_games::chopsticks::{self, Chopsticks, Rules as ChopRules, Summary};
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

/// Whether `player` can force a win within `plies` moves, by a depth-bounded search over the
/// game engine (no graph, no retrograde labels), memoised on the position and the depth.
fn forces_within(
    game: &Chopsticks,
    player: PartyId,
    plies: u32,
    memo: &mut HashMap<(String, PartyId, u32), bool>,
) -> bool {
    if game.to_move().is_none() {
        return game.outcome().and_then(|o| o.winner) == Some(player);
    }
    if plies == 0 {
        return false;
    }
    let mover = game.to_move().expect("ongoing");
    let key = (game.view(mover).code, mover, plies);
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut wins = game.legal_moves().into_iter().map(|mv| {
        let mut next = game.clone();
        next.play(&mv).expect("legal");
        forces_within(&next, player, plies - 1, memo)
    });
    let v = if mover == player {
        wins.any(|w| w)
    } else {
        wins.all(|w| w)
    };
    memo.insert(key, v);
    v
}

/// The solver's table (docs/games.md) against the bounded search: where the retrograde analysis
/// says a player forces a win from the start in `d` moves, the search finds it in `d` and not in
/// `d − 1`; where it says nobody can, the search finds no forced win for either within 40 moves.
#[test]
fn the_two_player_solution_table_agrees_with_a_bounded_search_from_the_start() {
    for r in 3..=8 {
        let rules = ChopRules::pr(2, r);
        let summary = Summary::of(&rules, 1 << 16).expect("small");
        assert_eq!(
            summary.reachable,
            summary.ends + summary.mover_wins + summary.other_wins + summary.nobody
        );
        let game = Chopsticks::start(&chopsticks::Setup::new(rules, u32::MAX)).expect("valid");
        let mut memo = HashMap::new();
        match summary.start {
            Some((seat, d)) => {
                let winner = PartyId::from_index(seat);
                assert!(forces_within(&game, winner, d, &mut memo), "r = {r}");
                assert!(!forces_within(&game, winner, d - 1, &mut memo), "r = {r}");
            }
            None => {
                for p in [PartyId(1), PartyId(2)] {
                    assert!(!forces_within(&game, p, 40, &mut memo), "r = {r}, {p}");
                }
            }
        }
    }
    // What the table says, computed: rollover 4 is a first-player win in 11, 3 and 5..8 draws,
    // and with rollover 5 no forced win anywhere is longer than 3 moves.
    let start = |r| Summary::of(&ChopRules::pr(2, r), 1 << 16).expect("small");
    assert_eq!(start(4).start, Some((0, 11)));
    assert!((5..=8).all(|r| start(r).start.is_none()) && start(3).start.is_none());
    assert_eq!(start(5).longest_win, 3);
}

/// The sweeps over the dense numbering (for games too large for a graph) count exactly what
/// the retrograde analysis of the graph counts, for two, three and four players and variants
/// whose positions carry counters (swaps) or zombies.
#[test]
fn the_sweeps_agree_with_the_retrograde_analysis() {
    let mut cases: Vec<ChopRules> = Vec::new();
    for r in 3..=8 {
        cases.push(ChopRules::pr(2, r));
    }
    for (p, r) in [(3, 3), (3, 4), (3, 5), (4, 3), (4, 4)] {
        cases.push(ChopRules::pr(p, r));
    }
    for switches in [
        "cutoff,suicide",
        "cutoff,transfers-only",
        "misere",
        "swaps=2",
        "logan",
        "self-attack,cutoff,swaps=3",
        "hands=1",
    ] {
        let mut rules = ChopRules::standard();
        for s in switches.split(',') {
            rules.apply(s).expect("a known switch");
        }
        cases.push(rules);
    }
    for p in [3, 4] {
        for switches in ["out-pass", "zombie"] {
            let mut rules = ChopRules::pr(p, 4);
            for s in switches.split(',') {
                rules.apply(s).expect("a known switch");
            }
            cases.push(rules);
        }
    }
    for rules in cases {
        let graph = Summary::of(&rules, 1 << 20).expect("small");
        let sweeps = Summary::by_sweeps(&rules, &mut |_| {}).expect("small");
        assert_eq!(sweeps, graph, "{rules:?}");
    }
}
