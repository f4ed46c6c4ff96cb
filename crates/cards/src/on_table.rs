//! Running a card protocol on any [`FaceDownTable`]: the ideal table, the permutation-sharing
//! dealer \[perm-sharing-dealer\] or the encrypted deck \[BS03\].
//!
//! The protocol is written once (a [`Protocol`]); [`run_on_table`] maps its actions to the
//! table's operations:
//!
//! | protocol | table |
//! |---|---|
//! | layout: input commitment `a` / `~a` / `a(#1 #2)` | [`commit`](FaceDownTable::commit) by the input's owner (or [`commit_hidden`](FaceDownTable::commit_hidden) where the input is another player's) |
//! | layout: constants and helper cards | [`place`](FaceDownTable::place) |
//! | `perm` | [`rearrange`](FaceDownTable::rearrange) |
//! | `shuffle` (uniform support) | [`shuffle`](FaceDownTable::shuffle) with [`ShuffleSet::Uniform`] |
//! | `shuffle` (rational weights) | [`shuffle`](FaceDownTable::shuffle) with [`ShuffleSet::Weighted`] |
//! | `turn` | [`turn`](FaceDownTable::turn), then the branch for what was seen |
//! | `result` | optionally [`turn`](FaceDownTable::turn) of the result cards, to read the output |
//! | `restart` | fresh input commitments appended to the row; the old cards stay unused |
//!
//! The runner is one more semantics of the protocol's single interpreter
//! ([`crate::interpret`]): the interpreter owns the control flow (branches, labels, `goto`,
//! `restart`), and each action here becomes the table's operation. It is not a party of the
//! protocol: [`run_on_table`] is given every input (a driver that seats every player, or the
//! ideal table); [`run_as_party`] is one player's run, given only the inputs it owns, on that
//! player's own view of the table (a networked player). Every branch depends only on turned
//! cards, so every player's run takes the same path.
//!
//! Before each shuffle the runner consults the backend's [`Capabilities`]: an unsupported
//! shuffle is an error ([`RunError::Unsupported`]) and a weakened one is recorded in
//! [`TableRun::weakened`], so a comparison can never silently fall back to something weaker.
//!
//! The output of a non-committed ending is read from the view: alongside the table the runner
//! keeps the possibilistic KWH state (which sequences are possible under which input, given
//! what was seen) and reports the output all remaining inputs agree on. A protocol with several
//! named outputs gives one bit per output, in their order: pair `j` of its `result` is output
//! `j`, and a non-committed ending reads every output from the view.
//!
//! [`Capabilities`]: facedown_core::Capabilities

use std::collections::BTreeSet;

use facedown_core::table::{FaceDownTable, ShuffleSet, Support};
use facedown_core::{Capabilities, PartyId, Perm, Symbol};
use num_integer::Integer;
use num_traits::{One, ToPrimitive};
use serde::Serialize;

use crate::distribution::Distribution;
use crate::interpret::{Branching, Children, Entry, Flow, Semantics};
use crate::model::{
    decode_bit, decode_one_card, encode_bit, encode_bit_on, input_bits, Action, ActionKind,
    LayoutItem, Span, Q,
};
use crate::protocol::{Chooser, LabelId, PrivateBit, Protocol, Site};

/// Why a protocol could not be run on a table.
#[derive(Debug, thiserror::Error)]
pub enum RunError<E: std::error::Error + 'static> {
    /// The backend refused or failed an operation.
    #[error("the table failed at line {}, col {}: {source}", .span.line, .span.col)]
    Table {
        /// The action.
        span: Span,
        /// The backend's error.
        #[source]
        source: E,
    },
    /// The backend cannot perform this action at all.
    #[error("line {}, col {}: the {backend} backend cannot {what}: {reason}", .span.line, .span.col)]
    Unsupported {
        /// The action.
        span: Span,
        /// The backend.
        backend: String,
        /// The operation.
        what: String,
        /// The backend's reason.
        reason: String,
    },
    /// The number of input bits or owners does not match the protocol's inputs.
    #[error("the protocol has {expected} inputs, got {bits} bits and {owners} owners")]
    Inputs {
        /// Inputs declared.
        expected: usize,
        /// Bits given.
        bits: usize,
        /// Owners given.
        owners: usize,
    },
    /// The protocol is malformed (an invalid shuffle, an undefined label, an undeclared input).
    #[error("line {}, col {}: {reason}", .span.line, .span.col)]
    Protocol {
        /// Where.
        span: Span,
        /// What is wrong.
        reason: String,
    },
    /// An observation has no branch.
    #[error("line {}, col {}: no branch for the observation {observation}", .span.line, .span.col)]
    Stuck {
        /// The turn.
        span: Span,
        /// What was seen.
        observation: String,
    },
    /// The run took more steps than allowed (a Las Vegas protocol that did not end in time).
    #[error("the run did not end within {0} steps")]
    StepLimit(u64),
    /// The view does not determine the output of a non-committed ending, or a result pair is
    /// not a commitment.
    #[error("line {}, col {}: the output cannot be read: {reason}", .span.line, .span.col)]
    Undecodable {
        /// Where the run ended.
        span: Span,
        /// Why.
        reason: String,
    },
}

/// One turn as seen by everyone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Seen {
    /// Positions turned, 0-indexed, relative to the current layout.
    pub positions: Vec<usize>,
    /// What they showed.
    pub symbols: Vec<Symbol>,
}

/// The outcome of one run on a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableRun {
    /// The output bits (one per result pair; for a non-committed ending one, or one per output
    /// of a protocol with several), or empty when a committed result was not revealed.
    pub outputs: Vec<bool>,
    /// Whether the protocol ended with a committed result.
    pub committed: bool,
    /// Every turn of the protocol (not the final reveal of a committed result).
    pub view: Vec<Seen>,
    /// Shuffles performed.
    pub shuffles: u64,
    /// Restarts performed.
    pub restarts: u64,
    /// Operations the backend performed with a weaker guarantee than its security model, with
    /// the backend's reason.
    pub weakened: Vec<String>,
}

/// Options of [`run_on_table`].
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Turn the committed result cards at the end to read the output.
    pub reveal_result: bool,
    /// Give up after this many actions.
    pub max_steps: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            reveal_result: true,
            max_steps: 100_000,
        }
    }
}

/// Runs `protocol` on `table` with input bits `inputs` (first input first), input `k` committed
/// by `owners[k]`.
pub fn run_on_table<T: FaceDownTable>(
    protocol: &Protocol,
    inputs: &[bool],
    owners: &[PartyId],
    table: &mut T,
    opts: RunOptions,
) -> Result<TableRun, RunError<T::Error>> {
    let known: Vec<Option<bool>> = inputs.iter().map(|&b| Some(b)).collect();
    run_as_party(protocol, &known, owners, table, opts)
}

/// One player's walk of `protocol` on its own view of the table: `inputs[k]` is input `k` if
/// this player owns it and `None` otherwise (committed by `owners[k]` without this player
/// learning its cards).
pub fn run_as_party<T: FaceDownTable>(
    protocol: &Protocol,
    inputs: &[Option<bool>],
    owners: &[PartyId],
    table: &mut T,
    opts: RunOptions,
) -> Result<TableRun, RunError<T::Error>> {
    let k = protocol.inputs().len();
    if protocol.has_numbers() {
        return Err(numbers_refused());
    }
    if let Some(name) = protocol.one_card_input() {
        return Err(one_card_refused(name));
    }
    if inputs.len() != k || owners.len() != k {
        return Err(RunError::Inputs {
            expected: k,
            bits: inputs.len(),
            owners: owners.len(),
        });
    }
    let caps = table.capabilities();
    let mut sem = OnTable {
        protocol,
        inputs,
        owners,
        table,
        opts,
        caps,
        base: 0,
        steps: 0,
        run: TableRun {
            outputs: Vec::new(),
            committed: false,
            view: Vec::new(),
            shuffles: 0,
            restarts: 0,
            weakened: Vec::new(),
        },
    };
    let start = sem.lay_out()?;
    protocol.interpret(&mut sem, Entry::Start, start)?;
    Ok(sem.run)
}

/// The table semantics of the interpreter: every action becomes the table's operation, on the
/// positions of the current layout (`base..`), and the path is what the view allows.
struct OnTable<'a, T: FaceDownTable> {
    protocol: &'a Protocol,
    inputs: &'a [Option<bool>],
    owners: &'a [PartyId],
    table: &'a mut T,
    opts: RunOptions,
    caps: Capabilities,
    /// Where the current layout starts (a restart appends a fresh one).
    base: usize,
    steps: u64,
    run: TableRun,
}

impl<T: FaceDownTable> OnTable<'_, T> {
    /// The typed refusal of a private action, naming it.
    fn no_private(&self, site: Site, what: &str) -> RunError<T::Error> {
        RunError::Unsupported {
            span: site.span,
            backend: self.table.capabilities().backend.to_string(),
            what: what.to_owned(),
            reason: "the face-down tables have no private operation yet".to_owned(),
        }
    }

    /// Lays out fresh input commitments after the cards already on the table.
    fn lay_out(&mut self) -> Result<Possible, RunError<T::Error>> {
        self.base = self.table.len();
        lay_out(self.protocol, self.inputs, self.owners, self.table)?;
        Possible::start(self.protocol)
    }

    /// The backend's support for `set`: refused, recorded as weakened, or fine.
    fn check_support(&mut self, set: &ShuffleSet, span: Span) -> Result<(), RunError<T::Error>> {
        match self.caps.shuffle_support(set) {
            Support::Secure => Ok(()),
            Support::Weakened(reason) => {
                let note = format!("line {}: shuffle: {reason}", span.line);
                self.run.weakened.push(note);
                Ok(())
            }
            Support::Unsupported(reason) => Err(RunError::Unsupported {
                span,
                backend: self.caps.backend.clone(),
                what: "perform this shuffle".to_owned(),
                reason: reason.clone(),
            }),
        }
    }

    /// Turns the committed result pairs and decodes them.
    fn reveal(&mut self, span: Span, pairs: &[(usize, usize)]) -> Result<(), RunError<T::Error>> {
        for &(a, b) in pairs {
            let cards = self
                .table
                .turn(&[a + self.base, b + self.base])
                .map_err(|source| RunError::Table { span, source })?;
            let bit = decode_bit([cards[0], cards[1]]).ok_or_else(|| RunError::Undecodable {
                span,
                reason: format!(
                    "the result cards show {}{}, not a commitment",
                    cards[0], cards[1]
                ),
            })?;
            self.run.outputs.push(bit);
        }
        Ok(())
    }
}

impl<T: FaceDownTable> Semantics for OnTable<'_, T> {
    type Path = Possible;
    type Error = RunError<T::Error>;

    fn before(&mut self, _site: Site, _path: &Possible) -> Result<Flow, Self::Error> {
        self.steps += 1;
        if self.steps > self.opts.max_steps {
            return Err(RunError::StepLimit(self.opts.max_steps));
        }
        Ok(Flow::Continue)
    }

    fn permute(&mut self, site: Site, perm: &Perm, path: &mut Possible) -> Result<(), Self::Error> {
        let span = site.span;
        self.table
            .rearrange(&shifted(perm, self.base))
            .map_err(|source| RunError::Table { span, source })?;
        path.permute(perm);
        Ok(())
    }

    fn private_permute(
        &mut self,
        site: Site,
        _input: usize,
        _perms: &[Perm; 2],
        _by: Chooser,
        _path: &mut Possible,
    ) -> Result<(), Self::Error> {
        Err(self.no_private(site, "perform a private permutation"))
    }

    fn private_shuffle(
        &mut self,
        site: Site,
        _input: usize,
        _shuffle: &Distribution,
        _bit: Option<PrivateBit>,
        _path: Possible,
    ) -> Result<Vec<Possible>, Self::Error> {
        Err(self.no_private(site, "perform a private random cut or draw"))
    }

    fn private_look(
        &mut self,
        site: Site,
        _input: usize,
        _positions: &[usize],
        _bit: Option<PrivateBit>,
        _path: Possible,
    ) -> Result<Vec<Possible>, Self::Error> {
        Err(self.no_private(site, "perform a private look"))
    }

    fn shuffle(
        &mut self,
        site: Site,
        shuffle: &Distribution,
        path: &mut Possible,
    ) -> Result<(), Self::Error> {
        let span = site.span;
        let set = shuffle_set(shuffle.support(), self.base, span)?;
        self.check_support(&set, span)?;
        self.table
            .shuffle(&set)
            .map_err(|source| RunError::Table { span, source })?;
        path.shuffle(shuffle.support());
        self.run.shuffles += 1;
        Ok(())
    }

    fn turn(
        &mut self,
        site: Site,
        positions: &[usize],
        mut path: Possible,
    ) -> Result<Children<Possible>, Self::Error> {
        let span = site.span;
        let absolute: Vec<usize> = positions.iter().map(|p| p + self.base).collect();
        let symbols = self
            .table
            .turn(&absolute)
            .map_err(|source| RunError::Table { span, source })?;
        path.observe(positions, &symbols);
        self.run.view.push(Seen {
            positions: positions.to_vec(),
            symbols: symbols.clone(),
        });
        Ok(vec![(symbols, path)])
    }

    fn observed(
        &mut self,
        _: Site,
        _: &[Symbol],
        _: Branching,
        _: &mut Possible,
    ) -> Result<(), Self::Error> {
        Ok(())
    }

    fn stuck(
        &mut self,
        site: Site,
        observation: &[Symbol],
        _: Possible,
    ) -> Result<(), Self::Error> {
        Err(RunError::Stuck {
            span: site.span,
            observation: observation.iter().map(Symbol::to_string).collect(),
        })
    }

    fn result(
        &mut self,
        site: Site,
        pairs: &[(usize, usize)],
        _: Possible,
    ) -> Result<(), Self::Error> {
        self.run.committed = true;
        if self.opts.reveal_result {
            self.reveal(site.span, pairs)?;
        }
        Ok(())
    }

    fn result_number(&mut self, site: Site, _: &[usize], _: Possible) -> Result<(), Self::Error> {
        Err(RunError::Protocol {
            span: site.span,
            reason: "the tables read bits; a number output cannot be read here".to_owned(),
        })
    }

    fn result_card(&mut self, site: Site, p: usize, _: Possible) -> Result<(), Self::Error> {
        self.run.committed = true;
        if self.opts.reveal_result {
            let span = site.span;
            let card = self
                .table
                .turn(&[p + self.base])
                .map_err(|source| RunError::Table { span, source })?;
            let bit = decode_one_card(card[0]).ok_or_else(|| RunError::Undecodable {
                span,
                reason: format!("the result card shows {}, not ♣ or ♥", card[0]),
            })?;
            self.run.outputs.push(bit);
        }
        Ok(())
    }

    fn end(&mut self, path: Possible) -> Result<(), Self::Error> {
        let bits = open_ending(self.protocol, &path)?;
        self.run.outputs.extend(bits);
        Ok(())
    }

    fn label(&mut self, _: Site, _: LabelId, _: &mut Possible) -> Result<Flow, Self::Error> {
        Ok(Flow::Continue)
    }

    fn goto(&mut self, _: Site, _: LabelId, _: &mut Possible) -> Result<Flow, Self::Error> {
        Ok(Flow::Continue)
    }

    fn restart(&mut self, _: Site, path: &mut Possible) -> Result<Flow, Self::Error> {
        self.run.restarts += 1;
        *path = self.lay_out()?;
        Ok(Flow::Continue)
    }
}

/// The tables' refusal of number inputs and outputs (`a{n}`, `add-mod`).
fn numbers_refused<E: std::error::Error + 'static>() -> RunError<E> {
    RunError::Protocol {
        span: Span::default(),
        reason: "the tables commit and read bits; this protocol has number inputs (`a{n}`)"
            .to_owned(),
    }
}

/// A table deals a deck whose cards everyone knows (only their order is secret); an input on
/// one card (`a[1]`) changes which cards are on the table with the bit.
fn one_card_refused<E: std::error::Error + 'static>(input: &str) -> RunError<E> {
    RunError::Protocol {
        span: Span::default(),
        reason: format!(
            "the tables deal a deck of known cards; input `{input}` is on one card (`{input}[1]`), \
             so which cards the deck holds would depend on it"
        ),
    }
}

/// Places the layout: input commitments by their owners, everything else in public.
fn lay_out<T: FaceDownTable>(
    protocol: &Protocol,
    inputs: &[Option<bool>],
    owners: &[PartyId],
    table: &mut T,
) -> Result<(), RunError<T::Error>> {
    let span = Span::default();
    for item in protocol.layout() {
        match item {
            LayoutItem::Input { name, negated } | LayoutItem::InputOn { name, negated, .. } => {
                let k = protocol
                    .inputs()
                    .iter()
                    .position(|i| i == name)
                    .ok_or_else(|| RunError::Protocol {
                        span,
                        reason: format!("the layout names the undeclared input `{name}`"),
                    })?;
                // The cards of the bit 0 have the same multiset as those of the bit 1.
                let bit = inputs[k].map(|b| b ^ negated);
                let cards = match item {
                    LayoutItem::InputOn { cards, .. } => {
                        encode_bit_on(bit.unwrap_or(false), *cards)
                    }
                    _ => encode_bit(bit.unwrap_or(false)),
                };
                let done = match bit {
                    Some(_) => table.commit(owners[k], &cards),
                    None => table.commit_hidden(owners[k], &cards),
                };
                done.map_err(|source| RunError::Table { span, source })?;
            }
            LayoutItem::Constant(b) => table
                .place(&encode_bit(*b))
                .map_err(|source| RunError::Table { span, source })?,
            LayoutItem::Card(s) => table
                .place(&[*s])
                .map_err(|source| RunError::Table { span, source })?,
            LayoutItem::Number { .. } => return Err(numbers_refused()),
            LayoutItem::OneCard { name, .. } => return Err(one_card_refused(name)),
        }
    }
    Ok(())
}

/// The output of a non-committed ending: the one every input the view still allows agrees on,
/// as one bit per output.
fn open_ending<E: std::error::Error>(
    protocol: &Protocol,
    possible: &Possible,
) -> Result<Vec<bool>, RunError<E>> {
    let outs: BTreeSet<Option<crate::model::Value>> = possible
        .inputs()
        .into_iter()
        .map(|i| protocol.values().get(i).copied())
        .collect();
    match outs.into_iter().collect::<Vec<_>>()[..] {
        [Some(value)] => {
            let m = protocol.output_count();
            Ok(match m {
                1 => vec![value == 1],
                _ => (0..m)
                    .map(|j| crate::model::output_bit(value, j, m))
                    .collect(),
            })
        }
        _ => Err(RunError::Undecodable {
            span: Span::default(),
            reason: "the view is consistent with inputs of different outputs".to_owned(),
        }),
    }
}

/// The permutation `p` acting on positions `base..base + p.len()` of a longer row.
fn shifted(p: &Perm, base: usize) -> Perm {
    if base == 0 {
        return p.clone();
    }
    let images: Vec<usize> = (0..base).chain(p.images().map(|x| x + base)).collect();
    Perm::from_images(images).unwrap_or_else(|_| Perm::identity(base + p.len()))
}

/// The table's form of an exact shuffle distribution.
fn shuffle_set<E: std::error::Error>(
    dist: &[(Perm, Q)],
    base: usize,
    span: Span,
) -> Result<ShuffleSet, RunError<E>> {
    let uniform = dist.windows(2).all(|w| w[0].1 == w[1].1);
    if uniform {
        return Ok(ShuffleSet::Uniform(
            dist.iter().map(|(p, _)| shifted(p, base)).collect(),
        ));
    }
    let lcm = dist
        .iter()
        .fold(num_bigint::BigInt::one(), |acc, (_, w)| acc.lcm(w.denom()));
    dist.iter()
        .map(|(p, w)| {
            let scaled = w.numer() * (&lcm / w.denom());
            scaled
                .to_u64()
                .map(|x| (shifted(p, base), x))
                .ok_or_else(|| RunError::Protocol {
                    span,
                    reason: "shuffle weights have too large a common denominator".to_owned(),
                })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(ShuffleSet::Weighted)
}

/// Whether a run of `protocol` can take a `goto` or a `restart` (so that its runs are not a
/// finite tree).
pub fn can_loop(protocol: &Protocol) -> bool {
    fn walk(list: &[Action]) -> bool {
        list.iter().any(|a| match &a.kind {
            ActionKind::Goto(_) | ActionKind::Restart => true,
            ActionKind::Turn {
                branches: Some(branches),
                ..
            } => branches.iter().any(|b| walk(&b.body)),
            _ => false,
        })
    }
    walk(protocol.body())
}

/// The possibilistic KWH state: which (sequence, input) pairs are still possible.
struct Possible {
    pairs: BTreeSet<(Vec<Symbol>, usize)>,
}

impl Possible {
    fn start<E: std::error::Error>(protocol: &Protocol) -> Result<Self, RunError<E>> {
        let k = protocol.inputs().len();
        let pairs = (0..protocol.input_count())
            .map(|i| {
                protocol
                    .initial_row(&input_bits(i, k))
                    .map(|row| (row, i))
                    .ok_or_else(|| RunError::Protocol {
                        span: Span::default(),
                        reason: "the layout names an undeclared input".to_owned(),
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Possible { pairs })
    }

    fn permute(&mut self, p: &Perm) {
        self.pairs = self
            .pairs
            .iter()
            .filter_map(|(s, i)| p.apply_to_row(s).map(|t| (t, *i)))
            .collect();
    }

    fn shuffle(&mut self, dist: &[(Perm, Q)]) {
        self.pairs = self
            .pairs
            .iter()
            .flat_map(|(s, i)| {
                dist.iter()
                    .filter_map(move |(p, _)| p.apply_to_row(s).map(|t| (t, *i)))
            })
            .collect();
    }

    fn observe(&mut self, positions: &[usize], symbols: &[Symbol]) {
        self.pairs.retain(|(s, _)| {
            positions
                .iter()
                .zip(symbols)
                .all(|(&p, sym)| s.get(p) == Some(sym))
        });
    }

    fn inputs(&self) -> BTreeSet<usize> {
        self.pairs.iter().map(|(_, i)| *i).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library;
    use facedown_core::rng::trial_rng;
    use facedown_core::IdealTable;

    fn owners(k: usize) -> Vec<PartyId> {
        PartyId::all(k).collect()
    }

    #[test]
    fn every_library_protocol_computes_its_function_on_the_ideal_table() {
        for builtin in library::builtins() {
            let p = builtin.protocol();
            let k = p.inputs().len();
            if p.has_numbers() || p.one_card_input().is_some() {
                let mut table = IdealTable::with_rng(k.max(2), trial_rng(0, 0));
                let run = run_on_table(
                    &p,
                    &[false; 2],
                    &owners(k),
                    &mut table,
                    RunOptions::default(),
                );
                assert!(
                    matches!(run, Err(RunError::Protocol { .. })),
                    "{}: the tables refuse numbers and one-card inputs",
                    builtin.name
                );
                continue;
            }
            for input in 0..p.input_count() {
                let bits = input_bits(input, k);
                let want: Vec<bool> = (0..p.output_count())
                    .map(|j| p.result_bit(input, j))
                    .collect();
                for seed in 0..20 {
                    let mut table = IdealTable::with_rng(k.max(2), trial_rng(seed, input as u64));
                    let run =
                        run_on_table(&p, &bits, &owners(k), &mut table, RunOptions::default());
                    if p.has_private_actions() {
                        assert!(
                            matches!(run, Err(RunError::Unsupported { .. })),
                            "{}: the tables refuse private actions",
                            builtin.name
                        );
                        continue;
                    }
                    let run = run.unwrap_or_else(|e| panic!("{}: {e}", builtin.name));
                    // One output is read at every pair (a `copy` writes several), several outputs
                    // one pair each.
                    let correct = if want.len() == 1 {
                        run.outputs.iter().all(|&o| o == want[0])
                    } else {
                        run.outputs == want
                    };
                    if builtin.claim().correct == Some(true) {
                        assert!(
                            correct,
                            "{} input {bits:?}: {:?}",
                            builtin.name, run.outputs
                        );
                        assert!(!run.outputs.is_empty(), "{}", builtin.name);
                    }
                }
            }
        }
    }

    #[test]
    fn the_las_vegas_and_and_the_restarting_xor_can_loop_the_others_cannot() {
        for builtin in library::builtins() {
            let looping = ["four-card-las-vegas-and", "toy-restart-xor"].contains(&builtin.name);
            assert_eq!(can_loop(&builtin.protocol()), looping, "{}", builtin.name);
        }
    }

    #[test]
    fn wrong_input_count_is_an_error() {
        let p = library::find("five-card-trick")
            .expect("built in")
            .protocol();
        let mut table = IdealTable::with_rng(2, trial_rng(0, 0));
        let err = run_on_table(&p, &[true], &owners(1), &mut table, RunOptions::default());
        assert!(matches!(err, Err(RunError::Inputs { expected: 2, .. })));
    }

    #[test]
    fn a_backend_without_weighted_shuffles_refuses_the_las_vegas_protocol() {
        struct NoWeights(IdealTable<rand_chacha::ChaCha20Rng>);
        impl FaceDownTable for NoWeights {
            type Error = facedown_core::table::TableError;
            fn capabilities(&self) -> facedown_core::Capabilities {
                let mut c = self.0.capabilities();
                c.other_shuffle = Support::Unsupported("no weighted shuffles".to_owned());
                c
            }
            fn parties(&self) -> usize {
                self.0.parties()
            }
            fn len(&self) -> usize {
                self.0.len()
            }
            fn apply(
                &mut self,
                op: &facedown_core::TableOp,
            ) -> Result<facedown_core::Seen, Self::Error> {
                self.0.apply(op)
            }
            fn cost(&self) -> facedown_core::Cost {
                self.0.cost()
            }
        }
        let p = library::find("four-card-las-vegas-and")
            .expect("built in")
            .protocol();
        let mut table = NoWeights(IdealTable::with_rng(2, trial_rng(0, 0)));
        let err = run_on_table(
            &p,
            &[true, true],
            &owners(2),
            &mut table,
            RunOptions::default(),
        );
        assert!(matches!(err, Err(RunError::Unsupported { .. })), "{err:?}");
    }
}
