//! The harness subcommands of `facedown dealer`.

use std::process::Command;

fn run(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(args)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn collusion_json_has_the_promised_fields() {
    let v = run(&[
        "dealer",
        "collusion",
        "--players",
        "3",
        "--cards",
        "5",
        "--json",
    ]);
    let rows = v["rows"].as_array().expect("rows");
    assert!(!rows.is_empty());
    for r in rows {
        for key in [
            "coalition",
            "target",
            "excess_bits",
            "determined_fraction",
            "attack",
        ] {
            assert!(r.get(key).is_some(), "missing {key} in {r}");
        }
    }
    assert!(rows
        .iter()
        .any(|r| r["coalition"] == serde_json::json!([1, 3])
            && r["target"] == "hand of player 2"
            && r["excess_bits"].as_f64().expect("bits") > 0.0));
}

#[test]
fn leakage_plot_and_cheat_run() {
    let dir = std::env::temp_dir().join(format!("facedown-leakage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let png = dir.join("leak.png");
    let v = run(&[
        "dealer",
        "leakage",
        "--players",
        "3",
        "--cards",
        "5",
        "--json",
        "--plot",
        png.to_str().expect("utf8"),
    ]);
    assert!(!v["points"].as_array().expect("points").is_empty());
    let bytes = std::fs::read(&png).expect("png written");
    assert_eq!(&bytes[1..4], b"PNG");
    let v = run(&[
        "dealer",
        "cheat",
        "--players",
        "3",
        "--cards",
        "6",
        "--samples",
        "3",
        "--json",
    ]);
    assert!(v["rows"].as_array().expect("rows").len() >= 12);
    let bad = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args([
            "dealer",
            "collusion",
            "--players",
            "3",
            "--cards",
            "5",
            "--hand",
            "3",
        ])
        .output()
        .expect("runs");
    assert!(
        !bad.status.success(),
        "a schedule that does not fit is an error"
    );
}
