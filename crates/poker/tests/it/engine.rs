//! The encrypted deck's per-player engines at a table of the in-memory driver: what each
//! operation does, what each player sees, and what a cheating player or network is refused.

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::traits::Identity;
use facedown_core::engine::Engine;
use facedown_core::local::Delivery;
use facedown_core::rng::party_rng;
use facedown_core::table::{FaceDownTable, ShuffleSet, Support, TableError};
use facedown_core::{DriveError, LocalDriver, Opening, PartyId, Perm, Symbol, TableOp};
use facedown_poker::errors::{PokerError, ProofKind};
use facedown_poker::messages::Message;
use facedown_poker::PokerEngine;
use rand_chacha::ChaCha20Rng;

type Engines = Vec<PokerEngine<ChaCha20Rng>>;

fn engines(parties: usize, seed: u64) -> Engines {
    PartyId::all(parties)
        .map(|p| {
            PokerEngine::with_rng(p, parties, b"engine tests", party_rng(seed, 0, p))
                .expect("valid player")
        })
        .collect()
}

fn table(parties: usize, seed: u64) -> LocalDriver<PokerEngine<ChaCha20Rng>> {
    LocalDriver::new(engines(parties, seed)).expect("honest setup")
}

fn bit(b: bool) -> [Symbol; 2] {
    if b {
        [Symbol::Heart, Symbol::Club]
    } else {
        [Symbol::Club, Symbol::Heart]
    }
}

#[test]
fn a_commitment_is_hidden_until_turned_and_opens_to_its_cards() {
    for b in [false, true] {
        let mut t = table(2, 1);
        t.commit(PartyId(2), &bit(b)).expect("commit");
        for e in t.engines() {
            let deck = e.deck().expect("set up");
            assert!(deck
                .ciphertexts()
                .iter()
                .all(|c| c.c1 != RistrettoPoint::identity()));
        }
        assert_eq!(t.turn(&[0, 1]).expect("in range"), bit(b));
    }
}

#[test]
fn setup_costs_a_hello_and_a_key_share_from_every_player_to_every_other() {
    let t = table(3, 2);
    let cost = t.cost();
    // The seat's fresh nonces and their lists (with the hellos), the hellos and key shares,
    // then the echo round that agrees on them: 5·N·(N − 1) messages in 4 rounds.
    assert_eq!((cost.messages, cost.rounds), (30, 4));
    let keys: Vec<_> = t
        .engines()
        .map(|e| *e.joint_key().expect("keys").point())
        .collect();
    assert!(keys.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn a_private_opening_is_seen_by_its_recipient_only() {
    let mut t = table(3, 3);
    let deck: Vec<Symbol> = (0..6).map(Symbol::Card).collect();
    t.place(&deck).expect("place");
    t.shuffle(&ShuffleSet::All).expect("deal");
    let opening = Opening {
        public: vec![5],
        private: vec![(PartyId(2), vec![0, 1])],
    };
    let seen = t.open(&opening).expect("open");
    let hand = seen.private[0].clone().expect("player 2 saw its cards");
    assert_eq!(hand.len(), 2);
    assert!(!hand.contains(&seen.public[0]));
    // Player 3 sent player 2 its tokens for the hand, but opened nothing of it.
    let before = t.cost().messages;
    let seen_by_one = t.open_to(PartyId(1), &[2]).expect("open");
    assert_eq!(seen_by_one.len(), 1);
    assert_eq!(
        t.cost().messages - before,
        2,
        "two players send player 1 a token"
    );
}

#[test]
fn cuts_and_deals_keep_the_multiset_and_weakened_shuffles_say_so() {
    let caps = <PokerEngine<ChaCha20Rng> as Engine>::capabilities(3);
    let weighted = ShuffleSet::Weighted(vec![(Perm::identity(6), 1)]);
    assert!(matches!(
        caps.shuffle_support(&weighted),
        Support::Weakened(_)
    ));
    assert_eq!(caps.uniform_shuffle, Support::Secure);
    let mut t = table(3, 4);
    let deck: Vec<Symbol> = (0..6).map(Symbol::Card).collect();
    t.place(&deck).expect("place");
    let cut: Vec<Perm> = (0..6)
        .map(|k| Perm::from_images((0..6).map(|i| (i + k) % 6).collect()).expect("perm"))
        .collect();
    t.shuffle(&ShuffleSet::Uniform(cut)).expect("a group");
    t.shuffle(&ShuffleSet::All).expect("deal");
    let swap = Perm::parse_cycles(6, "(1 2)").expect("valid");
    let drawn = ShuffleSet::Weighted(vec![(Perm::identity(6), 1), (swap, 3)]);
    t.shuffle(&drawn).expect("drawn by player 1");
    let mut seen = t.turn(&[0, 1, 2, 3, 4, 5]).expect("open");
    seen.sort();
    assert_eq!(seen, deck);
    assert!(matches!(
        t.turn(&[6]),
        Err(DriveError::Engine {
            source: PokerError::Table(TableError::Position { position: 6, .. }),
            ..
        })
    ));
}

#[test]
fn a_forged_commitment_shuffle_is_rejected_naming_the_committer() {
    let swap_after_proving = |d: &mut Delivery| {
        if let Ok(Message::RestrictedShuffle(mut m)) = Message::from_bytes(d.from, &d.payload) {
            m.deck.swap(0, 1);
            m.deck[0] = m.deck[1];
            d.payload = Message::RestrictedShuffle(m).to_bytes().expect("encodes");
        }
        true
    };
    let mut t = LocalDriver::tapped(engines(2, 5), swap_after_proving).expect("setup");
    let err = t.commit(PartyId(1), &bit(true)).expect_err("forged row");
    assert!(
        matches!(
            err,
            DriveError::Engine {
                source: PokerError::InvalidProof {
                    player: PartyId(1),
                    kind: ProofKind::RestrictedShuffle
                },
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn an_engine_refuses_steps_out_of_order_and_messages_it_does_not_await() {
    let mut es = engines(2, 6);
    let mut e1 = es.remove(0);
    assert!(matches!(
        e1.start(&TableOp::Place(vec![Symbol::Club])),
        Err(PokerError::OutOfOrder(_))
    ));
    let hello = e1.start(&TableOp::Setup).expect("first setup");
    assert!(matches!(
        e1.start(&TableOp::Setup),
        Err(PokerError::OutOfOrder(_))
    ));
    // Player 1's own hello, played back to it as if from player 2, claims another sender.
    let err = e1
        .receive(PartyId(2), &hello.send[0].payload)
        .expect_err("forged sender");
    assert!(matches!(
        err,
        PokerError::UnexpectedMessage {
            player: PartyId(2),
            ..
        }
    ));
    // A stranger is never awaited.
    assert!(matches!(
        e1.receive(PartyId(7), &hello.send[0].payload),
        Err(PokerError::UnexpectedMessage {
            player: PartyId(7),
            ..
        })
    ));
    // A player must know the cards of its own commitment.
    let mut t = table(2, 7);
    assert!(matches!(
        t.commit_hidden(PartyId(1), &bit(true)),
        Err(DriveError::Table(TableError::HiddenCommit {
            party: PartyId(1)
        }))
    ));
    t.finish().expect("finish");
    assert!(t.place(&[Symbol::Club]).is_err(), "nothing after the end");
}
