//! The table process names the player it waits for: one who leaves, or stays silent, while the
//! others wait for him to ask for an opening. The table runs `serve_table` over the in-memory
//! network, each player his `RemoteTables` view, as `play-local --backend ideal` does over TCP.

use std::thread;
use std::time::Duration;

use facedown::ideal_net::{serve_table, RemoteTableError, RemoteTables};
use facedown_core::op::{Opening, TableOp};
use facedown_core::rng::Randomness;
use facedown_core::table::FaceDownTable;
use facedown_core::{Blame, PartyId, Symbol};
use facedown_games::session::ideal::IdealViewError;
use facedown_games::session::ninety_nine::Tables;
use facedown_net::{memory_network, MemoryChannel};

const PLAYERS: usize = 3;
const SILENT: PartyId = PartyId(3);
/// Long enough for players 1 and 2 to have asked before the table hears nothing for this long,
/// on a loaded machine.
const TIMEOUT: Duration = Duration::from_secs(2);

/// The player at `chan` places two cards and asks to turn the second.
fn place_then_ask(chan: MemoryChannel) -> Result<(), RemoteTableError> {
    let mut tables = RemoteTables::new(chan, PLAYERS, TIMEOUT)?;
    let mut view = tables.open(0)?;
    view.apply(&TableOp::Place(vec![Symbol::Heart, Symbol::Club]))?;
    let second = Opening {
        public: vec![1],
        private: Vec::new(),
    };
    view.apply(&TableOp::Open(second)).map(drop)
}

/// Players 1 and 2 place two cards and ask to turn the second; player 3 never asks, and does
/// what `third` does with his link. What players 1 and 2 end with.
fn two_ask_and_player_3(third: impl FnOnce(MemoryChannel)) -> Vec<Result<(), RemoteTableError>> {
    let mut chans = memory_network(PLAYERS + 1, None);
    let table_chan = chans.pop().expect("the table's end");
    let table = thread::spawn(move || serve_table(table_chan, Randomness::Seed(7), TIMEOUT));
    let silent = chans.pop().expect("player 3's end");
    let players: Vec<_> = chans
        .into_iter()
        .map(|chan| thread::spawn(move || place_then_ask(chan)))
        .collect();
    third(silent);
    let outcomes = players
        .into_iter()
        .map(|p| p.join().expect("a player's thread"))
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

/// The table refused each waiting request as stalled by player 3 alone, naming him.
fn assert_stalled_by_player_3(outcomes: Vec<Result<(), RemoteTableError>>, what: &str) {
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
    assert_named(outcomes, what);
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
    let outcomes = two_ask_and_player_3(|chan| {
        thread::sleep(TIMEOUT * 2);
        drop(chan);
    });
    assert_stalled_by_player_3(outcomes, "player 3 stayed silent");
}

/// Player 3 keeps the table busy with requests it refuses (undecodable ones, every 50 ms) so
/// that it never hears silence; the table still refuses the others' waiting requests once no
/// operation has been applied for its timeout, and names him.
#[test]
fn a_player_who_floods_the_table_instead_of_asking_is_still_named_to_the_others() {
    let outcomes = two_ask_and_player_3(|mut chan| {
        let table = facedown::ideal_net::table_party(PLAYERS + 1);
        let until = std::time::Instant::now() + TIMEOUT * 2;
        while std::time::Instant::now() < until {
            let _ = facedown_net::Channel::send(&mut chan, table, 1, b"not a request");
            thread::sleep(Duration::from_millis(50));
        }
    });
    assert_stalled_by_player_3(outcomes, "player 3 flooded the table");
}
