//! Card-based protocols: the library, the exact analyzer, the simulator, the tracer and the KWH
//! state tree. A protocol is named by a built-in name, a path to a `.cards` file, or the text of
//! a protocol itself.

use std::path::Path;
use std::time::Instant;

use facedown_cards::analyze::{analyze as analyze_exactly, Analysis};
use facedown_cards::claim::{check as check_claims, Check, Claim};
use facedown_cards::library::{find, load, LoadError};
use facedown_cards::parse::parse;
use facedown_cards::simulate::{threads, SimulationReport, Simulator};
use facedown_cards::{trace as tracer, tree, Protocol};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::Serialize;

use crate::errors::{raise, AnalysisError, ProtocolError};
use crate::to_python;

/// Text with a line break, or opening with a `protocol NAME` line, is read as a protocol,
/// not a path (`protocols/x.cards` stays a path).
fn looks_like_source(text: &str) -> bool {
    text.contains('\n') || text.trim_start().starts_with("protocol ")
}

/// Loads a protocol named by a built-in name, a `.cards` path or the protocol's text.
pub fn load_protocol(spec: &str) -> PyResult<Protocol> {
    if find(spec).is_none() && looks_like_source(spec) && !Path::new(spec).is_file() {
        return parse(spec).map_err(|e| raise::<ProtocolError>(e.render("<text>", spec, false)));
    }
    load(spec).map_err(|e| match &e {
        LoadError::Parse { .. } => raise::<ProtocolError>(e.render(false)),
        other => raise::<ProtocolError>(other),
    })
}

/// Parses input bits (`"1,0"`, `"10"`, `[1, 0]`, `[True, False]`) for a protocol of `k` inputs.
fn parse_bits(input: &Bound<'_, PyAny>, k: usize) -> PyResult<Vec<bool>> {
    let bits: Vec<bool> = if let Ok(text) = input.extract::<String>() {
        text.chars()
            .filter(|c| !matches!(c, ',' | ' '))
            .map(|c| match c {
                '0' => Ok(false),
                '1' => Ok(true),
                other => Err(PyValueError::new_err(format!(
                    "`{other}` is not a bit (write the input as e.g. \"1,0\" or [1, 0])"
                ))),
            })
            .collect::<PyResult<_>>()?
    } else {
        let items: Vec<i64> = input.extract().map_err(|_| {
            PyValueError::new_err("input: give a string of bits (\"1,0\") or a list of 0/1")
        })?;
        items
            .into_iter()
            .map(|b| match b {
                0 => Ok(false),
                1 => Ok(true),
                other => Err(PyValueError::new_err(format!("{other} is not a bit"))),
            })
            .collect::<PyResult<_>>()?
    };
    if bits.len() != k {
        return Err(PyValueError::new_err(format!(
            "the protocol has {k} input(s) but {} bit(s) were given",
            bits.len()
        )));
    }
    Ok(bits)
}

/// The built-in protocols: name, cards, function, citation, summary, claim, whether it is a
/// negative example (insecure on purpose), and its `.cards` source.
#[pyfunction]
fn protocols(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let entries = facedown_cards::library::entries();
    to_python(py, &entries)
}

/// The analysis and the check of the protocol's own claim line.
#[derive(Serialize)]
struct Analyzed {
    #[serde(flatten)]
    analysis: Analysis,
    claim: Option<String>,
    claim_holds: Option<bool>,
    claim_mismatches: Vec<String>,
    wall_ms: f64,
}

fn mismatch_texts(check: &Check) -> Vec<String> {
    check.mismatches.iter().map(ToString::to_string).collect()
}

/// Exact analysis: correctness, security, runtime, expected shuffles in exact rationals
/// (strings such as `"3/2"`), leakage; and whether the file's `claim` line holds.
#[pyfunction]
fn analyze<'py>(py: Python<'py>, protocol: &str) -> PyResult<Bound<'py, PyAny>> {
    let p = load_protocol(protocol)?;
    let out = py.detach(|| {
        let start = Instant::now();
        let analysis = analyze_exactly(&p).map_err(|e| e.to_string())?;
        let wall_ms = start.elapsed().as_secs_f64() * 1e3;
        let claimed = p
            .claim()
            .map(|c| check_claims(analysis.clone(), Some(c), None));
        Ok::<_, String>(Analyzed {
            claim: p.claim().map(ToString::to_string),
            claim_holds: claimed.as_ref().map(Check::holds),
            claim_mismatches: claimed.as_ref().map(mismatch_texts).unwrap_or_default(),
            analysis,
            wall_ms,
        })
    });
    to_python(py, &out.map_err(raise::<AnalysisError>)?)
}

/// The verdict of `check`.
#[derive(Serialize)]
struct Checked {
    name: String,
    claim: Option<String>,
    expect: Option<String>,
    holds: bool,
    mismatches: Vec<String>,
}

/// Checks a protocol against its claim line and `expect` (e.g. `"correct,perfect,finite"`);
/// correctness is expected when neither says otherwise. What `facedown cards check` decides.
#[pyfunction]
#[pyo3(signature = (protocol, expect=None))]
fn check<'py>(
    py: Python<'py>,
    protocol: &str,
    expect: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let p = load_protocol(protocol)?;
    let expected: Option<Claim> = expect
        .map(|e| e.parse::<Claim>())
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("expect: {e}")))?;
    let analysis = py
        .detach(|| analyze_exactly(&p))
        .map_err(raise::<AnalysisError>)?;
    let verdict = check_claims(analysis, p.claim(), expected.as_ref());
    let out = Checked {
        name: p.name().to_owned(),
        claim: p.claim().map(ToString::to_string),
        expect: expected.as_ref().map(ToString::to_string),
        holds: verdict.holds(),
        mismatches: mismatch_texts(&verdict),
    };
    to_python(py, &out)
}

/// A simulation, as `facedown cards simulate --json` prints it.
#[derive(Serialize)]
struct Simulated {
    #[serde(flatten)]
    report: SimulationReport,
    wall_ms: f64,
    runs_per_second: f64,
    threads: usize,
    correct_runs: Vec<u64>,
}

/// Monte-Carlo runs of a protocol, seeded and parallel (the same seed gives the same counts
/// whatever the thread count): per input the outputs and shuffles, per view its frequency.
#[pyfunction]
#[pyo3(signature = (protocol, runs, seed=0, input=None))]
fn simulate<'py>(
    py: Python<'py>,
    protocol: &str,
    runs: u64,
    seed: u64,
    input: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let p = load_protocol(protocol)?;
    let simulator = Simulator::new(&p).map_err(raise::<AnalysisError>)?;
    let chosen = input
        .map(|i| parse_bits(i, p.inputs().len()))
        .transpose()?
        .map(|bits| facedown_cards::model::input_index(&bits));
    let out = py.detach(|| {
        let start = Instant::now();
        let inputs: Vec<usize> = chosen.into_iter().collect();
        let report = simulator
            .simulate_shard(&inputs, (runs, seed), None, None)
            .map_err(|e| e.to_string())?;
        let elapsed = start.elapsed().as_secs_f64();
        Ok::<_, String>(Simulated {
            correct_runs: report.correct_runs(&p, chosen),
            runs_per_second: report.total_runs as f64 / elapsed.max(1e-9),
            wall_ms: elapsed * 1e3,
            threads: threads(),
            report,
        })
    });
    to_python(py, &out.map_err(raise::<AnalysisError>)?)
}

/// One run, step by step, as the players see it (and the hidden row, for teaching).
#[pyfunction]
#[pyo3(signature = (protocol, input, seed=0))]
fn trace<'py>(
    py: Python<'py>,
    protocol: &str,
    input: &Bound<'py, PyAny>,
    seed: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let p = load_protocol(protocol)?;
    let bits = parse_bits(input, p.inputs().len())?;
    let t = tracer::trace(&p, &bits, seed).map_err(raise::<AnalysisError>)?;
    to_python(py, &t)
}

/// The KWH state tree: vertices (their sequences and probabilities per input) and edges.
#[pyfunction]
fn state_tree<'py>(py: Python<'py>, protocol: &str) -> PyResult<Bound<'py, PyAny>> {
    let p = load_protocol(protocol)?;
    let t = py
        .detach(|| tree::to_json(&p))
        .map_err(raise::<AnalysisError>)?;
    to_python(py, &t)
}

/// The KWH state tree as Graphviz DOT.
#[pyfunction]
fn state_tree_dot(py: Python<'_>, protocol: &str) -> PyResult<String> {
    let p = load_protocol(protocol)?;
    py.detach(|| tree::to_dot(&p))
        .map_err(raise::<AnalysisError>)
}

/// Adds the card-protocol functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(protocols, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add_function(wrap_pyfunction!(state_tree, m)?)?;
    m.add_function(wrap_pyfunction!(state_tree_dot, m)?)?;
    Ok(())
}
