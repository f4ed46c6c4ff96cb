//! Девятка among distrustful players on the ideal table, one thread and one session per
//! player: honest deals for two to four players where nobody is blamed and every player agrees,
//! and each cheat named by every player — a false pass at the pass itself, since the ideal
//! table checks a pass when it is made (the "I prove" bit and `ProveNoneOf`).

use std::time::Duration;

use facedown_core::PartyId;
use facedown_games::cards::Rank;
use facedown_games::devyatka::multi::MultiView;
use facedown_games::devyatka::{Move, MultiDevyatka};
use facedown_games::game::{Bot, RandomBot};
use facedown_games::session::devyatka::{play_game, DealReport, DevyatkaCheat, Said, Seat};
use facedown_games::session::ideal::IdealGame;
use rand::RngCore;

/// Keeps its nines to the last, so a nine it denied at its first turn may stay in its hand to
/// the end of the deal.
struct NinesLast;

impl Bot<MultiDevyatka> for NinesLast {
    fn name(&self) -> &str {
        "nines-last"
    }

    fn choose(&mut self, _: &MultiView, legal: &[Move], _: &mut dyn RngCore) -> Move {
        let nine = |m: &Move| matches!(m, Move::Play(c) if c.rank() == Some(Rank::Nine));
        legal.iter().copied().find(|m| !nine(m)).unwrap_or(legal[0])
    }
}

fn play(players: usize, seed: u64, cheat: Option<(u16, DevyatkaCheat)>) -> Vec<DealReport> {
    let game = IdealGame::new(players, seed);
    let handles: Vec<_> = PartyId::all(players)
        .map(|me| {
            let mut tables = game.tables(me, Duration::from_secs(20));
            std::thread::spawn(move || {
                let bot: Box<dyn Bot<MultiDevyatka>> = match cheat {
                    Some((p, _)) if p == me.0 => Box::new(NinesLast),
                    _ => Box::new(RandomBot),
                };
                let mut seat = Seat {
                    me,
                    bot,
                    cheat: cheat.filter(|(p, _)| *p == me.0).map(|(_, c)| c),
                    cheated: false,
                };
                let mut rng = facedown_core::rng::trial_rng(seed, 1000 + u64::from(me.0));
                play_game(&mut tables, &mut seat, &mut rng).expect("the deal runs")
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("no player panics"))
        .collect()
}

#[test]
fn honest_deals_of_two_three_and_four_are_never_blamed_and_every_player_agrees() {
    for players in [2, 3, 4] {
        for seed in 0..3 {
            let reports = play(players, seed, None);
            let first = &reports[0];
            let outcome = first.outcome.as_ref().expect("the deal ends");
            assert_eq!(outcome.holds[outcome.winner.index()], 0);
            for r in &reports {
                assert!(r.verdict.clean(), "{players} players: {:?}", r.verdict);
                assert_eq!(r.setup, first.setup, "every player audited the same deal");
                assert_eq!(r.said, first.said);
                assert_eq!(r.outcome.as_ref(), Some(outcome));
            }
        }
    }
}

fn caught(players: usize, cheat: DevyatkaCheat, cheater: u16) -> Vec<DealReport> {
    (0..30)
        .map(|seed| play(players, seed, Some((cheater, cheat))))
        .find(|r| r.iter().any(|x| !x.verdict.clean()))
        .unwrap_or_else(|| panic!("{cheat:?} was never tried or never caught"))
}

fn assert_named(reports: &[DealReport], cheater: u16, says: &str) {
    for r in reports {
        assert_eq!(
            r.verdict.offender,
            Some(PartyId(cheater)),
            "{:?}",
            r.verdict
        );
        let reason = r.verdict.reason.as_deref().unwrap_or_default();
        assert!(reason.contains(says), "{reason}");
        assert!(r.outcome.is_none(), "a deal with a cheat has no outcome");
    }
}

#[test]
fn a_false_pass_is_named_by_every_player() {
    for players in [3, 4] {
        let reports = caught(players, DevyatkaCheat::FalsePass, 2);
        assert_named(&reports, 2, "passed while able to play");
    }
}

#[test]
fn a_false_pass_is_named_at_the_pass_itself_because_the_passer_cannot_prove_it() {
    // The passer keeps his nines to the last, so only the play-time proof can catch him at once.
    for seed in 0..10 {
        let reports = play(4, seed, Some((1, DevyatkaCheat::FalsePass)));
        let v = &reports[0].verdict;
        assert_named(&reports, 1, "cannot prove that none of his");
        assert!(v.at_play_time, "{v:?}");
        assert!(reports.iter().all(|r| r.verdict == *v), "everyone agrees");
        let last = reports[0].said.last().expect("moves");
        assert_eq!(
            (last.by, last.mv),
            (PartyId(1), Said::Pass),
            "named at his pass"
        );
        let passes = reports[0]
            .said
            .iter()
            .filter(|e| e.mv == Said::Pass)
            .count();
        assert_eq!(
            reports[0].proofs + 1,
            passes,
            "every earlier pass was proved"
        );
    }
}

#[test]
fn every_honest_pass_is_proved_at_play_time_on_a_table_that_checks_passes() {
    let mut proved = 0;
    for players in [2, 3, 4] {
        for seed in 0..3 {
            for r in play(players, seed, None) {
                let passes = r.said.iter().filter(|e| e.mv == Said::Pass).count();
                assert_eq!(r.proofs, passes, "{players} players, seed {seed}");
                proved += r.proofs;
            }
        }
    }
    assert!(proved > 0, "some deal has a pass");
}

#[test]
fn a_position_outside_the_hand_is_refused_at_once_and_its_player_named() {
    let reports = caught(3, DevyatkaCheat::NotInHand, 3);
    assert_named(&reports, 3, "not in his hand");
    assert!(reports.iter().all(|r| r.verdict.at_play_time));
}

#[test]
fn a_card_that_may_not_go_down_is_refused_as_soon_as_it_is_turned() {
    let reports = caught(4, DevyatkaCheat::NotPlayable, 1);
    assert_named(&reports, 1, "cannot go down");
    assert!(reports.iter().all(|r| r.verdict.at_play_time));
    let reports = caught(2, DevyatkaCheat::NotPlayable, 2);
    assert_named(&reports, 2, "cannot go down");
}
