//! Known-answer vectors: what the analyzer, the tracer, the state tree and the simulator said of
//! every library protocol when the vectors were recorded (`tests/vectors/`, written by the
//! four separate walkers that preceded the single interpreter). Every later version must say
//! exactly the same, number for number and in the same order; a deliberate change of an output
//! regenerates the vectors and says why in its commit. The multiset and private-model protocols
//! joined the library later: their vectors were recorded by the single interpreter, and the
//! simulator, which refuses the multiset decks, has none for those; the private-model
//! protocols' simulation vectors were recorded when the simulator learnt private actions. The
//! per-player leak figures (`players`) were added to the private-model vectors when the
//! analyzer learnt them, every other field unchanged; the several-output protocols' simulation
//! vectors were recorded when the simulator learnt several outputs.
//! The number protocols (`a{n}`) came last, with analysis and state-tree vectors; their
//! simulation vectors were recorded when the simulator learnt numbers. The tracer takes their
//! values rather than bits, and its number traces are tested in `numbers`, not recorded here.

use std::path::PathBuf;

use facedown_cards::analyze::analyze;
use facedown_cards::library::{builtins, Builtin};
use facedown_cards::model::input_bits;
use facedown_cards::simulate::simulate;
use facedown_cards::trace::trace;
use facedown_cards::tree;
use serde_json::Value;

/// The seeds of the recorded traces (every input of every protocol with each seed).
const TRACE_SEEDS: [u64; 2] = [1, 2];
/// Runs per input and seed of the recorded simulations.
const SIMULATION: (u64, u64) = (2000, 7);

fn vector_path(kind: &str, name: &str, ext: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors")
        .join(kind)
        .join(format!("{name}.{ext}"))
}

fn recorded(kind: &str, b: &Builtin) -> Value {
    let path = vector_path(kind, b.name, "json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `value` as JSON text read back, so that its floats go through the same (not necessarily
/// correctly rounding) parser as the recorded ones.
fn json<T: serde::Serialize>(value: &T) -> Value {
    let text = serde_json::to_string(value).expect("serialises");
    serde_json::from_str(&text).expect("reads back")
}

#[test]
fn every_library_protocol_analyses_exactly_as_recorded() {
    for b in builtins() {
        let analysis = analyze(&b.protocol()).expect("analyses");
        assert_eq!(json(&analysis), recorded("analyze", b), "{}", b.name);
    }
}

#[test]
fn every_library_trace_is_the_recorded_run() {
    // The tracer takes bits: the number protocols have no traces (its refusal is tested with
    // them, in `numbers`).
    for b in builtins().iter().filter(|b| !b.protocol().has_numbers()) {
        let p = b.protocol();
        let k = p.inputs().len();
        let mut traces = Vec::new();
        for i in 0..p.input_count() {
            for seed in TRACE_SEEDS {
                traces.push(json(&trace(&p, &input_bits(i, k), seed).expect("traces")));
            }
        }
        assert_eq!(Value::Array(traces), recorded("trace", b), "{}", b.name);
    }
}

#[test]
fn every_library_state_tree_is_the_recorded_tree() {
    for b in builtins() {
        let path = vector_path("tree", b.name, "dot");
        let dot =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            tree::to_dot(&b.protocol()).expect("tree"),
            dot,
            "{}",
            b.name
        );
    }
}

#[test]
fn every_library_simulation_is_the_recorded_one() {
    let (runs, seed) = SIMULATION;
    for b in builtins().iter().filter(|b| b.simulable()) {
        let report = simulate(&b.protocol(), runs, seed).expect("simulates");
        assert_eq!(json(&report), recorded("simulate", b), "{}", b.name);
    }
}
