//! Golf and Девятка through `facedown::table_golf_devyatka`, every player on its own thread: on
//! the ideal table and on the encrypted deck over the in-memory network, honest games agreed by
//! all, a cheat named by all, and the dealer refused below three players.

use std::time::Duration;

use facedown::table_game::GameBackend;
use facedown::table_golf_devyatka::{play_threads, CardCheat, CardGame, CardGameSpec};
use facedown_core::rng::Randomness;
use facedown_core::PartyId;
use facedown_games::golf::Rules;
use facedown_games::session::golf::GolfCheat;

fn spec(backend: GameBackend, game: CardGame, players: usize) -> CardGameSpec {
    CardGameSpec {
        backend,
        game,
        players,
        randomness: Randomness::Seed(4),
        cheat: None,
        context: b"card-games".to_vec(),
        timeout: Duration::from_secs(60),
    }
}

fn offenders(spec: &CardGameSpec) -> Vec<Option<PartyId>> {
    play_threads(spec)
        .into_iter()
        .map(|r| r.expect("the game runs").game.verdict().offender)
        .collect()
}

#[test]
fn golf_on_the_ideal_table_and_devyatka_on_the_encrypted_deck_are_never_blamed() {
    let golf = CardGame::Golf(Rules {
        rounds: 2,
        ..Rules::nine(3)
    });
    assert_eq!(offenders(&spec(GameBackend::Ideal, golf, 3)), vec![None; 3]);
    let reports = play_threads(&spec(GameBackend::Poker, CardGame::Devyatka, 2));
    for r in &reports {
        let r = r.as_ref().expect("the deal runs");
        assert!(r.game.verdict().clean());
        assert!(r.cost.messages > 0, "the encrypted deck costs messages");
    }
}

#[test]
fn a_golf_cheat_on_the_encrypted_deck_is_named_by_every_player() {
    let golf = CardGame::Golf(Rules {
        rounds: 1,
        ..Rules::nine(2)
    });
    let mut s = spec(GameBackend::Poker, golf, 2);
    s.cheat = Some((PartyId(2), CardCheat::Golf(GolfCheat::NotHis)));
    assert_eq!(offenders(&s), vec![Some(PartyId(2)); 2]);
}

#[test]
fn devyatka_on_the_dealer_needs_three_players_and_three_are_never_blamed() {
    let two = play_threads(&spec(GameBackend::Dealer, CardGame::Devyatka, 2));
    let e = two[0].as_ref().expect_err("two players are refused");
    assert!(e.message.contains("at least 3"), "{}", e.message);
    assert_eq!(
        offenders(&spec(GameBackend::Dealer, CardGame::Devyatka, 3)),
        vec![None; 3]
    );
}

/// The same refusal for Golf and Девятка: an own key is not shared by a game in one process.
#[test]
fn card_games_in_one_process_refuse_an_own_key() {
    let mut s = spec(GameBackend::Ideal, CardGame::Golf(Rules::nine(2)), 2);
    s.randomness = Randomness::Key([7; 32]);
    let results = play_threads(&s);
    assert_eq!(results.len(), 1);
    let e = results[0].as_ref().expect_err("refused");
    assert!(
        e.blame.is_none() && e.message.contains("own key"),
        "{}",
        e.message
    );
}
