//! The Monte-Carlo simulator: many seeded runs of a protocol in the action model of
//! Mizuki–Shizuya \[MS14\], in parallel, reproducibly.
//!
//! # Compact form
//!
//! A protocol is first compiled ([`Compiled::new`]) to a flat program over rows encoded as
//! bitmasks (bit `j` set when the card at position `j` is ♥; two-colour decks only, up to 64
//! cards; any other deck runs as the interpreter's sampled runs, [`general`], and
//! [`Simulator`] picks the one that fits). Permutations become lookup tables over all `2^n` rows when `n ≤ 12` (a bit loop
//! otherwise), shuffles carry their support and an exact sampler (uniform: one bounded integer;
//! rational weights: one integer below the common denominator compared with cumulative
//! numerators — no floating point, so the sampled distribution is exactly the written one),
//! turns extract the turned bits and jump on them, `goto` and the end of a branch become jumps.
//!
//! # Randomness, one stream per trial
//!
//! Trial `t` (input `i`, run `r`, `t = i · runs + r`) reads its random words from a generator
//! that depends only on `(seed, t)` ([`TrialRng`]), keyed like
//! [`facedown_core::rng::trial_rng`] (`ChaCha8Rng::seed_from_u64(seed)`):
//!
//! 1. its first 16 words are keystream block `t` of stream 0;
//! 2. any further words come from stream `t + 1`, from its start.
//!
//! The pieces of different trials never overlap, so trials are independent. Step 1 is what
//! makes a trial cheap: `rand_chacha` computes four consecutive blocks at once, and consecutive
//! trials use consecutive blocks, so one block computation serves four trials. Most protocols
//! need one or two words per run; giving each trial a fresh stream (`set_stream(t)`) would
//! compute four blocks to use one word, and that was the bottleneck of the five-card trick. The
//! 8-round ChaCha is used for the same reason (the brief allows ChaCha8/12; 8 rounds are far
//! beyond any statistical test a simulation could run).
//!
//! Trials are grouped in fixed chunks whose tallies are integer counts merged by addition, so a
//! run gives **the same report for any number of threads**.
//!
//! # Shards
//!
//! [`Compiled::simulate_shard`] runs the chunks numbered `I − 1` modulo `K` (chunk `c` of the
//! `j`-th simulated input is number `j · ⌈runs / 16384⌉ + c`; a chunk is 16 384 consecutive
//! runs, the last one of an input shorter): the same trials with the same generators as the
//! unsplit run. Its report carries the integer sums (runs, outcomes, views, the sum and the sum
//! of squares of the shuffle counts), and [`merge_reports`] adds the `K` reports up and computes
//! the means and standard errors from the sums, so the merge is the unsplit report bit for bit.
//!
//! # What is reported
//!
//! Per input: how runs ended (output 0 or 1 at a committed result, a result that is not a
//! commitment, a non-committed ending, a missing branch, the step limit), the mean number of
//! shuffles with its standard error, the largest number seen; and the frequency of every view
//! (the observations, rendered as in [`crate::print::render_view`]) per input.
//!
//! # Several outputs
//!
//! A protocol with several named outputs reads pair `j` of its `result` as output `j`. Each
//! output's bits are counted on their own ([`InputReport::outputs`]: how often it read 0 and
//! 1, against the bit its function gives), and the joint reading fills the one-output fields:
//! `expected_output` is `true` and `output_1` counts the committed runs in which *every*
//! output is right, `output_0` those in which some output is wrong.
//!
//! # The private model
//!
//! Private input permutations, private draws and private looks run as the sampled interpreter
//! runs them, draw for draw ([`private`]). Besides the public view, a protocol with a private
//! action has each player's own view counted ([`SimulationReport::players`], one entry per
//! input's holder): the public turns with what he drew (`#k`) and saw, rendered as the exact
//! analyzer renders that player's views, so the two can be compared view by view. A run that
//! chooses by a private bit it never named (named in another branch) ends `stuck`.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use facedown_core::{Perm, Symbol};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::analyze::{explore, AnalysisOptions, Endings};
pub use crate::distribution::Sampler;
use crate::model::{output_bit, ActionKind, Span, Value};
use crate::protocol::Protocol;
use crate::search::shard::Forgery;
use crate::search::{in_shard_order, MergeError, Shard, Trials};

pub mod general;
pub mod private;
pub use general::General;
use private::{extend_view, BitSource, PlayerTally, PrivateRun};
pub use private::{PlayerViews, MAX_PRIVATE_BITS};

/// Why a protocol cannot be simulated by the compiled fast path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimulateError {
    /// The simulator handles two-colour decks only.
    #[error("the simulator handles ♣/♥ decks only; the layout has {0}")]
    Deck(String),
    /// More named private bits (`as r`) than a run keeps ([`MAX_PRIVATE_BITS`]).
    #[error("{0} named private bits is more than the simulator's {MAX_PRIVATE_BITS}")]
    TooManyPrivateBits(usize),
    /// A private action by the holder of an input the protocol does not declare (a
    /// [`Protocol`]'s validation rules it out).
    #[error("`{0}` is no input of the protocol, so nobody holds its private action")]
    Holder(String),
    /// More cards than a 64-bit row holds.
    #[error("{0} cards is more than the simulator's 64")]
    TooManyCards(usize),
    /// A shuffle cannot be sampled exactly.
    #[error("line {}, col {}: {reason}", .span.line, .span.col)]
    Shuffle {
        /// Where it is written.
        span: Span,
        /// What is wrong.
        reason: String,
    },
    /// More runs than trial indices (`runs · inputs` must fit in 64 bits).
    #[error("{0} runs per input do not fit in 64-bit trial indices")]
    TooManyRuns(u64),
    /// An input assignment outside the protocol's inputs.
    #[error("input {0} does not exist")]
    Input(usize),
}

/// How trials get their randomness (recorded in every report).
pub const RNG_DESCRIPTION: &str = "ChaCha8Rng::seed_from_u64(seed); trial t = input*runs + run \
     reads keystream block t of stream 0, then stream t+1";

/// Words per trial taken from the shared stream 0.
const FIRST_WORDS: usize = 16;

/// Stream 0 positioned at block `trial`.
fn first_blocks(base: &ChaCha8Rng, trial: u64) -> ChaCha8Rng {
    let mut rng = base.clone();
    rng.set_word_pos(u128::from(trial) * FIRST_WORDS as u128);
    rng
}

/// The random words of one trial: keystream block `t` of stream 0, then stream `t + 1` (see the
/// [module docs](self)). Depends only on the seed and `t`.
#[derive(Clone, Debug)]
pub struct TrialRng {
    words: [u32; FIRST_WORDS],
    used: usize,
    overflow: Option<Box<ChaCha8Rng>>,
    seed: u64,
    trial: u64,
}

impl TrialRng {
    /// The generator of trial `trial` of a run seeded with `seed`.
    pub fn new(seed: u64, trial: u64) -> TrialRng {
        let base = ChaCha8Rng::seed_from_u64(seed);
        let mut blocks = first_blocks(&base, trial);
        TrialRng::next_from(&mut blocks, seed, trial)
    }

    /// The generator of `trial`, reading its first block from `blocks` (stream 0, positioned
    /// at block `trial`).
    #[inline]
    fn next_from(blocks: &mut ChaCha8Rng, seed: u64, trial: u64) -> TrialRng {
        let mut words = [0u32; FIRST_WORDS];
        for w in &mut words {
            *w = blocks.next_u32();
        }
        TrialRng {
            words,
            used: 0,
            overflow: None,
            seed,
            trial,
        }
    }
}

impl RngCore for TrialRng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        if let Some(&w) = self.words.get(self.used) {
            self.used += 1;
            return w;
        }
        let (seed, trial) = (self.seed, self.trial);
        self.overflow
            .get_or_insert_with(|| {
                let mut r = ChaCha8Rng::seed_from_u64(seed);
                r.set_stream(trial.wrapping_add(1));
                Box::new(r)
            })
            .next_u32()
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        let lo = u64::from(self.next_u32());
        let hi = u64::from(self.next_u32());
        (hi << 32) | lo
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(4) {
            let w = self.next_u32().to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

#[derive(Clone, Debug)]
enum Instr {
    Perm(usize),
    Shuffle {
        perms: Range<usize>,
        sampler: Sampler,
    },
    Turn {
        turn: usize,
        branches: Option<Vec<(u64, usize)>>,
    },
    Jump(usize),
    Result {
        pairs: Vec<(u8, u8)>,
    },
    /// A one-card output: ♥ (a set bit of the row) is 1.
    ResultCard(u8),
    /// A number output, one-hot on these positions.
    ResultNumber(Vec<u8>),
    End,
    Restart,
    /// A private input permutation: `perms[bit]`, the bit from `by`.
    PrivatePerm {
        perms: [usize; 2],
        by: BitSource,
    },
    /// A private draw by the holder of input `holder`; `reg` keeps a two-way draw's bit.
    PrivateDraw {
        holder: usize,
        perms: Range<usize>,
        sampler: Sampler,
        reg: Option<usize>,
        span: Span,
    },
    /// A private look by the holder of input `holder` at the cards of `turns[look]`.
    PrivateLook {
        holder: usize,
        look: usize,
        reg: Option<usize>,
    },
}

/// The cards a turn (or a private look) shows, and where it is written.
#[derive(Clone, Debug)]
struct TurnInfo {
    positions: Vec<u8>,
    span: Span,
}

/// A protocol compiled for fast simulation.
#[derive(Clone, Debug)]
pub struct Compiled {
    n: usize,
    inputs: usize,
    input_names: Vec<String>,
    /// The outputs' names (empty for one unnamed output).
    output_names: Vec<String>,
    /// Per input, the joint value of the outputs (for one output, its bit; for a number
    /// output, the number).
    values: Vec<Value>,
    /// The modulus of a number output (0 for bits).
    modulus: usize,
    initial: Vec<u64>,
    instrs: Vec<Instr>,
    perms: Vec<Vec<u8>>,
    tables: Vec<Vec<u16>>,
    turns: Vec<TurnInfo>,
    base: u64,
    /// The inputs' names, when the protocol has private actions (one view per holder);
    /// empty otherwise.
    holders: Vec<String>,
    /// How many inputs the protocol has (bits of an input assignment).
    arity: usize,
    /// Most instructions one trial may execute before it is counted as `gave_up`.
    pub max_steps: u64,
}

fn row_mask(row: &[Symbol]) -> Result<u64, SimulateError> {
    let mut mask = 0u64;
    for (j, s) in row.iter().enumerate() {
        match s {
            Symbol::Heart => mask |= 1 << j,
            Symbol::Club => {}
            Symbol::Card(_) | Symbol::Kind(_) => return Err(SimulateError::Deck(s.to_string())),
        }
    }
    Ok(mask)
}

fn apply_images(images: &[u8], row: u64) -> u64 {
    let mut out = 0u64;
    let mut bits = row;
    while bits != 0 {
        let j = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        out |= 1 << images[j];
    }
    out
}

struct Compiler<'p> {
    n: usize,
    instrs: Vec<Instr>,
    perms: Vec<Vec<u8>>,
    turns: Vec<TurnInfo>,
    labels: HashMap<&'p str, usize>,
    gotos: Vec<(usize, &'p str)>,
    /// The protocol's input names (the holders of private actions).
    inputs: &'p [String],
    /// The named private bits, by name.
    registers: HashMap<&'p str, usize>,
    /// The largest support of a private draw.
    widest_draw: u64,
}

impl<'p> Compiler<'p> {
    /// Adds a permutation of the row (its size and positions are checked by the
    /// [`Protocol`]'s validation).
    fn add_perm(&mut self, p: &Perm) -> usize {
        self.perms.push(p.images().map(|x| x as u8).collect());
        self.perms.len() - 1
    }

    fn block(&mut self, block: &'p [crate::model::Action]) -> Result<(), SimulateError> {
        for action in block {
            let span = action.span;
            match &action.kind {
                ActionKind::Perm(p) => {
                    let idx = self.add_perm(p);
                    self.instrs.push(Instr::Perm(idx));
                }
                ActionKind::PrivatePerm { .. }
                | ActionKind::PrivateShuffle { .. }
                | ActionKind::PrivateLook { .. }
                | ActionKind::PrivateReverse { .. } => self.private(&action.kind, span)?,
                ActionKind::Shuffle(s) => {
                    let (perms, sampler) = self.support(s, span)?;
                    self.instrs.push(Instr::Shuffle { perms, sampler });
                }
                ActionKind::Turn {
                    positions,
                    branches,
                } => {
                    let turn = self.turns.len();
                    self.turns.push(TurnInfo {
                        positions: positions.iter().map(|&p| p as u8).collect(),
                        span,
                    });
                    let at = self.instrs.len();
                    self.instrs.push(Instr::Turn {
                        turn,
                        branches: None,
                    });
                    if let Some(bs) = branches {
                        let mut table = Vec::new();
                        let mut jumps = Vec::new();
                        for b in bs {
                            let mut key = 0u64;
                            for (j, s) in b.observation.iter().enumerate() {
                                match s {
                                    Symbol::Heart => key |= 1 << j,
                                    Symbol::Club => {}
                                    Symbol::Card(_) | Symbol::Kind(_) => {
                                        return Err(SimulateError::Deck(s.to_string()))
                                    }
                                }
                            }
                            table.push((key, self.instrs.len()));
                            self.block(&b.body)?;
                            jumps.push(self.instrs.len());
                            self.instrs.push(Instr::Jump(0));
                        }
                        let after = self.instrs.len();
                        for j in jumps {
                            self.instrs[j] = Instr::Jump(after);
                        }
                        self.instrs[at] = Instr::Turn {
                            turn,
                            branches: Some(table),
                        };
                    }
                }
                ActionKind::ResultNumber(positions) => self.instrs.push(Instr::ResultNumber(
                    positions.iter().map(|&p| p as u8).collect(),
                )),
                ActionKind::ResultCard(p) => self.instrs.push(Instr::ResultCard(*p as u8)),
                ActionKind::Result(pairs) => {
                    self.instrs.push(Instr::Result {
                        pairs: pairs.iter().map(|&(a, b)| (a as u8, b as u8)).collect(),
                    });
                }
                ActionKind::Label(name) => {
                    self.labels.insert(name, self.instrs.len());
                }
                ActionKind::Goto(name) => {
                    self.gotos.push((self.instrs.len(), name));
                    self.instrs.push(Instr::Jump(0));
                }
                ActionKind::Restart => self.instrs.push(Instr::Restart),
            }
        }
        Ok(())
    }

    /// A shuffle's support added as permutations, with its exact sampler.
    fn support(
        &mut self,
        s: &crate::model::Shuffle,
        span: Span,
    ) -> Result<(Range<usize>, Sampler), SimulateError> {
        let dist = s.distribution(self.n).map_err(|e| SimulateError::Shuffle {
            span,
            reason: e.to_string(),
        })?;
        let start = self.perms.len();
        for (p, _) in &dist {
            self.add_perm(p);
        }
        let sampler = Sampler::new(&dist).ok_or_else(|| SimulateError::Shuffle {
            span,
            reason: "weights need a common denominator below 2^64".to_owned(),
        })?;
        Ok((start..self.perms.len(), sampler))
    }
}

/// How one trial ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A committed result encoding this bit.
    Output(bool),
    /// A committed result of a protocol with several outputs: their joint value (pair `j`
    /// is output `j`, read as [`output_bit`] reads it).
    Outputs(Value),
    /// A committed number output holding this value one-hot.
    Number(Value),
    /// A result whose pairs are no commitment, or disagree.
    NotACommitment,
    /// A non-committed ending.
    Open,
    /// An observation without a branch.
    Stuck,
    /// The step limit.
    GaveUp,
}

/// One trial of the compiled program, as the interpreter's sampled run reports it (the two
/// are tested equal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trial {
    /// How it ended.
    pub outcome: Outcome,
    /// Shuffles executed.
    pub shuffles: u64,
    /// The view, rendered as [`crate::print::render_view`] renders it.
    pub view: String,
}

/// Views longer than this many observations are pooled as `(longer view)`.
const LONG_VIEW: u64 = u64::MAX;
const DENSE: u64 = 4096;

/// Integer tallies of a set of trials; merged by addition.
#[derive(Clone, Debug)]
struct Tally<'c> {
    k: usize,
    /// Per input, the joint value of the outputs (to judge a several-output reading).
    values: &'c [Value],
    /// Outputs of a protocol with several (0 for one output).
    m: usize,
    /// The modulus of a number output (0 for bits).
    modulus: usize,
    /// With a number output, per input and value: how often a committed result held it.
    per_value: Vec<u64>,
    /// Per input: [out0, out1, not a commitment, open, stuck, gave up].
    outcomes: Vec<[u64; 6]>,
    /// With several outputs, per input and output: how often it read 0 and 1.
    per_output: Vec<[u64; 2]>,
    shuffles: Vec<u64>,
    shuffles_sq: Vec<u128>,
    shuffles_max: Vec<u64>,
    dense: Vec<u64>,
    sparse: HashMap<u64, Vec<u64>>,
    /// With private actions, each player's views.
    players: PlayerTally,
}

impl<'c> Tally<'c> {
    fn new(k: usize, values: &'c [Value], m: usize, modulus: usize) -> Tally<'c> {
        Tally {
            k,
            values,
            m,
            modulus,
            per_value: vec![0; k * modulus],
            outcomes: vec![[0; 6]; k],
            per_output: vec![[0; 2]; k * m],
            shuffles: vec![0; k],
            shuffles_sq: vec![0; k],
            shuffles_max: vec![0; k],
            dense: Vec::new(),
            sparse: HashMap::new(),
            players: Vec::new(),
        }
    }

    fn merge(mut self, other: Tally<'c>) -> Tally<'c> {
        for (a, b) in self.per_value.iter_mut().zip(&other.per_value) {
            *a += b;
        }
        for (a, b) in self.per_output.iter_mut().zip(&other.per_output) {
            a[0] += b[0];
            a[1] += b[1];
        }
        for i in 0..self.k {
            for (a, b) in self.outcomes[i].iter_mut().zip(other.outcomes[i]) {
                *a += b;
            }
            self.shuffles[i] += other.shuffles[i];
            self.shuffles_sq[i] += other.shuffles_sq[i];
            self.shuffles_max[i] = self.shuffles_max[i].max(other.shuffles_max[i]);
        }
        if self.dense.len() < other.dense.len() {
            self.dense.resize(other.dense.len(), 0);
        }
        for (a, b) in self.dense.iter_mut().zip(&other.dense) {
            *a += b;
        }
        for (code, counts) in other.sparse {
            let slot = self.sparse.entry(code).or_insert_with(|| vec![0; self.k]);
            for (a, b) in slot.iter_mut().zip(counts) {
                *a += b;
            }
        }
        private::merge_players(&mut self.players, other.players);
        self
    }

    #[inline]
    fn record(&mut self, input: usize, outcome: Outcome, shuffles: u64, view: u64) {
        let slot = match outcome {
            Outcome::Output(false) => 0,
            Outcome::Output(true) => 1,
            Outcome::Outputs(value) => {
                for j in 0..self.m {
                    let bit = output_bit(value, j, self.m);
                    self.per_output[input * self.m + j][usize::from(bit)] += 1;
                }
                usize::from(value == self.values[input])
            }
            Outcome::Number(value) => {
                self.per_value[input * self.modulus + value as usize] += 1;
                usize::from(value == self.values[input])
            }
            Outcome::NotACommitment => 2,
            Outcome::Open => 3,
            Outcome::Stuck => 4,
            Outcome::GaveUp => 5,
        };
        self.outcomes[input][slot] += 1;
        self.shuffles[input] += shuffles;
        self.shuffles_sq[input] += u128::from(shuffles) * u128::from(shuffles);
        if shuffles > self.shuffles_max[input] {
            self.shuffles_max[input] = shuffles;
        }
        if view < DENSE {
            let idx = view as usize * self.k + input;
            if idx >= self.dense.len() {
                self.dense.resize((view as usize + 1) * self.k, 0);
            }
            self.dense[idx] += 1;
        } else {
            self.sparse.entry(view).or_insert_with(|| vec![0; self.k])[input] += 1;
        }
    }
}

/// Per-input results of a simulation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputReport {
    /// The input, first input first.
    pub input: String,
    /// `f(input)` (with several outputs `true`: the joint reading, see the
    /// [module docs](self)).
    pub expected_output: bool,
    /// Runs simulated.
    pub runs: u64,
    /// Runs whose committed result encoded 0 (with several outputs: some output was wrong).
    pub output_0: u64,
    /// Runs whose committed result encoded 1 (with several outputs: every output was right).
    pub output_1: u64,
    /// Runs whose result cards were not a commitment (or several pairs disagreed).
    pub not_a_commitment: u64,
    /// Runs that ended without a result (non-committed: the output is read from the view).
    pub non_committed: u64,
    /// Runs that met an observation without a branch.
    pub stuck: u64,
    /// Runs stopped by the step limit.
    pub gave_up: u64,
    /// Mean number of shuffles.
    pub shuffles_mean: f64,
    /// Standard error of that mean.
    pub shuffles_stderr: f64,
    /// Most shuffles seen in one run.
    pub shuffles_max: u64,
    /// Shuffles in all runs together.
    pub shuffles_sum: u64,
    /// The sum over runs of the square of their shuffle count (a decimal string: it may not
    /// fit in 64 bits).
    #[serde(with = "decimal")]
    pub shuffles_sum_of_squares: u128,
    /// With several outputs, each output's readings at the committed results (empty for one
    /// output, and then left out of the JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<OutputTally>,
    /// With a number output, how often each value was read at the committed results (left
    /// out of the JSON for bits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<NumberTally>,
}

/// How often a number output held each value at the committed results of one input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberTally {
    /// The output's modulus.
    pub modulus: usize,
    /// The value its function gives for the input.
    pub expected: usize,
    /// Committed runs per value, `0 … modulus − 1`.
    pub counts: Vec<u64>,
}

impl NumberTally {
    /// Whether the counts are those of `report`'s committed runs: one per value, adding up
    /// to the runs that held a number, the expected value's being the right ones.
    fn agrees_with(&self, report: &InputReport) -> bool {
        let total = self.counts.iter().try_fold(0u64, |a, &c| a.checked_add(c));
        self.counts.len() == self.modulus
            && self.counts.get(self.expected) == Some(&report.output_1)
            && total == report.output_0.checked_add(report.output_1)
    }

    /// Input `i`'s tally from per-input, per-value counts; `None` for bits (`modulus` 0).
    pub(crate) fn of_input(
        modulus: usize,
        expected: Value,
        per_value: &[u64],
        i: usize,
    ) -> Option<Self> {
        (modulus > 0).then(|| NumberTally {
            modulus,
            expected: expected as usize,
            counts: per_value[i * modulus..(i + 1) * modulus].to_vec(),
        })
    }
}

/// How often one of several outputs read 0 and 1 at the committed results of one input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputTally {
    /// The output's name.
    pub name: String,
    /// The bit its function gives for the input.
    pub expected: bool,
    /// Committed runs in which it read 0.
    pub output_0: u64,
    /// Committed runs in which it read 1.
    pub output_1: u64,
}

impl OutputTally {
    /// Runs in which this output was right.
    pub fn right(&self) -> u64 {
        if self.expected {
            self.output_1
        } else {
            self.output_0
        }
    }
}

/// A `u128` written as a decimal string in JSON (JSON readers lose integers above 2⁵³).
mod decimal {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(n: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&n.to_string())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl InputReport {
    /// The report of one input from its integer sums; `outcomes` counts, in order, outputs 0
    /// and 1, results that are not commitments, non-committed endings, missing branches and
    /// runs stopped by the step limit.
    fn from_sums(
        input: String,
        expected_output: bool,
        outcomes: [u64; 6],
        shuffles: (u64, u128, u64),
        outputs: Vec<OutputTally>,
    ) -> InputReport {
        let (sum, sum_of_squares, max) = shuffles;
        let runs: u64 = outcomes.iter().sum();
        let n = runs.max(1) as f64;
        let mean = sum as f64 / n;
        let var = (sum_of_squares as f64 / n - mean * mean).max(0.0);
        let [output_0, output_1, not_a_commitment, non_committed, stuck, gave_up] = outcomes;
        InputReport {
            input,
            expected_output,
            runs,
            output_0,
            output_1,
            not_a_commitment,
            non_committed,
            stuck,
            gave_up,
            shuffles_mean: mean,
            shuffles_stderr: (var / n).sqrt(),
            shuffles_max: max,
            shuffles_sum: sum,
            shuffles_sum_of_squares: sum_of_squares,
            outputs,
            number: None,
        }
    }

    /// The same report with a number output's tally.
    pub(crate) fn with_number(mut self, number: Option<NumberTally>) -> InputReport {
        self.number = number;
        self
    }

    /// The outcome counts, in the order of [`InputReport::from_sums`].
    fn outcomes(&self) -> [u64; 6] {
        [
            self.output_0,
            self.output_1,
            self.not_a_commitment,
            self.non_committed,
            self.stuck,
            self.gave_up,
        ]
    }
}

/// How often one view was seen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViewCount {
    /// The observations, as in [`crate::print::render_view`].
    pub view: String,
    /// Per input, how many runs saw it.
    pub counts: Vec<u64>,
}

/// The result of a simulation (or of one shard of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulationReport {
    /// The protocol's name.
    pub name: String,
    /// The seed.
    pub seed: u64,
    /// Runs per simulated input.
    pub runs_per_input: u64,
    /// Total runs.
    pub total_runs: u64,
    /// The generator and its per-trial derivation.
    pub rng: String,
    /// Per input.
    pub inputs: Vec<InputReport>,
    /// Per view, sorted by view.
    pub views: Vec<ViewCount>,
    /// With private actions, each player's views (the holder of each input in order; empty,
    /// and left out of the JSON, for a protocol without private actions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<PlayerViews>,
    /// The shard simulated, if any (see the [module docs](self)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl SimulationReport {
    /// Per simulated input, the runs whose output equals f(input): the committed result
    /// decoded, or for a non-committed ending the output its view determines, read from the
    /// exact analysis of `protocol` (a view that determines no output, or a protocol the
    /// analyzer cannot explore, counts as wrong). `chosen` is the one input simulated, when
    /// only one was.
    ///
    /// Which views end open is a property of the protocol, so the count of a whole run is the
    /// sum of its shards' counts. A view of a mixed protocol that ends committed is counted by
    /// its decoded result only; when the analyzer cannot list those views (a looping mixed
    /// protocol) the count is capped at the input's runs.
    pub fn correct_runs(&self, protocol: &Protocol, chosen: Option<usize>) -> Vec<u64> {
        let open = OpenViews::of(protocol);
        self.inputs
            .iter()
            .enumerate()
            .map(|(col, r)| {
                let committed = if r.expected_output {
                    r.output_1
                } else {
                    r.output_0
                };
                let column = chosen.unwrap_or(col);
                let expected = protocol.values().get(column).copied();
                let from_views = self
                    .views
                    .iter()
                    .filter(|v| expected.is_some() && open.output(&v.view) == Some(expected))
                    .fold(0u64, |a, v| a.saturating_add(v.counts[column]));
                committed.saturating_add(from_views).min(r.runs)
            })
            .collect()
    }
}

/// The views of a protocol's non-committed endings, each with the output it determines (if
/// any), from the exact analysis.
struct OpenViews {
    outputs: BTreeMap<String, Option<Value>>,
    /// The views that end committed, for a mixed protocol; `None` when every view listed in
    /// `outputs` ends open, or when they cannot be listed.
    committed: Option<std::collections::BTreeSet<String>>,
}

impl OpenViews {
    fn of(protocol: &Protocol) -> OpenViews {
        let none = OpenViews {
            outputs: BTreeMap::new(),
            committed: None,
        };
        let Ok(ex) = explore(protocol, &AnalysisOptions::default()) else {
            return none;
        };
        let committed = match ex.endings() {
            Endings::Committed => return none,
            Endings::NonCommitted => None,
            Endings::Mixed => ex.committed_view_names(),
        };
        let outputs = ex.view_outputs().ok().flatten().unwrap_or_default();
        OpenViews { outputs, committed }
    }

    /// The output a view of an open ending determines (`Some(None)`: none), or `None` for a
    /// view that ends committed or that the analysis does not know.
    fn output(&self, view: &str) -> Option<Option<Value>> {
        if self.committed.as_ref().is_some_and(|c| c.contains(view)) {
            return None;
        }
        self.outputs.get(view).copied()
    }
}

/// Trials per chunk (the unit of parallel work).
const CHUNK: u64 = 1 << 14;

/// The inputs a simulation runs and its chunks: chunk `k` is chunk `k mod per_input` of input
/// `chosen[k / per_input]`.
struct ChunkPlan {
    chosen: Vec<usize>,
    per_input: u64,
    chunks: u64,
}

impl ChunkPlan {
    /// The plan for `runs` runs of each of `inputs` (all `count` inputs when empty).
    fn new(count: usize, inputs: &[usize], runs: u64) -> Result<ChunkPlan, SimulateError> {
        let chosen: Vec<usize> = if inputs.is_empty() {
            (0..count).collect()
        } else {
            inputs.to_vec()
        };
        if let Some(&bad) = chosen.iter().find(|&&i| i >= count) {
            return Err(SimulateError::Input(bad));
        }
        if runs.checked_mul(count as u64).is_none() {
            return Err(SimulateError::TooManyRuns(runs));
        }
        // Chunks are numbered, not listed: their number grows with `runs`, memory must not.
        let per_input = runs.div_ceil(CHUNK);
        let chunks = per_input
            .checked_mul(chosen.len() as u64)
            .ok_or(SimulateError::TooManyRuns(runs))?;
        Ok(ChunkPlan {
            chosen,
            per_input,
            chunks,
        })
    }
}

/// The modulus of a protocol's number output, 0 when its outputs are bits.
pub(crate) fn number_modulus(protocol: &Protocol) -> usize {
    if protocol.has_numbers() {
        protocol.moduli()[0]
    } else {
        0
    }
}

/// The outcome of a number `result` on `row`: the value its positions hold one-hot.
fn read_number(positions: &[u8], row: u64) -> Outcome {
    let hearts: Vec<usize> = (0..positions.len())
        .filter(|&j| (row >> positions[j]) & 1 == 1)
        .collect();
    match hearts[..] {
        [value] => Outcome::Number(value as Value),
        _ => Outcome::NotACommitment,
    }
}

/// The digits of a view code, first observation first (each digit is its key).
fn view_digits(code: u64, base: u64) -> Vec<u64> {
    let mut digits = Vec::new();
    let mut c = code;
    while c > 0 {
        digits.push((c % base).saturating_sub(1));
        c /= base;
    }
    digits.reverse();
    digits
}

impl Compiled {
    /// Compiles a protocol.
    pub fn new(protocol: &Protocol) -> Result<Compiled, SimulateError> {
        let n = protocol.cards();
        if n > 64 {
            return Err(SimulateError::TooManyCards(n));
        }
        let count = protocol.input_count();
        let initial = (0..count)
            .map(|i| row_mask(protocol.start_row(i)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut c = Compiler {
            n,
            instrs: Vec::new(),
            perms: Vec::new(),
            turns: Vec::new(),
            labels: HashMap::new(),
            gotos: Vec::new(),
            inputs: protocol.inputs(),
            registers: HashMap::new(),
            widest_draw: 0,
        };
        c.block(protocol.body())?;
        c.instrs.push(Instr::End);
        for (at, label) in std::mem::take(&mut c.gotos) {
            // Every goto target is defined (the protocol's validation checks it).
            let target = c.labels.get(label).copied().unwrap_or(at);
            c.instrs[at] = Instr::Jump(target);
        }
        let tables = if n <= 12 {
            c.perms
                .iter()
                .map(|images| {
                    (0..1u64 << n)
                        .map(|row| apply_images(images, row) as u16)
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        let widest = c.turns.iter().map(|t| t.positions.len()).max().unwrap_or(0);
        let base = if widest >= 63 {
            u64::MAX
        } else {
            ((1u64 << widest) + 1).max(c.widest_draw + 1)
        };
        let has_private = c.instrs.iter().any(|i| {
            matches!(
                i,
                Instr::PrivatePerm { .. } | Instr::PrivateDraw { .. } | Instr::PrivateLook { .. }
            )
        });
        let holders = if has_private {
            protocol.inputs().to_vec()
        } else {
            Vec::new()
        };
        Ok(Compiled {
            n,
            inputs: count,
            input_names: protocol.input_labels().to_vec(),
            output_names: protocol
                .function()
                .output_names()
                .into_iter()
                .map(str::to_owned)
                .collect(),
            values: protocol.values().to_vec(),
            modulus: number_modulus(protocol),
            initial,
            instrs: c.instrs,
            perms: c.perms,
            tables,
            turns: c.turns,
            base,
            holders,
            arity: protocol.inputs().len(),
            max_steps: 1 << 20,
        })
    }

    /// Number of cards.
    pub fn cards(&self) -> usize {
        self.n
    }

    /// Number of input assignments.
    pub fn input_count(&self) -> usize {
        self.inputs
    }

    #[inline]
    fn permute(&self, perm: usize, row: u64) -> u64 {
        match self.tables.get(perm) {
            Some(t) => u64::from(t[row as usize]),
            None => apply_images(&self.perms[perm], row),
        }
    }

    #[inline]
    fn observe(&self, turn: usize, row: u64) -> u64 {
        let mut key = 0u64;
        for (j, &p) in self.turns[turn].positions.iter().enumerate() {
            key |= ((row >> p) & 1) << j;
        }
        key
    }

    /// Runs one trial of input assignment `input` with `rng` (the run
    /// [`crate::sampled::sample`] makes with the same generator).
    ///
    /// # Panics
    /// When `input >= input_count()`.
    pub fn run_trial<R: Rng + ?Sized>(&self, input: usize, rng: &mut R) -> Trial {
        let (outcome, shuffles, view) = self.trial(input, rng, &mut PrivateRun::new(0));
        Trial {
            outcome,
            shuffles,
            view: self.render_view(view),
        }
    }

    /// Runs one trial of input `input` with `rng`; returns (outcome, shuffles, view code) and
    /// leaves each player's view in `run` (when it has a slot for each).
    #[inline]
    fn trial<R: Rng + ?Sized>(
        &self,
        input: usize,
        rng: &mut R,
        run: &mut PrivateRun,
    ) -> (Outcome, u64, u64) {
        let mut row = self.initial[input];
        let mut pc = 0usize;
        let mut shuffles = 0u64;
        let mut view = 0u64;
        let mut steps = 0u64;
        loop {
            steps += 1;
            if steps > self.max_steps {
                return (Outcome::GaveUp, shuffles, view);
            }
            let Some(instr) = self.instrs.get(pc) else {
                return (Outcome::Open, shuffles, view);
            };
            pc += 1;
            match instr {
                Instr::Perm(p) => row = self.permute(*p, row),
                Instr::Shuffle { perms, sampler } => {
                    let pick = sampler.pick(rng);
                    row = self.permute(perms.start + pick, row);
                    shuffles += 1;
                }
                Instr::Turn { turn, branches } => {
                    let key = self.observe(*turn, row);
                    view = extend_view(view, key, self.base);
                    for v in &mut run.views {
                        *v = extend_view(*v, key, self.base);
                    }
                    if let Some(bs) = branches {
                        match bs.iter().find(|(k, _)| *k == key) {
                            Some(&(_, target)) => pc = target,
                            None => return (Outcome::Stuck, shuffles, view),
                        }
                    }
                }
                Instr::Jump(t) => pc = *t,
                Instr::Result { pairs } => return (self.read_result(pairs, row), shuffles, view),
                Instr::ResultCard(p) => {
                    return (Outcome::Output((row >> p) & 1 == 1), shuffles, view);
                }
                Instr::ResultNumber(positions) => {
                    return (read_number(positions, row), shuffles, view);
                }
                Instr::End => return (Outcome::Open, shuffles, view),
                Instr::Restart => {
                    row = self.initial[input];
                    run.forget_bits();
                    pc = 0;
                }
                Instr::PrivatePerm { .. }
                | Instr::PrivateDraw { .. }
                | Instr::PrivateLook { .. } => {
                    match self.private_step(instr, input, row, rng, run) {
                        Ok(next) => row = next,
                        Err(outcome) => return (outcome, shuffles, view),
                    }
                }
            }
        }
    }

    /// The outcome of a committed `result` on `row`: one output carried by every pair (they
    /// must agree), or with several outputs pair `j` read as output `j`.
    #[inline]
    fn read_result(&self, pairs: &[(u8, u8)], row: u64) -> Outcome {
        let several = self.output_names.len() > 1;
        let mut out: Option<bool> = None;
        let mut joint: Value = 0;
        for &(a, b) in pairs {
            let bit = match ((row >> a) & 1, (row >> b) & 1) {
                (0, 1) => false,
                (1, 0) => true,
                _ => return Outcome::NotACommitment,
            };
            if several {
                joint = (joint << 1) | Value::from(bit);
            } else if out.is_some_and(|o| o != bit) {
                return Outcome::NotACommitment;
            }
            out = Some(bit);
        }
        match out {
            Some(_) if several => Outcome::Outputs(joint),
            Some(bit) => Outcome::Output(bit),
            None => Outcome::NotACommitment,
        }
    }

    /// Renders a view code as observations, replaying the control flow.
    pub fn render_view(&self, code: u64) -> String {
        if code == LONG_VIEW {
            return "(longer view)".to_owned();
        }
        let digits = view_digits(code, self.base);
        if digits.is_empty() {
            return "(nothing)".to_owned();
        }
        let mut parts = Vec::new();
        let mut pc = 0usize;
        let mut next = digits.into_iter();
        while let Some(instr) = self.instrs.get(pc) {
            pc += 1;
            match instr {
                Instr::Turn { turn, branches } => {
                    let Some(key) = next.next() else { break };
                    let width = self.turns[*turn].positions.len();
                    parts.push(
                        (0..width)
                            .map(|j| if (key >> j) & 1 == 1 { '♥' } else { '♣' })
                            .collect::<String>(),
                    );
                    if let Some(bs) = branches {
                        match bs.iter().find(|(k, _)| *k == key) {
                            Some(&(_, t)) => pc = t,
                            None => break,
                        }
                    }
                }
                Instr::Jump(t) => pc = *t,
                Instr::Restart => pc = 0,
                Instr::Result { .. }
                | Instr::ResultCard(_)
                | Instr::ResultNumber(_)
                | Instr::End => break,
                _ => {}
            }
        }
        parts.join(" / ")
    }

    /// Runs `runs` trials of each input in `inputs` (all inputs when empty), seeded with `seed`,
    /// on the current rayon pool. `progress` is called with the number of trials finished by
    /// each chunk.
    pub fn simulate(
        &self,
        name: &str,
        inputs: &[usize],
        runs: u64,
        seed: u64,
        progress: Option<&(dyn Fn(u64) + Sync)>,
    ) -> Result<SimulationReport, SimulateError> {
        self.simulate_shard(name, inputs, runs, seed, None, progress)
    }

    /// [`Compiled::simulate`], of only the chunks of `shard` (all of them without one; see
    /// the [module docs](self)); [`merge_reports`] adds the shards' reports up.
    pub fn simulate_shard(
        &self,
        name: &str,
        inputs: &[usize],
        runs: u64,
        seed: u64,
        shard: Option<Shard>,
        progress: Option<&(dyn Fn(u64) + Sync)>,
    ) -> Result<SimulationReport, SimulateError> {
        let ChunkPlan {
            chosen,
            per_input,
            chunks,
        } = ChunkPlan::new(self.inputs, inputs, runs)?;
        let base_rng = ChaCha8Rng::seed_from_u64(seed);
        let tally = Trials::share(chunks, shard)
            .par_iter()
            .map(|k| {
                let input = chosen[(k / per_input) as usize];
                let c = k % per_input;
                (input, c * CHUNK, ((c + 1) * CHUNK).min(runs))
            })
            .map(|(input, from, to)| {
                let mut tally = self.tally();
                let mut blocks = first_blocks(&base_rng, input as u64 * runs + from);
                let mut run = PrivateRun::new(self.holders.len());
                for r in from..to {
                    let trial = input as u64 * runs + r;
                    let mut rng = TrialRng::next_from(&mut blocks, seed, trial);
                    run.reset();
                    let (outcome, shuffles, view) = self.trial(input, &mut rng, &mut run);
                    tally.record(input, outcome, shuffles, view);
                    private::record_players(&mut tally.players, self.inputs, input, &run.views);
                }
                if let Some(p) = progress {
                    p(to - from);
                }
                tally
            })
            .reduce(|| self.tally(), Tally::merge);
        let mut report = self.report(name, &chosen, runs, seed, tally);
        report.shard = shard;
        Ok(report)
    }

    /// An empty tally of this program's inputs and outputs.
    fn tally(&self) -> Tally<'_> {
        let m = if self.output_names.len() > 1 {
            self.output_names.len()
        } else {
            0
        };
        let mut tally = Tally::new(self.inputs, &self.values, m, self.modulus);
        tally.players = vec![HashMap::new(); self.holders.len()];
        tally
    }

    /// With several outputs, each output's readings for input `i` (empty for one output).
    fn output_tallies(&self, tally: &Tally<'_>, i: usize) -> Vec<OutputTally> {
        let m = tally.m;
        (0..m)
            .map(|j| {
                let [zeros, ones] = tally.per_output[i * m + j];
                OutputTally {
                    name: self.output_names[j].clone(),
                    expected: output_bit(self.values[i], j, m),
                    output_0: zeros,
                    output_1: ones,
                }
            })
            .collect()
    }

    fn report(
        &self,
        name: &str,
        chosen: &[usize],
        runs: u64,
        seed: u64,
        tally: Tally<'_>,
    ) -> SimulationReport {
        let several = tally.m > 0 || tally.modulus > 0;
        let inputs = chosen
            .iter()
            .map(|&i| {
                InputReport::from_sums(
                    self.input_names[i].clone(),
                    several || self.values[i] == 1,
                    tally.outcomes[i],
                    (
                        tally.shuffles[i],
                        tally.shuffles_sq[i],
                        tally.shuffles_max[i],
                    ),
                    self.output_tallies(&tally, i),
                )
                .with_number(NumberTally::of_input(
                    tally.modulus,
                    self.values[i],
                    &tally.per_value,
                    i,
                ))
            })
            .collect();
        let mut views: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        let k = self.inputs;
        let mut add = |code: u64, counts: &[u64]| {
            if counts.iter().any(|&c| c > 0) {
                let slot = views
                    .entry(self.render_view(code))
                    .or_insert_with(|| vec![0; k]);
                for (a, b) in slot.iter_mut().zip(counts) {
                    *a += b;
                }
            }
        };
        for (code, counts) in tally.dense.chunks(k).enumerate() {
            add(code as u64, counts);
        }
        for (code, counts) in &tally.sparse {
            add(*code, counts);
        }
        SimulationReport {
            name: name.to_owned(),
            seed,
            runs_per_input: runs,
            total_runs: tally.outcomes.iter().flatten().sum(),
            rng: RNG_DESCRIPTION.to_owned(),
            inputs,
            views: views
                .into_iter()
                .map(|(view, counts)| ViewCount { view, counts })
                .collect(),
            players: self.player_views(&tally.players),
            shard: None,
        }
    }
}

/// The runs of the `position`-th simulated input that `shard` simulates, of `runs` per input:
/// its chunks of that input (see the [module docs](self)), the last one possibly short.
fn shard_runs(runs: u64, position: u64, shard: Shard) -> u64 {
    let per_input = runs.div_ceil(CHUNK);
    let (Some(first), Some(end)) = (
        position.checked_mul(per_input),
        (position + 1).checked_mul(per_input),
    ) else {
        return 0;
    };
    let owned = |upto: u64| Trials::share(upto, Some(shard)).len();
    let full = u128::from(owned(end) - owned(first)) * u128::from(CHUNK);
    let short = if end > first && shard_owns(shard, end - 1) {
        u128::from(per_input) * u128::from(CHUNK) - u128::from(runs)
    } else {
        0
    };
    u64::try_from(full - short).unwrap_or(u64::MAX)
}

/// Whether chunk `k` is one of `shard`'s.
fn shard_owns(shard: Shard, k: u64) -> bool {
    Trials::share(u64::MAX, Some(shard)).contains(k)
}

/// What a shard report says of one input besides its counts: its name, its expected output
/// and, with several outputs, each output's name and expected bit.
type InputLabel = (String, bool, Vec<(String, bool)>);

/// What differs between two shard reports that must describe one run, if anything.
fn other_run(first: &SimulationReport, p: &SimulationReport) -> Option<String> {
    let labels = |r: &SimulationReport| -> Vec<InputLabel> {
        r.inputs
            .iter()
            .map(|i| {
                let outputs = i.outputs.iter().map(|o| (o.name.clone(), o.expected));
                (i.input.clone(), i.expected_output, outputs.collect())
            })
            .collect()
    };
    if (&p.name, p.seed, p.runs_per_input, &p.rng)
        != (&first.name, first.seed, first.runs_per_input, &first.rng)
    {
        return Some(format!(
            "it simulates {} with seed {} and {} runs per input, the first shard {} with seed {} \
             and {}",
            p.name, p.seed, p.runs_per_input, first.name, first.seed, first.runs_per_input
        ));
    }
    (labels(p) != labels(first)).then(|| "it simulates other inputs".to_owned())
}

/// Adds `from` into `into`, or `None` when the lengths differ or a sum overflows.
fn add_counts(into: &mut [u64], from: &[u64]) -> Option<()> {
    if into.len() != from.len() {
        return None;
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a = a.checked_add(*b)?;
    }
    Some(())
}

/// The shuffle counts of `r`'s runs are possible: with `n` runs of `s_i` shuffles, sum `S`,
/// largest `M` and sum of squares `Q`: `M ≤ S ≤ n·M`, `M² ≤ Q ≤ M·S` and `S² ≤ n·Q`
/// (Cauchy–Schwarz); all zero without runs. In 128 bits, where none of these overflows but
/// `n·Q`, which then exceeds `S²`.
fn check_shuffle_counts(r: &InputReport) -> Result<(), Forgery> {
    let (n, sum, max, squares) = (
        u128::from(r.runs),
        u128::from(r.shuffles_sum),
        u128::from(r.shuffles_max),
        r.shuffles_sum_of_squares,
    );
    let possible = if n == 0 {
        sum == 0 && max == 0 && squares == 0
    } else {
        max <= sum
            && sum <= n * max
            && max * max <= squares
            && squares <= max * sum
            && n.checked_mul(squares).is_none_or(|nq| sum * sum <= nq)
    };
    if possible {
        return Ok(());
    }
    Err(Forgery::ShuffleCounts {
        input: r.input.clone(),
        runs: r.runs,
        sum: r.shuffles_sum,
        max: r.shuffles_max,
        sum_of_squares: r.shuffles_sum_of_squares,
    })
}

/// With several outputs, each output was read at exactly the committed runs, and right at
/// least whenever every output was.
fn check_readings(r: &InputReport) -> Result<(), Forgery> {
    let committed = r.output_0.checked_add(r.output_1);
    let wrong = r
        .outputs
        .iter()
        .find(|o| o.output_0.checked_add(o.output_1) != committed || o.right() < r.output_1);
    match wrong {
        Some(o) => Err(Forgery::OutputReadings {
            input: r.input.clone(),
            output: o.name.clone(),
        }),
        None => Ok(()),
    }
}

/// A shard's total runs, public views and players' views are those of its inputs' runs.
fn check_views_of(p: &SimulationReport, width: &mut Option<usize>) -> Result<(), Forgery> {
    let sum = p.inputs.iter().try_fold(0u64, |a, r| a.checked_add(r.runs));
    if sum != Some(p.total_runs) {
        return Err(Forgery::TotalRuns {
            claimed: p.total_runs,
            sum,
        });
    }
    if let Some(v) = p.views.iter().find(|v| !well_formed_view(&v.view)) {
        return Err(Forgery::MalformedView {
            view: v.view.clone(),
        });
    }
    check_views(&p.views, &p.inputs, "view", width)?;
    for player in &p.players {
        let whose = format!("view of player {}", player.player);
        check_views(&player.views, &p.inputs, &whose, width)?;
    }
    Ok(())
}

/// One list of views: each listed once, seen by some run, with one count per input of the
/// protocol (`width`, the same in every list), counting the runs of `inputs`
/// ([`check_view_runs`]).
fn check_views(
    views: &[ViewCount],
    inputs: &[InputReport],
    whose: &str,
    width: &mut Option<usize>,
) -> Result<(), Forgery> {
    let mut listed = std::collections::HashSet::new();
    let mut seen: Vec<Option<u64>> = Vec::new();
    for v in views {
        let (whose, view) = (whose.to_owned(), v.view.clone());
        let expected = *width.get_or_insert(v.counts.len().max(inputs.len()));
        let got = v.counts.len();
        if got != expected {
            return Err(Forgery::ViewWidth {
                whose,
                view,
                got,
                expected,
            });
        }
        if !listed.insert(&v.view) {
            return Err(Forgery::ViewTwice { whose, view });
        }
        if v.counts.iter().all(|&c| c == 0) {
            return Err(Forgery::UnseenView { whose, view });
        }
        seen.resize(expected, Some(0));
        for (s, &c) in seen.iter_mut().zip(&v.counts) {
            *s = s.and_then(|s| s.checked_add(c));
        }
        if seen.iter().filter(|s| **s != Some(0)).count() > inputs.len() {
            return Err(Forgery::ViewOfAnotherInput { whose, view });
        }
    }
    check_view_runs(&seen, inputs, whose)
}

/// The views count the runs: per input when every input was simulated (the columns `seen`
/// are the inputs, in order), else all inputs together. Each run sees one view, but a run
/// stuck on a private bit it never named may see none.
fn check_view_runs(
    seen: &[Option<u64>],
    inputs: &[InputReport],
    whose: &str,
) -> Result<(), Forgery> {
    let check = |input: Option<String>, seen: Option<u64>, (runs, stuck): (u64, u64)| {
        if seen.is_some_and(|s| s <= runs && s >= runs.saturating_sub(stuck)) {
            return Ok(());
        }
        Err(Forgery::ViewRuns {
            whose: whose.to_owned(),
            input,
            seen,
            runs,
            stuck,
        })
    };
    if seen.len() == inputs.len() {
        for (r, s) in inputs.iter().zip(seen) {
            check(Some(r.input.clone()), *s, (r.runs, r.stuck))?;
        }
        return Ok(());
    }
    let all_seen = seen.iter().try_fold(0u64, |a, s| a.checked_add((*s)?));
    // The runs add up (the shard's total is their sum), and the stuck ones are among them.
    let runs = inputs.iter().map(|r| r.runs).fold(0, u64::saturating_add);
    let stuck = inputs.iter().map(|r| r.stuck).fold(0, u64::saturating_add);
    check(None, all_seen, (runs, stuck))
}

/// Whether `view` is written as the simulator writes a view: `(nothing)`, `(longer view)`, or
/// observations of card symbols joined by ` / ` (each in the canonical form that
/// [`crate::print::render_view`] writes).
fn well_formed_view(view: &str) -> bool {
    if view == "(nothing)" || view == "(longer view)" {
        return true;
    }
    view.split(" / ").all(|obs| {
        observation_symbols(obs).is_some_and(|s| !s.is_empty() && crate::print::glyphs(&s) == obs)
    })
}

/// The symbols of one observation as written (`♣♥`, `#3#1`, `%2♦`), or `None` when something
/// else is written.
fn observation_symbols(obs: &str) -> Option<Vec<Symbol>> {
    let mut out = Vec::new();
    let mut rest = obs;
    while let Some(c) = rest.chars().next() {
        let len = match c {
            '♣' | '♥' | '♦' | '♠' => c.len_utf8(),
            '#' | '%' => {
                1 + rest[1..]
                    .find(|d: char| !d.is_ascii_digit())
                    .unwrap_or(rest.len() - 1)
            }
            _ => return None,
        };
        out.push(rest[..len].parse().ok()?);
        rest = &rest[len..];
    }
    Some(out)
}

/// Adds up the shards' correct runs ([`SimulationReport::correct_runs`]), each given with its
/// shard's report: one count per simulated input, at least the committed runs that were right
/// and at most the input's runs.
pub fn merge_correct_runs(parts: &[(&SimulationReport, &[u64])]) -> Result<Vec<u64>, MergeError> {
    let mut sums = vec![0u64; parts.first().map_or(0, |(_, c)| c.len())];
    for (position, (report, correct)) in parts.iter().enumerate() {
        let shard = report.shard.ok_or(MergeError::NotAShard {
            position: position + 1,
        })?;
        let differs = |what: &str| MergeError::Inconsistent {
            shard,
            what: what.to_owned(),
        };
        if correct.len() != report.inputs.len() || correct.len() != sums.len() {
            return Err(differs("its correct runs are not one per simulated input"));
        }
        for ((sum, &c), r) in sums.iter_mut().zip(correct.iter()).zip(&report.inputs) {
            let least = if r.expected_output {
                r.output_1
            } else {
                r.output_0
            };
            if c < least || c > r.runs {
                let forgery = Forgery::CorrectRuns {
                    input: r.input.clone(),
                    correct: c,
                    least,
                    runs: r.runs,
                };
                return Err(MergeError::Forged { shard, forgery });
            }
            *sum = sum
                .checked_add(c)
                .ok_or_else(|| differs("its correct runs overflow the sums"))?;
        }
    }
    Ok(sums)
}

/// Adds up the reports of the shards `1/K … K/K` of one simulation into the report of the
/// unsplit run, bit for bit (see the [module docs](self)). Refuses parts that are not each
/// shard once, that describe different runs, whose runs are not their share, or whose counts
/// no run can have produced ([`Forgery`]: shuffle sums, readings, views, totals).
pub fn merge_reports(parts: Vec<SimulationReport>) -> Result<SimulationReport, MergeError> {
    let parts = in_shard_order(parts, |r| r.shard)?;
    let first = &parts[0].1;
    let mut outcomes = vec![[0u64; 6]; first.inputs.len()];
    let mut shuffles = vec![(0u64, 0u128, 0u64); first.inputs.len()];
    let mut per_output: Vec<Vec<OutputTally>> = first
        .inputs
        .iter()
        .map(|r| {
            let zero = |o: &OutputTally| OutputTally {
                output_0: 0,
                output_1: 0,
                ..o.clone()
            };
            r.outputs.iter().map(zero).collect()
        })
        .collect();
    let mut numbers: Vec<Option<NumberTally>> = first
        .inputs
        .iter()
        .map(|r| {
            r.number.as_ref().map(|n| NumberTally {
                counts: vec![0; n.counts.len()],
                ..n.clone()
            })
        })
        .collect();
    let mut views: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut players = private::PlayerSums::new(&first.players);
    // One count per input of the protocol in every view of every shard.
    let mut width: Option<usize> = None;
    for (shard, p) in &parts {
        let differs = |what: String| MergeError::Inconsistent {
            shard: *shard,
            what,
        };
        let overflow = || differs("its counts overflow the sums".into());
        if let Some(what) = other_run(first, p) {
            return Err(differs(what));
        }
        let forged = |forgery| MergeError::Forged {
            shard: *shard,
            forgery,
        };
        for (j, r) in p.inputs.iter().enumerate() {
            let share = shard_runs(first.runs_per_input, j as u64, *shard);
            if r.runs != share
                || r.outcomes().iter().try_fold(0u64, |a, &b| a.checked_add(b)) != Some(share)
            {
                return Err(differs(format!(
                    "it reports {} runs of input {}, its share is {share}",
                    r.runs, r.input
                )));
            }
            check_shuffle_counts(r)
                .and_then(|()| check_readings(r))
                .map_err(forged)?;
            add_counts(&mut outcomes[j], &r.outcomes()).ok_or_else(overflow)?;
            for (sum, o) in per_output[j].iter_mut().zip(&r.outputs) {
                sum.output_0 = sum.output_0.checked_add(o.output_0).ok_or_else(overflow)?;
                sum.output_1 = sum.output_1.checked_add(o.output_1).ok_or_else(overflow)?;
            }
            match (&mut numbers[j], &r.number) {
                (Some(sum), Some(n)) if sum.modulus == n.modulus && sum.expected == n.expected => {
                    if !n.agrees_with(r) {
                        let what = format!(
                            "its value counts of input {} do not match its committed runs",
                            r.input
                        );
                        return Err(differs(what));
                    }
                    add_counts(&mut sum.counts, &n.counts).ok_or_else(overflow)?;
                }
                (None, None) => {}
                _ => {
                    let what = format!("its number output of input {} differs", r.input);
                    return Err(differs(what));
                }
            }
            let (sum, squares, max) = &mut shuffles[j];
            *sum = sum.checked_add(r.shuffles_sum).ok_or_else(overflow)?;
            *squares = squares
                .checked_add(r.shuffles_sum_of_squares)
                .ok_or_else(overflow)?;
            *max = (*max).max(r.shuffles_max);
        }
        check_views_of(p, &mut width).map_err(forged)?;
        for v in &p.views {
            let slot = views
                .entry(v.view.clone())
                .or_insert_with(|| vec![0; v.counts.len()]);
            add_counts(slot, &v.counts)
                .ok_or_else(|| differs(format!("its counts of view {} do not add up", v.view)))?;
        }
        players.add(&p.players).map_err(differs)?;
    }
    let inputs: Vec<InputReport> = first
        .inputs
        .iter()
        .zip(outcomes)
        .zip(shuffles)
        .zip(per_output)
        .zip(numbers)
        .map(|((((r, o), s), outs), number)| {
            InputReport::from_sums(r.input.clone(), r.expected_output, o, s, outs)
                .with_number(number)
        })
        .collect();
    Ok(SimulationReport {
        name: first.name.clone(),
        seed: first.seed,
        runs_per_input: first.runs_per_input,
        total_runs: inputs.iter().map(|r| r.runs).sum(),
        rng: first.rng.clone(),
        inputs,
        views: views
            .into_iter()
            .map(|(view, counts)| ViewCount { view, counts })
            .collect(),
        players: players.finish(),
        shard: None,
    })
}

/// The number of threads [`Compiled::simulate`] runs on (the current rayon pool's).
pub fn threads() -> usize {
    rayon::current_num_threads()
}

/// Compiles and simulates `runs` trials of every input.
pub fn simulate(
    protocol: &Protocol,
    runs: u64,
    seed: u64,
) -> Result<SimulationReport, SimulateError> {
    Simulator::new(protocol)?.simulate_shard(&[], (runs, seed), None, None)
}

/// The compiled program where a bitmask holds the deck, the sampled runs otherwise.
#[derive(Clone, Debug)]
pub enum Simulator<'p> {
    /// Two colours, at most 64 cards: the compiled program.
    Compiled(Box<Compiled>, &'p Protocol),
    /// Any other deck: the interpreter's sampled runs ([`General`]).
    General(General<'p>),
}

impl<'p> Simulator<'p> {
    /// The fastest simulator that runs `protocol`: [`Compiled`] for a ♣/♥ deck of at most 64
    /// cards, [`General`] for a multiset or standard deck or a longer row (number protocols
    /// are refused by both).
    pub fn new(protocol: &'p Protocol) -> Result<Simulator<'p>, SimulateError> {
        match Compiled::new(protocol) {
            Ok(c) => Ok(Simulator::Compiled(Box::new(c), protocol)),
            Err(SimulateError::Deck(_) | SimulateError::TooManyCards(_)) => {
                General::new(protocol).map(Simulator::General)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether this is the compiled program.
    pub fn is_compiled(&self) -> bool {
        matches!(self, Simulator::Compiled(..))
    }

    /// Simulates `runs` runs of each input in `inputs` (all when empty) with `seed`, of only
    /// `shard`'s chunks when given (see [`Compiled::simulate_shard`]).
    pub fn simulate_shard(
        &self,
        inputs: &[usize],
        (runs, seed): (u64, u64),
        shard: Option<Shard>,
        progress: Option<&(dyn Fn(u64) + Sync)>,
    ) -> Result<SimulationReport, SimulateError> {
        match self {
            Simulator::Compiled(c, p) => {
                c.simulate_shard(p.name(), inputs, runs, seed, shard, progress)
            }
            Simulator::General(g) => g.simulate_shard(inputs, (runs, seed), shard, progress),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{explore, AnalysisOptions};
    use crate::library::{builtins, find};
    use crate::print::render_view;
    use num_traits::ToPrimitive;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool")
    }

    #[test]
    fn same_report_for_any_thread_count() {
        let p = find("four-card-las-vegas-and")
            .expect("built in")
            .protocol();
        let c = Compiled::new(&p).expect("compiles");
        // 3 chunks per input, so the chunks really are spread over the threads.
        let runs = 2 * CHUNK + 17;
        let one = pool(1).install(|| c.simulate(p.name(), &[], runs, 42, None));
        let three = pool(3).install(|| c.simulate(p.name(), &[], runs, 42, None));
        let (one, three) = (one.expect("runs"), three.expect("runs"));
        assert_eq!(
            serde_json::to_string(&one).expect("json"),
            serde_json::to_string(&three).expect("json")
        );
        let other_seed = c.simulate(p.name(), &[], runs, 43, None).expect("runs");
        assert_ne!(
            serde_json::to_string(&one.views).expect("json"),
            serde_json::to_string(&other_seed.views).expect("json")
        );
    }

    #[test]
    fn three_shards_merge_to_the_unsplit_report_bit_for_bit() {
        let p = find("four-card-las-vegas-and")
            .expect("built in")
            .protocol();
        let c = Compiled::new(&p).expect("compiles");
        let runs = 2 * CHUNK + 17;
        let whole = c.simulate(p.name(), &[], runs, 42, None).expect("runs");
        let shard = |i| Shard::new(i, 3).expect("valid");
        let parts: Vec<SimulationReport> = [3, 1, 2]
            .into_iter()
            .map(|i| {
                pool(i).install(|| c.simulate_shard(p.name(), &[], runs, 42, Some(shard(i)), None))
            })
            .collect::<Result<_, _>>()
            .expect("runs");
        assert!(parts.iter().all(|r| r.total_runs < whole.total_runs));
        let merged = merge_reports(parts.clone()).expect("merges");
        assert_eq!(merged, whole);
        // One input only: its chunks are numbered from 0 again.
        let one = c.simulate(p.name(), &[2], 100, 5, None).expect("runs");
        let one_parts = (1..=3)
            .map(|i| c.simulate_shard(p.name(), &[2], 100, 5, Some(shard(i)), None))
            .collect::<Result<Vec<_>, _>>()
            .expect("runs");
        assert_eq!(merge_reports(one_parts).expect("merges"), one);
        assert!(matches!(
            merge_reports(parts[..2].to_vec()),
            Err(MergeError::Missing(s)) if s == shard(2) || s == shard(3)
        ));
        let mut forged = parts.clone();
        forged[0].inputs[0].output_1 += 1;
        assert!(matches!(
            merge_reports(forged),
            Err(MergeError::Inconsistent { .. })
        ));
        let other_seed = c
            .simulate_shard(p.name(), &[], runs, 43, Some(shard(1)), None)
            .expect("runs");
        let mut mixed = parts;
        mixed.retain(|r| r.shard != Some(shard(1)));
        mixed.push(other_seed);
        assert!(matches!(
            merge_reports(mixed),
            Err(MergeError::Inconsistent { .. })
        ));
    }

    #[test]
    fn the_shards_runs_add_up_to_the_runs_of_each_input() {
        for runs in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 5 * CHUNK + 3] {
            for count in 1..=4 {
                for position in 0..3 {
                    let total: u64 = (1..=count)
                        .map(|i| shard_runs(runs, position, Shard::new(i, count).expect("valid")))
                        .sum();
                    assert_eq!(total, runs, "runs {runs}, {count} shards, input {position}");
                }
            }
        }
    }

    #[test]
    fn trial_randomness_depends_only_on_seed_and_trial() {
        let base = ChaCha8Rng::seed_from_u64(5);
        let mut blocks = first_blocks(&base, 0);
        let mut in_chunk = Vec::new();
        for t in 0..6 {
            let mut rng = TrialRng::next_from(&mut blocks, 5, t);
            in_chunk.push((0..40).map(|_| rng.next_u32()).collect::<Vec<_>>());
        }
        for (t, words) in in_chunk.iter().enumerate() {
            let mut alone = TrialRng::new(5, t as u64);
            let again: Vec<u32> = (0..40).map(|_| alone.next_u32()).collect();
            assert_eq!(&again, words, "trial {t}");
        }
        // The overflow words (after the first 16) differ between trials.
        assert_ne!(in_chunk[0][16..], in_chunk[1][16..]);
        assert_ne!(in_chunk[0][..16], in_chunk[1][..16]);
    }

    #[test]
    fn differential_against_the_exact_analyzer() {
        let runs = 40_000u64;
        for b in builtins().iter().filter(|b| b.simulable()) {
            let p = b.protocol();
            let ex = explore(&p, &AnalysisOptions::default()).expect("explores");
            let sim = simulate(&p, runs, 7).expect("simulates");
            let correct = b.claim().correct != Some(false);
            for r in &sim.inputs {
                assert_eq!(r.stuck + r.gave_up + r.not_a_commitment, 0, "{}", b.name);
                if r.non_committed == 0 && correct {
                    let right = if r.expected_output {
                        r.output_1
                    } else {
                        r.output_0
                    };
                    assert_eq!(right, runs, "{}: committed output", b.name);
                }
            }
            match ex.view_distribution().expect("views") {
                Some(dist) => {
                    let exact: BTreeMap<String, Vec<f64>> = dist
                        .iter()
                        .map(|(v, ps)| {
                            (
                                render_view(v),
                                ps.iter().map(|q| q.to_f64().unwrap_or(f64::NAN)).collect(),
                            )
                        })
                        .collect();
                    for vc in &sim.views {
                        assert!(exact.contains_key(&vc.view), "{}: {}", b.name, vc.view);
                    }
                    for (view, ps) in &exact {
                        let counts = sim
                            .views
                            .iter()
                            .find(|vc| &vc.view == view)
                            .map(|vc| vc.counts.clone())
                            .unwrap_or_else(|| vec![0; ps.len()]);
                        for (i, &p) in ps.iter().enumerate() {
                            let freq = counts[i] as f64 / runs as f64;
                            let se = (p * (1.0 - p) / runs as f64).sqrt();
                            assert!(
                                (freq - p).abs() <= 5.0 * se + 1e-9,
                                "{}: view {view} input {i}: {freq} vs exact {p}",
                                b.name
                            );
                        }
                    }
                }
                None => {
                    let an = ex.summarize().expect("summarizes");
                    let expected: f64 = an
                        .expected_shuffles
                        .as_ref()
                        .and_then(ToPrimitive::to_f64)
                        .expect("terminates");
                    for r in &sim.inputs {
                        assert!(
                            (r.shuffles_mean - expected).abs() <= 5.0 * r.shuffles_stderr,
                            "{}: mean shuffles {} ± {} vs exact {expected}",
                            b.name,
                            r.shuffles_mean,
                            r.shuffles_stderr
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn weighted_sampler_is_exact_integer_arithmetic() {
        let p = find("five-card-trick-biased-cut")
            .expect("built in")
            .protocol();
        let c = Compiled::new(&p).expect("compiles");
        let Some(Instr::Shuffle {
            sampler:
                Sampler::Weighted {
                    cumulative,
                    denominator,
                },
            ..
        }) = c.instrs.first()
        else {
            panic!("the biased cut compiles to a weighted sampler");
        };
        assert_eq!(*denominator, 80);
        assert_eq!(cumulative, &vec![12, 29, 46, 63, 80]);
    }

    #[test]
    fn missing_branch_is_counted_not_a_panic() {
        let p = crate::parse::parse(
            "protocol stuck\ninputs a\nfunction copy\nlayout a\nturn 1 {\n  ♣: result 1 2\n}\n",
        )
        .expect("parses");
        let sim = simulate(&p, 100, 1).expect("simulates");
        assert_eq!(sim.inputs[1].stuck, 100);
    }
}

#[cfg(test)]
mod random_protocols {
    //! Differential test on random small protocols: the simulator's view frequencies agree with
    //! the exact analyzer's probabilities (within 5 standard errors) for protocols nobody wrote
    //! by hand.
    use super::*;
    use crate::analyze::{explore, AnalysisOptions};
    use crate::model::{Action, Function, LayoutItem, NamedFunction, Shuffle, Q};
    use crate::print::render_view;
    use num_bigint::BigInt;
    use num_traits::ToPrimitive;
    use rand::seq::SliceRandom;

    fn random_perm<R: Rng>(rng: &mut R, n: usize) -> Perm {
        let mut images: Vec<usize> = (0..n).collect();
        images.shuffle(rng);
        Perm::from_images(images).expect("a shuffle of 0..n is a permutation")
    }

    fn random_protocol<R: Rng>(rng: &mut R, case: usize) -> Protocol {
        let n = 5;
        let mut body = Vec::new();
        for _ in 0..rng.gen_range(1..=3) {
            let kind = match rng.gen_range(0..4) {
                0 => ActionKind::Perm(random_perm(rng, n)),
                1 => ActionKind::Turn {
                    positions: vec![rng.gen_range(0..n)],
                    branches: None,
                },
                2 => {
                    let k = rng.gen_range(2..=3);
                    let weights: Vec<u32> = (0..k).map(|_| rng.gen_range(1..=4)).collect();
                    let total: u32 = weights.iter().sum();
                    ActionKind::Shuffle(Shuffle::Set {
                        perms: (0..k).map(|_| random_perm(rng, n)).collect(),
                        weights: Some(
                            weights
                                .iter()
                                .map(|&w| Q::new(BigInt::from(w), BigInt::from(total)))
                                .collect(),
                        ),
                    })
                }
                _ => ActionKind::Shuffle(Shuffle::Set {
                    perms: (0..2).map(|_| random_perm(rng, n)).collect(),
                    weights: None,
                }),
            };
            body.push(Action::new(kind));
        }
        body.push(Action::new(ActionKind::Turn {
            positions: (0..n).collect(),
            branches: None,
        }));
        Protocol::new(crate::protocol::ProtocolParts {
            name: format!("random-{case}"),
            inputs: vec!["a".to_owned(), "b".to_owned()],
            function: Function::Named(NamedFunction::And),
            layout: vec![
                LayoutItem::Input {
                    name: "a".to_owned(),
                    negated: true,
                },
                LayoutItem::Card(Symbol::Heart),
                LayoutItem::Input {
                    name: "b".to_owned(),
                    negated: false,
                },
            ],
            body,
            claim: None,
        })
        .expect("a valid protocol")
    }

    #[test]
    fn simulator_agrees_with_the_analyzer_on_random_protocols() {
        let mut rng = ChaCha8Rng::seed_from_u64(2026);
        let runs = 20_000u64;
        for case in 0..30 {
            let p = random_protocol(&mut rng, case);
            let ex = explore(&p, &AnalysisOptions::default()).expect("explores");
            let dist = ex.view_distribution().expect("views").expect("acyclic");
            let sim = simulate(&p, runs, case as u64).expect("simulates");
            for vc in &sim.views {
                let exact = dist
                    .iter()
                    .find(|(v, _)| render_view(v) == vc.view)
                    .map(|(_, ps)| ps.clone());
                let exact = exact.unwrap_or_else(|| panic!("case {case}: {} not exact", vc.view));
                for (i, (c, q)) in vc.counts.iter().zip(&exact).enumerate() {
                    let p = q.to_f64().unwrap_or(f64::NAN);
                    let freq = *c as f64 / runs as f64;
                    let se = (p * (1.0 - p) / runs as f64).sqrt();
                    assert!(
                        (freq - p).abs() <= 5.0 * se + 1e-9,
                        "case {case} view {} input {i}: {freq} vs {p}",
                        vc.view
                    );
                }
            }
            let seen: u64 = sim.views.iter().map(|v| v.counts.iter().sum::<u64>()).sum();
            assert_eq!(seen, 4 * runs, "case {case}: every run has a view");
        }
    }
}
