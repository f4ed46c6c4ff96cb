//! The sans-IO players refuse out-of-order, duplicated and missing messages with typed errors.

use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_poker::errors::PokerError;
use facedown_poker::player::{DealParams, GameSetup, Player, PlayerShuffling};
use merlin::Transcript;

const PARAMS: DealParams = DealParams {
    players: 3,
    cards: 6,
    hand: 1,
    public: 1,
};

fn shuffling_players() -> Vec<PlayerShuffling> {
    let setup = GameSetup::new(b"players", PARAMS).expect("valid parameters");
    let mut rng = seeded_rng(3);
    let (waiting, shares): (Vec<_>, Vec<_>) = PartyId::all(3)
        .map(|p| {
            Player::new_with_rng(setup.clone(), p, Transcript::new(b"players"), &mut rng)
                .expect("valid player")
        })
        .unzip();
    waiting
        .into_iter()
        .map(|w| w.receive_key_shares(&shares).expect("honest shares"))
        .collect()
}

#[test]
fn key_shares_must_be_complete_and_unique() {
    let setup = GameSetup::new(b"players", PARAMS).expect("valid parameters");
    let mut rng = seeded_rng(4);
    let mk = |p: u16, rng: &mut _| {
        Player::new_with_rng(setup.clone(), PartyId(p), Transcript::new(b"players"), rng)
            .expect("valid player")
    };
    let (w1, s1) = mk(1, &mut rng);
    let (_, s2) = mk(2, &mut rng);
    let (_, s3) = mk(3, &mut rng);
    assert!(matches!(
        w1.receive_key_shares(&[s1, s2]),
        Err(PokerError::Missing {
            player: PartyId(3),
            ..
        })
    ));
    let (w1, s1) = mk(1, &mut rng);
    assert!(matches!(
        w1.receive_key_shares(&[s1, s2, s2, s3]),
        Err(PokerError::UnexpectedMessage {
            player: PartyId(2),
            ..
        })
    ));
    assert!(
        Player::new_with_rng(setup.clone(), PartyId(4), Transcript::new(b"p"), &mut rng).is_err()
    );
    assert!(
        Player::new_with_rng(setup.clone(), PartyId(0), Transcript::new(b"p"), &mut rng).is_err()
    );
}

#[test]
fn shuffles_happen_in_turn_and_all_must_happen() {
    let mut players = shuffling_players();
    let mut rng = seeded_rng(5);
    // Player 2 may not go first.
    assert!(matches!(
        players[1].shuffle_with_rng(&mut rng),
        Err(PokerError::UnexpectedMessage {
            player: PartyId(2),
            ..
        })
    ));
    let m1 = players[0]
        .shuffle_with_rng(&mut rng)
        .expect("player 1's turn");
    players[1].receive_shuffle(&m1).expect("valid");
    // Replaying player 1's turn to player 2 is out of turn now.
    assert!(matches!(
        players[1].receive_shuffle(&m1),
        Err(PokerError::UnexpectedMessage {
            player: PartyId(1),
            ..
        })
    ));
    // Player 3 has not received player 1's turn; it cannot finish.
    let p3 = players.pop().expect("three players");
    assert!(matches!(
        p3.finish(),
        Err(PokerError::Missing {
            player: PartyId(1),
            ..
        })
    ));
    assert_eq!(players[1].next_shuffler(), Some(PartyId(2)));
}
