//! `facedown cards search` with `--max-memory` and `--shard`, and `facedown merge`, run as the
//! binary: exit statuses, the partial report, the recipe of `docs/cluster.md`, and refused merges.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_facedown")
}

fn facedown(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("the binary runs")
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("facedown-{name}-{}", std::process::id()));
    // A leftover of an earlier run of this process id is stale.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

const QUERY: [&str; 11] = [
    "--deck",
    "♣♣♥♥",
    "--function",
    "and",
    "--committed",
    "--shuffles",
    "closed",
    "--max-steps",
    "8",
    "--max-memory",
    "1G",
];

fn search(extra: &[&str]) -> Output {
    let mut args = vec!["cards", "search"];
    args.extend(QUERY);
    args.extend(extra);
    facedown(&args)
}

/// The parts of a search report that are answers, not measurements.
fn answer(v: &Value) -> Value {
    let depths: Vec<Value> = v["per_depth"]
        .as_array()
        .expect("per_depth")
        .iter()
        .map(|d| serde_json::json!([d["depth"], d["states_explored"], d["memo_hits"]]))
        .collect();
    serde_json::json!({
        "status": v["status"], "found": v["found"], "length": v["length"],
        "protocols": v["protocols"], "protocol_tasks": v["protocol_tasks"],
        "analyses": v["analyses"], "states_explored": v["states_explored"],
        "memo_hits": v["memo_hits"], "top_level_actions": v["top_level_actions"],
        "per_depth": depths, "stop": v["stop"],
    })
}

fn write_shards(dir: &Path, count: usize, extra: &[&str]) -> Vec<PathBuf> {
    (1..=count)
        .map(|i| {
            let spec = format!("{i}/{count}");
            let mut args = vec!["--shard", spec.as_str(), "--json"];
            args.extend(extra);
            let out = search(&args);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let path = dir.join(format!("shard-{i}.json"));
            std::fs::write(&path, &out.stdout).expect("written");
            path
        })
        .collect()
}

fn merge(files: &[&Path]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(["merge", "--json"]).args(files);
    cmd.output().expect("merge runs")
}

#[test]
fn a_tiny_memory_budget_prints_the_partial_report_as_json_and_exits_with_status_3() {
    // The finite search: [KWH15]'s four-card question to 12 steps in 64 KiB of tables.
    let out = facedown(&[
        "cards",
        "search",
        "--deck",
        "♣♣♥♥",
        "--function",
        "and",
        "--committed",
        "--max-steps",
        "12",
        "--max-memory",
        "64K",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = stdout_json(&out);
    assert_eq!(v["status"], "stopped");
    assert_eq!(v["found"], false);
    let stop = &v["stop"];
    let last = stop["last_completed"].as_u64().expect("last_completed");
    assert_eq!(stop["in_progress"].as_u64(), Some(last + 1));
    assert_eq!(stop["max_steps"], 12);
    assert!(!stop["open_top_level_actions"]
        .as_array()
        .expect("open")
        .is_empty());
    assert_eq!(v["memory"]["budget_bytes"], 65536);
    assert!(v["states_explored"].as_u64().is_some_and(|n| n > 0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("inconclusive"), "{stderr}");

    // The Las Vegas search on the issue's COPY query: the last radius and the open states.
    let out = facedown(&[
        "cards",
        "search",
        "--deck",
        "♣♣♥♥",
        "--function",
        "copy",
        "--committed",
        "--copies",
        "2",
        "--runtime",
        "las-vegas",
        "--shuffles",
        "any",
        "--max-steps",
        "12",
        "--max-memory",
        "2M",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = stdout_json(&out);
    assert_eq!(v["status"], "stopped");
    let stop = &v["stop"];
    let last = stop["last_completed"].as_u64().expect("last_completed");
    assert_eq!(stop["in_progress"].as_u64(), Some(last + 1));
    assert!(stop["open_states"].as_u64().is_some_and(|n| n > 0));
    assert!(stop["graph_nodes"].as_u64().is_some_and(|n| n > 0));

    // The text output says the same, and the exit status is the same.
    let out = facedown(&[
        "cards",
        "search",
        "--deck",
        "♣♣♥♥",
        "--function",
        "and",
        "--committed",
        "--max-steps",
        "12",
        "--max-memory",
        "64K",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("stopped (inconclusive)"), "{text}");
    assert!(text.contains("is ruled out"), "{text}");
}

#[test]
fn sharded_runs_merge_to_the_unsplit_search() {
    let dir = scratch("cli-shards");
    let whole = stdout_json(&search(&["--json"]));
    let files = write_shards(&dir, 3, &[]);
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = merge(&refs);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = stdout_json(&out);
    assert_eq!(answer(&merged), answer(&whole));
    assert_eq!(merged["merged_from"].as_array().map(Vec::len), Some(3));
    // The envelope carries the query, the shard and the tool's version.
    let env: Value =
        serde_json::from_slice(&std::fs::read(&files[1]).expect("read")).expect("JSON");
    assert_eq!(env["tool"], "facedown");
    assert_eq!(env["command"], "cards search");
    assert_eq!(env["shard"], serde_json::json!({"index": 2, "count": 3}));
    assert_eq!(env["query"]["deck"], "♣♣♥♥");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_refuses_foreign_missing_repeated_and_cut_short_shards() {
    let dir = scratch("cli-merge-refusals");
    let files = write_shards(&dir, 3, &[]);
    let refused = |files: &[&Path], needle: &str| {
        let out = merge(files);
        assert_eq!(out.status.code(), Some(1), "{files:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{needle:?} not in {err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    let [one, two, three] = [&files[0], &files[1], &files[2]].map(PathBuf::as_path);
    refused(&[one, two], "shard 3/3 is missing");
    refused(&[one, two, two, three], "shard 2/3 was already given");

    // A shard of another search (five steps instead of eight).
    let mut args = vec!["cards", "search"];
    args.extend(&QUERY[..8]);
    args.extend(["5", "--shard", "2/3", "--json"]);
    let other = dir.join("other.json");
    std::fs::write(&other, facedown(&args).stdout).expect("written");
    refused(&[one, &other, three], "not a shard of the same run");

    // A split into two among a split into three.
    let half = dir.join("half.json");
    std::fs::write(&half, search(&["--shard", "2/2", "--json"]).stdout).expect("written");
    refused(&[one, &half, three], "shard count");

    // A shard cut short, as by a job killed while writing, and an empty file.
    let text = std::fs::read_to_string(two).expect("read");
    let cut = dir.join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).expect("written");
    refused(&[one, &cut, three], "not a facedown shard output");
    let empty = dir.join("empty.json");
    std::fs::write(&empty, "").expect("written");
    refused(&[one, &empty, three], "not a facedown shard output");

    // Shard numbers out of range inside a file, and a result that is another shard's.
    for (from, to) in [
        (r#""index": 2,"#, r#""index": 0,"#),
        (r#""index": 2,"#, r#""index": 7,"#),
    ] {
        let forged = dir.join("forged.json");
        assert!(text.contains(from));
        std::fs::write(&forged, text.replacen(from, to, 1)).expect("written");
        refused(&[one, &forged, three], "bad shard");
    }
    let swapped = dir.join("swapped.json");
    std::fs::write(
        &swapped,
        text.replacen(r#""index": 2,"#, r#""index": 3,"#, 1),
    )
    .expect("written");
    refused(&[one, two, &swapped], "not that of shard 3/3");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shard_specs_out_of_range_are_usage_errors() {
    for bad in ["0/3", "4/3", "3", "x/3", "1/0", "1/3/3", " /3"] {
        let out = search(&["--shard", bad]);
        assert_eq!(out.status.code(), Some(2), "--shard {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("bad shard"), "{err}");
    }
    let out = facedown(&[
        "cards",
        "search",
        "--deck",
        "♣♣♥♥",
        "--function",
        "and",
        "--committed",
        "--runtime",
        "las-vegas",
        "--max-steps",
        "4",
        "--shard",
        "1/2",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not split"));
}

/// The block after the `cluster-recipe` marker of `docs/cluster.md`.
fn cluster_recipe() -> String {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cluster.md");
    let text = std::fs::read_to_string(doc).expect("docs/cluster.md");
    let after = text
        .split_once("<!-- cluster-recipe")
        .expect("the recipe marker")
        .1;
    let block = after.split_once("```bash\n").expect("the recipe block").1;
    block
        .split_once("```")
        .expect("the block ends")
        .0
        .to_owned()
}

#[test]
fn the_gnu_parallel_recipe_of_docs_cluster_md_merges_to_the_unsplit_search() {
    let has_parallel = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_parallel {
        // `.ci/run` installs GNU parallel and sets this, so there the recipe always runs.
        assert!(
            std::env::var_os("FACEDOWN_REQUIRE_PARALLEL").is_none(),
            "GNU parallel is required here but not installed"
        );
        eprintln!("GNU parallel is not installed: the recipe of docs/cluster.md was not run");
        return;
    }
    let recipe = cluster_recipe();
    assert!(recipe.contains("parallel") && recipe.contains("facedown merge"));
    let dir = scratch("cluster-recipe");
    let bin_dir = Path::new(bin()).parent().expect("the binary's directory");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-c", &recipe])
        .current_dir(&dir)
        .env("PATH", path)
        // GNU parallel asks once for a citation unless told it was seen.
        .env("HOME", &dir)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for i in 1..=3 {
        assert!(dir.join(format!("shard-{i}.json")).exists(), "shard {i}");
    }
    let merged: Value =
        serde_json::from_slice(&std::fs::read(dir.join("merged.json")).expect("merged.json"))
            .expect("JSON");
    // The recipe's query is this suite's QUERY; the unsplit search must agree with the merge.
    assert!(recipe.contains(&QUERY[..9].join(" ")), "{recipe}");
    let whole = stdout_json(&search(&["--json"]));
    assert_eq!(answer(&merged), answer(&whole));
    let _ = std::fs::remove_dir_all(&dir);
}
