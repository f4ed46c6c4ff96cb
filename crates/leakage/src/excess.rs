//! Excess leakage: how much more one party's view on a backend tells about a secret than his
//! view on the ideal table, from an exact joint distribution.
//!
//! With `S` the secret, `W` the ideal view and `V = (W, E)` the backend view,
//! `excess = I(S; V) − I(S; W)`. Weights are exact integers; whether the excess is exactly zero
//! (`S ⊥ E | W`) is decided in integer arithmetic, and only the logarithms are floating point.

use std::collections::BTreeMap;

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use serde::{Deserialize, Serialize};

/// Excess leakage of one party: how much more his view on a backend tells about a secret than
/// his view on the ideal table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Excess {
    /// `I(S; V) − I(S; W)` in bits, where `V` is the backend view and `W` the ideal view.
    pub bits: f64,
    /// `I(S; W)`: what the ideal view itself reveals (bits).
    pub ideal_bits: f64,
    /// Whether the excess is exactly zero (`S` independent of `V` given `W`, checked in exact
    /// integer arithmetic).
    pub exactly_zero: bool,
}

/// The excess leakage from a joint distribution given as weighted samples
/// `(weight, secret S, ideal view W, extra view E)`, where the backend view is `V = (W, E)`.
///
/// Weights are exact integers (probability = weight / total); the conditional independence
/// behind [`Excess::exactly_zero`] is checked exactly; only the logarithms are floating point.
pub fn excess_leakage<S: Ord + Clone, W: Ord + Clone, E: Ord + Clone>(
    samples: &[(BigUint, S, W, E)],
) -> Excess {
    let mut p_s: BTreeMap<S, BigUint> = BTreeMap::new();
    let mut p_w: BTreeMap<W, BigUint> = BTreeMap::new();
    let mut p_sw: BTreeMap<(S, W), BigUint> = BTreeMap::new();
    let mut p_v: BTreeMap<(W, E), BigUint> = BTreeMap::new();
    let mut p_sv: BTreeMap<(S, W, E), BigUint> = BTreeMap::new();
    let mut total = BigUint::zero();
    for (w8, s, w, e) in samples {
        total += w8;
        *p_s.entry(s.clone()).or_default() += w8;
        *p_w.entry(w.clone()).or_default() += w8;
        *p_sw.entry((s.clone(), w.clone())).or_default() += w8;
        *p_v.entry((w.clone(), e.clone())).or_default() += w8;
        *p_sv.entry((s.clone(), w.clone(), e.clone())).or_default() += w8;
    }
    // S ⊥ V | W  ⇔  P(s,w,e)·P(w) = P(s,w)·P(w,e) for every (s, w, e) (zero cells included:
    // those with P(s,w)·P(w,e) > 0 must appear).
    let mut exactly_zero = true;
    'outer: for ((w, e), pv) in &p_v {
        let pw = &p_w[w];
        for s in p_s.keys() {
            let psw = p_sw
                .get(&(s.clone(), w.clone()))
                .cloned()
                .unwrap_or_default();
            let psv = p_sv
                .get(&(s.clone(), w.clone(), e.clone()))
                .cloned()
                .unwrap_or_default();
            if psv * pw != psw * pv {
                exactly_zero = false;
                break 'outer;
            }
        }
    }
    let t = big_f64(&total);
    let h = |m: &mut dyn Iterator<Item = &BigUint>| -> f64 {
        m.map(|x| {
            let p = big_f64(x) / t;
            if p > 0.0 {
                -p * p.log2()
            } else {
                0.0
            }
        })
        .sum()
    };
    let hs = h(&mut p_s.values());
    let i_w = hs + h(&mut p_w.values()) - h(&mut p_sw.values());
    let i_v = hs + h(&mut p_v.values()) - h(&mut p_sv.values());
    Excess {
        bits: if exactly_zero {
            0.0
        } else {
            (i_v - i_w).max(0.0)
        },
        ideal_bits: i_w.max(0.0),
        exactly_zero,
    }
}

fn big_f64(x: &BigUint) -> f64 {
    x.to_f64().unwrap_or(f64::INFINITY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::One;

    #[test]
    fn excess_leakage_is_zero_for_a_function_of_the_ideal_view_and_one_bit_for_the_secret() {
        let one = BigUint::one();
        // Secret bit s; ideal view shows nothing; extra view shows s.
        let leaky: Vec<_> = [false, true]
            .iter()
            .map(|&s| (one.clone(), s, (), s))
            .collect();
        let e = excess_leakage(&leaky);
        assert!(!e.exactly_zero);
        assert!((e.bits - 1.0).abs() < 1e-12);
        // Extra view independent of s.
        let safe: Vec<_> = [(false, 0), (false, 1), (true, 0), (true, 1)]
            .iter()
            .map(|&(s, x)| (one.clone(), s, (), x))
            .collect();
        let e = excess_leakage(&safe);
        assert!(e.exactly_zero);
        assert_eq!(e.bits, 0.0);
    }
}
