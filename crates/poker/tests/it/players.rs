//! The sans-IO players refuse out-of-order, duplicated and missing messages with typed errors.

use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_poker::errors::PokerError;
use facedown_poker::player::{DealParams, GameSetup, Player, PlayerDealing, PlayerShuffling};
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

/// The three players after every honest shuffle, ready to reveal.
fn dealing_players(rng: &mut rand_chacha::ChaCha20Rng) -> Vec<PlayerDealing> {
    let mut shuffling = shuffling_players();
    for p in 0..3 {
        let msg = shuffling[p].shuffle_with_rng(rng).expect("in turn");
        for (i, other) in shuffling.iter_mut().enumerate() {
            if i != p {
                other.receive_shuffle(&msg).expect("honest shuffle");
            }
        }
    }
    shuffling
        .into_iter()
        .map(|s| s.finish().expect("all shuffled"))
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

/// The dealt deck as a table of face-down cards: open a row publicly, let player 2 apply a random
/// cut to it [MS09], open it again — every player sees the same rotation of the row — and a
/// tampered cut is rejected naming player 2.
#[test]
fn ms09_random_cut_on_the_table_after_a_deal() {
    use facedown_poker::errors::ProofKind;
    use facedown_poker::restricted::PermSet;

    let mut rng = seeded_rng(6);
    let mut table = dealing_players(&mut rng);
    let reveals: Vec<_> = table
        .iter()
        .map(|t| t.reveal_message_with_rng(&mut rng))
        .collect();
    for t in &table {
        t.receive_reveals(&reveals).expect("honest deal");
    }
    // Rounds after the deal's reveal round (N + 1 = 4).
    let row = [1usize, 2, 4, 5];
    let open = |table: &[facedown_poker::player::PlayerDealing], round, rng: &mut _| {
        let msgs: Vec<_> = table
            .iter()
            .map(|t| {
                t.public_reveal_with_rng(round, &row, rng)
                    .expect("valid round")
            })
            .collect();
        let views: Vec<Vec<u16>> = table
            .iter()
            .map(|t| t.open_public(round, &row, &msgs).expect("honest tokens"))
            .collect();
        assert!(views.iter().all(|v| *v == views[0]));
        views[0].clone()
    };
    let before = open(&table, 5, &mut rng);
    let set = PermSet::cyclic(4).expect("cut");
    let msg = table[1]
        .restricted_shuffle_with_rng(6, &set, &row, &mut rng)
        .expect("valid round and row");
    for i in [0, 2] {
        table[i]
            .receive_restricted_shuffle(6, &set, &row, &msg)
            .expect("honest cut");
    }
    let after = open(&table, 7, &mut rng);
    assert!(
        (0..4).any(|k| (0..4).all(|i| after[(i + k) % 4] == before[i])),
        "{after:?} is not a rotation of {before:?}"
    );

    // A tampered cut (two cards swapped after proving) is rejected, naming player 2.
    let mut bad = table[1]
        .restricted_shuffle_with_rng(8, &set, &row, &mut rng)
        .expect("valid round and row");
    bad.deck.swap(0, 1);
    assert_eq!(
        table[0].receive_restricted_shuffle(8, &set, &row, &bad),
        Err(PokerError::InvalidProof {
            player: PartyId(2),
            kind: ProofKind::RestrictedShuffle
        })
    );
    // Table rounds must come after the deal's rounds.
    assert!(matches!(
        table[0].public_reveal_with_rng(4, &row, &mut rng),
        Err(PokerError::InvalidParameters(_))
    ));
    // Rows are checked: out of range, repeated positions.
    assert!(table[0]
        .restricted_shuffle_with_rng(9, &set, &[1, 2, 3, 99], &mut rng)
        .is_err());
    assert!(table[0]
        .restricted_shuffle_with_rng(9, &set, &[1, 1, 2, 3], &mut rng)
        .is_err());
}

/// Reveal tokens must come once from every other player of the game: a duplicate set, a set
/// from a stranger and a missing set are each refused naming the player.
#[test]
fn reveal_tokens_must_come_once_from_every_other_player() {
    let mut rng = seeded_rng(7);
    let table = dealing_players(&mut rng);
    let reveals: Vec<_> = table
        .iter()
        .map(|t| t.reveal_message_with_rng(&mut rng))
        .collect();
    let me = &table[0];
    // Player 2's set twice.
    let twice = [reveals[1].clone(), reveals[1].clone(), reveals[2].clone()];
    assert!(matches!(
        me.receive_reveals(&twice),
        Err(PokerError::UnexpectedMessage {
            player: PartyId(2),
            ..
        })
    ));
    // A set signed as player 7, who is not in the game.
    let mut stranger = reveals[2].clone();
    stranger.player = PartyId(7);
    assert!(matches!(
        me.receive_reveals(&[reveals[1].clone(), stranger]),
        Err(PokerError::UnexpectedMessage {
            player: PartyId(7),
            ..
        })
    ));
    // Player 3's set missing.
    assert!(matches!(
        me.receive_reveals(&[reveals[1].clone()]),
        Err(PokerError::Missing {
            player: PartyId(3),
            ..
        })
    ));
    // One's own set is ignored; the honest round opens the hand.
    assert!(me.receive_reveals(&reveals).is_ok());
}
