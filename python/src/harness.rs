//! The dealer's harnesses — excess leakage against openings, what coalitions learn, every
//! deviation of every player — and the poker bench, shaped as the CLI's `--json` of
//! `dealer leakage`, `dealer collusion`, `dealer cheat` and `poker bench` (without the common
//! fields `tool`, `version`, `schema` and `command`).

use std::time::Instant;

use facedown_core::rng::seeded_rng;
use facedown_dealer::Scheme;
use facedown_leakage::collusion::{self, Method};
use facedown_leakage::{cheat as cheating, montecarlo, LeakageError, Schedule};
use facedown_poker::timing::{measure_with_rng, BenchReport};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::json;

use crate::deal::scheme;
use crate::errors::{raise, DealError};
use crate::to_python;

fn leakage_error(e: LeakageError) -> PyErr {
    raise::<DealError>(e)
}

/// Exact up to eight cards (every deal enumerated), the closed form beyond — as the CLI.
fn method_for(s: &Scheme) -> Method {
    if s.cards <= 8 {
        Method::Exact
    } else {
        Method::ClosedForm
    }
}

fn milliseconds(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// The excess leakage about the whole deal, in bits, for every coalition against the number
/// of cards opened (publicly, or into private hands): `points`, each with `coalition`, `kind`,
/// `openings`, `excess_bits` and the exact `excess_is_zero`.
#[pyfunction]
#[pyo3(signature = (players=3, *, cards=6, scheme="general"))]
fn dealer_leakage<'py>(
    py: Python<'py>,
    players: usize,
    cards: usize,
    scheme: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let (s, variant) = self::scheme(scheme, players, cards)?;
    let start = Instant::now();
    let points = py.detach(|| collusion::sweep(&s)).map_err(leakage_error)?;
    let method = method_for(&s);
    to_python(
        py,
        &json!({
            "scheme": variant, "players": players, "cards": cards, "target": "whole deal",
            "method": method, "points": points, "wall_ms": milliseconds(start),
        }),
    )
}

/// The schedules of a collusion table: the one given, or (neither `hand` nor `public` given)
/// the three of the CLI — all public, all private, and hands with one public card.
fn schedules(s: &Scheme, hand: Option<usize>, public: Option<usize>) -> PyResult<Vec<Schedule>> {
    let n = s.cards;
    let sizes = match (hand, public) {
        (None, None) => vec![(0, n - 1), (n / s.players, 0), ((n - 1) / s.players, 1)],
        (h, p) => vec![(h.unwrap_or(0), p.unwrap_or(0))],
    };
    let mut out: Vec<Schedule> = Vec::new();
    for (h, p) in sizes {
        let schedule = Schedule::new(s, h, p).map_err(leakage_error)?;
        if !out
            .iter()
            .any(|o| (o.hand, o.public) == (schedule.hand, schedule.public))
        {
            out.push(schedule);
        }
    }
    Ok(out)
}

/// What each coalition learns about each target (exact): `rows`; with `samples`, also
/// `monte_carlo`: the attacks run on that many real seeded games per schedule, with Wilson
/// intervals.
#[pyfunction]
#[pyo3(signature = (
    players=3, *, cards=6, scheme="general", hand=None, public=None, samples=None, seed=0
))]
#[allow(clippy::too_many_arguments)]
fn dealer_collusion<'py>(
    py: Python<'py>,
    players: usize,
    cards: usize,
    scheme: &str,
    hand: Option<usize>,
    public: Option<usize>,
    samples: Option<u64>,
    seed: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let (s, variant) = self::scheme(scheme, players, cards)?;
    let method = method_for(&s);
    let start = Instant::now();
    let mut rows = Vec::new();
    let mut monte_carlo = Vec::new();
    for schedule in schedules(&s, hand, public)? {
        let table = py
            .detach(|| collusion::collusion_table(&schedule, method))
            .map_err(leakage_error)?;
        rows.extend(table);
        if let Some(k) = samples {
            let estimate = py
                .detach(|| montecarlo::monte_carlo(&schedule, k, seed, &|| {}))
                .map_err(leakage_error)?;
            monte_carlo.push(json!({
                "schedule": schedule.describe(), "hand": schedule.hand,
                "public": schedule.public, "rows": estimate,
            }));
        }
    }
    to_python(
        py,
        &json!({
            "scheme": variant, "players": players, "cards": cards, "method": method,
            "seed": seed, "samples": samples, "rows": rows, "monte_carlo": monte_carlo,
            "wall_ms": milliseconds(start),
        }),
    )
}

/// Every deviation of every player over `samples` seeded games each: `rows`, each with how
/// often the audit caught the cheater, named him, and blamed an honest player.
#[pyfunction]
#[pyo3(signature = (
    players=3, *, cards=6, scheme="general", hand=1, public=1, samples=100, seed=0
))]
#[allow(clippy::too_many_arguments)]
fn dealer_cheat<'py>(
    py: Python<'py>,
    players: usize,
    cards: usize,
    scheme: &str,
    hand: usize,
    public: usize,
    samples: u64,
    seed: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let (s, variant) = self::scheme(scheme, players, cards)?;
    let schedule = Schedule::new(&s, hand, public).map_err(leakage_error)?;
    let start = Instant::now();
    let rows = py
        .detach(|| cheating::cheat_table(&schedule, samples, seed, &|| {}))
        .map_err(leakage_error)?;
    to_python(
        py,
        &json!({
            "scheme": variant, "players": players, "cards": cards, "hand": hand,
            "public": public, "seed": seed, "trials": samples, "rows": rows,
            "wall_ms": milliseconds(start),
        }),
    )
}

/// Timings of the Bayer–Groth shuffle argument, the reveal tokens and the masking, one report
/// per deck size in `cards` (as `facedown poker bench --json`): `reports`.
#[pyfunction]
#[pyo3(signature = (cards=vec![52], *, reps=5, token_reps=20, seed=0))]
fn poker_bench<'py>(
    py: Python<'py>,
    cards: Vec<u16>,
    reps: usize,
    token_reps: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyAny>> {
    if cards.is_empty() {
        return Err(PyValueError::new_err("cards: give at least one deck size"));
    }
    let reports = py
        .detach(|| -> Result<Vec<BenchReport>, _> {
            let mut rng = seeded_rng(seed);
            cards
                .iter()
                .map(|&n| measure_with_rng(n, reps, token_reps, &mut rng, &mut |_, _| {}))
                .collect()
        })
        .map_err(raise::<DealError>)?;
    to_python(
        py,
        &json!({ "seed": seed, "reps": reps, "token_reps": token_reps, "reports": reports }),
    )
}

/// Adds the harnesses to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dealer_leakage, m)?)?;
    m.add_function(wrap_pyfunction!(dealer_collusion, m)?)?;
    m.add_function(wrap_pyfunction!(dealer_cheat, m)?)?;
    m.add_function(wrap_pyfunction!(poker_bench, m)?)?;
    Ok(())
}
