//! The protocol search: the shortest card protocols for a function within a step bound, or a
//! proof that none exists within it. Bounded: the step bound is required and capped, and the
//! library caps the deck (7 cards).

use facedown_cards::search::{
    parse_deck, parse_function, search as run_search, SearchOutcome, SearchQuery, SearchRuntime,
    SearchSecurity, ShuffleClass,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::Serialize;

use crate::errors::{raise, SearchError};
use crate::to_python;

/// Largest step bound accepted from Python. The work grows geometrically with the bound; the
/// impossibility searches of the notebooks go to 20 (Las Vegas radius), every published
/// protocol found so far is shorter than 10 steps.
pub const MAX_STEPS: usize = 24;

fn runtime(text: &str) -> PyResult<SearchRuntime> {
    match text {
        "finite" => Ok(SearchRuntime::Finite),
        "las-vegas" => Ok(SearchRuntime::LasVegas),
        other => Err(PyValueError::new_err(format!(
            "runtime `{other}`: expected `finite` or `las-vegas`"
        ))),
    }
}

fn security(text: &str) -> PyResult<SearchSecurity> {
    match text {
        "perfect" => Ok(SearchSecurity::Perfect),
        "input-possibilistic" => Ok(SearchSecurity::InputPossibilistic),
        "output-possibilistic" => Ok(SearchSecurity::OutputPossibilistic),
        other => Err(PyValueError::new_err(format!(
            "security `{other}`: expected `perfect`, `input-possibilistic` or \
             `output-possibilistic`"
        ))),
    }
}

fn shuffles(text: &str) -> PyResult<ShuffleClass> {
    match text {
        "any" => Ok(ShuffleClass::Any),
        "uniform" => Ok(ShuffleClass::Uniform),
        "closed" => Ok(ShuffleClass::Closed),
        "uniform-closed" => Ok(ShuffleClass::UniformClosed),
        "random-cuts" => Ok(ShuffleClass::RandomCuts),
        "cuts" => Ok(ShuffleClass::Cuts),
        other => Err(PyValueError::new_err(format!(
            "shuffles `{other}`: expected `any`, `uniform`, `closed`, `uniform-closed`, \
             `random-cuts` or `cuts`"
        ))),
    }
}

/// The query echoed next to the outcome, as `facedown cards search --json` prints it.
#[derive(Serialize)]
struct Searched<'a> {
    deck: &'a str,
    function: &'a str,
    max_steps: usize,
    runtime: SearchRuntime,
    security: SearchSecurity,
    shuffles: ShuffleClass,
    committed: bool,
    copies: usize,
    max_support: usize,
    single_card_turns: bool,
    first: bool,
    #[serde(flatten)]
    outcome: &'a SearchOutcome,
}

/// Finds the shortest protocols computing `function` on `deck` within `max_steps` steps (at
/// most [`MAX_STEPS`]), each re-checked by the exact analyzer; or shows none exists within it.
#[pyfunction]
#[pyo3(signature = (
    deck, function, max_steps, *, runtime="finite", security="perfect", shuffles="closed",
    committed=false, copies=2, max_support=2, single_card_turns=false, first=false
))]
#[allow(clippy::too_many_arguments)]
fn search<'py>(
    py: Python<'py>,
    deck: &str,
    function: &str,
    max_steps: usize,
    runtime: &str,
    security: &str,
    shuffles: &str,
    committed: bool,
    copies: usize,
    max_support: usize,
    single_card_turns: bool,
    first: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if max_steps > MAX_STEPS {
        return Err(PyValueError::new_err(format!(
            "max_steps {max_steps} is above the bound of {MAX_STEPS} steps this binding accepts"
        )));
    }
    let mut q = SearchQuery::new(
        parse_deck(deck).map_err(raise::<SearchError>)?,
        parse_function(function).map_err(raise::<SearchError>)?,
        max_steps,
    );
    q.runtime = self::runtime(runtime)?;
    q.security = self::security(security)?;
    q.shuffles = self::shuffles(shuffles)?;
    q.committed = committed;
    q.copies = copies;
    q.max_support = max_support;
    q.single_card_turns = single_card_turns;
    q.first = first;
    let outcome = py.detach(|| run_search(&q)).map_err(raise::<SearchError>)?;
    let out = Searched {
        deck,
        function,
        max_steps,
        runtime: q.runtime,
        security: q.security,
        shuffles: q.shuffles,
        committed,
        copies,
        max_support,
        single_card_turns,
        first,
        outcome: &outcome,
    };
    to_python(py, &out)
}

/// Adds the search to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(search, m)?)?;
    Ok(())
}
