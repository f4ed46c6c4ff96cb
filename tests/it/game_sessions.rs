//! Whole games of Ninety-Nine among distrustful players on every backend, one thread and one
//! session per player over the in-memory network (the ideal table: views of one table): honest
//! games never blamed, each cheat caught and its author named by every player.

use std::time::Duration;

use facedown::core::PartyId;
use facedown::games::ninety_nine::{Length, Variant};
use facedown::games::session::Cheat;
use facedown::table_game::{play_threads, GameBackend, GameSpec, SeatReport};

fn spec(backend: GameBackend, variant: Variant, length: Length, seed: u64) -> GameSpec {
    GameSpec {
        backend,
        variant,
        length,
        seed,
        cheat: None,
        context: b"game-sessions test".to_vec(),
        timeout: Duration::from_secs(60),
    }
}

fn reports(spec: &GameSpec) -> Vec<SeatReport> {
    play_threads(spec)
        .into_iter()
        .map(|r| r.expect("the game runs"))
        .collect()
}

fn assert_honest(reports: &[SeatReport]) {
    let first = &reports[0].game;
    for r in reports {
        assert!(r.game.verdict.clean(), "{:?}", r.game.verdict);
        assert!(r.game.standing.is_some());
        for (a, b) in r.game.hands.iter().zip(&first.hands) {
            assert_eq!(a.setup, b.setup, "every player audited the same deal");
            assert_eq!(a.outcome, b.outcome);
        }
    }
}

#[test]
fn the_dealer_refuses_a_game_with_a_clear_error_until_it_carries_announcements() {
    let s = spec(GameBackend::Dealer, Variant::Revised, Length::Deals(1), 3);
    let out = play_threads(&s);
    let err = out[0].as_ref().expect_err("refused");
    assert!(err.message.contains("announce"), "{}", err.message);
}

#[test]
fn an_honest_two_player_deal_with_the_dummy_on_the_encrypted_deck() {
    let s = spec(GameBackend::Poker, Variant::TwoDummy, Length::Deals(1), 4);
    assert_honest(&reports(&s));
}

#[test]
fn two_players_on_the_dealer_is_a_clear_error() {
    let s = spec(GameBackend::Dealer, Variant::TwoDummy, Length::Deals(1), 1);
    let out = play_threads(&s);
    let err = out[0].as_ref().expect_err("refused");
    assert!(err.message.contains("at least 3"), "{}", err.message);
}

/// Plays `variant` on `backend` with `cheat` tried by `cheater`, over seeds until the cheat had
/// its chance; every player must name the cheater.
fn assert_caught(backend: GameBackend, variant: Variant, cheat: Cheat, cheater: u16) {
    for seed in 0..12 {
        let mut s = spec(backend, variant, Length::Deals(1), seed);
        s.cheat = Some((PartyId(cheater), cheat));
        let r = reports(&s);
        if r.iter().all(|r| r.game.verdict.clean()) {
            continue;
        }
        for r in &r {
            assert_eq!(
                r.game.verdict.offender,
                Some(PartyId(cheater)),
                "{:?}",
                r.game.verdict
            );
            assert!(r.game.standing.is_none());
        }
        return;
    }
    panic!("{cheat:?} never had its chance on {backend:?}");
}

#[test]
fn every_cheat_is_caught_and_named_on_the_encrypted_deck() {
    for cheat in Cheat::ALL {
        assert_caught(GameBackend::Poker, Variant::TwoDummy, cheat, 1);
    }
}

#[test]
fn every_cheat_is_caught_and_named_on_the_ideal_table() {
    for cheat in [
        Cheat::Revoke,
        Cheat::NotInHand,
        Cheat::FalseBid,
        Cheat::ChangedBid,
    ] {
        assert_caught(GameBackend::Ideal, Variant::Revised, cheat, 3);
    }
}
