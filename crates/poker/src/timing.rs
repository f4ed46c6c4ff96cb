//! Wall-clock measurements behind `facedown poker bench`: medians of repeated runs of the
//! shuffle argument, reveal tokens and masking, with proof sizes.
//!
//! These are single-threaded timings on whatever machine runs them; the criterion benches in
//! `benches/` are the reference measurements. Build with `--release`: a debug build is several
//! times slower, and [`BenchReport::optimized`] records which one ran.

use std::time::Instant;

use facedown_core::PartyId;
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::elgamal::{CardEncoding, Deck};
use crate::errors::{PokerError, Result};
use crate::generators::CommitmentKey;
use crate::keys::{joint_key, SecretKey};
use crate::masking::{mask_with_rng, verify_mask};
use crate::reveal::{reveal_token_with_rng, verify_reveal_token};
use crate::shuffle::{shuffle_with_rng, verify_shuffle};
use crate::transcript::ProofContext;

/// Medians (milliseconds) and sizes (bytes) of the main proofs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Deck size.
    pub cards: u16,
    /// Repetitions of the shuffle measurements.
    pub shuffle_reps: usize,
    /// Repetitions of the reveal and mask measurements.
    pub token_reps: usize,
    /// Shuffle + re-randomisation + proof, median ms.
    pub shuffle_prove_ms: f64,
    /// Shuffle verification (proof decoding included, deck decoding excluded), median ms.
    pub shuffle_verify_ms: f64,
    /// Decoding (decompressing) a received deck, median ms.
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
    /// Masking with proof, median ms.
    pub mask_prove_ms: f64,
    /// Masking proof verification, median ms.
    pub mask_verify_ms: f64,
    /// Encoded size of a masked card with its proof, bytes.
    pub mask_bytes: usize,
    /// Shuffle proving, mean CPU time of this thread per proof (ms), if the OS reports it.
    pub shuffle_prove_cpu_ms: Option<f64>,
    /// Shuffle verification, mean CPU time per verification (ms).
    pub shuffle_verify_cpu_ms: Option<f64>,
    /// Reveal token with proof, mean CPU time (ms).
    pub reveal_prove_cpu_ms: Option<f64>,
    /// Reveal token verification, mean CPU time (ms).
    pub reveal_verify_cpu_ms: Option<f64>,
    /// The 1-minute load average when the measurement started (Linux), to judge contention.
    pub load_average: Option<f64>,
    /// Whether the code was compiled with optimisations (`debug_assertions` off).
    pub optimized: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// CPU time consumed by the current thread (`CLOCK_THREAD_CPUTIME_ID` through the `cpu-time`
/// crate): nanosecond resolution, so even a few fast operations get a meaningful mean.
struct CpuClock {
    start: Option<cpu_time::ThreadTime>,
}

impl CpuClock {
    fn new() -> CpuClock {
        CpuClock { start: None }
    }

    fn start(&mut self) {
        self.start = cpu_time::ThreadTime::try_now().ok();
    }

    /// Mean CPU milliseconds per operation since `start`.
    fn per_op(&self, ops: usize) -> Option<f64> {
        let elapsed = self.start?.try_elapsed().ok()?;
        Some(elapsed.as_secs_f64() * 1e3 / ops as f64)
    }
}

fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

fn size<T: Serialize>(v: &T) -> Result<usize> {
    bincode::serialized_size(v)
        .map(|s| s as usize)
        .map_err(|e| PokerError::InvalidParameters(e.to_string()))
}

/// Measures a deck of `cards` cards under a 4-player joint key; `progress` is called after each
/// repetition with (done, total).
pub fn measure_with_rng<R: RngCore + CryptoRng>(
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
    let total = shuffle_reps
        .checked_add(token_reps)
        .and_then(|r| r.checked_mul(2))
        .ok_or_else(|| {
            PokerError::InvalidParameters(format!(
                "{shuffle_reps} shuffle and {token_reps} token repetitions are more than can be \
                 counted"
            ))
        })?;
    let mut done = 0;
    let sks: Vec<SecretKey> = (0..4).map(|_| SecretKey::random_with_rng(rng)).collect();
    let pks: Vec<_> = sks.iter().map(|s| *s.public()).collect();
    let key = joint_key(&pks)?;
    let encoding = CardEncoding::new(cards);
    let ck = CommitmentKey::new(usize::from(cards));
    let ctx = ProofContext {
        session: b"facedown poker bench",
        round: 1,
        player: PartyId(1),
    };
    let base = Transcript::new(b"facedown-poker bench");
    // A realistic input: the open deck shuffled once.
    let (deck, _) = shuffle_with_rng(
        &mut base.clone(),
        &ctx,
        &ck,
        &key,
        &Deck::open_deck(&encoding),
        rng,
    )?;

    let load_average = load_average();
    let mut cpu = CpuClock::new();

    let (mut prove_t, mut verify_t, mut decode_t) = (vec![], vec![], vec![]);
    let mut shuffled = Vec::with_capacity(shuffle_reps);
    cpu.start();
    for _ in 0..shuffle_reps {
        let start = Instant::now();
        let out = shuffle_with_rng(&mut base.clone(), &ctx, &ck, &key, &deck, rng)?;
        prove_t.push(ms(start));
        shuffled.push(out);
        done += 1;
        progress(done, total);
    }
    let shuffle_prove_cpu_ms = cpu.per_op(shuffle_reps);
    let (mut proof_bytes, mut deck_bytes) = (0, 0);
    let mut decoded = Vec::with_capacity(shuffle_reps);
    for (out, proof) in &shuffled {
        proof_bytes = size(proof)?;
        deck_bytes = size(&out.wire().to_vec())?;
        let wire = out.wire().to_vec();
        let start = Instant::now();
        decoded.push(Deck::decode(wire, ctx.player)?);
        decode_t.push(ms(start));
    }
    cpu.start();
    for (out, (_, proof)) in decoded.iter().zip(&shuffled) {
        let start = Instant::now();
        verify_shuffle(&mut base.clone(), &ctx, &ck, &key, &deck, out, proof)?;
        verify_t.push(ms(start));
        done += 1;
        progress(done, total);
    }
    let shuffle_verify_cpu_ms = cpu.per_op(shuffle_reps);

    let (mut rp, mut rv, mut mp, mut mv) = (vec![], vec![], vec![], vec![]);
    let ct = (&deck.ciphertexts()[0], &deck.wire()[0]);
    let m = encoding
        .point(0)
        .ok_or_else(|| PokerError::InvalidParameters("empty deck".to_owned()))?;
    let mut tokens = Vec::with_capacity(token_reps);
    cpu.start();
    for _ in 0..token_reps {
        let start = Instant::now();
        tokens.push(reveal_token_with_rng(
            &mut base.clone(),
            &ctx,
            &sks[0],
            0,
            ct,
            rng,
        ));
        rp.push(ms(start));
    }
    let reveal_prove_cpu_ms = cpu.per_op(token_reps);
    done += token_reps / 2;
    progress(done, total);
    cpu.start();
    for token in &tokens {
        let start = Instant::now();
        verify_reveal_token(&mut base.clone(), &ctx, sks[0].public(), ct, token)?;
        rv.push(ms(start));
    }
    let reveal_verify_cpu_ms = cpu.per_op(token_reps);
    let reveal_bytes = size(&tokens[0])?;
    done += token_reps - token_reps / 2;
    progress(done, total);
    let mut masks = Vec::with_capacity(token_reps);
    for _ in 0..token_reps {
        let start = Instant::now();
        masks.push(mask_with_rng(&mut base.clone(), &ctx, &key, &m, rng));
        mp.push(ms(start));
    }
    for (masked, proof) in &masks {
        let start = Instant::now();
        verify_mask(&mut base.clone(), &ctx, &key, &m, masked, proof)?;
        mv.push(ms(start));
    }
    let mask_bytes = size(&(masks[0].0.compress(), masks[0].1))?;
    done += token_reps;
    progress(done, total);
    Ok(BenchReport {
        cards,
        shuffle_reps,
        token_reps,
        shuffle_prove_ms: median(prove_t),
        shuffle_verify_ms: median(verify_t),
        deck_decode_ms: median(decode_t),
        shuffle_proof_bytes: proof_bytes,
        deck_bytes,
        reveal_prove_ms: median(rp),
        reveal_verify_ms: median(rv),
        reveal_bytes,
        mask_prove_ms: median(mp),
        mask_verify_ms: median(mv),
        mask_bytes,
        shuffle_prove_cpu_ms,
        shuffle_verify_cpu_ms,
        reveal_prove_cpu_ms,
        reveal_verify_cpu_ms,
        load_average,
        optimized: !cfg!(debug_assertions),
    })
}
