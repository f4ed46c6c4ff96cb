//! The players (engines) refuse out-of-order, duplicated, stranger's and missing messages with
//! typed errors naming the sender, and a table step after a deal (a random cut) works and is
//! checked like any other.

use facedown_core::engine::{Engine, Step};
use facedown_core::local::Delivery;
use facedown_core::rng::party_rng;
use facedown_core::table::{FaceDownTable, ShuffleSet};
use facedown_core::{Blame, DriveError, LocalDriver, PartyId, Perm, Symbol, TableOp};
use facedown_poker::errors::{PokerError, ProofKind};
use facedown_poker::messages::Message;
use facedown_poker::PokerEngine;
use rand_chacha::ChaCha20Rng;

type Player = PokerEngine<ChaCha20Rng>;

fn engines(seed: u64) -> Vec<Player> {
    PartyId::all(3)
        .map(|p| PokerEngine::with_rng(p, 3, b"players", party_rng(seed, 0, p)).expect("player"))
        .collect()
}

/// Three players after the setup and a six-card deck placed face up.
fn at_the_table(seed: u64) -> Vec<Player> {
    let mut t = LocalDriver::new(engines(seed)).expect("setup");
    t.place(&(0..6).map(Symbol::Card).collect::<Vec<_>>())
        .expect("place");
    t.into_engines()
}

/// Starts `op` on every player; their first messages.
fn start_all(players: &mut [Player], op: &TableOp) -> Vec<Step> {
    players
        .iter_mut()
        .map(|p| p.start(op).expect("starts"))
        .collect()
}

fn unexpected_from(err: PokerError, player: u16) {
    assert!(
        matches!(err, PokerError::UnexpectedMessage { player: p, .. } if p == PartyId(player)),
        "{err}"
    );
}

#[test]
fn key_shares_must_come_once_from_every_player() {
    let mut players = engines(4);
    let hellos = start_all(&mut players, &TableOp::Setup);
    let mut shares = Vec::new();
    for (j, p) in players.iter_mut().enumerate() {
        let mut share = None;
        for (k, h) in hellos.iter().enumerate().filter(|(k, _)| *k != j) {
            let step = p
                .receive(PartyId::from_index(k), &h.send[0].payload)
                .expect("an honest hello");
            share = share.or(step.send.first().map(|m| m.payload.clone()));
        }
        shares.push(share.expect("a key share once every hello is in"));
    }
    let p1 = &mut players[0];
    p1.receive(PartyId(2), &shares[1])
        .expect("player 2's share");
    unexpected_from(p1.receive(PartyId(2), &shares[1]).expect_err("twice"), 2);
    unexpected_from(
        p1.receive(PartyId(4), &shares[2]).expect_err("a stranger"),
        4,
    );
    // A share that never arrives leaves the player waiting for its sender.
    let drop_3_to_1 = |d: &mut Delivery| {
        let share = matches!(
            Message::from_bytes(d.from, &d.payload),
            Ok(Message::KeyShare(_))
        );
        !(share && d.from == PartyId(3) && d.to == PartyId(1))
    };
    let err = LocalDriver::tapped(engines(4), drop_3_to_1).expect_err("missing share");
    assert!(
        matches!(
            err,
            DriveError::Stuck {
                party: PartyId(1),
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.blamed(), Some(PartyId(3)));
    assert!(PokerEngine::with_rng(PartyId(4), 3, b"p", party_rng(4, 0, PartyId(4))).is_err());
    assert!(PokerEngine::with_rng(PartyId(0), 3, b"p", party_rng(4, 0, PartyId(0))).is_err());
}

#[test]
fn shuffles_happen_in_turn_and_cannot_be_replayed() {
    let mut players = at_the_table(5);
    let steps = start_all(&mut players, &TableOp::Shuffle(ShuffleSet::All));
    assert!(
        steps[1].send.is_empty() && steps[2].send.is_empty(),
        "player 1 goes first"
    );
    let turn1 = steps[0].send[0].payload.clone();
    let turn2 = players[1]
        .receive(PartyId(1), &turn1)
        .expect("player 1's turn")
        .send[0]
        .payload
        .clone();
    // Player 3 still awaits player 1: player 2's turn is out of order.
    unexpected_from(
        players[2]
            .receive(PartyId(2), &turn2)
            .expect_err("out of turn"),
        2,
    );
    players[2].receive(PartyId(1), &turn1).expect("in turn");
    // Replaying player 1's turn is out of turn now.
    unexpected_from(
        players[2]
            .receive(PartyId(1), &turn1)
            .expect_err("replayed"),
        1,
    );
    assert_eq!(players[2].awaiting(), [PartyId(2)]);
}

#[test]
fn ms09_random_cut_on_the_table_after_a_deal() {
    let mut t = LocalDriver::new(engines(6)).expect("setup");
    t.place(&(0..6).map(Symbol::Card).collect::<Vec<_>>())
        .expect("place");
    t.shuffle(&ShuffleSet::All).expect("deal");
    let row = [1usize, 2, 4, 5];
    let before = t.turn(&row).expect("open");
    // A random cut of the row (a cyclic group on positions 1, 2, 4, 5).
    let cut: Vec<Perm> = (0..4)
        .map(|k| {
            let mut images: Vec<usize> = (0..6).collect();
            for (a, &i) in row.iter().enumerate() {
                images[i] = row[(a + k) % 4];
            }
            Perm::from_images(images).expect("perm")
        })
        .collect();
    t.shuffle(&ShuffleSet::Uniform(cut.clone()))
        .expect("a group");
    let after = t.turn(&row).expect("open");
    assert!(
        (0..4).any(|k| (0..4).all(|i| after[(i + k) % 4] == before[i])),
        "{after:?} is not a rotation of {before:?}"
    );
    // A tampered cut (two cards swapped after proving) is rejected, naming player 2.
    let swap_2 = |d: &mut Delivery| {
        if let Ok(Message::RestrictedShuffle(mut m)) = Message::from_bytes(d.from, &d.payload) {
            if m.player == PartyId(2) {
                m.deck.swap(0, 1);
                d.payload = Message::RestrictedShuffle(m).to_bytes().expect("encodes");
            }
        }
        true
    };
    let mut t = LocalDriver::tapped(engines(6), swap_2).expect("setup");
    t.place(&(0..6).map(Symbol::Card).collect::<Vec<_>>())
        .expect("place");
    t.shuffle(&ShuffleSet::All).expect("deal");
    let err = t.shuffle(&ShuffleSet::Uniform(cut)).expect_err("tampered");
    assert!(
        matches!(
            err,
            DriveError::Engine {
                source: PokerError::InvalidProof {
                    player: PartyId(2),
                    kind: ProofKind::RestrictedShuffle
                },
                ..
            }
        ),
        "{err}"
    );
    // Rows are checked: out of range.
    assert!(t.turn(&[1, 2, 3, 99]).is_err());
}

#[test]
fn reveal_tokens_must_come_once_from_every_other_player() {
    let mut t = LocalDriver::new(engines(7)).expect("setup");
    t.place(&(0..6).map(Symbol::Card).collect::<Vec<_>>())
        .expect("place");
    t.shuffle(&ShuffleSet::All).expect("deal");
    let mut players = t.into_engines();
    let steps = start_all(&mut players, &TableOp::turn(&[0, 1]));
    let tokens_of = |k: usize| steps[k].send[0].payload.clone();
    let me = &mut players[0];
    me.receive(PartyId(2), &tokens_of(1))
        .expect("player 2's tokens");
    unexpected_from(me.receive(PartyId(2), &tokens_of(1)).expect_err("twice"), 2);
    unexpected_from(
        me.receive(PartyId(7), &tokens_of(2))
            .expect_err("a stranger"),
        7,
    );
    let step = me
        .receive(PartyId(3), &tokens_of(2))
        .expect("player 3's tokens");
    assert_eq!(step.done.map(|s| s.public.len()), Some(2), "the cards open");
    // Tokens that never arrive leave the player waiting for their sender.
    let drop_3_to_1 = |d: &mut Delivery| {
        let reveal = matches!(
            Message::from_bytes(d.from, &d.payload),
            Ok(Message::Reveal(_))
        );
        !(reveal && d.from == PartyId(3) && d.to == PartyId(1))
    };
    let mut t = LocalDriver::tapped(engines(7), drop_3_to_1).expect("setup");
    t.place(&[Symbol::Club, Symbol::Heart]).expect("place");
    t.shuffle(&ShuffleSet::All).expect("deal");
    let err = t.turn(&[0]).expect_err("missing tokens");
    assert_eq!(err.blamed(), Some(PartyId(3)), "{err}");
}
