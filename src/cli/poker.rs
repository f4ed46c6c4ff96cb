//! `facedown poker` subcommands: `deal` and `bench`.

use std::io::IsTerminal;

use anyhow::Context;
use clap::Subcommand;
use facedown_core::rng::seeded_rng;
use facedown_poker::deal::{deal_with_rng, DealParams};
use facedown_poker::timing::measure_with_rng;

/// Arguments of `facedown poker`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to run.
    #[command(subcommand)]
    pub command: PokerCommand,
}

/// The `facedown poker` subcommands.
#[derive(Debug, Subcommand)]
pub enum PokerCommand {
    /// Deal hands and public cards with Barnett–Smart mental poker (every step proved).
    Deal {
        /// Number of players N (≥ 2).
        #[arg(long)]
        players: usize,
        /// Deck size n (cards 0..n−1).
        #[arg(long, default_value_t = 52)]
        cards: u16,
        /// Cards per hand.
        #[arg(long, default_value_t = 2)]
        hand: usize,
        /// Public cards.
        #[arg(long, default_value_t = 0)]
        public: usize,
        /// Seed of the run (all randomness of every player is derived from it).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Time the shuffle argument, reveal tokens and masking (medians of repeated runs).
    Bench {
        /// Deck size n.
        #[arg(long, default_value_t = 52)]
        cards: u16,
        /// Repetitions of the shuffle prove/verify.
        #[arg(long, default_value_t = 21)]
        reps: usize,
        /// Repetitions of the reveal-token and masking measurements.
        #[arg(long, default_value_t = 201)]
        token_reps: usize,
        /// Seed of the run.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `facedown poker`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        PokerCommand::Deal {
            players,
            cards,
            hand,
            public,
            seed,
            json,
        } => deal(
            DealParams {
                players,
                cards,
                hand,
                public,
            },
            seed,
            json,
        ),
        PokerCommand::Bench {
            cards,
            reps,
            token_reps,
            seed,
            json,
        } => bench(cards, reps, token_reps, seed, json),
    }
}

fn deal(params: DealParams, seed: u64, json: bool) -> anyhow::Result<()> {
    params.validate()?;
    let session = format!("facedown poker deal seed={seed}");
    let report = deal_with_rng(params, session.as_bytes(), &mut seeded_rng(seed));
    if json {
        let mut value = serde_json::to_value(&report)?;
        if let Some(obj) = value.as_object_mut() {
            obj.insert("seed".to_owned(), seed.into());
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        println!(
            "mental poker (Barnett–Smart, ristretto255): {} players, {} cards, seed {seed}",
            report.players, report.cards
        );
        for (i, hand) in report.hands.iter().enumerate() {
            println!("  player {}: {:?}", i + 1, hand);
        }
        println!("  public:   {:?}", report.public);
        match (&report.audit.blame, &report.audit.error) {
            (_, None) => println!("  audit: passed"),
            (Some(p), Some(e)) => println!("  audit: FAILED, blame {p}: {e}"),
            (None, Some(e)) => println!("  audit: FAILED: {e}"),
        }
        println!(
            "  cost: {} messages, {} bytes, {} rounds",
            report.cost.messages, report.cost.bytes, report.cost.rounds
        );
    }
    if !report.audit.passed {
        anyhow::bail!("the deal failed its audit");
    }
    Ok(())
}

fn bench(cards: u16, reps: usize, token_reps: usize, seed: u64, json: bool) -> anyhow::Result<()> {
    let bar = std::io::stderr().is_terminal().then(|| {
        // The bench refuses counts that overflow; the bar only needs a length.
        let total = reps.saturating_add(token_reps).saturating_mul(2);
        let bar = indicatif::ProgressBar::new(total as u64);
        bar.set_message("poker bench");
        bar
    });
    let report = measure_with_rng(
        cards,
        reps,
        token_reps,
        &mut seeded_rng(seed),
        &mut |done, _| {
            if let Some(b) = &bar {
                b.set_position(done as u64);
            }
        },
    )
    .context("poker bench")?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let build = if report.optimized {
            "optimized"
        } else {
            "UNOPTIMIZED (debug) build"
        };
        let load = report
            .load_average
            .map_or_else(|| "unknown".to_owned(), |l| format!("{l:.2}"));
        println!("mental poker bench, {cards} cards, {build}, load average {load}, medians:");
        println!(
            "  shuffle: prove {:.3} ms, verify {:.3} ms (+ deck decode {:.3} ms), proof {} B, deck {} B  [{} reps]",
            report.shuffle_prove_ms,
            report.shuffle_verify_ms,
            report.deck_decode_ms,
            report.shuffle_proof_bytes,
            report.deck_bytes,
            report.shuffle_reps
        );
        println!(
            "  reveal token: make {:.4} ms, verify {:.4} ms, {} B  [{} reps]",
            report.reveal_prove_ms, report.reveal_verify_ms, report.reveal_bytes, report.token_reps
        );
        let cpu = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |x| format!("{x:.4}"));
        println!(
            "  mean CPU time per operation (ms): shuffle prove {}, verify {}; reveal make {}, verify {}",
            cpu(report.shuffle_prove_cpu_ms),
            cpu(report.shuffle_verify_cpu_ms),
            cpu(report.reveal_prove_cpu_ms),
            cpu(report.reveal_verify_cpu_ms)
        );
        println!(
            "  mask: make {:.4} ms, verify {:.4} ms, {} B  [{} reps]",
            report.mask_prove_ms, report.mask_verify_ms, report.mask_bytes, report.token_reps
        );
    }
    Ok(())
}
