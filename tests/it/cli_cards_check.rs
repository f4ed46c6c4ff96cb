//! `facedown cards check`, `fmt` and `analyze --expect` as a CI uses them: the documented exit
//! statuses (0 every check holds, 1 an error, 2 a usage error, 3 a check that failed), on every
//! library protocol and on broken ones.

use std::path::PathBuf;
use std::process::Output;

use crate::support::facedown;
use serde_json::Value;

fn status(out: &Output) -> i32 {
    out.status.code().expect("exited, not killed")
}

/// Every `.cards` file under the library's directory, its subdirectories (`multiset/`,
/// `private/`, `outputs/`) included.
fn library_files() -> Vec<String> {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "crates", "cards", "protocols"]
        .iter()
        .collect();
    let mut files = Vec::new();
    let mut dirs = vec![dir];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).expect("the protocol directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "cards") {
                files.push(path.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    files
}

/// A scratch directory for this test process.
fn scratch(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("facedown-cards-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.to_string_lossy().into_owned()
}

#[test]
fn every_library_protocol_checks_with_status_0() {
    let files = library_files();
    let n = facedown::cards::library::builtins().len();
    assert_eq!(files.len(), n, "one file per library protocol");
    let mut args = vec!["cards", "check"];
    args.extend(files.iter().map(String::as_str));
    let out = facedown(&args);
    assert_eq!(status(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches('✓').count(), n, "{text}");
    assert!(
        text.contains(&format!("{n} checked: {n} hold, 0 failed")),
        "{text}"
    );
}

#[test]
fn check_json_says_what_was_claimed_and_whether_it_holds() {
    let out = facedown(&["cards", "check", "five-card-trick", "ms09-copy", "--json"]);
    assert_eq!(status(&out), 0);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let entries = v["results"].as_array().expect("one entry per protocol");
    assert_eq!(entries.len(), 2);
    for e in entries {
        assert_eq!(e["holds"], true);
        assert!(e["claim"].as_str().is_some_and(|c| c.contains("perfect")));
        assert_eq!(e["mismatches"], Value::Array(Vec::new()));
        assert_eq!(e["error"], Value::Null);
    }
}

#[test]
fn a_claim_that_does_not_hold_fails_the_check_with_status_3() {
    // The five-card trick without its cut, claimed perfectly secure.
    let file = scratch(
        "overclaimed.cards",
        "protocol overclaimed\ninputs a b\nfunction and\nlayout ~a ♥ b\n\
         claim correct perfect\nturn 1 2 3 4 5\n",
    );
    let out = facedown(&["cards", "check", &file]);
    assert_eq!(status(&out), 3, "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("claimed perfect, found insecure"), "{text}");
    // The same protocol analysed: a verdict, not an error, so status 0 …
    let out = facedown(&["cards", "analyze", &file]);
    assert_eq!(status(&out), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("✗"));
    // … unless the caller expects something of it.
    let out = facedown(&["cards", "analyze", &file, "--expect", "perfect"]);
    assert_eq!(status(&out), 3);
    let out = facedown(&["cards", "analyze", &file, "--expect", "insecure,finite"]);
    assert_eq!(status(&out), 0);
}

#[test]
fn expectations_add_to_the_claim_and_correctness_is_the_default() {
    let out = facedown(&[
        "cards",
        "check",
        "mks-without-first-shuffle",
        "--expect",
        "perfect",
    ]);
    assert_eq!(status(&out), 3);
    let out = facedown(&[
        "cards",
        "check",
        "mks-without-first-shuffle",
        "--expect",
        "insecure",
    ]);
    assert_eq!(status(&out), 0);
    // No claim line, no --expect: correctness is checked.
    let wrong = scratch(
        "wrong.cards",
        "protocol wrong\ninputs a b\nfunction or\nlayout ~a ♥ b\nshuffle cut 1 2 3 4 5\n\
         turn 1 2 3 4 5\n",
    );
    let out = facedown(&["cards", "check", &wrong]);
    assert_eq!(status(&out), 3);
    assert!(String::from_utf8_lossy(&out.stdout).contains("claimed correct, found incorrect"));
    let out = facedown(&["cards", "check", &wrong, "--expect", "incorrect"]);
    assert_eq!(status(&out), 0);
}

#[test]
fn a_broken_file_is_an_error_with_status_1_and_its_source_line() {
    let file = scratch(
        "broken.cards",
        "protocol broken\ninputs a b\nfunction and\nlayout a b\nturn 1 9\n",
    );
    let out = facedown(&["cards", "check", &file]);
    assert_eq!(status(&out), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 5, column 8: position 9 is out of range 1..=4"),
        "{err}"
    );
    assert!(
        err.contains(" 5 │ turn 1 9"),
        "the source line is shown: {err}"
    );
    assert!(!err.contains('\u{1b}'), "NO_COLOR is honoured: {err}");
    // A check that fails and an error together: the error wins.
    let out = facedown(&[
        "cards",
        "check",
        &file,
        "mks-without-first-shuffle",
        "--expect",
        "perfect",
    ]);
    assert_eq!(status(&out), 1);
    let out = facedown(&["cards", "analyze", &file]);
    assert_eq!(status(&out), 1);
    let out = facedown(&["cards", "check", "five-card-tric"]);
    assert_eq!(status(&out), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `five-card-trick`?"));
}

#[test]
fn a_bad_expectation_is_a_usage_error_with_status_2() {
    let out = facedown(&["cards", "check", "five-card-trick", "--expect", "perfct"]);
    assert_eq!(status(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `perfect`?"));
    assert_eq!(status(&facedown(&["cards", "check"])), 2);
}

#[test]
fn fmt_prints_checks_and_writes_the_canonical_form() {
    let messy = "protocol messy\ninputs a\nfunction copy\nlayout a 0   # the input and a 0\n\
                 perm (2 3) ; result 1 2\n";
    let file = scratch("messy.cards", messy);
    let out = facedown(&["cards", "fmt", "--check", &file]);
    assert_eq!(status(&out), 3);
    let out = facedown(&["cards", "fmt", &file]);
    assert_eq!(status(&out), 0);
    let formatted = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        formatted,
        "protocol messy\ninputs a\nfunction copy\nlayout a 0  # the input and a 0\n\
         perm (2 3)\nresult 1 2\n"
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        messy,
        "unchanged"
    );
    assert_eq!(status(&facedown(&["cards", "fmt", "--write", &file])), 0);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), formatted);
    assert_eq!(status(&facedown(&["cards", "fmt", "--check", &file])), 0);
    let broken = scratch(
        "unclosed.cards",
        "protocol p\ninputs a\nfunction copy\nlayout a\nturn 1 {\n",
    );
    assert_eq!(status(&facedown(&["cards", "fmt", "--check", &broken])), 1);
}

/// `fmt --write` replaces a file only once its canonical form is wholly written: a write that
/// fails part-way (here a file-size limit of 2 KiB, with the limit's signal ignored so that the
/// write returns an error) leaves the original as it was and no temporary file behind. A plain
/// truncating write would leave the first 2 KiB.
#[cfg(unix)]
#[test]
fn fmt_write_that_fails_part_way_leaves_the_file_as_it_was() {
    let dir = std::env::temp_dir().join(format!("facedown-fmt-atomic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let comments: String = (0..200)
        .map(|i| format!("# comment line {i:03}\n"))
        .collect();
    let messy = format!(
        "{comments}protocol  five\ninputs a b\nfunction and\nlayout ~a ♥ b\n\
                         shuffle cut 1 2 3 4 5\nturn 1 2 3 4 5\n"
    );
    assert!(messy.len() > 3000);
    let file = dir.join("messy.cards");
    std::fs::write(&file, &messy).expect("write");
    let script = format!(
        "trap '' XFSZ; ulimit -f 2; exec \"$0\" cards fmt --write '{}'",
        file.display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_facedown")])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), messy);
    let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
    assert_eq!(left.len(), 1, "a temporary file was left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn several_outputs_and_mixed_endings_check_and_their_json_names_the_outputs() {
    // The good protocols hold their claims and `perfect`; the broken variants fail them, and
    // the mixed protocol is not `committed`.
    for (protocols, expect, want) in [
        (&["half-adder", "toy-mixed-and"][..], "perfect", 0),
        (&["toy-mixed-and-peek"][..], "perfect", 3),
        (&["half-adder-sum-not-negated"][..], "correct", 3),
        (&["toy-mixed-and"][..], "committed", 3),
    ] {
        let mut args = vec!["cards", "check"];
        args.extend(protocols);
        args.extend(["--expect", expect]);
        let out = facedown(&args);
        assert_eq!(status(&out), want, "{protocols:?} --expect {expect}");
    }
    let out = facedown(&["cards", "analyze", "half-adder", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let outputs: Vec<(&str, &str)> = v["outputs"]
        .as_array()
        .expect("outputs")
        .iter()
        .map(|o| {
            (
                o["name"].as_str().expect("a name"),
                o["function"].as_str().expect("a function"),
            )
        })
        .collect();
    assert_eq!(outputs, [("sum", "xor"), ("carry", "and")], "{v:#}");
    assert_eq!(v["endings"], "committed");
    let out = facedown(&["cards", "list", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let entries = v["protocols"].as_array().expect("protocols");
    let mixed = entries
        .iter()
        .find(|e| e["name"] == "and-or-at-once")
        .expect("listed");
    assert_eq!(mixed["outputs"][1]["name"], "or", "{mixed:#}");
    let single = entries
        .iter()
        .find(|e| e["name"] == "five-card-trick")
        .expect("listed");
    assert_eq!(single["outputs"][0]["name"], "f", "{single:#}");
}
