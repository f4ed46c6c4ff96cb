//! `facedown play-local --game ninety-nine`: whole games with one process per player over TCP
//! on loopback — an honest game to 100 never blamed, a cheat caught and named by every player
//! (exit status 3), flags that do not apply refused.

use std::process::Command;

use serde_json::Value;

/// Runs `facedown ARGS` (split at spaces): its JSON, exit status and standard error.
fn run(args: &str) -> (Value, Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(args.split_whitespace())
        .output()
        .expect("facedown runs");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        doc,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

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
fn game_flags_that_do_not_apply_are_refused() {
    for args in [
        "play-local --players 2 --backend dealer --game ninety-nine --variant two-dummy --seed 1",
        "play-local --players 3 --backend poker --game chess --seed 1",
        "play-local --players 3 --backend poker --game ninety-nine --cheat 9:revoke --seed 1",
        "play-local --players 3 --backend poker --game ninety-nine --cheat 1:peek --seed 1",
        "play-local --players 3 --backend poker --workload ninety-nine --cheat 1:revoke",
    ] {
        let (_, code, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
    }
}
