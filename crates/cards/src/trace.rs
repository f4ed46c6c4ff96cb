//! Teaching traces: one run of a protocol (action model of \[MS14\]), step by step, as the
//! players see it.
//!
//! Every step shows the row as it lies on the table — face-down cards as `▮`, the cards a turn
//! shows as ♣/♥ — the action, and for a shuffle which permutation was drawn, marked as hidden
//! (nobody at the table learns it; the trace shows it for teaching). Turns show the observation
//! and the branch taken; the run ends with the output.
//!
//! The randomness of input `i` with seed `s` is trial `i` of [`crate::simulate::TrialRng`], and
//! shuffles draw with the same [`Sampler`] as the simulator, so a trace is the run that
//! `facedown cards simulate --runs 1 --seed s` makes for that input.

use std::fmt::Write as _;

use facedown_core::{Perm, Symbol};
use num_traits::Zero;
use serde::Serialize;

use crate::analyze::{explore, glyphs, render_view, AnalysisError, AnalysisOptions, Observation};
use crate::model::{
    decode_bit, input_index, Action, ActionKind, Function, Protocol, Shuffle, ShuffleError, Span,
};
use crate::simulate::{Sampler, TrialRng};

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
    /// The protocol does not analyze (malformed; see [`AnalysisError`]).
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// A shuffle has no valid distribution.
    #[error("line {}, col {}: {source}", .span.line, .span.col)]
    Shuffle {
        /// Where.
        span: Span,
        /// What.
        source: ShuffleError,
    },
    /// A shuffle's weights have no common denominator below 2^64.
    #[error("line {}, col {}: the weights need a common denominator below 2^64", .span.line, .span.col)]
    Weights {
        /// Where.
        span: Span,
    },
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
    /// `f(input)`.
    pub expected_output: bool,
    /// The steps.
    pub steps: Vec<TraceStep>,
    /// How the run ended (`result`, `non-committed`, `missing branch`, `step limit`).
    pub ending: String,
    /// The output bit: decoded from the result cards, or read from the view for a
    /// non-committed ending (null when neither determines it).
    pub output: Option<bool>,
    /// The view (all observations).
    pub view: String,
    /// Shuffles executed.
    pub shuffles: u64,
}

/// Most actions a trace executes.
pub const MAX_TRACE_STEPS: usize = 10_000;

fn describe(kind: &ActionKind) -> String {
    let positions = |ps: &[usize]| {
        ps.iter()
            .map(|p| (p + 1).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    match kind {
        ActionKind::Perm(p) => format!("perm {p}"),
        ActionKind::Shuffle(Shuffle::Set { perms, weights }) => {
            let items: Vec<String> = match weights {
                None => perms.iter().map(ToString::to_string).collect(),
                Some(ws) => perms
                    .iter()
                    .zip(ws)
                    .map(|(p, w)| format!("{p}: {w}"))
                    .collect(),
            };
            format!("shuffle {{{}}}", items.join(", "))
        }
        ActionKind::Shuffle(Shuffle::Generated(gens)) => format!(
            "shuffle <{}>",
            gens.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ActionKind::Shuffle(Shuffle::Cut(ps)) => format!("shuffle cut {}", positions(ps)),
        ActionKind::Shuffle(Shuffle::Bisect(l, r)) => {
            format!("shuffle bisect {} | {}", positions(l), positions(r))
        }
        ActionKind::Turn { positions: ps, .. } => format!("turn {}", positions(ps)),
        ActionKind::Result(pairs) => format!(
            "result {}",
            pairs
                .iter()
                .map(|(a, b)| format!("{} {}", a + 1, b + 1))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ActionKind::Label(l) => format!("label {l}"),
        ActionKind::Goto(l) => format!("goto {l}"),
        ActionKind::Restart => "restart".to_owned(),
    }
}

fn face_down(n: usize) -> String {
    vec!["▮"; n].join(" ")
}

fn permute(p: &Perm, row: &[Symbol]) -> Vec<Symbol> {
    p.apply_to_row(row).unwrap_or_else(|| row.to_vec())
}

/// Traces input `bits` (first input first) with `seed`.
pub fn trace(protocol: &Protocol, bits: &[bool], seed: u64) -> Result<Trace, TraceError> {
    let k = protocol.inputs.len();
    if bits.len() != k {
        return Err(TraceError::InputLength {
            expected: k,
            got: bits.len(),
        });
    }
    // Validates the protocol (positions, labels, shuffles) and gives the view → output map.
    let ex = explore(protocol, &AnalysisOptions::default())?;
    let n = protocol.cards();
    let index = input_index(bits);
    let mut rng = TrialRng::new(seed, index as u64);
    let initial = protocol
        .initial_row(bits)
        .ok_or_else(|| AnalysisError::Layout("the layout does not fit the inputs".to_owned()))?;
    let mut row = initial.clone();
    let mut frames: Vec<(&[Action], usize)> = vec![(&protocol.body[..], 0)];
    let mut steps = Vec::new();
    let mut view: Vec<Observation> = Vec::new();
    let mut shuffles = 0u64;
    let mut output = None;
    let ending;
    loop {
        if steps.len() >= MAX_TRACE_STEPS {
            ending = "step limit".to_owned();
            break;
        }
        let Some(top) = frames.last_mut() else {
            ending = "non-committed".to_owned();
            output = ex.view_distribution()?.and_then(|dist| {
                let probs = dist.get(&view)?;
                let outs: Vec<bool> = probs
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| !p.is_zero())
                    .map(|(i, _)| ex.outputs[i])
                    .collect();
                let first = *outs.first()?;
                outs.iter().all(|&o| o == first).then_some(first)
            });
            break;
        };
        let (block, idx) = *top;
        let Some(action) = block.get(idx) else {
            frames.pop();
            continue;
        };
        top.1 += 1;
        let mut step = TraceStep {
            at: format!("{}:{}", action.span.line, action.span.col),
            action: describe(&action.kind),
            table: face_down(n),
            hidden_permutation: None,
            observation: None,
            branch: None,
            hidden_row: String::new(),
        };
        let mut done = None;
        match &action.kind {
            ActionKind::Perm(p) => row = permute(p, &row),
            ActionKind::Shuffle(s) => {
                let dist = s.distribution(n).map_err(|source| TraceError::Shuffle {
                    span: action.span,
                    source,
                })?;
                let sampler =
                    Sampler::new(&dist).ok_or(TraceError::Weights { span: action.span })?;
                let pick = sampler.pick(&mut rng);
                if let Some((p, _)) = dist.get(pick) {
                    row = permute(p, &row);
                    step.hidden_permutation = Some(p.to_string());
                }
                shuffles += 1;
            }
            ActionKind::Turn {
                positions,
                branches,
            } => {
                let mut sorted = positions.clone();
                sorted.sort_unstable();
                let seen: Vec<Symbol> =
                    sorted.iter().filter_map(|&p| row.get(p).copied()).collect();
                step.table = (0..n)
                    .map(|j| {
                        if sorted.contains(&j) {
                            row[j].to_string()
                        } else {
                            "▮".to_owned()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                step.observation = Some(glyphs(&seen));
                view.push(Observation {
                    span: action.span,
                    symbols: seen.clone(),
                });
                if let Some(bs) = branches {
                    match bs.iter().find(|b| b.observation == seen) {
                        Some(b) => {
                            step.branch =
                                Some(format!("{} (line {})", glyphs(&b.observation), b.span.line));
                            frames.push((&b.body[..], 0));
                        }
                        None => done = Some("missing branch".to_owned()),
                    }
                }
            }
            ActionKind::Result(pairs) => {
                let bits: Vec<Option<bool>> = pairs
                    .iter()
                    .map(|&(a, b)| decode_bit([row[a], row[b]]))
                    .collect();
                output = match bits.first() {
                    Some(Some(first)) if bits.iter().all(|b| *b == Some(*first)) => Some(*first),
                    _ => None,
                };
                done = Some("result".to_owned());
            }
            ActionKind::Label(_) => {}
            ActionKind::Goto(label) => {
                frames = find_label(&protocol.body, label).unwrap_or_default();
            }
            ActionKind::Restart => {
                row = initial.clone();
                frames = vec![(&protocol.body[..], 0)];
            }
        }
        step.hidden_row = glyphs(&row);
        steps.push(step);
        if let Some(e) = done {
            ending = e;
            break;
        }
    }
    let expected_output = match &protocol.function {
        Function::Copy => bits.first().copied().unwrap_or(false),
        f => f.eval(bits).unwrap_or(false),
    };
    Ok(Trace {
        name: protocol.name.clone(),
        input: bits.iter().map(|&b| if b { '1' } else { '0' }).collect(),
        seed,
        expected_output,
        steps,
        ending,
        output,
        view: render_view(&view),
        shuffles,
    })
}

/// The continuation just after `label` (the frames that reach it).
fn find_label<'p>(block: &'p [Action], label: &str) -> Option<Vec<(&'p [Action], usize)>> {
    for (idx, action) in block.iter().enumerate() {
        match &action.kind {
            ActionKind::Label(l) if l == label => return Some(vec![(block, idx + 1)]),
            ActionKind::Turn {
                branches: Some(bs), ..
            } => {
                for b in bs {
                    if let Some(mut inner) = find_label(&b.body, label) {
                        inner.insert(0, (block, idx + 1));
                        return Some(inner);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

fn paint(text: &str, color: bool) -> String {
    if color {
        text.replace('♥', "\x1b[31m♥\x1b[0m")
    } else {
        text.to_owned()
    }
}

impl Trace {
    /// Renders the trace as text; `color` paints ♥ red with ANSI escapes.
    pub fn render(&self, color: bool) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} on input {} (seed {}), f = {}",
            self.name,
            self.input,
            self.seed,
            u8::from(self.expected_output)
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
            if let Some(b) = &s.branch {
                let _ = write!(line, " → branch {}", paint(b, color));
            }
            let _ = writeln!(out, "{line}");
        }
        let output = match self.output {
            Some(b) => u8::from(b).to_string(),
            None => "undetermined".to_owned(),
        };
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
    fn every_builtin_traces_to_the_right_output() {
        for b in crate::library::builtins() {
            let p = b.protocol();
            for i in 0..p.input_count() {
                let bits = crate::model::input_bits(i, p.inputs.len());
                let t = trace(&p, &bits, 9).expect("traces");
                assert_eq!(
                    t.output,
                    Some(t.expected_output),
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
            let sim = c.simulate(&p.name, &[i], 1, 77, None).expect("simulates");
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
