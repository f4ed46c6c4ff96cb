//! `facedown games` end to end: every command with `--json`, a saved log re-audited and a
//! tampered one caught with the offender named, the Devyatka output for k = 13 passing its
//! checker (and a wrong one refused), and the claims table of `docs/games.md` being the one the
//! code computes.

use serde_json::Value;

use crate::support::facedown;
use crate::support::json_of as json;

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("facedown-games-{}-{name}", std::process::id()))
}

#[test]
fn list_and_rules_name_every_game_and_variant() {
    let v = json(&facedown(&["games", "list", "--json"]));
    let names: Vec<&str> = v["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| g["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["ninety-nine", "devyatka", "golf", "chopsticks"]);
    assert_eq!(
        v["games"][0]["variants"]
            .as_array()
            .expect("variants")
            .len(),
        14
    );
    for game in names {
        let r = json(&facedown(&["games", "rules", game, "--json"]));
        assert!(r["rules"].as_str().expect("text").len() > 200, "{game}");
    }
}

#[test]
fn every_game_plays_with_bots_and_passes_its_audit() {
    let runs: [&[&str]; 6] = [
        &[
            "ninety-nine",
            "--variant",
            "four-partnership",
            "--bots",
            "heuristic,random",
        ],
        &["ninety-nine", "--variant", "two-dummy", "--length", "game"],
        &["devyatka", "--bob-first"],
        &["golf", "--players", "3", "--variant", "six"],
        &["golf", "--length", "game"],
        &["chopsticks", "--players", "3", "--rules", "zombie"],
    ];
    for run in runs {
        let mut args = vec!["games", "play"];
        args.extend_from_slice(run);
        args.extend_from_slice(&["--seed", "5", "--json"]);
        let v = json(&facedown(&args));
        assert_eq!(v["audit"]["passed"], true, "{run:?}");
        assert!(v["log"].is_object(), "{run:?} prints its log");
    }
}

#[test]
fn a_saved_log_is_re_audited_and_a_tampered_one_names_the_offender() {
    let path = temp("devyatka.json");
    let path_text = path.to_str().expect("utf-8 path");
    let out = facedown(&[
        "games", "play", "devyatka", "--seed", "8", "--save", path_text,
    ]);
    assert!(out.status.success());
    let ok = facedown(&["games", "audit", path_text, "--json"]);
    assert_eq!(json(&ok)["passed"], true);

    let mut record: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("saved")).expect("json");
    let bobs = record["setup"]["bob"][0].clone();
    record["moves"][0]["move"] = serde_json::json!({ "play": bobs });
    std::fs::write(&path, record.to_string()).expect("write");
    let bad = facedown(&["games", "audit", path_text, "--json"]);
    assert_eq!(
        bad.status.code(),
        Some(3),
        "a failed check or audit exits 3"
    );
    let v: Value = serde_json::from_slice(&bad.stdout).expect("json");
    assert_eq!(v["passed"], false);
    assert_eq!(v["offender"], 1, "Alice played Bob's card");
    assert!(v["reason"]
        .as_str()
        .expect("reason")
        .contains("not in his hand"));
    std::fs::remove_file(&path).ok();
}

#[test]
fn a_saved_ninety_nine_game_with_a_changed_dealer_is_refused() {
    let path = temp("ninety-nine.json");
    let path_text = path.to_str().expect("utf-8 path");
    let out = facedown(&[
        "games",
        "play",
        "ninety-nine",
        "--length",
        "game",
        "--seed",
        "2",
        "--save",
        path_text,
    ]);
    assert!(out.status.success());
    let mut record: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("saved")).expect("json");
    record["deals"][1]["setup"]["dealer"] = Value::from(1);
    std::fs::write(&path, record.to_string()).expect("write");
    let bad = facedown(&["games", "audit", path_text, "--json"]);
    assert_eq!(
        bad.status.code(),
        Some(3),
        "a failed check or audit exits 3"
    );
    let v: Value = serde_json::from_slice(&bad.stdout).expect("json");
    assert_eq!(v["bad_setup"][0], 1);
    std::fs::remove_file(&path).ok();
}

#[test]
fn devyatka_k_13_passes_the_checker_and_a_repeated_deal_does_not() {
    let out = facedown(&["games", "devyatka", "--k", "13", "--seed", "1"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(text.lines().count(), 26);
    let path = temp("k13.txt");
    std::fs::write(&path, &text).expect("write");
    let path_text = path.to_str().expect("utf-8 path");
    let checked = json(&facedown(&[
        "games", "devyatka", "--k", "13", "--check", path_text, "--json",
    ]));
    assert_eq!(checked["passed"], true);
    let mut importances: Vec<u64> = checked["deals"]
        .as_array()
        .expect("deals")
        .iter()
        .map(|d| d["importance"].as_u64().expect("importance"))
        .collect();
    importances.sort_unstable();
    importances.dedup();
    assert_eq!(importances.len(), 13);

    let lines: Vec<&str> = text.lines().collect();
    let twice = format!("{}\n{}\n{}\n{}\n", lines[0], lines[1], lines[0], lines[1]);
    std::fs::write(&path, twice).expect("write");
    let bad = facedown(&[
        "games", "devyatka", "--k", "2", "--check", path_text, "--json",
    ]);
    assert_eq!(
        bad.status.code(),
        Some(3),
        "a failed check or audit exits 3"
    );
    let v: Value = serde_json::from_slice(&bad.stdout).expect("json");
    assert!(v["reason"]
        .as_str()
        .expect("reason")
        .contains("both have importance"));
    std::fs::remove_file(&path).ok();
}

#[test]
fn solve_gives_exact_values_and_refuses_hidden_information_games() {
    let v = json(&facedown(&["games", "solve", "chopsticks", "--json"]));
    assert_eq!(v["value"]["value"], "draw");
    assert_eq!(v["positions"], 204);
    let s = json(&facedown(&[
        "games",
        "solve",
        "chopsticks",
        "1201",
        "--rules",
        "suicide",
        "--json",
    ]));
    assert_eq!(
        s["value"],
        serde_json::json!({ "value": "win", "moves": 3 })
    );
    let d = json(&facedown(&[
        "games", "solve", "devyatka", "--seed", "4", "--json",
    ]));
    let (a, b) = (
        d["deal"]["alice_first"].as_i64(),
        d["deal"]["bob_first"].as_i64(),
    );
    let importance = (a.expect("a") - b.expect("b")).unsigned_abs();
    assert_eq!(d["deal"]["importance"].as_u64(), Some(importance));
    let golf = facedown(&["games", "solve", "golf"]);
    assert!(!golf.status.success());
    assert!(String::from_utf8_lossy(&golf.stderr).contains("hides information"));
}

#[test]
fn bad_arguments_are_clear_errors() {
    for args in [
        &["games", "play", "ninety-nine", "--variant", "six-handed"][..],
        &["games", "play", "golf", "--bots", "oracle"],
        &["games", "play", "chopsticks", "--rules", "teleport"],
        &["games", "solve", "chopsticks", "1119"],
        &["games", "solve", "devyatka", "6C 7C / 8C"],
    ] {
        let out = facedown(args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn census_counts_the_three_player_game_both_ways() {
    let skip = json(&facedown(&[
        "games",
        "census",
        "--players",
        "3",
        "--rollover",
        "5",
        "--json",
    ]));
    assert_eq!(skip["rows"][0]["census"]["reachable"], 3141);
    let pass = json(&facedown(&[
        "games",
        "census",
        "--players",
        "3",
        "--rollover",
        "5",
        "--rules",
        "out-pass",
        "--json",
    ]));
    assert_eq!(pass["rows"][0]["census"]["reachable"], 3337);
}

#[test]
fn census_solve_gives_the_solution_table_rollover_4_a_first_player_win_in_11() {
    let out = json(&facedown(&[
        "games",
        "census",
        "--rollover",
        "4..5",
        "--solve",
        "--json",
    ]));
    let four = &out["rows"][0]["solved"];
    assert_eq!(four["start"], serde_json::json!([0, 11]));
    assert_eq!(four["reachable"], 84);
    let five = &out["rows"][1]["solved"];
    assert_eq!(five["start"], Value::Null);
    assert_eq!(five["longest_win"], 3);
    let sum: u64 = ["ends", "mover_wins", "other_wins", "nobody"]
        .iter()
        .map(|k| five[k].as_u64().expect("a count"))
        .sum();
    assert_eq!(Some(sum), five["reachable"].as_u64());
}

#[test]
fn the_claims_table_of_docs_games_md_is_the_computed_one() {
    let out = facedown(&["games", "claims", "--markdown"]);
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).expect("utf-8");
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/games.md"))
        .expect("docs/games.md");
    let begin = "<!-- claims:begin (facedown games claims --markdown) -->\n";
    let start = docs.find(begin).expect("begin marker") + begin.len();
    let end = docs.find("<!-- claims:end -->").expect("end marker");
    assert_eq!(
        docs[start..end],
        table,
        "regenerate the table with `facedown games claims --markdown`"
    );
    let v = json(&facedown(&["games", "claims", "--json"]));
    let all = v["claims"].as_array().expect("claims");
    assert!(all
        .iter()
        .all(|c| !c["computed"].as_str().expect("text").is_empty()));
    assert!(all.iter().any(|c| c["verdict"] == "differs"));
}

/// The census document with its measurements taken out: what a split run must reproduce.
fn census_answer(doc: &Value) -> Value {
    let mut doc = doc.clone();
    for row in doc["rows"].as_array_mut().expect("rows") {
        let row = row.as_object_mut().expect("a row");
        row.remove("wall_ms");
        row.remove("solve_wall_ms");
    }
    doc
}

#[test]
fn a_census_split_into_shards_merges_to_the_unsplit_run() {
    let query = [
        "games",
        "census",
        "--players",
        "2",
        "--rollover",
        "3..7",
        "--solve",
    ];
    let whole = json(&facedown(&[&query[..], &["--json"]].concat()));
    let dir = temp("census-shards");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let mut files = Vec::new();
    for shard in ["2/3", "3/3", "1/3"] {
        let out = facedown(&[&query[..], &["--json", "--shard", shard]].concat());
        let envelope = json(&out);
        assert_eq!(envelope["command"], "games census");
        assert_eq!(envelope["shard"]["count"], 3);
        let file = dir.join(format!("shard-{}.json", &shard[..1]));
        std::fs::write(&file, &out.stdout).expect("written");
        files.push(file.to_str().expect("utf-8").to_owned());
    }
    let mut merge = vec!["merge", "--json"];
    merge.extend(files.iter().map(String::as_str));
    let merged = json(&facedown(&merge));
    assert_eq!(census_answer(&merged), census_answer(&whole));
    assert_eq!(merged["rows"].as_array().expect("rows").len(), 5);

    // A shard that carries another shard's rows, a missing shard, and text output are refused.
    let forged = std::fs::read_to_string(&files[0]).expect("read");
    let mut forged: Value = serde_json::from_str(&forged).expect("JSON");
    forged["result"]["rows"]
        .as_array_mut()
        .expect("rows")
        .reverse();
    forged["result"]["rows"][0]["census"]["rollover"] = 99.into();
    std::fs::write(&files[0], forged.to_string()).expect("written");
    let out = facedown(&merge);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must count rollovers"));
    let out = facedown(&["merge", "--json", &files[1], &files[2]]);
    assert_eq!(out.status.code(), Some(1));
    let out = facedown(&["merge", &files[1], &files[2], &files[0]]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
