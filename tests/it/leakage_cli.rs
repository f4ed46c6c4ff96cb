//! The harness subcommands of `facedown dealer`.

use crate::support::run_json as run;

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
    let bad = crate::support::facedown(&[
        "dealer",
        "collusion",
        "--players",
        "3",
        "--cards",
        "5",
        "--hand",
        "3",
    ]);
    assert!(
        !bad.status.success(),
        "a schedule that does not fit is an error"
    );
}

#[test]
fn cheat_sweeps_the_message_position_and_every_redeal_model_in_json() {
    let v = run(&[
        "dealer",
        "cheat",
        "--cards",
        "8",
        "--public",
        "2",
        "--strategy",
        "chosen-river",
        "--card",
        "7",
        "--sweep-position",
        "--samples",
        "2",
        "--json",
    ]);
    let positions = v["positions"].as_array().expect("positions");
    let works: Vec<_> = positions
        .iter()
        .filter(|p| p["result"]["success"] == 2)
        .map(|p| (p["message"]["player"].clone(), p["message"]["to"].clone()))
        .collect();
    assert_eq!(
        works,
        vec![(serde_json::json!(3), serde_json::json!("everyone"))],
        "{v}"
    );
    let v = run(&[
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
        "2",
        "--json",
    ]);
    let models: Vec<_> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["redeal"].as_str().expect("name").to_owned())
        .collect();
    assert_eq!(models, ["again", "forfeit", "resume"], "{v}");
    let bad = crate::support::facedown(&[
        "dealer",
        "cheat",
        "--strategy",
        "chosen-river",
        "--card",
        "3",
        "--cards",
        "8",
        "--redeal",
        "forfeit",
        "--samples",
        "1",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--redeal"));
}
