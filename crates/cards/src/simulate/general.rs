//! The simulator for the decks a bitmask cannot hold: multiset decks (♦, ♠, `%k`) and
//! standard decks of numbered cards (`#n`).
//!
//! Each trial is the interpreter's sampled run ([`crate::sampled::sample`]) with the trial's
//! own generator ([`TrialRng`]), in the same chunks, shards and order as the compiled program
//! ([`Compiled`](super::Compiled)), so a report has the same fields, merges the same way and does not depend on
//! the thread count. It is slower — each run walks the protocol tree and moves symbols, where
//! the compiled program looks up a table — and it counts the public view only: a protocol with
//! private actions on such a deck is simulated without the players' own views.

use std::collections::HashMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{first_blocks, number_modulus, InputReport, NumberTally, OutputTally};
use super::{ChunkPlan, ViewCount, CHUNK, RNG_DESCRIPTION};
use super::{SimulateError, SimulationReport, TrialRng};
use crate::model::{output_bit, Value};
use crate::print::render_view;
use crate::protocol::Protocol;
use crate::sampled::{sample, RunEnding, SampleError, SampledRun};
use crate::search::{Shard, Trials};

/// Most actions one sampled trial executes before it counts as `gave_up` (the compiled
/// program's limit).
const MAX_STEPS: usize = 1 << 20;

/// A protocol on any deck, simulated by sampled runs.
#[derive(Clone, Debug)]
pub struct General<'p> {
    protocol: &'p Protocol,
}

/// Integer tallies of a set of sampled trials; merged by addition.
#[derive(Clone, Debug, Default)]
struct Sums {
    /// Per input: [out0, out1, not a commitment, open, stuck, gave up].
    outcomes: Vec<[u64; 6]>,
    /// Per input and output (several outputs only): how often it read 0 and 1.
    per_output: Vec<[u64; 2]>,
    /// With a number output, per input and value: how often a committed result held it.
    per_value: Vec<u64>,
    /// Per input: the sum, the sum of squares and the largest of the shuffle counts.
    shuffles: Vec<(u64, u128, u64)>,
    /// View → per-input counts.
    views: HashMap<String, Vec<u64>>,
}

impl<'p> General<'p> {
    /// The simulator of `protocol`: any deck, any inputs.
    pub fn new(protocol: &'p Protocol) -> Result<General<'p>, SimulateError> {
        Ok(General { protocol })
    }

    /// Runs `runs` trials of each input in `inputs` (all when empty) seeded with `seed`, of
    /// only the chunks of `shard` when given, as [`Compiled::simulate_shard`] does.
    ///
    /// [`Compiled::simulate_shard`]: super::Compiled::simulate_shard
    pub fn simulate_shard(
        &self,
        inputs: &[usize],
        (runs, seed): (u64, u64),
        shard: Option<Shard>,
        progress: Option<&(dyn Fn(u64) + Sync)>,
    ) -> Result<SimulationReport, SimulateError> {
        let ChunkPlan {
            chosen,
            per_input,
            chunks,
        } = ChunkPlan::new(self.protocol.input_count(), inputs, runs)?;
        let base_rng = ChaCha8Rng::seed_from_u64(seed);
        let sums = Trials::share(chunks, shard)
            .par_iter()
            .map(|k| {
                let input = chosen[(k / per_input) as usize];
                let c = k % per_input;
                let (from, to) = (c * CHUNK, ((c + 1) * CHUNK).min(runs));
                let mut sums = self.sums();
                let mut blocks = first_blocks(&base_rng, input as u64 * runs + from);
                for r in from..to {
                    let trial = input as u64 * runs + r;
                    let mut rng = TrialRng::next_from(&mut blocks, seed, trial);
                    let run = sample(self.protocol, input, &mut rng, MAX_STEPS, false);
                    self.record(&mut sums, input, run)?;
                }
                if let Some(p) = progress {
                    p(to - from);
                }
                Ok(sums)
            })
            .try_reduce(|| self.sums(), |a, b| Ok(self.merge(a, b)))?;
        let mut report = self.report(&chosen, (runs, seed), sums);
        report.shard = shard;
        Ok(report)
    }

    fn outputs(&self) -> usize {
        let m = self.protocol.output_count();
        if m > 1 {
            m
        } else {
            0
        }
    }

    fn sums(&self) -> Sums {
        let k = self.protocol.input_count();
        Sums {
            outcomes: vec![[0; 6]; k],
            per_output: vec![[0; 2]; k * self.outputs()],
            per_value: vec![0; k * number_modulus(self.protocol)],
            shuffles: vec![(0, 0, 0); k],
            views: HashMap::new(),
        }
    }

    /// Counts one sampled run of `input`.
    fn record(
        &self,
        sums: &mut Sums,
        input: usize,
        run: Result<SampledRun, SampleError>,
    ) -> Result<(), SimulateError> {
        let run = match run {
            Ok(run) => run,
            Err(SampleError::UnboundPrivateBit { .. }) => {
                sums.outcomes[input][4] += 1;
                return Ok(());
            }
            Err(SampleError::Weights { span }) => {
                return Err(SimulateError::Shuffle {
                    span,
                    reason: "weights need a common denominator below 2^64".to_owned(),
                })
            }
        };
        let slot = self.slot(sums, input, &run);
        sums.outcomes[input][slot] += 1;
        let (sum, squares, max) = &mut sums.shuffles[input];
        *sum += run.shuffles;
        *squares += u128::from(run.shuffles) * u128::from(run.shuffles);
        *max = (*max).max(run.shuffles);
        let k = self.protocol.input_count();
        let view = sums
            .views
            .entry(render_view(&run.view))
            .or_insert_with(|| vec![0; k]);
        view[input] += 1;
        Ok(())
    }

    /// The outcome slot of a run (see [`Sums::outcomes`]); several outputs are also counted
    /// one by one.
    fn slot(&self, sums: &mut Sums, input: usize, run: &SampledRun) -> usize {
        let m = self.outputs();
        match &run.ending {
            RunEnding::Result(_) if m > 0 => {
                let bits: Option<Vec<bool>> = run.result_bits.iter().copied().collect();
                let Some(bits) = bits.filter(|b| b.len() == m) else {
                    return 2;
                };
                for (j, &bit) in bits.iter().enumerate() {
                    sums.per_output[input * m + j][usize::from(bit)] += 1;
                }
                let value = bits
                    .iter()
                    .fold(0 as Value, |v, &b| (v << 1) | Value::from(b));
                usize::from(value == self.protocol.values()[input])
            }
            RunEnding::Number(Some(value)) => {
                let modulus = number_modulus(self.protocol);
                sums.per_value[input * modulus + value] += 1;
                usize::from(*value as Value == self.protocol.values()[input])
            }
            RunEnding::Number(None) => 2,
            RunEnding::Result(Some(bit)) => usize::from(*bit),
            RunEnding::Result(None) => 2,
            RunEnding::Open => 3,
            RunEnding::Stuck => 4,
            RunEnding::StepLimit => 5,
        }
    }

    fn merge(&self, mut a: Sums, b: Sums) -> Sums {
        for (x, y) in a.outcomes.iter_mut().zip(&b.outcomes) {
            for (p, q) in x.iter_mut().zip(y) {
                *p += q;
            }
        }
        for (x, y) in a.per_output.iter_mut().zip(&b.per_output) {
            x[0] += y[0];
            x[1] += y[1];
        }
        for (x, y) in a.per_value.iter_mut().zip(&b.per_value) {
            *x += y;
        }
        for (x, y) in a.shuffles.iter_mut().zip(&b.shuffles) {
            *x = (x.0 + y.0, x.1 + y.1, x.2.max(y.2));
        }
        for (view, counts) in b.views {
            let slot = a.views.entry(view).or_insert_with(|| vec![0; counts.len()]);
            for (p, q) in slot.iter_mut().zip(counts) {
                *p += q;
            }
        }
        a
    }

    fn report(&self, chosen: &[usize], (runs, seed): (u64, u64), sums: Sums) -> SimulationReport {
        let p = self.protocol;
        let names = p.function().output_names();
        let m = self.outputs();
        let inputs = chosen
            .iter()
            .map(|&i| {
                let outputs = (0..m)
                    .map(|j| {
                        let [zeros, ones] = sums.per_output[i * m + j];
                        OutputTally {
                            name: names[j].to_owned(),
                            expected: output_bit(p.values()[i], j, m),
                            output_0: zeros,
                            output_1: ones,
                        }
                    })
                    .collect();
                let modulus = number_modulus(p);
                let expected = m > 0 || modulus > 0 || p.values()[i] == 1;
                let label = p.input_labels()[i].clone();
                let number = NumberTally::of_input(modulus, p.values()[i], &sums.per_value, i);
                InputReport::from_sums(label, expected, sums.outcomes[i], sums.shuffles[i], outputs)
                    .with_number(number)
            })
            .collect();
        let mut views: Vec<ViewCount> = sums
            .views
            .into_iter()
            .map(|(view, counts)| ViewCount { view, counts })
            .collect();
        views.sort_by(|a, b| a.view.cmp(&b.view));
        SimulationReport {
            name: p.name().to_owned(),
            seed,
            runs_per_input: runs,
            total_runs: sums.outcomes.iter().flatten().sum(),
            rng: RNG_DESCRIPTION.to_owned(),
            inputs,
            views,
            players: Vec::new(),
            shard: None,
        }
    }
}
