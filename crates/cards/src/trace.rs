//! Teaching traces: one run of a protocol (action model of \[MS14\]), step by step, as the
//! players see it.
//!
//! Every step shows the row as it lies on the table — face-down cards as `▮`, the cards a turn
//! shows as ♣/♥ — the action, and for a shuffle which permutation was drawn, marked as hidden
//! (nobody at the table learns it; the trace shows it for teaching). Turns show the observation
//! and the branch taken; the run ends with the output.
//!
//! The randomness of input `i` with seed `s` is trial `i` of [`crate::simulate::TrialRng`], and
//! shuffles draw with the same [`crate::distribution::Sampler`] as the simulator (both run
//! [`crate::sampled`]), so a trace is the run that
//! `facedown cards simulate --runs 1 --seed s` makes for that input.

use std::fmt::Write as _;

use num_traits::Zero;
use serde::Serialize;

use crate::analyze::{explore, AnalysisError, AnalysisOptions};
use crate::model::{input_index, output_bit, Observation, Value};
use crate::print::{glyphs, render_view};
use crate::protocol::{numbers, Protocol};
use crate::sampled::{sample, RunEnding, SampleError, Step};
use crate::simulate::TrialRng;

/// Why a trace could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    /// The input has the wrong number of bits.
    #[error("the protocol has {expected} inputs, {got} bits were given")]
    InputLength {
        /// Inputs of the protocol.
        expected: usize,
        /// Bits given.
        got: usize,
    },
    /// The protocol has number inputs (`a{n}`): its trace takes their values
    /// ([`trace_values`]), not bits.
    #[error(
        "this protocol has number inputs (`a{{n}}`): give each input's value, as in `x=2,y=1`"
    )]
    Numbers,
    /// An input value outside its input's range.
    #[error("input `{input}` is a number modulo {modulus}, so {value} is no value of it")]
    Value {
        /// The input.
        input: String,
        /// The value given.
        value: usize,
        /// Its modulus (2 for a bit).
        modulus: usize,
    },
    /// The exact analysis that reads the output of a non-committed ending hit a limit.
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// A shuffle cannot be sampled exactly.
    #[error(transparent)]
    Sample(#[from] SampleError),
}

/// One step of a trace.
#[derive(Clone, Debug, Serialize)]
pub struct TraceStep {
    /// `line:col` of the action.
    pub at: String,
    /// The action, as written (1-indexed).
    pub action: String,
    /// The row after the action as the table shows it: `▮` face down, ♣/♥ where a turn shows.
    pub table: String,
    /// For a shuffle, the permutation drawn (hidden from the players).
    pub hidden_permutation: Option<String>,
    /// For a turn, what was seen.
    pub observation: Option<String>,
    /// For a turn with branches, the branch taken.
    pub branch: Option<String>,
    /// For a private look, what its holder alone saw (hidden from the other players; left out
    /// of the JSON for every other action).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_observation: Option<String>,
    /// The actual row after the action (hidden from the players; for teaching).
    pub hidden_row: String,
}

/// A whole trace.
#[derive(Clone, Debug, Serialize)]
pub struct Trace {
    /// The protocol.
    pub name: String,
    /// The input bits, first input first.
    pub input: String,
    /// The seed.
    pub seed: u64,
    /// `f(input)` (`None` for a protocol with several outputs: see `named_outputs`).
    pub expected_output: Option<bool>,
    /// The steps.
    pub steps: Vec<TraceStep>,
    /// How the run ended (`result`, `non-committed`, `missing branch`, `step limit`).
    pub ending: String,
    /// The output bit: decoded from the result cards, or read from the view for a
    /// non-committed ending (null when neither determines it, and for several outputs).
    pub output: Option<bool>,
    /// For a number output, `f(input)` (left out of the JSON for bits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_number: Option<Value>,
    /// For a number output, the number the run gave: held one-hot by the result cards, or
    /// determined by the view (null when neither; left out of the JSON for bits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<Option<Value>>,
    /// For a protocol with several outputs, each one's expected and found bit (empty
    /// otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub named_outputs: Vec<TracedOutput>,
    /// The view (all observations).
    pub view: String,
    /// Shuffles executed.
    pub shuffles: u64,
}

/// One named output of a trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TracedOutput {
    /// The output's name.
    pub name: String,
    /// Its value under the traced input.
    pub expected: bool,
    /// The bit the run gave it: its result pair, or what the view determines (null when
    /// neither does).
    pub output: Option<bool>,
}

/// Most actions a trace executes.
pub const MAX_TRACE_STEPS: usize = 10_000;

fn face_down(n: usize) -> String {
    vec!["▮"; n].join(" ")
}

/// Traces input `bits` (first input first) with `seed`.
pub fn trace(protocol: &Protocol, bits: &[bool], seed: u64) -> Result<Trace, TraceError> {
    let k = protocol.inputs().len();
    if protocol.has_numbers() {
        return Err(TraceError::Numbers);
    }
    if bits.len() != k {
        return Err(TraceError::InputLength {
            expected: k,
            got: bits.len(),
        });
    }
    trace_assignment(protocol, input_index(bits), seed)
}

/// Traces the input values `values` (first input first; a bit is 0 or 1) with `seed`: the
/// tracer of protocols with number inputs (`a{n}`), and of any other.
pub fn trace_values(protocol: &Protocol, values: &[usize], seed: u64) -> Result<Trace, TraceError> {
    let moduli = protocol.moduli();
    if values.len() != moduli.len() {
        return Err(TraceError::InputLength {
            expected: moduli.len(),
            got: values.len(),
        });
    }
    for ((&value, &modulus), name) in values.iter().zip(moduli).zip(protocol.inputs()) {
        if value >= modulus {
            return Err(TraceError::Value {
                input: name.clone(),
                value,
                modulus,
            });
        }
    }
    trace_assignment(protocol, numbers::index(values, moduli), seed)
}

/// Traces input assignment `index` (the order of [`Protocol::input_labels`]) with `seed`.
fn trace_assignment(protocol: &Protocol, index: usize, seed: u64) -> Result<Trace, TraceError> {
    let mut rng = TrialRng::new(seed, index as u64);
    let run = sample(protocol, index, &mut rng, MAX_TRACE_STEPS, true)?;
    let m = protocol.output_count();
    let (ending, found) = match run.ending {
        RunEnding::Result(_) => ("result", result_value(&run.result_bits, m)),
        RunEnding::Number(value) => ("result", value.map(|v| v as Value)),
        RunEnding::Open => ("non-committed", view_output(protocol, &run.view)?),
        RunEnding::Stuck => ("missing branch", None),
        RunEnding::StepLimit => ("step limit", None),
    };
    let expected = protocol.values()[index];
    let named_outputs = protocol
        .function()
        .output_names()
        .into_iter()
        .enumerate()
        .map(|(j, name)| TracedOutput {
            name: name.to_owned(),
            expected: output_bit(expected, j, m),
            output: found.map(|v| output_bit(v, j, m)),
        })
        .collect();
    let numbers = protocol.has_numbers();
    let single = |v: Value| (m == 1 && !numbers).then_some(v == 1);
    Ok(Trace {
        name: protocol.name().to_owned(),
        input: protocol.input_labels()[index].clone(),
        seed,
        expected_output: single(expected),
        named_outputs,
        output: found.and_then(single),
        expected_number: numbers.then_some(expected),
        number: numbers.then_some(found),
        steps: run.steps.iter().map(|s| trace_step(protocol, s)).collect(),
        ending: ending.to_owned(),
        view: render_view(&run.view),
        shuffles: run.shuffles,
    })
}

/// The joint value the pairs of a `result` encode (`None` when one is no commitment, or when
/// the pairs of a single output disagree).
fn result_value(bits: &[Option<bool>], m: usize) -> Option<Value> {
    let bits: Vec<bool> = bits.iter().copied().collect::<Option<_>>()?;
    if m == 1 {
        let first = *bits.first()?;
        return bits
            .iter()
            .all(|&b| b == first)
            .then_some(Value::from(first));
    }
    Some(bits.iter().fold(0, |acc, &b| (acc << 1) | Value::from(b)))
}

/// The joint output value a complete view determines, by the exact analysis (`None` when inputs
/// of different values can produce it, or for a looping protocol).
fn view_output(protocol: &Protocol, view: &[Observation]) -> Result<Option<Value>, TraceError> {
    let ex = explore(protocol, &AnalysisOptions::default())?;
    Ok(ex.view_distribution()?.and_then(|dist| {
        let probs = dist.get(view)?;
        let outs: Vec<Value> = probs
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.is_zero())
            .map(|(i, _)| ex.outputs[i])
            .collect();
        let first = *outs.first()?;
        outs.iter().all(|&o| o == first).then_some(first)
    }))
}

fn trace_step(protocol: &Protocol, step: &Step) -> TraceStep {
    let n = protocol.cards();
    let table = match &step.turned {
        None => face_down(n),
        Some((positions, _)) => (0..n)
            .map(|j| {
                if positions.contains(&j) {
                    step.row[j].to_string()
                } else {
                    "▮".to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
    };
    let observation = step.turned.as_ref().map(|(_, seen)| glyphs(seen));
    TraceStep {
        at: format!("{}:{}", step.site.span.line, step.site.span.col),
        action: protocol.describe(step.site).to_owned(),
        table,
        hidden_permutation: step.drawn.as_ref().map(ToString::to_string),
        branch: step.branch.map(|span| {
            format!(
                "{} (line {})",
                observation.clone().unwrap_or_default(),
                span.line
            )
        }),
        observation,
        private_observation: step.privately_seen.as_deref().map(glyphs),
        hidden_row: glyphs(&step.row),
    }
}

fn paint(text: &str, color: bool) -> String {
    if color {
        text.replace('♥', "\x1b[31m♥\x1b[0m")
    } else {
        text.to_owned()
    }
}

impl Trace {
    /// `f = 1`, or `sum = 1, carry = 0` for several outputs.
    fn expected_text(&self) -> String {
        if let Some(n) = self.expected_number {
            return format!("f = {n}");
        }
        if self.named_outputs.is_empty() {
            return format!("f = {}", self.expected_output.map_or(0, u8::from));
        }
        let items: Vec<String> = self
            .named_outputs
            .iter()
            .map(|o| format!("{} = {}", o.name, u8::from(o.expected)))
            .collect();
        items.join(", ")
    }

    /// The output as the last line shows it (`1`, `sum=1 carry=0`, `undetermined`).
    fn output_text(&self) -> String {
        let bit =
            |b: Option<bool>| b.map_or("undetermined".to_owned(), |b| u8::from(b).to_string());
        if let Some(n) = self.number {
            return n.map_or("undetermined".to_owned(), |n| n.to_string());
        }
        if self.named_outputs.is_empty() {
            return bit(self.output);
        }
        let items: Vec<String> = self
            .named_outputs
            .iter()
            .map(|o| format!("{}={}", o.name, bit(o.output)))
            .collect();
        items.join(" ")
    }

    /// Renders the trace as text; `color` paints ♥ red with ANSI escapes.
    pub fn render(&self, color: bool) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} on input {} (seed {}), {}",
            self.name,
            self.input,
            self.seed,
            self.expected_text()
        );
        let width = self
            .steps
            .iter()
            .map(|s| s.action.chars().count())
            .max()
            .unwrap_or(0);
        for (i, s) in self.steps.iter().enumerate() {
            let pad = width.saturating_sub(s.action.chars().count());
            let mut line = format!(
                "{:>3}  {:>6}  {}{}  {}",
                i + 1,
                s.at,
                s.action,
                " ".repeat(pad),
                paint(&s.table, color)
            );
            if let Some(p) = &s.hidden_permutation {
                let _ = write!(line, "   drew {p} (hidden)");
            }
            if let Some(o) = &s.observation {
                let _ = write!(line, "   saw {}", paint(o, color));
            }
            if let Some(o) = &s.private_observation {
                let _ = write!(line, "   its holder alone saw {}", paint(o, color));
            }
            if let Some(b) = &s.branch {
                let _ = write!(line, " → branch {}", paint(b, color));
            }
            let _ = writeln!(out, "{line}");
        }
        let output = self.output_text();
        let _ = writeln!(
            out,
            "ended: {}; output {}; view {}; {} shuffle(s)",
            self.ending,
            output,
            paint(&self.view, color),
            self.shuffles
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::find;

    #[test]
    fn every_correct_builtin_traces_to_the_right_output() {
        for b in crate::library::builtins() {
            let p = b.protocol();
            if b.claim().correct != Some(true) || p.has_numbers() {
                // The tracer takes bits (its refusal of numbers is tested with them).
                continue;
            }
            for i in 0..p.input_count() {
                let bits = crate::model::input_bits(i, p.inputs().len());
                let t = trace(&p, &bits, 9).expect("traces");
                assert_eq!(t.output, t.expected_output, "{} on {}", b.name, t.input);
                assert!(
                    t.named_outputs.iter().all(|o| o.output == Some(o.expected)),
                    "{} on {}",
                    b.name,
                    t.input
                );
                assert!(t
                    .steps
                    .iter()
                    .all(|s| s.table.chars().filter(|c| *c == '▮').count()
                        + s.observation.as_ref().map_or(0, |o| o.chars().count())
                        == p.cards()));
            }
        }
    }

    #[test]
    fn trace_is_the_simulators_first_run() {
        let p = find("four-card-las-vegas-and")
            .expect("built in")
            .protocol();
        for i in 0..4 {
            let bits = crate::model::input_bits(i, 2);
            let t = trace(&p, &bits, 77).expect("traces");
            let c = crate::simulate::Compiled::new(&p).expect("compiles");
            let sim = c.simulate(p.name(), &[i], 1, 77, None).expect("simulates");
            assert_eq!(sim.views.len(), 1);
            assert_eq!(sim.views[0].view, t.view);
            assert_eq!(sim.inputs[0].shuffles_max, t.shuffles);
        }
    }

    #[test]
    fn colour_only_when_asked() {
        let p = find("five-card-trick").expect("built in").protocol();
        let t = trace(&p, &[true, true], 3).expect("traces");
        assert!(!t.render(false).contains('\x1b'));
        assert!(t.render(true).contains("\x1b[31m♥"));
        assert!(matches!(
            trace(&p, &[true], 3),
            Err(TraceError::InputLength {
                expected: 2,
                got: 1
            })
        ));
    }
}
