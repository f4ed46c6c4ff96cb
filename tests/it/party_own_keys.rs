//! `party --game` without `--seed`: every player, and the ideal table, draws its own secret key.
//!
//! Before, a game over TCP needed `--seed`, and every player's randomness (his engines'
//! secrets, his bot's choices) and the ideal table's shuffles were streams of that one seed,
//! which every player knew: any player could compute the others' keys and every card. Now a
//! party given no seed draws a 256-bit key of its own, prints it only to itself
//! (`drawn_seed`), and the game is still played through and audited.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::keygen;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_facedown"));
    c.env("RUST_BACKTRACE", "0").env("NO_COLOR", "1");
    c
}

/// A roster of `parties` on free loopback ports, with their key files, in `dir`.
fn roster(dir: &Path, parties: usize) -> std::path::PathBuf {
    let listeners: Vec<_> = (0..parties)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("bind"))
        .collect();
    let mut roster = format!("session = \"{}\"\n", "cd".repeat(32));
    for (j, l) in (1..=parties).zip(&listeners) {
        let keys = keygen(&dir.join(format!("p{j}.key")));
        let port = l.local_addr().expect("addr").port();
        roster.push_str(&format!(
            "\n[[party]]\nid = {j}\naddress = \"127.0.0.1:{port}\"\n{keys}\n"
        ));
    }
    drop(listeners);
    let path = dir.join("parties.toml");
    std::fs::write(&path, roster).expect("roster");
    path
}

/// Every party of a one-deal Ninety-Nine game on `backend`, none given a seed: each one's
/// JSON document.
fn play_without_seeds(backend: &str, parties: usize, table: bool) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("temp dir");
    let roster = roster(dir.path(), parties);
    let children: Vec<_> = (1..=parties)
        .map(|j| {
            let mut cmd = bin();
            cmd.args(["party", "--roster"])
                .arg(&roster)
                .args(["--id", &j.to_string(), "--key"])
                .arg(dir.path().join(format!("p{j}.key")))
                .args(["--backend", backend, "--game", "ninety-nine", "--json"])
                .args(["--timeout-ms", "20000"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            match table && j == parties {
                true => cmd.arg("--table"),
                false => cmd.args(["--deals", "1"]),
            };
            cmd.spawn().expect("spawn party")
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    outs.iter()
        .enumerate()
        .map(|(j, out)| {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "party {}: {stderr}", j + 1);
            serde_json::from_slice(&out.stdout).expect("one JSON document")
        })
        .collect()
}

/// Each party drew a key of its own (64 hex digits), all different, and recorded no seed.
fn assert_own_keys(docs: &[Value]) {
    let keys: Vec<&str> = docs
        .iter()
        .map(|d| {
            assert_eq!(d["parameters"]["own_key"], true, "{d}");
            assert!(d["seed"].is_null(), "no seed recorded: {d}");
            d["parameters"]["drawn_seed"].as_str().expect("a drawn key")
        })
        .collect();
    for k in &keys {
        assert_eq!(k.len(), 64, "{k}");
        assert!(k.bytes().all(|b| b.is_ascii_hexdigit()), "{k}");
    }
    let distinct: std::collections::BTreeSet<_> = keys.iter().collect();
    assert_eq!(
        distinct.len(),
        keys.len(),
        "every party its own key: {keys:?}"
    );
}

/// The players' documents say the same game: every hand's score, and nobody blamed.
fn assert_one_honest_game(players: &[Value]) {
    for p in players {
        assert!(p["game"]["verdict"]["offender"].is_null(), "{p}");
    }
    let scores: Vec<&Value> = players.iter().map(|p| &p["game"]["hands"]).collect();
    assert!(scores.windows(2).all(|w| w[0] == w[1]), "{scores:?}");
}

#[test]
fn a_game_on_the_encrypted_deck_without_a_seed_draws_a_key_per_player_and_is_played_through() {
    let docs = play_without_seeds("poker", 3, false);
    assert_own_keys(&docs);
    assert_one_honest_game(&docs);
}

#[test]
fn the_ideal_table_without_a_seed_shuffles_from_its_own_key() {
    let docs = play_without_seeds("ideal", 4, true);
    assert_own_keys(&docs);
    assert_one_honest_game(&docs[..3]);
    assert_eq!(
        docs[3]["counts"]["hands"], 1,
        "the table dealt one hand: {}",
        docs[3]
    );
}
