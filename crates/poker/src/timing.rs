//! Measurements behind `facedown poker bench`: the shuffle argument on one and two threads with
//! its floor, batched against one-by-one verification, reveal tokens and masking, with sizes.
//!
//! **CPU time.** On a shared machine the wall clock counts time spent waiting for a core, so the
//! one-thread figures are the CPU time of the thread that did the work (`CLOCK_THREAD_CPUTIME_ID`
//! through the `cpu-time` crate, nanosecond resolution), measured inside a one-thread rayon pool
//! so that no work escapes to another thread. Two-thread figures are wall-clock medians (what
//! parallelism buys) with the CPU time of the whole process (which includes rayon's idle
//! spinning), and the *span*: each worker reads its own CPU clock before and after the run, and
//! the span is the largest difference — about the wall time the run would take with a free core
//! per worker. On a loaded machine it is an upper estimate of that (a descheduled worker's share
//! is stolen by the others), where the wall clock says nothing.
//!
//! **Floors.** Next to the shuffle figures, the bench times what any verifier must at least do,
//! with curve25519-dalek alone, in the same run and interleaved with the measurement it is
//! compared to: one variable-time multiscalar multiplication over every input and output
//! ciphertext point (4N points for a shuffle of N cards) plus decompressing the 2N points of the
//! received deck. For a batch, the floor is the same over the batch's distinct points and its
//! received points. Ratios are figure ÷ floor.
//!
//! The criterion benches in `benches/` are the reference measurements. Build with `--release`:
//! a debug build is several times slower, and [`BenchReport::optimized`] records which one ran.

mod deal;

use std::time::Instant;

use rand::{CryptoRng, RngCore};
use rayon::ThreadPool;
use serde::{Deserialize, Serialize};

use crate::batch::{
    verify_reveal_tokens, verify_reveal_tokens_one_by_one, verify_shuffles,
    verify_shuffles_one_by_one,
};
use crate::elgamal::{CardEncoding, Deck};
use crate::errors::{PokerError, Result};
use crate::masking::{mask_with_rng, verify_mask};
use crate::reveal::{reveal_token_with_rng, verify_reveal_token};
use crate::shuffle::{decode_and_verify_shuffle, shuffle_with_rng, verify_shuffle};
use crate::workloads::{ctx, DealFixture, Floor, RevealRound, PLAYERS};
pub use deal::DealFigures;

/// Thread counts of the parallel figures.
const THREAD_COUNTS: [usize; 2] = [1, 2];

/// Timings (milliseconds) and sizes (bytes) of the encrypted deck's proofs for one deck size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Deck size.
    pub cards: u16,
    /// Repetitions of the shuffle measurements.
    pub shuffle_reps: usize,
    /// Repetitions of the reveal and mask measurements.
    pub token_reps: usize,
    /// Shuffle + re-randomisation + proof on one thread, median wall ms.
    pub shuffle_prove_ms: f64,
    /// Shuffle verification on one thread (proof decoding included, deck decoding excluded),
    /// median wall ms.
    pub shuffle_verify_ms: f64,
    /// Decoding (decompressing) a received deck on one thread, median wall ms.
    pub deck_decode_ms: f64,
    /// Encoded size of the shuffle proof, bytes.
    pub shuffle_proof_bytes: usize,
    /// Encoded size of the shuffled deck, bytes.
    pub deck_bytes: usize,
    /// Reveal token with its proof, median ms.
    pub reveal_prove_ms: f64,
    /// Reveal token verification, median ms.
    pub reveal_verify_ms: f64,
    /// Encoded size of a reveal token with its proof, bytes.
    pub reveal_bytes: usize,
    /// Encoded size of a batchable reveal token with its proof, bytes.
    pub batchable_reveal_bytes: usize,
    /// Masking with proof, median ms.
    pub mask_prove_ms: f64,
    /// Masking proof verification, median ms.
    pub mask_verify_ms: f64,
    /// Encoded size of a masked card with its proof, bytes.
    pub mask_bytes: usize,
    /// Shuffle proving on one thread, mean thread CPU ms, if the OS reports it.
    pub shuffle_prove_cpu_ms: Option<f64>,
    /// Shuffle verification on one thread (deck decoding excluded), mean thread CPU ms.
    pub shuffle_verify_cpu_ms: Option<f64>,
    /// Decoding the received deck and verifying its proof on one thread, mean thread CPU ms:
    /// the figure compared with the floor.
    pub shuffle_verify_with_decode_cpu_ms: Option<f64>,
    /// The shuffle's floor: [`Self::shuffle_floor_msm_ms`] + [`Self::shuffle_floor_decode_ms`].
    pub shuffle_floor_ms: Option<f64>,
    /// One variable-time multiscalar multiplication over the 4N ciphertext points of the input
    /// and output decks, thread CPU ms.
    pub shuffle_floor_msm_ms: Option<f64>,
    /// Decompressing the 2N points of the output deck, thread CPU ms.
    pub shuffle_floor_decode_ms: Option<f64>,
    /// Verification with decoding ÷ floor.
    pub shuffle_verify_floor_ratio: Option<f64>,
    /// Proving ÷ the same floor (the prover also touches every point; informative).
    pub shuffle_prove_floor_ratio: Option<f64>,
    /// Proving and verifying (with decoding) on 1 and 2 threads.
    pub threads: Vec<ThreadFigures>,
    /// A player's verification of the three other shuffles of a 4-player deal.
    pub deal_batch: BatchFigures,
    /// A player's verification of the reveal tokens opened for it in a 4-player deal.
    pub reveal_batch: BatchFigures,
    /// A whole 4-player deal of this deck, CPU per player, its players batching and not.
    pub deal: DealFigures,
    /// Reveal token with proof, mean thread CPU ms.
    pub reveal_prove_cpu_ms: Option<f64>,
    /// Reveal token verification, mean thread CPU ms.
    pub reveal_verify_cpu_ms: Option<f64>,
    /// The 1-minute load average when the measurement started (Linux), to judge contention.
    pub load_average: Option<f64>,
    /// The 1-minute load average when it ended.
    pub load_average_end: Option<f64>,
    /// Whether the code was compiled with optimisations (`debug_assertions` off).
    pub optimized: bool,
}

/// Proving and verifying one shuffle on a pool of `threads` threads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadFigures {
    /// Threads of the rayon pool.
    pub threads: usize,
    /// Shuffle + proof, median wall ms.
    pub prove_wall_ms: f64,
    /// Decoding the received deck + verifying, median wall ms.
    pub verify_wall_ms: f64,
    /// Shuffle + proof, mean CPU ms of the whole process.
    pub prove_cpu_ms: Option<f64>,
    /// Decoding + verifying, mean CPU ms of the whole process.
    pub verify_cpu_ms: Option<f64>,
    /// `prove_wall_ms` ÷ the one-thread figure.
    pub prove_wall_ratio: f64,
    /// `verify_wall_ms` ÷ the one-thread figure.
    pub verify_wall_ratio: f64,
    /// Shuffle + proof: the mean over runs of the largest CPU time any worker spent — about the
    /// wall time with a free core per thread. Under contention it is an upper estimate: the
    /// work of a descheduled worker is stolen by the others (at worst one worker does it all).
    pub prove_span_ms: Option<f64>,
    /// Decoding + verifying: the same span.
    pub verify_span_ms: Option<f64>,
    /// `prove_span_ms` ÷ the one-thread span (its thread CPU time).
    pub prove_span_ratio: Option<f64>,
    /// `verify_span_ms` ÷ the one-thread span.
    pub verify_span_ratio: Option<f64>,
}

/// Batched against one-by-one verification of the same proofs, on one thread (mean thread CPU
/// ms), with the batch's floor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchFigures {
    /// Proofs in the batch.
    pub proofs: usize,
    /// Verifying them one at a time, as without batching (received points decoded beforehand).
    pub one_by_one_cpu_ms: Option<f64>,
    /// For reveal tokens: the batchable tokens verified one at a time.
    pub one_by_one_batchable_cpu_ms: Option<f64>,
    /// Verifying them as one batch.
    pub batched_cpu_ms: Option<f64>,
    /// `batched_cpu_ms` ÷ `one_by_one_cpu_ms`.
    pub batch_ratio: Option<f64>,
    /// Decoding the points the verifier receives (decks, tokens), the same work either way.
    pub decode_cpu_ms: Option<f64>,
    /// (`batched` + `decode`) ÷ (`one_by_one` + `decode`).
    pub batch_ratio_with_decode: Option<f64>,
    /// One multiscalar multiplication over the batch's distinct statement points (ciphertext
    /// points, tokens) plus decompressing the received ones.
    pub batched_floor_ms: Option<f64>,
    /// (`batched` + `decode`) ÷ `batched_floor_ms`.
    pub batched_floor_ratio: Option<f64>,
}

/// One timed run: wall clock, the CPU clocks of the running thread and of the process, and
/// the span: the largest CPU time any worker of the pool spent during the run.
#[derive(Clone, Copy, Debug)]
struct Sample {
    wall_ms: f64,
    thread_cpu_ms: Option<f64>,
    process_cpu_ms: Option<f64>,
    span_ms: Option<f64>,
}

/// Runs `f` on `pool` and times it there.
fn timed<T: Send>(pool: &ThreadPool, f: impl FnOnce() -> T + Send) -> (T, Sample) {
    // Each worker reads its own CPU clock before and after (a broadcast runs on every worker).
    let clock = |_: rayon::BroadcastContext<'_>| {
        cpu_time::ThreadTime::try_now()
            .ok()
            .map(|t| t.as_duration())
    };
    let starts = pool.broadcast(clock);
    let (out, mut sample) = pool.install(|| {
        let thread = cpu_time::ThreadTime::try_now().ok();
        let process = cpu_time::ProcessTime::try_now().ok();
        let wall = Instant::now();
        let out = f();
        let sample = Sample {
            wall_ms: wall.elapsed().as_secs_f64() * 1e3,
            thread_cpu_ms: thread
                .and_then(|t| t.try_elapsed().ok())
                .map(|d| d.as_secs_f64() * 1e3),
            process_cpu_ms: process
                .and_then(|t| t.try_elapsed().ok())
                .map(|d| d.as_secs_f64() * 1e3),
            span_ms: None,
        };
        (out, sample)
    });
    let ends = pool.broadcast(clock);
    sample.span_ms = starts
        .iter()
        .zip(&ends)
        .map(|(s, e)| Some((e.as_ref()?.saturating_sub(*s.as_ref()?)).as_secs_f64() * 1e3))
        .collect::<Option<Vec<f64>>>()
        .and_then(|b| b.into_iter().reduce(f64::max));
    (out, sample)
}

/// The samples of one measurement.
#[derive(Default)]
struct Samples(Vec<Sample>);

impl Samples {
    fn add(&mut self, s: Sample) {
        self.0.push(s);
    }

    /// Runs `f` on `pool`, records its sample and returns its result.
    fn time<T: Send>(&mut self, pool: &ThreadPool, f: impl FnOnce() -> T + Send) -> T {
        let (out, s) = timed(pool, f);
        self.add(s);
        out
    }

    fn median_wall(&self) -> f64 {
        median(self.0.iter().map(|s| s.wall_ms).collect())
    }

    fn mean(&self, pick: impl Fn(&Sample) -> Option<f64>) -> Option<f64> {
        let v: Option<Vec<f64>> = self.0.iter().map(pick).collect();
        let v = v?;
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    fn thread_cpu(&self) -> Option<f64> {
        self.mean(|s| s.thread_cpu_ms)
    }

    fn process_cpu(&self) -> Option<f64> {
        self.mean(|s| s.process_cpu_ms)
    }

    fn span(&self) -> Option<f64> {
        self.mean(|s| s.span_ms)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(a? / b?)
}

fn sum(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(a? + b?)
}

fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn size<T: Serialize>(v: &T) -> Result<usize> {
    bincode::serialized_size(v)
        .map(|s| s as usize)
        .map_err(|e| PokerError::InvalidParameters(e.to_string()))
}

fn pool(threads: usize) -> Result<ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PokerError::InvalidParameters(format!("thread pool: {e}")))
}

/// Measures a deck of `cards` cards under a 4-player joint key; `progress` is called after each
/// repetition with (done, total).
pub fn measure_with_rng<R: RngCore + CryptoRng + Send>(
    cards: u16,
    shuffle_reps: usize,
    token_reps: usize,
    rng: &mut R,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<BenchReport> {
    if shuffle_reps == 0 || token_reps == 0 {
        return Err(PokerError::InvalidParameters(
            "at least one repetition".to_owned(),
        ));
    }
    if !(2..=crate::deal::MAX_CARDS).contains(&cards) {
        return Err(PokerError::InvalidParameters(format!(
            "need a deck of 2..={} cards, got {cards}",
            crate::deal::MAX_CARDS
        )));
    }
    let deals = deal_reps(shuffle_reps);
    let total = shuffle_reps
        .checked_mul(3)
        .zip(token_reps.checked_mul(2))
        .and_then(|(s, t)| s.checked_add(t))
        .and_then(|n| n.checked_add(deals))
        .ok_or_else(|| {
            PokerError::InvalidParameters(format!(
                "{shuffle_reps} shuffle and {token_reps} token repetitions are more than can be \
                 counted"
            ))
        })?;
    let load_start = load_average();
    let table = DealFixture::new_with_rng(cards, rng)?;
    let mut done = 0;
    let mut step = |k: usize| {
        done += k;
        progress(done, total);
    };
    let one = pool(1)?;
    let shuffle = measure_shuffle(&table, shuffle_reps, &one, rng, &mut step)?;
    let threads = measure_threads(&table, shuffle_reps, rng, &mut step)?;
    let deal_batch = measure_deal_batch(&table, shuffle_reps, &one, rng, &mut step)?;
    let tokens = measure_tokens(&table, token_reps, &one, rng, &mut step)?;
    let deal = deal::measure_deal(cards, deals, &one, rng, &mut step)?;
    Ok(BenchReport {
        cards,
        shuffle_reps,
        token_reps,
        shuffle_prove_ms: shuffle.prove.median_wall(),
        shuffle_verify_ms: shuffle.verify.median_wall(),
        deck_decode_ms: shuffle.decode.median_wall(),
        shuffle_proof_bytes: size(&table.proofs[1])?,
        deck_bytes: size(&table.decks[1].wire().to_vec())?,
        reveal_prove_ms: tokens.prove.median_wall(),
        reveal_verify_ms: tokens.verify.median_wall(),
        reveal_bytes: tokens.bytes,
        batchable_reveal_bytes: tokens.batchable_bytes,
        mask_prove_ms: tokens.mask_prove.median_wall(),
        mask_verify_ms: tokens.mask_verify.median_wall(),
        mask_bytes: tokens.mask_bytes,
        shuffle_prove_cpu_ms: shuffle.prove.thread_cpu(),
        shuffle_verify_cpu_ms: shuffle.verify.thread_cpu(),
        shuffle_verify_with_decode_cpu_ms: shuffle.verify_with_decode.thread_cpu(),
        shuffle_floor_ms: sum(
            shuffle.floor_msm.thread_cpu(),
            shuffle.floor_decode.thread_cpu(),
        ),
        shuffle_floor_msm_ms: shuffle.floor_msm.thread_cpu(),
        shuffle_floor_decode_ms: shuffle.floor_decode.thread_cpu(),
        shuffle_verify_floor_ratio: ratio(
            shuffle.verify_with_decode.thread_cpu(),
            sum(
                shuffle.floor_msm.thread_cpu(),
                shuffle.floor_decode.thread_cpu(),
            ),
        ),
        shuffle_prove_floor_ratio: ratio(
            shuffle.prove.thread_cpu(),
            sum(
                shuffle.floor_msm.thread_cpu(),
                shuffle.floor_decode.thread_cpu(),
            ),
        ),
        threads,
        deal_batch,
        reveal_batch: tokens.batch,
        deal,
        reveal_prove_cpu_ms: tokens.prove.thread_cpu(),
        reveal_verify_cpu_ms: tokens.verify.thread_cpu(),
        load_average: load_start,
        load_average_end: load_average(),
        optimized: !cfg!(debug_assertions),
    })
}

/// Whole deals timed per verification: a third of the shuffle repetitions, at least two (a deal
/// is about ten shuffles' work).
fn deal_reps(shuffle_reps: usize) -> usize {
    shuffle_reps.div_ceil(3).max(2)
}

/// The one-thread shuffle measurements and the floor, interleaved.
struct ShuffleSamples {
    prove: Samples,
    verify: Samples,
    decode: Samples,
    verify_with_decode: Samples,
    floor_msm: Samples,
    floor_decode: Samples,
}

fn measure_shuffle<R: RngCore + CryptoRng + Send>(
    table: &DealFixture,
    reps: usize,
    one: &ThreadPool,
    rng: &mut R,
    step: &mut dyn FnMut(usize),
) -> Result<ShuffleSamples> {
    let mut s = ShuffleSamples {
        prove: Samples::default(),
        verify: Samples::default(),
        decode: Samples::default(),
        verify_with_decode: Samples::default(),
        floor_msm: Samples::default(),
        floor_decode: Samples::default(),
    };
    // Player 2 shuffles a deck that is already encrypted (player 1's output).
    let (c, input) = (ctx(2, 2), &table.decks[1]);
    let (ck, key, base) = (&table.ck, &table.key, &table.base);
    let floor = table.shuffle_floor(rng);
    for _ in 0..reps {
        let (output, proof) = s.prove.time(one, || {
            shuffle_with_rng(&mut base.clone(), &c, ck, key, input, rng)
        })?;
        let wire = output.wire().to_vec();
        let decoded = s
            .decode
            .time(one, || Deck::decode(wire.clone(), c.player))?;
        s.verify.time(one, || {
            verify_shuffle(&mut base.clone(), &c, ck, key, input, &decoded, &proof)
        })?;
        time_floor(&floor, one, &mut s.floor_msm, &mut s.floor_decode);
        s.verify_with_decode.time(one, || {
            decode_and_verify_shuffle(&mut base.clone(), &c, ck, key, input, wire, &proof)
        })?;
        step(1);
    }
    Ok(s)
}

fn measure_threads<R: RngCore + CryptoRng + Send>(
    table: &DealFixture,
    reps: usize,
    rng: &mut R,
    step: &mut dyn FnMut(usize),
) -> Result<Vec<ThreadFigures>> {
    let (c, input) = (ctx(2, 2), &table.decks[1]);
    let (ck, key, base) = (&table.ck, &table.key, &table.base);
    let pools = THREAD_COUNTS
        .iter()
        .map(|&t| pool(t))
        .collect::<Result<Vec<_>>>()?;
    let mut prove: Vec<Samples> = pools.iter().map(|_| Samples::default()).collect();
    let mut verify: Vec<Samples> = pools.iter().map(|_| Samples::default()).collect();
    for _ in 0..reps {
        for (i, p) in pools.iter().enumerate() {
            let (output, proof) = prove[i].time(p, || {
                shuffle_with_rng(&mut base.clone(), &c, ck, key, input, rng)
            })?;
            let wire = output.wire().to_vec();
            verify[i].time(p, || {
                decode_and_verify_shuffle(&mut base.clone(), &c, ck, key, input, wire, &proof)
            })?;
        }
        step(1);
    }
    let (p1, v1) = (prove[0].median_wall(), verify[0].median_wall());
    let (ps1, vs1) = (prove[0].span(), verify[0].span());
    Ok(THREAD_COUNTS
        .iter()
        .zip(prove.iter().zip(&verify))
        .map(|(&threads, (p, v))| ThreadFigures {
            threads,
            prove_wall_ms: p.median_wall(),
            verify_wall_ms: v.median_wall(),
            prove_cpu_ms: p.process_cpu(),
            verify_cpu_ms: v.process_cpu(),
            prove_wall_ratio: p.median_wall() / p1,
            verify_wall_ratio: v.median_wall() / v1,
            prove_span_ms: p.span(),
            verify_span_ms: v.span(),
            prove_span_ratio: ratio(p.span(), ps1),
            verify_span_ratio: ratio(v.span(), vs1),
        })
        .collect())
}

/// Each player's verification of the other three shuffles, one by one and batched, with the
/// floor of each player's batch; figures are means over the four players.
fn measure_deal_batch<R: RngCore>(
    table: &DealFixture,
    reps: usize,
    one: &ThreadPool,
    rng: &mut R,
    step: &mut dyn FnMut(usize),
) -> Result<BatchFigures> {
    let (ck, key) = (&table.ck, &table.key);
    let floors: Vec<Floor> = (1..=PLAYERS).map(|me| table.floor_of(me, rng)).collect();
    let (mut alone, mut batched, mut decode) =
        (Samples::default(), Samples::default(), Samples::default());
    let (mut floor_msm, mut floor_decode) = (Samples::default(), Samples::default());
    for _ in 0..reps {
        for (me, floor) in (1..=PLAYERS).zip(&floors) {
            alone.time(one, || {
                verify_shuffles_one_by_one(ck, key, table.claims_of(me))
            })?;
            batched.time(one, || verify_shuffles(ck, key, table.claims_of(me)))?;
            decode.time(one, || {
                table.claims_of(me).iter().try_for_each(|c| {
                    Deck::decode(c.output.wire().to_vec(), c.ctx.player).map(|_| ())
                })
            })?;
            time_floor(floor, one, &mut floor_msm, &mut floor_decode);
        }
        step(1);
    }
    Ok(BatchFigures::new(
        PLAYERS - 1,
        &alone,
        None,
        &batched,
        &decode,
        sum(floor_msm.thread_cpu(), floor_decode.thread_cpu()),
    ))
}

impl BatchFigures {
    fn new(
        proofs: usize,
        alone: &Samples,
        alone_batchable: Option<&Samples>,
        batched: &Samples,
        decode: &Samples,
        floor: Option<f64>,
    ) -> BatchFigures {
        let (a, b, d) = (
            alone.thread_cpu(),
            batched.thread_cpu(),
            decode.thread_cpu(),
        );
        BatchFigures {
            proofs,
            one_by_one_cpu_ms: a,
            one_by_one_batchable_cpu_ms: alone_batchable.and_then(Samples::thread_cpu),
            batched_cpu_ms: b,
            batch_ratio: ratio(b, a),
            decode_cpu_ms: d,
            batch_ratio_with_decode: ratio(sum(b, d), sum(a, d)),
            batched_floor_ms: floor,
            batched_floor_ratio: ratio(sum(b, d), floor),
        }
    }
}

/// Reveal tokens (alone and as the round a deal's player verifies) and masking.
struct TokenSamples {
    prove: Samples,
    verify: Samples,
    mask_prove: Samples,
    mask_verify: Samples,
    batch: BatchFigures,
    bytes: usize,
    batchable_bytes: usize,
    mask_bytes: usize,
}

fn measure_tokens<R: RngCore + CryptoRng + Send>(
    table: &DealFixture,
    reps: usize,
    one: &ThreadPool,
    rng: &mut R,
    step: &mut dyn FnMut(usize),
) -> Result<TokenSamples> {
    let deck = &table.decks[PLAYERS];
    let (c, base) = (ctx(9, 2), &table.base);
    let ct = (&deck.ciphertexts()[0], &deck.wire()[0]);
    let (mut prove, mut verify) = (Samples::default(), Samples::default());
    let mut tokens = Vec::with_capacity(reps);
    for _ in 0..reps {
        tokens.push(prove.time(one, || {
            reveal_token_with_rng(&mut base.clone(), &c, &table.sks[1], 0, ct, rng)
        }));
    }
    for token in &tokens {
        verify.time(one, || {
            verify_reveal_token(&mut base.clone(), &c, table.sks[1].public(), ct, token)
        })?;
    }
    step(reps);
    let round = RevealRound::new_with_rng(table, rng);
    let batch = measure_round(&round, table, reps.div_ceil(10), one, rng)?;
    let (mask_prove, mask_verify, mask_bytes) = measure_masking(table, reps, one, rng)?;
    step(reps);
    Ok(TokenSamples {
        prove,
        verify,
        mask_prove,
        mask_verify,
        batch,
        bytes: size(&tokens[0])?,
        batchable_bytes: size(&round.batchable[0])?,
        mask_bytes,
    })
}

fn measure_masking<R: RngCore + CryptoRng + Send>(
    table: &DealFixture,
    reps: usize,
    one: &ThreadPool,
    rng: &mut R,
) -> Result<(Samples, Samples, usize)> {
    let (c, base, key) = (ctx(9, 2), &table.base, &table.key);
    let m = CardEncoding::new(1)
        .point(0)
        .ok_or_else(|| PokerError::InvalidParameters("empty deck".to_owned()))?;
    let (mut prove, mut verify) = (Samples::default(), Samples::default());
    let mut masks = Vec::with_capacity(reps);
    for _ in 0..reps {
        masks.push(prove.time(one, || mask_with_rng(&mut base.clone(), &c, key, &m, rng)));
    }
    for (masked, proof) in &masks {
        verify.time(one, || {
            verify_mask(&mut base.clone(), &c, key, &m, masked, proof)
        })?;
    }
    let bytes = size(&(masks[0].0.compress(), masks[0].1))?;
    Ok((prove, verify, bytes))
}

/// The reveal round one by one (both encodings) and batched, with its floor.
fn measure_round<R: RngCore>(
    round: &RevealRound,
    table: &DealFixture,
    reps: usize,
    one: &ThreadPool,
    rng: &mut R,
) -> Result<BatchFigures> {
    let deck = &table.decks[PLAYERS];
    let (mut alone, mut alone_batchable, mut batched, mut decode) = (
        Samples::default(),
        Samples::default(),
        Samples::default(),
        Samples::default(),
    );
    let (mut floor_msm, mut floor_decode) = (Samples::default(), Samples::default());
    let floor = round.floor(deck, rng);
    for _ in 0..reps {
        alone.time(one, || round.verify_compact_one_by_one(table))?;
        alone_batchable.time(one, || verify_reveal_tokens_one_by_one(round.claims(table)))?;
        batched.time(one, || verify_reveal_tokens(round.claims(table)))?;
        decode.time(one, || {
            for t in &round.compact {
                std::hint::black_box(t.token.decompress());
            }
        });
        time_floor(&floor, one, &mut floor_msm, &mut floor_decode);
    }
    Ok(BatchFigures::new(
        round.owners.len(),
        &alone,
        Some(&alone_batchable),
        &batched,
        &decode,
        sum(floor_msm.thread_cpu(), floor_decode.thread_cpu()),
    ))
}

fn time_floor(floor: &Floor, one: &ThreadPool, msm: &mut Samples, decode: &mut Samples) {
    msm.time(one, || std::hint::black_box(floor.multiply()));
    decode.time(one, || std::hint::black_box(floor.decode()));
}
