//! The exceptions: one base class, one subclass per layer of the library's errors. Each is
//! raised with the typed error's own message (a parse error also shows the source line and a
//! caret, as the CLI prints it).

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(
    facedown,
    FacedownError,
    PyException,
    "Base class of every error the facedown library reports."
);
pyo3::create_exception!(
    facedown,
    ProtocolError,
    FacedownError,
    "A protocol could not be loaded: unknown name, unreadable file or a parse error."
);
pyo3::create_exception!(
    facedown,
    AnalysisError,
    FacedownError,
    "The analyzer, simulator, tracer or state tree refused a protocol (a limit, a bad input)."
);
pyo3::create_exception!(
    facedown,
    SearchError,
    FacedownError,
    "A protocol search could not run (bad deck, function or bound)."
);
pyo3::create_exception!(
    facedown,
    DealError,
    FacedownError,
    "A deal (permutation-sharing dealer or mental poker) could not run or failed its audit."
);
pyo3::create_exception!(
    facedown,
    CompareError,
    FacedownError,
    "The comparison of backends failed (a wrong output or a failed audit in some row)."
);

/// Wraps a typed error's message in the exception `E`.
pub fn raise<E: pyo3::PyTypeInfo>(err: impl std::fmt::Display) -> PyErr {
    PyErr::new::<E, _>(err.to_string())
}

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FacedownError", py.get_type::<FacedownError>())?;
    m.add("ProtocolError", py.get_type::<ProtocolError>())?;
    m.add("AnalysisError", py.get_type::<AnalysisError>())?;
    m.add("SearchError", py.get_type::<SearchError>())?;
    m.add("DealError", py.get_type::<DealError>())?;
    m.add("CompareError", py.get_type::<CompareError>())?;
    Ok(())
}
