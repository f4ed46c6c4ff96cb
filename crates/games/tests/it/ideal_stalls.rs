//! Omission on the ideal table: a player who never asks for an opening, never lays his
//! commitment, or leaves, is named by the trusted table to the players it keeps waiting.
//!
//! Since an opening is applied only when every player has asked for it, one player who stays
//! silent stops the hand for everyone. Before, each waiting player gave up on his own timeout
//! naming nobody (the encrypted deck and the dealer name a silent peer). The table knows who
//! has asked, so when exactly one player is missing it names him; with two or more missing it
//! names nobody and lists them (any of them may be the one who stalled the others). An honest
//! player is never missing at a step the table has not applied: every earlier step is applied,
//! so nothing of the table holds him back.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use facedown_core::op::{CommitCards, Opening, TableOp};
use facedown_core::table::FaceDownTable;
use facedown_core::{Blame, PartyId, Symbol};
use facedown_games::session::ideal::{IdealHub, IdealSteps, IdealViewError};
use facedown_games::session::ideal_table::{Refusal, Reply, Request, TableServer};

use crate::support::table::refusals;

const SILENT: PartyId = PartyId(3);

fn apply(op: TableOp) -> Request {
    Request::Apply { hand: 0, op }
}

fn two_cards() -> TableOp {
    TableOp::Place(vec![Symbol::Heart, Symbol::Club])
}

fn turn_the_second_card() -> TableOp {
    TableOp::Open(Opening {
        public: vec![1],
        private: Vec::new(),
    })
}

/// Player 3's commitment of one card, as the others know it.
fn players_3_commitment_unseen() -> TableOp {
    TableOp::Commit {
        party: SILENT,
        cards: CommitCards::Hidden(vec![Symbol::Heart]),
    }
}

/// Players `askers` place two cards and ask to turn the second, in memory, one thread each;
/// what each one's request ends with.
fn ask_in_memory(askers: &[PartyId], timeout: Duration) -> Vec<Result<(), IdealViewError>> {
    let hub = IdealHub::new(3, facedown_core::rng::trial_rng(9, 0));
    let threads: Vec<_> = askers
        .iter()
        .map(|&me| {
            let hub = Arc::clone(&hub);
            thread::spawn(move || {
                let mut view = hub.view(me, timeout);
                view.apply(&two_cards()).expect("placed");
                view.apply(&turn_the_second_card()).map(drop)
            })
        })
        .collect();
    threads
        .into_iter()
        .map(|t| t.join().expect("the player's thread"))
        .collect()
}

#[test]
fn a_player_who_never_asks_for_an_opening_is_named_to_those_who_asked() {
    // Long enough for both askers to have asked before either gives up, on a loaded machine.
    let outcomes = ask_in_memory(&[PartyId(1), PartyId(2)], Duration::from_secs(3));
    for outcome in outcomes {
        let e = outcome.expect_err("the table waits for player 3");
        assert!(
            matches!(&e, IdealViewError::Timeout { awaited, step: 1, .. } if awaited == &[SILENT]),
            "{e:?}"
        );
        assert_eq!(e.blamed(), Some(SILENT), "{e}");
        assert!(e.to_string().contains("still waited for player 3"), "{e}");
    }
}

#[test]
fn two_players_who_never_ask_are_listed_and_nobody_is_named() {
    let outcomes = ask_in_memory(&[PartyId(1)], Duration::from_millis(300));
    let e = outcomes
        .into_iter()
        .next()
        .expect("one asker")
        .expect_err("the table waits for two players");
    assert!(
        matches!(&e, IdealViewError::Timeout { awaited, .. } if awaited == &[PartyId(2), SILENT]),
        "{e:?}"
    );
    assert_eq!(e.blamed(), None, "either may have stalled the other: {e}");
}

#[test]
fn a_commitment_its_author_never_lays_names_him() {
    let hub = IdealHub::new(3, facedown_core::rng::trial_rng(9, 0));
    let mut view = hub.view(PartyId(1), Duration::from_millis(200));
    let e = view
        .apply(&players_3_commitment_unseen())
        .expect_err("player 3 never lays it");
    assert_eq!(e.blamed(), Some(SILENT), "{e}");
}

#[test]
fn the_table_awaits_nobody_once_a_step_is_applied_or_stopped() {
    let mut steps = IdealSteps::new(3, facedown_core::rng::trial_rng(9, 0));
    let turn = turn_the_second_card();
    assert!(
        steps.awaited(0, &two_cards()).is_empty(),
        "a placement waits for nobody"
    );
    steps.offer(PartyId(1), 0, &two_cards()).expect("placed");
    assert_eq!(steps.awaited(1, &turn), PartyId::all(3).collect::<Vec<_>>());
    steps.offer(PartyId(2), 1, &turn).expect("asked");
    assert_eq!(steps.awaited(1, &turn), vec![PartyId(1), SILENT]);
    steps.offer(PartyId(1), 1, &turn).expect("asked");
    steps.offer(SILENT, 1, &turn).expect("turned");
    assert!(steps.awaited(1, &turn).is_empty(), "turned");
}

/// The table process: players 1 and 2 have placed two cards and asked to turn the second;
/// player 3 placed them too and is silent.
fn waiting_at_the_opening() -> TableServer {
    let mut table = TableServer::new(3, 9);
    for p in PartyId::all(3) {
        let answers = table.receive(p, 0, apply(two_cards()));
        assert!(answers.iter().all(|a| matches!(a.reply, Reply::Shown(_))));
    }
    for p in [PartyId(1), PartyId(2)] {
        assert!(table
            .receive(p, 1, apply(turn_the_second_card()))
            .is_empty());
    }
    table
}

fn left_at_step_1() -> Refusal {
    Refusal::Left {
        player: SILENT,
        step: 1,
    }
}

#[test]
fn a_player_whose_link_closes_while_others_wait_for_him_is_named_to_them() {
    let mut table = waiting_at_the_opening();
    let (playing, answers) = table.leave(SILENT);
    assert!(playing);
    let refused = refusals(&answers);
    assert_eq!(
        refused,
        vec![
            (PartyId(1), left_at_step_1()),
            (PartyId(2), left_at_step_1())
        ]
    );
    for (me, why) in refused {
        assert_eq!(why.into_error(me).blamed(), Some(SILENT));
    }
}

#[test]
fn a_goodbye_while_others_wait_for_him_names_him() {
    let mut table = waiting_at_the_opening();
    let answers = table.receive(SILENT, 2, Request::Bye);
    assert_eq!(refusals(&answers).len(), 2, "{answers:?}");
    assert!(refusals(&answers)
        .iter()
        .all(|(_, why)| *why == left_at_step_1()));
}

#[test]
fn a_request_that_waits_for_a_player_already_gone_is_refused_at_once() {
    let mut table = TableServer::new(3, 9);
    for p in PartyId::all(3) {
        table.receive(p, 0, apply(two_cards()));
    }
    assert!(table.leave(SILENT).1.is_empty(), "nobody waited yet");
    let answers = table.receive(PartyId(1), 1, apply(turn_the_second_card()));
    assert_eq!(refusals(&answers), vec![(PartyId(1), left_at_step_1())]);
}

#[test]
fn a_silent_table_refuses_each_waiting_request_naming_whom_it_waits_for() {
    let mut table = waiting_at_the_opening();
    let answers = table.stalled(250);
    let stalled = Refusal::Stalled {
        step: 1,
        awaited: vec![SILENT],
        waited_ms: 250,
    };
    let refused = refusals(&answers);
    assert_eq!(
        refused,
        vec![(PartyId(1), stalled.clone()), (PartyId(2), stalled)]
    );
    for (me, why) in refused {
        let e = why.into_error(me);
        assert!(matches!(e, IdealViewError::Timeout { .. }), "{e:?}");
        assert_eq!(e.blamed(), Some(SILENT), "{e}");
    }
    assert!(
        table.stalled(250).is_empty(),
        "each request is refused once"
    );
}

#[test]
fn a_silent_table_refuses_nothing_while_nobody_waits() {
    let mut table = TableServer::new(3, 9);
    table.receive(PartyId(1), 0, apply(two_cards()));
    assert!(table.stalled(250).is_empty());
}
