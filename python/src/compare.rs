//! The comparison: every workload on every face-down table (ideal, dealer, encrypted), side by
//! side — the rows `facedown compare` prints, from the library module that prints them.

use std::time::Duration;

use facedown::compare::games::GameSet;
use facedown::compare::{rows, workload_names, Options, Row};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::Serialize;

use crate::errors::{raise, CompareError};
use crate::to_python;

/// The comparison, shaped as `facedown compare --json`.
#[derive(Serialize)]
struct Compared {
    seed: u64,
    only: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    latency_ms: Option<f64>,
    rows: Vec<Row>,
}

fn game_set(games: &str) -> PyResult<GameSet> {
    GameSet::from_name(games).ok_or_else(|| {
        PyValueError::new_err(format!(
            "games={games:?}: give \"hand\", \"full\" or \"none\""
        ))
    })
}

/// The names of the comparison's workloads with the games of `games` (`hand`, `full` or
/// `none`), in table order (what `only` matches the start of).
#[pyfunction]
#[pyo3(signature = (*, games="hand"))]
fn workloads(games: &str) -> PyResult<Vec<String>> {
    workload_names(game_set(games)?).map_err(raise::<CompareError>)
}

/// Every workload (or those whose name starts with `only`) on every backend: means per run of
/// wall and CPU time, messages, bytes, rounds; the security model and the excess leakage.
/// With `latency_ms`, also the wall time of one run over the in-memory network at that
/// one-way delay per message. With `runs`, every workload runs that many times per input
/// assignment instead of its default. `games`: which games are workloads too (`hand`: one hand
/// of each, `full`: the whole games, `none`), with their cost per deal and per trick.
#[pyfunction]
#[pyo3(signature = (*, seed=0, only=None, latency_ms=None, runs=None, games="hand"))]
fn compare<'py>(
    py: Python<'py>,
    seed: u64,
    only: Option<String>,
    latency_ms: Option<f64>,
    runs: Option<u64>,
    games: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let games = game_set(games)?;
    if runs == Some(0) {
        return Err(PyValueError::new_err("runs must be at least 1"));
    }
    let latency = latency_ms
        .map(|ms| Duration::try_from_secs_f64(ms / 1e3))
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("latency_ms: {e}")))?;
    if let Some(prefix) = &only {
        let names = workload_names(games).map_err(raise::<CompareError>)?;
        if !names.iter().any(|n| n.starts_with(prefix.as_str())) {
            return Err(PyValueError::new_err(format!(
                "only={prefix:?} matches no workload (workloads: {})",
                names.join(", ")
            )));
        }
    }
    let opts = Options {
        seed,
        latency,
        only: only.clone(),
        runs,
        games,
        ..Options::default()
    };
    let table = py
        .detach(|| rows(&opts, &mut |_, _, _| {}))
        .map_err(raise::<CompareError>)?;
    let out = Compared {
        seed,
        only,
        latency_ms,
        rows: table,
    };
    to_python(py, &out)
}

/// Adds the comparison to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(workloads, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    Ok(())
}
