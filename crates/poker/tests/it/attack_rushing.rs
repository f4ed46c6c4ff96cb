//! The rushing abort: in a public opening a player waits for every other player's reveal
//! tokens, so he alone learns the cards, and withholds his own. No protocol without an honest
//! majority can prevent it (fairness); what it must guarantee is that the withholder, and only
//! he, is named, and that the honest players lose nothing: they still await exactly him, and
//! his tokens, should they come late, complete their opening.
//!
//! The engine is sans-IO, so it names nobody by itself: it says whom it awaits
//! ([`Engine::awaiting`]); the in-memory driver turns that into [`DriveError::Stuck`] when the
//! messages run out, and the network driver into a timeout naming the same peer
//! (`crates/net/src/driver.rs`; its silent-player tests are
//! `a_silent_cheater_gets_no_honest_player_blamed_for_waiting_on_it` in
//! `crates/net/tests/it/adversary.rs`). `players.rs` drops one player's tokens to one peer;
//! here the withholder has read everyone's tokens first.

use std::cell::RefCell;
use std::rc::Rc;

use facedown_core::engine::{Engine, To};
use facedown_core::local::Delivery;
use facedown_core::rng::party_rng;
use facedown_core::table::{FaceDownTable, ShuffleSet};
use facedown_core::{Blame, DriveError, LocalDriver, PartyId, Symbol, TableOp};
use facedown_poker::errors::PokerError;
use facedown_poker::messages::Message;
use facedown_poker::PokerEngine;
use rand_chacha::ChaCha20Rng;

type Player = PokerEngine<ChaCha20Rng>;

const RUSHER: PartyId = PartyId(3);

fn engines(seed: u64) -> Vec<Player> {
    PartyId::all(3)
        .map(|p| PokerEngine::with_rng(p, 3, b"rushing", party_rng(seed, 0, p)).expect("player"))
        .collect()
}

fn is_reveal(d: &Delivery) -> bool {
    matches!(
        Message::from_bytes(d.from, &d.payload),
        Ok(Message::Reveal(_))
    )
}

/// The cards at positions 0 and 1 of a shuffled six-card deck, as an honest table opens them.
fn honest_cards(seed: u64) -> Vec<Symbol> {
    let mut t = LocalDriver::new(engines(seed)).expect("setup");
    t.place(&(0..6).map(Symbol::Card).collect::<Vec<_>>())
        .expect("place");
    t.shuffle(&ShuffleSet::All).expect("shuffle");
    t.turn(&[0, 1]).expect("an honest opening")
}

#[test]
fn the_rushing_withholder_alone_learns_the_cards_and_alone_is_awaited() {
    let seed = 31;
    let want = honest_cards(seed);
    // The withholder's tokens are kept back, to be delivered late.
    let held: Rc<RefCell<Vec<Delivery>>> = Rc::default();
    let keep = Rc::clone(&held);
    let tap = move |d: &mut Delivery| {
        if d.from == RUSHER && is_reveal(d) {
            keep.borrow_mut().push(d.clone());
            return false;
        }
        true
    };
    let mut t = LocalDriver::tapped(engines(seed), tap).expect("setup");
    t.place(&(0..6).map(Symbol::Card).collect::<Vec<_>>())
        .expect("place");
    t.shuffle(&ShuffleSet::All).expect("shuffle");
    let err = t
        .turn(&[0, 1])
        .expect_err("the withholder stops the opening");
    assert!(
        matches!(
            &err,
            DriveError::Stuck {
                party: PartyId(1),
                awaiting,
            } if awaiting == &[RUSHER]
        ),
        "{err}"
    );
    assert_eq!(err.blamed(), Some(RUSHER));
    assert!(t.later_failures().is_empty(), "{:?}", t.later_failures());
    // Each honest player awaits the withholder and nobody else; the withholder awaits
    // nobody: he has read the cards.
    for p in [PartyId(1), PartyId(2)] {
        let e = t.engine(p).expect("seated");
        assert_eq!(e.awaiting(), vec![RUSHER], "{p}");
    }
    assert_eq!(t.engine(RUSHER).expect("seated").awaiting(), vec![]);
    // Nothing honest is lost: the honest players are still in the opening (they refuse to
    // start another operation rather than drop it), and the withheld tokens, delivered
    // late, complete it with the cards an honest table opens.
    let held = held.take();
    assert_eq!(held.len(), 2, "one message to each honest player");
    let mut players = t.into_engines();
    for d in held {
        let p = &mut players[d.to.index()];
        assert_eq!(
            p.start(&TableOp::Finish).expect_err("still opening"),
            PokerError::OutOfOrder("during another operation")
        );
        let step = p.receive(d.from, &d.payload).expect("genuine late tokens");
        let seen = step.done.expect("the opening completes");
        assert_eq!(seen.public, want, "{}", d.to);
    }
}

#[test]
fn sans_io_the_withholder_reads_the_cards_before_sending_anything() {
    // The same attack without a driver: the withholder starts the opening (his engine makes
    // his tokens), receives the others' and is done; the honest players, each given the
    // other's tokens, await him alone.
    let seed = 32;
    let want = honest_cards(seed);
    let mut t = LocalDriver::new(engines(seed)).expect("setup");
    t.place(&(0..6).map(Symbol::Card).collect::<Vec<_>>())
        .expect("place");
    t.shuffle(&ShuffleSet::All).expect("shuffle");
    let mut players = t.into_engines();
    let op = TableOp::turn(&[0, 1]);
    let steps: Vec<_> = players
        .iter_mut()
        .map(|p| p.start(&op).expect("starts"))
        .collect();
    let to = |from: usize, to: PartyId| -> Vec<u8> {
        let sent = steps[from].send.iter().find(|m| m.to == To::Party(to));
        sent.expect("tokens for every other player").payload.clone()
    };
    let rusher = RUSHER.index();
    players[rusher]
        .receive(PartyId(1), &to(0, RUSHER))
        .expect("player 1's tokens");
    let step = players[rusher]
        .receive(PartyId(2), &to(1, RUSHER))
        .expect("player 2's tokens");
    assert_eq!(step.done.map(|s| s.public), Some(want), "he read the cards");
    for (me, other) in [(0, 1), (1, 0)] {
        let from = PartyId::from_index(other);
        let step = players[me]
            .receive(from, &to(other, PartyId::from_index(me)))
            .expect("the other honest player's tokens");
        assert!(step.done.is_none());
        assert_eq!(players[me].awaiting(), vec![RUSHER]);
    }
}
