//! Defects of a well-formed protocol: what the analysis found wrong with it.

use std::fmt;

use facedown_core::Symbol;

use crate::model::{Span, Q};
use crate::print::{glyphs, source_position};
use crate::protocol::Sequence;

/// A defect of a well-formed protocol, found by the analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Defect {
    /// An observation can occur but the turn has no branch for it.
    MissingBranch {
        /// The turn.
        span: Span,
        /// The observation without a branch.
        observation: Vec<Symbol>,
    },
    /// A committed result does not decode to `f(input)` (with several outputs: a pair does not
    /// decode to its output).
    WrongResult {
        /// The `result` action.
        span: Span,
        /// The output the pair carries, when the protocol names its outputs.
        output: Option<String>,
        /// The input (bits, first input first).
        input: String,
        /// The sequence on the table.
        sequence: Sequence,
        /// The result pair (1-indexed).
        pair: (usize, usize),
    },
    /// A committed number output does not hold `f(input)` one-hot (exactly one ♥, at the
    /// value's position among the result's).
    WrongNumberResult {
        /// The `result` action.
        span: Span,
        /// The input (`a=2,b=0`).
        input: String,
        /// The sequence on the table.
        sequence: Sequence,
        /// The result's positions (1-indexed).
        positions: Vec<usize>,
    },
    /// A one-card output (`result P`) is not ♥ for `f(input) = 1` and ♣ for 0.
    WrongOneCardResult {
        /// The `result` action.
        span: Span,
        /// The input (bits, first input first).
        input: String,
        /// The sequence on the table.
        sequence: Sequence,
        /// The result card (1-indexed).
        position: usize,
    },
    /// A non-committed ending whose view is possible under inputs with different outputs.
    ViewDoesNotDetermineOutput {
        /// The view.
        view: String,
        /// The outputs' values that can produce it (`0`, `1`, or `sum=1 carry=0` with several
        /// outputs), each with the inputs of that value, in input order.
        by_output: Vec<(String, Vec<String>)>,
    },
    /// The state arriving at a label differs from the one recorded there.
    LoopInconsistent {
        /// The `goto` or `label` where the second state arrives.
        span: Span,
        /// The label.
        label: String,
        /// One input whose state differs.
        input: String,
    },
    /// The protocol does not terminate with probability 1 (the linear system is singular).
    NeverTerminates {
        /// An input for which it may run forever.
        input: String,
    },
    /// An observation's probability differs between two inputs that must look alike.
    Leak {
        /// The turn (or the `result`, when `result_basis`).
        span: Span,
        /// Whether the "observation" is the basis of a `result` on numbered cards that varies
        /// within the state (see the [module docs](crate::analyze)).
        result_basis: bool,
        /// The observation.
        observation: Vec<Symbol>,
        /// The two inputs.
        inputs: (String, String),
        /// Their probabilities of reaching this observation.
        probabilities: (Q, Q),
    },
    /// In the private model: an observation whose probability differs between two inputs
    /// that one player cannot tell apart by his own input (and, for a non-committed ending, the
    /// output), so his view tells him more than the ideal functionality would.
    PlayerLeak {
        /// The player (named after the input he holds).
        player: String,
        /// The turn.
        span: Span,
        /// The observation.
        observation: Vec<Symbol>,
        /// The two inputs.
        inputs: (String, String),
        /// Their probabilities of reaching this observation.
        probabilities: (Q, Q),
    },
    /// Further leak messages were suppressed.
    MoreLeaks(usize),
    /// In a protocol with mixed endings: a complete view that ends committed is more likely
    /// under one input than under another that must look alike, so the committed ending
    /// reveals what it keeps face down (see [`crate::analyze::Endings`]).
    CommittedEndingReveals {
        /// The view.
        view: String,
        /// The two inputs.
        inputs: (String, String),
        /// The view's probability under each.
        probabilities: (Q, Q),
    },
    /// A private look that names a bit (`as x`) can show two cards that are no commitment.
    PrivateLookNoCommitment {
        /// The look.
        span: Span,
        /// What it can show.
        observation: Vec<Symbol>,
    },
    /// A committed output on numbered cards whose two cards (its basis) are not the same in
    /// every sequence that reaches the `result` \[KSK19\]. Counted as incorrect: the output is
    /// no commitment in a fixed basis, and the basis itself can tell the inputs apart.
    ResultBasisVaries {
        /// The `result` action.
        span: Span,
        /// The result pair (1-indexed).
        pair: (usize, usize),
        /// Two of the bases met (unordered pairs, lower card first).
        bases: ([Symbol; 2], [Symbol; 2]),
    },
}

impl Defect {
    /// Whether the defect makes the protocol incorrect (rather than insecure).
    pub fn breaks_correctness(&self) -> bool {
        !self.is_leak()
    }

    /// Whether the defect is a leak (it makes the protocol insecure, not incorrect).
    pub fn is_leak(&self) -> bool {
        matches!(
            self,
            Defect::Leak { .. }
                | Defect::PlayerLeak { .. }
                | Defect::MoreLeaks(_)
                | Defect::CommittedEndingReveals { .. }
        )
    }
}

impl fmt::Display for Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Defect::MissingBranch { span, observation } => write!(
                f,
                "{}: observation {} can occur but the turn has no branch for it",
                source_position(*span),
                glyphs(observation)
            ),
            Defect::WrongResult {
                span,
                output,
                input,
                sequence,
                pair,
            } => write!(
                f,
                "{}: under input {input} the row can be {} and the result cards {} {} do not encode {}({input})",
                source_position(*span),
                glyphs(sequence),
                pair.0,
                pair.1,
                output.as_deref().unwrap_or("f")
            ),
            Defect::WrongOneCardResult {
                span,
                input,
                sequence,
                position,
            } => write!(
                f,
                "{}: under input {input} the row can be {} and the result card {position} does \
                 not show f({input}) (♥ for 1, ♣ for 0)",
                source_position(*span),
                glyphs(sequence),
            ),
            Defect::WrongNumberResult {
                span,
                input,
                sequence,
                positions,
            } => {
                let list: Vec<String> = positions.iter().map(usize::to_string).collect();
                write!(
                    f,
                    "{}: under input {input} the row can be {} and the result cards {} do not \
                     hold f({input}) one-hot",
                    source_position(*span),
                    glyphs(sequence),
                    list.join(" ")
                )
            }
            Defect::ViewDoesNotDetermineOutput { view, by_output } => {
                let groups: Vec<String> = by_output
                    .iter()
                    .map(|(value, inputs)| format!("{} (output {value})", inputs.join(",")))
                    .collect();
                write!(
                    f,
                    "non-committed ending: the view {view} is possible under inputs {}",
                    groups.join(" and ")
                )
            }
            Defect::LoopInconsistent { span, label, input } => write!(
                f,
                "{}: the state arriving at label {label} differs from the state recorded there (input {input})",
                source_position(*span)
            ),
            Defect::NeverTerminates { input } => write!(
                f,
                "under input {input} the protocol does not terminate with probability 1"
            ),
            Defect::Leak {
                span,
                result_basis,
                observation,
                inputs,
                probabilities,
            } => write!(
                f,
                "{}: {} {} has probability {} under input {} but {} under input {}",
                source_position(*span),
                if *result_basis {
                    "the result's basis"
                } else {
                    "observation"
                },
                glyphs(observation),
                probabilities.0,
                inputs.0,
                probabilities.1,
                inputs.1
            ),
            Defect::PlayerLeak {
                player,
                span,
                observation,
                inputs,
                probabilities,
            } => write!(
                f,
                "{}: the holder of {player} learns more than his input and the output: \
                 observation {} has probability {} under input {} but {} under input {}",
                source_position(*span),
                glyphs(observation),
                probabilities.0,
                inputs.0,
                probabilities.1,
                inputs.1
            ),
            Defect::MoreLeaks(n) => write!(f, "… and {n} more observations that leak"),
            Defect::CommittedEndingReveals {
                view,
                inputs,
                probabilities,
            } => write!(
                f,
                "the view {view} ends committed but has probability {} under input {} and {} \
                 under input {}: a committed ending must look alike under every input",
                probabilities.0, inputs.0, probabilities.1, inputs.1
),
            Defect::PrivateLookNoCommitment { span, observation } => write!(
                f,
                "{}: the private look can show {}, which is no commitment, so it names no bit",
                source_position(*span),
                glyphs(observation)
            ),
            Defect::ResultBasisVaries { span, pair, bases } => write!(
                f,
                "{}: result {} {}: the output's two cards differ between runs ({} vs {}), so the \
                 basis can leak",
                source_position(*span),
                pair.0,
                pair.1,
                glyphs(&bases.0),
                glyphs(&bases.1)
            ),
        }
    }
}
