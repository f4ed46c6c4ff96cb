//! The `.cards` parser: text in the format of the specification ([`crate::spec`], the file
//! `crates/cards/docs/format.md`) to a validated [`Protocol`].
//!
//! # Grammar
//!
//! ```text
//! file      = { sep } [ stmt { sep { sep } stmt } ] { sep } EOF
//! sep       = NEWLINE | ";"
//! stmt      = header | action
//! header    = "protocol" NAME | "inputs" NAME+ | "function" FUNC | "layout" ITEM+
//!           | "claim" CLAIM+                                       (optional, see crate::claim)
//! FUNC      = and | or | xor | nand | nor | xnor | copy | add-mod | [01]+  (a truth table)
//! ITEM      = NAME | "~" NAME | "0" | "1" | SYMBOL
//!           | NAME "{" DIGITS "}"               (a number modulo DIGITS, one-hot: see numbers)
//!           | NAME "(" CARD CARD ")" | "~" NAME "(" CARD CARD ")"   (standard deck, [KSK19])
//! CARD      = "#" DIGITS
//! action    = "perm" PERM
//!           | "shuffle" ( "{" PERM [ ":" WEIGHT ] { "," PERM [ ":" WEIGHT ] } "}"
//!                       | "<" PERM { "," PERM } ">"
//!                       | "cut" POS+
//!                       | "bisect" POS+ "|" POS+ )
//!           | "turn" POS+ [ "{" { sep } { branch { sep } } "}" ]
//!           | "result" POS POS { "," POS POS }
//!           | "result" POS+             (with number inputs: the output one-hot, [SMS+15])
//!           | "label" NAME | "goto" NAME | "restart"
//!           | "private" NAME PRIVATE      (the private model, [NMTIO22], [OM21]: see the `private` module)
//! branch    = SYMBOL+ ":" ( action | "{" { sep } { action { sep } } "}" )
//! PERM      = "id" | ( "(" { POS [ "," ] } ")" )+
//! WEIGHT    = INTEGER [ "/" DIGITS ]
//! SYMBOL    = "♣" | "♥" | "C" | "H" | "c" | "h" | "#" DIGITS
//! ```
//!
//! Positions are 1-indexed in the text and 0-indexed in the [`Protocol`]. The four header lines
//! may come in any order but each exactly once and before the first action; the `claim` line
//! is optional, at most once, also in the header. A `CLAIM` item is a word of
//! [`crate::claim`] (`correct`, `perfect`, `expected-shuffles=15/2`, …).
//!
//! # Lexical decisions (where the format leaves room)
//!
//! * `#` immediately followed by a digit is a numbered card of a standard deck (`#12`); any other
//!   `#` starts a comment running to the end of the line.
//! * ASCII symbols: a word made only of the letters `C`, `H`, `c`, `h` is a sequence of cards
//!   (`CH:` is the observation ♣♥). In a layout, a **declared input name wins**: with
//!   `inputs a b c`, the layout item `c` is the input `c`, not a club.
//! * Turned positions must be listed in increasing order, so that "the observation, in position
//!   order" and "the observation, in the order written" mean the same thing.
//! * A truth table reads the inputs in binary order, first input most significant.
//!
//! # Standard decks
//!
//! A deck of distinct numbered cards (`#1 #2 …`) commits an input on two given cards with the
//! encoding of Koch–Schrempp–Kirsten \[KSK19\]: the layout item `a(#1 #2)` lays `#1 #2` for
//! `a = 0` and `#2 #1` for `a = 1` (lower-numbered card first = 0), `~a(#1 #2)` the other way
//! round ([`LayoutItem::InputOn`]). A `result P Q` on numbered cards reads lower card first = 0,
//! higher first = 1, and must use the same two cards in every run that reaches it — the
//! analyzer checks that ([`crate::analyze`]). For example, Mizuki–Sone's XOR \[MS09\] on a
//! standard deck:
//!
//! ```text
//! protocol xor-standard-deck
//! inputs a b
//! function xor
//! layout a(#1 #2) b(#3 #4)
//! perm (2 3)
//! shuffle {id, (1 3)(2 4)}
//! perm (2 3)
//! turn 1 2 {
//!   #1 #2: result 3 4
//!   #2 #1: result 4 3
//! }
//! ```
//!
//! (correct, perfect, one shuffle: the turn shows `a ⊕ r` on `a`'s own cards, and the output
//! stays on `b`'s cards {#3, #4} in both branches).
//!
//! The two cards are written lower number first (`a(#2 #1)` is an error: write `~a(#1 #2)`),
//! must differ, must be numbered, and no card may occur twice in a layout that has such an
//! item (neither in two commitments nor in a commitment and a helper card `#n`). A space before
//! `(` is allowed; the printer writes `a(#1 #2)`. Constants (`0`, `1`) stay two-colour.
//!
//! # Checks done here
//!
//! Everything that can be decided without running the protocol: positions in `1..=cards`, no
//! repeated positions, cycle notation that is a permutation, shuffle distributions that are valid
//! ([`Shuffle::distribution`]), bisection halves of equal length, observations as long as the
//! turn, no duplicate branch, inputs declared and laid out, truth tables of length `2^inputs`,
//! `copy` on exactly one input, labels defined once and every `goto` target defined, and no
//! more permutation entries (cards × permutations) than [`MAX_PERM_ENTRIES`], counted before
//! each permutation, cut, bisection or generated group is made, and shuffle weights whose
//! numerators, denominators and common denominator fit in [`MAX_WEIGHT_BITS`] bits, refused
//! by their length before they are converted.
//! What needs the state tree (reachability of observations, correctness, security) is the
//! analyzer's job ([`crate::analyze`]).
//!
//! Every error is a [`ParseError`] with the 1-indexed line and column (counted in characters) and
//! a typed [`ParseErrorKind`]; no input makes the parser panic. [`ParseError::render`] shows it
//! under the source line with a caret. The text read is then validated once more as a whole
//! ([`Protocol::new`]); a protocol the parser accepts always passes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use facedown_core::{Perm, Symbol};
use num_bigint::BigInt;
use num_traits::{Signed, Zero};

use crate::claim::{Claim, ClaimError, ClaimItem};
use crate::model::{
    Action, ActionKind, Branch, CommonDenominator, Function, LayoutItem, NamedFunction,
    NamedOutput, Shuffle, ShuffleError, Span, Q,
};
use crate::protocol::{OverBudget, PermBudget, Protocol, ProtocolError, ProtocolParts, Refusal};

mod excerpt;
mod private;
pub use crate::model::MAX_WEIGHT_BITS;
pub use crate::protocol::{MAX_CARDS, MAX_INPUTS, MAX_NESTING, MAX_OUTPUTS, MAX_PERM_ENTRIES};

/// A malformed `.cards` file: where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {col}: {kind}")]
pub struct ParseError {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
    /// What is wrong.
    pub kind: ParseErrorKind,
}

impl ParseError {
    fn at(span: Span, kind: ParseErrorKind) -> ParseError {
        ParseError {
            line: span.line,
            col: span.col,
            kind,
        }
    }

    /// The position of the error as a [`Span`].
    pub fn span(&self) -> Span {
        Span {
            line: self.line,
            col: self.col,
        }
    }

    /// The error under its source line, the offending token underlined (through `ariadne`):
    ///
    /// ```text
    /// error: line 5, column 1: unknown keyword `suffle` (expected …); did you mean `shuffle`?
    ///    ╭─[ bad.cards:5:1 ]
    ///    │
    ///  5 │ suffle cut 1 2 3 4 5
    ///    │ ──────
    /// ───╯
    /// ```
    ///
    /// `path` names the source in the header, `src` is the text that was parsed; `color` adds
    /// ANSI colours. A line longer than 120 characters is shown cut to a window around the
    /// error, its cut ends marked `…`, so that the report stays short whatever the file.
    pub fn render(&self, path: &str, src: &str, color: bool) -> String {
        let range = token_range(src, self.span());
        let chars: Vec<char> = src.chars().collect();
        let Some(cut) = excerpt::excerpt(&chars, &range) else {
            return self.report(path, ariadne::Source::from(src), range, color);
        };
        // A long line is shown cut around the error, as line `self.line` of a source that is
        // otherwise empty lines (ariadne numbers the margin from the source itself); the
        // header's column is then the window's, and is put back to the file's.
        let above = self.line.saturating_sub(1);
        let window = format!("{}{}", "\n".repeat(above), cut.text);
        let label = cut.label.start + above..cut.label.end + above;
        let shown = self.report(path, ariadne::Source::from(window.as_str()), label, color);
        let (line, col) = (self.line, self.col);
        shown.replacen(
            &format!("{path}:{line}:{}", cut.col),
            &format!("{path}:{line}:{col}"),
            1,
        )
    }

    /// The report of this error over `src`, labelled at `range` (characters of `src`).
    fn report(
        &self,
        path: &str,
        src: ariadne::Source<&str>,
        range: std::ops::Range<usize>,
        color: bool,
    ) -> String {
        use ariadne::{CharSet, Color, Config, Label, Report, ReportKind};
        let config = Config::default()
            .with_color(color)
            .with_char_set(CharSet::Unicode);
        let report = Report::build(
            ReportKind::Custom("error", Color::Red),
            (path, range.clone()),
        )
        .with_config(config)
        .with_message(self)
        .with_label(
            Label::new((path, range))
                .with_message(self.kind.label())
                .with_color(Color::Red),
        )
        .finish();
        let mut out = Vec::new();
        match report.write((path, src), &mut out) {
            Ok(()) if color => String::from_utf8_lossy(&out).into_owned(),
            // A custom report kind keeps its colour whatever the configuration says.
            Ok(()) => strip_ansi(&String::from_utf8_lossy(&out)),
            Err(_) => format!("error: {path}: {self}\n"),
        }
    }
}

impl From<OverBudget> for ParseErrorKind {
    fn from(over: OverBudget) -> ParseErrorKind {
        ParseErrorKind::TooManyPermutations {
            cards: over.cards,
            perms: over.perms,
            max: MAX_PERM_ENTRIES,
        }
    }
}

impl From<Refusal> for ParseErrorKind {
    fn from(refusal: Refusal) -> ParseErrorKind {
        match refusal {
            Refusal::Shuffle(e) => weight_refusal(e),
            Refusal::Budget(over) => over.into(),
        }
    }
}

/// The parser's error for a shuffle refused by [`CommonDenominator`] (or otherwise invalid).
fn weight_refusal(e: ShuffleError) -> ParseErrorKind {
    match e {
        ShuffleError::CommonDenominatorTooLarge { index, bits } => {
            ParseErrorKind::CommonDenominatorTooLarge {
                weights: index,
                bits,
                max: MAX_WEIGHT_BITS,
            }
        }
        e => ParseErrorKind::Shuffle(e),
    }
}

/// `text` without ANSI escape sequences (`ESC [ … letter`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl ParseErrorKind {
    /// A few words for the underline of [`ParseError::render`].
    pub fn label(&self) -> String {
        match self {
            ParseErrorKind::Unexpected { expected, .. } => format!("expected {expected}"),
            ParseErrorKind::UnknownKeyword {
                suggestion: Some(s),
                ..
            }
            | ParseErrorKind::UnknownFunction {
                suggestion: Some(s),
                ..
            } => format!("did you mean `{s}`?"),
            ParseErrorKind::UnknownKeyword { .. } => "not a keyword".to_owned(),
            ParseErrorKind::PositionOutOfRange { cards, .. } => format!("not in 1..={cards}"),
            ParseErrorKind::TrailingGarbage { .. } => "expected a new line or `;`".to_owned(),
            ParseErrorKind::UnterminatedBlock => "never closed".to_owned(),
            ParseErrorKind::TooManyPermutations { .. }
            | ParseErrorKind::WeightTooLarge { .. }
            | ParseErrorKind::CommonDenominatorTooLarge { .. } => "over the limit".to_owned(),
            _ => "here".to_owned(),
        }
    }
}

/// The characters of the token that starts at `span` (one character for punctuation, the
/// whole word otherwise; the last character at the end of the text), as a range of
/// character offsets.
fn token_range(src: &str, span: Span) -> std::ops::Range<usize> {
    let chars: Vec<char> = src.chars().collect();
    let mut line = 1;
    let mut start = chars.len();
    let mut col = 1;
    for (i, &c) in chars.iter().enumerate() {
        if line == span.line && col == span.col {
            start = i;
            break;
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else if !(c == '\u{feff}' && i == 0) {
            col += 1;
        }
    }
    if start >= chars.len() {
        let last = chars.len().saturating_sub(1);
        return last..chars.len().max(last + usize::from(chars.is_empty()));
    }
    let word = |c: &char| !c.is_whitespace() && !is_punct(*c);
    let numbered = matches!(chars[start], '#' | '%');
    let len = if numbered || !word(&chars[start]) {
        let digits = chars[start + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        1 + if numbered { digits } else { 0 }
    } else {
        chars[start..].iter().take_while(|c| word(c)).count()
    };
    start..start + len
}

/// What is wrong with a `.cards` file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// A token that does not fit the grammar at this point.
    #[error("found {found}, expected {expected}")]
    Unexpected {
        /// What was found (quoted token, "end of line", "end of file").
        found: String,
        /// What the grammar allows here.
        expected: String,
    },
    /// A statement starts with a word that is no keyword of the format.
    #[error(
        "unknown keyword `{found}` (expected protocol, inputs, function, layout, claim, perm, \
         shuffle, turn, result, label, goto or restart){}", did_you_mean(*.suggestion)
    )]
    UnknownKeyword {
        /// The word found.
        found: String,
        /// The keyword it is closest to, when one is close.
        suggestion: Option<&'static str>,
    },
    /// Something follows a complete statement on the same line.
    #[error("found {found} after the end of the statement, expected a new line or `;`")]
    TrailingGarbage {
        /// What was found.
        found: String,
    },
    /// A `{` is never closed.
    #[error("the block opened here with `{{` is never closed (reached the end of the file)")]
    UnterminatedBlock,
    /// Branching turns nested deeper than [`MAX_NESTING`].
    #[error("branching turns are nested more than {max} deep")]
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// A header line is missing.
    #[error(
        "missing header line `{keyword}` (a file starts with protocol, inputs, function, layout)"
    )]
    MissingHeader {
        /// The missing keyword.
        keyword: &'static str,
    },
    /// A header line occurs twice.
    #[error("second `{keyword}` line (the first is on line {first_line})")]
    DuplicateHeader {
        /// The repeated keyword.
        keyword: &'static str,
        /// Line of the first occurrence.
        first_line: usize,
    },
    /// A header line after the first action.
    #[error("header line `{keyword}` after the first action; the header comes first")]
    HeaderAfterActions {
        /// The keyword found.
        keyword: &'static str,
    },
    /// An input name that is not an identifier.
    #[error(
        "`{found}` is not a valid input name (a letter or `_`, then letters, digits, `_`, `'`)"
    )]
    BadInputName {
        /// The name found.
        found: String,
    },
    /// An input declared twice.
    #[error("input `{name}` is declared twice")]
    DuplicateInput {
        /// The input.
        name: String,
    },
    /// An output name that is not an identifier.
    #[error(
        "`{found}` is not a valid output name (a letter or `_`, then letters, digits, `_`, `'`)"
    )]
    BadOutputName {
        /// The name found.
        found: String,
    },
    /// An output declared twice.
    #[error("output `{name}` is declared twice")]
    DuplicateOutput {
        /// The output.
        name: String,
    },
    /// More outputs than [`MAX_OUTPUTS`].
    #[error("{count} outputs, at most {max} are supported")]
    TooManyOutputs {
        /// Outputs declared.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A `result` with another number of pairs than the protocol has outputs.
    #[error(
        "the protocol has {outputs} outputs, so a `result` writes {outputs} pairs, one per output \
         in order, not {pairs}"
    )]
    ResultArity {
        /// Pairs written.
        pairs: usize,
        /// Outputs declared.
        outputs: usize,
    },
    /// A `function` line with another number of functions than the `outputs` line has
    /// outputs (or several functions and no `outputs` line).
    #[error("{}", function_count_message(*.found, *.outputs))]
    FunctionCount {
        /// Functions written.
        found: usize,
        /// Outputs declared (`None` without an `outputs` line).
        outputs: Option<usize>,
    },
    /// More inputs than [`MAX_INPUTS`].
    #[error("{count} inputs, at most {max} are supported")]
    TooManyInputs {
        /// Inputs declared.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// `function` names neither a known function nor a truth table.
    #[error(
        "unknown function `{found}` (expected and, or, xor, nand, nor, xnor, copy, or a truth \
         table of 0s and 1s){}", did_you_mean(*.suggestion)
    )]
    UnknownFunction {
        /// The word found.
        found: String,
        /// The function it is closest to, when one is close.
        suggestion: Option<&'static str>,
    },
    /// A `claim` item that does not read, or states a verdict twice.
    #[error("{0}")]
    Claim(ClaimError),
    /// The protocol read fails the whole-protocol validation (never for a protocol the parser
    /// accepts; kept so that the two layers cannot disagree silently).
    #[error("{0}")]
    Invalid(Box<ProtocolError>),
    /// A truth table whose length is not `2^inputs`.
    #[error(
        "the truth table has {found} entries, but {inputs} inputs need 2^{inputs} = {expected}"
    )]
    TruthTableLength {
        /// Entries given.
        found: usize,
        /// Inputs declared.
        inputs: usize,
        /// `2^inputs`.
        expected: usize,
    },
    /// `copy` with other than one input.
    #[error("`copy` copies a single input, but {inputs} inputs are declared")]
    CopyArity {
        /// Inputs declared.
        inputs: usize,
    },
    /// The layout names an input that `inputs` does not declare.
    #[error("the layout uses input `{name}`, which the `inputs` line does not declare")]
    UndeclaredInput {
        /// The name used.
        name: String,
    },
    /// A standard-deck commitment `a(…)` with other than two cards.
    #[error("`{name}(…)` lists {found} cards; a commitment is two cards, e.g. `{name}(#1 #2)`")]
    CommitmentCardCount {
        /// The input.
        name: String,
        /// Cards listed.
        found: usize,
    },
    /// A commitment on something other than two numbered cards or two repeated symbols.
    #[error(
        "`{found}` does not fit: a commitment is on two numbered cards `a(#1 #2)` or two \
         repeated symbols `a(♦ ♠)`"
    )]
    CommitmentNotNumbered {
        /// What was found.
        found: String,
    },
    /// A standard-deck commitment on the same card twice.
    #[error("`#{card} #{card}`: a commitment needs two different cards")]
    CommitmentCardsEqual {
        /// The card's number.
        card: u16,
    },
    /// A standard-deck commitment written higher card first.
    #[error(
        "`#{first} #{second}`: write the lower-numbered card first (lower first encodes 0); \
         for the negation write `~` before the input"
    )]
    CommitmentCardsOrder {
        /// The number written first.
        first: u16,
        /// The number written second.
        second: u16,
    },
    /// A commitment on two repeated symbols written the same or higher first.
    #[error(
        "`{first} {second}`: a commitment needs two different symbols, the lower first (in the \
         order ♣ ♥ ♦ ♠ %2 …, lower first encodes 0); for the negation write `~` before the input"
    )]
    CommitmentSymbols {
        /// The symbol written first.
        first: String,
        /// The symbol written second.
        second: String,
    },
    /// A numbered card used twice in a layout with standard-deck commitments.
    #[error(
        "card `#{card}` is used twice in the layout (first at line {first_line}, column \
         {first_col}); a standard deck has each card once"
    )]
    DuplicateCard {
        /// The card's number.
        card: u16,
        /// Line of the first use.
        first_line: usize,
        /// Column of the first use.
        first_col: usize,
    },
    /// A declared input does not occur in the layout.
    #[error("input `{name}` is declared but neither laid out nor used by a `private` action")]
    InputNotLaidOut {
        /// The input.
        name: String,
    },
    /// More cards than [`MAX_CARDS`].
    #[error("the layout has {cards} cards, at most {max} are supported")]
    TooManyCards {
        /// Cards in the layout.
        cards: usize,
        /// The limit.
        max: usize,
    },
    /// More permutation entries (cards × permutations, a permutation counting at least
    /// [`crate::protocol::MIN_PERM_ENTRIES`]) than [`MAX_PERM_ENTRIES`]: counted before the
    /// permutations are made, each one written and each one a cut, a bisection, a private
    /// reverse or a generated group expands into.
    #[error("{}", crate::protocol::over_budget(*.cards, *.perms, *.max))]
    TooManyPermutations {
        /// Cards in the layout.
        cards: usize,
        /// The permutations counted when the limit was passed (for a generated group, as far
        /// as it was enumerated).
        perms: usize,
        /// The limit on entries, [`MAX_PERM_ENTRIES`].
        max: usize,
    },
    /// A numbered card `#n` whose number does not fit.
    #[error(
        "card number `#{found}` is too large (at most #{})",
        facedown_core::symbol::MAX_CARD_NUMBER
    )]
    BadCardNumber {
        /// The digits found.
        found: String,
    },
    /// A kind `%k` of a multiset deck whose number does not fit, or `%` without digits.
    #[error("`%{found}` is no kind of card (write %0 to %255)")]
    BadKind {
        /// The digits found.
        found: String,
    },
    /// A position outside `1..=cards`.
    #[error("position {position} is out of range 1..={cards}")]
    PositionOutOfRange {
        /// The position as written.
        position: String,
        /// Cards in the layout.
        cards: usize,
    },
    /// A position listed twice in a turn, cut, bisection or result.
    #[error("position {position} is listed twice")]
    RepeatedPosition {
        /// The position, 1-indexed.
        position: usize,
    },
    /// Cycle notation that repeats a position, so it is no permutation.
    #[error("position {position} occurs twice in the cycles, so this is not a permutation")]
    NotAPermutation {
        /// The position, 1-indexed.
        position: usize,
    },
    /// Turned positions not in increasing order.
    #[error(
        "turned positions must be listed in increasing order ({position} after {previous}), \
         since observations are read in position order"
    )]
    TurnOrder {
        /// The earlier, larger position.
        previous: usize,
        /// The position that breaks the order.
        position: usize,
    },
    /// A weight that is not a rational `a/b` or an integer.
    #[error("`{found}` is not a weight (expected an integer or a fraction such as `1/3`)")]
    BadWeight {
        /// What was found.
        found: String,
    },
    /// A weight whose numerator or denominator, as written, does not fit in
    /// [`MAX_WEIGHT_BITS`] bits: refused before it is read as a number.
    #[error(
        "the {part} of this weight has {digits} digits, more than fit in {max} bits (the limit \
         on a weight's numerator and denominator)"
    )]
    WeightTooLarge {
        /// `numerator` or `denominator`.
        part: &'static str,
        /// Its digits, leading zeros not counted.
        digits: usize,
        /// The limit in bits, [`MAX_WEIGHT_BITS`].
        max: u64,
    },
    /// A shuffle whose weights, up to this one, have a common denominator of more than
    /// [`MAX_WEIGHT_BITS`] bits (summing them exactly would cost in its size).
    #[error(
        "the first {weights} weights of this shuffle have a common denominator of {bits} bits, \
         at most {max} are supported"
    )]
    CommonDenominatorTooLarge {
        /// The weights taken, this one the last.
        weights: usize,
        /// The bits of their common denominator.
        bits: u64,
        /// The limit, [`MAX_WEIGHT_BITS`].
        max: u64,
    },
    /// A weight `a/0`.
    #[error("weight {found} has denominator zero")]
    ZeroDenominator {
        /// The weight as written.
        found: String,
    },
    /// A shuffle whose distribution is invalid (weights, sizes, halves, group too large).
    #[error("invalid shuffle: {0}")]
    Shuffle(#[from] ShuffleError),
    /// An observation with a different number of symbols than cards turned.
    #[error(
        "the observation `{observation}` has {found} symbols, but {expected} cards are turned"
    )]
    ObservationLength {
        /// The observation as written.
        observation: String,
        /// Symbols given.
        found: usize,
        /// Cards turned.
        expected: usize,
    },
    /// Two branches for the same observation.
    #[error("second branch for observation `{observation}` (the first is on line {first_line})")]
    DuplicateBranch {
        /// The observation.
        observation: String,
        /// Line of the first branch.
        first_line: usize,
    },
    /// A label defined twice.
    #[error("label `{name}` is defined twice (first on line {first_line}); labels are global")]
    DuplicateLabel {
        /// The label.
        name: String,
        /// Line of the first definition.
        first_line: usize,
    },
    /// A `goto` to a label that is not defined anywhere in the file.
    #[error("`goto {name}`: no label `{name}` is defined in this file")]
    UndefinedLabel {
        /// The label.
        name: String,
    },
}

fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!("; did you mean `{s}`?"))
}

/// The protocols written in a Markdown document (a spec, a tutorial, a paper note): the text of
/// every fenced block whose first statement (after blank lines and comments) is `protocol`.
pub fn protocols_in_markdown(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for line in text.lines() {
        match (&mut block, line.trim_start().starts_with("```")) {
            (None, true) => block = Some(String::new()),
            (Some(b), true) => {
                let first = b
                    .lines()
                    .find(|l| !l.trim().is_empty() && !l.starts_with('#'));
                if first.is_some_and(|l| l.starts_with("protocol ")) {
                    out.push(b.clone());
                }
                block = None;
            }
            (Some(b), false) => {
                b.push_str(line);
                b.push('\n');
            }
            (None, false) => {}
        }
    }
    out
}

/// Parses a `.cards` protocol (see the [module docs](self) for the grammar).
pub fn parse(src: &str) -> Result<Protocol, ParseError> {
    let (parts, header) = parse_parts(src)?;
    Protocol::new(parts).map_err(|e| {
        let span = e.span().unwrap_or(header);
        ParseError::at(span, ParseErrorKind::Invalid(Box::new(e)))
    })
}

/// Parses a `.cards` text into its parts without the whole-protocol validation, with the span
/// of the first header line.
pub(crate) fn parse_parts(src: &str) -> Result<(ProtocolParts, Span), ParseError> {
    let tokens = lex(src)?;
    Parser::new(tokens).file()
}

/// Whether `w` is one word of the format: not empty, no whitespace, no punctuation the lexer
/// splits on (so that it prints and reads back as one token).
pub(crate) fn is_word(w: &str) -> bool {
    !w.is_empty() && !w.chars().any(|c| c.is_whitespace() || is_punct(c))
}

/// A non-negative or negative rational written `n` or `n/d` (`d` not zero), or `None`.
pub(crate) fn rational(text: &str) -> Option<Q> {
    let (num, den) = match text.split_once('/') {
        Some((n, d)) => (n, Some(d)),
        None => (text, None),
    };
    if !is_digits(num.strip_prefix('-').unwrap_or(num)) {
        return None;
    }
    let n: BigInt = num.parse().ok()?;
    let d: BigInt = match den {
        Some(d) if is_digits(d) => d.parse().ok()?,
        Some(_) => return None,
        None => BigInt::from(1),
    };
    (!d.is_zero()).then(|| Q::new(n, d))
}

/// The number `digits` (ASCII digits) if it fits in [`MAX_WEIGHT_BITS`] bits, the `part` of a
/// weight; refused by its length before it is converted, so that no long run of digits costs
/// more than reading it.
fn weight_part(digits: &str, part: &'static str) -> Result<BigInt, ParseErrorKind> {
    let significant = digits.trim_start_matches('0');
    // A number of `b` bits has at most ⌊b · log10 2⌋ + 1 digits (log10 2 < 0.30103).
    let most_digits = (MAX_WEIGHT_BITS * 30_103 / 100_000 + 1) as usize;
    let too_large = ParseErrorKind::WeightTooLarge {
        part,
        digits: significant.len(),
        max: MAX_WEIGHT_BITS,
    };
    if significant.len() > most_digits {
        return Err(too_large);
    }
    match BigInt::parse_bytes(format!("0{significant}").as_bytes(), 10) {
        Some(n) if n.bits() <= MAX_WEIGHT_BITS => Ok(n),
        _ => Err(too_large),
    }
}

impl FromStr for Protocol {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s)
    }
}

// ---------------------------------------------------------------------------------------------
// Lexer

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Newline,
    Semi,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LAngle,
    RAngle,
    Comma,
    Colon,
    Pipe,
    Slash,
    Tilde,
    Sym(Symbol),
    Word(String),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Newline => f.write_str("end of line"),
            Tok::Eof => f.write_str("end of file"),
            Tok::Semi => f.write_str("`;`"),
            Tok::LBrace => f.write_str("`{`"),
            Tok::RBrace => f.write_str("`}`"),
            Tok::LParen => f.write_str("`(`"),
            Tok::RParen => f.write_str("`)`"),
            Tok::LBracket => f.write_str("`[`"),
            Tok::RBracket => f.write_str("`]`"),
            Tok::LAngle => f.write_str("`<`"),
            Tok::RAngle => f.write_str("`>`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::Colon => f.write_str("`:`"),
            Tok::Pipe => f.write_str("`|`"),
            Tok::Slash => f.write_str("`/`"),
            Tok::Tilde => f.write_str("`~`"),
            Tok::Sym(s) => write!(f, "`{s}`"),
            Tok::Word(w) => write!(f, "`{w}`"),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    span: Span,
}

fn is_punct(c: char) -> bool {
    matches!(
        c,
        ';' | '{'
            | '}'
            | '('
            | ')'
            | '['
            | ']'
            | '<'
            | '>'
            | ','
            | ':'
            | '|'
            | '/'
            | '~'
            | '#'
            | '%'
            | '♣'
            | '♥'
            | '♦'
            | '♠'
    )
}

fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    Ok(lex_with_comments(src)?.0)
}

/// A `#` comment: where it starts, its text (from `#` to the end of the line, trailing
/// whitespace removed), and whether it is alone on its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Comment {
    pub(crate) span: Span,
    pub(crate) text: String,
    pub(crate) own_line: bool,
}

fn lex_with_comments(src: &str) -> Result<(Vec<Token>, Vec<Comment>), ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut comments = Vec::new();
    let (mut line, mut col) = (1usize, 1usize);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let span = Span { line, col };
        let single = match c {
            ';' => Some(Tok::Semi),
            '{' => Some(Tok::LBrace),
            '}' => Some(Tok::RBrace),
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            '[' => Some(Tok::LBracket),
            ']' => Some(Tok::RBracket),
            '<' => Some(Tok::LAngle),
            '>' => Some(Tok::RAngle),
            ',' => Some(Tok::Comma),
            ':' => Some(Tok::Colon),
            '|' => Some(Tok::Pipe),
            '/' => Some(Tok::Slash),
            '~' => Some(Tok::Tilde),
            '♣' => Some(Tok::Sym(Symbol::Club)),
            '♥' => Some(Tok::Sym(Symbol::Heart)),
            '♦' => Some(Tok::Sym(Symbol::Kind(0))),
            '♠' => Some(Tok::Sym(Symbol::Kind(1))),
            _ => None,
        };
        if let Some(tok) = single {
            out.push(Token { tok, span });
            i += 1;
            col += 1;
            continue;
        }
        if c == '\n' {
            out.push(Token {
                tok: Tok::Newline,
                span,
            });
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '\u{feff}' && i == 0 {
            // A byte-order mark is not part of the text.
            i += 1;
            continue;
        }
        if c == '%' {
            let start = i + 1;
            let mut j = start;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let digits: String = chars[start..j].iter().collect();
            let k: u8 = digits
                .parse()
                .map_err(|_| ParseError::at(span, ParseErrorKind::BadKind { found: digits }))?;
            out.push(Token {
                tok: Tok::Sym(Symbol::Kind(k)),
                span,
            });
            col += j - i;
            i = j;
            continue;
        }
        if c == '#' {
            if chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                let start = i + 1;
                let mut j = start;
                while j < chars.len() && chars[j].is_ascii_digit() {
                    j += 1;
                }
                let digits: String = chars[start..j].iter().collect();
                let n: u16 = digits
                    .parse()
                    .ok()
                    .filter(|&n| n <= facedown_core::symbol::MAX_CARD_NUMBER)
                    .ok_or_else(|| {
                        ParseError::at(span, ParseErrorKind::BadCardNumber { found: digits })
                    })?;
                out.push(Token {
                    tok: Tok::Sym(Symbol::Card(n)),
                    span,
                });
                col += j - i;
                i = j;
            } else {
                let start = i;
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                let own_line = out
                    .last()
                    .is_none_or(|t| t.tok == Tok::Newline || t.span.line < line);
                comments.push(Comment {
                    span,
                    text: chars[start..i]
                        .iter()
                        .collect::<String>()
                        .trim_end()
                        .to_owned(),
                    own_line,
                });
                col += i - start;
            }
            continue;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && !is_punct(chars[i]) {
            i += 1;
        }
        out.push(Token {
            tok: Tok::Word(chars[start..i].iter().collect()),
            span,
        });
        col += i - start;
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span { line, col },
    });
    Ok((out, comments))
}

/// What the canonical formatter needs besides the parts: where each header statement starts,
/// the comments, and which lines are blank.
pub(crate) struct SourceLayout {
    pub(crate) parts: ProtocolParts,
    pub(crate) headers: Vec<(&'static str, Span)>,
    pub(crate) comments: Vec<Comment>,
    pub(crate) blank_lines: BTreeSet<usize>,
}

/// Parses `src` (validating it as [`parse`] does) and keeps its comments and layout.
pub(crate) fn source_layout(src: &str) -> Result<SourceLayout, ParseError> {
    let (tokens, comments) = lex_with_comments(src)?;
    let mut headers = Vec::new();
    let mut at_start = true;
    for t in &tokens {
        if let (true, Tok::Word(w)) = (at_start, &t.tok) {
            if let Some(&h) = HEADERS.iter().find(|&&h| h == w) {
                headers.push((h, t.span));
            }
        }
        at_start = matches!(t.tok, Tok::Newline | Tok::Semi);
    }
    let (parts, span) = Parser::new(tokens).file()?;
    let parts = Protocol::new(parts)
        .map_err(|e| {
            ParseError::at(
                e.span().unwrap_or(span),
                ParseErrorKind::Invalid(Box::new(e)),
            )
        })?
        .into_parts();
    let blank_lines = src
        .split('\n')
        .enumerate()
        .filter(|(_, l)| l.trim().is_empty())
        .map(|(i, _)| i + 1)
        .collect();
    Ok(SourceLayout {
        parts,
        headers,
        comments,
        blank_lines,
    })
}

// ---------------------------------------------------------------------------------------------
// Parser

const HEADERS: [&str; 6] = [
    "protocol", "inputs", "outputs", "function", "layout", "claim",
];
const ACTIONS: [&str; 8] = [
    "perm", "shuffle", "turn", "result", "label", "goto", "restart", "private",
];
/// Every keyword that starts a statement.
const KEYWORDS: [&str; 14] = [
    "protocol", "inputs", "outputs", "function", "layout", "claim", "perm", "shuffle", "turn",
    "result", "label", "goto", "restart", "private",
];
/// Every word `function` takes (besides truth tables).
const FUNCTIONS: [&str; 8] = ["and", "or", "xor", "nand", "nor", "xnor", "copy", "add-mod"];
const EXPECTED_ACTION: &str = "an action (perm, shuffle, turn, result, label, goto or restart)";

/// A layout item before the inputs are known (so `c` can be an input or a club).
enum RawItem {
    Negated(String),
    Word(String),
    Sym(Symbol),
    /// `name(#x #y)` or `~name(#x #y)`: the `(` and the two cards, checked, with their spans.
    On {
        name: String,
        negated: bool,
        open: Span,
        cards: [(Span, Symbol); 2],
    },
    /// `name{n}`: a number input modulo `n`, one-hot.
    Number {
        name: String,
        modulus: usize,
    },
    /// `name[1]` or `~name[1]`: an input bit on one card.
    OneCard {
        name: String,
        negated: bool,
    },
}

/// Which names a names line declares.
#[derive(Clone, Copy)]
enum Names {
    Inputs,
    Outputs,
}

#[derive(Default)]
struct Header {
    protocol: Option<(Span, String)>,
    inputs: Option<(Span, Vec<(Span, String)>)>,
    outputs: Option<(Span, Vec<(Span, String)>)>,
    function: Option<(Span, Vec<(Span, String)>)>,
    layout: Option<(Span, Vec<(Span, RawItem)>)>,
    claim: Option<(Span, Claim)>,
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    cards: usize,
    /// Outputs the header declares (a `result` writes one pair per output when several).
    outputs: usize,
    /// Whether some input is a number (`a{n}`): a `result` then lists positions one-hot.
    numbers: bool,
    labels: BTreeMap<String, Span>,
    gotos: Vec<(String, Span)>,
    depth: usize,
    /// The permutations read so far (counted as the validation counts them).
    budget: PermBudget,
}

fn is_digits(w: &str) -> bool {
    !w.is_empty() && w.chars().all(|c| c.is_ascii_digit())
}

fn ascii_symbols(w: &str) -> Option<Vec<Symbol>> {
    if w.is_empty() {
        return None;
    }
    w.chars().map(Symbol::from_char).collect()
}

pub(crate) fn is_identifier(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '\'')
}

fn observation_string(obs: &[Symbol]) -> String {
    obs.iter().map(|s| s.to_string()).collect()
}

type PResult<T> = Result<T, ParseError>;

impl Parser {
    fn new(toks: Vec<Token>) -> Parser {
        Parser {
            toks,
            pos: 0,
            cards: 0,
            outputs: 1,
            numbers: false,
            labels: BTreeMap::new(),
            gotos: Vec::new(),
            depth: 0,
            budget: PermBudget::default(),
        }
    }

    fn peek(&self) -> &Token {
        // The lexer always ends the stream with `Eof`, and `bump` never moves past it.
        let last = self.toks.len().saturating_sub(1);
        &self.toks[self.pos.min(last)]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn unexpected(&self, expected: &str) -> ParseError {
        let t = self.peek();
        ParseError::at(
            t.span,
            ParseErrorKind::Unexpected {
                found: t.tok.to_string(),
                expected: expected.to_owned(),
            },
        )
    }

    fn expect(&mut self, tok: &Tok, expected: &str) -> PResult<Span> {
        if &self.peek().tok == tok {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn skip_separators(&mut self) {
        while matches!(self.peek().tok, Tok::Newline | Tok::Semi) {
            self.bump();
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek().tok == Tok::Newline {
            self.bump();
        }
    }

    /// After a complete statement: only a separator, `}` or the end may follow.
    fn end_of_statement(&self) -> PResult<()> {
        let t = self.peek();
        match t.tok {
            Tok::Newline | Tok::Semi | Tok::RBrace | Tok::Eof => Ok(()),
            _ => Err(ParseError::at(
                t.span,
                ParseErrorKind::TrailingGarbage {
                    found: t.tok.to_string(),
                },
            )),
        }
    }

    fn word(&mut self, expected: &str) -> PResult<(Span, String)> {
        match &self.peek().tok {
            Tok::Word(w) => {
                let w = w.clone();
                Ok((self.bump().span, w))
            }
            _ => Err(self.unexpected(expected)),
        }
    }

    // -- header ------------------------------------------------------------------------------

    fn file(mut self) -> PResult<(ProtocolParts, Span)> {
        let mut header = Header::default();
        loop {
            self.skip_separators();
            let t = self.peek().clone();
            let Tok::Word(w) = &t.tok else { break };
            let Some(&keyword) = HEADERS.iter().find(|&&h| h == w) else {
                break;
            };
            self.bump();
            let first = match keyword {
                "protocol" => header.protocol.as_ref().map(|h| h.0),
                "inputs" => header.inputs.as_ref().map(|h| h.0),
                "outputs" => header.outputs.as_ref().map(|h| h.0),
                "function" => header.function.as_ref().map(|h| h.0),
                "claim" => header.claim.as_ref().map(|h| h.0),
                _ => header.layout.as_ref().map(|h| h.0),
            };
            if let Some(first) = first {
                return Err(ParseError::at(
                    t.span,
                    ParseErrorKind::DuplicateHeader {
                        keyword,
                        first_line: first.line,
                    },
                ));
            }
            match keyword {
                "protocol" => {
                    let (_, name) = self.word("the protocol's name (no spaces)")?;
                    header.protocol = Some((t.span, name));
                }
                "inputs" => {
                    let names = self.names_line(Names::Inputs)?;
                    header.inputs = Some((t.span, names));
                }
                "outputs" => {
                    let names = self.names_line(Names::Outputs)?;
                    header.outputs = Some((t.span, names));
                }
                "claim" => {
                    let claim = self.claim_line()?;
                    header.claim = Some((t.span, claim));
                }
                "function" => {
                    let first = self.word(
                        "a function (and, or, xor, nand, nor, xnor, copy) or a truth table",
                    )?;
                    let mut words = vec![first];
                    while let Tok::Word(w) = &self.peek().tok {
                        let w = w.clone();
                        words.push((self.bump().span, w));
                    }
                    header.function = Some((t.span, words));
                }
                _ => {
                    let items = self.layout_line()?;
                    header.layout = Some((t.span, items));
                }
            }
            self.end_of_statement()?;
        }
        // The first non-header statement: report a stray word before a missing header.
        let t = self.peek().clone();
        match &t.tok {
            Tok::Eof => {}
            Tok::Word(w) if ACTIONS.contains(&w.as_str()) => {}
            Tok::Word(w) => {
                return Err(ParseError::at(
                    t.span,
                    ParseErrorKind::UnknownKeyword {
                        found: w.clone(),
                        suggestion: crate::suggest::closest(w, KEYWORDS),
                    },
                ))
            }
            Tok::RBrace => {
                return Err(ParseError::at(
                    t.span,
                    ParseErrorKind::Unexpected {
                        found: t.tok.to_string(),
                        expected: "a statement (`}` closes nothing here)".to_owned(),
                    },
                ))
            }
            _ => return Err(self.unexpected(EXPECTED_ACTION)),
        }
        let missing = |keyword| ParseError::at(t.span, ParseErrorKind::MissingHeader { keyword });
        let (protocol_span, name) = header.protocol.ok_or_else(|| missing("protocol"))?;
        let (_, inputs) = header.inputs.ok_or_else(|| missing("inputs"))?;
        let function = header.function.ok_or_else(|| missing("function"))?;
        let (layout_span, raw_layout) = header.layout.ok_or_else(|| missing("layout"))?;

        let function = interpret_functions(function, header.outputs, inputs.len())?;
        let layout = interpret_layout(&inputs, raw_layout)?;
        let cards = layout
            .iter()
            .map(LayoutItem::width)
            .fold(0, usize::saturating_add);
        if cards > MAX_CARDS {
            return Err(ParseError::at(
                layout_span,
                ParseErrorKind::TooManyCards {
                    cards,
                    max: MAX_CARDS,
                },
            ));
        }
        self.cards = cards;
        self.budget = PermBudget::new(cards);
        self.outputs = function.output_count();
        self.numbers = layout
            .iter()
            .any(|item| matches!(item, LayoutItem::Number { .. }));

        let body = self.actions(None)?;
        check_inputs_laid_out(&inputs, &layout, &body)?;
        for (label, span) in &self.gotos {
            if !self.labels.contains_key(label) {
                return Err(ParseError::at(
                    *span,
                    ParseErrorKind::UndefinedLabel {
                        name: label.clone(),
                    },
                ));
            }
        }
        let parts = ProtocolParts {
            name,
            inputs: inputs.into_iter().map(|(_, n)| n).collect(),
            function,
            layout,
            body,
            claim: header.claim.map(|(_, c)| c),
        };
        Ok((parts, protocol_span))
    }

    /// The items of a `claim` line: words, a value `n/d` read as one item.
    fn claim_line(&mut self) -> PResult<Claim> {
        let mut claim = Claim::default();
        let mut any = false;
        while let Tok::Word(w) = &self.peek().tok {
            let mut text = w.clone();
            let span = self.bump().span;
            if self.peek().tok == Tok::Slash {
                self.bump();
                match &self.peek().tok {
                    Tok::Word(d) => {
                        text = format!("{text}/{d}");
                        self.bump();
                    }
                    _ => return Err(self.unexpected("the denominator after `/`")),
                }
            }
            let item: ClaimItem = text
                .parse()
                .map_err(|e| ParseError::at(span, ParseErrorKind::Claim(e)))?;
            claim
                .add(item)
                .map_err(|e| ParseError::at(span, ParseErrorKind::Claim(e)))?;
            any = true;
        }
        if !any {
            return Err(
                self.unexpected("claim items (correct, perfect, finite, expected-shuffles=1, …)")
            );
        }
        Ok(claim)
    }

    /// The names of an `inputs` or `outputs` line: identifiers, each once, at most the limit.
    fn names_line(&mut self, what: Names) -> PResult<Vec<(Span, String)>> {
        let mut names: Vec<(Span, String)> = Vec::new();
        let max = match what {
            Names::Inputs => MAX_INPUTS,
            Names::Outputs => MAX_OUTPUTS,
        };
        while let Tok::Word(w) = &self.peek().tok {
            let w = w.clone();
            let span = self.bump().span;
            let error = if !is_identifier(&w) {
                Some(match what {
                    Names::Inputs => ParseErrorKind::BadInputName { found: w.clone() },
                    Names::Outputs => ParseErrorKind::BadOutputName { found: w.clone() },
                })
            } else if names.iter().any(|(_, n)| *n == w) {
                Some(match what {
                    Names::Inputs => ParseErrorKind::DuplicateInput { name: w.clone() },
                    Names::Outputs => ParseErrorKind::DuplicateOutput { name: w.clone() },
                })
            } else if names.len() == max {
                let count = names.len() + 1;
                Some(match what {
                    Names::Inputs => ParseErrorKind::TooManyInputs { count, max },
                    Names::Outputs => ParseErrorKind::TooManyOutputs { count, max },
                })
            } else {
                None
            };
            if let Some(kind) = error {
                return Err(ParseError::at(span, kind));
            }
            names.push((span, w));
        }
        if names.is_empty() {
            return Err(self.unexpected(match what {
                Names::Inputs => "at least one input name",
                Names::Outputs => "at least one output name",
            }));
        }
        Ok(names)
    }

    fn layout_line(&mut self) -> PResult<Vec<(Span, RawItem)>> {
        let mut items = Vec::new();
        loop {
            let t = self.peek().clone();
            match t.tok {
                Tok::Word(w) => {
                    self.bump();
                    if self.peek().tok == Tok::LParen {
                        let item = self.commitment_cards(w, false)?;
                        items.push((t.span, item));
                    } else if self.peek().tok == Tok::LBrace {
                        let modulus = self.modulus()?;
                        items.push((t.span, RawItem::Number { name: w, modulus }));
                    } else if self.peek().tok == Tok::LBracket {
                        self.one_card_width()?;
                        let item = RawItem::OneCard {
                            name: w,
                            negated: false,
                        };
                        items.push((t.span, item));
                    } else {
                        items.push((t.span, RawItem::Word(w)));
                    }
                }
                Tok::Sym(s) => {
                    self.bump();
                    items.push((t.span, RawItem::Sym(s)));
                }
                Tok::Tilde => {
                    self.bump();
                    let (_, name) = self.word("an input name after `~`")?;
                    if self.peek().tok == Tok::LBrace {
                        return Err(self
                            .unexpected("the end of `~name`: a number (`a{n}`) has no negation"));
                    }
                    if self.peek().tok == Tok::LParen {
                        let item = self.commitment_cards(name, true)?;
                        items.push((t.span, item));
                    } else if self.peek().tok == Tok::LBracket {
                        self.one_card_width()?;
                        let item = RawItem::OneCard {
                            name,
                            negated: true,
                        };
                        items.push((t.span, item));
                    } else {
                        items.push((t.span, RawItem::Negated(name)));
                    }
                }
                _ => break,
            }
        }
        if items.is_empty() {
            return Err(self
                .unexpected("layout items (input names, `~name`, `name(#1 #2)`, 0, 1, ♣, ♥, #n)"));
        }
        Ok(items)
    }

    /// `[1]` after an input name (the `[` is next): the one-card encoding of a bit. The width
    /// is written so that the item reads as what it is; 1 is the only width.
    fn one_card_width(&mut self) -> PResult<()> {
        self.bump();
        if !matches!(&self.peek().tok, Tok::Word(w) if w == "1") {
            return Err(self.unexpected("`1]`: `a[1]` lays input `a` on one card, ♥ for 1"));
        }
        self.bump();
        self.expect(&Tok::RBracket, "`]` after `[1`")?;
        Ok(())
    }

    /// `{ n }` after an input name (the `{` is next): the modulus of a number input, checked
    /// by the protocol's validation (a number too large to write reads as `usize::MAX`).
    fn modulus(&mut self) -> PResult<usize> {
        self.bump();
        let t = self.peek().clone();
        let Tok::Word(w) = &t.tok else {
            return Err(self.unexpected("the modulus of a number input, as in `a{3}`"));
        };
        if !is_digits(w) {
            return Err(self.unexpected("the modulus of a number input, as in `a{3}`"));
        }
        let modulus = w.parse().unwrap_or(usize::MAX);
        self.bump();
        self.expect(&Tok::RBrace, "`}` after the modulus")?;
        Ok(modulus)
    }

    /// `( CARD CARD )` after an input name (the `(` is next): two numbered cards, or two
    /// repeated symbols, different, the lower first.
    fn commitment_cards(&mut self, name: String, negated: bool) -> PResult<RawItem> {
        let open = self.bump().span;
        let mut cards: Vec<(Span, Symbol)> = Vec::new();
        loop {
            let t = self.peek().clone();
            match t.tok {
                Tok::RParen => {
                    self.bump();
                    break;
                }
                Tok::Sym(s)
                    if cards
                        .first()
                        .is_none_or(|f| f.1.is_numbered() == s.is_numbered()) =>
                {
                    self.bump();
                    cards.push((t.span, s));
                }
                Tok::Sym(s) => {
                    return Err(ParseError::at(
                        t.span,
                        ParseErrorKind::CommitmentNotNumbered {
                            found: s.to_string(),
                        },
                    ))
                }
                Tok::Word(w) => match ascii_symbols(&w) {
                    Some(symbols) if cards.iter().all(|c| !c.1.is_numbered()) => {
                        self.bump();
                        cards.extend(symbols.into_iter().map(|s| (t.span, s)));
                    }
                    _ => {
                        return Err(ParseError::at(
                            t.span,
                            ParseErrorKind::CommitmentNotNumbered { found: w },
                        ))
                    }
                },
                _ => return Err(self.unexpected("a card such as `#1` or `♦`, or `)`")),
            }
        }
        let [first, second] = cards[..] else {
            return Err(ParseError::at(
                open,
                ParseErrorKind::CommitmentCardCount {
                    name,
                    found: cards.len(),
                },
            ));
        };
        match (first.1, second.1) {
            (Symbol::Card(a), Symbol::Card(b)) if a == b => Err(ParseError::at(
                second.0,
                ParseErrorKind::CommitmentCardsEqual { card: a },
            )),
            (Symbol::Card(a), Symbol::Card(b)) if a > b => Err(ParseError::at(
                first.0,
                ParseErrorKind::CommitmentCardsOrder {
                    first: a,
                    second: b,
                },
            )),
            (a, b) if a >= b => Err(ParseError::at(
                if a == b { second.0 } else { first.0 },
                ParseErrorKind::CommitmentSymbols {
                    first: a.to_string(),
                    second: b.to_string(),
                },
            )),
            _ => Ok(RawItem::On {
                name,
                negated,
                open,
                cards: [first, second],
            }),
        }
    }

    // -- actions -----------------------------------------------------------------------------

    /// A sequence of actions up to the end of the file (`open == None`) or the `}` matching the
    /// `{` at `open` (consumed).
    fn actions(&mut self, open: Option<Span>) -> PResult<Vec<Action>> {
        let mut body = Vec::new();
        loop {
            self.skip_separators();
            let t = self.peek();
            match (&t.tok, open) {
                (Tok::Eof, None) => return Ok(body),
                (Tok::Eof, Some(open)) => {
                    return Err(ParseError::at(open, ParseErrorKind::UnterminatedBlock))
                }
                (Tok::RBrace, Some(_)) => {
                    self.bump();
                    return Ok(body);
                }
                (Tok::RBrace, None) => {
                    return Err(self.unexpected("an action (this `}` closes no block)"));
                }
                _ => {
                    body.push(self.action()?);
                    self.end_of_statement()?;
                }
            }
        }
    }

    fn action(&mut self) -> PResult<Action> {
        let t = self.peek().clone();
        let Tok::Word(w) = &t.tok else {
            return Err(self.unexpected(EXPECTED_ACTION));
        };
        let span = t.span;
        let kind = match w.as_str() {
            "perm" => {
                self.bump();
                ActionKind::Perm(self.perm()?.1)
            }
            "shuffle" => {
                self.bump();
                ActionKind::Shuffle(self.shuffle()?)
            }
            "turn" => {
                self.bump();
                self.turn()?
            }
            "result" => {
                let at = self.bump().span;
                self.result(at)?
            }
            "label" => {
                self.bump();
                let (name_span, name) = self.word("a label name")?;
                if let Some(first) = self.labels.get(&name) {
                    return Err(ParseError::at(
                        name_span,
                        ParseErrorKind::DuplicateLabel {
                            name,
                            first_line: first.line,
                        },
                    ));
                }
                self.labels.insert(name.clone(), name_span);
                ActionKind::Label(name)
            }
            "goto" => {
                self.bump();
                let (name_span, name) = self.word("a label name")?;
                self.gotos.push((name.clone(), name_span));
                ActionKind::Goto(name)
            }
            "restart" => {
                self.bump();
                ActionKind::Restart
            }
            "private" => {
                self.bump();
                let kind = self.private_action()?;
                if let ActionKind::PrivateReverse { .. } = kind {
                    // The validation makes its two permutations.
                    self.take_perms(kind.held_perms(), span)?;
                }
                kind
            }
            other => {
                if let Some(&keyword) = HEADERS.iter().find(|&&h| h == other) {
                    return Err(ParseError::at(
                        span,
                        ParseErrorKind::HeaderAfterActions { keyword },
                    ));
                }
                return Err(ParseError::at(
                    span,
                    ParseErrorKind::UnknownKeyword {
                        found: other.to_owned(),
                        suggestion: crate::suggest::closest(other, KEYWORDS),
                    },
                ));
            }
        };
        Ok(Action { kind, span })
    }

    /// A 1-indexed position in `1..=cards`, returned 0-indexed.
    fn position(&mut self) -> PResult<(Span, usize)> {
        let expected = format!("a position (1..={})", self.cards);
        let (span, w) = match &self.peek().tok {
            Tok::Word(w) if is_digits(w) => {
                let w = w.clone();
                (self.bump().span, w)
            }
            _ => return Err(self.unexpected(&expected)),
        };
        match w.parse::<usize>() {
            Ok(p) if (1..=self.cards).contains(&p) => Ok((span, p - 1)),
            _ => Err(ParseError::at(
                span,
                ParseErrorKind::PositionOutOfRange {
                    position: w,
                    cards: self.cards,
                },
            )),
        }
    }

    fn at_position(&self) -> bool {
        matches!(&self.peek().tok, Tok::Word(w) if is_digits(w))
    }

    /// One or more distinct positions; `seen` carries positions used earlier in the statement.
    fn positions(&mut self, seen: &mut BTreeSet<usize>) -> PResult<Vec<(Span, usize)>> {
        let mut out = vec![self.distinct_position(seen)?];
        while self.at_position() {
            out.push(self.distinct_position(seen)?);
        }
        Ok(out)
    }

    /// Whether the next token ends the action (end of line or file, `;`, `}`).
    fn at_action_end(&self) -> bool {
        matches!(
            self.peek().tok,
            Tok::Newline | Tok::Semi | Tok::RBrace | Tok::Eof
        )
    }

    fn distinct_position(&mut self, seen: &mut BTreeSet<usize>) -> PResult<(Span, usize)> {
        let (span, p) = self.position()?;
        if !seen.insert(p) {
            return Err(ParseError::at(
                span,
                ParseErrorKind::RepeatedPosition { position: p + 1 },
            ));
        }
        Ok((span, p))
    }

    /// Counts `count` more permutations of the protocol, before they are made; `span` is where
    /// they are written.
    fn take_perms(&mut self, count: usize, span: Span) -> PResult<()> {
        self.budget
            .take(count)
            .map_err(|over| ParseError::at(span, over.into()))
    }

    /// Cycle notation: `id` or one or more `( … )`.
    fn perm(&mut self) -> PResult<(Span, Perm)> {
        let start = self.peek().span;
        self.take_perms(1, start)?;
        if matches!(&self.peek().tok, Tok::Word(w) if w == "id") {
            self.bump();
            return Ok((start, Perm::identity(self.cards)));
        }
        if self.peek().tok != Tok::LParen {
            return Err(self.unexpected("a permutation (`id` or cycles such as `(1 3)(2 4)`)"));
        }
        let mut seen = BTreeSet::new();
        let mut cycles = Vec::new();
        while self.peek().tok == Tok::LParen {
            self.bump();
            let mut cycle = Vec::new();
            loop {
                match self.peek().tok {
                    Tok::RParen => {
                        self.bump();
                        break;
                    }
                    Tok::Comma if !cycle.is_empty() => {
                        self.bump();
                    }
                    _ => {
                        if !self.at_position() {
                            return Err(
                                self.unexpected(&format!("a position (1..={}) or `)`", self.cards))
                            );
                        }
                        let (span, p) = self.position()?;
                        if !seen.insert(p) {
                            return Err(ParseError::at(
                                span,
                                ParseErrorKind::NotAPermutation { position: p + 1 },
                            ));
                        }
                        cycle.push(p + 1);
                    }
                }
            }
            cycles.push(cycle);
        }
        let perm = Perm::from_cycles(self.cards, &cycles).map_err(|e| {
            ParseError::at(
                start,
                ParseErrorKind::Unexpected {
                    found: e.to_string(),
                    expected: "a permutation".to_owned(),
                },
            )
        })?;
        Ok((start, perm))
    }

    fn shuffle(&mut self) -> PResult<Shuffle> {
        let t = self.peek().clone();
        let shuffle =
            match &t.tok {
                Tok::LBrace => {
                    self.bump();
                    self.shuffle_set(t.span)?
                }
                Tok::LAngle => {
                    self.bump();
                    self.skip_newlines();
                    let mut gens = vec![self.perm()?.1];
                    self.skip_newlines();
                    while self.peek().tok == Tok::Comma {
                        self.bump();
                        self.skip_newlines();
                        gens.push(self.perm()?.1);
                        self.skip_newlines();
                    }
                    self.expect(&Tok::RAngle, "`,` or `>`")?;
                    Shuffle::Generated(gens)
                }
                Tok::Word(w) if w == "cut" => {
                    self.bump();
                    let positions = self.positions(&mut BTreeSet::new())?;
                    Shuffle::Cut(positions.into_iter().map(|(_, p)| p).collect())
                }
                Tok::Word(w) if w == "bisect" => {
                    self.bump();
                    let mut seen = BTreeSet::new();
                    let left = self.positions(&mut seen)?;
                    self.expect(&Tok::Pipe, "a position or `|` between the two halves")?;
                    let right = self.positions(&mut seen)?;
                    Shuffle::Bisect(
                        left.into_iter().map(|(_, p)| p).collect(),
                        right.into_iter().map(|(_, p)| p).collect(),
                    )
                }
                _ => return Err(self.unexpected(
                    "a shuffle: `{P1, P2, …}`, `{P1: w1, …}`, `<G1, …>`, `cut …` or `bisect … | …`",
                )),
            };
        self.take_perms(shuffle.expanded_perms(), t.span)?;
        self.budget
            .distribution(&shuffle)
            .map_err(|refusal| ParseError::at(t.span, refusal.into()))?;
        Ok(shuffle)
    }

    fn shuffle_set(&mut self, open: Span) -> PResult<Shuffle> {
        let mut perms = Vec::new();
        let mut weights = Vec::new();
        let mut common = CommonDenominator::default();
        self.skip_newlines();
        if self.peek().tok == Tok::RBrace {
            return Err(ParseError::at(
                open,
                ParseErrorKind::Shuffle(ShuffleError::Empty),
            ));
        }
        loop {
            perms.push(self.perm()?.1);
            if self.peek().tok == Tok::Colon {
                self.bump();
                let (span, w) = self.weight()?;
                common
                    .take(&w)
                    .map_err(|e| ParseError::at(span, weight_refusal(e)))?;
                weights.push(w);
            }
            self.skip_newlines();
            match self.peek().tok {
                Tok::Comma => {
                    self.bump();
                    self.skip_newlines();
                }
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Eof => return Err(ParseError::at(open, ParseErrorKind::UnterminatedBlock)),
                _ => return Err(self.unexpected("`,`, `:` and a weight, or `}`")),
            }
        }
        let weights = match weights.len() {
            0 => None,
            w if w == perms.len() => Some(weights),
            w => {
                return Err(ParseError::at(
                    open,
                    ParseErrorKind::Shuffle(ShuffleError::WeightCount {
                        perms: perms.len(),
                        weights: w,
                    }),
                ))
            }
        };
        Ok(Shuffle::Set { perms, weights })
    }

    /// An integer or `a/b` with where it is written, possibly negative (rejected with its
    /// position), each part at most [`MAX_WEIGHT_BITS`] bits.
    fn weight(&mut self) -> PResult<(Span, Q)> {
        let (span, num) = match &self.peek().tok {
            Tok::Word(w) => {
                let w = w.clone();
                (self.bump().span, w)
            }
            _ => return Err(self.unexpected("a weight such as `1/3` or `1`")),
        };
        let bad = |found: String| ParseError::at(span, ParseErrorKind::BadWeight { found });
        let (negative, digits) = match num.strip_prefix('-') {
            Some(digits) => (true, digits),
            None => (false, num.as_str()),
        };
        if !is_digits(digits) {
            return Err(bad(num));
        }
        let n = weight_part(digits, "numerator").map_err(|kind| ParseError::at(span, kind))?;
        let n = if negative { -n } else { n };
        let (text, d) = if self.peek().tok == Tok::Slash {
            self.bump();
            match &self.peek().tok {
                Tok::Word(w) if is_digits(w) => {
                    let w = w.clone();
                    let at = self.bump().span;
                    let d =
                        weight_part(&w, "denominator").map_err(|kind| ParseError::at(at, kind))?;
                    (format!("{num}/{w}"), d)
                }
                _ => return Err(self.unexpected("the denominator of the weight")),
            }
        } else {
            (num.clone(), BigInt::from(1))
        };
        if d.is_zero() {
            return Err(ParseError::at(
                span,
                ParseErrorKind::ZeroDenominator { found: text },
            ));
        }
        let w = Q::new(n, d);
        if w.is_negative() {
            return Err(ParseError::at(
                span,
                ParseErrorKind::Shuffle(ShuffleError::NegativeWeight(w)),
            ));
        }
        Ok((span, w))
    }

    fn turn(&mut self) -> PResult<ActionKind> {
        let positions = self.positions(&mut BTreeSet::new())?;
        for pair in positions.windows(2) {
            if pair[1].1 < pair[0].1 {
                return Err(ParseError::at(
                    pair[1].0,
                    ParseErrorKind::TurnOrder {
                        previous: pair[0].1 + 1,
                        position: pair[1].1 + 1,
                    },
                ));
            }
        }
        let positions: Vec<usize> = positions.into_iter().map(|(_, p)| p).collect();
        if self.peek().tok != Tok::LBrace {
            return Ok(ActionKind::Turn {
                positions,
                branches: None,
            });
        }
        let open = self.bump().span;
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(ParseError::at(
                open,
                ParseErrorKind::TooDeep { max: MAX_NESTING },
            ));
        }
        let mut branches: Vec<Branch> = Vec::new();
        loop {
            self.skip_separators();
            match self.peek().tok {
                Tok::Eof => return Err(ParseError::at(open, ParseErrorKind::UnterminatedBlock)),
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                _ => {}
            }
            let (span, observation) = self.observation()?;
            let shown = observation_string(&observation);
            if observation.len() != positions.len() {
                return Err(ParseError::at(
                    span,
                    ParseErrorKind::ObservationLength {
                        observation: shown,
                        found: observation.len(),
                        expected: positions.len(),
                    },
                ));
            }
            if let Some(first) = branches.iter().find(|b| b.observation == observation) {
                return Err(ParseError::at(
                    span,
                    ParseErrorKind::DuplicateBranch {
                        observation: shown,
                        first_line: first.span.line,
                    },
                ));
            }
            self.expect(&Tok::Colon, "`:` after the observation")?;
            let body = if self.peek().tok == Tok::LBrace {
                let inner = self.bump().span;
                self.actions(Some(inner))?
            } else if matches!(
                self.peek().tok,
                Tok::Newline | Tok::Semi | Tok::RBrace | Tok::Eof
            ) {
                return Err(self.unexpected("an action or a `{ … }` block after the observation"));
            } else {
                vec![self.action()?]
            };
            self.end_of_statement()?;
            branches.push(Branch {
                observation,
                body,
                span,
            });
        }
        self.depth -= 1;
        Ok(ActionKind::Turn {
            positions,
            branches: Some(branches),
        })
    }

    fn observation(&mut self) -> PResult<(Span, Vec<Symbol>)> {
        let span = self.peek().span;
        let mut obs = Vec::new();
        loop {
            match &self.peek().tok {
                Tok::Sym(s) => {
                    obs.push(*s);
                    self.bump();
                }
                Tok::Word(w) => match ascii_symbols(w) {
                    Some(syms) => {
                        obs.extend(syms);
                        self.bump();
                    }
                    None => break,
                },
                _ => break,
            }
        }
        if obs.is_empty() {
            return Err(self.unexpected("an observation such as `♣♥:` or `}`"));
        }
        Ok((span, obs))
    }

    fn result(&mut self, at: Span) -> PResult<ActionKind> {
        let mut seen = BTreeSet::new();
        if self.numbers {
            let positions = self.positions(&mut seen)?;
            return Ok(ActionKind::ResultNumber(
                positions.into_iter().map(|(_, p)| p).collect(),
            ));
        }
        let mut pairs = Vec::new();
        loop {
            let (_, p) = self.distinct_position(&mut seen)?;
            if pairs.is_empty() && self.at_action_end() {
                return Ok(ActionKind::ResultCard(p));
            }
            let (_, q) = self.distinct_position(&mut seen)?;
            pairs.push((p, q));
            if self.peek().tok != Tok::Comma {
                break;
            }
            self.bump();
        }
        if self.outputs > 1 && pairs.len() != self.outputs {
            return Err(ParseError::at(
                at,
                ParseErrorKind::ResultArity {
                    pairs: pairs.len(),
                    outputs: self.outputs,
                },
            ));
        }
        Ok(ActionKind::Result(pairs))
    }
}

fn function_count_message(found: usize, outputs: Option<usize>) -> String {
    match outputs {
        Some(m) => format!(
            "the `outputs` line declares {m} outputs, so `function` needs {m} functions, one per \
             output in order, not {found}"
        ),
        None => format!(
            "{found} functions but no `outputs` line: name the outputs first (`outputs sum \
             carry`), one function per output"
        ),
    }
}

/// The `function` line read against the `outputs` line: one function without `outputs`, one
/// per declared output with it ([`Function::Several`]).
fn interpret_functions(
    (line, words): (Span, Vec<(Span, String)>),
    outputs: Option<(Span, Vec<(Span, String)>)>,
    inputs: usize,
) -> PResult<Function> {
    let declared = outputs.as_ref().map(|(_, names)| names.len());
    if words.len() != declared.unwrap_or(1) {
        let span = match (declared, words.get(declared.unwrap_or(1))) {
            (_, Some((extra, _))) => *extra,
            _ => line,
        };
        return Err(ParseError::at(
            span,
            ParseErrorKind::FunctionCount {
                found: words.len(),
                outputs: declared,
            },
        ));
    }
    let Some((_, names)) = outputs else {
        let word = words.into_iter().next().unwrap_or((line, String::new()));
        return interpret_function(word, inputs);
    };
    let several = names
        .into_iter()
        .zip(words)
        .map(|((_, name), word)| {
            interpret_function(word, inputs).map(|function| NamedOutput { name, function })
        })
        .collect::<PResult<Vec<_>>>()?;
    Ok(Function::Several(several))
}

fn interpret_function((span, word): (Span, String), inputs: usize) -> PResult<Function> {
    if let Some(f) = NamedFunction::from_keyword(&word) {
        return Ok(Function::Named(f));
    }
    if word == "add-mod" {
        return Ok(Function::AddMod);
    }
    if word == "copy" {
        if inputs != 1 {
            return Err(ParseError::at(span, ParseErrorKind::CopyArity { inputs }));
        }
        return Ok(Function::Copy);
    }
    if word.chars().all(|c| c == '0' || c == '1') {
        let expected = 1usize << inputs;
        let found = word.chars().count();
        if found != expected {
            return Err(ParseError::at(
                span,
                ParseErrorKind::TruthTableLength {
                    found,
                    inputs,
                    expected,
                },
            ));
        }
        return Ok(Function::Table(word.chars().map(|c| c == '1').collect()));
    }
    let suggestion = crate::suggest::closest(&word, FUNCTIONS);
    Err(ParseError::at(
        span,
        ParseErrorKind::UnknownFunction {
            found: word,
            suggestion,
        },
    ))
}

fn interpret_layout(
    inputs: &[(Span, String)],
    raw: Vec<(Span, RawItem)>,
) -> PResult<Vec<LayoutItem>> {
    let declared = |n: &str| inputs.iter().any(|(_, i)| i == n);
    let standard = raw
        .iter()
        .any(|(_, item)| matches!(item, RawItem::On { cards, .. } if cards[0].1.is_numbered()));
    // Numbered cards of a standard-deck layout, with where each was first used.
    let mut used: BTreeMap<u16, Span> = BTreeMap::new();
    let mut use_card = |span: Span, card: u16| -> PResult<()> {
        if !standard {
            return Ok(());
        }
        match used.get(&card) {
            Some(first) => Err(ParseError::at(
                span,
                ParseErrorKind::DuplicateCard {
                    card,
                    first_line: first.line,
                    first_col: first.col,
                },
            )),
            None => {
                used.insert(card, span);
                Ok(())
            }
        }
    };
    let mut layout = Vec::new();
    for (span, item) in raw {
        match item {
            RawItem::On {
                name,
                negated,
                open,
                cards,
            } => {
                if !declared(&name) {
                    if is_identifier(&name) {
                        return Err(ParseError::at(
                            span,
                            ParseErrorKind::UndeclaredInput { name },
                        ));
                    }
                    return Err(ParseError::at(
                        open,
                        ParseErrorKind::Unexpected {
                            found: "`(`".to_owned(),
                            expected: format!(
                                "a layout item after `{name}`; only an input is committed on \
                                 numbered cards, as in `a(#1 #2)`"
                            ),
                        },
                    ));
                }
                for (card_span, card) in cards {
                    if let Symbol::Card(c) = card {
                        use_card(card_span, c)?;
                    }
                }
                layout.push(LayoutItem::InputOn {
                    name,
                    negated,
                    cards: cards.map(|(_, c)| c),
                });
            }
            RawItem::Number { name, modulus } => {
                if !declared(&name) {
                    return Err(ParseError::at(
                        span,
                        ParseErrorKind::UndeclaredInput { name },
                    ));
                }
                layout.push(LayoutItem::Number { name, modulus });
            }
            RawItem::OneCard { name, negated } => {
                if !declared(&name) {
                    return Err(ParseError::at(
                        span,
                        ParseErrorKind::UndeclaredInput { name },
                    ));
                }
                layout.push(LayoutItem::OneCard { name, negated });
            }
            RawItem::Sym(s) => {
                if let Symbol::Card(c) = s {
                    use_card(span, c)?;
                }
                layout.push(LayoutItem::Card(s));
            }
            RawItem::Negated(name) => {
                if !declared(&name) {
                    return Err(ParseError::at(
                        span,
                        ParseErrorKind::UndeclaredInput { name },
                    ));
                }
                layout.push(LayoutItem::Input {
                    name,
                    negated: true,
                });
            }
            RawItem::Word(w) => {
                if declared(&w) {
                    layout.push(LayoutItem::Input {
                        name: w,
                        negated: false,
                    });
                } else if w == "0" || w == "1" {
                    layout.push(LayoutItem::Constant(w == "1"));
                } else if let Some(syms) = ascii_symbols(&w) {
                    layout.extend(syms.into_iter().map(LayoutItem::Card));
                } else if is_identifier(&w) {
                    return Err(ParseError::at(
                        span,
                        ParseErrorKind::UndeclaredInput { name: w },
                    ));
                } else {
                    return Err(ParseError::at(
                        span,
                        ParseErrorKind::Unexpected {
                            found: format!("`{w}`"),
                            expected: "a layout item (an input, `~input`, `input(#1 #2)`, 0, \
                                       1, ♣, ♥ or #n)"
                                .to_owned(),
                        },
                    ));
                }
            }
        }
    }
    Ok(layout)
}

/// Every declared input is laid out, or held privately (used by a `private` action).
fn check_inputs_laid_out(
    inputs: &[(Span, String)],
    layout: &[LayoutItem],
    body: &[Action],
) -> PResult<()> {
    let private = crate::protocol::privately_held(body);
    for (span, name) in inputs {
        let laid_out = layout
            .iter()
            .any(|item| item.input().is_some_and(|(n, _)| n == name));
        if !laid_out && !private.contains(name.as_str()) {
            return Err(ParseError::at(
                *span,
                ParseErrorKind::InputNotLaidOut { name: name.clone() },
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRICK: &str = "protocol five-card-trick\ninputs a b\nfunction and\nlayout ~a ♥ b\n\
                         shuffle cut 1 2 3 4 5\nturn 1 2 3 4 5\n";

    #[test]
    fn five_card_trick_parses_into_the_model() {
        let p = parse(TRICK).expect("the spec's example parses");
        assert_eq!(p.name(), "five-card-trick");
        assert_eq!(p.inputs(), ["a", "b"]);
        assert_eq!(p.function(), &Function::Named(NamedFunction::And));
        assert_eq!(p.cards(), 5);
        assert_eq!(p.body().len(), 2);
        assert_eq!(
            p.body()[0].kind,
            ActionKind::Shuffle(Shuffle::Cut(vec![0, 1, 2, 3, 4]))
        );
        assert_eq!(p.body()[1].span, Span { line: 6, col: 1 });
    }

    #[test]
    fn hash_digit_is_a_card_other_hash_is_a_comment() {
        let toks = lex("#3 # comment #4\nx#12").expect("lexes");
        let kinds: Vec<Tok> = toks.into_iter().map(|t| t.tok).collect();
        assert_eq!(
            kinds,
            vec![
                Tok::Sym(Symbol::Card(3)),
                Tok::Newline,
                Tok::Word("x".to_owned()),
                Tok::Sym(Symbol::Card(12)),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let toks = lex("♣♥ ab").expect("lexes");
        assert_eq!(toks[2].span, Span { line: 1, col: 4 });
    }

    #[test]
    fn declared_input_named_c_wins_over_the_club() {
        let src = "protocol p\ninputs a c\nfunction and\nlayout a c C\n";
        let p = parse(src).expect("parses");
        assert_eq!(p.cards(), 5);
        assert_eq!(p.layout()[2], LayoutItem::Card(Symbol::Club));
    }
}
