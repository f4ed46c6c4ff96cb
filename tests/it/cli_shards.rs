//! The seeded Monte-Carlo commands (and the Devyatka importance sample and searches) split
//! with `--shard I/K` and put back together with `facedown merge --json`: for each, three
//! shards merge to the unsplit run's document (the timings aside), and a missing shard or a
//! shard of another seed is refused. `games solve` refuses `--shard`.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::{facedown, json_of, run_json};

/// Fields that are measurements, not results: they differ from run to run.
const TIMINGS: [&str; 4] = ["wall_ms", "cpu_ms", "runs_per_second", "threads"];

/// The document without its timings.
fn answer(doc: &Value) -> Value {
    let mut doc = doc.clone();
    if let Some(fields) = doc.as_object_mut() {
        for t in TIMINGS {
            fields.remove(t);
        }
    }
    doc
}

/// A fresh scratch directory for one test (numbered: several tests run the same command at
/// once).
fn scratch(name: &str) -> PathBuf {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "facedown-shards-{name}-{}-{run}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Runs `command` with `--shard I/3 --json` for I = 2, 3, 1 (out of order, as a cluster
/// returns them) and writes each envelope to `dir`; returns the files in shard order.
fn three_shards(dir: &std::path::Path, command: &[&str], name: &str) -> Vec<String> {
    let mut files = vec![String::new(); 3];
    for i in [2, 3, 1] {
        let spec = format!("{i}/3");
        let out = facedown(&[command, &["--shard", &spec, "--json"]].concat());
        let envelope = json_of(&out);
        assert_eq!(envelope["command"], name);
        assert_eq!(envelope["shard"]["index"], i);
        let file = dir.join(format!("shard-{i}.json"));
        std::fs::write(&file, &out.stdout).expect("written");
        files[i - 1] = file.to_str().expect("utf-8").to_owned();
    }
    files
}

/// `facedown merge --json FILES…`.
fn merge(files: &[&str]) -> std::process::Output {
    facedown(&[&["merge", "--json"][..], files].concat())
}

/// Checks that `command` split in three merges to its unsplit document, and that a missing
/// shard and a shard run with `other_seed` in place of `seed` are refused; returns the merged
/// document.
fn merges_to_the_unsplit_run(command: &[&str], name: &str, seed: (&str, &str)) -> Value {
    let dir = scratch(&name.replace(' ', "-"));
    let whole = run_json(&[command, &["--seed", seed.0, "--json"]].concat());
    let seeded = [command, &["--seed", seed.0]].concat();
    let files = three_shards(&dir, &seeded, name);
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    let merged = json_of(&merge(&refs));
    assert_eq!(answer(&merged), answer(&whole), "{name}");
    assert_eq!(merged["command"], name);
    assert!(merged.get("shard").is_none());

    let out = merge(&refs[..2]);
    assert_eq!(out.status.code(), Some(1), "{name}: a missing shard");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("shard 3/3 is missing"), "{err}");

    let other = dir.join("other-seed.json");
    let out = facedown(&[command, &["--seed", seed.1, "--shard", "3/3", "--json"]].concat());
    std::fs::write(&other, json_of(&out).to_string()).expect("written");
    let out = merge(&[refs[0], refs[1], other.to_str().expect("utf-8")]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{name}: a shard of another seed"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("its seed is"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    merged
}

#[test]
fn a_simulation_in_three_shards_merges_to_the_unsplit_simulation() {
    // 40 000 runs per input are three chunks of each of the four inputs: every shard has some.
    let merged = merges_to_the_unsplit_run(
        &[
            "cards",
            "simulate",
            "four-card-las-vegas-and",
            "--runs",
            "40000",
        ],
        "cards simulate",
        ("7", "8"),
    );
    assert_eq!(merged["total_runs"], 160_000);
    assert_eq!(
        merged["correct_runs"],
        serde_json::json!([40000, 40000, 40000, 40000])
    );
}

#[test]
fn monte_carlo_collusion_rows_in_three_shards_merge_to_the_unsplit_rows() {
    let merged = merges_to_the_unsplit_run(
        &[
            "dealer",
            "collusion",
            "--players",
            "3",
            "--cards",
            "6",
            "--hand",
            "1",
            "--public",
            "1",
            "--samples",
            "8",
        ],
        "dealer collusion",
        ("7", "8"),
    );
    let rows = merged["monte_carlo"][0]["rows"].as_array().expect("rows");
    assert!(!rows.is_empty());
    assert!(rows
        .iter()
        .all(|r| r["trials"] == 8 && r["wrong_cards"] == 0));
}

#[test]
fn the_cheating_table_in_three_shards_merges_to_the_unsplit_table() {
    let merged = merges_to_the_unsplit_run(
        &[
            "dealer",
            "cheat",
            "--players",
            "3",
            "--cards",
            "6",
            "--samples",
            "7",
        ],
        "dealer cheat",
        ("1", "2"),
    );
    let rows = merged["rows"].as_array().expect("rows");
    assert!(rows.iter().all(|r| r["trials"] == 7));
    // The merged table still names cheaters and frames nobody.
    assert!(rows.iter().any(|r| r["named"].as_u64() > Some(0)));
    assert!(rows.iter().all(|r| r["framed"] == 0));
}

#[test]
fn sampled_session_readings_in_three_shards_merge_to_the_unsplit_readings() {
    let merged = merges_to_the_unsplit_run(
        &[
            "dealer",
            "session",
            "--players",
            "3",
            "--cards",
            "12",
            "--hand",
            "1",
            "--public",
            "2",
            "--deals",
            "3",
            "--reuse-helpers",
            "--samples",
            "30",
        ],
        "dealer session",
        ("3", "4"),
    );
    let deals = merged["deals"].as_array().expect("deals");
    assert_eq!(deals.len(), 3);
    assert!(deals
        .iter()
        .all(|d| d["trials"] == 30 && d["wrong_cards"] == 0));
}

#[test]
fn a_devyatka_importance_sample_in_three_shards_merges_to_the_unsplit_sample() {
    let merged = merges_to_the_unsplit_run(
        &["games", "devyatka", "--sample", "9"],
        "games devyatka",
        ("5", "6"),
    );
    assert_eq!(merged["deals"], 9);
    let counted: u64 = merged["importances"]
        .as_object()
        .expect("importances")
        .values()
        .filter_map(Value::as_u64)
        .sum();
    assert_eq!(counted, 9);
}

#[test]
fn strategies_in_three_shards_merge_to_the_unsplit_strategy_rows() {
    let river = merges_to_the_unsplit_run(
        &[
            "dealer",
            "cheat",
            "--cards",
            "12",
            "--hand",
            "1",
            "--public",
            "2",
            "--strategy",
            "chosen-river",
            "--card",
            "11",
            "--samples",
            "7",
        ],
        "dealer cheat",
        ("3", "4"),
    );
    assert_eq!(river["result"]["trials"], 7);
    assert_eq!(river["result"]["framed"], 0);
    let abort = merges_to_the_unsplit_run(
        &[
            "dealer",
            "cheat",
            "--cards",
            "12",
            "--hand",
            "1",
            "--public",
            "3",
            "--strategy",
            "selective-abort",
            "--flop",
            "3",
            "--redeals",
            "1",
            "--redeal",
            "all",
            "--samples",
            "6",
        ],
        "dealer cheat",
        ("11", "12"),
    );
    let results = abort["results"]
        .as_array()
        .expect("one result per re-deal model");
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r["result"]["trials"] == 6));
}

#[test]
fn a_coalition_forgery_in_three_shards_merges_to_the_unsplit_forgery() {
    let merged = merges_to_the_unsplit_run(
        &[
            "dealer",
            "cheat",
            "--scheme",
            "published",
            "--cards",
            "8",
            "--coalition",
            "2+3",
            "--forge",
            "1:7",
            "--samples",
            "7",
        ],
        "dealer cheat",
        ("5", "6"),
    );
    let row = &merged["forgery"];
    assert_eq!(row["trials"], 7);
    // Players 2 and 3 force player 1's card every time; the accomplice is never named.
    assert_eq!(row["forced"], 7);
    assert_eq!(
        (row["accomplice_named"].as_u64(), row["framed"].as_u64()),
        (Some(0), Some(0))
    );
}

#[test]
fn a_sweep_over_the_messages_in_three_shards_merges_to_the_unsplit_sweep() {
    let merged = merges_to_the_unsplit_run(
        &[
            "dealer",
            "cheat",
            "--cards",
            "12",
            "--hand",
            "1",
            "--public",
            "2",
            "--strategy",
            "chosen-river",
            "--card",
            "11",
            "--sweep-position",
            "--samples",
            "3",
        ],
        "dealer cheat",
        ("3", "4"),
    );
    let rows = merged["positions"].as_array().expect("one row per message");
    assert!(rows.len() > 1);
    assert!(rows
        .iter()
        .all(|r| r["result"]["trials"] == 3 && r["result"]["framed"] == 0));
}

#[test]
fn a_devyatka_search_for_distinct_importances_in_three_shards_merges_to_the_unsplit_search() {
    let merged = merges_to_the_unsplit_run(
        &["games", "devyatka", "--k", "5", "--budget", "3000"],
        "games devyatka",
        ("5", "6"),
    );
    let importances: Vec<u64> = merged["deals"]
        .as_array()
        .expect("deals")
        .iter()
        .filter_map(|d| d["importance"].as_u64())
        .collect();
    assert_eq!(importances.len(), 5);
    assert!(
        importances.windows(2).all(|w| w[0] < w[1]),
        "{importances:?}"
    );
    assert_eq!(
        merged["output"].as_str().map(|o| o.lines().count()),
        Some(10)
    );
}

#[test]
fn a_devyatka_exploration_in_three_shards_merges_to_the_unsplit_exploration() {
    let merged = merges_to_the_unsplit_run(
        &[
            "games",
            "devyatka",
            "--explore",
            "--climbs",
            "5",
            "--steps",
            "30",
        ],
        "games devyatka",
        ("1", "2"),
    );
    assert_eq!(merged["evaluations"], 5 * 31);
    assert!(merged["values"].as_array().is_some_and(|v| !v.is_empty()));
}

#[test]
fn a_solve_refuses_shards_with_a_usage_error_that_says_why() {
    for game in ["chopsticks", "devyatka"] {
        let out = facedown(&["games", "solve", game, "--shard", "1/2", "--json"]);
        assert_eq!(out.status.code(), Some(2), "{game}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not split into shards"), "{game}: {err}");
    }
}
