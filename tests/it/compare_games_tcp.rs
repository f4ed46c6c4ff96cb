//! `facedown compare --network tcp`: the game rows played as processes over TCP on loopback
//! (`play-local`), on every backend including the ideal table's own process — one small
//! workload, a Девятка deal of three — and the flags that do not apply to it refused.

use crate::support::{facedown, run_json};
use facedown::compare::games::{game_entries, measure, GameSet, Network};
use facedown::compare::Backend;

#[test]
fn a_devyatka_row_over_tcp_counts_every_process_and_is_the_game_played_in_memory() {
    let doc = run_json(&[
        "compare",
        "--only",
        "game devyatka",
        "--network",
        "tcp",
        "--seed",
        "5",
        "--json",
    ]);
    assert_eq!(doc["parameters"]["network"], "tcp");
    let rows = doc["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 3, "ideal, dealer, encrypted");
    for r in rows {
        assert_eq!(r["runs"], 1, "{r}");
        assert!(r["messages"].as_f64() > Some(0.0), "{r}");
        assert!(r["cpu_ms"].as_f64() > Some(0.0), "{r}");
        assert!(
            r["game"]["per_trick"]["messages"].as_f64() > Some(0.0),
            "{r}"
        );
        let notes = r["notes"].as_array().expect("notes");
        assert!(notes
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.contains("over TCP"))));
    }
    let ideal = &rows[0];
    assert_eq!(ideal["backend"], "ideal");
    // The same deal as `play-local --backend ideal` from the row's seed (run 0 of seed 5 is 5),
    // with the table process's answers counted.
    let local = run_json(&[
        "play-local",
        "--backend",
        "ideal",
        "--game",
        "devyatka",
        "--players",
        "3",
        "--seed",
        "5",
        "--json",
    ]);
    assert_eq!(
        ideal["messages"].as_f64(),
        local["cost"]["messages"].as_f64()
    );
    assert!(local["table"]["cost"]["messages"].as_u64() > Some(0));
    // And the game the players saw is the one the shared table in memory deals.
    let entry = game_entries(GameSet::Hand)
        .into_iter()
        .find(|e| e.name.starts_with("game devyatka"))
        .expect("a Девятка entry");
    let memory = measure(&entry, Backend::Ideal, 5, None, Network::Memory).expect("in memory");
    let memory = serde_json::to_value(memory.game).expect("json");
    for key in ["deals", "tricks", "hidden_cards_opened"] {
        assert_eq!(ideal["game"][key], memory[key], "{key}");
    }
}

#[test]
fn network_tcp_without_games_or_with_a_latency_is_refused_with_exit_2() {
    for extra in [["--games", "none"], ["--latency", "1ms"]] {
        let mut args = vec!["compare", "--only", "game", "--network", "tcp"];
        args.extend(extra);
        let out = facedown(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
