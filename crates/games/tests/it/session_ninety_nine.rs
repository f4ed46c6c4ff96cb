//! Whole games of Ninety-Nine among distrustful players on the ideal table, one thread and one
//! session per player: an honest game is never blamed, each cheat is caught and its author
//! named, by every player alike.

use std::time::Duration;

use facedown_core::PartyId;
use facedown_games::game::Bot;
use facedown_games::ninety_nine::{HeuristicBot, Length, NinetyNine, Variant};
use facedown_games::session::ideal::IdealGame;
use facedown_games::session::ninety_nine::{play_game, GameReport, Said, Seat};
use facedown_games::session::Cheat;

fn play(
    variant: Variant,
    length: Length,
    seed: u64,
    cheat: Option<(u16, Cheat)>,
) -> Vec<GameReport> {
    let players = variant.rules().players;
    let game = IdealGame::new(players, seed);
    let handles: Vec<_> = PartyId::all(players)
        .map(|me| {
            let mut tables = game.tables(me, Duration::from_secs(20));
            std::thread::spawn(move || {
                let bot: Box<dyn Bot<NinetyNine>> = Box::new(HeuristicBot);
                let mut seat = Seat {
                    me,
                    bot,
                    cheat: cheat.filter(|(p, _)| *p == me.0).map(|(_, c)| c),
                    cheated: false,
                };
                let mut rng = facedown_core::rng::trial_rng(seed, 1000 + u64::from(me.0));
                play_game(&mut tables, &mut seat, variant, length, &mut rng).expect("the game runs")
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("no player panics"))
        .collect()
}

#[test]
fn an_honest_three_player_game_to_100_is_never_blamed_and_every_player_agrees() {
    let reports = play(Variant::Revised, Length::game(Variant::Revised), 7, None);
    let first = &reports[0];
    let standing = first.standing.as_ref().expect("the game ends");
    assert!(standing.totals.iter().any(|&t| t >= 100), "{standing:?}");
    for r in &reports {
        assert!(r.verdict.clean(), "{:?}", r.verdict);
        assert!(r
            .hands
            .iter()
            .all(|h| h.verdict.clean() && h.outcome.is_some()));
        assert_eq!(r.hands.len(), first.hands.len());
        for (a, b) in r.hands.iter().zip(&first.hands) {
            assert_eq!(a.setup, b.setup, "every player audited the same deal");
            assert_eq!(a.outcome, b.outcome);
        }
        assert_eq!(
            r.standing.as_ref().map(|s| &s.totals),
            Some(&standing.totals)
        );
    }
}

fn caught(variant: Variant, cheat: Cheat, cheater: u16) -> (bool, Vec<GameReport>) {
    for seed in 0..40 {
        let reports = play(variant, Length::game(variant), seed, Some((cheater, cheat)));
        if reports.iter().any(|r| !r.verdict.clean()) {
            return (true, reports);
        }
    }
    (false, Vec::new())
}

fn assert_named(variant: Variant, cheat: Cheat, cheater: u16, at_play_time: bool) {
    let (found, reports) = caught(variant, cheat, cheater);
    assert!(found, "{cheat:?} was never tried or never caught");
    for r in &reports {
        assert_eq!(
            r.verdict.offender,
            Some(PartyId(cheater)),
            "{:?}",
            r.verdict
        );
        assert_eq!(r.verdict.at_play_time, at_play_time, "{:?}", r.verdict);
        assert!(r.standing.is_none(), "a game with a cheat has no standing");
    }
}

#[test]
fn a_revoke_is_caught_in_its_trick_by_the_ideal_tables_legal_play_check_and_the_revoker_named() {
    let (found, reports) = caught(Variant::Revised, Cheat::Revoke, 2);
    assert!(found);
    for r in &reports {
        assert_eq!(r.verdict.offender, Some(PartyId(2)), "{:?}", r.verdict);
        assert!(r.verdict.at_play_time, "{:?}", r.verdict);
        let reason = r.verdict.reason.as_deref().unwrap_or_default();
        assert!(reason.contains("cannot prove"), "{reason}");
        let hand = r.hands.last().expect("a hand");
        let last = hand.said.last().expect("moves");
        assert!(
            matches!(last.mv, Said::Play(_)) && last.by == PartyId(2),
            "the hand stops at the revoke: {last:?}"
        );
        assert!(hand.outcome.is_none());
    }
}

#[test]
fn an_honest_game_proves_every_card_off_suit_and_blames_nobody() {
    let reports = play(Variant::Revised, Length::Deals(2), 3, None);
    for r in &reports {
        assert!(r.verdict.clean(), "{:?}", r.verdict);
        let proofs: usize = r.hands.iter().map(|h| h.proofs).sum();
        assert!(proofs > 0, "two deals without a card off suit");
        assert_eq!(
            proofs,
            reports[0].hands.iter().map(|h| h.proofs).sum::<usize>()
        );
    }
}

#[test]
fn a_position_outside_the_hand_is_refused_at_once_and_its_player_named() {
    assert_named(Variant::Revised, Cheat::NotInHand, 3, true);
}

#[test]
fn a_false_claim_of_a_made_bid_is_caught_at_once() {
    assert_named(Variant::Revised, Cheat::FalseBid, 1, true);
}

#[test]
fn opening_other_cards_than_the_bid_laid_aside_is_caught_at_once() {
    assert_named(Variant::Revised, Cheat::ChangedBid, 2, true);
}

#[test]
fn an_illegal_dummy_play_is_caught_at_once() {
    assert_named(Variant::TwoDummy, Cheat::Dummy, 1, true);
}
