//! What the networked tables refuse, each player on his own: a number protocol, an input on
//! one card, a private operation. Every player stops with a workload error that says why —
//! not a roster error, and blaming nobody, since the protocol is the same for everyone.

use std::time::Duration;

use facedown::net::NetError;
use facedown::play::{play_in_memory, player_rng, Backend, GameSpec};
use facedown::workload::Workload;

fn spec(name: &str, backend: Backend) -> GameSpec {
    GameSpec {
        backend,
        workload: Workload::parse(name).expect("a library protocol"),
        players: 2,
        context: b"table-refusals".to_vec(),
        timeout: Duration::from_secs(10),
    }
}

#[test]
fn every_player_refuses_numbers_one_card_inputs_and_private_operations_blaming_nobody() {
    let cases = [
        ("one-hot-add-mod-3", "number inputs"),
        ("one-card-five-card-trick-attempt", "on one card"),
        ("private-three-card-and", "private operation"),
    ];
    for (name, why) in cases {
        for backend in [Backend::Dealer, Backend::Poker] {
            let err = play_in_memory(&spec(name, backend), &[true, false], None, |p| {
                player_rng(7, p)
            })
            .expect_err("refused");
            assert!(
                matches!(&err, NetError::Workload(reason) if reason.contains(why)),
                "{name} on {backend:?}: {err}"
            );
            assert_eq!(err.blamed(), None, "{name}: nobody cheated");
        }
    }
}

#[test]
fn the_wrong_number_of_input_bits_is_a_workload_error() {
    let err = play_in_memory(
        &spec("five-card-trick", Backend::Dealer),
        &[true],
        None,
        |p| player_rng(7, p),
    )
    .expect_err("one bit for two inputs");
    assert!(matches!(err, NetError::Workload(_)), "{err}");
}
