//! Every card protocol of the library with public actions only, for every input, played by separate player processes
//! over TCP with Noise on both backends (each input committed by its own player, who alone
//! knows it), and every deal; each player's outputs are checked against the ideal table's.

use std::process::Command;

use facedown::cards::library;
use facedown::cards::model::input_bits;
use facedown::core::rng::trial_rng;
use facedown::core::IdealTable;
use facedown::workload::{run_seated, Outcome, Workload};
use serde_json::Value;

fn play_local(backend: &str, workload: &str, players: usize, input: &[bool]) -> Value {
    let bits: Vec<&str> = input.iter().map(|&b| if b { "1" } else { "0" }).collect();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_facedown"));
    cmd.args(["play-local", "--players", &players.to_string()])
        .args(["--backend", backend, "--workload", workload])
        .args(["--seed", "3", "--timeout-ms", "20000", "--json"]);
    if !bits.is_empty() {
        cmd.args(["--input", &bits.join(",")]);
    }
    let out = cmd.output().expect("run facedown play-local");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{workload} on {backend}: no JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        out.status.success(),
        "{workload} {input:?} on {backend}: {json:#}"
    );
    json
}

/// The ideal table's output of `workload` on `input`.
fn ideal_output(workload: &Workload, input: &[bool], players: usize) -> Vec<bool> {
    let mut table = IdealTable::with_rng(players, trial_rng(3, 0));
    match run_seated(workload, input, &mut table).expect("the ideal table runs it") {
        Outcome::Card { outputs, .. } => outputs,
        Outcome::Deal { .. } => panic!("a card protocol"),
    }
}

#[test]
fn every_library_protocol_for_every_input_on_both_backends_over_tcp() {
    // The tables have no private operation, read bits and deal known cards (their refusals
    // are tested with the runner), so the private-model, number and one-card protocols are
    // left out here; the several-output ones run on every backend in
    // `several_outputs_on_tables`, in process, to keep this test's process count down.
    let public = library::builtins().iter().filter(|b| {
        let p = b.protocol();
        !p.has_private_actions()
            && p.output_count() == 1
            && !p.has_numbers()
            && p.one_card_input().is_none()
    });
    for builtin in public {
        let workload = Workload::parse(builtin.name).expect("a library protocol");
        let k = workload.inputs();
        let players = workload.min_players();
        for index in 0..1usize << k {
            let input = input_bits(index, k);
            let ideal = ideal_output(&workload, &input, players);
            for backend in ["dealer", "poker"] {
                let json = play_local(backend, builtin.name, players, &input);
                assert_eq!(json["consistent"], true, "{json:#}");
                let views = json["views"].as_array().expect("views");
                assert_eq!(views.len(), players);
                for v in views {
                    let outputs: Vec<bool> = v["outcome"]["outputs"]
                        .as_array()
                        .expect("outputs")
                        .iter()
                        .map(|o| o.as_bool().expect("a bit"))
                        .collect();
                    assert_eq!(
                        outputs, ideal,
                        "{} {input:?} on {backend}, player {}",
                        builtin.name, v["player"]
                    );
                    // A player was told only its own input.
                    let own = v["inputs"].as_array().expect("inputs").len();
                    assert!(own <= 1, "{}", v["player"]);
                }
            }
        }
    }
}

#[test]
fn the_ninety_nine_and_poker_deals_on_both_backends_over_tcp() {
    for (workload, players) in [("ninety-nine", 3), ("poker52", 4)] {
        for backend in ["dealer", "poker"] {
            let json = play_local(backend, workload, players, &[]);
            assert_eq!(
                json["consistent"], true,
                "{workload} on {backend}: {json:#}"
            );
            let views = json["views"].as_array().expect("views");
            assert_eq!(views.len(), players);
        }
    }
}

#[test]
fn a_player_gets_only_its_own_input_and_wrong_input_counts_are_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(["play-local", "--players", "2", "--backend", "poker"])
        .args(["--workload", "five-card-trick", "--input", "1"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes 2 input bits"));
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(["play-local", "--players", "2", "--backend", "dealer"])
        .args(["--workload", "no-such-protocol"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no workload"));
    let json = play_local("poker", "five-card-trick", 3, &[true, false]);
    let views = json["views"].as_array().expect("views");
    let inputs: Vec<usize> = views
        .iter()
        .map(|v| v["inputs"].as_array().expect("inputs").len())
        .collect();
    assert_eq!(inputs, [1, 1, 0], "player 3 owns no input");
    assert_eq!(json["expected"], false);
}
