//! Golf among distrustful players on the ideal table, one thread and one session per player:
//! a nine-round game where nobody is blamed and every player agrees, and each cheat refused at
//! once with its author named by every player.

use std::time::Duration;

use facedown_core::PartyId;
use facedown_games::game::Bot;
use facedown_games::golf::{Golf, GreedyBot, Rules};
use facedown_games::session::golf::{play_game, GameReport, GolfCheat, Seat};
use facedown_games::session::ideal::IdealGame;

fn play(rules: Rules, seed: u64, cheat: Option<(u16, GolfCheat)>) -> Vec<GameReport> {
    let players = usize::from(rules.players);
    let game = IdealGame::new(players, seed);
    let handles: Vec<_> = PartyId::all(players)
        .map(|me| {
            let mut tables = game.tables(me, Duration::from_secs(20));
            std::thread::spawn(move || {
                let bot: Box<dyn Bot<Golf>> = Box::new(GreedyBot);
                let mut seat = Seat {
                    me,
                    bot,
                    cheat: cheat.filter(|(p, _)| *p == me.0).map(|(_, c)| c),
                    cheated: false,
                };
                let mut rng = facedown_core::rng::trial_rng(seed, 1000 + u64::from(me.0));
                play_game(&mut tables, &mut seat, rules, &mut rng).expect("the game runs")
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("no player panics"))
        .collect()
}

fn assert_all_agree_and_nobody_blamed(reports: &[GameReport], rules: Rules) {
    let first = &reports[0];
    let result = first.result.as_ref().expect("the game ends with a result");
    assert_eq!(result.rounds.len(), usize::from(rules.rounds));
    for r in reports {
        assert!(r.verdict.clean(), "{:?}", r.verdict);
        assert!(r.rounds.iter().all(|x| x.verdict.clean()));
        for (a, b) in r.rounds.iter().zip(&first.rounds) {
            assert_eq!(a.setup, b.setup, "every player audited the same deal");
            assert_eq!(a.outcome, b.outcome);
            assert_eq!(a.said, b.said);
        }
        assert_eq!(r.result.as_ref(), Some(result));
    }
}

#[test]
fn an_honest_nine_round_game_of_two_is_never_blamed_and_every_player_agrees() {
    let rules = Rules::nine(2);
    let reports = play(rules, 3, None);
    assert_all_agree_and_nobody_blamed(&reports, rules);
}

#[test]
fn an_honest_three_player_six_card_game_is_never_blamed() {
    let rules = Rules {
        rounds: 3,
        ..Rules::six(3)
    };
    let reports = play(rules, 11, None);
    assert_all_agree_and_nobody_blamed(&reports, rules);
}

#[test]
fn the_games_totals_are_the_sums_of_the_audited_rounds_scores() {
    let rules = Rules {
        rounds: 2,
        ..Rules::nine(2)
    };
    let reports = play(rules, 5, None);
    let result = reports[0].result.as_ref().expect("a result");
    let totals: Vec<i32> = (0..2)
        .map(|p| {
            reports[0]
                .rounds
                .iter()
                .map(|r| r.outcome.as_ref().expect("scored").scores[p])
                .sum()
        })
        .collect();
    assert_eq!(result.totals, totals);
}

fn assert_named(rules: Rules, cheat: GolfCheat, cheater: u16, says: &str) {
    let reports = (0..20)
        .map(|seed| play(rules, seed, Some((cheater, cheat))))
        .find(|r| r.iter().any(|x| !x.verdict.clean()))
        .unwrap_or_else(|| panic!("{cheat:?} was never tried or never caught"));
    for r in &reports {
        assert_eq!(
            r.verdict.offender,
            Some(PartyId(cheater)),
            "{:?}",
            r.verdict
        );
        assert!(r.verdict.at_play_time, "{:?}", r.verdict);
        let reason = r.verdict.reason.as_deref().unwrap_or_default();
        assert!(reason.contains(says), "{reason}");
        assert!(r.result.is_none(), "a game with a cheat has no result");
    }
}

#[test]
fn a_peek_at_a_face_down_grid_card_is_refused_before_it_is_turned_and_its_player_named() {
    assert_named(Rules::nine(2), GolfCheat::Peek, 2, "a peek");
    assert_named(Rules::nine(3), GolfCheat::Peek, 3, "a peek");
}

#[test]
fn a_card_placed_in_another_players_grid_is_refused_at_once_and_its_player_named() {
    assert_named(Rules::nine(3), GolfCheat::NotHis, 1, "not in his grid");
}

#[test]
fn throwing_back_the_card_taken_from_the_discard_pile_is_refused_at_once() {
    assert_named(
        Rules::nine(2),
        GolfCheat::DiscardTaken,
        1,
        "discarded the card he took",
    );
}
