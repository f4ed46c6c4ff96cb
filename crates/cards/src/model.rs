//! The protocol model: what a `.cards` file describes, in the action model of Mizuki–Shizuya
//! \[MS14\] as used by Koch–Walzer–Härtel \[KWH15\].
//!
//! Positions are **0-indexed** here; the `.cards` text and every printed form are 1-indexed.
//! Permutations follow [`facedown_core::perm`]: `π` moves the card at position `i` to `π(i)`.
//!
//! # Commitments: two colours, standard decks, multiset decks
//!
//! On a two-colour deck a commitment to a bit is two face-down cards, `♣♥` = 0 and `♥♣` = 1
//! ([`encode_bit`], [`decode_bit`]); [`LayoutItem::Input`] and [`LayoutItem::Constant`] lay
//! commitments out this way.
//!
//! On a *standard deck* every card is distinct (numbered, [`Symbol::Card`]) and a commitment uses
//! two given cards with the encoding of Koch–Schrempp–Kirsten \[KSK19\]: **the lower-numbered
//! card first encodes 0, the higher-numbered card first encodes 1**. [`LayoutItem::InputOn`]
//! commits an input on two named cards (`a(#1 #2)` in the `.cards` text, see
//! [`crate::parse`]); [`decode_bit`] reads two numbered cards by this rule. A ♣/numbered mix
//! or two equal cards is no commitment at all.
//!
//! On a *multiset deck* (more kinds of repeated symbol than ♣ and ♥: ♦, ♠ and further kinds
//! [`Symbol::Kind`], each any number of times, as in Crépeau–Kilian's four-colour protocols
//! \[CK93\]) a commitment may use any two different repeated symbols with the same rule, in the
//! order of [`Symbol`]: `a(♦ ♠)` lays `♦♠` for 0 and `♠♦` for 1, and `♣♥` is the default
//! commitment `a`.
//!
//! Outside the two-colour deck a committed output has one more requirement: its two cards — its
//! *basis* — must be the same in every run that reaches the `result`. Otherwise the cards
//! themselves, seen when the output is opened or used by a later protocol, can tell the inputs
//! apart even though each run decodes to the right bit (on a multiset deck: an output on `♣♥`
//! in one branch and on `♦♠` in another). [`result_basis`] gives the unordered pair the
//! analyzer compares ([`crate::analyze`] enforces the rule).

use std::collections::{BTreeMap, BTreeSet};

use facedown_core::{Perm, Symbol};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};

/// Exact rationals used for every probability.
pub type Q = BigRational;

/// Where in the source a construct starts (1-indexed line and column; `0:0` when built in code).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// Line, from 1.
    pub line: usize,
    /// Column (in characters), from 1.
    pub col: usize,
}

/// A function of the input bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Function {
    /// A named Boolean function of all inputs (`and`, `or`, …; applied to every input).
    Named(NamedFunction),
    /// A truth table over the inputs in binary order: entry `k` is f of the input whose bits,
    /// read with the first input as the most significant bit, spell `k`. `0001` is AND.
    Table(Vec<bool>),
    /// Every output commitment equals the single input.
    Copy,
    /// Several named outputs, each with its own function of the inputs (a half adder:
    /// `sum` = XOR, `carry` = AND). Written `outputs sum carry` and `function xor and`; a
    /// committed ending writes one pair per output, in this order (`result 5 6, 9 10`). The
    /// functions of the outputs are single-output functions (never `Several` again).
    Several(Vec<NamedOutput>),
    /// The sum of the inputs modulo their common modulus (written `add-mod`): inputs laid out
    /// as numbers (`a{n}`, [`LayoutItem::Number`]), the output a number of the same modulus.
    /// On bits (modulus 2) it is XOR.
    AddMod,
}

/// One output of a protocol with several outputs: its name and what it computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedOutput {
    /// The output's name (an identifier).
    pub name: String,
    /// Its function of the inputs.
    pub function: Function,
}

/// One output as a listing shows it (`facedown cards list --json`, `analyze --json`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OutputSummary {
    /// The output's name (`f` for a single unnamed output).
    pub name: String,
    /// Its function, as the format writes it.
    pub function: String,
}

/// The joint value of every output of a protocol under one input, as one number: with `m`
/// outputs, output `j` (from 0) is bit `m − 1 − j` (the first output most significant, as for
/// inputs). A single output's value is its bit, 0 or 1.
///
/// Security against the ideal functionality compares inputs by this value: a non-committed
/// ending may reveal exactly the outputs, so two inputs must look alike when their values are
/// equal.
pub type Value = u32;

/// The bit of output `j` (from 0) of `m` in a joint [`Value`].
pub fn output_bit(value: Value, j: usize, m: usize) -> bool {
    (value >> (m - 1 - j)) & 1 == 1
}

/// The functions the format names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NamedFunction {
    /// Conjunction.
    And,
    /// Disjunction.
    Or,
    /// Exclusive or.
    Xor,
    /// Negated conjunction.
    Nand,
    /// Negated disjunction.
    Nor,
    /// Negated exclusive or.
    Xnor,
}

impl NamedFunction {
    /// Every named function, in the order of the format's table.
    pub const ALL: [NamedFunction; 6] = [
        NamedFunction::And,
        NamedFunction::Or,
        NamedFunction::Xor,
        NamedFunction::Nand,
        NamedFunction::Nor,
        NamedFunction::Xnor,
    ];

    /// The function a keyword names (`and`, `or`, …), if any.
    pub fn from_keyword(word: &str) -> Option<NamedFunction> {
        NamedFunction::ALL.into_iter().find(|f| f.keyword() == word)
    }

    /// The keyword in the format.
    pub fn keyword(self) -> &'static str {
        match self {
            NamedFunction::And => "and",
            NamedFunction::Or => "or",
            NamedFunction::Xor => "xor",
            NamedFunction::Nand => "nand",
            NamedFunction::Nor => "nor",
            NamedFunction::Xnor => "xnor",
        }
    }

    /// Evaluates the function on the bits.
    pub fn eval(self, bits: &[bool]) -> bool {
        let and = bits.iter().all(|&b| b);
        let or = bits.iter().any(|&b| b);
        let xor = bits.iter().fold(false, |acc, &b| acc ^ b);
        match self {
            NamedFunction::And => and,
            NamedFunction::Or => or,
            NamedFunction::Xor => xor,
            NamedFunction::Nand => !and,
            NamedFunction::Nor => !or,
            NamedFunction::Xnor => !xor,
        }
    }
}

impl Function {
    /// The output bit for the input assignment `bits` (first input first). For [`Function::Copy`]
    /// this is the single input bit (every output commitment carries it).
    ///
    /// Returns `None` when a truth table does not cover the assignment, and for
    /// [`Function::Several`], which has no single bit (see [`Function::value`]).
    pub fn eval(&self, bits: &[bool]) -> Option<bool> {
        match self {
            Function::Named(f) => Some(f.eval(bits)),
            Function::Table(table) => table.get(input_index(bits)).copied(),
            Function::Copy => bits.first().copied(),
            Function::AddMod => Some(bits.iter().fold(false, |acc, &b| acc ^ b)),
            Function::Several(_) => None,
        }
    }

    /// The joint value of every output for the input assignment `bits` ([`Value`]); `None`
    /// when some output's function has no value there.
    pub fn value(&self, bits: &[bool]) -> Option<Value> {
        match self {
            Function::Several(outputs) => outputs.iter().try_fold(0, |acc, o| {
                o.function.eval(bits).map(|b| (acc << 1) | Value::from(b))
            }),
            f => f.eval(bits).map(Value::from),
        }
    }

    /// How many outputs the function has (1 unless [`Function::Several`]).
    pub fn output_count(&self) -> usize {
        match self {
            Function::Several(outputs) => outputs.len(),
            _ => 1,
        }
    }

    /// Every output with its name and function ([`OutputSummary`]).
    pub fn summary(&self) -> Vec<OutputSummary> {
        match self {
            Function::Several(outputs) => outputs
                .iter()
                .map(|o| OutputSummary {
                    name: o.name.clone(),
                    function: o.function.to_string(),
                })
                .collect(),
            single => vec![OutputSummary {
                name: "f".to_owned(),
                function: single.to_string(),
            }],
        }
    }

    /// The outputs' names (empty for a single unnamed output).
    pub fn output_names(&self) -> Vec<&str> {
        match self {
            Function::Several(outputs) => outputs.iter().map(|o| o.name.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    /// A joint value as the format shows it: the bit for one output, `sum=1 carry=0` for
    /// several.
    pub fn value_text(&self, value: Value) -> String {
        match self {
            Function::Several(outputs) => {
                let m = outputs.len();
                let items: Vec<String> = outputs
                    .iter()
                    .enumerate()
                    .map(|(j, o)| format!("{}={}", o.name, u8::from(output_bit(value, j, m))))
                    .collect();
                items.join(" ")
            }
            _ => value.to_string(),
        }
    }
}

/// The index of an input assignment in binary order (first input most significant).
pub fn input_index(bits: &[bool]) -> usize {
    bits.iter().fold(0, |acc, &b| (acc << 1) | usize::from(b))
}

/// The input assignment with index `index` among `k` inputs (first input most significant).
pub fn input_bits(index: usize, k: usize) -> Vec<bool> {
    (0..k).rev().map(|j| (index >> j) & 1 == 1).collect()
}

/// One item of the starting row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutItem {
    /// An input commitment (two cards), negated (`~name`, its cards swapped) or not.
    Input {
        /// The input's name.
        name: String,
        /// Whether the commitment is negated.
        negated: bool,
    },
    /// A commitment to a constant bit (two cards).
    Constant(bool),
    /// A single helper card.
    Card(Symbol),
    /// An input committed on two given cards of a standard deck, in the encoding of \[KSK19\],
    /// or on two given kinds of a multiset deck: `cards[0] cards[1]` encodes 0 and the swapped
    /// pair encodes 1; `negated` swaps them, as `~name` does for [`LayoutItem::Input`]. Written
    /// `a(#1 #2)` / `~a(#1 #2)`, `a(♦ ♠)`.
    ///
    /// For the encoding to agree with [`decode_bit`], `cards` are two distinct numbered cards
    /// ([`Symbol::Card`]) or two distinct repeated symbols, the lower first; the parser and the
    /// analyzer reject anything else ([`LayoutItem::check_commitment_cards`]).
    InputOn {
        /// The input's name.
        name: String,
        /// Whether the commitment is negated.
        negated: bool,
        /// The two cards, lower number first: laid out in this order for the bit 0.
        cards: [Symbol; 2],
    },
    /// An input that is a number modulo `modulus`, one-hot on `modulus` cards: ♥ at position
    /// `x` (from 0, left to right) and ♣ elsewhere, for the number `x` (Shinagawa et al.
    /// \[SMS+15\]). Written `a{n}`; see [`crate::protocol::numbers`].
    Number {
        /// The input's name.
        name: String,
        /// The modulus `n`, from 2 to [`crate::protocol::MAX_CARDS`].
        modulus: usize,
    },
    /// An input bit on one card: ♥ for 1, ♣ for 0 (`~` swaps them). Written `a[1]` / `~a[1]`.
    /// Half the cards of a commitment, but the two bits are no longer the same multiset of
    /// cards, so no permutation alone can negate it (see [`encode_one_card`]).
    OneCard {
        /// The input's name.
        name: String,
        /// Whether the card encodes the negation.
        negated: bool,
    },
}

/// Why the two cards of a [`LayoutItem::InputOn`] are no standard-deck commitment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommitmentCardsError {
    /// A numbered card beside a repeated symbol (this one).
    #[error(
        "`{0}` is not a numbered card (a commitment uses two numbered cards `#n` or two \
         repeated symbols such as `♦ ♠`)"
    )]
    NotNumbered(Symbol),
    /// The two cards are the same card.
    #[error("both cards are `{0}`; a commitment needs two different cards")]
    Equal(Symbol),
    /// The higher card (number, or symbol in the order ♣ ♥ ♦ ♠ %2 …) is written first.
    #[error(
        "`{0} {1}`: write the lower card first (lower first encodes 0); for the negation \
         write `~` before the input"
    )]
    Order(Symbol, Symbol),
}

impl LayoutItem {
    /// How many cards the item occupies.
    pub fn width(&self) -> usize {
        match self {
            LayoutItem::Card(_) | LayoutItem::OneCard { .. } => 1,
            LayoutItem::Number { modulus, .. } => *modulus,
            _ => 2,
        }
    }

    /// The input the item commits, if it is an input commitment ([`LayoutItem::Input`] or
    /// [`LayoutItem::InputOn`]), with whether it is negated.
    pub fn input(&self) -> Option<(&str, bool)> {
        match self {
            LayoutItem::Input { name, negated }
            | LayoutItem::InputOn { name, negated, .. }
            | LayoutItem::OneCard { name, negated } => Some((name, *negated)),
            LayoutItem::Number { name, .. } => Some((name, false)),
            _ => None,
        }
    }

    /// Checks the two cards of a standard-deck commitment: two numbered cards, different, the
    /// lower number first.
    pub fn check_commitment_cards(cards: [Symbol; 2]) -> Result<(), CommitmentCardsError> {
        let [a, b] = cards;
        match (a.is_numbered(), b.is_numbered()) {
            (true, false) => Err(CommitmentCardsError::NotNumbered(b)),
            (false, true) => Err(CommitmentCardsError::NotNumbered(a)),
            _ if a == b => Err(CommitmentCardsError::Equal(a)),
            _ if a > b => Err(CommitmentCardsError::Order(a, b)),
            _ => Ok(()),
        }
    }
}

/// The `n` cards of the number `x` modulo `n` in the one-hot encoding: ♥ at position `x`, ♣
/// elsewhere.
pub fn encode_number(x: usize, n: usize) -> impl Iterator<Item = Symbol> {
    (0..n).map(move |j| if j == x { Symbol::Heart } else { Symbol::Club })
}

/// The one card of a bit in the one-card encoding: ♥ for 1, ♣ for 0.
pub fn encode_one_card(bit: bool) -> Symbol {
    if bit {
        Symbol::Heart
    } else {
        Symbol::Club
    }
}

/// Decodes a one-card output: `Some(1)` for ♥, `Some(0)` for ♣, `None` for any other card.
pub fn decode_one_card(card: Symbol) -> Option<bool> {
    match card {
        Symbol::Heart => Some(true),
        Symbol::Club => Some(false),
        _ => None,
    }
}

/// The number the cards at `positions` hold one-hot: the index of the single ♥ among them,
/// every other card ♣; `None` otherwise.
pub fn decode_number(row: &[Symbol], positions: &[usize]) -> Option<usize> {
    let mut hearts = positions
        .iter()
        .enumerate()
        .filter(|(_, &p)| row[p] == Symbol::Heart);
    let (value, _) = hearts.next()?;
    let clubs = positions
        .iter()
        .filter(|&&p| row[p] == Symbol::Club)
        .count();
    (hearts.next().is_none() && clubs + 1 == positions.len()).then_some(value)
}

/// The two cards of a commitment to `bit`: ♣♥ encodes 0, ♥♣ encodes 1.
pub fn encode_bit(bit: bool) -> [Symbol; 2] {
    if bit {
        [Symbol::Heart, Symbol::Club]
    } else {
        [Symbol::Club, Symbol::Heart]
    }
}

/// The two cards of a commitment to `bit` on the standard-deck cards `cards` \[KSK19\]:
/// `cards` in the given order for 0, swapped for 1.
pub fn encode_bit_on(bit: bool, cards: [Symbol; 2]) -> [Symbol; 2] {
    if bit {
        [cards[1], cards[0]]
    } else {
        cards
    }
}

/// Decodes a commitment: `Some(0)` for ♣♥, `Some(1)` for ♥♣; on two numbered cards of a
/// standard deck \[KSK19\] or two different repeated symbols of a multiset deck, `Some(0)`
/// when the lower card (in the order of [`Symbol`]: ♣ ♥ ♦ ♠ %2 …, numbers ascending) lies first
/// and `Some(1)` when the higher one does. `None` otherwise (two equal cards, ♣♣, a
/// numbered/repeated mix).
///
/// Decoding a single pair cannot see the *basis* rule (the same two cards in every run); see
/// [`result_basis`].
pub fn decode_bit([x, y]: [Symbol; 2]) -> Option<bool> {
    (x != y && x.is_numbered() == y.is_numbered()).then_some(x > y)
}

/// The *basis* of an output: the unordered pair, lower card first. `None` for two ♣/♥ cards
/// (two-colour results have no basis to check: a correct one is always {♣, ♥}).
pub fn result_basis([x, y]: [Symbol; 2]) -> Option<[Symbol; 2]> {
    (!x.is_two_colour() || !y.is_two_colour()).then(|| [x.min(y), x.max(y)])
}

/// An action with the place it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// What to do.
    pub kind: ActionKind,
    /// Where it was written.
    pub span: Span,
}

impl ActionKind {
    /// Whether the action is one of the private model's.
    pub fn is_private(&self) -> bool {
        matches!(
            self,
            ActionKind::PrivatePerm { .. }
                | ActionKind::PrivateShuffle { .. }
                | ActionKind::PrivateLook { .. }
                | ActionKind::PrivateReverse { .. }
        )
    }

    /// How many permutations the validated action holds, besides a generated group's
    /// elements: each one written (a `perm`, a set's members, the generators, a private
    /// perm's two), a cut's rotations, a bisection's or a private reverse's two. This is what
    /// [`crate::protocol::MAX_PERM_ENTRIES`] counts, with the cards.
    pub fn held_perms(&self) -> usize {
        match self {
            ActionKind::Perm(_) => 1,
            ActionKind::Shuffle(s) | ActionKind::PrivateShuffle { shuffle: s, .. } => {
                s.written_perms() + s.expanded_perms()
            }
            ActionKind::PrivatePerm { .. } | ActionKind::PrivateReverse { .. } => 2,
            _ => 0,
        }
    }
}

impl Action {
    /// An action built in code (no source position).
    pub fn new(kind: ActionKind) -> Action {
        Action {
            kind,
            span: Span::default(),
        }
    }
}

/// The actions of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// A public rearrangement.
    Perm(Perm),
    /// A shuffle: a permutation drawn from a set by a distribution, hidden from everyone.
    Shuffle(Shuffle),
    /// Turn the cards at these positions face up, everyone looks, turn them face down again;
    /// then branch on what was seen (`None`: no branches, continue with the next action).
    Turn {
        /// The positions turned (0-indexed), in the order written.
        positions: Vec<usize>,
        /// The branches, one per observation (symbols in position order).
        branches: Option<Vec<Branch>>,
    },
    /// Committed output at these position pairs (several for `copy`).
    Result(Vec<(usize, usize)>),
    /// `result P1 … Pn` for a number output modulo `n`: the output is committed one-hot on
    /// these positions (0-indexed, in the order written), ♥ at the value.
    ResultNumber(Vec<usize>),
    /// `result P`: the one output bit committed on one card at this position (0-indexed), ♥
    /// for 1 and ♣ for 0 ([`decode_one_card`]).
    ResultCard(usize),
    /// A loop target of a restart-free Las Vegas protocol.
    Label(String),
    /// Jump to a label.
    Goto(String),
    /// Start over with fresh input commitments (Las Vegas with restart).
    Restart,
    /// A private input permutation (the private model of Marcedone–Wen–Shi and
    /// Nakai–Misawa–Tokushige–Iwamoto–Ohta \[NMTIO22\]): the player who holds input `input`
    /// rearranges the cards where nobody else sees, by `perms[0]` when his bit is 0 and by
    /// `perms[1]` when it is 1. Nobody observes anything; his input need not be laid out.
    PrivatePerm {
        /// The input whose holder acts, and whose bit chooses the permutation.
        input: String,
        /// The permutation for the bit 0 and for the bit 1.
        perms: [Perm; 2],
        /// The bit that chooses: `None` for the holder's input bit, or a private bit he drew or
        /// saw earlier (`by r`, see [`ActionKind::PrivateShuffle`]).
        by: Option<String>,
    },
    /// A private random operation (the private random cuts and bisections of Ono–Manabe
    /// \[OM21\]): the holder of input `input` draws a permutation from `shuffle` where nobody
    /// else sees and applies it. He knows which one he drew; nobody else does. `bit` names his
    /// draw when the shuffle has exactly two permutations (`as r`: 0 for the first in the
    /// order of the support, the identity for a bisection), for later choices `by r`.
    PrivateShuffle {
        /// The input whose holder acts.
        input: String,
        /// What he draws from.
        shuffle: Shuffle,
        /// The name of the bit he drew, if named.
        bit: Option<String>,
    },
    /// A private look (Ono–Manabe's private reveal): the holder of input `input` looks at the
    /// cards at `positions` (sorted, 0-indexed) and puts them back face down. His view holds
    /// what he saw; every other player's view holds nothing. `bit` names the bit of the
    /// commitment he looked at (two positions), for later choices `by x`.
    PrivateLook {
        /// The input whose holder looks.
        input: String,
        /// The positions looked at, sorted.
        positions: Vec<usize>,
        /// The name of the bit he saw, if named.
        bit: Option<String>,
    },
    /// A private reverse (Ono–Manabe's private reverse cut): the holder of input `input`
    /// reverses the order of the cards at `positions` (the card at the first goes to the last,
    /// and so on), either by a bit he knows or at random.
    PrivateReverse {
        /// The input whose holder acts.
        input: String,
        /// The positions whose cards are reversed, in the order written.
        positions: Vec<usize>,
        /// Whether he reverses by a bit he knows or at random.
        choice: PrivateChoice,
    },
}

/// How a private reverse is chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrivateChoice {
    /// By a bit the holder knows: his input (`None`, `private a reverse … by a`) or a private bit
    /// he drew or saw (`by r`); he reverses when it is 1.
    By(Option<String>),
    /// At random, seen only by him; `Some(r)` names the bit he drew (1: reversed).
    Random(Option<String>),
}

/// The permutation that reverses the order of the cards at `positions` (0-indexed) on `n`
/// cards: the card at `positions[j]` goes to `positions[k − 1 − j]`.
pub fn reversal(n: usize, positions: &[usize]) -> Result<Perm, ShuffleError> {
    let k = positions.len();
    let mut images: Vec<usize> = (0..n).collect();
    for (j, &p) in positions.iter().enumerate() {
        let Some(slot) = images.get_mut(p) else {
            return Err(ShuffleError::Size {
                got: p + 1,
                cards: n,
            });
        };
        *slot = positions[k - 1 - j];
    }
    Perm::from_images(images).map_err(ShuffleError::from)
}

/// One branch of a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    /// The symbols seen on the turned cards, in position order.
    pub observation: Vec<Symbol>,
    /// What to do after this observation.
    pub body: Vec<Action>,
    /// Where the branch was written.
    pub span: Span,
}

/// A shuffle, kept in the form it was written so that it prints back the same way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shuffle {
    /// `shuffle {P1, P2, …}` (uniform, `weights` is `None`) or `shuffle {P1: w1, …}`.
    Set {
        /// The permutations.
        perms: Vec<Perm>,
        /// Their rational weights, when given (they must sum to 1).
        weights: Option<Vec<Q>>,
    },
    /// `shuffle <G1, G2, …>`: uniform over the generated group.
    Generated(Vec<Perm>),
    /// `shuffle cut P1 … Pk`: uniform over the cyclic rotations of the cards at these positions.
    Cut(Vec<usize>),
    /// `shuffle bisect P1 … Pm | Q1 … Qm`: swap the two halves with probability 1/2.
    Bisect(Vec<usize>, Vec<usize>),
}

/// Why a shuffle has no valid distribution.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShuffleError {
    /// The weights do not sum to 1.
    #[error("shuffle weights sum to {0}, not 1")]
    WeightsSum(Q),
    /// A weight is negative.
    #[error("shuffle weight {0} is negative")]
    NegativeWeight(Q),
    /// The number of weights differs from the number of permutations.
    #[error("{perms} permutations but {weights} weights")]
    WeightCount {
        /// Permutations listed.
        perms: usize,
        /// Weights listed.
        weights: usize,
    },
    /// The shuffle lists no permutation.
    #[error("a shuffle needs at least one permutation")]
    Empty,
    /// A permutation acts on a different number of cards than the protocol has.
    #[error("a permutation acts on {got} positions, the protocol has {cards} cards")]
    Size {
        /// Positions of the permutation.
        got: usize,
        /// Cards of the protocol.
        cards: usize,
    },
    /// A position is out of range or repeated.
    #[error("shuffle positions: {0}")]
    Positions(#[from] facedown_core::PermError),
    /// The two halves of a bisection cut differ in length.
    #[error("bisection halves have {left} and {right} positions")]
    BisectHalves {
        /// Left half length.
        left: usize,
        /// Right half length.
        right: usize,
    },
    /// A generated group exceeds the enumeration limit.
    #[error("the generated group has more than {0} elements")]
    GroupTooLarge(usize),
    /// A weight whose numerator or denominator has more than [`MAX_WEIGHT_BITS`] bits.
    #[error(
        "shuffle weight {index} has a numerator or denominator of {bits} bits, at most \
         {MAX_WEIGHT_BITS} are supported"
    )]
    WeightTooLarge {
        /// Which weight, from 1, in the order written.
        index: usize,
        /// The bits of its larger part (reduced).
        bits: u64,
    },
    /// The common denominator of the weights has more than [`MAX_WEIGHT_BITS`] bits.
    #[error(
        "shuffle weights 1 to {index} have a common denominator of {bits} bits, at most \
         {MAX_WEIGHT_BITS} are supported"
    )]
    CommonDenominatorTooLarge {
        /// The weight that passed the limit, from 1, in the order written.
        index: usize,
        /// The bits of the common denominator with it.
        bits: u64,
    },
}

/// Largest generated group that [`Shuffle::distribution`] enumerates.
pub const MAX_GROUP: usize = 1 << 16;

/// The most bits a shuffle's weights may take: each weight's numerator and denominator, and
/// the common denominator of one shuffle's weights (the least common multiple of their
/// denominators). Summing weights exactly costs in the size of that common denominator, which
/// without a limit grows with every new prime: the 60 000 weights `1/2, 1/3, …` have one of
/// about 86 000 bits, and summing them took minutes. 256 bits (77 decimal digits) is 2^192
/// times the 2^64 the simulator samples exactly; the protocols of the papers and the library
/// need at most 7 (`3/20` and `17/80`).
pub const MAX_WEIGHT_BITS: u64 = 256;

/// The common denominator of a shuffle's weights taken so far, kept within
/// [`MAX_WEIGHT_BITS`] so that every sum of them stays small. The parser and
/// [`Shuffle::distribution`] take the same weights in the same order, so a shuffle the parser
/// accepts passes the validation.
#[derive(Clone, Debug)]
pub(crate) struct CommonDenominator {
    lcm: BigInt,
    weights: usize,
}

impl Default for CommonDenominator {
    fn default() -> CommonDenominator {
        CommonDenominator {
            lcm: BigInt::one(),
            weights: 0,
        }
    }
}

impl CommonDenominator {
    /// Takes the next weight, unless it or the common denominator with it is too large.
    pub(crate) fn take(&mut self, w: &Q) -> Result<(), ShuffleError> {
        use num_integer::Integer;
        self.weights += 1;
        let index = self.weights;
        let bits = w.numer().bits().max(w.denom().bits());
        if bits > MAX_WEIGHT_BITS {
            return Err(ShuffleError::WeightTooLarge { index, bits });
        }
        let lcm = self.lcm.lcm(w.denom());
        if lcm.bits() > MAX_WEIGHT_BITS {
            let bits = lcm.bits();
            return Err(ShuffleError::CommonDenominatorTooLarge { index, bits });
        }
        self.lcm = lcm;
        Ok(())
    }
}

impl Shuffle {
    /// The permutations written in the shuffle: a set's members (each time it is listed), the
    /// generators of a group.
    pub fn written_perms(&self) -> usize {
        match self {
            Shuffle::Set { perms, .. } => perms.len(),
            Shuffle::Generated(gens) => gens.len(),
            Shuffle::Cut(_) | Shuffle::Bisect(..) => 0,
        }
    }

    /// The permutations a cut or a bisection expands into ([`Shuffle::distribution`] builds
    /// them): a cut's rotations, a bisection's two. Nothing for a set or a group.
    pub fn expanded_perms(&self) -> usize {
        match self {
            Shuffle::Cut(positions) => positions.len(),
            Shuffle::Bisect(..) => 2,
            Shuffle::Set { .. } | Shuffle::Generated(_) => 0,
        }
    }

    /// The shuffle's support on `n` cards with exact probabilities, permutations merged when
    /// listed twice, sorted by permutation. Zero-weight entries are dropped.
    pub fn distribution(&self, n: usize) -> Result<Vec<(Perm, Q)>, ShuffleError> {
        self.distribution_within(n, MAX_GROUP)
    }

    /// [`Shuffle::distribution`] with a generated group of at most `max_group` elements
    /// (else [`ShuffleError::GroupTooLarge`]), so that a caller with a budget of permutations
    /// stops the enumeration there.
    pub fn distribution_within(
        &self,
        n: usize,
        max_group: usize,
    ) -> Result<Vec<(Perm, Q)>, ShuffleError> {
        let mut acc: BTreeMap<Perm, Q> = BTreeMap::new();
        let mut add = |p: Perm, w: Q| -> Result<(), ShuffleError> {
            if p.len() != n {
                return Err(ShuffleError::Size {
                    got: p.len(),
                    cards: n,
                });
            }
            *acc.entry(p).or_insert_with(Q::zero) += w;
            Ok(())
        };
        match self {
            Shuffle::Set { perms, weights } => {
                if perms.is_empty() {
                    return Err(ShuffleError::Empty);
                }
                match weights {
                    None => {
                        let w = Q::new(BigInt::one(), BigInt::from(perms.len()));
                        for p in perms {
                            add(p.clone(), w.clone())?;
                        }
                    }
                    Some(ws) => {
                        if ws.len() != perms.len() {
                            return Err(ShuffleError::WeightCount {
                                perms: perms.len(),
                                weights: ws.len(),
                            });
                        }
                        let mut total = Q::zero();
                        let mut common = CommonDenominator::default();
                        for (p, w) in perms.iter().zip(ws) {
                            if *w < Q::zero() {
                                return Err(ShuffleError::NegativeWeight(w.clone()));
                            }
                            common.take(w)?;
                            total += w;
                            add(p.clone(), w.clone())?;
                        }
                        if !total.is_one() {
                            return Err(ShuffleError::WeightsSum(total));
                        }
                    }
                }
            }
            Shuffle::Generated(gens) => {
                let group = generate_group_within(n, gens, max_group)?;
                let w = Q::new(BigInt::one(), BigInt::from(group.len()));
                for p in group {
                    add(p, w.clone())?;
                }
            }
            Shuffle::Cut(positions) => {
                let rotations = cut_rotations(n, positions)?;
                let w = Q::new(BigInt::one(), BigInt::from(rotations.len()));
                for p in rotations {
                    add(p, w.clone())?;
                }
            }
            Shuffle::Bisect(left, right) => {
                if left.len() != right.len() {
                    return Err(ShuffleError::BisectHalves {
                        left: left.len(),
                        right: right.len(),
                    });
                }
                let cycles: Vec<Vec<usize>> = left
                    .iter()
                    .zip(right)
                    .map(|(&a, &b)| vec![a + 1, b + 1])
                    .collect();
                let swap = Perm::from_cycles(n, &cycles)?;
                let half = Q::new(BigInt::one(), BigInt::from(2));
                add(Perm::identity(n), half.clone())?;
                add(swap, half)?;
            }
        }
        acc.retain(|_, w| !w.is_zero());
        Ok(acc.into_iter().collect())
    }
}

/// The cyclic rotations of the cards at `positions` (0-indexed): rotation `r` moves the card at
/// `positions[j]` to `positions[(j + r) mod k]`. Rotation 0 is the identity.
pub fn cut_rotations(n: usize, positions: &[usize]) -> Result<Vec<Perm>, ShuffleError> {
    let k = positions.len();
    if k == 0 {
        return Err(ShuffleError::Empty);
    }
    // Validate range and distinctness once.
    Perm::from_cycles(n, &[positions.iter().map(|p| p + 1).collect()])?;
    (0..k)
        .map(|r| {
            let mut images: Vec<usize> = (0..n).collect();
            for j in 0..k {
                images[positions[j]] = positions[(j + r) % k];
            }
            Perm::from_images(images).map_err(ShuffleError::from)
        })
        .collect()
}

/// The group generated by `gens` on `n` positions, by breadth-first closure, sorted; at most
/// [`MAX_GROUP`] elements.
pub fn generate_group(n: usize, gens: &[Perm]) -> Result<Vec<Perm>, ShuffleError> {
    generate_group_within(n, gens, MAX_GROUP)
}

/// [`generate_group`] with at most `max` elements, else [`ShuffleError::GroupTooLarge`]
/// (checked before the elements over the limit are made).
///
/// Dimino's algorithm: the generators are added one at a time. One already in the group
/// generated so far adds nothing and costs a look-up; each other one at least doubles the
/// group (Lagrange), so at most `log2(max) + 1` are closed over, and repeated or redundant
/// generators cannot make the closure slow.
pub fn generate_group_within(
    n: usize,
    gens: &[Perm],
    max: usize,
) -> Result<Vec<Perm>, ShuffleError> {
    for g in gens {
        if g.len() != n {
            return Err(ShuffleError::Size {
                got: g.len(),
                cards: n,
            });
        }
    }
    if max == 0 {
        return Err(ShuffleError::GroupTooLarge(max));
    }
    let mut group = BTreeSet::from([Perm::identity(n)]);
    let mut needed: Vec<&Perm> = Vec::new();
    for g in gens {
        if !group.contains(g) {
            needed.push(g);
            add_cosets(n, &mut group, &needed, max)?;
        }
    }
    Ok(group.into_iter().collect())
}

/// One step of Dimino's algorithm: `group` is a group `H` closed under every generator but the
/// last; it becomes the group all of `gens` generate. That group is a union of cosets `x ∘ H`,
/// and a generator maps a coset to a coset (`s ∘ (x ∘ H) = (s ∘ x) ∘ H`), so it is enough to
/// multiply the cosets' representatives by the generators, adding a whole coset for each new
/// representative.
fn add_cosets(
    n: usize,
    group: &mut BTreeSet<Perm>,
    gens: &[&Perm],
    max: usize,
) -> Result<(), ShuffleError> {
    let subgroup: Vec<Perm> = group.iter().cloned().collect();
    let compose = |a: &Perm, b: &Perm| {
        a.compose(b).map_err(|_| ShuffleError::Size {
            got: a.len(),
            cards: n,
        })
    };
    let mut reps = vec![Perm::identity(n)];
    let mut next = 0;
    while let Some(rep) = reps.get(next).cloned() {
        next += 1;
        for s in gens {
            let y = compose(s, &rep)?;
            if group.contains(&y) {
                continue;
            }
            // A new coset, disjoint from the others.
            if group.len().saturating_add(subgroup.len()) > max {
                return Err(ShuffleError::GroupTooLarge(max));
            }
            for h in &subgroup {
                group.insert(compose(&y, h)?);
            }
            reps.push(y);
        }
    }
    Ok(())
}

/// One observation of a view: a turn and the symbols it showed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Observation {
    /// The turn.
    pub span: Span,
    /// The symbols seen, in position order.
    pub symbols: Vec<Symbol>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_of_five_has_five_rotations() {
        let rot = cut_rotations(5, &[0, 1, 2, 3, 4]).expect("valid");
        assert_eq!(rot.len(), 5);
        assert!(rot[0].is_identity());
        assert_eq!(rot[1].to_string(), "(1 2 3 4 5)");
    }

    #[test]
    fn weighted_shuffle_must_sum_to_one() {
        let id = Perm::identity(4);
        let s = Shuffle::Set {
            perms: vec![id.clone(), Perm::parse_cycles(4, "(1 2)").expect("valid")],
            weights: Some(vec![Q::new(1.into(), 3.into()), Q::new(1.into(), 3.into())]),
        };
        assert!(matches!(
            s.distribution(4),
            Err(ShuffleError::WeightsSum(_))
        ));
    }

    #[test]
    fn generated_group_of_a_transposition_and_a_cycle_is_symmetric() {
        let gens = vec![
            Perm::parse_cycles(4, "(1 2)").expect("valid"),
            Perm::parse_cycles(4, "(1 2 3 4)").expect("valid"),
        ];
        assert_eq!(generate_group(4, &gens).expect("small").len(), 24);
    }

    #[test]
    fn repeated_and_redundant_generators_generate_the_group_of_the_others() {
        let t = |c: &str| Perm::parse_cycles(16, c).expect("valid");
        let mut gens: Vec<Perm> = (0..8)
            .map(|i| t(&format!("({} {})", 2 * i + 1, 2 * i + 2)))
            .collect();
        gens.extend(std::iter::repeat_n(t("(1 2)(3 4)"), 10_000));
        gens.push(Perm::identity(16));
        assert_eq!(generate_group(16, &gens).expect("2^8 elements").len(), 256);
    }

    /// The closure of the identity under left multiplication by `gens`, the plain way.
    fn breadth_first_group(n: usize, gens: &[Perm]) -> Vec<Perm> {
        let mut seen = BTreeSet::from([Perm::identity(n)]);
        let mut queue = vec![Perm::identity(n)];
        while let Some(p) = queue.pop() {
            for g in gens {
                let q = g.compose(&p).expect("same size");
                if seen.insert(q.clone()) {
                    queue.push(q);
                }
            }
        }
        seen.into_iter().collect()
    }

    #[test]
    fn dimino_finds_the_group_the_breadth_first_closure_finds() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        for n in 1..=6 {
            for count in 0..4 {
                let gens: Vec<Perm> = (0..count)
                    .map(|_| Perm::random_with_rng(n, &mut rng))
                    .collect();
                let want = breadth_first_group(n, &gens);
                assert_eq!(generate_group(n, &gens).as_ref(), Ok(&want), "{gens:?}");
            }
        }
    }

    #[test]
    fn a_group_larger_than_the_limit_given_is_refused() {
        let gens = vec![
            Perm::parse_cycles(4, "(1 2)").expect("valid"),
            Perm::parse_cycles(4, "(1 2 3 4)").expect("valid"),
        ];
        assert_eq!(generate_group_within(4, &gens, 24).map(|g| g.len()), Ok(24));
        assert_eq!(
            generate_group_within(4, &gens, 23),
            Err(ShuffleError::GroupTooLarge(23))
        );
        assert_eq!(
            generate_group_within(4, &[], 0),
            Err(ShuffleError::GroupTooLarge(0))
        );
    }

    #[test]
    fn functions_follow_binary_order() {
        assert_eq!(input_bits(2, 2), vec![true, false]);
        assert_eq!(input_index(&[true, false]), 2);
        let and = Function::Table(vec![false, false, false, true]);
        for k in 0..4 {
            let bits = input_bits(k, 2);
            assert_eq!(
                and.eval(&bits),
                Function::Named(NamedFunction::And).eval(&bits)
            );
        }
    }

    #[test]
    fn commitments_encode_as_in_the_format() {
        assert_eq!(encode_bit(false), [Symbol::Club, Symbol::Heart]);
        assert_eq!(decode_bit(encode_bit(true)), Some(true));
        assert_eq!(decode_bit([Symbol::Club, Symbol::Club]), None);
    }

    #[test]
    fn every_function_keyword_names_its_function_and_nothing_else_does() {
        for f in NamedFunction::ALL {
            assert_eq!(NamedFunction::from_keyword(f.keyword()), Some(f));
        }
        assert_eq!(NamedFunction::from_keyword("AND"), None);
        assert_eq!(NamedFunction::from_keyword("copy"), None);
    }

    #[test]
    fn standard_deck_commitments_read_lower_card_first_as_zero_ksk19() {
        let (c1, c2, c7) = (Symbol::Card(1), Symbol::Card(2), Symbol::Card(7));
        assert_eq!(decode_bit([c1, c2]), Some(false));
        assert_eq!(decode_bit([c7, c2]), Some(true));
        assert_eq!(decode_bit([c2, c2]), None);
        assert_eq!(decode_bit([Symbol::Club, c2]), None);
        assert_eq!(decode_bit([c2, Symbol::Heart]), None);
        for bit in [false, true] {
            assert_eq!(decode_bit(encode_bit_on(bit, [c2, c7])), Some(bit));
        }
        assert_eq!(result_basis([c7, c2]), Some([c2, c7]));
        assert_eq!(result_basis([Symbol::Heart, Symbol::Club]), None);
    }

    #[test]
    fn input_on_lays_its_cards_swapped_for_one_and_when_negated() {
        let p = crate::protocol::Protocol::new(crate::protocol::ProtocolParts {
            name: "p".into(),
            inputs: vec!["a".into()],
            function: Function::Copy,
            layout: vec![
                LayoutItem::InputOn {
                    name: "a".into(),
                    negated: true,
                    cards: [Symbol::Card(3), Symbol::Card(5)],
                },
                LayoutItem::Card(Symbol::Card(1)),
            ],
            body: Vec::new(),
            claim: None,
        })
        .expect("a valid protocol");
        assert_eq!(p.cards(), 3);
        let (c1, c3, c5) = (Symbol::Card(1), Symbol::Card(3), Symbol::Card(5));
        assert_eq!(p.initial_row(&[false]), Some(vec![c5, c3, c1]));
        assert_eq!(p.initial_row(&[true]), Some(vec![c3, c5, c1]));
    }

    #[test]
    fn commitment_cards_must_be_two_numbered_cards_lower_first() {
        let (c1, c2) = (Symbol::Card(1), Symbol::Card(2));
        assert_eq!(LayoutItem::check_commitment_cards([c1, c2]), Ok(()));
        assert_eq!(
            LayoutItem::check_commitment_cards([c2, c1]),
            Err(CommitmentCardsError::Order(c2, c1))
        );
        assert_eq!(
            LayoutItem::check_commitment_cards([c2, c2]),
            Err(CommitmentCardsError::Equal(c2))
        );
        assert_eq!(
            LayoutItem::check_commitment_cards([c1, Symbol::Heart]),
            Err(CommitmentCardsError::NotNumbered(Symbol::Heart))
        );
        assert_eq!(
            LayoutItem::check_commitment_cards([Symbol::Club, c1]),
            Err(CommitmentCardsError::NotNumbered(Symbol::Club))
        );
    }
}
