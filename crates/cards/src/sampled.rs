//! The sampled semantics: one run of a protocol on one row of cards, every shuffle drawn with
//! its exact [`crate::distribution::Sampler`] from the randomness passed in.
//!
//! This is the run the tracer shows ([`crate::trace`]) and the one the compiled simulator
//! ([`crate::simulate`]) must reproduce draw for draw: the same generator gives the same view,
//! the same number of shuffles and the same output (a test compares the two on every library
//! protocol).

use facedown_core::{Perm, Symbol};
use rand::RngCore;

use crate::distribution::Distribution;
use crate::interpret::{Branching, Entry, Flow, Semantics};
use crate::model::{decode_bit, decode_number, decode_one_card, Observation, Span};
use crate::protocol::{Chooser, LabelId, PrivateBit, Protocol, Sequence, Site};

/// How a sampled run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnding {
    /// At a committed `result`: the bit its pairs encode, `None` when a pair is no commitment
    /// or the pairs disagree. With several outputs the pairs carry different outputs: this is
    /// then the first pair's bit, and [`SampledRun::result_bits`] holds every pair's.
    Result(Option<bool>),
    /// At a committed `result P1 … Pn` of a number output: the number its cards hold one-hot,
    /// `None` when they hold none.
    Number(Option<usize>),
    /// Out of actions: a non-committed ending (the output is read from the view).
    Open,
    /// An observation without a branch.
    Stuck,
    /// The step limit was reached.
    StepLimit,
}

/// One action executed, for the tracer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The action.
    pub site: Site,
    /// For a shuffle, the permutation drawn.
    pub drawn: Option<Perm>,
    /// For a turn, the positions turned and what they showed.
    pub turned: Option<(Vec<usize>, Vec<Symbol>)>,
    /// For a turn with branches, the branch taken (its observation and span).
    pub branch: Option<Span>,
    /// For a private look, what its holder alone saw.
    pub privately_seen: Option<Vec<Symbol>>,
    /// The row after the action.
    pub row: Sequence,
}

/// A whole sampled run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampledRun {
    /// How it ended.
    pub ending: RunEnding,
    /// Everything turned, in order.
    pub view: Vec<Observation>,
    /// Shuffles executed.
    pub shuffles: u64,
    /// The row at the end.
    pub row: Sequence,
    /// At a committed `result`, the bit each pair encodes, in the order written (`None` where a
    /// pair is no commitment); empty for any other ending.
    pub result_bits: Vec<Option<bool>>,
    /// The actions executed, when recorded ([`sample`] with `record`).
    pub steps: Vec<Step>,
}

/// Why a run could not be sampled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SampleError {
    /// A shuffle's weights have no common denominator below 2^64.
    #[error("{}: the weights need a common denominator below 2^64", crate::print::source_position(*.span))]
    Weights {
        /// The shuffle.
        span: Span,
    },
    /// A private permutation is chosen by a bit this run never named.
    #[error("{}: `by {bit}`: the bit was not named on this run", crate::print::source_position(*.span))]
    UnboundPrivateBit {
        /// The private permutation.
        span: Span,
        /// The bit's name.
        bit: String,
    },
}

/// Runs input assignment `input` (binary order) once with `rng`, executing at most
/// `max_steps` actions; `record` keeps every step for a trace.
///
/// # Panics
/// When `input >= protocol.input_count()`.
pub fn sample<R: RngCore>(
    protocol: &Protocol,
    input: usize,
    rng: &mut R,
    max_steps: usize,
    record: bool,
) -> Result<SampledRun, SampleError> {
    let start = protocol.start_row(input).clone();
    let mut sem = Sampling {
        rng,
        bits: crate::model::input_bits(input, protocol.inputs().len()),
        several: protocol.output_count() > 1,
        private: vec![None; protocol.private_bit_count()],
        protocol,
        start: start.clone(),
        max_steps,
        taken: 0,
        record,
        run: SampledRun {
            ending: RunEnding::Open,
            view: Vec::new(),
            shuffles: 0,
            row: Vec::new(),
            result_bits: Vec::new(),
            steps: Vec::new(),
        },
    };
    protocol.interpret(&mut sem, Entry::Start, start)?;
    Ok(sem.run)
}

struct Sampling<'r, R> {
    rng: &'r mut R,
    /// The input bits of the run (for private input permutations).
    bits: Vec<bool>,
    /// Whether the protocol has several outputs (a result's pairs then carry different ones).
    several: bool,
    /// The private bits named so far (`as r`).
    private: Vec<Option<bool>>,
    protocol: &'r Protocol,
    start: Sequence,
    max_steps: usize,
    taken: usize,
    record: bool,
    run: SampledRun,
}

impl<R> Sampling<'_, R> {
    /// The step being executed (when recording).
    fn step(&mut self) -> Option<&mut Step> {
        self.run.steps.last_mut().filter(|_| self.record)
    }

    fn set_row(&mut self, row: &Sequence) {
        if let Some(step) = self.step() {
            step.row.clone_from(row);
        }
    }

    fn finish(&mut self, ending: RunEnding, row: Sequence) {
        self.run.ending = ending;
        self.run.row = row;
    }
}

fn permute(p: &Perm, row: &Sequence) -> Sequence {
    p.apply_to_row(row).unwrap_or_else(|| row.clone())
}

impl<R: RngCore> Sampling<'_, R> {
    /// Draws from `shuffle` and applies it to `row`; returns the index drawn.
    fn draw(
        &mut self,
        site: Site,
        shuffle: &Distribution,
        row: &mut Sequence,
    ) -> Result<usize, SampleError> {
        let sampler = shuffle
            .sampler()
            .ok_or(SampleError::Weights { span: site.span })?;
        let pick = sampler.pick(&mut *self.rng);
        if let Some((p, _)) = shuffle.support().get(pick) {
            *row = permute(p, row);
            if let Some(step) = self.step() {
                step.drawn = Some(p.clone());
            }
        }
        self.set_row(row);
        Ok(pick)
    }
}

impl<R: RngCore> Semantics for Sampling<'_, R> {
    type Path = Sequence;
    type Error = SampleError;

    fn before(&mut self, site: Site, row: &Sequence) -> Result<Flow, SampleError> {
        if self.taken >= self.max_steps {
            self.finish(RunEnding::StepLimit, row.clone());
            return Ok(Flow::Stop);
        }
        self.taken += 1;
        if self.record {
            self.run.steps.push(Step {
                site,
                drawn: None,
                turned: None,
                branch: None,
                privately_seen: None,
                row: row.clone(),
            });
        }
        Ok(Flow::Continue)
    }

    fn permute(&mut self, _site: Site, perm: &Perm, row: &mut Sequence) -> Result<(), SampleError> {
        *row = permute(perm, row);
        self.set_row(row);
        Ok(())
    }

    fn private_permute(
        &mut self,
        site: Site,
        input: usize,
        perms: &[Perm; 2],
        by: Chooser,
        row: &mut Sequence,
    ) -> Result<(), SampleError> {
        let bit = match by {
            Chooser::Input => self.bits[input],
            Chooser::Bit(b) => self.private[b.0].ok_or_else(|| SampleError::UnboundPrivateBit {
                span: site.span,
                bit: self.protocol.private_bit_name(b).to_owned(),
            })?,
        };
        *row = permute(&perms[usize::from(bit)], row);
        self.set_row(row);
        Ok(())
    }

    fn private_shuffle(
        &mut self,
        site: Site,
        _input: usize,
        shuffle: &Distribution,
        bit: Option<PrivateBit>,
        mut row: Sequence,
    ) -> Result<Vec<Sequence>, SampleError> {
        let pick = self.draw(site, shuffle, &mut row)?;
        if let Some(b) = bit {
            self.private[b.0] = Some(pick == 1);
        }
        Ok(vec![row])
    }

    fn private_look(
        &mut self,
        _site: Site,
        _input: usize,
        positions: &[usize],
        bit: Option<PrivateBit>,
        row: Sequence,
    ) -> Result<Vec<Sequence>, SampleError> {
        let seen: Vec<Symbol> = positions
            .iter()
            .filter_map(|&p| row.get(p).copied())
            .collect();
        if let Some(step) = self.step() {
            step.privately_seen = Some(seen.clone());
        }
        if let Some(b) = bit {
            let Some(value) = decode_bit([seen[0], seen[1]]) else {
                self.finish(RunEnding::Stuck, row);
                return Ok(Vec::new());
            };
            self.private[b.0] = Some(value);
        }
        Ok(vec![row])
    }

    fn shuffle(
        &mut self,
        site: Site,
        shuffle: &Distribution,
        row: &mut Sequence,
    ) -> Result<(), SampleError> {
        self.draw(site, shuffle, row)?;
        self.run.shuffles += 1;
        Ok(())
    }

    fn turn(
        &mut self,
        _site: Site,
        positions: &[usize],
        row: Sequence,
    ) -> Result<Vec<(Vec<Symbol>, Sequence)>, SampleError> {
        let seen: Vec<Symbol> = positions
            .iter()
            .filter_map(|&p| row.get(p).copied())
            .collect();
        if let Some(step) = self.step() {
            step.turned = Some((positions.to_vec(), seen.clone()));
        }
        Ok(vec![(seen, row)])
    }

    fn observed(
        &mut self,
        site: Site,
        observation: &[Symbol],
        branching: Branching,
        _row: &mut Sequence,
    ) -> Result<(), SampleError> {
        self.run.view.push(Observation {
            span: site.span,
            symbols: observation.to_vec(),
        });
        if let (Branching::Taken(span), Some(step)) = (branching, self.step()) {
            step.branch = Some(span);
        }
        Ok(())
    }

    fn stuck(&mut self, _site: Site, _obs: &[Symbol], row: Sequence) -> Result<(), SampleError> {
        self.finish(RunEnding::Stuck, row);
        Ok(())
    }

    fn result(
        &mut self,
        _site: Site,
        pairs: &[(usize, usize)],
        row: Sequence,
    ) -> Result<(), SampleError> {
        let bits: Vec<Option<bool>> = pairs
            .iter()
            .map(|&(a, b)| decode_bit([row[a], row[b]]))
            .collect();
        let output = match bits.first() {
            Some(Some(first)) if self.several || bits.iter().all(|b| *b == Some(*first)) => {
                Some(*first)
            }
            _ => None,
        };
        self.run.result_bits = bits;
        self.finish(RunEnding::Result(output), row);
        Ok(())
    }

    fn result_number(
        &mut self,
        _site: Site,
        positions: &[usize],
        row: Sequence,
    ) -> Result<(), SampleError> {
        let value = decode_number(&row, positions);
        self.finish(RunEnding::Number(value), row);
        Ok(())
    }

    fn result_card(&mut self, _site: Site, p: usize, row: Sequence) -> Result<(), SampleError> {
        let bit = decode_one_card(row[p]);
        self.run.result_bits = vec![bit];
        self.finish(RunEnding::Result(bit), row);
        Ok(())
    }

    fn end(&mut self, row: Sequence) -> Result<(), SampleError> {
        self.finish(RunEnding::Open, row);
        Ok(())
    }

    fn label(&mut self, _: Site, _: LabelId, _: &mut Sequence) -> Result<Flow, SampleError> {
        Ok(Flow::Continue)
    }

    fn goto(&mut self, _: Site, _: LabelId, _: &mut Sequence) -> Result<Flow, SampleError> {
        Ok(Flow::Continue)
    }

    fn restart(&mut self, _site: Site, row: &mut Sequence) -> Result<Flow, SampleError> {
        row.clone_from(&self.start);
        self.private.fill(None);
        self.set_row(row);
        Ok(Flow::Continue)
    }
}
