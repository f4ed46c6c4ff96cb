//! `facedown poker deal` and `facedown poker bench` print the documented JSON shapes.

use std::collections::BTreeSet;
use std::process::Command;

use crate::support::run_json;

/// The deal report has the dealer's shape: players, cards, hands, public, audit, cost.
#[test]
fn poker_deal_json_has_the_shared_report_shape() {
    let v = run_json(&[
        "poker",
        "deal",
        "--players",
        "3",
        "--cards",
        "10",
        "--hand",
        "2",
        "--public",
        "2",
        "--seed",
        "11",
        "--json",
    ]);
    assert_eq!(v["players"], 3);
    assert_eq!(v["cards"], 10);
    assert_eq!(v["seed"], 11);
    assert_eq!(v["audit"]["passed"], true);
    assert!(v["audit"]["blame"].is_null());
    let hands = v["hands"].as_array().expect("hands array");
    assert_eq!(hands.len(), 3);
    let mut cards = BTreeSet::new();
    for card in hands
        .iter()
        .flat_map(|h| h.as_array().expect("hand array").iter())
        .chain(v["public"].as_array().expect("public array"))
    {
        let c = card.as_u64().expect("card number");
        assert!(c < 10);
        assert!(cards.insert(c), "card {c} dealt twice");
    }
    assert_eq!(cards.len(), 8);
    // A fresh nonce and the list of all nonces, a hello, a key share, a shuffle, a set of
    // tokens and two echoes from each player to each other; N + 6 rounds (nonces, the lists
    // with the hellos, keys, echo, N shuffles, echo, the opening).
    assert_eq!(v["cost"]["messages"], 8 * 3 * 2);
    assert_eq!(v["cost"]["rounds"], 3 + 6);
    assert!(v["cost"]["bytes"].as_u64().expect("bytes") > 0);
    // Same seed, same deal.
    let again = run_json(&[
        "poker",
        "deal",
        "--players",
        "3",
        "--cards",
        "10",
        "--hand",
        "2",
        "--public",
        "2",
        "--seed",
        "11",
        "--json",
    ]);
    assert_eq!(v, again);
}

/// The bench report has the required fields, with positive times and the proof sizes of the
/// argument (8 points and 3n + 4 scalars, plus three 8-byte vector lengths).
#[test]
fn poker_bench_json_has_the_required_fields() {
    let v = run_json(&[
        "poker",
        "bench",
        "--cards",
        "8",
        "--reps",
        "3",
        "--token-reps",
        "3",
        "--json",
    ]);
    for key in [
        "shuffle_prove_ms",
        "shuffle_verify_ms",
        "reveal_prove_ms",
        "reveal_verify_ms",
        "mask_prove_ms",
        "mask_verify_ms",
    ] {
        assert!(v[key].as_f64().expect(key) > 0.0, "{key}");
    }
    // CPU times come from the thread's CPU clock at nanosecond resolution, so even three
    // reveal tokens (a fraction of a millisecond) measure as more than zero.
    for key in [
        "shuffle_prove_cpu_ms",
        "shuffle_verify_cpu_ms",
        "reveal_prove_cpu_ms",
        "reveal_verify_cpu_ms",
    ] {
        assert!(v[key].as_f64().expect(key) > 0.0, "{key}: {}", v[key]);
    }
    assert_eq!(v["shuffle_proof_bytes"], 8 * 32 + (3 * 8 + 4) * 32 + 3 * 8);
    assert_eq!(v["reveal_bytes"], 4 + 32 + 64);
    assert_eq!(v["batchable_reveal_bytes"], 4 + 32 + 96);
    // Floors and ratios, next to the figures they bound.
    for key in [
        "shuffle_floor_ms",
        "shuffle_floor_msm_ms",
        "shuffle_floor_decode_ms",
        "shuffle_verify_with_decode_cpu_ms",
        "shuffle_verify_floor_ratio",
    ] {
        assert!(v[key].as_f64().expect(key) > 0.0, "{key}: {}", v[key]);
    }
    for batch in ["deal_batch", "reveal_batch"] {
        for key in [
            "one_by_one_cpu_ms",
            "batched_cpu_ms",
            "batched_floor_ms",
            "batch_ratio",
        ] {
            assert!(v[batch][key].as_f64().expect(key) > 0.0, "{batch}.{key}");
        }
    }
    assert_eq!(v["deal_batch"]["proofs"], 3);
    assert_eq!(v["reveal_batch"]["proofs"], 3 * 7);
    let threads: Vec<u64> = v["threads"]
        .as_array()
        .expect("per-thread figures")
        .iter()
        .map(|t| t["threads"].as_u64().expect("a thread count"))
        .collect();
    assert_eq!(threads, [1, 2]);
}

/// Several deck sizes give a list of reports (`reports`), one per size, in order. Each times a
/// whole 4-player deal (2-card hands, 5 public cards) with its players batching and verifying
/// one by one, where the deck holds it (13 cards), and says it did not where it does not.
#[test]
fn poker_bench_json_sweeps_deck_sizes() {
    let v = run_json(&[
        "poker",
        "bench",
        "--cards",
        "4,13",
        "--reps",
        "1",
        "--token-reps",
        "1",
        "--json",
    ]);
    let cards: Vec<u64> = v["reports"]
        .as_array()
        .expect("an array of reports")
        .iter()
        .map(|r| r["cards"].as_u64().expect("a deck size"))
        .collect();
    assert_eq!(cards, [4, 13]);
    let (small, dealt) = (&v["reports"][0]["deal"], &v["reports"][1]["deal"]);
    assert!(small["batched_cpu_ms_per_player"].is_null(), "{small}");
    for key in [
        "batched_cpu_ms_per_player",
        "one_by_one_cpu_ms_per_player",
        "batch_ratio",
    ] {
        assert!(dealt[key].as_f64().expect(key) > 0.0, "{key}: {dealt}");
    }
    assert_eq!((&dealt["hand"], &dealt["public"]), (&2.into(), &5.into()));
}

/// Impossible deals are refused with an error, not a panic.
#[test]
fn poker_deal_refuses_impossible_parameters() {
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args([
            "poker",
            "deal",
            "--players",
            "4",
            "--cards",
            "5",
            "--hand",
            "2",
        ])
        .output()
        .expect("the facedown binary runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("do not fit"));
}
