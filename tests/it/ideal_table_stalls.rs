//! The table process names the player it waits for: one who leaves, or stays silent, while the
//! others wait for him to ask for an opening. The table runs `serve_table` over the in-memory
//! network, each player his `RemoteTables` view, as `play-local --backend ideal` does over TCP.

use std::thread;
use std::time::Duration;

use facedown::ideal_net::{serve_table, RemoteTableError, RemoteTables};
use facedown_core::op::{Opening, TableOp};
use facedown_core::table::FaceDownTable;
use facedown_core::{Blame, PartyId, Symbol};
use facedown_games::session::ideal::IdealViewError;
use facedown_games::session::ideal_table::TableShuffles;
use facedown_games::session::ninety_nine::Tables;
use facedown_net::{memory_network, MemoryChannel};

const PLAYERS: usize = 3;
const SILENT: PartyId = PartyId(3);
/// Long enough for players 1 and 2 to have asked before the table hears nothing for this long,
/// on a loaded machine.
const TIMEOUT: Duration = Duration::from_secs(2);

type Outcome = Result<Option<RemoteTables<MemoryChannel>>, RemoteTableError>;

/// The player at `chan` places two cards and, unless he is player 3, asks to turn the second;
/// player 3 keeps his tables (and so his link) for the test to hold or drop.
fn place_then_ask(chan: MemoryChannel) -> Outcome {
    let me = facedown_net::Channel::me(&chan);
    let mut tables = RemoteTables::new(chan, PLAYERS, TIMEOUT)?;
    let mut view = tables.open(0)?;
    view.apply(&TableOp::Place(vec![Symbol::Heart, Symbol::Club]))?;
    if me == SILENT {
        tables.close(view)?;
        return Ok(Some(tables));
    }
    let second = Opening {
        public: vec![1],
        private: Vec::new(),
    };
    view.apply(&TableOp::Open(second)).map(|_| None)
}

/// Players 1 and 2 place two cards and ask to turn the second; player 3 places them and then
/// does what `silent` does with his link. What players 1 and 2 end with.
fn two_ask_and_player_3(
    silent: impl FnOnce(RemoteTables<MemoryChannel>),
) -> Vec<Result<(), RemoteTableError>> {
    let mut chans = memory_network(PLAYERS + 1, None);
    let table_chan = chans.pop().expect("the table's end");
    let table = thread::spawn(move || serve_table(table_chan, TableShuffles::Seed(7), TIMEOUT));
    let mut players: Vec<_> = chans
        .into_iter()
        .map(|chan| thread::spawn(move || place_then_ask(chan)))
        .collect();
    let third = players.pop().expect("player 3");
    let tables = third
        .join()
        .expect("player 3's thread")
        .expect("player 3 placed")
        .expect("player 3's tables");
    silent(tables);
    let outcomes = players
        .into_iter()
        .map(|p| p.join().expect("a player's thread").map(drop))
        .collect();
    let _ = table.join().expect("the table's thread");
    outcomes
}

fn assert_named(outcomes: Vec<Result<(), RemoteTableError>>, what: &str) {
    assert_eq!(outcomes.len(), 2);
    for outcome in outcomes {
        let e = outcome.expect_err("the table waits for player 3");
        assert_eq!(e.blamed(), Some(SILENT), "{what}: {e}");
    }
}

#[test]
fn a_player_who_leaves_while_the_others_wait_for_his_request_is_named_to_them() {
    let outcomes = two_ask_and_player_3(drop);
    for outcome in &outcomes {
        assert!(
            matches!(
                outcome,
                Err(RemoteTableError::View(IdealViewError::Left {
                    player: SILENT,
                    step: 1
                }))
            ),
            "{outcome:?}"
        );
    }
    assert_named(outcomes, "player 3 left");
}

#[test]
fn a_player_who_stays_silent_while_the_others_wait_for_his_request_is_named_to_them() {
    let outcomes = two_ask_and_player_3(|tables| {
        thread::sleep(TIMEOUT * 2);
        drop(tables);
    });
    for outcome in &outcomes {
        assert!(
            matches!(
                outcome,
                Err(RemoteTableError::View(IdealViewError::Timeout { awaited, .. }))
                    if awaited == &[SILENT]
            ),
            "{outcome:?}"
        );
    }
    assert_named(outcomes, "player 3 stayed silent");
}
