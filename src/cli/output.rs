//! The command line's one convention (written down in `docs/cli.md`): the common fields of
//! every JSON document, how floats are written, colour, and the errors that choose the exit
//! status.
//!
//! Every `--json` document is one object that opens with
//! `tool`, `version`, `schema`, `command`, `seed` (seeded commands only) and `parameters`
//! (every option that shaped the result), followed by the command's own fields. Floats are
//! rounded to [`SIGNIFICANT_DIGITS`] significant digits, so that the noise of a float
//! computation (`0.5000000000000009`) is not printed as if it were a digit of the result;
//! where a value is known exactly, the document also carries it as a string.

use std::io::IsTerminal;

use serde::Serialize;
use serde_json::{Map, Value};

/// The `tool` field.
pub const TOOL: &str = "facedown";

/// The layout version of the documents, the last part of `schema`: raised when a field is
/// renamed or removed (adding a field keeps it).
pub const SCHEMA_VERSION: u32 = 1;

/// Significant digits kept of every float in a JSON document.
pub const SIGNIFICANT_DIGITS: usize = 12;

/// The `schema` of a command's document: `facedown/<command words joined by ->/<version>`.
pub fn schema(command: &str) -> String {
    format!(
        "{TOOL}/{}/{SCHEMA_VERSION}",
        command.split_whitespace().collect::<Vec<_>>().join("-")
    )
}

/// One JSON document being put together.
#[derive(Debug)]
pub struct Doc {
    command: String,
    seed: Option<u64>,
    parameters: Value,
}

impl Doc {
    /// The document of `command` (`"dealer deal"`, `"compare"`, `"report"` for the headline).
    pub fn new(command: &str) -> Doc {
        Doc {
            command: command.to_owned(),
            seed: None,
            parameters: Value::Object(Map::new()),
        }
    }

    /// Records the seed of a seeded command.
    pub fn seed(mut self, seed: u64) -> Doc {
        self.seed = Some(seed);
        self
    }

    /// Records the parameters (an object: every option that shaped the result).
    pub fn parameters(mut self, parameters: Value) -> Doc {
        self.parameters = parameters;
        self
    }

    /// The document: the common fields, then `body`'s fields (`body` must serialize to an
    /// object; anything else goes under `result`).
    pub fn build(self, body: &impl Serialize) -> anyhow::Result<Value> {
        let mut out = Map::new();
        out.insert("tool".into(), TOOL.into());
        out.insert("version".into(), env!("CARGO_PKG_VERSION").into());
        out.insert("schema".into(), schema(&self.command).into());
        out.insert("command".into(), self.command.into());
        if let Some(seed) = self.seed {
            out.insert("seed".into(), seed.into());
        }
        out.insert("parameters".into(), self.parameters);
        match serde_json::to_value(body)? {
            Value::Object(fields) => {
                for (k, v) in fields {
                    // The common fields win: a body's own `seed` is the same number.
                    out.entry(k).or_insert(v);
                }
            }
            other => {
                out.insert("result".into(), other);
            }
        }
        let mut doc = Value::Object(out);
        round_floats(&mut doc);
        Ok(doc)
    }

    /// Prints the document, pretty, on standard output.
    pub fn print(self, body: &impl Serialize) -> anyhow::Result<()> {
        let doc = self.build(body)?;
        println!("{}", serde_json::to_string_pretty(&doc)?);
        Ok(())
    }
}

/// Rounds every float in `v` to [`SIGNIFICANT_DIGITS`] significant digits (integers are kept).
pub fn round_floats(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64() {
                let rounded: f64 = format!("{x:.*e}", SIGNIFICANT_DIGITS - 1)
                    .parse()
                    .unwrap_or(x);
                if let Some(r) = serde_json::Number::from_f64(rounded) {
                    *n = r;
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(round_floats),
        Value::Object(fields) => fields.values_mut().for_each(round_floats),
        _ => {}
    }
}

/// Milliseconds of a duration, the unit of every `wall_ms` and `cpu_ms`.
pub fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Whether colour may be written to a stream: it is a terminal and `NO_COLOR` is unset or
/// empty (<https://no-color.org>).
pub fn colour_allowed(is_terminal: bool) -> bool {
    colour_for(is_terminal, std::env::var_os("NO_COLOR").as_deref())
}

/// The rule of [`colour_allowed`], given the value of `NO_COLOR`.
pub fn colour_for(is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    is_terminal && no_color.is_none_or(|v| v.is_empty())
}

/// Whether standard error may be coloured.
pub fn colour_on_stderr() -> bool {
    colour_allowed(std::io::stderr().is_terminal())
}

/// Whether standard output may be coloured.
pub fn colour_on_stdout() -> bool {
    colour_allowed(std::io::stdout().is_terminal())
}

/// A check or audit that ran and did not hold (`cards check`, `cards analyze --expect`,
/// `cards fmt --check`, a failed `dealer audit`, a deal whose audit fails): exit status 3,
/// so that a CI can tell it from an error (1) and a usage error (2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CheckFailed(pub String);

/// A command line that clap accepts but that asks for something that does not apply or
/// matches nothing (`compare --only pokr`): exit status 2, like clap's own usage errors.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// An error already rendered with its context (a parse error under its source line): printed
/// as it is, exit status 1.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Diagnostic(pub String);

/// The exit status for an error: 3 a failed check, 2 a usage error, 1 anything else (clap's
/// own usage errors exit 2 before any command runs).
pub fn exit_status(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<CheckFailed>().is_some() {
        3
    } else if err.downcast_ref::<UsageError>().is_some() {
        2
    } else {
        1
    }
}

/// The chain of causes on one line, without a backtrace. Many library errors already write
/// their cause into their own message (`"{path}: {source}"`) and also expose it as `source()`;
/// a cause whose text the line already holds is not repeated.
pub fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}
