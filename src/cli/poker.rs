//! `facedown poker` subcommands: `deal` and `bench`.

use std::io::IsTerminal;

use anyhow::Context;
use clap::Subcommand;
use facedown_core::rng::seeded_rng;
use facedown_poker::deal::{deal_with_rng, DealParams};
use facedown_poker::timing::{measure_with_rng, BenchReport, ThreadFigures};

use super::output::{CheckFailed, Doc};
use super::table::{Format, OutputArgs, Table};

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
    ///
    /// Exits with status 3 when the audit fails.
    #[command(
        after_help = "Example: facedown poker deal --players 4 --hand 2 --public 5 --seed 7"
    )]
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
    /// Time the shuffle argument (1 and 2 threads, with its floor), batched against one-by-one
    /// verification, reveal tokens and masking.
    #[command(
        after_help = "Examples:\n  facedown poker bench --cards 52 --reps 11 --json\n  facedown poker bench --cards 52,104,208 --markdown"
    )]
    Bench {
        /// Deck sizes n, comma-separated (e.g. 52,104,208,416); JSON is one report for one
        /// size, an array of reports for several.
        #[arg(long, value_delimiter = ',', default_value = "52")]
        cards: Vec<u16>,
        /// Repetitions of the shuffle prove/verify.
        #[arg(long, default_value_t = 21)]
        reps: usize,
        /// Repetitions of the reveal-token and masking measurements.
        #[arg(long, default_value_t = 201)]
        token_reps: usize,
        /// Seed of the run.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Output format.
        #[command(flatten)]
        output: OutputArgs,
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
            output,
        } => bench(cards, reps, token_reps, seed, output),
    }
}

fn deal(params: DealParams, seed: u64, json: bool) -> anyhow::Result<()> {
    params.validate()?;
    let session = format!("facedown poker deal seed={seed}");
    let report = deal_with_rng(params, session.as_bytes(), &mut seeded_rng(seed));
    if json {
        Doc::new("poker deal")
            .seed(seed)
            .parameters(serde_json::json!({
                "players": params.players,
                "cards": params.cards,
                "hand": params.hand,
                "public": params.public,
            }))
            .print(&report)?;
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
        return Err(CheckFailed("the deal failed its audit".into()).into());
    }
    Ok(())
}

fn bench(
    sizes: Vec<u16>,
    reps: usize,
    token_reps: usize,
    seed: u64,
    output: OutputArgs,
) -> anyhow::Result<()> {
    // The bench refuses counts that overflow; the bar only needs a length.
    let per_size = reps
        .saturating_mul(3)
        .saturating_add(token_reps.saturating_mul(2)) as u64;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(per_size.saturating_mul(sizes.len() as u64));
        bar.set_message("poker bench");
        bar
    });
    let mut rng = seeded_rng(seed);
    let mut reports = Vec::with_capacity(sizes.len());
    for (i, &cards) in sizes.iter().enumerate() {
        let report = measure_with_rng(cards, reps, token_reps, &mut rng, &mut |done, _| {
            if let Some(b) = &bar {
                b.set_position(
                    (i as u64)
                        .saturating_mul(per_size)
                        .saturating_add(done as u64),
                );
            }
        })
        .with_context(|| format!("poker bench, {cards} cards"))?;
        reports.push(report);
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if output.json {
        let doc = Doc::new("poker bench")
            .seed(seed)
            .parameters(serde_json::json!({
                "cards": sizes, "reps": reps, "token_reps": token_reps,
            }));
        match reports.as_slice() {
            [one] => doc.print(one)?,
            all => doc.print(&serde_json::json!({ "reports": all }))?,
        }
    } else {
        print_bench(&reports, seed, output.format());
    }
    Ok(())
}

/// One row of the bench table: a label and a cell per deck size.
type Row = (&'static str, fn(&BenchReport) -> Option<f64>);

fn print_bench(reports: &[BenchReport], seed: u64, format: Format) {
    let Some(first) = reports.first() else {
        return;
    };
    let build = if first.optimized {
        "optimized"
    } else {
        "UNOPTIMIZED (debug) build"
    };
    let load = |l: Option<f64>| l.map_or_else(|| "?".to_owned(), |l| format!("{l:.2}"));
    let last = reports.last().unwrap_or(first);
    println!(
        "mental poker bench (Barnett–Smart, ristretto255), {build}, seed {seed}, load average {} → {}",
        load(first.load_average),
        load(last.load_average_end)
    );
    println!(
        "{} shuffle reps, {} token reps; CPU ms of one thread unless stated; floor = one vartime \
         MSM over every statement point + decoding the received points (curve25519-dalek, same run)",
        first.shuffle_reps, first.token_reps
    );
    let sections: [(&str, &[Row]); 6] = [
        (
            "shuffle of N cards, one thread",
            &[
                ("prove", |r| r.shuffle_prove_cpu_ms),
                ("verify (deck decoded)", |r| r.shuffle_verify_cpu_ms),
                ("decode deck + verify", |r| {
                    r.shuffle_verify_with_decode_cpu_ms
                }),
                ("floor: MSM of 4N points", |r| r.shuffle_floor_msm_ms),
                ("floor: decode 2N points", |r| r.shuffle_floor_decode_ms),
                ("floor", |r| r.shuffle_floor_ms),
                ("decode + verify ÷ floor", |r| r.shuffle_verify_floor_ratio),
                ("prove ÷ floor", |r| r.shuffle_prove_floor_ratio),
            ],
        ),
        (
            "wall ms on 1 and 2 threads (median)",
            &[
                ("prove, 1 thread", |r| thread(r, 1).map(|t| t.prove_wall_ms)),
                ("prove, 2 threads", |r| {
                    thread(r, 2).map(|t| t.prove_wall_ms)
                }),
                ("prove: 2 threads ÷ 1", |r| {
                    thread(r, 2).map(|t| t.prove_wall_ratio)
                }),
                ("decode + verify, 1 thread", |r| {
                    thread(r, 1).map(|t| t.verify_wall_ms)
                }),
                ("decode + verify, 2 threads", |r| {
                    thread(r, 2).map(|t| t.verify_wall_ms)
                }),
                ("verify: 2 threads ÷ 1", |r| {
                    thread(r, 2).map(|t| t.verify_wall_ratio)
                }),
                ("prove span, 2 threads (busiest worker's CPU)", |r| {
                    thread(r, 2).and_then(|t| t.prove_span_ms)
                }),
                ("prove span: 2 threads ÷ 1", |r| {
                    thread(r, 2).and_then(|t| t.prove_span_ratio)
                }),
                ("verify span, 2 threads (busiest worker's CPU)", |r| {
                    thread(r, 2).and_then(|t| t.verify_span_ms)
                }),
                ("verify span: 2 threads ÷ 1", |r| {
                    thread(r, 2).and_then(|t| t.verify_span_ratio)
                }),
            ],
        ),
        (
            "a player verifies the 3 other shuffles of a 4-player deal",
            &[
                ("one by one", |r| r.deal_batch.one_by_one_cpu_ms),
                ("batched", |r| r.deal_batch.batched_cpu_ms),
                ("batched ÷ one by one", |r| r.deal_batch.batch_ratio),
                ("decoding the 3 decks (either way)", |r| {
                    r.deal_batch.decode_cpu_ms
                }),
                ("same, decoding included", |r| {
                    r.deal_batch.batch_ratio_with_decode
                }),
                ("batch floor", |r| r.deal_batch.batched_floor_ms),
                ("batched + decode ÷ floor", |r| {
                    r.deal_batch.batched_floor_ratio
                }),
            ],
        ),
        (
            "a whole 4-player deal (2-card hands, 5 public), CPU per player",
            &[
                ("players batching", |r| r.deal.batched_cpu_ms_per_player),
                ("players verifying one by one", |r| {
                    r.deal.one_by_one_cpu_ms_per_player
                }),
                ("batching ÷ one by one", |r| r.deal.batch_ratio),
            ],
        ),
        (
            "reveal round: 3 players × 7 tokens (hand + public)",
            &[
                ("one by one (v1 tokens)", |r| {
                    r.reveal_batch.one_by_one_cpu_ms
                }),
                ("one by one (batchable tokens)", |r| {
                    r.reveal_batch.one_by_one_batchable_cpu_ms
                }),
                ("batched", |r| r.reveal_batch.batched_cpu_ms),
                ("batched ÷ one by one (v1)", |r| r.reveal_batch.batch_ratio),
                ("batch floor", |r| r.reveal_batch.batched_floor_ms),
                ("batched + decode ÷ floor", |r| {
                    r.reveal_batch.batched_floor_ratio
                }),
            ],
        ),
        (
            "single proofs and sizes",
            &[
                ("reveal token: make", |r| r.reveal_prove_cpu_ms),
                ("reveal token: verify", |r| r.reveal_verify_cpu_ms),
                ("mask: make (median wall)", |r| Some(r.mask_prove_ms)),
                ("mask: verify (median wall)", |r| Some(r.mask_verify_ms)),
                ("shuffle proof, bytes", |r| {
                    Some(r.shuffle_proof_bytes as f64)
                }),
                ("shuffled deck, bytes", |r| Some(r.deck_bytes as f64)),
                ("reveal token, bytes", |r| Some(r.reveal_bytes as f64)),
                ("batchable reveal token, bytes", |r| {
                    Some(r.batchable_reveal_bytes as f64)
                }),
            ],
        ),
    ];
    let sizes: Vec<String> = reports.iter().map(|r| format!("N={}", r.cards)).collect();
    let cell_text = |label: &str, v: Option<f64>| match v {
        None => "n/a".to_owned(),
        Some(v) if label.ends_with("bytes") => format!("{v:.0}"),
        Some(v) => format!("{v:.3}"),
    };
    if format == Format::Csv {
        let mut head = vec!["section".to_owned(), "measure".to_owned()];
        head.extend(sizes.iter().cloned());
        let mut t = Table::new(&head);
        for (title, rows) in sections {
            for (label, cell) in rows {
                let mut row = vec![title.to_owned(), (*label).to_owned()];
                row.extend(reports.iter().map(|r| cell_text(label, cell(r))));
                t.row(row);
            }
        }
        t.print(format);
        return;
    }
    for (title, rows) in sections {
        let mut head = vec![title.to_owned()];
        head.extend(sizes.iter().cloned());
        let mut t = Table::new(&head).right_aligned(1..head.len());
        for (label, cell) in rows {
            let mut row = vec![(*label).to_owned()];
            row.extend(reports.iter().map(|r| cell_text(label, cell(r))));
            t.row(row);
        }
        println!();
        t.print(format);
    }
}

fn thread(r: &BenchReport, threads: usize) -> Option<&ThreadFigures> {
    r.threads.iter().find(|t| t.threads == threads)
}
