//! `facedown play-local --game ninety-nine`: whole games with one process per player over TCP
//! on loopback — an honest game to 100 never blamed, a cheat caught and named by every player
//! (exit status 3), flags that do not apply refused.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::run_split as run;
use serde_json::Value;

#[test]
fn a_three_player_game_to_100_on_the_encrypted_deck_over_tcp_is_never_blamed() {
    let (doc, code, err) = run("play-local --players 3 --backend poker --game ninety-nine --seed 7 --timeout-ms 60000 --json");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(doc["agreed"], true);
    assert!(doc["offender"].is_null());
    let views = doc["views"].as_array().expect("views");
    assert_eq!(views.len(), 3);
    let totals = &views[0]["game"]["standing"]["totals"];
    assert!(totals
        .as_array()
        .expect("totals")
        .iter()
        .any(|t| t.as_i64() >= Some(100)));
    for v in views {
        assert_eq!(
            &v["game"]["standing"]["totals"], totals,
            "every player agrees"
        );
    }
}

#[test]
fn a_cheat_over_tcp_is_named_by_every_player_and_exits_3() {
    let (doc, code, err) = run("play-local --players 2 --backend poker --game ninety-nine --variant two-dummy --deals 1 --cheat 2:not-in-hand --seed 1 --json");
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(doc["agreed"], true);
    assert_eq!(doc["offender"], 2);
}

#[test]
fn a_person_plays_a_seat_through_stdin_and_is_told_when_a_move_is_wrong() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args("play-local --players 3 --backend dealer --game ninety-nine --deals 1 --interactive 2 --seed 5 --timeout-ms 60000 --json".split_whitespace())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("facedown runs");
    let script = format!("nonsense\n999\n{}", "1\n".repeat(40));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("written");
    let out = child.wait_with_output().expect("it ends");
    let screen = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{screen}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["agreed"], true);
    assert!(doc["offender"].is_null());
    assert_eq!(doc["parameters"]["interactive"], 2);
    assert!(
        screen.contains("P2 (you)") || screen.contains("(you)"),
        "{screen}"
    );
    assert!(screen.contains("your hand: "), "{screen}");
    assert!(screen.contains("not a legal move: `nonsense`"), "{screen}");
    assert!(screen.contains("there is no move 999"), "{screen}");
    assert_eq!(screen.matches("you: play ").count(), 9, "{screen}");
}

#[test]
fn game_flags_that_do_not_apply_are_refused() {
    for args in [
        "play-local --players 2 --backend dealer --game ninety-nine --variant two-dummy --seed 1",
        "play-local --players 3 --backend poker --game chess --seed 1",
        "play-local --players 3 --backend poker --game ninety-nine --cheat 9:revoke --seed 1",
        "play-local --players 3 --backend poker --game ninety-nine --cheat 1:peek --seed 1",
        "play-local --players 3 --backend poker --workload ninety-nine --cheat 1:revoke",
        "play-local --players 3 --backend poker --game ninety-nine --interactive 4 --seed 1",
        "play-local --players 3 --backend poker --game ninety-nine --interactive 1 --cheat 1:revoke --seed 1",
        "play-local --players 3 --backend poker --workload ninety-nine --interactive 1",
    ] {
        let (_, code, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
    }
}
