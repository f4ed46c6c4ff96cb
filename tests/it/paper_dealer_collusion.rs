//! Claims about the permutation-sharing dealer's privacy, reproduced exactly by the leakage
//! harness (`facedown-leakage`): the scheme resists single players, not coalitions.

use facedown_core::PartyId;
use facedown_dealer::Scheme;
use facedown_leakage::collusion::{closed_form_measure, collusion_table, Method};
use facedown_leakage::{measure_exact, Coalition, DealerReduced, DealerTarget, Schedule};

fn log2_factorial(n: usize) -> f64 {
    (2..=n).map(|k| (k as f64).log2()).sum()
}

/// The seed's claim, restricted to what it claims: no single player learns more than an ideal
/// dealer would tell him — exactly zero excess bits for every target, under public, private
/// and mixed schedules, for N = 3 and 4 and the published three-player scheme.
#[test]
fn claim_single_players_learn_nothing_beyond_their_cards() {
    let mut schemes = vec![];
    for n in 4..=6 {
        schemes.push(Scheme::general(3, n).expect("scheme"));
        schemes.push(Scheme::published(n).expect("scheme"));
    }
    schemes.push(Scheme::general(4, 5).expect("scheme"));
    for scheme in schemes {
        let n = scheme.cards;
        let per = scheme.players;
        for (hand, public) in [(0, n - 1), (n / per, 0), ((n - 1) / per, 1)] {
            let sched = Schedule::new(&scheme, hand, public).expect("schedule");
            for r in collusion_table(&sched, Method::Exact).expect("table") {
                if r.coalition.len() == 1 {
                    assert!(
                        r.excess_is_zero && r.excess_bits == 0.0 && r.determined == 0,
                        "{:?} n={n} {}: {:?}",
                        scheme.variant,
                        sched.describe(),
                        r
                    );
                }
            }
        }
    }
}

/// Hand-computable case: players 1 and 2 of the three-player scheme hold a whole layer —
/// `A1`, `A2`, and `A3 = C3[1]∘D3[1]` from the two halves — so they know the whole deal:
/// the excess about it is `log2 (n − k)!` with `k` the cards an ideal dealer shows them, every
/// hidden card is determined and the best guess is right with probability 1.
#[test]
fn claim_a_coalition_holding_a_whole_layer_determines_everything() {
    for n in 4..=7 {
        let scheme = Scheme::general(3, n).expect("scheme");
        let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
        let model = DealerReduced::new(sched.clone()).expect("model");
        let c = Coalition::new([PartyId(1), PartyId(2)]);
        let m = measure_exact(&model, &c, &DealerTarget::Deal).expect("exact");
        // Ideal view: own two cards and the public card.
        let expected = log2_factorial(n - 3);
        assert!((m.excess_bits - expected).abs() < 1e-9, "n={n}: {m:?}");
        assert_eq!(m.guess_probability, "1");
        assert_eq!(m.determined, m.hidden);
        assert!(m.ideal_in_view);
    }
}

/// Players 1 and 3 together learn player 2's private hand: player 1 is the inner holder of
/// player 2's helper pair and so sees `A2∘A1(i)`, and player 3 applies `A3`. For a hand of
/// `h` cards the excess about it is `log2 (n − k)(n − k − 1)⋯(n − k − h + 1)`.
#[test]
fn claim_players_1_and_3_read_player_2s_hand() {
    let n = 8;
    let scheme = Scheme::general(3, n).expect("scheme");
    let sched = Schedule::new(&scheme, 2, 0).expect("schedule");
    let model = DealerReduced::new(sched).expect("model");
    let c = Coalition::new([PartyId(1), PartyId(3)]);
    let m = measure_exact(&model, &c, &DealerTarget::Hand(PartyId(2))).expect("exact");
    let expected = ((n - 4) as f64).log2() + ((n - 5) as f64).log2();
    assert!((m.excess_bits - expected).abs() < 1e-9, "{m:?}");
    assert_eq!((m.hidden, m.determined), (2, 2));
    // The two undealt cards are not determined, though the cards seen narrow them down.
    let u = measure_exact(&model, &c, &DealerTarget::Undealt).expect("exact");
    assert!(!u.excess_is_zero && u.determined == 0, "{u:?}");
}

/// Negative case: players 1 and 4 of the four-player scheme hold `C4[1]` and `A4` and `A1`,
/// but none of the values in the middle of the chain that would link them: zero excess.
#[test]
fn claim_players_1_and_4_of_four_learn_nothing_extra() {
    let scheme = Scheme::general(4, 6).expect("scheme");
    let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
    for r in collusion_table(&sched, Method::Exact).expect("table") {
        if r.coalition == [1, 4] || r.coalition == [1, 2] {
            assert!(r.excess_is_zero, "{r:?}");
        }
        if r.coalition == [1, 3] && r.target == "hand of player 2" {
            assert!(!r.excess_is_zero && r.determined == 1, "{r:?}");
            assert!(r.attack.contains("player 3 sees"), "{}", r.attack);
        }
    }
}

/// The closed form (what the enumeration implies for any deck) agrees with exact enumeration
/// at n = 8, every coalition and target, N = 3 — so the n = 52 numbers computed from it rest
/// on a checked formula.
#[test]
fn closed_form_matches_enumeration_at_eight_cards() {
    let scheme = Scheme::general(3, 8).expect("scheme");
    let sched = Schedule::new(&scheme, 2, 1).expect("schedule");
    for r in collusion_table(&sched, Method::Exact).expect("table") {
        let c = Coalition::new(r.coalition.iter().map(|&p| PartyId(p)));
        let t = DealerTarget::for_coalition(&sched, &c)
            .into_iter()
            .find(|t| t.to_string() == r.target)
            .expect("target");
        let m = closed_form_measure(&sched, &c, &t);
        assert_eq!(m.excess_is_zero, r.excess_is_zero, "{r:?}");
        assert!((m.excess_bits - r.excess_bits).abs() < 1e-9, "{r:?}");
        assert_eq!(m.guess_probability, r.measure.guess_probability, "{r:?}");
        assert_eq!((m.hidden, m.determined), (r.hidden, r.determined), "{r:?}");
    }
}
