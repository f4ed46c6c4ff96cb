//! # facedown-python
//!
//! The Python extension module `facedown._native`, wrapped by the pure-Python package
//! `facedown` (`python/facedown/__init__.py`). Each function calls the Rust library directly —
//! the same code the `facedown` CLI runs — and returns native Python objects: the library's
//! serde results become dicts, lists, strings, numbers and `None` (through `pythonize`), shaped
//! as the CLI's `--json` output of the same result.
//!
//! Long computations release the GIL. Every library error becomes a Python exception of the
//! matching exception class (`facedown.FacedownError` and its subclasses) whose message is the
//! typed error's own.
//!
//! This is research code, not audited.

mod cards;
mod compare;
mod deal;
mod errors;
mod harness;
mod search;

use pyo3::prelude::*;
use serde::Serialize;

/// Converts a serde value into the Python object its JSON would parse to.
fn to_python<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(|e| errors::FacedownError::new_err(e.to_string()))
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    cards::register(m)?;
    search::register(m)?;
    deal::register(m)?;
    compare::register(m)?;
    harness::register(m)?;
    Ok(())
}
