//! One-off check too slow for CI: the fast reduction against literal brute force at n = 4,
//! N = 3 (24^5 ≈ 8 million runs per measure), hands of 1 (one card stays undealt).
//!
//! `cargo run --release -p facedown-leakage --example brute_force_n4`

use facedown_core::PartyId;
use facedown_dealer::Scheme;
use facedown_leakage::{
    measure_exact, Coalition, DealerExhaustive, DealerReduced, DealerTarget, Schedule,
};

fn main() -> Result<(), facedown_leakage::LeakageError> {
    let scheme = Scheme::general(3, 4)?;
    let sched = Schedule::new(&scheme, 1, 0)?;
    let full = DealerExhaustive::new(sched.clone())?;
    let fast = DealerReduced::new(sched)?;
    let mut all_agree = true;
    for c in [vec![1, 2], vec![1, 3], vec![2, 3], vec![1]] {
        let c = Coalition::new(c.into_iter().map(PartyId));
        for t in [DealerTarget::Deal, DealerTarget::Hand(PartyId(2))] {
            if c.contains(PartyId(2)) && t != DealerTarget::Deal {
                continue;
            }
            let start = std::time::Instant::now();
            let a = measure_exact(&full, &c, &t)?;
            let b = measure_exact(&fast, &c, &t)?;
            let agree = a.excess_is_zero == b.excess_is_zero
                && (a.excess_bits - b.excess_bits).abs() < 1e-9
                && a.guess_probability == b.guess_probability
                && (a.hidden, a.determined) == (b.hidden, b.determined);
            all_agree &= agree;
            println!(
                "{c} / {t}: brute force {:.6} bits (zero: {}), reduced {:.6} bits (zero: {}), agree: {agree} [{:.1} s]",
                a.excess_bits,
                a.excess_is_zero,
                b.excess_bits,
                b.excess_is_zero,
                start.elapsed().as_secs_f64()
            );
        }
    }
    println!("all agree: {all_agree}");
    Ok(())
}
