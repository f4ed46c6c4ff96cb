//! The validated protocol: a [`ProtocolParts`] description that has passed every check that
//! does not need the state tree, built once and read by every backend.
//!
//! A [`Protocol`] can only be made by [`Protocol::new`] (the parser calls it too), so every
//! protocol a backend sees is well-formed: positions in range and distinct, permutations of the
//! right size, shuffle distributions that sum to 1, branches as long as their turn and never
//! listed twice, labels defined once and every `goto` target defined, inputs declared, laid out
//! and at most [`MAX_INPUTS`], a function that fits them, standard-deck commitments on two
//! distinct cards (numbered, or repeated symbols) lower first. Its fields are private; [`Protocol::parts`] reads them
//! and [`Protocol::into_parts`] gives them back for a modified copy, which is validated again.
//!
//! Validation also compiles the action tree into the form the [interpreter](crate::interpret)
//! walks: every action gets an index (its [`Site`]), every block (the body and each branch) a
//! contiguous range of them, every shuffle its exact [`Distribution`], every label its
//! continuation. What is derived once here — the per-input starting rows and outputs — the
//! backends no longer recompute.

use std::collections::{BTreeMap, BTreeSet};

use facedown_core::{Perm, Symbol};

use crate::claim::Claim;
use crate::distribution::Distribution;
use crate::model::{
    encode_bit, encode_bit_on, encode_number, encode_one_card, input_bits, Action, ActionKind,
    CommitmentCardsError, Function, LayoutItem, Shuffle, ShuffleError, Span, Value, MAX_GROUP, Q,
};
use crate::print::describe;

/// The largest number of cards a protocol may have (the limit of [`facedown_core::Perm`]).
pub const MAX_CARDS: usize = 1 << 16;

/// The most permutation entries a protocol may hold: its cards (at least [`MIN_PERM_ENTRIES`])
/// × its permutations. Every permutation is stored densely, one entry per card, so this bounds
/// the memory of the parts, the compiled program and every shuffle's support. The permutations
/// counted are those [`ActionKind::held_perms`] names — each written, each a cut, bisection or
/// private reverse expands into — and every element of a generated group, each counted before
/// it is made. 2^24 entries (32 MB a copy) are 256 permutations of the largest deck, a full
/// [`crate::model::MAX_GROUP`] group on up to 255 cards, or a cut of 4096 of 4096 cards; the
/// protocols of the papers and the library hold a few thousand.
pub const MAX_PERM_ENTRIES: usize = 1 << 24;

/// The fewest entries a permutation counts for against [`MAX_PERM_ENTRIES`], however few its
/// cards: its vector and its weight in a support cost about as much as 64 entries, so that
/// many permutations of a few cards are bounded too.
pub const MIN_PERM_ENTRIES: usize = 64;

/// The largest number of inputs a protocol may declare (a truth table has `2^inputs` entries).
pub const MAX_INPUTS: usize = 16;

/// The deepest nesting of branching turns (so that no protocol can exhaust the stack of the
/// parser, the printer or the interpreter).
pub const MAX_NESTING: usize = 200;

/// The most outputs a protocol may declare (a joint [`Value`] has one bit per output).
pub const MAX_OUTPUTS: usize = 16;

/// A row of cards, left to right.
pub type Sequence = Vec<Symbol>;

/// A protocol as written, not yet checked: what the parser reads and what code builds. Turn it
/// into a [`Protocol`] with [`Protocol::new`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolParts {
    /// The name from `protocol NAME` (one word).
    pub name: String,
    /// The input commitments, in the order the function takes them.
    pub inputs: Vec<String>,
    /// The function computed.
    pub function: Function,
    /// The starting row.
    pub layout: Vec<LayoutItem>,
    /// The top-level actions.
    pub body: Vec<Action>,
    /// What the author says the protocol achieves (the `claim` line), if anything.
    pub claim: Option<Claim>,
}

/// Why a [`ProtocolParts`] is no protocol. Positions in messages are 1-indexed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The name is empty or not one word of the format.
    #[error("`{0}` is not a protocol name (one word, no spaces or punctuation)")]
    Name(String),
    /// No input is declared.
    #[error("a protocol needs at least one input")]
    NoInputs,
    /// An input name that is not an identifier.
    #[error("`{0}` is not a valid input name")]
    InputName(String),
    /// An input declared twice.
    #[error("input `{0}` is declared twice")]
    DuplicateInput(String),
    /// More inputs than [`MAX_INPUTS`].
    #[error("{0} inputs, at most {MAX_INPUTS} are supported")]
    TooManyInputs(usize),
    /// The function does not fit the inputs.
    #[error("function: {0}")]
    Function(String),
    /// An output name that is not an identifier, or one declared twice.
    #[error("`{0}` is not a valid output name, or is declared twice")]
    OutputName(String),
    /// More outputs than [`MAX_OUTPUTS`].
    #[error("{0} outputs, at most {MAX_OUTPUTS} are supported")]
    TooManyOutputs(usize),
    /// A `result` with another number of pairs than the protocol has outputs.
    #[error("{}: the protocol has {outputs} outputs, so a `result` writes {outputs} pairs, one per output in order, not {pairs}", at(*.span))]
    ResultArity {
        /// The `result`.
        span: Span,
        /// Pairs written.
        pairs: usize,
        /// Outputs declared.
        outputs: usize,
    },
    /// The layout names an input that is not declared.
    #[error("the layout uses input `{0}`, which is not declared")]
    UndeclaredInput(String),
    /// A declared input is neither laid out nor held privately (used by a `private` action).
    #[error("input `{0}` is declared but neither laid out nor used by a `private` action")]
    InputNotLaidOut(String),
    /// The two cards of a standard-deck commitment are no commitment.
    #[error("`{item}`: {source}")]
    CommitmentCards {
        /// The layout item.
        item: String,
        /// What is wrong.
        source: CommitmentCardsError,
    },
    /// A numbered card occurs twice in a layout with standard-deck commitments.
    #[error("card `#{0}` is used twice in the layout; a standard deck has each card once")]
    DuplicateCard(u16),
    /// More cards than [`MAX_CARDS`].
    #[error("the layout has {0} cards, at most {MAX_CARDS} are supported")]
    TooManyCards(usize),
    /// More permutation entries than [`MAX_PERM_ENTRIES`] (counted as the parser counts them).
    #[error("{}: {}", at(*.span), OverBudget { cards: *.cards, perms: *.perms })]
    TooManyPermutations {
        /// The action that went over the limit.
        span: Span,
        /// The protocol's number of cards.
        cards: usize,
        /// The permutations counted when the limit was passed.
        perms: usize,
    },
    /// A permutation acts on a different number of cards than the protocol has.
    #[error("{}: the permutation acts on {got} positions, the protocol has {cards} cards", at(*.span))]
    PermSize {
        /// Where it is written.
        span: Span,
        /// Its number of positions.
        got: usize,
        /// The protocol's number of cards.
        cards: usize,
    },
    /// A shuffle has no valid distribution.
    #[error("{}: {source}", at(*.span))]
    Shuffle {
        /// Where it is written.
        span: Span,
        /// What is wrong with it.
        source: ShuffleError,
    },
    /// A turned or result position is outside the row.
    #[error("{}: position {position} is not one of the {cards} cards", at(*.span))]
    Position {
        /// Where it is written.
        span: Span,
        /// The position, 1-indexed.
        position: usize,
        /// The protocol's number of cards.
        cards: usize,
    },
    /// A position listed twice in one turn or result.
    #[error("{}: position {position} is listed twice", at(*.span))]
    RepeatedPosition {
        /// Where it is written.
        span: Span,
        /// The position, 1-indexed.
        position: usize,
    },
    /// Turned positions not in increasing order.
    #[error("{}: turned positions must be listed in increasing order", at(*.span))]
    TurnOrder {
        /// The turn.
        span: Span,
    },
    /// A branch's observation has a different length than the turn.
    #[error("{}: the observation `{observation}` has {found} symbols, but {expected} cards are turned", at(*.span))]
    ObservationLength {
        /// The branch.
        span: Span,
        /// The observation.
        observation: String,
        /// Symbols given.
        found: usize,
        /// Cards turned.
        expected: usize,
    },
    /// Two branches for the same observation.
    #[error("{}: a second branch for the observation `{observation}`", at(*.span))]
    DuplicateBranch {
        /// The second branch.
        span: Span,
        /// The observation.
        observation: String,
    },
    /// Branching turns nested deeper than [`MAX_NESTING`].
    #[error("{}: branching turns are nested more than {MAX_NESTING} deep", at(*.span))]
    TooDeep {
        /// The turn too deep.
        span: Span,
    },
    /// A label name that is not one word.
    #[error("{}: `{label}` is not a label name (one word)", at(*.span))]
    LabelName {
        /// The label or goto.
        span: Span,
        /// The name.
        label: String,
    },
    /// A label defined twice.
    #[error("{}: label `{label}` is defined twice; labels are global", at(*.span))]
    DuplicateLabel {
        /// The second definition.
        span: Span,
        /// The label.
        label: String,
    },
    /// A private operation by the holder of an input that is not declared.
    #[error("{}: `private {input}`: no input `{input}` is declared", at(*.span))]
    UndeclaredPrivateInput {
        /// The private action.
        span: Span,
        /// The name used.
        input: String,
    },
    /// A private action names a bit that is wrong for it (see [`PrivateBitError`]).
    #[error("{}: `private {holder}`: {source}", at(*.span))]
    PrivateBit {
        /// The private action.
        span: Span,
        /// Its holder.
        holder: String,
        /// What is wrong.
        source: PrivateBitError,
    },
    /// A number input `a{n}` with a modulus below 2 or above [`MAX_CARDS`].
    #[error("input `{input}` is laid out as a number modulo {modulus}; a modulus is from 2 to {MAX_CARDS}")]
    Modulus {
        /// The input.
        input: String,
        /// The modulus written.
        modulus: usize,
    },
    /// An input laid out both as a bit and as a number, or as numbers of two moduli.
    #[error("input `{0}` is laid out in two encodings (as a bit and as a number, or with two moduli); lay it out one way")]
    MixedEncoding(String),
    /// More input assignments than [`numbers::MAX_ASSIGNMENTS`] (the product of the moduli).
    #[error("inputs with moduli {0:?} have more than {max} assignments", max = numbers::MAX_ASSIGNMENTS)]
    TooManyAssignments(Vec<usize>),
    /// A private action in a protocol with number inputs (private choices are bits).
    #[error("{}: private actions take bit inputs; this protocol has number inputs (`a{{n}}`)", at(*.span))]
    PrivateWithNumbers {
        /// The private action.
        span: Span,
    },
    /// A committed `result` of a number output (`add-mod`) that does not list one position
    /// per value.
    #[error("{}: the output is a number modulo {modulus}, so a `result` lists its {modulus} cards (one-hot, ♥ at the value), not {found}", at(*.span))]
    NumberResult {
        /// The `result`.
        span: Span,
        /// The output's modulus.
        modulus: usize,
        /// Positions written.
        found: usize,
    },
    /// A one-card `result P` in a protocol with several outputs, or whose output is a number.
    #[error("{}: a one-card `result P` holds one output bit (♥ = 1), but the protocol's output is {what}", at(*.span))]
    OneCardResult {
        /// The `result`.
        span: Span,
        /// What the output is instead (`a number modulo 3`, `3 bits`).
        what: String,
    },
    /// A one-hot `result` in a protocol whose output is no number.
    #[error("{}: a one-hot `result` reads a number, but the output is a bit; write pairs (`result 1 2`)", at(*.span))]
    NumberResultOfBits {
        /// The `result`.
        span: Span,
    },
    /// A `goto` to a label that is defined nowhere.
    #[error("{}: `goto {label}`: no label `{label}` is defined", at(*.span))]
    UndefinedLabel {
        /// The goto.
        span: Span,
        /// The label.
        label: String,
    },
}

impl ProtocolError {
    /// Where the offending action is written, when the error is about one.
    pub fn span(&self) -> Option<Span> {
        match self {
            ProtocolError::PermSize { span, .. }
            | ProtocolError::TooManyPermutations { span, .. }
            | ProtocolError::Shuffle { span, .. }
            | ProtocolError::Position { span, .. }
            | ProtocolError::RepeatedPosition { span, .. }
            | ProtocolError::TurnOrder { span }
            | ProtocolError::ObservationLength { span, .. }
            | ProtocolError::DuplicateBranch { span, .. }
            | ProtocolError::TooDeep { span }
            | ProtocolError::LabelName { span, .. }
            | ProtocolError::DuplicateLabel { span, .. }
            | ProtocolError::UndefinedLabel { span, .. }
            | ProtocolError::ResultArity { span, .. }
            | ProtocolError::PrivateWithNumbers { span }
            | ProtocolError::NumberResult { span, .. }
            | ProtocolError::NumberResultOfBits { span }
            | ProtocolError::OneCardResult { span, .. }
            | ProtocolError::UndeclaredPrivateInput { span, .. }
            | ProtocolError::PrivateBit { span, .. } => Some(*span),
            _ => None,
        }
    }
}

fn at(span: Span) -> String {
    crate::print::source_position(span)
}

/// The permutations a protocol holds so far, counted against [`MAX_PERM_ENTRIES`] before they
/// are made. The parser and the validation count the same permutations, so a protocol the
/// parser accepts passes the validation.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PermBudget {
    cards: usize,
    perms: usize,
}

/// A protocol that would hold more than [`MAX_PERM_ENTRIES`] entries: `perms` permutations of
/// `cards` cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", over_budget(*cards, *perms, MAX_PERM_ENTRIES))]
pub(crate) struct OverBudget {
    pub(crate) cards: usize,
    pub(crate) perms: usize,
}

/// Why a shuffle's distribution was not built within a [`PermBudget`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The shuffle is invalid.
    Shuffle(ShuffleError),
    /// Its generated group does not fit what is left of the budget.
    Budget(OverBudget),
}

/// The message for `perms` permutations of `cards` cards over the limit of `max` entries.
pub(crate) fn over_budget(cards: usize, perms: usize, max: usize) -> String {
    let entries = perms.saturating_mul(cards.max(MIN_PERM_ENTRIES));
    let product = if cards >= MIN_PERM_ENTRIES {
        format!("{cards} cards × {perms} permutations")
    } else {
        format!(
            "{perms} permutations × {MIN_PERM_ENTRIES} (the least a permutation counts; it has \
             {cards} cards)"
        )
    };
    format!(
        "the protocol's permutations are too large: {product} is {entries} entries, at most \
         {max} are supported"
    )
}

impl OverBudget {
    /// The validation error for the action at `span`.
    pub(crate) fn at(self, span: Span) -> ProtocolError {
        ProtocolError::TooManyPermutations {
            span,
            cards: self.cards,
            perms: self.perms,
        }
    }
}

impl PermBudget {
    /// An empty budget for a protocol on `cards` cards.
    pub(crate) fn new(cards: usize) -> PermBudget {
        PermBudget { cards, perms: 0 }
    }

    /// The most permutations a protocol on these cards may hold.
    fn max_perms(&self) -> usize {
        MAX_PERM_ENTRIES / self.cards.max(MIN_PERM_ENTRIES)
    }

    /// How many more permutations fit.
    fn left(&self) -> usize {
        self.max_perms().saturating_sub(self.perms)
    }

    /// Counts `count` more permutations, unless they would pass the limit.
    pub(crate) fn take(&mut self, count: usize) -> Result<(), OverBudget> {
        let perms = self.perms.saturating_add(count);
        if perms > self.max_perms() {
            return Err(OverBudget {
                cards: self.cards,
                perms,
            });
        }
        self.perms = perms;
        Ok(())
    }

    /// The distribution of `shuffle`, its generated group (if any) enumerated only as far as
    /// the budget allows and then counted. The caller has counted the permutations written in
    /// the shuffle and those a cut or bisection expands into.
    pub(crate) fn distribution(&mut self, shuffle: &Shuffle) -> Result<Vec<(Perm, Q)>, Refusal> {
        let left = self.left();
        let max_group = MAX_GROUP.min(left);
        let support = match shuffle.distribution_within(self.cards, max_group) {
            Err(ShuffleError::GroupTooLarge(_)) if max_group < MAX_GROUP => {
                return Err(Refusal::Budget(OverBudget {
                    cards: self.cards,
                    perms: self.perms.saturating_add(left).saturating_add(1),
                }));
            }
            other => other.map_err(Refusal::Shuffle)?,
        };
        if let Shuffle::Generated(_) = shuffle {
            self.take(support.len()).map_err(Refusal::Budget)?;
        }
        Ok(support)
    }
}

/// Where an action is: its index among the protocol's actions (in the order the validation
/// numbers them) and where it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    /// The action's index, `0..Protocol::action_count()`.
    pub index: usize,
    /// Where it was written.
    pub span: Span,
}

/// A label of the protocol, by its index in [`Protocol::labels`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LabelId(pub(crate) usize);

impl LabelId {
    /// The index in [`Protocol::labels`].
    pub fn index(self) -> usize {
        self.0
    }
}

/// A block of the compiled program: the body (block 0) or a branch's body.
pub(crate) type BlockId = usize;

/// Where execution goes on: the open blocks, innermost last, each with the index of its next
/// action.
pub(crate) type Continuation = Vec<(BlockId, usize)>;

/// One compiled action.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    Perm(facedown_core::Perm),
    Shuffle(Distribution),
    Turn {
        /// Sorted (the validation requires it).
        positions: Vec<usize>,
        /// The observation, the branch's span, and its block.
        branches: Option<Vec<(Vec<Symbol>, Span, BlockId)>>,
    },
    Result(Vec<(usize, usize)>),
    /// A committed number output, one-hot on these positions.
    ResultNumber(Vec<usize>),
    /// The output bit committed on one card (♥ = 1).
    ResultCard(usize),
    Label(LabelId),
    Goto(LabelId),
    Restart,
    /// The holder of input `input` privately applies `perms[the bit]`, the bit `by` chooses.
    PrivatePerm {
        input: usize,
        perms: [facedown_core::Perm; 2],
        by: Chooser,
    },
    /// The holder of input `input` draws from `shuffle` unseen by the others; `bit` is where
    /// his draw is kept (two permutations: the index of the one drawn).
    PrivateShuffle {
        input: usize,
        shuffle: Distribution,
        bit: Option<PrivateBit>,
    },
    /// The holder of input `input` looks at `positions` (sorted); `bit` keeps the bit of the
    /// commitment he saw.
    PrivateLook {
        input: usize,
        positions: Vec<usize>,
        bit: Option<PrivateBit>,
    },
}

/// A compiled action with where it was written and how it reads.
#[derive(Clone, Debug)]
pub(crate) struct Instr {
    pub(crate) op: Op,
    pub(crate) span: Span,
    pub(crate) text: String,
}

/// A label with the place execution goes on after it.
#[derive(Clone, Debug)]
pub(crate) struct LabelInfo {
    pub(crate) name: String,
    pub(crate) after: Continuation,
}

/// The action tree compiled for the interpreter.
#[derive(Clone, Debug, Default)]
pub(crate) struct Program {
    pub(crate) instrs: Vec<Instr>,
    /// Block → the indices of its actions, in order.
    pub(crate) blocks: Vec<Vec<usize>>,
    pub(crate) labels: Vec<LabelInfo>,
    /// The private bits named by `as`, with the input whose holder knows each.
    pub(crate) private_bits: Vec<(String, usize)>,
}

/// A well-formed protocol (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Protocol {
    parts: ProtocolParts,
    cards: usize,
    rows: Vec<Sequence>,
    outputs: Vec<bool>,
    values: Vec<Value>,
    input_labels: Vec<String>,
    moduli: Vec<usize>,
    numbers: bool,
    pub(crate) program: Program,
}

impl PartialEq for Protocol {
    /// Two protocols are equal when they were written the same way (spans included; see
    /// [`crate::print::same_up_to_spans`]).
    fn eq(&self, other: &Protocol) -> bool {
        self.parts == other.parts
    }
}

impl Eq for Protocol {}

impl Protocol {
    /// Checks `parts` and compiles them.
    pub fn new(parts: ProtocolParts) -> Result<Protocol, ProtocolError> {
        let cards = check_header(&parts)?;
        let moduli = numbers::moduli(&parts.inputs, &parts.layout)?;
        let numbers = numbers::has_numbers(&parts.layout);
        numbers::check_function(&parts.function, &parts.inputs, &moduli, numbers)?;
        let (rows, values) = starting_rows(&parts, &moduli, numbers)?;
        let outputs = if parts.function.output_count() > 1 || numbers {
            Vec::new()
        } else {
            values.iter().map(|&v| v == 1).collect()
        };
        let number_output = numbers.then(|| moduli[0]);
        let program = Compiler::compile(&parts, cards, number_output)?;
        let k = parts.inputs.len();
        let input_labels = (0..rows.len())
            .map(|i| match numbers {
                true => numbers::label(i, &parts.inputs, &moduli),
                false => input_label(i, k),
            })
            .collect();
        Ok(Protocol {
            input_labels,
            parts,
            cards,
            rows,
            outputs,
            values,
            moduli,
            numbers,
            program,
        })
    }

    /// The protocol as written.
    pub fn parts(&self) -> &ProtocolParts {
        &self.parts
    }

    /// The protocol as written, to modify and validate again.
    pub fn into_parts(self) -> ProtocolParts {
        self.parts
    }

    /// The name from `protocol NAME`.
    pub fn name(&self) -> &str {
        &self.parts.name
    }

    /// The input commitments, in the order the function takes them.
    pub fn inputs(&self) -> &[String] {
        &self.parts.inputs
    }

    /// The function computed.
    pub fn function(&self) -> &Function {
        &self.parts.function
    }

    /// The starting row's items.
    pub fn layout(&self) -> &[LayoutItem] {
        &self.parts.layout
    }

    /// The top-level actions.
    pub fn body(&self) -> &[Action] {
        &self.parts.body
    }

    /// The author's claim, if the protocol states one.
    pub fn claim(&self) -> Option<&Claim> {
        self.parts.claim.as_ref()
    }

    /// The same protocol with another claim (no other check is needed).
    pub fn with_claim(mut self, claim: Option<Claim>) -> Protocol {
        self.parts.claim = claim;
        self
    }

    /// The number of cards in the layout.
    pub fn cards(&self) -> usize {
        self.cards
    }

    /// The number of input assignments: `2^inputs` for bits, the product of the moduli with
    /// number inputs ([`numbers`]).
    pub fn input_count(&self) -> usize {
        self.rows.len()
    }

    /// The modulus of every input: 2 for a bit, `n` for a number laid out as `a{n}`.
    pub fn moduli(&self) -> &[usize] {
        &self.moduli
    }

    /// Whether some input is a number (`a{n}`): the assignments are then in mixed radix, the
    /// output is a number, and the backends that read input and output bits (the compiled
    /// simulator, the tracer, the tables, the search) refuse the protocol.
    pub fn has_numbers(&self) -> bool {
        self.numbers
    }

    /// The first input laid out on one card (`a[1]`, [`LayoutItem::OneCard`]), if any: the
    /// tables, whose decks are known cards, refuse such a protocol.
    pub fn one_card_input(&self) -> Option<&str> {
        self.parts.layout.iter().find_map(|item| match item {
            LayoutItem::OneCard { name, .. } => Some(name.as_str()),
            _ => None,
        })
    }

    /// The input values of assignment `index`, first input first (bits as 0 and 1).
    pub fn input_values(&self, index: usize) -> Vec<usize> {
        numbers::digits(index, &self.moduli)
    }

    /// The input assignments as bit strings, first input first (`00`, `01`, …); with number
    /// inputs, as `a=2,b=0`.
    pub fn input_labels(&self) -> &[String] {
        &self.input_labels
    }

    /// The starting row of input assignment `index` (binary order, first input most
    /// significant).
    ///
    /// # Panics
    /// When `index >= input_count()`.
    pub fn start_row(&self, index: usize) -> &Sequence {
        &self.rows[index]
    }

    /// The starting row for the input bits `bits` (first input first); `None` when `bits` does
    /// not have one bit per input, or some input is a number.
    pub fn initial_row(&self, bits: &[bool]) -> Option<Sequence> {
        (bits.len() == self.parts.inputs.len() && !self.numbers)
            .then(|| self.rows[crate::model::input_index(bits)].clone())
    }

    /// `f(input)` for every input assignment, in binary order (for `copy`, the input bit), for
    /// a protocol with one output; empty for a protocol with several (see
    /// [`Protocol::values`], which the backends read for such protocols).
    pub fn outputs(&self) -> &[bool] {
        &self.outputs
    }

    /// The joint value of every output for every input assignment, in binary order (for one
    /// output, its bit as 0 or 1).
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// How many outputs the protocol has.
    pub fn output_count(&self) -> usize {
        self.parts.function.output_count()
    }

    /// The bit that pair `pair` of a `result` must encode under input assignment `input`: the
    /// output for a protocol with one output (every pair carries it, as `copy` writes them),
    /// output `pair` for a protocol with several.
    pub fn result_bit(&self, input: usize, pair: usize) -> bool {
        let m = self.output_count();
        if m == 1 {
            self.values[input] == 1
        } else {
            crate::model::output_bit(self.values[input], pair, m)
        }
    }

    /// The name of output `j` for a message (`None` for a single unnamed output).
    pub fn output_name(&self, j: usize) -> Option<&str> {
        self.parts.function.output_names().get(j).copied()
    }

    /// Whether some action is private (the private model: security is judged per player).
    pub fn has_private_actions(&self) -> bool {
        self.program.instrs.iter().any(|i| {
            matches!(
                i.op,
                Op::PrivatePerm { .. } | Op::PrivateShuffle { .. } | Op::PrivateLook { .. }
            )
        })
    }

    /// Whether some player sees something the others do not (a private draw or look): the
    /// views then differ between players and each is analysed on its own.
    pub fn has_private_observations(&self) -> bool {
        self.program
            .instrs
            .iter()
            .any(|i| matches!(i.op, Op::PrivateShuffle { .. } | Op::PrivateLook { .. }))
    }

    /// How many private bits the actions name (`as r`); [`PrivateBit`] indexes them.
    pub(crate) fn private_bit_count(&self) -> usize {
        self.program.private_bits.len()
    }

    /// The name a private bit was given.
    pub(crate) fn private_bit_name(&self, bit: PrivateBit) -> &str {
        &self.program.private_bits[bit.0].0
    }

    /// The number of actions (every [`Site::index`] is below it).
    pub fn action_count(&self) -> usize {
        self.program.instrs.len()
    }

    /// The labels, in the order they are written; [`LabelId::index`] indexes this.
    pub fn labels(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.program.labels.iter().map(|l| l.name.as_str())
    }

    /// The name of a label.
    pub fn label_name(&self, label: LabelId) -> &str {
        &self.program.labels[label.0].name
    }

    /// The shuffle distributions, one per `shuffle` action, with where each is written.
    pub fn shuffles(&self) -> impl Iterator<Item = (Site, &Distribution)> + '_ {
        self.program
            .instrs
            .iter()
            .enumerate()
            .filter_map(|(index, i)| match &i.op {
                Op::Shuffle(d) => Some((
                    Site {
                        index,
                        span: i.span,
                    },
                    d,
                )),
                _ => None,
            })
    }

    /// The action at a site, as one line of text (`shuffle cut 1 2 3`, `turn 1 2`).
    pub fn describe(&self, site: Site) -> &str {
        &self.program.instrs[site.index].text
    }
}

/// The input assignment `index` as a bit string, first input first.
pub fn input_label(index: usize, k: usize) -> String {
    input_bits(index, k)
        .into_iter()
        .map(|b| if b { '1' } else { '0' })
        .collect()
}

/// Checks the name, inputs, function and layout; returns the number of cards.
fn check_header(p: &ProtocolParts) -> Result<usize, ProtocolError> {
    if !crate::parse::is_word(&p.name) {
        return Err(ProtocolError::Name(p.name.clone()));
    }
    let k = p.inputs.len();
    if k == 0 {
        return Err(ProtocolError::NoInputs);
    }
    if k > MAX_INPUTS {
        return Err(ProtocolError::TooManyInputs(k));
    }
    let mut declared = BTreeSet::new();
    for name in &p.inputs {
        if !crate::parse::is_identifier(name) {
            return Err(ProtocolError::InputName(name.clone()));
        }
        if !declared.insert(name.as_str()) {
            return Err(ProtocolError::DuplicateInput(name.clone()));
        }
    }
    check_function(&p.function, k)?;
    check_layout(p, &declared)?;
    // Saturating: a number item `a{n}` built in code may be as wide as `usize::MAX`.
    let cards = p
        .layout
        .iter()
        .map(LayoutItem::width)
        .fold(0, usize::saturating_add);
    if cards > MAX_CARDS {
        return Err(ProtocolError::TooManyCards(cards));
    }
    Ok(cards)
}

/// Checks that a function fits `k` inputs (and, with several outputs, that each output is a
/// single-output function under its own identifier).
fn check_function(function: &Function, k: usize) -> Result<(), ProtocolError> {
    match function {
        Function::Table(t) if t.len() != 1 << k => Err(ProtocolError::Function(format!(
            "a truth table over {k} inputs needs {} entries, not {}",
            1usize << k,
            t.len()
        ))),
        Function::Copy if k != 1 => Err(ProtocolError::Function(format!(
            "`copy` takes exactly one input, not {k}"
        ))),
        Function::Several(outputs) => {
            if outputs.len() > MAX_OUTPUTS {
                return Err(ProtocolError::TooManyOutputs(outputs.len()));
            }
            let mut names = BTreeSet::new();
            for o in outputs {
                if !crate::parse::is_identifier(&o.name) || !names.insert(o.name.as_str()) {
                    return Err(ProtocolError::OutputName(o.name.clone()));
                }
                if matches!(o.function, Function::Several(_)) {
                    return Err(ProtocolError::Function(format!(
                        "output `{}` has several outputs itself",
                        o.name
                    )));
                }
                check_function(&o.function, k)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn check_layout(p: &ProtocolParts, declared: &BTreeSet<&str>) -> Result<(), ProtocolError> {
    let standard = p
        .layout
        .iter()
        .any(|item| matches!(item, LayoutItem::InputOn { cards, .. } if cards[0].is_numbered()));
    let mut used = BTreeSet::new();
    let mut use_card = |s: Symbol| match s {
        Symbol::Card(n) if standard && !used.insert(n) => Err(ProtocolError::DuplicateCard(n)),
        _ => Ok(()),
    };
    for item in &p.layout {
        if let Some((name, _)) = item.input() {
            if !declared.contains(name) {
                return Err(ProtocolError::UndeclaredInput(name.to_owned()));
            }
        }
        match item {
            LayoutItem::InputOn { cards, .. } => {
                LayoutItem::check_commitment_cards(*cards).map_err(|source| {
                    ProtocolError::CommitmentCards {
                        item: item.to_string(),
                        source,
                    }
                })?;
                use_card(cards[0])?;
                use_card(cards[1])?;
            }
            LayoutItem::Card(s) => use_card(*s)?,
            _ => {}
        }
    }
    let private = privately_held(&p.body);
    for name in &p.inputs {
        if !private.contains(name.as_str())
            && !p
                .layout
                .iter()
                .any(|i| i.input().is_some_and(|(n, _)| n == name))
        {
            return Err(ProtocolError::InputNotLaidOut(name.clone()));
        }
    }
    Ok(())
}

/// The inputs some `private` action's holder acts on: they are the players' private knowledge
/// and need not be laid out as commitments.
pub(crate) fn privately_held(body: &[Action]) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<&[Action]> = vec![body];
    while let Some(actions) = stack.pop() {
        for a in actions {
            match &a.kind {
                ActionKind::PrivatePerm { input, .. }
                | ActionKind::PrivateShuffle { input, .. }
                | ActionKind::PrivateLook { input, .. }
                | ActionKind::PrivateReverse { input, .. } => {
                    out.insert(input.as_str());
                }
                ActionKind::Turn {
                    branches: Some(bs), ..
                } => stack.extend(bs.iter().map(|b| b.body.as_slice())),
                _ => {}
            }
        }
    }
    out
}

/// The starting row and the joint output value of every input assignment (mixed radix over
/// `moduli`; binary when every input is a bit).
fn starting_rows(
    p: &ProtocolParts,
    moduli: &[usize],
    numbers: bool,
) -> Result<(Vec<Sequence>, Vec<Value>), ProtocolError> {
    let count = numbers::assignments(moduli)?;
    let mut rows = Vec::with_capacity(count);
    let mut outputs = Vec::with_capacity(count);
    for i in 0..count {
        let digits = numbers::digits(i, moduli);
        let bits: Vec<bool> = digits.iter().map(|&d| d == 1).collect();
        let out = match numbers {
            true => Some(numbers::add_mod(&digits, moduli[0])),
            false => p.function.value(&bits),
        };
        let out = out.ok_or_else(|| {
            ProtocolError::Function(format!("no value for input {}", input_label(i, bits.len())))
        })?;
        outputs.push(out);
        let mut row = Vec::new();
        for item in &p.layout {
            let index = |name: &str| p.inputs.iter().position(|n| n == name).unwrap_or(0);
            let bit = |name: &str| -> bool { bits[index(name)] };
            match item {
                LayoutItem::Input { name, negated } => {
                    row.extend(encode_bit(bit(name) ^ negated));
                }
                LayoutItem::InputOn {
                    name,
                    negated,
                    cards,
                } => row.extend(encode_bit_on(bit(name) ^ negated, *cards)),
                LayoutItem::OneCard { name, negated } => {
                    row.push(encode_one_card(bit(name) ^ negated));
                }
                LayoutItem::Constant(b) => row.extend(encode_bit(*b)),
                LayoutItem::Card(s) => row.push(*s),
                LayoutItem::Number { name, modulus } => {
                    row.extend(encode_number(digits[index(name)], *modulus));
                }
            }
        }
        rows.push(row);
    }
    Ok((rows, outputs))
}

pub mod numbers;
mod private;
pub use private::{Chooser, PrivateBit, PrivateBitError};

/// Compiles the action tree: checks every action and numbers actions block by block.
struct Compiler<'i> {
    cards: usize,
    inputs: &'i [String],
    /// Pairs a `result` must write (`None`: any number, each carrying the single output).
    result_pairs: Option<usize>,
    /// The modulus of a number output (`add-mod` on numbers): a `result` then lists that
    /// many positions, one-hot, and private actions are refused.
    number_output: Option<usize>,
    program: Program,
    label_ids: BTreeMap<String, usize>,
    gotos: Vec<(usize, Span, String)>,
    /// The permutations the program holds so far.
    budget: PermBudget,
}

impl Compiler<'_> {
    fn compile(
        parts: &ProtocolParts,
        cards: usize,
        number_output: Option<usize>,
    ) -> Result<Program, ProtocolError> {
        let body = &parts.body;
        let outputs = parts.function.output_count();
        let mut c = Compiler {
            cards,
            inputs: &parts.inputs,
            result_pairs: (outputs > 1).then_some(outputs),
            number_output,
            program: Program::default(),
            label_ids: BTreeMap::new(),
            gotos: Vec::new(),
            budget: PermBudget::new(cards),
        };
        c.block(body, &Vec::new(), 0)?;
        for (at, span, label) in std::mem::take(&mut c.gotos) {
            let Some(&id) = c.label_ids.get(&label) else {
                return Err(ProtocolError::UndefinedLabel { span, label });
            };
            c.program.instrs[at].op = Op::Goto(LabelId(id));
        }
        Ok(c.program)
    }

    /// Compiles one block (its actions get consecutive indices, then its branches' blocks
    /// follow); `outer` is the continuation after the block; returns the block's id.
    fn block(
        &mut self,
        actions: &[Action],
        outer: &Continuation,
        depth: usize,
    ) -> Result<BlockId, ProtocolError> {
        let id = self.program.blocks.len();
        let first = self.program.instrs.len();
        self.program
            .blocks
            .push((first..first + actions.len()).collect());
        for a in actions {
            self.program.instrs.push(Instr {
                op: Op::Restart,
                span: a.span,
                text: describe(&a.kind),
            });
        }
        for (k, a) in actions.iter().enumerate() {
            let mut here = outer.clone();
            here.push((id, k + 1));
            let op = self.op(a, &here, depth, first + k)?;
            self.program.instrs[first + k].op = op;
        }
        Ok(id)
    }

    fn op(
        &mut self,
        a: &Action,
        after: &Continuation,
        depth: usize,
        index: usize,
    ) -> Result<Op, ProtocolError> {
        let span = a.span;
        if self.number_output.is_some() && a.kind.is_private() {
            return Err(ProtocolError::PrivateWithNumbers { span });
        }
        self.budget
            .take(a.kind.held_perms())
            .map_err(|over| over.at(span))?;
        Ok(match &a.kind {
            ActionKind::Perm(p) => {
                if p.len() != self.cards {
                    return Err(ProtocolError::PermSize {
                        span,
                        got: p.len(),
                        cards: self.cards,
                    });
                }
                Op::Perm(p.clone())
            }
            ActionKind::Shuffle(s) => Op::Shuffle(self.shuffle(s, span)?),
            ActionKind::Turn {
                positions,
                branches,
            } => self.turn(positions, branches.as_deref(), span, after, depth)?,
            ActionKind::Result(pairs) => {
                let flat: Vec<usize> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
                self.positions(&flat, span)?;
                if let Some(modulus) = self.number_output {
                    return Err(ProtocolError::NumberResult {
                        span,
                        modulus,
                        found: flat.len(),
                    });
                }
                if let Some(outputs) = self.result_pairs.filter(|&m| m != pairs.len()) {
                    return Err(ProtocolError::ResultArity {
                        span,
                        pairs: pairs.len(),
                        outputs,
                    });
                }
                Op::Result(pairs.clone())
            }
            ActionKind::ResultNumber(positions) => {
                self.positions(positions, span)?;
                let Some(modulus) = self.number_output else {
                    return Err(ProtocolError::NumberResultOfBits { span });
                };
                if positions.len() != modulus {
                    return Err(ProtocolError::NumberResult {
                        span,
                        modulus,
                        found: positions.len(),
                    });
                }
                Op::ResultNumber(positions.clone())
            }
            ActionKind::ResultCard(p) => {
                self.positions(&[*p], span)?;
                let what = match (self.number_output, self.result_pairs) {
                    (Some(modulus), _) => Some(format!("a number modulo {modulus}")),
                    (None, Some(outputs)) => Some(format!("{outputs} bits")),
                    (None, None) => None,
                };
                if let Some(what) = what {
                    return Err(ProtocolError::OneCardResult { span, what });
                }
                Op::ResultCard(*p)
            }
            ActionKind::Label(name) => {
                if !crate::parse::is_word(name) {
                    return Err(ProtocolError::LabelName {
                        span,
                        label: name.clone(),
                    });
                }
                let id = self.program.labels.len();
                if self.label_ids.insert(name.clone(), id).is_some() {
                    return Err(ProtocolError::DuplicateLabel {
                        span,
                        label: name.clone(),
                    });
                }
                self.program.labels.push(LabelInfo {
                    name: name.clone(),
                    after: after.clone(),
                });
                Op::Label(LabelId(id))
            }
            ActionKind::Goto(name) => {
                // Resolved once every label is known.
                self.gotos.push((index, span, name.clone()));
                Op::Restart
            }
            ActionKind::Restart => Op::Restart,
            ActionKind::PrivatePerm { input, perms, by } => {
                self.private_perm(input, perms, by.as_deref(), span)?
            }
            ActionKind::PrivateShuffle {
                input,
                shuffle,
                bit,
            } => self.private_draw(input, shuffle, bit.as_deref(), span)?,
            ActionKind::PrivateLook {
                input,
                positions,
                bit,
            } => self.private_look(input, positions, bit.as_deref(), span)?,
            ActionKind::PrivateReverse {
                input,
                positions,
                choice,
            } => self.private_reverse(input, positions, choice, span)?,
        })
    }

    fn shuffle(&mut self, s: &Shuffle, span: Span) -> Result<Distribution, ProtocolError> {
        let support = self
            .budget
            .distribution(s)
            .map_err(|refusal| match refusal {
                Refusal::Shuffle(source) => ProtocolError::Shuffle { span, source },
                Refusal::Budget(over) => over.at(span),
            })?;
        if support.is_empty() {
            return Err(ProtocolError::Shuffle {
                span,
                source: ShuffleError::Empty,
            });
        }
        Ok(Distribution::new(support))
    }

    fn turn(
        &mut self,
        positions: &[usize],
        branches: Option<&[crate::model::Branch]>,
        span: Span,
        after: &Continuation,
        depth: usize,
    ) -> Result<Op, ProtocolError> {
        self.positions(positions, span)?;
        if positions.windows(2).any(|w| w[1] < w[0]) {
            return Err(ProtocolError::TurnOrder { span });
        }
        let Some(bs) = branches else {
            return Ok(Op::Turn {
                positions: positions.to_vec(),
                branches: None,
            });
        };
        if depth >= MAX_NESTING {
            return Err(ProtocolError::TooDeep { span });
        }
        let mut compiled: Vec<(Vec<Symbol>, Span, BlockId)> = Vec::new();
        for b in bs {
            let observation = crate::print::observation_text(&b.observation);
            if b.observation.len() != positions.len() {
                return Err(ProtocolError::ObservationLength {
                    span: b.span,
                    observation,
                    found: b.observation.len(),
                    expected: positions.len(),
                });
            }
            if compiled.iter().any(|(o, _, _)| *o == b.observation) {
                return Err(ProtocolError::DuplicateBranch {
                    span: b.span,
                    observation,
                });
            }
            let block = self.block(&b.body, after, depth + 1)?;
            compiled.push((b.observation.clone(), b.span, block));
        }
        Ok(Op::Turn {
            positions: positions.to_vec(),
            branches: Some(compiled),
        })
    }

    /// Positions in range and distinct.
    fn positions(&self, ps: &[usize], span: Span) -> Result<(), ProtocolError> {
        let mut seen = vec![false; self.cards];
        for &p in ps {
            if p >= self.cards {
                return Err(ProtocolError::Position {
                    span,
                    position: p + 1,
                    cards: self.cards,
                });
            }
            if std::mem::replace(&mut seen[p], true) {
                return Err(ProtocolError::RepeatedPosition {
                    span,
                    position: p + 1,
                });
            }
        }
        Ok(())
    }
}
