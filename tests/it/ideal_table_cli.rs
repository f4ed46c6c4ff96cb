//! `facedown play-local --backend ideal`: whole games on the ideal table with one process per
//! player and the trusted table as a process of its own, over TCP with Noise on loopback — an
//! honest Ninety-Nine deal (the same game as on the shared table in memory), an honest game to
//! 100, an honest Golf game and an honest Девятка deal where nobody is blamed, one cheat per game
//! named by every player and nobody else (exit status 3), and the flags that do not apply refused
//! (exit 2).

use std::time::Duration;

use facedown::core::rng::Randomness;
use facedown::table_game::{play_threads, GameBackend, GameSpec};
use facedown_games::ninety_nine::{Length, Variant};
use serde_json::Value;

use crate::support::{facedown, run_split};

/// Runs `facedown play-local --backend ideal ARGS --json`: its JSON and exit status.
fn play(args: &str) -> (Value, Option<i32>) {
    let (doc, code, err) = run_split(&format!("play-local --backend ideal --json {args}"));
    assert!(doc.is_object(), "{args}: {err}");
    (doc, code)
}

/// Every player's process reported, each blaming `offender` (`null`: nobody); and the table
/// process answered every request the players sent but their goodbyes.
fn assert_views(doc: &Value, offender: Value) {
    let views = doc["views"].as_array().expect("views");
    let players = doc["players"].as_u64().expect("players") as usize;
    assert_eq!(views.len(), players, "{}", doc["errors"]);
    assert_eq!(doc["agreed"], true);
    assert_eq!(doc["offender"], offender);
    for v in views {
        assert_eq!(v["game"]["verdict"]["offender"], offender, "{v}");
    }
    let sent: u64 = views
        .iter()
        .map(|v| v["cost"]["messages"].as_u64().expect("messages"))
        .sum();
    let table = &doc["table"];
    assert_eq!(table["players"], players);
    assert_eq!(
        table["counts"]["answered"].as_u64(),
        Some(sent - players as u64)
    );
    assert_eq!(table["cost"]["messages"], table["counts"]["answered"]);
    assert_eq!(table["left"], serde_json::json!([]));
}

/// An honest game: exit 0, nobody blamed by anyone.
fn honest(args: &str) -> Value {
    let (doc, code) = play(args);
    assert_eq!(code, Some(0), "{args}");
    assert_views(&doc, Value::Null);
    doc
}

#[test]
fn an_honest_ninety_nine_deal_over_tcp_is_the_same_game_as_on_the_shared_table_in_memory() {
    let doc = honest("--game ninety-nine --players 3 --deals 1 --seed 11");
    assert_eq!(doc["tricks"], 9);
    let spec = GameSpec {
        backend: GameBackend::Ideal,
        variant: Variant::Revised,
        length: Length::Deals(1),
        randomness: Randomness::Seed(11),
        cheat: None,
        context: Vec::new(),
        timeout: Duration::from_secs(10),
    };
    let in_memory = play_threads(&spec);
    for (v, mem) in doc["views"]
        .as_array()
        .expect("views")
        .iter()
        .zip(in_memory)
    {
        let mem = serde_json::to_value(mem.expect("in memory").game).expect("json");
        assert_eq!(v["game"], mem, "player {}", v["player"]);
    }
}

#[test]
fn an_honest_three_player_game_to_100_on_the_ideal_table_over_tcp_is_never_blamed() {
    let doc = honest("--game ninety-nine --players 3 --seed 7 --timeout-ms 60000");
    let views = doc["views"].as_array().expect("views");
    let totals = &views[0]["game"]["standing"]["totals"];
    let totals_list = totals.as_array().expect("totals");
    assert!(
        totals_list.iter().any(|t| t.as_i64() >= Some(100)),
        "the game runs to 100: {totals}"
    );
    for v in views {
        assert_eq!(
            &v["game"]["standing"]["totals"], totals,
            "every player agrees"
        );
    }
}

#[test]
fn an_honest_golf_game_and_devyatka_deal_over_tcp_are_never_blamed() {
    let golf = honest("--game golf --players 2 --seed 3 --timeout-ms 60000");
    assert_eq!(golf["deals"], 9);
    let devyatka = honest("--game devyatka --players 3 --seed 2");
    let holds = devyatka["views"][0]["game"]["outcome"]["holds"]
        .as_array()
        .expect("holds");
    assert_eq!(holds.iter().filter(|h| h.as_u64() == Some(0)).count(), 1);
}

#[test]
fn one_cheat_per_game_over_tcp_is_named_at_play_time_by_every_player_and_exits_3() {
    for (args, cheater) in [
        (
            "--game ninety-nine --players 3 --deals 1 --cheat 2:revoke",
            2,
        ),
        ("--game golf --players 3 --deals 1 --cheat 1:not-his", 1),
        ("--game devyatka --players 3 --cheat 3:false-pass", 3),
    ] {
        let (doc, code) = play(&format!("{args} --seed 7"));
        assert_eq!(code, Some(3), "{args}");
        assert_views(&doc, cheater.into());
        for v in doc["views"].as_array().expect("views") {
            assert_eq!(v["game"]["verdict"]["at_play_time"], true, "{args}: {v}");
        }
    }
}

#[test]
fn a_workload_or_the_table_flag_on_play_local_is_refused_with_exit_2() {
    for args in [
        "--workload poker52",
        "--game golf --table",
        "--workload poker52 --table",
    ] {
        let mut all = vec!["play-local", "--players", "3", "--backend", "ideal"];
        all.extend(args.split_whitespace());
        assert_eq!(facedown(&all).status.code(), Some(2), "{args}");
    }
}
