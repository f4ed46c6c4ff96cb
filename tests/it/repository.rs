//! The repository stands alone: no file in it refers to anything outside it (the project's
//! shared folder, absolute paths of one machine, reference notes that a clone does not have),
//! and the protocols the card tutorial shows parse and check as it says.

use std::path::{Path, PathBuf};

/// Text that would point outside the repository. Written in pieces so that this file does not
/// match itself.
fn outside_references() -> Vec<String> {
    let shared = ["shared", "/"].concat();
    vec![
        format!("{shared}reference"),
        format!("{shared}seeds"),
        format!("`{shared}"),
        format!(" {shared}"),
        format!("({shared}"),
        ["/", "work", "/"].concat(),
        ["/", "root", "/"].concat(),
        ["file", "://"].concat(),
        ["protocol", "-format.md"].concat(),
        ["mental", "-poker.md"].concat(),
    ]
}

/// Directories that are not part of the repository's content.
fn skipped(dir: &Path) -> bool {
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    matches!(
        name,
        "target" | ".git" | "node_modules" | "__pycache__" | ".venv" | ".ipynb_checkpoints"
    )
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == ".git") {
            // A clone's repository data (a file in a worktree), not its content.
            continue;
        }
        if path.is_dir() {
            if !skipped(&path) {
                files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

#[test]
fn no_file_refers_outside_the_repository() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    files(&root, &mut all);
    assert!(
        all.len() > 100,
        "the walk sees the repository ({} files)",
        all.len()
    );
    let patterns = outside_references();
    let mut found = Vec::new();
    for path in all {
        // Binary files (images, archives) cannot hold a reference a reader follows.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if let Some(p) = patterns.iter().find(|p| line.contains(p.as_str())) {
                let shown = path
                    .strip_prefix(&root)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                found.push(format!("{shown}:{}: `{p}` in {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "references outside the repository:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_tutorials_protocols_parse_and_hold_their_claims() {
    use facedown::cards::analyze::analyze;
    use facedown::cards::claim::check;
    use facedown::cards::parse::{parse, protocols_in_markdown};
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "docs", "cards-tutorial.md"]
        .iter()
        .collect();
    let text = std::fs::read_to_string(path).expect("the tutorial");
    let blocks = protocols_in_markdown(&text);
    assert_eq!(
        blocks.len(),
        2,
        "the protocol written and the one the search finds"
    );
    for block in blocks {
        let p = parse(&block).unwrap_or_else(|e| panic!("{e}\n{block}"));
        let c = check(analyze(&p).expect("analyses"), p.claim(), None);
        assert!(c.holds(), "{}: {:?}", p.name(), c.mismatches);
    }
    // Step 4 breaks the protocol by deleting its shuffle: the claim no longer holds.
    let first = &protocols_in_markdown(&text)[0];
    let broken: String = first
        .lines()
        .filter(|l| !l.starts_with("shuffle"))
        .map(|l| format!("{l}\n"))
        .collect();
    let p = parse(&broken).expect("parses");
    let c = check(analyze(&p).expect("analyses"), p.claim(), None);
    assert!(!c.holds());
    assert!(c
        .mismatches
        .iter()
        .any(|m| m.to_string() == "security: claimed perfect, found output-possibilistic"));
}

/// The root package builds no unit-test harness (`test = false` on its library and binary, so
/// that `cargo test` compiles the CLI once): a `#[cfg(test)]` module under `src/` would never
/// run. Its tests belong in `tests/it`.
#[test]
fn the_root_package_has_no_unit_tests_that_would_not_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Vec::new();
    files(&root.join("src"), &mut sources);
    let marker = ["#[cfg(", "test)]"].concat();
    let stranded: Vec<_> = sources
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains(&marker)))
        .collect();
    assert!(
        stranded.is_empty(),
        "unit tests in the root package never run; move them to tests/it: {stranded:?}"
    );
}
