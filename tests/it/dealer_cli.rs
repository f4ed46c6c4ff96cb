//! `facedown dealer deal` and `facedown dealer audit` end to end: the JSON fields the issue
//! asks for, a saved transcript re-audited, a cheater named, errors with exit status ≠ 0.

use crate::support::facedown;

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("valid JSON on stdout")
}

#[test]
fn ninety_nine_deal_json_has_the_fields_of_the_issue() {
    let out = facedown(&[
        "dealer",
        "deal",
        "--players",
        "3",
        "--cards",
        "37",
        "--hand",
        "12",
        "--public",
        "1",
        "--seed",
        "99",
        "--json",
    ]);
    assert!(out.status.success());
    let v = json(&out);
    assert_eq!(v["players"], 3);
    assert_eq!(v["cards"], 37);
    assert_eq!(v["seed"], 99);
    let hands = v["hands"].as_array().expect("hands");
    assert_eq!(hands.len(), 3);
    let mut all: Vec<u64> = hands
        .iter()
        .flat_map(|h| {
            h.as_array()
                .expect("hand")
                .iter()
                .map(|c| c.as_u64().expect("card"))
        })
        .collect();
    assert_eq!(v["public"].as_array().expect("public").len(), 1);
    all.push(v["public"][0].as_u64().expect("card"));
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 37);
    assert!(all.iter().all(|&c| c < 37), "cards are 0..n−1");
    assert_eq!(v["audit"]["passed"], true);
    assert!(v["audit"]["blame"].is_null());
    for k in ["messages", "bytes", "rounds"] {
        assert!(v["cost"][k].as_u64().expect("cost") > 0);
    }
    assert!(v["phases"].as_array().expect("phases").len() >= 3);
}

#[test]
fn a_cheater_is_named_live_and_again_from_the_saved_transcript() {
    let dir = std::env::temp_dir().join(format!("facedown-dealer-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("t.json");
    let file_s = file.to_str().expect("utf-8 path");
    let out = facedown(&[
        "dealer",
        "deal",
        "--players",
        "5",
        "--cards",
        "52",
        "--hand",
        "5",
        "--seed",
        "3",
        "--cheat",
        "4:value@2",
        "--save",
        file_s,
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "a caught cheater fails the check"
    );
    let v = json(&out);
    assert_eq!(v["audit"]["passed"], false);
    assert_eq!(v["audit"]["blame"], 4);
    let again = facedown(&["dealer", "audit", file_s, "--json"]);
    assert_eq!(again.status.code(), Some(3), "a failed audit exits with 3");
    assert_eq!(json(&again)["audit"]["blame"], 4);
    std::fs::write(&file, "{ not json").expect("write");
    let bad = facedown(&["dealer", "audit", file_s]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("malformed transcript"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_arguments_fail_with_a_clear_message() {
    for (args, says) in [
        (vec!["--players", "2"], "3..=64 players"),
        (vec!["--players", "3", "--cheat", "7:value"], "no player 7"),
        (
            vec!["--players", "3", "--cheat", "1:bogus"],
            "unknown deviation",
        ),
        (
            vec!["--players", "3", "--scheme", "published", "--hand", "1"],
            "no private opening path to player 2",
        ),
        // Player 3 sends no value message when no card is public: the deviation would never
        // happen, and a clean audit would look like a cheater who got away.
        (
            vec!["--players", "3", "--cards", "12", "--cheat", "3:withhold@0"],
            "no such message",
        ),
        (
            vec!["--players", "3", "--cards", "12", "--cheat", "3:value@0"],
            "no such message",
        ),
        (
            vec!["--players", "3", "--cards", "12", "--cheat", "1:announce@0"],
            "no such message",
        ),
    ] {
        let mut all = vec!["dealer", "deal"];
        all.extend(args);
        let out = facedown(&all);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
}
