//! Whole games of Ninety-Nine among distrustful players on every backend, one thread and one
//! session per player over the in-memory network (the ideal table: views of one table): honest
//! games never blamed, each cheat caught and its author named by every player.

use std::time::Duration;

use facedown::core::rng::Randomness;
use facedown::core::PartyId;
use facedown::games::ninety_nine::{Length, Variant};
use facedown::games::session::ninety_nine::Said;
use facedown::games::session::Cheat;
use facedown::table_game::{play_threads, GameBackend, GameSpec, SeatReport};

fn spec(backend: GameBackend, variant: Variant, length: Length, seed: u64) -> GameSpec {
    GameSpec {
        backend,
        variant,
        length,
        randomness: Randomness::Seed(seed),
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
fn an_honest_three_player_deal_on_the_dealer_is_never_blamed_and_keeps_the_end_audit() {
    let s = spec(GameBackend::Dealer, Variant::Revised, Length::Deals(1), 3);
    let r = reports(&s);
    assert_honest(&r);
    for r in &r {
        assert_eq!(
            r.game.hands[0].proofs, 0,
            "the dealer has no legal-play proof"
        );
        assert!(!r.operations.contains_key("prove-none-of"));
        assert!(
            r.operations["commit 4"].count > 0,
            "announcements are commitments"
        );
    }
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

/// The revoke of `cheater` on `backend`, over seeds until he had his chance; every player names
/// him, and returns what they saw.
fn revoke_reports(backend: GameBackend, cheater: u16) -> Vec<SeatReport> {
    for seed in 0..12 {
        let mut s = spec(backend, Variant::Revised, Length::Deals(1), seed);
        s.cheat = Some((PartyId(cheater), Cheat::Revoke));
        let r = reports(&s);
        if r.iter().any(|r| !r.game.verdict.clean()) {
            for r in &r {
                assert_eq!(r.game.verdict.offender, Some(PartyId(cheater)));
            }
            return r;
        }
    }
    panic!("the revoke never had its chance on {backend:?}");
}

#[test]
fn a_revoke_on_the_encrypted_deck_is_caught_in_its_trick_by_the_legal_play_proof() {
    for r in revoke_reports(GameBackend::Poker, 2) {
        let v = &r.game.verdict;
        let reason = v.reason.as_deref().unwrap_or_default();
        assert!(v.at_play_time && reason.contains("cannot prove"), "{v:?}");
        let hand = r.game.hands.last().expect("a hand");
        let last = hand.said.last().expect("moves");
        assert_eq!(last.by, PartyId(2), "the hand stops at the revoke");
        assert!(matches!(last.mv, Said::Play(_)));
    }
}

#[test]
fn an_honest_deal_on_the_encrypted_deck_proves_every_card_off_suit_at_play_time() {
    let s = spec(GameBackend::Poker, Variant::Revised, Length::Deals(1), 5);
    let r = reports(&s);
    assert_honest(&r);
    let proofs = r[0].game.hands[0].proofs;
    assert!(proofs > 0, "a deal without a card off suit");
    for r in &r {
        assert_eq!(
            r.game.hands[0].proofs, proofs,
            "every player ran each proof"
        );
        let op = &r.operations["prove-none-of"];
        assert_eq!(op.count, proofs as u64);
        assert_eq!(
            r.operations["turn 2"].count, proofs as u64,
            "one \"I prove\" bit each"
        );
    }
    let sent: u64 = r
        .iter()
        .map(|r| r.operations["prove-none-of"].cost.messages)
        .sum();
    assert!(sent > 0, "the provers sent their proofs");
}

#[test]
fn every_cheat_is_caught_and_named_on_the_encrypted_deck() {
    for cheat in Cheat::ALL {
        assert_caught(GameBackend::Poker, Variant::TwoDummy, cheat, 1);
    }
}

#[test]
fn a_revoke_on_the_dealer_is_caught_later_by_the_rule_audit_not_in_its_trick() {
    for r in revoke_reports(GameBackend::Dealer, 2) {
        let v = &r.game.verdict;
        let reason = v.reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("revoked") && !reason.contains("cannot prove"),
            "{v:?}"
        );
        let hand = r.game.hands.last().expect("a hand");
        assert_eq!(hand.proofs, 0, "the dealer has no legal-play proof");
    }
}

#[test]
fn every_cheat_of_a_three_player_game_is_caught_and_named_on_the_dealer() {
    for cheat in [Cheat::NotInHand, Cheat::FalseBid, Cheat::ChangedBid] {
        assert_caught(GameBackend::Dealer, Variant::Revised, cheat, 1);
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

/// An own key is one player's secret: a game with every player in one process refuses it
/// (each would draw the same streams, and the ideal table too), blaming nobody.
#[test]
fn a_game_in_one_process_refuses_an_own_key_and_blames_nobody() {
    for backend in [GameBackend::Ideal, GameBackend::Poker] {
        let mut s = spec(backend, Variant::Revised, Length::Deals(1), 3);
        s.randomness = Randomness::Key([7; 32]);
        let results = play_threads(&s);
        assert_eq!(results.len(), 1, "refused before any player starts");
        let e = results[0].as_ref().expect_err("refused");
        assert_eq!(e.blame, None, "{}", e.message);
        assert!(e.message.contains("own key"), "{}", e.message);
    }
}
