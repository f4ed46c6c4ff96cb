//! Criterion benches of the encrypted deck, swept over deck sizes 52, 104, 208 and 416.
//!
//! Groups ending in `_cpu` measure the CPU time of the one thread that does the work (a
//! one-thread rayon pool, thread CPU clock), which a loaded machine inflates far less than the
//! wall clock; `shuffle_threads` measures wall time on pools of 1 and 2 threads. Each figure has
//! its floor in the same run (`shuffle_floor_cpu`, and `floor` inside the batch groups), and the
//! bench ends with a table of ratios read back from criterion's estimates.
//!
//! * `shuffle_prove_cpu`, `shuffle_verify_cpu` (decoding the received deck + verifying),
//!   `shuffle_floor_cpu` (one variable-time MSM over the 4N ciphertext points + decoding 2N);
//! * `shuffle_threads`: `prove_{1,2}_threads`, `verify_{1,2}_threads` (wall);
//! * `deal_three_shuffles_cpu`: a player's verification of the three other shuffles of a
//!   4-player deal, `one_by_one` and `batched` (received decks already decoded), `decode` (the
//!   three received decks, the same work either way) and the batch's `floor` (means over the
//!   four players' views);
//! * `reveal_round_cpu`: the 21 tokens a player of a 4-player deal verifies in the reveal round;
//! * `reveal_token_cpu` (one token), `deal` (a whole 4-player 52-card deal, in memory, wall)
//!   and `deal_cpu` (the same deal's CPU: all four players run on one thread, batching and
//!   verifying one by one);
//! * `commitment_generators_cpu`: the verifier's multiplication shape (`N` fixed generators
//!   plus `4N + 11` other points, random points and scalars) computed three ways — one
//!   Pippenger multiplication over all `5N + 11` (`pippenger_all`, what the verifier does),
//!   dalek's precomputed tables for the generators plus Pippenger for the rest
//!   (`precomputed_plus_pippenger`), dalek's mixed precomputed multiplication (`mixed`) — and
//!   the floor's `4N` points alone (`floor_4n`).

#![allow(missing_docs)] // criterion's macros generate undocumented items.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};
use curve25519_dalek::ristretto::{RistrettoPoint, VartimeRistrettoPrecomputation};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{VartimeMultiscalarMul, VartimePrecomputedMultiscalarMul};
use facedown_core::rng::seeded_rng;
use facedown_poker::batch::{
    verify_reveal_tokens, verify_reveal_tokens_one_by_one, verify_shuffles,
    verify_shuffles_one_by_one, Verification,
};
use facedown_poker::deal::{deal_with_rng, run_deal_verifying, DealParams, Honest};
use facedown_poker::elgamal::Deck;
use facedown_poker::reveal::{reveal_token_with_rng, verify_reveal_token};
use facedown_poker::shuffle::{decode_and_verify_shuffle, shuffle_with_rng};
use facedown_poker::workloads::{ctx, DealFixture, RevealRound, PLAYERS};
use rayon::ThreadPool;

const DECKS: [u16; 4] = [52, 104, 208, 416];

fn pool(threads: usize) -> ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// Runs `f` `iters` times on `pool` and returns the CPU time of the thread that ran it
/// (`pool` should have one thread, so that no work runs elsewhere).
fn thread_cpu(pool: &ThreadPool, iters: u64, mut f: impl FnMut() + Send) -> Duration {
    pool.install(|| {
        let start = cpu_time::ThreadTime::now();
        for _ in 0..iters {
            f();
        }
        start.elapsed()
    })
}

/// Runs `f` `iters` times on `pool` and returns the wall time.
fn wall(pool: &ThreadPool, iters: u64, mut f: impl FnMut() + Send) -> Duration {
    pool.install(|| {
        let start = Instant::now();
        for _ in 0..iters {
            f();
        }
        start.elapsed()
    })
}

fn fixtures() -> Vec<DealFixture> {
    let mut rng = seeded_rng(1);
    DECKS
        .iter()
        .map(|&n| DealFixture::new_with_rng(n, &mut rng).expect("valid deck sizes"))
        .collect()
}

/// Player 2's shuffle (of player 1's deck) and its verification; the shuffle's floor.
fn shuffle(c: &mut Criterion, deals: &[DealFixture], one: &ThreadPool) {
    let mut rng = seeded_rng(2);
    let c2 = ctx(2, 2);
    let mut group = c.benchmark_group("shuffle_prove_cpu");
    group.sample_size(20);
    for d in deals {
        let n = d.decks[0].len();
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_custom(|iters| {
                thread_cpu(one, iters, || {
                    let out = shuffle_with_rng(
                        &mut d.base.clone(),
                        &c2,
                        &d.ck,
                        &d.key,
                        &d.decks[1],
                        &mut rng,
                    );
                    std::hint::black_box(out.expect("valid deck"));
                })
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("shuffle_verify_cpu");
    group.sample_size(20);
    for d in deals {
        let n = d.decks[0].len();
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_custom(|iters| thread_cpu(one, iters, || verify_player_2(d)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("shuffle_floor_cpu");
    group.sample_size(20);
    for d in deals {
        let n = d.decks[0].len();
        let floor = d.shuffle_floor(&mut rng);
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_custom(|iters| {
                thread_cpu(one, iters, || {
                    std::hint::black_box((floor.multiply(), floor.decode()));
                })
            })
        });
    }
    group.finish();
}

/// Decodes player 2's deck and verifies its proof.
fn verify_player_2(d: &DealFixture) {
    let out = decode_and_verify_shuffle(
        &mut d.base.clone(),
        &ctx(2, 2),
        &d.ck,
        &d.key,
        &d.decks[1],
        d.decks[2].wire().to_vec(),
        &d.proofs[1],
    );
    std::hint::black_box(out.expect("an honest proof verifies"));
}

/// Prove and verify (with decoding) on 1 and 2 threads, wall time.
fn threads(c: &mut Criterion, deals: &[DealFixture]) {
    let mut rng = seeded_rng(3);
    let c2 = ctx(2, 2);
    let mut group = c.benchmark_group("shuffle_threads");
    group.sample_size(20);
    for threads in [1, 2] {
        let p = pool(threads);
        for d in deals {
            let n = d.decks[0].len();
            group.bench_function(
                BenchmarkId::new(format!("prove_{threads}_threads"), n),
                |b| {
                    b.iter_custom(|iters| {
                        wall(&p, iters, || {
                            let out = shuffle_with_rng(
                                &mut d.base.clone(),
                                &c2,
                                &d.ck,
                                &d.key,
                                &d.decks[1],
                                &mut rng,
                            );
                            std::hint::black_box(out.expect("valid deck"));
                        })
                    })
                },
            );
            group.bench_function(
                BenchmarkId::new(format!("verify_{threads}_threads"), n),
                |b| b.iter_custom(|iters| wall(&p, iters, || verify_player_2(d))),
            );
        }
    }
    group.finish();
}

/// Each player's verification of the other three shuffles, one by one and batched.
fn deal_batch(c: &mut Criterion, deals: &[DealFixture], one: &ThreadPool) {
    let mut rng = seeded_rng(4);
    let mut group = c.benchmark_group("deal_three_shuffles_cpu");
    group.sample_size(20);
    for d in deals {
        let n = d.decks[0].len();
        let floors: Vec<_> = (1..=PLAYERS).map(|me| d.floor_of(me, &mut rng)).collect();
        let every_view = |f: &dyn Fn(usize)| (1..=PLAYERS).for_each(f);
        group.bench_function(BenchmarkId::new("one_by_one", n), |b| {
            b.iter_custom(|iters| {
                thread_cpu(one, iters, || {
                    every_view(&|me| {
                        verify_shuffles_one_by_one(&d.ck, &d.key, d.claims_of(me))
                            .expect("honest proofs verify");
                    })
                }) / PLAYERS as u32
            })
        });
        group.bench_function(BenchmarkId::new("batched", n), |b| {
            b.iter_custom(|iters| {
                thread_cpu(one, iters, || {
                    every_view(&|me| {
                        verify_shuffles(&d.ck, &d.key, d.claims_of(me))
                            .expect("honest proofs verify");
                    })
                }) / PLAYERS as u32
            })
        });
        group.bench_function(BenchmarkId::new("decode", n), |b| {
            b.iter_custom(|iters| {
                thread_cpu(one, iters, || {
                    every_view(&|me| {
                        for c in d.claims_of(me) {
                            let wire = c.output.wire().to_vec();
                            std::hint::black_box(
                                Deck::decode(wire, c.ctx.player).expect("valid deck"),
                            );
                        }
                    })
                }) / PLAYERS as u32
            })
        });
        group.bench_function(BenchmarkId::new("floor", n), |b| {
            b.iter_custom(|iters| {
                thread_cpu(one, iters, || {
                    for f in &floors {
                        std::hint::black_box((f.multiply(), f.decode()));
                    }
                }) / PLAYERS as u32
            })
        });
    }
    group.finish();
}

/// A player's reveal round (3 players × 7 tokens) and single reveal tokens.
fn reveal(c: &mut Criterion, deals: &[DealFixture], one: &ThreadPool) {
    let mut rng = seeded_rng(5);
    let d = &deals[0];
    let round = RevealRound::new_with_rng(d, &mut rng);
    let floor = round.floor(&d.decks[PLAYERS], &mut rng);
    let tokens = round.owners.len();
    let mut group = c.benchmark_group("reveal_round_cpu");
    group.bench_function(BenchmarkId::new("one_by_one", tokens), |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                round
                    .verify_compact_one_by_one(d)
                    .expect("honest tokens verify");
            })
        })
    });
    group.bench_function(BenchmarkId::new("one_by_one_batchable", tokens), |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                std::hint::black_box(
                    verify_reveal_tokens_one_by_one(round.claims(d)).expect("honest tokens verify"),
                );
            })
        })
    });
    group.bench_function(BenchmarkId::new("batched", tokens), |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                std::hint::black_box(
                    verify_reveal_tokens(round.claims(d)).expect("honest tokens verify"),
                );
            })
        })
    });
    group.bench_function(BenchmarkId::new("floor", tokens), |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                std::hint::black_box((floor.multiply(), floor.decode()));
            })
        })
    });
    group.finish();

    let mut group = c.benchmark_group("reveal_token_cpu");
    let (c9, sk) = (ctx(9, 2), &d.sks[1]);
    let deck = &d.decks[PLAYERS];
    let ct = (&deck.ciphertexts()[0], &deck.wire()[0]);
    group.bench_function("make", |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                std::hint::black_box(reveal_token_with_rng(
                    &mut d.base.clone(),
                    &c9,
                    sk,
                    0,
                    ct,
                    &mut rng,
                ));
            })
        })
    });
    let token = reveal_token_with_rng(&mut d.base.clone(), &c9, sk, 0, ct, &mut seeded_rng(6));
    group.bench_function("verify", |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                std::hint::black_box(
                    verify_reveal_token(&mut d.base.clone(), &c9, sk.public(), ct, &token)
                        .expect("an honest token verifies"),
                );
            })
        })
    });
    group.finish();
}

/// A whole 4-player 52-card deal in one process (wall time, global pool).
fn deal(c: &mut Criterion) {
    let mut group = c.benchmark_group("deal");
    group.sample_size(10);
    let params = DealParams {
        players: 4,
        cards: 52,
        hand: 2,
        public: 5,
    };
    let mut rng = seeded_rng(7);
    group.bench_function("4_players_52_cards", |b| {
        b.iter(|| deal_with_rng(params, b"bench deal", &mut rng))
    });
    group.finish();
}

/// The same deal on a one-thread pool: the CPU time of the one thread that runs all four
/// players (the in-memory driver runs them in turn), so the figure is the deal's whole CPU —
/// its players batching (`4_players_52_cards`, what they do), and verifying every proof on its
/// own (`4_players_52_cards_one_by_one`, the baseline).
fn deal_cpu(c: &mut Criterion, one: &ThreadPool) {
    let mut group = c.benchmark_group("deal_cpu");
    group.sample_size(10);
    let params = DealParams {
        players: 4,
        cards: 52,
        hand: 2,
        public: 5,
    };
    let runs = [
        ("4_players_52_cards", Verification::Batched),
        ("4_players_52_cards_one_by_one", Verification::OneByOne),
    ];
    for (name, verification) in runs {
        let mut rng = seeded_rng(7);
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                thread_cpu(one, iters, || {
                    let session = b"bench deal";
                    let (dealt, _) =
                        run_deal_verifying(params, session, &mut Honest, verification, &mut rng);
                    assert!(dealt.is_ok(), "an honest deal");
                })
            })
        });
    }
    group.finish();
}

/// The verifier's multiplication with its `N` commitment generators as fixed points: whether
/// dalek's precomputed tables for them beat folding them into one Pippenger multiplication.
/// The tables are built once, outside the timed loop, as a cached commitment key would be.
fn commitment_generators(c: &mut Criterion, one: &ThreadPool) {
    let mut group = c.benchmark_group("commitment_generators_cpu");
    let mut rng = seeded_rng(3);
    for n in DECKS.map(usize::from) {
        let mut points = |k: usize| -> Vec<RistrettoPoint> {
            (0..k).map(|_| RistrettoPoint::random(&mut rng)).collect()
        };
        let (g, d) = (points(n), points(4 * n + 11));
        let all: Vec<RistrettoPoint> = g.iter().chain(&d).copied().collect();
        let scalars: Vec<Scalar> = (0..all.len()).map(|_| Scalar::random(&mut rng)).collect();
        let (sg, sd) = scalars.split_at(n);
        let tables = VartimeRistrettoPrecomputation::new(&g);
        let mut bench = |id: &str, f: &(dyn Fn() -> RistrettoPoint + Sync)| {
            group.bench_function(BenchmarkId::new(id, n), |b| {
                b.iter_custom(|iters| {
                    thread_cpu(one, iters, || {
                        std::hint::black_box(f());
                    })
                })
            });
        };
        bench("pippenger_all", &|| {
            RistrettoPoint::vartime_multiscalar_mul(&scalars, &all)
        });
        bench("precomputed_plus_pippenger", &|| {
            tables.vartime_multiscalar_mul(sg) + RistrettoPoint::vartime_multiscalar_mul(sd, &d)
        });
        bench("mixed", &|| {
            tables.vartime_mixed_multiscalar_mul(sg, sd, &d)
        });
        bench("floor_4n", &|| {
            RistrettoPoint::vartime_multiscalar_mul(&sd[..4 * n], &d[..4 * n])
        });
    }
    group.finish();
}

/// Reads criterion's median estimate (nanoseconds) of `group/id`, if this run wrote one.
fn median_ns(group: &str, id: &str) -> Option<f64> {
    let home = std::env::var_os("CRITERION_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map(|t| std::path::PathBuf::from(t).join("criterion"))
        })
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/criterion")
        });
    let path = home.join(group).join(id).join("new/estimates.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    json["median"]["point_estimate"].as_f64()
}

/// The ratio table: each figure against its floor, 2 threads against 1, batched against one
/// by one.
fn print_ratios() {
    let cell = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.2}"));
    let ratio = |a: Option<f64>, b: Option<f64>| Some(a? / b?);
    println!("\nratios (criterion medians of this run; — where a figure was not measured)");
    println!(
        "{:>5} {:>13} {:>13} {:>13} {:>13} {:>15} {:>15}",
        "N",
        "verify÷floor",
        "prove÷floor",
        "prove 2t÷1t",
        "verify 2t÷1t",
        "deal batch÷1×1",
        "batch÷floor"
    );
    for n in DECKS {
        let n = n.to_string();
        let floor = median_ns("shuffle_floor_cpu", &n);
        let t = |what: &str| median_ns("shuffle_threads", &format!("{what}/{n}"));
        let deal = |what: &str| median_ns("deal_three_shuffles_cpu", &format!("{what}/{n}"));
        let plus = |a: Option<f64>, b: Option<f64>| Some(a? + b?);
        let decode = deal("decode");
        println!(
            "{n:>5} {:>13} {:>13} {:>13} {:>13} {:>15} {:>17} {:>18}",
            cell(ratio(median_ns("shuffle_verify_cpu", &n), floor)),
            cell(ratio(median_ns("shuffle_prove_cpu", &n), floor)),
            cell(ratio(t("prove_2_threads"), t("prove_1_threads"))),
            cell(ratio(t("verify_2_threads"), t("verify_1_threads"))),
            cell(ratio(deal("batched"), deal("one_by_one"))),
            cell(ratio(
                plus(deal("batched"), decode),
                plus(deal("one_by_one"), decode)
            )),
            cell(ratio(plus(deal("batched"), decode), deal("floor"))),
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let deals = fixtures();
    let one = pool(1);
    shuffle(&mut c, &deals, &one);
    threads(&mut c, &deals);
    deal_batch(&mut c, &deals, &one);
    reveal(&mut c, &deals, &one);
    deal(&mut c);
    deal_cpu(&mut c, &one);
    commitment_generators(&mut c, &one);
    c.final_summary();
    print_ratios();
}
