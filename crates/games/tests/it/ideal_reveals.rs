//! Asking first on the ideal table: an opening or a claim is applied only once every player has
//! asked for it, all in the same words.
//!
//! Before, the trusted table applied every operation when the first player arrived with it, so
//! a player who asked first for "turn every card" saw every card, and a player who asked first
//! for a claim about another's hand ("player 1 holds no heart") learnt whether it was true; the
//! honest players then found the table at a step they did not know and stopped, naming nobody.
//! Now the cheat shows him nothing: the hand stops for everyone at that step, still naming
//! nobody (the table cannot tell which version the game called for), and a false claim that
//! every player asked for still names its owner.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use facedown_core::op::{Opening, TableOp};
use facedown_core::table::FaceDownTable;
use facedown_core::{Blame, PartyId, Symbol};
use facedown_games::session::ideal::{IdealHub, IdealSteps, IdealViewError};
use facedown_games::session::ideal_table::{Answer, Refusal, Reply, Request, TableServer};

use crate::support::table::refusals;

const ASKER: PartyId = PartyId(2);

fn apply(op: TableOp) -> Request {
    Request::Apply { hand: 0, op }
}

/// Four cards placed face up, then shown one each to players 1, 2 and 3 (positions 0, 1, 2).
fn dealt(table: &mut TableServer) {
    let place = four_cards();
    let deal = TableOp::Open(Opening {
        public: Vec::new(),
        private: vec![
            (PartyId(1), vec![0]),
            (PartyId(2), vec![1]),
            (PartyId(3), vec![2]),
        ],
    });
    for op in [place, deal] {
        let answers: Vec<Answer> = PartyId::all(3)
            .flat_map(|p| table.receive(p, 0, apply(op.clone())))
            .collect();
        assert_eq!(answers.len(), 3, "{op:?}: {answers:?}");
        assert!(answers.iter().all(|a| matches!(a.reply, Reply::Shown(_))));
    }
}

fn four_cards() -> TableOp {
    TableOp::Place(vec![
        Symbol::Heart,
        Symbol::Club,
        Symbol::Heart,
        Symbol::Club,
    ])
}

fn turn_every_card() -> TableOp {
    TableOp::Open(Opening {
        public: vec![0, 1, 2, 3],
        private: Vec::new(),
    })
}

fn turn_the_last_card() -> TableOp {
    TableOp::Open(Opening {
        public: vec![3],
        private: Vec::new(),
    })
}

#[test]
fn an_opening_asked_first_by_one_player_turns_nothing_until_every_player_asks() {
    let mut table = TableServer::new(3, 5);
    dealt(&mut table);
    assert!(
        table.receive(ASKER, 0, apply(turn_every_card())).is_empty(),
        "the table waits for the others before turning anything"
    );
    let mut answers = table.receive(PartyId(1), 0, apply(turn_the_last_card()));
    assert!(answers.is_empty(), "{answers:?}");
    answers = table.receive(PartyId(3), 0, apply(turn_the_last_card()));
    let refused = refusals(&answers);
    assert_eq!(refused.len(), 3, "every player hears the hand stopped");
    for (who, refusal) in refused {
        assert_eq!(refusal, Refusal::Diverged { step: 2 });
        assert_eq!(refusal.into_error(who).blamed(), None, "nobody is named");
    }
    assert_eq!(table.counts().applied, 2, "only the place and the deal");
}

#[test]
fn a_hand_stopped_at_an_opening_stays_stopped_for_a_player_who_asks_again() {
    let mut table = TableServer::new(3, 5);
    dealt(&mut table);
    table.receive(ASKER, 0, apply(turn_every_card()));
    table.receive(PartyId(1), 0, apply(turn_the_last_card()));
    table.receive(PartyId(3), 0, apply(turn_the_last_card()));
    for who in PartyId::all(3) {
        let again = refusals(&table.receive(who, 0, apply(turn_every_card())));
        assert_eq!(again, [(who, Refusal::Diverged { step: 2 })]);
    }
}

#[test]
fn an_opening_every_player_asks_for_is_shown_to_all() {
    let mut table = TableServer::new(3, 5);
    dealt(&mut table);
    let mut answers = Vec::new();
    for who in PartyId::all(3) {
        answers.extend(table.receive(who, 0, apply(turn_the_last_card())));
    }
    assert_eq!(answers.len(), 3);
    for a in answers {
        let Reply::Shown(seen) = a.reply else {
            panic!("{a:?}")
        };
        assert_eq!(seen.public, [Symbol::Club]);
    }
}

/// Player 2 asks the table whether player 1's card is a heart (a false claim in player 1's
/// name): the table never tests it, and player 1 is not named.
#[test]
fn a_claim_about_another_players_hand_asked_first_tells_the_asker_nothing() {
    let mut table = TableServer::new(3, 5);
    dealt(&mut table);
    let forged = TableOp::ProveNoneOf {
        owner: PartyId(1),
        positions: vec![0],
        excluded: vec![Symbol::Heart],
    };
    assert!(table.receive(ASKER, 0, apply(forged)).is_empty());
    let mut answers = table.receive(PartyId(1), 0, apply(turn_the_last_card()));
    answers.extend(table.receive(PartyId(3), 0, apply(turn_the_last_card())));
    for (who, refusal) in refusals(&answers) {
        assert_eq!(refusal, Refusal::Diverged { step: 2 }, "{who}");
        assert_eq!(refusal.into_error(who).blamed(), None);
    }
}

#[test]
fn a_false_claim_every_player_asks_for_names_its_owner_to_all() {
    let mut table = TableServer::new(3, 5);
    dealt(&mut table);
    let claim = TableOp::ProveNoneOf {
        owner: PartyId(1),
        positions: vec![0],
        excluded: vec![Symbol::Heart],
    };
    let answers: Vec<Answer> = PartyId::all(3)
        .flat_map(|p| table.receive(p, 0, apply(claim.clone())))
        .collect();
    let refused = refusals(&answers);
    assert_eq!(refused.len(), 3);
    for (who, refusal) in refused {
        assert_eq!(refusal.into_error(who).blamed(), Some(PartyId(1)));
    }
}

/// In memory, one thread per player: the players waiting at the stopped step are woken and
/// refused at once (not left to their timeout).
#[test]
fn the_shared_table_wakes_every_waiting_player_when_a_step_stops() {
    let hub = IdealHub::new(3, facedown_core::rng::trial_rng(5, 0));
    let timeout = Duration::from_secs(60);
    let place = four_cards();
    let players: Vec<_> = PartyId::all(3)
        .map(|me| {
            let (hub, place) = (Arc::clone(&hub), place.clone());
            thread::spawn(move || {
                let mut view = hub.view(me, timeout);
                view.apply(&place).expect("placed");
                let mine = match me {
                    ASKER => turn_every_card(),
                    _ => turn_the_last_card(),
                };
                view.apply(&mine)
            })
        })
        .collect();
    for (me, player) in PartyId::all(3).zip(players) {
        let outcome = player.join().expect("the player's thread");
        assert!(
            matches!(outcome, Err(IdealViewError::Diverged { step: 1, .. })),
            "{me}: {outcome:?}"
        );
    }
}

#[test]
fn the_shared_table_turns_an_opening_only_on_the_last_players_request() {
    let mut steps = IdealSteps::new(3, facedown_core::rng::trial_rng(5, 0));
    let place = TableOp::Place(vec![Symbol::Heart, Symbol::Club]);
    assert!(steps
        .offer(PartyId(1), 0, &place)
        .expect("placed")
        .is_some());
    let turn = TableOp::Open(Opening {
        public: vec![1],
        private: Vec::new(),
    });
    assert_eq!(steps.offer(ASKER, 1, &turn).expect("asked"), None);
    assert_eq!(steps.applied(), 1, "nothing turned on one request");
    assert_eq!(steps.offer(PartyId(1), 1, &turn).expect("asked"), None);
    let seen = steps.offer(PartyId(3), 1, &turn).expect("turned");
    assert_eq!(seen.map(|s| s.public), Some(vec![Symbol::Club]));
    let late = steps.offer(ASKER, 1, &turn).expect("shown");
    assert_eq!(late.map(|s| s.public), Some(vec![Symbol::Club]));
}
