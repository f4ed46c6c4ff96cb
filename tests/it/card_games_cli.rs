//! `facedown play-local --game golf|devyatka`: Golf and Девятка with one process per player over
//! TCP on loopback, on the encrypted deck — an honest nine-round Golf game and honest Девятка
//! deals where every player agrees and nobody is blamed, each game's cheat named by every
//! player (exit status 3), and flags that do not apply refused (exit status 2).

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

fn assert_all_agree(doc: &Value, key: &str) {
    assert_eq!(doc["agreed"], true);
    let views = doc["views"].as_array().expect("views");
    assert_eq!(
        views.len(),
        doc["players"].as_u64().expect("players") as usize
    );
    for v in views {
        assert_eq!(v["game"][key], views[0]["game"][key], "every player agrees");
        assert!(v["cost"]["messages"].as_u64() > Some(0), "{v}");
    }
}

#[test]
fn an_honest_nine_round_golf_game_over_tcp_is_never_blamed_and_every_player_agrees() {
    let (doc, code, err) = run(
        "play-local --players 2 --backend poker --game golf --seed 3 --timeout-ms 60000 --json",
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(doc["offender"].is_null());
    assert_eq!(doc["deals"], 9);
    assert_all_agree(&doc, "result");
    let totals = doc["views"][0]["game"]["result"]["totals"]
        .as_array()
        .expect("totals");
    assert_eq!(totals.len(), 2);
}

#[test]
fn honest_devyatka_deals_of_three_and_four_over_tcp_are_never_blamed() {
    for players in [3, 4] {
        let (doc, code, err) = run(&format!(
            "play-local --players {players} --backend poker --game devyatka --seed 2 --json"
        ));
        assert_eq!(code, Some(0), "{err}");
        assert!(doc["offender"].is_null());
        assert_all_agree(&doc, "outcome");
        let holds = doc["views"][0]["game"]["outcome"]["holds"]
            .as_array()
            .expect("holds");
        assert_eq!(holds.iter().filter(|h| h.as_u64() == Some(0)).count(), 1);
    }
}

#[test]
fn a_cheat_at_golf_or_devyatka_over_tcp_is_named_by_every_player_and_exits_3() {
    for (args, cheater) in [
        ("--players 3 --game golf --deals 1 --cheat 2:not-his", 2),
        ("--players 2 --game golf --deals 1 --cheat 1:peek", 1),
        ("--players 3 --game devyatka --cheat 3:not-playable", 3),
        ("--players 4 --game devyatka --cheat 1:false-pass", 1),
    ] {
        let (doc, code, err) = run(&format!(
            "play-local --backend poker {args} --seed 1 --timeout-ms 60000 --json"
        ));
        assert_eq!(code, Some(3), "{args}: {err}");
        assert_eq!(doc["agreed"], true, "{args}");
        assert_eq!(doc["offender"], cheater, "{args}");
    }
}

#[test]
fn golf_and_devyatka_flags_that_do_not_apply_are_refused() {
    for args in [
        "--players 3 --backend dealer --game golf",
        "--players 5 --backend poker --game devyatka",
        "--players 3 --backend poker --game devyatka --variant six",
        "--players 3 --backend poker --game devyatka --deals 2",
        "--players 2 --backend poker --game golf --variant seven",
        "--players 2 --backend poker --game golf --cheat 1:revoke",
        "--players 2 --backend poker --game golf --cheat 3:peek",
        "--players 9 --backend poker --game golf",
    ] {
        let (_, code, err) = run(&format!("play-local {args} --seed 1"));
        assert_eq!(code, Some(2), "{args:?}: {err}");
    }
}
