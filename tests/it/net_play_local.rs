//! Players as separate processes over TCP with Noise on 127.0.0.1 (issue 7): a Ninety-Nine
//! deal over both backends with every view checked, and the fault tests — a player exiting
//! mid-deal, a corrupted frame, a replayed frame, a wrong static key. Every test reaps every
//! process it started.

use crate::support::keygen;
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

fn facedown() -> Command {
    Command::new(env!("CARGO_BIN_EXE_facedown"))
}

fn play_local(backend: &str, extra: &[&str]) -> (Output, Value) {
    let out = facedown()
        .args([
            "play-local",
            "--players",
            "3",
            "--backend",
            backend,
            "--workload",
            "ninety-nine",
            "--timeout-ms",
            "5000",
            "--json",
        ])
        .args(extra)
        .output()
        .expect("run facedown play-local");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "play-local printed no JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, json)
}

/// Every player's view is right: own hand of 12 cards, nothing of the others' hands, the
/// same trump, disjoint hands, and (dealer) exactly what the audit opened.
fn check_ninety_nine(json: &Value) {
    assert_eq!(json["consistent"], true, "{json:#}");
    let views = json["views"].as_array().expect("views");
    assert_eq!(views.len(), 3);
    let mut seen = std::collections::BTreeSet::new();
    for v in views {
        let me = v["player"].as_u64().expect("player") as usize;
        assert_eq!(v["audit"]["passed"], true);
        let hands = v["outcome"]["hands"].as_array().expect("hands");
        for (j, h) in hands.iter().enumerate() {
            if j + 1 == me {
                let h = h.as_array().expect("own hand");
                assert_eq!(h.len(), 12);
                for c in h {
                    let c = c.as_u64().expect("card");
                    assert!(c < 37);
                    assert!(seen.insert(c), "card {c} dealt twice");
                }
                if let Some(deal) = v["deal"].as_array() {
                    assert_eq!(h.as_slice(), &deal[12 * j..12 * (j + 1)]);
                }
            } else {
                assert!(h.is_null(), "player {me} sees nothing of hand {}", j + 1);
            }
        }
        assert_eq!(v["outcome"]["public"], views[0]["outcome"]["public"]);
        assert_eq!(v["outcome"]["public"].as_array().expect("public").len(), 1);
    }
    let cost = &json["cost"];
    assert!(cost["messages"].as_u64().expect("messages") > 0);
    assert!(cost["bytes"].as_u64().expect("bytes") > 0);
    assert!(cost["rounds"].as_u64().expect("rounds") > 0);
}

#[test]
fn issue_7_ninety_nine_dealer_three_processes() {
    let (out, json) = play_local("dealer", &["--seed", "7"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_ninety_nine(&json);
    // nonces 1, hello 1, the deal's setup 1, hands and trump in parallel 3, reveal 1,
    // transcript 1, and the echo round after the setup, the deal, the opening and the
    // finish: 4.
    assert_eq!(
        json["cost"]["rounds"].as_u64(),
        Some(8 + 4),
        "{:#}",
        json["phases"]
    );
}

#[test]
fn issue_7_ninety_nine_poker_three_processes() {
    let (out, json) = play_local("poker", &["--seed", "7"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_ninety_nine(&json);
    // nonces 1, their lists with the hellos 1, key shares 1, echo 1, N = 3 shuffles, echo 1,
    // reveal tokens 1.
    assert_eq!(json["cost"]["rounds"].as_u64(), Some(9));
    assert_eq!(json["cost"]["messages"].as_u64(), Some(8 * 3 * 2));
}

/// The players other than `culprit` failed, each naming it.
fn others_name(json: &Value, culprit: u64) {
    let errors = json["errors"].as_array().expect("errors");
    for other in (1..=3).filter(|&p| p != culprit) {
        let e = errors
            .iter()
            .find(|e| e["player"].as_u64() == Some(other))
            .unwrap_or_else(|| panic!("player {other} should have failed: {json:#}"));
        let text = e["error"].as_str().expect("error text");
        assert!(
            text.contains(&format!("player {culprit}")),
            "player {other} must name player {culprit}: {text}"
        );
    }
}

#[test]
fn issue_7_a_player_exiting_mid_deal_makes_the_others_abort_naming_it() {
    for backend in ["dealer", "poker"] {
        let (out, json) = play_local(backend, &["--fault", "2:exit-after-setup"]);
        assert!(!out.status.success());
        others_name(&json, 2);
    }
}

#[test]
fn issue_7_a_silent_player_makes_the_others_time_out_naming_it() {
    let out = facedown()
        .args([
            "play-local",
            "--players",
            "3",
            "--backend",
            "dealer",
            "--workload",
            "ninety-nine",
            "--timeout-ms",
            "1000",
            "--json",
            "--fault",
            "3:stall-after-setup",
        ])
        .output()
        .expect("run");
    assert!(!out.status.success());
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let errors = json["errors"].as_array().expect("errors");
    // Player 3 itself is killed by play-local; the others name it.
    for p in [1, 2] {
        let e = errors.iter().find(|e| e["player"] == p).expect("failed");
        assert!(
            e["error"].as_str().expect("text").contains("player 3"),
            "{e}"
        );
        // Its own verdict blames player 3 or nobody (a player that heard the other's abort
        // first reports that abort's accusation as a claim).
        assert!(e["blamed"] == 3 || e["blamed"].is_null(), "{e}");
    }
    // Issue 14: the aborts' accusations are claims, reported beside the verdicts.
    let claims = json["claims"].as_array().expect("claims");
    assert!(
        claims
            .iter()
            .all(|c| c["accuses"] == 3 && (c["by"] == 1 || c["by"] == 2)),
        "{claims:?}"
    );
}

#[test]
fn issue_7_corrupted_and_replayed_frames_are_rejected() {
    for fault in ["corrupt-after-setup", "replay-after-setup"] {
        let (out, json) = play_local("dealer", &["--fault", &format!("1:{fault}")]);
        assert!(!out.status.success(), "{fault}");
        let errors = json["errors"].as_array().expect("errors");
        let rejected = errors.iter().any(|e| {
            let t = e["error"].as_str().unwrap_or("");
            t.contains("rejected a frame from player 1")
        });
        assert!(rejected, "{fault}: {json:#}");
        others_name(&json, 1);
    }
}

struct Reap(Vec<Child>);

impl Drop for Reap {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn issue_7_a_wrong_static_key_fails_the_handshake() {
    let dir = std::env::temp_dir().join(format!("facedown-net-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ports: Vec<u16> = {
        let ls: Vec<_> = (0..3)
            .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("bind"))
            .collect();
        ls.iter()
            .map(|l| l.local_addr().expect("addr").port())
            .collect()
    };
    let mut roster = format!("session = \"{}\"\n", "ab".repeat(32));
    for j in 1..=3 {
        let mut keys = keygen(&dir.join(format!("p{j}.key")));
        if j == 2 {
            // The roster lists other keys for player 2 than those it holds.
            keys = keygen(&dir.join("stranger.key"));
        }
        roster.push_str(&format!(
            "\n[[party]]\nid = {j}\naddress = \"127.0.0.1:{}\"\n{keys}\n",
            ports[j - 1]
        ));
    }
    let roster_path = dir.join("parties.toml");
    std::fs::write(&roster_path, roster).expect("roster");
    let mut procs = Reap(vec![]);
    for j in 1..=3 {
        let child = facedown()
            .args(["party", "--roster"])
            .arg(&roster_path)
            .args(["--id", &j.to_string(), "--key"])
            .arg(dir.join(format!("p{j}.key")))
            .args([
                "--backend",
                "dealer",
                "--workload",
                "ninety-nine",
                "--timeout-ms",
                "3000",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn party");
        procs.0.push(child);
    }
    let outs: Vec<Output> = procs
        .0
        .drain(..)
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    for (j, out) in outs.iter().enumerate() {
        assert!(!out.status.success(), "player {} cannot play", j + 1);
    }
    // Player 1 only accepts, so it meets player 2's key itself. Player 3 may find player 1
    // already gone (it aborted): its handshake or its connection fails, naming a peer.
    let err1 = String::from_utf8_lossy(&outs[0].stderr);
    assert!(
        err1.contains("handshake with player 2 failed"),
        "player 1 must reject player 2's key: {err1}"
    );
    let err3 = String::from_utf8_lossy(&outs[2].stderr);
    assert!(
        err3.contains("player 1") || err3.contains("player 2"),
        "player 3: {err3}"
    );
}
