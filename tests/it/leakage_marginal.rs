//! Per-card marginals and the audit's row of the collusion table: a marginal never exceeds
//! the joint excess it is a function of, a determined card's marginal is all of its hidden
//! entropy, and the audit reveals exactly what an ideal dealer would have kept hidden.

use facedown_dealer::Scheme;
use facedown_leakage::collusion::{collusion_table, Method};
use facedown_leakage::Schedule;

#[test]
fn a_marginal_is_at_most_the_joint_excess_and_zero_when_the_joint_is() {
    for scheme in [
        Scheme::general(3, 6).expect("scheme"),
        Scheme::published(6).expect("scheme"),
    ] {
        for (hand, public) in [(1, 1), (2, 0)] {
            let sch = Schedule::new(&scheme, hand, public).expect("schedule");
            let rows = collusion_table(&sch, Method::Exact).expect("table");
            let mut leaking = 0;
            for r in &rows {
                assert!(!r.marginal.is_empty(), "{r:?}");
                for m in &r.marginal {
                    assert!(m.excess_bits <= r.excess_bits + 1e-9, "{r:?}");
                    if r.excess_is_zero {
                        assert!(m.excess_is_zero, "{r:?}");
                    }
                }
                if r.determined > 0 {
                    leaking += 1;
                    assert!(r.marginal.iter().any(|m| m.excess_bits > 0.5), "{r:?}");
                }
            }
            if scheme.variant == facedown_dealer::Variant::General {
                assert!(leaking > 0, "coalitions with player 3 read hands");
            }
        }
    }
}

#[test]
fn the_audit_reveals_what_an_ideal_dealer_keeps_hidden() {
    // Three players, six cards, one card each and one public card: player 1 alone knows two
    // cards, so player 2's card is one of the other four (2 bits) and the two undealt cards
    // one of 4·3 ordered pairs (log2 12 bits) — all of which the audit makes public.
    let scheme = Scheme::general(3, 6).expect("scheme");
    let sch = Schedule::new(&scheme, 1, 1).expect("schedule");
    let rows = collusion_table(&sch, Method::Exact).expect("table");
    let of = |target: &str| {
        rows.iter()
            .find(|r| r.coalition == [1] && r.target == target)
            .unwrap_or_else(|| panic!("{target}"))
            .audit_reveals_bits
    };
    assert!((of("hand of player 2") - 2.0).abs() < 1e-9);
    assert!((of("undealt cards") - 12f64.log2()).abs() < 1e-9);
    // The closed form agrees (it is what the harness uses beyond 8 cards).
    let closed = collusion_table(&sch, Method::ClosedForm).expect("table");
    for (a, b) in rows.iter().zip(&closed) {
        assert_eq!((&a.coalition, &a.target), (&b.coalition, &b.target));
        assert!(
            (a.audit_reveals_bits - b.audit_reveals_bits).abs() < 1e-9,
            "{a:?}"
        );
        for (x, y) in a.marginal.iter().zip(&b.marginal) {
            assert!((x.excess_bits - y.excess_bits).abs() < 1e-9, "{a:?}");
        }
    }
}
