//! Unit tests of `src/cli/output.rs`, run from the integration binary:
//! the package builds no unit-test binaries.

use facedown::cli::output::*;
use serde_json::json;

#[test]
fn floats_lose_their_noise_and_integers_stay() {
    let mut v = json!({"a": 0.5000000000000009, "b": [1.0e-20, 3], "c": 12345678.9});
    round_floats(&mut v);
    assert_eq!(v, json!({"a": 0.5, "b": [1.0e-20, 3], "c": 12345678.9}));
}

#[test]
fn the_common_fields_are_there_and_win() {
    let doc = Doc::new("dealer deal")
        .seed(7)
        .parameters(json!({"players": 3}))
        .build(&json!({"seed": 7, "hands": [[1]]}))
        .expect("builds");
    let keys: Vec<&String> = doc.as_object().expect("object").keys().collect();
    assert_eq!(doc["schema"], "facedown/dealer-deal/1");
    assert_eq!(doc["seed"], 7);
    assert_eq!(doc["parameters"]["players"], 3);
    assert!(keys.contains(&&"hands".to_owned()));
}

#[test]
fn a_list_goes_under_result() {
    let doc = Doc::new("x").build(&[1, 2]).expect("builds");
    assert_eq!(doc["result"], json!([1, 2]));
    assert!(doc.get("seed").is_none());
}

#[test]
fn no_color_turns_colour_off_unless_empty() {
    use std::ffi::OsStr;
    assert!(colour_for(true, None));
    assert!(colour_for(true, Some(OsStr::new(""))));
    assert!(!colour_for(true, Some(OsStr::new("1"))));
    assert!(!colour_for(false, None));
}

#[test]
fn exit_statuses_follow_the_convention() {
    assert_eq!(exit_status(&CheckFailed("x".into()).into()), 3);
    assert_eq!(exit_status(&UsageError("x".into()).into()), 2);
    assert_eq!(exit_status(&anyhow::anyhow!("x")), 1);
}
