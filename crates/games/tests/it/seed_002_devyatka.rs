//! Seed 002 (Codeforces 1769D2, Девятка): the statement's examples and notes, the output for
//! k = 13 checked by the checker, and the checker's refusals.

use facedown_core::rng::seeded_rng;
use facedown_games::devyatka::importance::{
    format_output, nines_to_alice, SearchError, MAX_IMPORTANCE, MAX_OUTPUT,
};
use facedown_games::devyatka::{
    check_output, distinct_importances, CheckError, Deal, DealError, Found, Player, Solver,
};

#[test]
fn claim_the_output_for_k_13_passes_the_checker() {
    let found = distinct_importances(13, 20_000, 13, &mut |_| {})
        .expect("13 distinct importances")
        .deals;
    let text = format_output(&found);
    assert_eq!(text.lines().count(), 26);
    let checked = check_output(&text, 13).expect("the checker accepts it");
    let mut importances: Vec<u32> = checked.deals.iter().map(|d| d.importance).collect();
    assert_eq!(
        importances,
        found.iter().map(|f| f.importance).collect::<Vec<_>>()
    );
    importances.dedup();
    assert_eq!(importances.len(), 13);
    for line in text.lines() {
        assert!(
            line.split(' ').all(|t| t.len() == 2),
            "two-character cards: {line}"
        );
    }
}

#[test]
fn more_distinct_importances_than_0_to_36_are_refused_without_a_search() {
    let wanted = MAX_IMPORTANCE as usize + 2;
    let mut solved = 0;
    let err = distinct_importances(wanted, 1_000_000, 0, &mut |_| solved += 1)
        .expect_err("there are only 37 values");
    assert_eq!(err, SearchError::Impossible { wanted });
    assert_eq!(solved, 0);
}

#[test]
fn claim_every_nine_in_alices_hand_gives_importance_0() {
    let mut solver = Solver::new();
    assert_eq!(solver.importance(&nines_to_alice()), 0);
    let nines: u64 = (0..4).map(|s| 1u64 << (s * 9 + 3)).sum();
    let mut rng = seeded_rng(1);
    for _ in 0..10 {
        let deal = Deal::random(&mut rng);
        let mut mask = deal.alice_mask();
        let mut bob_nines = !mask & nines & ((1 << 36) - 1);
        let mut others = mask & !nines;
        while bob_nines != 0 {
            let (n, o) = (
                bob_nines & bob_nines.wrapping_neg(),
                others & others.wrapping_neg(),
            );
            mask ^= n ^ o;
            bob_nines &= bob_nines - 1;
            others &= others - 1;
        }
        let deal = Deal::from_mask(mask).expect("18 cards");
        assert_eq!(solver.importance(&deal), 0);
        assert_eq!(
            solver.result(&deal, Player::Bob),
            solver.result(&deal, Player::Alice)
        );
    }
}

#[test]
fn claim_the_statement_examples_of_importance() {
    // Bob wins both ways with 6 and 2 cards left to Alice; Alice wins with 5 left to Bob, Bob
    // wins with 3 left to Alice.
    let importance = |a: i8, b: i8| (i32::from(a) - i32::from(b)).unsigned_abs();
    assert_eq!(importance(-6, -2), 4);
    assert_eq!(importance(5, -3), 8);
}

#[test]
fn importance_is_the_gap_between_the_two_signed_results() {
    let mut solver = Solver::new();
    let mut rng = seeded_rng(2);
    for _ in 0..10 {
        let deal = Deal::random(&mut rng);
        let f = Found::solve(&mut solver, deal);
        assert_eq!(
            f.importance,
            (i32::from(f.alice_first) - i32::from(f.bob_first)).unsigned_abs()
        );
        assert!(f.alice_first != 0 && f.alice_first.abs() <= 18);
        assert_eq!(solver.importance(&deal), f.importance);
    }
}

#[test]
fn the_checker_refuses_repeated_importances_bad_cards_and_bad_shapes() {
    let deal = Deal::random(&mut seeded_rng(3));
    let [a, b] = deal.to_lines();
    let twice = format!("{a}\n{b}\n{a}\n{b}\n");
    assert!(matches!(
        check_output(&twice, 2),
        Err(CheckError::Repeated {
            first: 1,
            second: 2,
            ..
        })
    ));
    assert!(matches!(
        check_output(&twice, 3),
        Err(CheckError::LineCount {
            expected: 6,
            found: 4
        })
    ));
    let bad_card = format!("{}\n{b}\n", a.replacen(&a[..2], "1C", 1));
    assert!(matches!(
        check_output(&bad_card, 1),
        Err(CheckError::Deal { line: 1, .. })
    ));
    let dup = format!("{}\n{b}\n", a.replacen(&a[..2], &b[..2], 1));
    assert!(matches!(
        check_output(&dup, 1),
        Err(CheckError::Deal {
            error: DealError::Duplicate(_),
            ..
        })
    ));
    let short = format!("{}\n{b}\n", &a[3..]);
    assert!(matches!(
        check_output(&short, 1),
        Err(CheckError::Deal {
            error: DealError::HandSize { count: 17, .. },
            ..
        })
    ));
    let long_token = format!("{a} 10H\n{b}\n");
    assert!(matches!(
        check_output(&long_token, 1),
        Err(CheckError::Token { line: 1, .. })
    ));
    let huge = "6C ".repeat(MAX_OUTPUT);
    assert!(matches!(
        check_output(&huge, 1),
        Err(CheckError::TooLong(_))
    ));
    assert!(check_output(&format!("{a}\n{b}\n"), 1).is_ok());
}

#[test]
fn on_each_suit_the_table_is_one_run_through_the_nine() {
    use facedown_games::devyatka::{Devyatka, Setup};
    use facedown_games::game::{play_out, Bot, Game, RandomBot};
    let mut rng = seeded_rng(4);
    for _ in 0..20 {
        let deal = Deal::random(&mut rng);
        let mut bots: Vec<Box<dyn Bot<Devyatka>>> = vec![Box::new(RandomBot), Box::new(RandomBot)];
        let (log, _) =
            play_out(Setup::new(&deal, Player::Alice), &mut bots, 200, &mut rng).expect("plays");
        let mut game = Devyatka::start(&log.setup).expect("valid");
        for e in &log.moves {
            game.play(&e.mv).expect("legal");
            let table = game.view(e.by).table;
            for suit in facedown_games::cards::Suit::ALL {
                let mut ranks: Vec<usize> = table
                    .iter()
                    .filter(|c| c.suit() == Some(suit))
                    .filter_map(|c| c.rank())
                    .map(|r| {
                        facedown_games::cards::Rank::SIX_TO_ACE
                            .iter()
                            .position(|&x| x == r)
                            .expect("rank")
                    })
                    .collect();
                ranks.sort_unstable();
                if let (Some(&lo), Some(&hi)) = (ranks.first(), ranks.last()) {
                    assert!(lo <= 3 && hi >= 3 && hi - lo + 1 == ranks.len());
                }
            }
        }
    }
}
