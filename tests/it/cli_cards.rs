//! The `facedown cards` command line, run as a binary.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::support::{facedown, run_json as json};

fn example(name: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "crates",
        "cards",
        "protocols",
        &format!("{name}.cards"),
    ]
    .iter()
    .collect();
    path.to_string_lossy().into_owned()
}

/// (name, function, cards, runtime, expected shuffles, max shuffles).
type Verdict = (
    &'static str,
    &'static str,
    u64,
    &'static str,
    &'static str,
    Option<u64>,
);

/// Five examples of the format specification (`crates/cards/docs/format.md`) with their
/// stated verdicts.
const EXAMPLES: [Verdict; 5] = [
    ("five-card-trick", "and", 5, "finite", "1", Some(1)),
    ("mks-four-card-and", "and", 4, "finite", "2", Some(2)),
    ("ms09-six-card-and", "and", 6, "finite", "1", Some(1)),
    ("ms09-four-card-xor", "xor", 4, "finite", "1", Some(1)),
    ("four-card-las-vegas-and", "and", 4, "las-vegas", "8", None),
];

#[test]
fn analyze_json_of_every_spec_example_has_the_stated_verdict() {
    for (name, function, cards, runtime, expected, max) in EXAMPLES {
        let file = example(name);
        let v = json(&["cards", "analyze", &file, "--json"]);
        for key in [
            "name",
            "function",
            "cards",
            "correct",
            "security",
            "runtime",
            "expected_shuffles",
            "max_shuffles",
            "errors",
            "min_shuffles",
            "tv_distance",
            "mutual_information_bits",
            "branches",
        ] {
            assert!(v.get(key).is_some(), "{name}: key {key} missing");
        }
        assert_eq!(v["name"], name);
        assert_eq!(v["function"], function);
        assert_eq!(v["cards"], cards);
        assert_eq!(v["correct"], true, "{name}");
        assert_eq!(v["security"], "perfect", "{name}");
        assert_eq!(v["runtime"], runtime, "{name}");
        assert_eq!(v["expected_shuffles"], expected, "{name}");
        match max {
            Some(m) => assert_eq!(v["max_shuffles"], m, "{name}"),
            None => assert!(v["max_shuffles"].is_null(), "{name}"),
        }
        assert_eq!(v["errors"], Value::Array(vec![]), "{name}");
        // The same verdict by built-in name.
        let by_name = json(&["cards", "analyze", name, "--json"]);
        assert_eq!(by_name["security"], v["security"]);
        assert_eq!(by_name["expected_shuffles"], v["expected_shuffles"]);
    }
}

#[test]
fn insecure_variant_is_flagged_in_json() {
    let v = json(&["cards", "analyze", "mks-without-first-shuffle", "--json"]);
    assert_eq!(v["security"], "insecure");
    assert_eq!(v["correct"], true);
    assert!(!v["errors"].as_array().expect("a list").is_empty());
    assert_eq!(v["tv_distance"], "1");
    let cpu = v["cpu_ms"].as_f64().expect("the CPU time is recorded");
    assert!(cpu > 0.0 && cpu < 1e3, "{cpu} ms");
}

#[test]
fn list_names_every_builtin() {
    let v = json(&["cards", "list", "--json"]);
    let names: Vec<&str> = v["protocols"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    for (name, ..) in EXAMPLES {
        assert!(names.contains(&name), "{name}");
    }
}

#[test]
fn simulate_json_records_seed_runs_and_rate() {
    let v = json(&[
        "cards",
        "simulate",
        "five-card-trick",
        "--runs",
        "1000",
        "--seed",
        "5",
        "--json",
    ]);
    assert_eq!(v["seed"], 5);
    assert_eq!(v["runs_per_input"], 1000);
    assert_eq!(v["total_runs"], 4000);
    assert!(v["runs_per_second"].as_f64().expect("a number") > 0.0);
    assert_eq!(
        v["correct_runs"],
        serde_json::json!([1000, 1000, 1000, 1000])
    );
    assert_eq!(v["views"].as_array().expect("a list").len(), 10);
    // Same seed, same report.
    let again = json(&[
        "cards",
        "simulate",
        "five-card-trick",
        "--runs",
        "1000",
        "--seed",
        "5",
        "--json",
    ]);
    assert_eq!(v["views"], again["views"]);
}

#[test]
fn trace_json_gives_the_steps() {
    let v = json(&[
        "cards",
        "trace",
        "ms09-six-card-and",
        "--input",
        "1,1",
        "--seed",
        "2",
        "--json",
    ]);
    assert_eq!(v["input"], "11");
    assert_eq!(v["output"], true);
    assert_eq!(v["ending"], "result");
    let steps = v["steps"].as_array().expect("a list");
    assert!(steps.iter().any(|s| !s["hidden_permutation"].is_null()));
    assert!(steps.iter().any(|s| !s["observation"].is_null()));
    // Not a terminal: no ANSI colour in the text form.
    let out = facedown(&[
        "cards",
        "trace",
        "five-card-trick",
        "--input",
        "10",
        "--seed",
        "2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains('▮') && !text.contains('\x1b'));
}

#[test]
fn tree_dot_is_a_digraph() {
    let out = facedown(&["cards", "tree", "mks-four-card-and", "--dot"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("digraph"));
    assert!(text.contains("->"));
    let v = json(&["cards", "tree", "five-card-trick", "--json"]);
    assert_eq!(v["inputs"], serde_json::json!(["00", "01", "10", "11"]));
    let vertices = v["vertices"].as_array().expect("a list");
    assert_eq!(vertices[0]["kind"], "start");
    let one_fifth = serde_json::json!("1/5");
    assert!(vertices
        .iter()
        .flat_map(|x| x["sequences"].as_array().cloned().unwrap_or_default())
        .any(|s| s["probabilities"]
            .as_array()
            .is_some_and(|p| p.contains(&one_fifth))));
    assert!(!v["edges"].as_array().expect("a list").is_empty());
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let dir = std::env::temp_dir().join(format!("facedown-cli-cards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cases = [
        (
            "malformed",
            "protocol x\ninputs a\nfunction copy\nlayout a\nturn 3\n",
        ),
        ("garbage", "this is not a protocol\n"),
        (
            "weights",
            "protocol w\ninputs a\nfunction copy\nlayout a\nshuffle {id: 1/3, (1 2): 1/3}\n",
        ),
    ];
    for (name, text) in cases {
        let path = dir.join(format!("{name}.cards"));
        std::fs::write(&path, text).expect("write");
        let file = path.to_string_lossy().into_owned();
        for cmd in ["analyze", "tree"] {
            let out = facedown(&["cards", cmd, &file]);
            assert!(!out.status.success(), "{name} {cmd}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!err.contains("panicked"), "{name}: {err}");
            assert!(
                err.contains("line"),
                "{name}: the error names the line: {err}"
            );
        }
    }
    for args in [
        vec!["cards", "analyze", "no-such-protocol"],
        vec![
            "cards",
            "trace",
            "five-card-trick",
            "--input",
            "1",
            "--seed",
            "1",
        ],
        vec![
            "cards",
            "trace",
            "five-card-trick",
            "--input",
            "1,x",
            "--seed",
            "1",
        ],
        vec![
            "cards",
            "simulate",
            "five-card-trick",
            "--runs",
            "10",
            "--seed",
            "1",
            "--input",
            "111",
        ],
    ] {
        let out = facedown(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn headline_json_lists_every_builtin_with_its_claim_check() {
    let v = json(&["--json"]);
    let rows = v["protocols"].as_array().expect("a list");
    assert!(rows.len() >= 13);
    for r in rows {
        assert_eq!(r["claim_matches"], true, "{}", r["name"]);
        assert!(r["wall_ms"].as_f64().expect("a number") > 0.0);
        assert!(r["cpu_ms"].as_f64().expect("a number") > 0.0);
    }
}

#[test]
fn search_las_vegas_json_finds_the_kwh15_four_card_committed_and() {
    // [KWH15]: a four-card committed AND exists with a runtime finite in expectation. The
    // documented `--runtime las-vegas` query prints it with its loops and the analyzer's verdict.
    let search = |shuffles: &str, radius: &str| {
        json(&[
            "cards",
            "search",
            "--deck",
            "♣♣♥♥",
            "--function",
            "and",
            "--committed",
            "--runtime",
            "las-vegas",
            "--shuffles",
            shuffles,
            "--max-steps",
            radius,
            "--first",
            "--json",
        ])
    };
    let v = search("closed", "8");
    assert_eq!(v["found"], true);
    assert_eq!(v["runtime"], "las-vegas");
    assert!(v["length"].as_u64().is_some_and(|l| l <= 8));
    let text = v["protocols"][0].as_str().expect("a protocol text");
    assert!(text.contains("goto"), "{text}");
    assert_eq!(v["analyses"][0]["runtime"], "las-vegas");
    assert_eq!(v["analyses"][0]["security"], "perfect");
    assert!(v["states_explored"].as_u64().is_some_and(|n| n > 0));
    assert!(v["wall_ms"].as_f64().is_some());
    // The same question under uniform closed shuffles: none within the radius ([KKWHS17]).
    let v = search("uniform-closed", "10");
    assert_eq!(v["found"], false);
    assert_eq!(v["protocols"].as_array().map(Vec::len), Some(0));
}

#[test]
fn a_closed_stdout_ends_the_command_quietly_not_with_a_panic() {
    // `facedown … | head`: the reader goes away before the output is written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(["cards", "analyze", "four-card-las-vegas-and"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("it ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Either it finished writing before the pipe closed, or it stopped as SIGPIPE would.
    assert!(
        out.status.success() || out.status.code() == Some(141),
        "{:?}",
        out.status
    );
}

#[test]
fn analyze_prints_each_players_leak_of_a_private_cut_in_text_and_json() {
    let v = json(&[
        "cards",
        "analyze",
        "five-card-trick-one-private-cut",
        "--json",
    ]);
    // The public view is perfect; Alice, who knows the offset, reads b (TV 1); Bob does not.
    assert_eq!(v["tv_distance"], "0");
    let players = v["players"].as_array().expect("per-player figures");
    let tv: Vec<&str> = players
        .iter()
        .map(|p| p["tv_distance"].as_str().expect("exact"))
        .collect();
    assert_eq!(tv, ["1", "0"]);
    let bits = players[0]["leak_bits"].as_f64().expect("a float");
    assert!((bits - 0.5).abs() < 1e-9, "{bits}");
    let out = facedown(&["cards", "analyze", "five-card-trick-one-private-cut"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("per player"), "{text}");
    assert!(
        text.contains("TV 1 (≈ 1.000000), I(X;V | a, f(X)) 0.500000 bits"),
        "{text}"
    );
    // A public protocol has none.
    let public = json(&["cards", "analyze", "five-card-trick", "--json"]);
    assert!(public.get("players").is_none());
}

#[test]
fn simulate_counts_each_output_of_the_half_adder() {
    let v = json(&[
        "cards",
        "simulate",
        "half-adder",
        "--runs",
        "500",
        "--seed",
        "2",
        "--json",
    ]);
    assert_eq!(v["correct_runs"], serde_json::json!([500, 500, 500, 500]));
    for r in v["inputs"].as_array().expect("inputs") {
        let names: Vec<&str> = r["outputs"]
            .as_array()
            .expect("per-output counts")
            .iter()
            .map(|o| o["name"].as_str().expect("a name"))
            .collect();
        assert_eq!(names, ["sum", "carry"], "{r}");
    }
    let out = facedown(&["cards", "simulate", "half-adder", "--runs", "500"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("sum right") && text.contains("carry right"),
        "{text}"
    );
}
