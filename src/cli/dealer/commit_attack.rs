//! `facedown dealer commit-attack`: the commitment pitfalls as experiments — an equivocation
//! under a wrong multiplier, an out-of-range opening accepted without the range check, and
//! the brute-force time of a short salt with the honest setting's extrapolated cost.

use facedown_core::rng::seeded_rng;
use facedown_core::{PartyId, Perm};
use facedown_dealer::commit::{Equivocation, Experiment};
use facedown_dealer::rank::{factorial, rank};
use facedown_dealer::Slot;
use num_bigint::BigUint;
use rand::RngCore;
use serde_json::json;

use crate::cli::output::{ms, Doc};
use crate::cli::table::{OutputArgs, Table};

/// Largest salt length `--salt-bits` sweeps (each bit doubles the work).
const MAX_SWEEP_BITS: u32 = 20;

/// Arguments of `facedown dealer commit-attack`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  facedown dealer commit-attack --cards 5 --multiplier 5\n  facedown dealer commit-attack --cards 5 --no-range-check --json\n  facedown dealer commit-attack --cards 4 --salt-bits 12"
)]
pub struct CommitAttackArgs {
    /// Deck size n.
    #[arg(long, default_value_t = 5)]
    pub cards: usize,
    /// Commit to V = X + k·M with this M instead of n! (the published text's M = n).
    #[arg(long, value_name = "M", conflicts_with = "salt_bits")]
    pub multiplier: Option<u64>,
    /// The verifier does not check X < n!.
    #[arg(long, conflicts_with = "salt_bits")]
    pub no_range_check: bool,
    /// Brute-force commitments with salts of 0..=B bits and fit the cost per bit.
    #[arg(long, value_name = "B")]
    pub salt_bits: Option<u32>,
    /// Seed of the committed permutation and salt.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

const PARTY: PartyId = PartyId(1);
const SLOT: Slot = Slot::Deal(PartyId(1));

/// `facedown dealer commit-attack`.
pub fn commit_attack(a: &CommitAttackArgs) -> anyhow::Result<()> {
    if !(3..=20).contains(&a.cards) {
        anyhow::bail!("--cards {}: the experiments take 3..=20 cards", a.cards);
    }
    match a.salt_bits {
        Some(b) => salt_sweep(a, b),
        None => equivocation(a),
    }
}

fn params(a: &CommitAttackArgs) -> serde_json::Value {
    json!({
        "cards": a.cards,
        "multiplier": a.multiplier,
        "no_range_check": a.no_range_check,
        "salt_bits": a.salt_bits,
    })
}

fn opening_json(n: usize, (x, k): &(BigUint, BigUint)) -> serde_json::Value {
    json!({
        "rank": x.to_string(),
        "salt": k.to_string(),
        "in_range": *x < factorial(n),
        "permutation": facedown_dealer::rank::unrank(n, x).ok().map(|p| p.images().collect::<Vec<_>>()),
    })
}

/// Commits to a seeded permutation under the chosen parameters and under the honest ones,
/// and looks for a second opening under each.
fn equivocation(a: &CommitAttackArgs) -> anyhow::Result<()> {
    if a.multiplier.is_none() && !a.no_range_check {
        anyhow::bail!("give --multiplier M, --no-range-check or --salt-bits B");
    }
    if a.multiplier == Some(0) {
        anyhow::bail!("--multiplier 0 makes the salt vanish: give M ≥ 1");
    }
    let n = a.cards;
    let mut rng = seeded_rng(a.seed);
    let x = rank(&Perm::random_with_rng(n, &mut rng));
    let mut salt = [0u8; 32];
    rng.fill_bytes(&mut salt);
    let k = BigUint::from_bytes_be(&salt);
    let chosen = Experiment {
        multiplier: a.multiplier.map(BigUint::from),
        range_check: !a.no_range_check,
        salt_bits: 256,
    };
    let start = std::time::Instant::now();
    let found = chosen.equivocate(n, PARTY, SLOT, &x, &k);
    let honest = Experiment::honest().equivocate(n, PARTY, SLOT, &x, &k);
    let wall = start.elapsed();
    let row = |name: &str, e: &Option<Equivocation>| {
        json!({
            "setting": name,
            "equivocation": e.as_ref().map(|e| json!({
                "value": e.value.to_string(),
                "first": opening_json(n, &e.first),
                "second": opening_json(n, &e.second),
            })),
        })
    };
    let rows = [row("chosen", &found), row("honest", &honest)];
    if a.output.json {
        return Doc::new("dealer commit-attack")
            .seed(a.seed)
            .parameters(params(a))
            .print(&json!({ "cards": n, "rows": rows, "wall_ms": ms(wall) }));
    }
    let format = a.output.format();
    let m = a.multiplier.map_or("n!".to_owned(), |m| m.to_string());
    println!(
        "Commitment V = X + k·M to a seeded permutation of {n} cards (seed {}): M = {m}, range check {}",
        a.seed,
        if a.no_range_check { "off" } else { "on" }
    );
    let mut t = Table::new(&[
        "setting",
        "opening",
        "rank X",
        "in range",
        "permutation",
        "accepted",
    ]);
    for (name, e) in [("chosen", &found), ("honest (M = n!, X < n!)", &honest)] {
        match e {
            Some(e) => {
                for (which, o) in [("first", &e.first), ("second", &e.second)] {
                    let p = facedown_dealer::rank::unrank(n, &o.0).map_or("—".to_owned(), |p| {
                        format!("{:?}", p.images().collect::<Vec<_>>())
                    });
                    let in_range = if o.0 < factorial(n) { "yes" } else { "no" };
                    t.row(vec![
                        name.into(),
                        which.into(),
                        o.0.to_string(),
                        in_range.into(),
                        p,
                        "yes".into(),
                    ]);
                }
            }
            None => t.row(vec![
                name.into(),
                "second".into(),
                "—".into(),
                "—".into(),
                "—".into(),
                "none found: binding".into(),
            ]),
        }
    }
    t.print(format);
    Ok(())
}

/// Brute force of commitments with short salts: the measured time per salt length and the
/// fitted cost per bit, extrapolated to the honest 256 bits.
fn salt_sweep(a: &CommitAttackArgs, max_bits: u32) -> anyhow::Result<()> {
    if max_bits > MAX_SWEEP_BITS {
        anyhow::bail!(
            "--salt-bits {max_bits}: at most {MAX_SWEEP_BITS} (each bit doubles the time)"
        );
    }
    let n = a.cards;
    let perms = factorial(n);
    let mut rng = seeded_rng(a.seed);
    let mut rows = Vec::new();
    let start = std::time::Instant::now();
    for bits in 0..=max_bits {
        let exp = Experiment {
            multiplier: None,
            range_check: true,
            salt_bits: bits,
        };
        let x = rank(&Perm::random_with_rng(n, &mut rng));
        // The worst case: the salt the attacker tries last (a uniform salt costs half on
        // average), so the time grows by a clean factor per bit.
        let k = BigUint::from((1u64 << bits) - 1);
        let c = exp
            .commit(n, PARTY, SLOT, &x, &k)
            .ok_or_else(|| anyhow::anyhow!("encoding"))?;
        let t0 = std::time::Instant::now();
        let (found, tried) = exp.brute_force(&c, n, PARTY, SLOT);
        let secs = t0.elapsed().as_secs_f64();
        anyhow::ensure!(
            found.as_ref().map(|f| &f.0) == Some(&x),
            "brute force missed the permutation at {bits} bits"
        );
        rows.push((bits, tried, secs));
    }
    let wall = start.elapsed();
    let fit = fit_log2_time(&rows);
    // Worst case at 256 bits: every salt and every ordinal, at the measured cost per hash.
    let hashes: u64 = rows.iter().map(|r| r.1).sum();
    let per_hash = rows.iter().map(|r| r.2).sum::<f64>() / hashes as f64;
    let log2_perms: f64 = (2..=n).map(|i| (i as f64).log2()).sum();
    let honest_log2_seconds = 256.0 + log2_perms + per_hash.log2();
    let fitted_honest = fit.map(|(a0, b)| a0 + b * 256.0);
    if a.output.json {
        return Doc::new("dealer commit-attack").seed(a.seed).parameters(params(a)).print(&json!({
            "cards": n,
            "rows": rows.iter().map(|(b, t, s)| json!({"salt_bits": b, "hashes": t, "ms": s * 1e3})).collect::<Vec<_>>(),
            "fitted_log2_seconds_per_bit": fit.map(|f| f.1),
            "seconds_per_hash": per_hash,
            "honest_salt_bits": 256,
            "honest_log2_seconds": honest_log2_seconds,
            "fitted_honest_log2_seconds": fitted_honest,
            "wall_ms": ms(wall),
        }));
    }
    let format = a.output.format();
    println!("Brute force of a commitment to a seeded permutation of {n} cards ({perms} ordinals) under the salt tried last, against the salt's length (seed {}):", a.seed);
    let mut t = Table::new(&["salt bits", "hashes tried", "seconds"]).right_aligned([0, 1, 2]);
    for (b, tried, secs) in &rows {
        t.row(vec![b.to_string(), tried.to_string(), format!("{secs:.6}")]);
    }
    t.print(format);
    if let Some((_, b)) = fit {
        println!("fitted cost: ×{:.2} per bit of salt (log2 seconds rises {b:.3} per bit, fitted where a run took ≥ 1 ms)", b.exp2());
    }
    println!(
        "honest setting (256-bit salt, n! ordinals each): about 2^{honest_log2_seconds:.0} seconds at {:.0} ns per hash",
        per_hash * 1e9
    );
    if let Some(f) = fitted_honest {
        println!("the fitted line extrapolated to 256 bits: 2^{f:.0} seconds");
    }
    Ok(())
}

/// Least squares of `log2(seconds)` against the salt bits over the runs that took at least a
/// millisecond (shorter ones are timer noise): `(intercept, slope)`.
fn fit_log2_time(rows: &[(u32, u64, f64)]) -> Option<(f64, f64)> {
    let pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.2 >= 1e-3)
        .map(|r| (f64::from(r.0), r.2.log2()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let len = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / len,
        pts.iter().map(|p| p.1).sum::<f64>() / len,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx;
    Some((my - slope * mx, slope))
}
