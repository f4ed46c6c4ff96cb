//! Schedule files (`--schedule FILE`): every example in `schedules/` plays and passes its
//! audit, a showdown opens a folded hand a second time without counting it as a duplicate,
//! a file schedule measures the same leakage as the built-in schedule it spells out, and bad
//! files are refused with the line and the position.

use std::path::{Path, PathBuf};

use crate::support::{facedown, json_of as json};

use facedown_core::rng::seeded_rng;
use facedown_dealer::{DealSchedule, Scheme};
use facedown_leakage::collusion::{collusion_table, Method};
use facedown_leakage::Schedule;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schedules")
        .join(name)
}

/// Each example schedule and the scheme it is written for.
fn examples() -> Vec<(&'static str, Scheme)> {
    vec![
        (
            "published-showdown.toml",
            Scheme::published(12).expect("scheme"),
        ),
        (
            "general-holdem.toml",
            Scheme::general(3, 12).expect("scheme"),
        ),
        ("small-leakage.toml", Scheme::general(3, 6).expect("scheme")),
    ]
}

#[test]
fn every_example_schedule_is_listed_and_plays_with_a_passing_audit() {
    let mut on_disk: Vec<String> = std::fs::read_dir(example(""))
        .expect("schedules/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = examples().iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "every example schedule is tested here");
    for (name, scheme) in examples() {
        let text = std::fs::read_to_string(example(name)).expect("read");
        let file = DealSchedule::from_toml(&text, &scheme).expect(name);
        let game = file
            .play_with_rng(scheme.clone(), None, &mut seeded_rng(3))
            .expect(name);
        assert!(
            game.finished.audit.passed,
            "{name}: {:?}",
            game.finished.audit
        );
        assert!(game.aborted.is_empty(), "{name}");
        let opened = file.openings().count();
        assert_eq!(game.per_op.len(), opened, "{name}: every opening ran");
    }
}

#[test]
fn a_showdown_reopens_a_folded_hand_publicly_and_is_not_a_duplicate() {
    let path = example("published-showdown.toml");
    let v = json(&facedown(&[
        "dealer",
        "deal",
        "--players",
        "3",
        "--cards",
        "12",
        "--scheme",
        "published",
        "--schedule",
        path.to_str().expect("utf-8"),
        "--seed",
        "4",
        "--json",
    ]));
    assert_eq!(v["audit"]["passed"], true);
    assert_eq!(v["duplicated"], serde_json::json!([]));
    let hand1 = v["hands"][0].as_array().expect("hand").clone();
    assert_eq!(hand1.len(), 2, "one card through C3/D3, one through F3/G3");
    assert_eq!(
        v["hands"][1],
        serde_json::json!([]),
        "no private path to player 2"
    );
    assert_eq!(v["hands"][2].as_array().expect("hand").len(), 2);
    let public = v["public"].as_array().expect("public");
    assert_eq!(
        public.len(),
        6,
        "flop, river and player 1's two shown cards"
    );
    for c in &hand1 {
        assert!(public.contains(c), "the showdown shows {c}");
    }
    let phases: Vec<&str> = v["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(
        phases.contains(&"showdown") && phases.contains(&"flop"),
        "{phases:?}"
    );
    assert_eq!(v["parameters"]["schedule"], path.display().to_string());
}

#[test]
fn a_file_schedule_measures_what_the_builtin_schedule_it_spells_out_measures() {
    let scheme = Scheme::general(3, 6).expect("scheme");
    let text = "[[phase]]\nname = \"hands\"\nopen = [{ position = 0, to = 1 }, { position = 1, to = 2 }, { position = 2, to = 3 }]\n[[phase]]\nname = \"board\"\npublic = [3]\n";
    let file = DealSchedule::from_toml(text, &scheme).expect("schedule");
    let from_file = Schedule::from_file(&scheme, &file, "spelled").expect("schedule");
    let builtin = Schedule::new(&scheme, 1, 1).expect("schedule");
    assert_eq!(from_file.openings, builtin.openings);
    let strip = |rows: Vec<facedown_leakage::collusion::Row>| -> Vec<String> {
        rows.into_iter()
            .map(|mut r| {
                r.schedule.clear();
                r.hand = 0;
                format!("{r:?}")
            })
            .collect()
    };
    assert_eq!(
        strip(collusion_table(&from_file, Method::Exact).expect("table")),
        strip(collusion_table(&builtin, Method::Exact).expect("table"))
    );
}

#[test]
fn after_a_showdown_the_shown_hand_leaks_nothing_beyond_the_ideal() {
    let scheme = Scheme::general(3, 6).expect("scheme");
    let text = std::fs::read_to_string(example("small-leakage.toml")).expect("read");
    let file = DealSchedule::from_toml(&text, &scheme).expect("schedule");
    let sch = Schedule::from_file(&scheme, &file, "small").expect("schedule");
    assert_eq!(
        sch.openings.len(),
        5,
        "three hands, one board card, one shown card"
    );
    let rows = collusion_table(&sch, Method::Exact).expect("table");
    let shown: Vec<_> = rows
        .iter()
        .filter(|r| r.target == "hand of player 3")
        .collect();
    assert!(!shown.is_empty());
    for r in shown {
        assert!(r.excess_is_zero, "{r:?}");
        assert_eq!(
            r.hidden, 0,
            "player 3's card is public after the showdown: {r:?}"
        );
    }
}

#[test]
fn the_harnesses_take_a_schedule_file() {
    let path = example("small-leakage.toml");
    let path = path.to_str().expect("utf-8");
    let base = [
        "--players",
        "3",
        "--cards",
        "6",
        "--schedule",
        path,
        "--json",
    ];
    let leak = json(&facedown(&[&["dealer", "leakage"][..], &base].concat()));
    let points = leak["points"].as_array().expect("points");
    // 6 proper coalitions of 3 players × prefixes of 0..=5 openings.
    assert_eq!(points.len(), 6 * 6);
    assert!(points.iter().all(|p| p["kind"] == "schedule"));
    let coll = json(&facedown(&[&["dealer", "collusion"][..], &base].concat()));
    assert_eq!(coll["parameters"]["schedule"], path);
    let cheat = json(&facedown(
        &[&["dealer", "cheat", "--samples", "3"][..], &base].concat(),
    ));
    assert!(!cheat["rows"].as_array().expect("rows").is_empty());
}

#[test]
fn bad_schedule_files_are_refused_with_the_line_and_the_position() {
    let dir = std::env::temp_dir().join(format!("facedown-schedule-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let cases = [
        (
            "[[phase]]\nname = \"h\"\nopen = [\n  { position = 0, to = 1 },\n  { position = 0, to = 3 },\n]\n",
            ["line 5", "position 0", "player 1", "player 3"],
        ),
        (
            "[[phase]]\nname = \"h\"\nopen = [{ position = 2, to = 2 }]\n",
            ["line 3", "position 2", "player 2", "no private opening path"],
        ),
        (
            "[[phase]]\nname = \"h\"\npublic = [1,\n 12]\n",
            ["line 4", "position 12", "0..12", "outside"],
        ),
        (
            "[[phase]]\nname = \"h\"\nflop = [1]\n",
            ["line 3", "flop", "unknown", ""],
        ),
    ];
    for (k, (text, want)) in cases.iter().enumerate() {
        let file = dir.join(format!("bad{k}.toml"));
        std::fs::write(&file, text).expect("write");
        let out = facedown(&[
            "dealer",
            "deal",
            "--players",
            "3",
            "--cards",
            "12",
            "--scheme",
            "published",
            "--schedule",
            file.to_str().expect("utf-8"),
        ]);
        assert!(!out.status.success(), "{text}");
        let err = String::from_utf8_lossy(&out.stderr);
        for w in want {
            assert!(err.contains(w), "{text}: {err} lacks {w:?}");
        }
    }
    let both = facedown(&[
        "dealer",
        "deal",
        "--players",
        "3",
        "--hand",
        "2",
        "--schedule",
        "x.toml",
    ]);
    assert!(
        !both.status.success(),
        "--hand does not apply with --schedule"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_session_plays_a_schedule_file_and_reuse_reads_more_deal_after_deal() {
    let path = example("published-showdown.toml");
    let run = |reuse: bool| {
        let mut args = vec![
            "dealer",
            "session",
            "--players",
            "3",
            "--cards",
            "12",
            "--scheme",
            "published",
            "--schedule",
            path.to_str().expect("utf8"),
            "--deals",
            "3",
            "--target",
            "3",
            "--samples",
            "300",
            "--seed",
            "2",
            "--json",
        ];
        if reuse {
            args.push("--reuse-helpers");
        }
        json(&facedown(&args))
    };
    let read = |v: &serde_json::Value| -> Vec<f64> {
        v["deals"]
            .as_array()
            .expect("deals")
            .iter()
            .map(|d| d["fraction_read"].as_f64().expect("fraction"))
            .collect()
    };
    let reused = run(true);
    assert_eq!(
        reused["parameters"]["schedule"],
        path.display().to_string(),
        "{reused}"
    );
    let r = read(&reused);
    assert_eq!(r.len(), 3, "{reused}");
    assert_eq!(r[0], 0.0, "nothing to read in the first deal: {reused}");
    assert!(r[0] < r[1] && r[1] < r[2], "{r:?}");
    assert!(read(&run(false)).iter().all(|&f| f == 0.0));
}
