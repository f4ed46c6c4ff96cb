//! The built-in protocols, each with the verdict the literature (or a hand check) claims for it.
//!
//! Every protocol is also shipped as `crates/cards/protocols/NAME.cards` (embedded here with
//! `include_str!`), so the files the CLI reads and the protocols the tests check are the same
//! text. Each file's comments say where it comes from and what it claims.
//!
//! | name | source | function | claim |
//! |---|---|---|---|
//! | `five-card-trick` | \[dB89\] | AND, non-committed | correct, perfect, finite, 1 shuffle |
//! | `mks-four-card-and` | \[MKS12\] | AND, non-committed | correct, perfect, finite, 2 shuffles |
//! | `ms09-six-card-and` | \[MS09\] | AND, committed | correct, perfect, finite, 1 shuffle |
//! | `ms09-four-card-xor` | \[MS09\] | XOR, committed | correct, perfect, finite, 1 shuffle |
//! | `four-card-las-vegas-and` | after \[KWH15\] | AND, committed | correct, perfect, Las Vegas, 8 expected |
//! | `five-card-trick-or` | \[dB89\], De Morgan | OR, non-committed | correct, perfect, finite, 1 |
//! | `mks-four-card-or` | \[MKS12\], De Morgan | OR, non-committed | correct, perfect, finite, 2 |
//! | `ms09-six-card-nand` | \[MS09\], output swapped | NAND, committed | correct, perfect, finite, 1 |
//! | `ms09-six-card-or` | \[MS09\], De Morgan | OR, committed | correct, perfect, finite, 1 |
//! | `ms09-copy` | \[MS09\] | COPY, committed | correct, perfect, finite, 1 |
//! | `five-card-trick-no-cut` | negative example | AND | correct, **insecure**, 0 shuffles |
//! | `mks-without-first-shuffle` | negative example | AND | correct, **insecure**, 1 shuffle |
//! | `five-card-trick-biased-cut` | \[dB89\] with the bias of \[KC25\] | AND | correct, input-possibilistic, 1 |
//! | `toy-restart-xor` | toy, around \[MS09\] | XOR, committed | correct, perfect, Las Vegas with restart, 3 expected |
//! | `ms09-xor-four-colours` | \[MS09\] on the deck of \[CK93\] | XOR, committed | correct, perfect, finite, 1 |
//! | `five-card-trick-third-colour` | negative example, multiset deck | AND | correct, **insecure**, 1 |
//! | `ms09-and-helper-in-other-colours` | negative example, multiset deck | AND, committed | **incorrect** (basis), **insecure**, 1 |
//! | `private-three-card-and` | \[NMTIO22\], private model | AND, non-committed | correct, perfect, finite, 0 |
//! | `private-three-card-and-extra-turn` | negative example, private model | AND | correct, **insecure** (Bob learns a), 0 |
//! | `private-four-card-majority` | \[NMTIO22\], private model | majority of three, non-committed | correct, perfect, finite, 0 |
//! | `private-four-card-majority-two-turned` | negative example, private model | majority of three | correct, **insecure** (the count of 1s shows), 0 |
//! | `private-two-card-and` | after \[NMTIO22\], one card per bit | AND, committed on one card | correct, perfect, finite, 0 |
//! | `private-two-card-and-leftover-turned` | negative example, one card per bit | AND, committed | correct, **insecure** (the other card is a when b = 0), 0 |
//! | `one-card-five-card-trick-attempt` | negative example, one card per bit, public model | AND, non-committed | correct, **insecure** (the count of 1s shows), 1 |
//! | `half-adder` | after \[MS09\] (COPY, then the AND's selector) | sum = XOR, carry = AND, committed | correct, perfect, finite, 2 |
//! | `half-adder-sum-not-negated` | negative example, several outputs | sum, carry | **incorrect** (the sum), perfect, 2 |
//! | `and-or-at-once` | after \[MS09\] | AND and OR, committed | correct, perfect, finite, 2 |
//! | `and-or-at-once-copy-unshuffled` | negative example, several outputs | AND and OR | correct, **insecure**, 1 |
//! | `toy-mixed-and` | toy, around \[MS09\] | AND, mixed endings | correct, perfect, finite, 2 |
//! | `toy-mixed-and-peek` | negative example, mixed endings | AND | correct, **insecure** (the committed ending tells the output), 1 |
//! | `ono-manabe-xor` | \[OM21\], private model | XOR, committed | correct, perfect, finite, 0 |
//! | `ono-manabe-and` | after \[OM21\], private model | AND, committed | correct, perfect, finite, 0 |
//! | `ono-manabe-copy` | \[OM21\], private model | COPY (2 copies), committed | correct, perfect, finite, 0 |
//! | `five-card-trick-private-cuts` | \[dB89\], private cuts | AND, non-committed | correct, perfect, finite, 0 |
//! | `five-card-trick-one-private-cut` | negative example, private model | AND | correct, **insecure** (Alice learns b), 0 |
//! | `ono-manabe-xor-early-look` | negative example, private model | XOR, committed | correct, **insecure** (Bob looks at a), 0 |
//! | `ono-manabe-xor-turned-mask` | negative example, private model | XOR, committed | correct, **insecure** (both learn), 0 |
//! | `one-hot-add-mod-3` | \[SMS+15\], one-hot numbers | x + y mod 3, committed | correct, perfect, finite, 1 |
//! | `one-hot-add-mod-3-biased-shift` | negative example, numbers | x + y mod 3 | correct, **output-possibilistic** (the turn tells about y), 1 |
//! | `one-hot-add-mod-3-one-row-shifted` | negative example, numbers | x + y mod 3 | **incorrect**, perfect, 1 |
//!
//! The multiset protocols (`protocols/multiset/`) use cards of more than two kinds; the private
//! ones (`protocols/private/`) act where only one player sees; those of `protocols/outputs/`
//! have several outputs or mixed endings; those of `protocols/numbers/` take numbers modulo `n`
//! (one-hot, `a{n}`); those of `protocols/one-card/` lay a bit on one card (`a[1]`). Not every
//! backend runs every protocol, and each refuses with a typed error: the analyzer and the state
//! tree run every built-in, and so do the simulator (compiled for the ♣/♥ decks, general for
//! any other) and the tracer (numbers by their values); the face-down tables
//! ([`crate::on_table`]) have no private operation, read bits, and deal a deck of known cards,
//! so they refuse numbers and one-card inputs. Several outputs run everywhere.
//!
//! Each file states its claim on its `claim` line ([`crate::claim`]), typed when read:
//! [`Builtin::claim`] is what the analyzer ([`crate::analyze`]) is expected to report, and every
//! library claim states every verdict ([`Claim::is_complete`]). The library only states them;
//! the tests and the headline report check them.

use std::path::PathBuf;

use facedown_core::input::{read_text, InputError};

use serde::Serialize;

use crate::analyze::{Runtime, Security};
use crate::claim::Claim;
use crate::model::OutputSummary;
use crate::parse::{parse, ParseError};
use crate::protocol::Protocol;

/// A protocol that ships with facedown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Builtin {
    /// The name, equal to the `protocol` line and the file name without `.cards`.
    pub name: &'static str,
    /// The `.cards` text (with its comments).
    pub source: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// The bibliography key of the paper it comes from (`"dB89"`).
    pub citation: &'static str,
    /// Whether the protocol is a deliberately broken example (a test that it *fails*).
    pub negative_example: bool,
}

impl Builtin {
    /// The parsed protocol.
    ///
    /// # Panics
    /// Never for the shipped protocols: the tests parse every built-in source. (Use [`load`] for
    /// a `Result`.)
    pub fn protocol(&self) -> Protocol {
        parse(self.source).expect("built-in protocols parse (checked by the tests)")
    }

    /// The published or expected verdict: the file's `claim` line.
    ///
    /// # Panics
    /// Never for the shipped protocols (the tests check that each parses and states a
    /// complete claim).
    pub fn claim(&self) -> Claim {
        self.protocol().claim().cloned().unwrap_or_default()
    }

    /// Whether the compiled simulator ([`crate::simulate`]) runs it: a ♣/♥ deck (it refuses
    /// the others with a typed error, and the general simulator runs them).
    pub fn simulable(&self) -> bool {
        let p = self.protocol();
        (0..p.input_count()).all(|i| p.start_row(i).iter().all(|s| s.is_two_colour()))
    }
}

static BUILTINS: [Builtin; 40] = [
    Builtin {
        name: "five-card-trick",
        source: include_str!("../protocols/five-card-trick.cards"),
        summary: "den Boer's five-card trick: AND with one random cut, output read from the row",
        citation: "dB89",
        negative_example: false,
    },
    Builtin {
        name: "mks-four-card-and",
        source: include_str!("../protocols/mks-four-card-and.cards"),
        summary: "Mizuki–Kumamoto–Sone: non-committed AND with four cards and two shuffles",
        citation: "MKS12",
        negative_example: false,
    },
    Builtin {
        name: "ms09-six-card-and",
        source: include_str!("../protocols/ms09-six-card-and.cards"),
        summary: "Mizuki–Sone: committed AND with six cards and one random bisection cut",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "ms09-four-card-xor",
        source: include_str!("../protocols/ms09-four-card-xor.cards"),
        summary: "Mizuki–Sone: committed XOR with four cards and one random bisection cut",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "four-card-las-vegas-and",
        source: include_str!("../protocols/four-card-las-vegas-and.cards"),
        summary: "restart-free Las Vegas committed AND with four cards and non-uniform closed \
                  shuffles; 8 shuffles in expectation",
        citation: "KWH15",
        negative_example: false,
    },
    Builtin {
        name: "five-card-trick-or",
        source: include_str!("../protocols/five-card-trick-or.cards"),
        summary: "the five-card trick on negated inputs (layout a ♥ ~b): OR by De Morgan",
        citation: "dB89",
        negative_example: false,
    },
    Builtin {
        name: "mks-four-card-or",
        source: include_str!("../protocols/mks-four-card-or.cards"),
        summary: "the Mizuki–Kumamoto–Sone protocol on negated inputs: OR by De Morgan",
        citation: "MKS12",
        negative_example: false,
    },
    Builtin {
        name: "ms09-six-card-nand",
        source: include_str!("../protocols/ms09-six-card-nand.cards"),
        summary: "the Mizuki–Sone committed AND with its output pair read swapped: NAND",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "ms09-six-card-or",
        source: include_str!("../protocols/ms09-six-card-or.cards"),
        summary: "the Mizuki–Sone committed AND on negated inputs, output swapped: OR by De Morgan",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "ms09-copy",
        source: include_str!("../protocols/ms09-copy.cards"),
        summary: "Mizuki–Sone COPY: two commitments to the input with six cards and one bisection",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "five-card-trick-no-cut",
        source: include_str!("../protocols/five-card-trick-no-cut.cards"),
        summary: "NEGATIVE: the five-card trick without its cut shows the inputs",
        citation: "dB89",
        negative_example: true,
    },
    Builtin {
        name: "mks-without-first-shuffle",
        source: include_str!("../protocols/mks-without-first-shuffle.cards"),
        summary: "NEGATIVE: Mizuki–Kumamoto–Sone without the first shuffle tells 01 from 10",
        citation: "MKS12",
        negative_example: true,
    },
    Builtin {
        name: "five-card-trick-biased-cut",
        source: include_str!("../protocols/five-card-trick-biased-cut.cards"),
        summary: "the five-card trick with a cut biased by ε = 1/20 (identity 3/20, other \
                  rotations 17/80): leaks in distribution, not in possibility",
        citation: "KC25",
        negative_example: false,
    },
    Builtin {
        name: "toy-restart-xor",
        source: include_str!("../protocols/toy-restart-xor.cards"),
        summary: "a toy Las Vegas protocol with restart: a fair coin of two helper cards, then \
                  the Mizuki–Sone XOR or a restart; 3 shuffles in expectation",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "ms09-xor-four-colours",
        source: include_str!("../protocols/multiset/ms09-xor-four-colours.cards"),
        summary: "the Mizuki–Sone committed XOR with b on ♦♠, two more colours of a \
                  Crépeau–Kilian deck",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "five-card-trick-third-colour",
        source: include_str!("../protocols/multiset/five-card-trick-third-colour.cards"),
        summary: "NEGATIVE: the five-card trick with its helper in a third colour, which marks \
                  where the row starts",
        citation: "dB89",
        negative_example: true,
    },
    Builtin {
        name: "ms09-and-helper-in-other-colours",
        source: include_str!("../protocols/multiset/ms09-and-helper-in-other-colours.cards"),
        summary: "NEGATIVE: the Mizuki–Sone committed AND with its helper on ♦♠: the output's \
                  colours show a",
        citation: "MS09",
        negative_example: true,
    },
    Builtin {
        name: "private-three-card-and",
        source: include_str!("../protocols/private/private-three-card-and.cards"),
        summary: "Nakai et al.: AND of two private bits with three cards, two private \
                  permutations and no shuffle",
        citation: "NMTIO22",
        negative_example: false,
    },
    Builtin {
        name: "private-three-card-and-extra-turn",
        source: include_str!("../protocols/private/private-three-card-and-extra-turn.cards"),
        summary: "NEGATIVE: the private three-card AND with the middle card turned too: Bob \
                  with b = 0 learns a",
        citation: "NMTIO22",
        negative_example: true,
    },
    Builtin {
        name: "private-four-card-majority",
        source: include_str!("../protocols/private/private-four-card-majority.cards"),
        summary: "majority of three private bits on four cards: each holder turns the row by \
                  his bit, one card is turned",
        citation: "NMTIO22",
        negative_example: false,
    },
    Builtin {
        name: "private-four-card-majority-two-turned",
        source: include_str!("../protocols/private/private-four-card-majority-two-turned.cards"),
        summary: "NEGATIVE: the four-card majority with a second card turned: the two show how \
                  many bits are 1",
        citation: "NMTIO22",
        negative_example: true,
    },
    Builtin {
        name: "private-two-card-and",
        source: include_str!("../protocols/one-card/private-two-card-and.cards"),
        summary: "AND on two cards with Alice's bit on one card (♥ = 1): Bob swaps the cards \
                  behind his back when b = 0; the left card is the output, face down",
        citation: "NMTIO22",
        negative_example: false,
    },
    Builtin {
        name: "private-two-card-and-leftover-turned",
        source: include_str!("../protocols/one-card/private-two-card-and-leftover-turned.cards"),
        summary: "NEGATIVE: the two-card AND with the other card turned: it is Alice's card when \
                  b = 0",
        citation: "NMTIO22",
        negative_example: true,
    },
    Builtin {
        name: "one-card-five-card-trick-attempt",
        source: include_str!("../protocols/one-card/one-card-five-card-trick-attempt.cards"),
        summary: "NEGATIVE: the five-card trick's cut on one card per bit in the public model: \
                  the turn shows how many bits are 1",
        citation: "dB89",
        negative_example: true,
    },
    Builtin {
        name: "half-adder",
        source: include_str!("../protocols/outputs/half-adder.cards"),
        summary: "a committed half adder (sum = XOR, carry = AND) on ten cards: the Mizuki–Sone \
                  COPY of b, then their AND's selector on two pairs at once",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "half-adder-sum-not-negated",
        source: include_str!("../protocols/outputs/half-adder-sum-not-negated.cards"),
        summary: "NEGATIVE: the half adder with ¬b written as b: the carry is right, the sum is b",
        citation: "MS09",
        negative_example: true,
    },
    Builtin {
        name: "and-or-at-once",
        source: include_str!("../protocols/outputs/and-or-at-once.cards"),
        summary: "committed AND and OR of the same bits at once on ten cards: the Mizuki–Sone \
                  COPY of b, then their AND's selector on two pairs",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "and-or-at-once-copy-unshuffled",
        source: include_str!("../protocols/outputs/and-or-at-once-copy-unshuffled.cards"),
        summary: "NEGATIVE: AND and OR at once without the COPY's bisection: its turn shows b",
        citation: "MS09",
        negative_example: true,
    },
    Builtin {
        name: "toy-mixed-and",
        source: include_str!("../protocols/outputs/toy-mixed-and.cards"),
        summary: "a toy with mixed endings: the Mizuki–Sone AND, then a fair coin decides \
                  whether the output stays face down or is opened",
        citation: "MS09",
        negative_example: false,
    },
    Builtin {
        name: "toy-mixed-and-peek",
        source: include_str!("../protocols/outputs/toy-mixed-and-peek.cards"),
        summary: "NEGATIVE: mixed endings that commit only when the output is 0, so the \
                  committed ending tells the output",
        citation: "MS09",
        negative_example: true,
    },
    Builtin {
        name: "ono-manabe-xor",
        source: include_str!("../protocols/private/ono-manabe-xor.cards"),
        summary: "Ono–Manabe: committed XOR with four cards, a private random bisection by \
                  Alice and a private look and reverse by Bob",
        citation: "OM21",
        negative_example: false,
    },
    Builtin {
        name: "ono-manabe-and",
        source: include_str!("../protocols/private/ono-manabe-and.cards"),
        summary: "after Ono–Manabe: committed AND with four cards and private operations only \
                  (Bob reuses the pair he looked at as the constant 0)",
        citation: "OM21",
        negative_example: false,
    },
    Builtin {
        name: "ono-manabe-copy",
        source: include_str!("../protocols/private/ono-manabe-copy.cards"),
        summary: "Ono–Manabe: two copies of a commitment with six cards and private operations \
                  only",
        citation: "OM21",
        negative_example: false,
    },
    Builtin {
        name: "five-card-trick-private-cuts",
        source: include_str!("../protocols/private/five-card-trick-private-cuts.cards"),
        summary: "the five-card trick with its random cut done privately by Alice, then by Bob",
        citation: "dB89",
        negative_example: false,
    },
    Builtin {
        name: "five-card-trick-one-private-cut",
        source: include_str!("../protocols/private/five-card-trick-one-private-cut.cards"),
        summary: "NEGATIVE: the five-card trick cut privately by Alice alone: she knows the \
                  offset and reads b",
        citation: "dB89",
        negative_example: true,
    },
    Builtin {
        name: "ono-manabe-xor-early-look",
        source: include_str!("../protocols/private/ono-manabe-xor-early-look.cards"),
        summary: "NEGATIVE: the Ono–Manabe XOR with Bob looking at Alice's commitment before \
                  her bisection",
        citation: "OM21",
        negative_example: true,
    },
    Builtin {
        name: "ono-manabe-xor-turned-mask",
        source: include_str!("../protocols/private/ono-manabe-xor-turned-mask.cards"),
        summary: "NEGATIVE: the Ono–Manabe XOR with b ⊕ r turned face up: Alice reads b, Bob \
                  reads r and then a",
        citation: "OM21",
        negative_example: true,
    },
    Builtin {
        name: "one-hot-add-mod-3",
        source: include_str!("../protocols/numbers/one-hot-add-mod-3.cards"),
        summary: "addition modulo 3 of two one-hot numbers with one pile-shifting shuffle, \
                  committed",
        citation: "SMS+15",
        negative_example: false,
    },
    Builtin {
        name: "one-hot-add-mod-3-biased-shift",
        source: include_str!("../protocols/numbers/one-hot-add-mod-3-biased-shift.cards"),
        summary: "NEGATIVE: the one-hot addition modulo 3 with the shift drawn from {0, 1}: \
                  the turn tells something about y",
        citation: "SMS+15",
        negative_example: true,
    },
    Builtin {
        name: "one-hot-add-mod-3-one-row-shifted",
        source: include_str!("../protocols/numbers/one-hot-add-mod-3-one-row-shifted.cards"),
        summary: "NEGATIVE: the one-hot addition modulo 3 shifting y's cards only: the output \
                  is x + y − r",
        citation: "SMS+15",
        negative_example: true,
    },
];

/// Every built-in protocol, in a fixed order (the spec's examples first).
pub fn builtins() -> &'static [Builtin] {
    &BUILTINS
}

/// One built-in protocol as a list shows it (`facedown cards list --json`, Python's
/// `facedown.protocols()`): what it is, where it comes from and what it claims, each claimed
/// verdict also given on its own so a reader need not parse the claim line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LibraryEntry {
    /// The name ([`Builtin::name`]).
    pub name: &'static str,
    /// How many cards it uses.
    pub cards: usize,
    /// The function it computes, as the format writes it (`sum=xor carry=and` for several
    /// outputs).
    pub function: String,
    /// Its outputs, each with its name (`f` for a single unnamed output) and function.
    pub outputs: Vec<OutputSummary>,
    /// The bibliography key.
    pub citation: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// The claim line, as the format writes it.
    pub claim: String,
    /// The claimed security level.
    pub claimed_security: Option<Security>,
    /// The claimed runtime class.
    pub claimed_runtime: Option<Runtime>,
    /// The claimed expected number of shuffles, exact (`"8"`, `"3/2"`).
    pub claimed_expected_shuffles: Option<String>,
    /// Whether it is broken on purpose.
    pub negative_example: bool,
    /// The `.cards` text.
    pub source: &'static str,
}

impl Builtin {
    /// This protocol's [`LibraryEntry`] (parsing its source once).
    fn entry(&self) -> LibraryEntry {
        let protocol = self.protocol();
        let claim = protocol.claim().cloned().unwrap_or_default();
        LibraryEntry {
            name: self.name,
            cards: protocol.cards(),
            function: protocol.function().to_string(),
            outputs: protocol.function().summary(),
            citation: self.citation,
            summary: self.summary,
            claim: claim.to_string(),
            claimed_security: claim.security,
            claimed_runtime: claim.runtime,
            claimed_expected_shuffles: claim.expected_shuffles.as_ref().map(ToString::to_string),
            negative_example: self.negative_example,
            source: self.source,
        }
    }
}

/// Every built-in protocol's [`LibraryEntry`], in the order of [`builtins`].
pub fn entries() -> Vec<LibraryEntry> {
    BUILTINS.iter().map(Builtin::entry).collect()
}

/// The built-in protocol called `name`.
pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Why [`load`] failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Not a built-in name, and no readable file at that path.
    #[error(
        "`{}` is neither a built-in protocol name nor a readable file: {source}{}",
        .path.display(),
        .suggestion.map_or_else(String::new, |s| format!(" (did you mean `{s}`?)"))
    )]
    Unreadable {
        /// The path tried.
        path: PathBuf,
        /// The built-in protocol whose name is closest, when one is close.
        suggestion: Option<&'static str>,
        /// Why reading failed.
        #[source]
        source: std::io::Error,
    },
    /// The file is too large ([`MAX_PROTOCOL_BYTES`]) or not text.
    #[error(transparent)]
    Input(InputError),
    /// The file (or built-in source) is not a valid `.cards` protocol.
    #[error("{}: {source}", .path.display())]
    Parse {
        /// The file, or the built-in's name.
        path: PathBuf,
        /// The text read (to show the error in context, [`LoadError::render`]).
        text: String,
        /// Where and what.
        #[source]
        source: Box<ParseError>,
    },
}

impl LoadError {
    /// The error for a terminal: a parse error under its source line with a caret
    /// ([`ParseError::render`]); other errors as their one-line message. `color` adds ANSI
    /// colours.
    pub fn render(&self, color: bool) -> String {
        match self {
            LoadError::Parse { path, text, source } => {
                source.render(&path.display().to_string(), text, color)
            }
            other => format!("error: {other}\n"),
        }
    }
}

/// The built-in protocol whose name is closest to `name`, if one is close.
pub fn suggest(name: &str) -> Option<&'static str> {
    crate::suggest::closest(name, BUILTINS.iter().map(|b| b.name))
}

/// Largest `.cards` file read by [`load`] (the longest built-in is a few kilobytes).
pub const MAX_PROTOCOL_BYTES: u64 = 1 << 20;

/// A built-in protocol by name, or else the `.cards` file at the path `name_or_path` (at most
/// [`MAX_PROTOCOL_BYTES`]).
pub fn load(name_or_path: &str) -> Result<Protocol, LoadError> {
    let (path, text) = match find(name_or_path) {
        Some(b) => (PathBuf::from(b.name), b.source.to_owned()),
        None => {
            let path = PathBuf::from(name_or_path);
            let text =
                read_text(&path, MAX_PROTOCOL_BYTES, "a .cards protocol").map_err(|e| match e {
                    InputError::Unreadable { path, source } => LoadError::Unreadable {
                        path,
                        suggestion: suggest(name_or_path),
                        source,
                    },
                    other => LoadError::Input(other),
                })?;
            (path, text)
        }
    };
    parse(&text).map_err(|source| LoadError::Parse {
        path,
        text,
        source: Box::new(source),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_match_the_protocol_line() {
        for (k, b) in builtins().iter().enumerate() {
            assert!(
                builtins()[..k].iter().all(|o| o.name != b.name),
                "{} twice",
                b.name
            );
            assert_eq!(b.protocol().name(), b.name);
            assert_eq!(find(b.name), Some(b));
        }
        assert_eq!(find("no-such-protocol"), None);
    }

    #[test]
    fn every_library_protocol_states_a_complete_claim() {
        for b in builtins() {
            assert!(b.claim().is_complete(), "{}: {}", b.name, b.claim());
        }
    }

    #[test]
    fn a_misspelt_name_gets_a_suggestion() {
        assert_eq!(suggest("five-card-tric"), Some("five-card-trick"));
        let err = load("five-card-tric").expect_err("no such file");
        assert!(
            err.to_string().contains("did you mean `five-card-trick`?"),
            "{err}"
        );
        assert!(matches!(
            load("no/such/file.cards"),
            Err(LoadError::Unreadable {
                suggestion: None,
                ..
            })
        ));
    }
}
