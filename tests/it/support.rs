//! What many suites do with the binary: run it, and read the one JSON document that a
//! successful run prints on stdout.

use std::process::{Command, Output};

use serde_json::Value;

/// Runs `facedown ARGS` with backtraces and colours off, so that an error is its message alone.
pub fn facedown(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .env("NO_COLOR", "1")
        .output()
        .expect("the facedown binary runs")
}

/// Runs `facedown ARGS` (split at spaces), successful or not: its JSON (`null` when stdout
/// holds none), exit status and standard error.
pub fn run_split(args: &str) -> (Value, Option<i32>, String) {
    let args: Vec<&str> = args.split_whitespace().collect();
    let out = facedown(&args);
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        doc,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON document of a run that must have succeeded; a failed run fails the test with its
/// stderr.
pub fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "facedown failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON on stdout")
}

/// Runs `facedown ARGS`, which must succeed, and returns its JSON document.
pub fn run_json(args: &[&str]) -> Value {
    json_of(&facedown(args))
}

/// A fresh static key written to `path` by `facedown keygen`: the roster lines it prints.
pub fn keygen(path: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(["keygen", "--out"])
        .arg(path)
        .output()
        .expect("keygen");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .expect("utf8")
        .trim()
        .to_owned()
}
