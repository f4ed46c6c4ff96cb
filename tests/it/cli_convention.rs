//! The command line's one convention (docs/cli.md), checked on every command: each `--json`
//! document carries `tool`, `version`, `schema`, `command`, `seed` (seeded commands) and
//! `parameters`; seeds have one rule (a default, printed and recorded); one name per concept
//! (`wall_ms`); exit statuses 0 ok, 1 error, 2 usage, 3 a failed check or audit; options that
//! do not apply are usage errors; every command has an example in its help.

use std::path::PathBuf;
use std::process::Output;

use crate::support::facedown;
use serde_json::Value;

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("facedown-convention-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs a command with `--json`; returns the document and the exit status.
fn document(args: &[&str]) -> (Value, i32) {
    let mut all = args.to_vec();
    all.push("--json");
    let out = facedown(&all);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not one JSON document ({e}): {}", text(&out)));
    (doc, out.status.code().expect("exited"))
}

/// Every float in the document, at any depth.
fn floats(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::Number(n) if n.is_f64() => out.extend(n.as_f64()),
        Value::Array(a) => a.iter().for_each(|x| floats(x, out)),
        Value::Object(o) => o.values().for_each(|x| floats(x, out)),
        _ => {}
    }
}

/// Every key in the document, at any depth.
fn keys(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
        Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                keys(x, out);
            }
        }
        _ => {}
    }
}

/// The common fields of `command`'s document, and the names it must not use.
fn assert_common_fields(doc: &Value, command: &str, seed: Option<u64>) {
    assert_eq!(doc["tool"], "facedown", "{command}");
    assert_eq!(doc["version"], env!("CARGO_PKG_VERSION"), "{command}");
    assert_eq!(doc["command"], command);
    let schema = format!("facedown/{}/1", command.replace(' ', "-"));
    assert_eq!(doc["schema"], schema.as_str(), "{command}");
    assert!(doc["parameters"].is_object(), "{command}: parameters");
    match seed {
        Some(s) => assert_eq!(doc["seed"], s, "{command}: the seed is recorded"),
        None => assert!(doc.get("seed").is_none(), "{command}: not seeded"),
    }
    let mut all = Vec::new();
    keys(doc, &mut all);
    for old in [
        "wall_time_ms",
        "elapsed_seconds",
        "seconds",
        "analysis_micros",
    ] {
        assert!(
            !all.iter().any(|k| k == old),
            "{command}: `{old}` is `wall_ms` now"
        );
    }
    let mut xs = Vec::new();
    floats(doc, &mut xs);
    for x in xs {
        let short: f64 = format!("{x:.11e}").parse().expect("a float");
        assert_eq!(x, short, "{command}: {x} carries float noise");
    }
}

#[test]
fn every_command_prints_one_document_with_the_common_fields() {
    let dir = scratch("all");
    let transcript = dir.join("deal.json");
    let transcript = transcript.to_str().expect("utf-8");
    let key = dir.join("k.key");
    let key = key.to_str().expect("utf-8");
    let library = format!(
        "{}/crates/cards/protocols/five-card-trick-or.cards",
        env!("CARGO_MANIFEST_DIR")
    );
    // (arguments, command, seed recorded)
    let cases: Vec<(Vec<&str>, &str, Option<u64>)> = vec![
        (vec!["cards", "list"], "cards list", None),
        (vec!["games", "list"], "games list", None),
        (vec!["games", "rules", "golf"], "games rules", None),
        (
            vec!["games", "play", "devyatka", "--seed", "8"],
            "games play",
            Some(8),
        ),
        (
            vec!["games", "solve", "chopsticks", "--rollover", "4"],
            "games solve",
            None,
        ),
        (
            vec!["games", "census", "--players", "2", "--rollover", "3..4"],
            "games census",
            None,
        ),
        (
            vec!["games", "devyatka", "--k", "2", "--seed", "1"],
            "games devyatka",
            Some(1),
        ),
        (
            vec!["cards", "analyze", "five-card-trick"],
            "cards analyze",
            None,
        ),
        (
            vec!["cards", "check", "five-card-trick"],
            "cards check",
            None,
        ),
        (vec!["cards", "fmt", "--check", &library], "cards fmt", None),
        (
            vec!["cards", "simulate", "five-card-trick", "--runs", "50"],
            "cards simulate",
            Some(0),
        ),
        (
            vec!["cards", "trace", "five-card-trick", "--input", "1,1"],
            "cards trace",
            Some(0),
        ),
        (vec!["cards", "tree", "five-card-trick"], "cards tree", None),
        (
            vec![
                "cards",
                "search",
                "--deck",
                "♣♣♥♥",
                "--function",
                "xor",
                "--max-steps",
                "2",
                "--shuffles",
                "random-cuts",
                "--committed",
                "--first",
            ],
            "cards search",
            None,
        ),
        (
            vec![
                "cards",
                "search-private",
                "--function",
                "and",
                "--max-cards",
                "3",
            ],
            "cards search-private",
            None,
        ),
        (
            vec![
                "dealer",
                "deal",
                "--players",
                "3",
                "--cards",
                "9",
                "--hand",
                "2",
                "--seed",
                "5",
                "--save",
                transcript,
            ],
            "dealer deal",
            Some(5),
        ),
        (vec!["dealer", "audit", transcript], "dealer audit", None),
        (
            vec!["dealer", "leakage", "--players", "3", "--cards", "4"],
            "dealer leakage",
            None,
        ),
        (
            vec!["dealer", "collusion", "--players", "3", "--cards", "4"],
            "dealer collusion",
            Some(0),
        ),
        (
            vec![
                "dealer",
                "cheat",
                "--players",
                "3",
                "--cards",
                "4",
                "--samples",
                "1",
                "--seed",
                "9",
            ],
            "dealer cheat",
            Some(9),
        ),
        (
            vec![
                "dealer",
                "cheat",
                "--scheme",
                "published",
                "--cards",
                "6",
                "--coalition",
                "2+3",
                "--forge",
                "1:5",
                "--samples",
                "2",
                "--seed",
                "4",
            ],
            "dealer cheat",
            Some(4),
        ),
        (
            vec![
                "dealer",
                "cheat",
                "--cards",
                "8",
                "--strategy",
                "chosen-river",
                "--card",
                "7",
                "--sweep-position",
                "--samples",
                "1",
                "--seed",
                "5",
            ],
            "dealer cheat",
            Some(5),
        ),
        (
            vec![
                "dealer",
                "cheat",
                "--cards",
                "8",
                "--public",
                "2",
                "--strategy",
                "selective-abort",
                "--flop",
                "2",
                "--redeal",
                "all",
                "--samples",
                "1",
                "--seed",
                "6",
            ],
            "dealer cheat",
            Some(6),
        ),
        (
            vec![
                "dealer",
                "session",
                "--cards",
                "4",
                "--scheme",
                "published",
                "--hand",
                "1",
                "--public",
                "1",
                "--deals",
                "2",
                "--reuse-helpers",
            ],
            "dealer session",
            Some(0),
        ),
        (
            vec![
                "dealer",
                "commit-attack",
                "--cards",
                "4",
                "--multiplier",
                "4",
            ],
            "dealer commit-attack",
            Some(0),
        ),
        (
            vec![
                "dealer",
                "commit-attack",
                "--cards",
                "3",
                "--salt-bits",
                "3",
            ],
            "dealer commit-attack",
            Some(0),
        ),
        (
            vec![
                "dealer",
                "deal",
                "--players",
                "3",
                "--cards",
                "12",
                "--scheme",
                "published",
                "--schedule",
                "schedules/published-showdown.toml",
            ],
            "dealer deal",
            Some(0),
        ),
        (
            vec![
                "poker",
                "deal",
                "--players",
                "2",
                "--cards",
                "6",
                "--public",
                "1",
            ],
            "poker deal",
            Some(0),
        ),
        (
            vec![
                "poker",
                "bench",
                "--cards",
                "4",
                "--reps",
                "1",
                "--token-reps",
                "1",
            ],
            "poker bench",
            Some(0),
        ),
        (
            vec!["compare", "--only", "five-card-trick", "--runs", "1"],
            "compare",
            Some(0),
        ),
        (vec!["keygen", "--out", key], "keygen", None),
        (
            vec![
                "play-local",
                "--players",
                "3",
                "--backend",
                "dealer",
                "--workload",
                "five-card-trick",
                "--input",
                "1,0",
                "--seed",
                "4",
            ],
            "play-local",
            Some(4),
        ),
        (
            vec![
                "play-local",
                "--players",
                "2",
                "--backend",
                "poker",
                "--game",
                "ninety-nine",
                "--variant",
                "two-dummy",
                "--deals",
                "1",
                "--seed",
                "5",
            ],
            "play-local",
            Some(5),
        ),
        (
            vec![
                "play-local",
                "--players",
                "3",
                "--backend",
                "poker",
                "--game",
                "devyatka",
                "--seed",
                "6",
            ],
            "play-local",
            Some(6),
        ),
    ];
    for (args, command, seed) in &cases {
        let (doc, status) = document(args);
        assert_eq!(status, 0, "{args:?}: {doc}");
        assert_common_fields(&doc, command, *seed);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_headline_json_holds_the_protocols_and_the_comparison() {
    let (doc, status) = document(&[]);
    assert_eq!(status, 0);
    assert_common_fields(&doc, "report", Some(0));
    assert!(!doc["protocols"].as_array().expect("protocols").is_empty());
    let rows = doc["comparison"]["rows"].as_array().expect("comparison");
    assert_eq!(
        rows.len(),
        (7 + 4) * 3,
        "every workload and game on every backend"
    );
    let games = rows.iter().filter(|r| r["game"].is_object()).count();
    assert!(games > 0, "the games' rows carry their cost per trick");
    assert_eq!(doc["comparison"]["seed"], 0);
}

#[test]
fn a_default_seed_is_printed_and_gives_the_run_of_seed_0() {
    let out = facedown(&["cards", "trace", "mks-four-card-and", "--input", "1,0"]);
    assert!(out.status.success());
    assert!(text(&out).contains("seed 0"), "{}", text(&out));
    let (by_default, _) = document(&["cards", "trace", "mks-four-card-and", "--input", "1,0"]);
    let (explicit, _) = document(&[
        "cards",
        "trace",
        "mks-four-card-and",
        "--input",
        "1,0",
        "--seed",
        "0",
    ]);
    assert_eq!(by_default["steps"], explicit["steps"]);
    let out = facedown(&["cards", "simulate", "five-card-trick", "--runs", "10"]);
    assert!(text(&out).contains("seed 0"), "{}", text(&out));
}

#[test]
fn play_local_without_a_seed_draws_one_prints_it_and_records_it() {
    let (doc, status) = document(&[
        "play-local",
        "--players",
        "3",
        "--backend",
        "dealer",
        "--workload",
        "five-card-trick",
        "--input",
        "1,1",
    ]);
    assert_eq!(status, 0, "{doc}");
    let seed = doc["seed"].as_u64().expect("a drawn seed is recorded");
    assert!(seed < 1 << 53, "exact in every JSON reader");
    assert_eq!(doc["seed_drawn"], true);
    // The drawn seed replays the run.
    let (again, _) = document(&[
        "play-local",
        "--players",
        "3",
        "--backend",
        "dealer",
        "--workload",
        "five-card-trick",
        "--input",
        "1,1",
        "--seed",
        &seed.to_string(),
    ]);
    assert_eq!(again["seed_drawn"], false);
    let outcome = |d: &Value| d["views"][0]["outcome"].clone();
    assert_eq!(outcome(&doc), outcome(&again));
}

#[test]
fn options_that_do_not_apply_are_usage_errors_with_status_2() {
    let png = scratch("usage").join("x.png");
    let png = png.to_str().expect("utf-8");
    for (args, says) in [
        (vec!["dealer", "cheat", "--plot", png], "--plot"),
        (vec!["dealer", "leakage", "--seed", "3"], "--seed"),
        (vec!["dealer", "leakage", "--samples", "3"], "--samples"),
        (vec!["dealer", "cheat", "--exact"], "--exact"),
        (vec!["dealer", "session", "--seed", "3"], "--samples"),
        (vec!["dealer", "cheat", "--coalition", "2+3"], "--forge"),
        (
            vec![
                "dealer",
                "commit-attack",
                "--salt-bits",
                "3",
                "--multiplier",
                "5",
            ],
            "--multiplier",
        ),
        (
            vec![
                "dealer",
                "deal",
                "--players",
                "3",
                "--hand",
                "1",
                "--schedule",
                "x.toml",
            ],
            "--schedule",
        ),
        (vec!["compare", "--only", "pokr"], "matches no workload"),
        (vec!["compare", "--runs", "0"], "--runs"),
        (
            vec!["compare", "--games", "none", "--only", "game"],
            "matches no workload",
        ),
        (vec!["compare", "--games", "all"], "--games"),
        (
            vec!["cards", "fmt", "--write", "five-card-trick"],
            "built-in",
        ),
        (
            vec![
                "cards",
                "simulate",
                "five-card-trick",
                "--runs",
                "10",
                "--shard",
                "1/2",
            ],
            "--json",
        ),
        (
            vec!["dealer", "collusion", "--shard", "1/2", "--json"],
            "--samples",
        ),
        (
            vec!["games", "solve", "chopsticks", "--shard", "1/2", "--json"],
            "not split into shards",
        ),
    ] {
        let out = facedown(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
    assert!(!std::path::Path::new(png).exists(), "nothing is written");
}

#[test]
fn a_caught_cheater_exits_3_and_the_card_dealt_twice_is_flagged() {
    let args = [
        "dealer",
        "deal",
        "--players",
        "3",
        "--cards",
        "12",
        "--hand",
        "3",
        "--seed",
        "3",
        "--cheat",
        "2:value@0",
    ];
    let out = facedown(&args);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("audit: FAILED"), "{}", text(&out));
    assert!(text(&out).contains("DUPLICATED card"), "{}", text(&out));
    let (doc, status) = document(&args);
    assert_eq!(status, 3);
    assert_eq!(doc["audit"]["blame"], 2);
    let dup = doc["duplicated"].as_array().expect("duplicated");
    assert!(!dup.is_empty(), "{doc}");
    // An honest deal passes: no duplicate, status 0.
    let (honest, status) = document(&args[..10]);
    assert_eq!(status, 0);
    assert_eq!(honest["duplicated"], Value::Array(Vec::new()));
}

#[test]
fn tables_print_as_text_csv_and_markdown() {
    for cmd in [
        vec!["cards", "list"],
        vec!["compare", "--only", "five-card-trick", "--runs", "1"],
        vec!["dealer", "collusion", "--cards", "4"],
        vec!["dealer", "leakage", "--cards", "4"],
        vec!["dealer", "cheat", "--cards", "4", "--samples", "1"],
        vec![
            "dealer",
            "session",
            "--cards",
            "4",
            "--deals",
            "2",
            "--reuse-helpers",
        ],
        vec![
            "dealer",
            "deal",
            "--players",
            "3",
            "--cards",
            "6",
            "--hand",
            "1",
        ],
        vec![
            "cards",
            "search",
            "--deck",
            "CCHH",
            "--function",
            "xor",
            "--committed",
            "--max-steps",
            "2",
            "--stats",
        ],
    ] {
        let mut csv = cmd.clone();
        csv.push("--csv");
        let out = facedown(&csv);
        assert!(out.status.success(), "{csv:?}: {}", text(&out));
        let body = String::from_utf8_lossy(&out.stdout).into_owned();
        let columns = |l: &str| l.split(',').count();
        let first = body.lines().next().expect("a header");
        assert!(columns(first) >= 3, "{csv:?}: {body}");
        let mut md = cmd.clone();
        md.push("--markdown");
        let out = facedown(&md);
        assert!(out.status.success(), "{md:?}: {}", text(&out));
        let body = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            body.lines()
                .any(|l| l.starts_with("|--") || l.starts_with("|-")),
            "{md:?}: no Markdown separator line in {body}"
        );
    }
}

#[test]
fn a_csv_is_one_table_and_an_absent_value_is_an_empty_field() {
    // The search's --stats table alone: a header and one line per depth, nothing else.
    let out = facedown(&[
        "cards",
        "search",
        "--deck",
        "CCHH",
        "--function",
        "xor",
        "--committed",
        "--max-steps",
        "2",
        "--stats",
        "--csv",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let body = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines[0], "depth,states,memo_hits,wall_ms", "{body}");
    assert!(lines.len() >= 2, "{body}");
    assert!(lines.iter().all(|l| l.split(',').count() == 4), "{body}");
    // Without --stats there is no table to write.
    let out = facedown(&[
        "cards",
        "search",
        "--deck",
        "CCHH",
        "--function",
        "xor",
        "--max-steps",
        "2",
        "--csv",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // The ideal table has no players to charge, so its per-player CPU is absent: a dash in the
    // text, an empty field in the CSV.
    let compare = ["compare", "--only", "five-card-trick", "--runs", "1"];
    assert!(text(&facedown(&compare)).contains('—'));
    let out = facedown(&[&compare[..], &["--csv"]].concat());
    let body = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!body.contains('—'), "{body}");
    let ideal = body
        .lines()
        .find(|l| l.contains(",ideal,"))
        .expect("the ideal row");
    assert!(ideal.contains(",,"), "{body}");
}

#[test]
fn the_summary_lists_every_command_and_every_help_has_an_example() {
    let out = facedown(&["--help"]);
    let help = text(&out);
    for word in [
        "cards",
        "dealer",
        "poker",
        "compare",
        "keygen",
        "party",
        "play-local",
        "completions",
        "serve",
        "search",
        "leakage",
        "collusion",
        "cheat",
    ] {
        assert!(
            help.contains(word),
            "`{word}` missing from the summary: {help}"
        );
    }
    let out = facedown(&["compare", "--help"]);
    let help = text(&out);
    assert!(help.contains("Example"), "{help}");
    assert!(!help.contains("[`"), "raw rustdoc links: {help}");
}

#[test]
fn completions_are_generated_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = facedown(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out));
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains("play-local"), "{shell}");
    }
    let out = facedown(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}
