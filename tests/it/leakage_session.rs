//! Helper reuse across deals (the seed's helper permutations `C3`, `D3`, `F3`, `G3`): if the
//! last player keeps them for a session, player 2 reads more of player 1's cards with every
//! deal; with fresh helpers he reads none.

use facedown_core::PartyId;
use facedown_dealer::Scheme;
use facedown_leakage::session::{Helpers, Session};
use facedown_leakage::Schedule;

fn session(scheme: &Scheme, hand: usize, public: usize, deals: usize, helpers: Helpers) -> Session {
    let schedule = Schedule::new(scheme, hand, public).expect("schedule");
    Session::new(schedule, deals, helpers, PartyId(2), PartyId(1)).expect("session")
}

#[test]
fn seed_helper_reuse_lets_player_2_read_player_1_more_with_every_deal_exactly() {
    let published = Scheme::published(4).expect("scheme");
    let rows = session(&published, 1, 1, 3, Helpers::Reused)
        .exact()
        .expect("exact");
    let fractions: Vec<&str> = rows.iter().map(|r| r.fraction_read.as_str()).collect();
    // Deal 1: nothing known yet. Deal 2: player 1's x is the first public card's x with
    // probability 1/4.
    assert_eq!(fractions[0], "0");
    assert_eq!(fractions[1], "1/4");
    // Deal 3: two earlier public points (distinct with probability 3/4) give 1/2, and the
    // third public card completes A3 with probability 1/3 of the rest: 3/4·2/3 + 1/4·1/4.
    assert_eq!(fractions[2], "9/16");
    for w in rows.windows(2) {
        assert!(w[1].fraction_read_f64 > w[0].fraction_read_f64, "{rows:?}");
    }
    assert!(
        rows[0].excess_is_zero && !rows[1].excess_is_zero,
        "{rows:?}"
    );
}

#[test]
fn seed_fresh_helpers_let_player_2_read_nothing_in_any_deal() {
    for scheme in [
        Scheme::published(3).expect("scheme"),
        Scheme::general(3, 3).expect("scheme"),
    ] {
        let rows = session(&scheme, 1, 0, 3, Helpers::Fresh)
            .exact()
            .expect("exact");
        for r in &rows {
            assert_eq!(r.fraction_read, "0", "{r:?}");
            assert!(r.excess_is_zero, "{r:?}");
        }
    }
}

#[test]
fn reuse_leakage_at_52_cards_grows_and_the_attack_never_reads_a_wrong_card() {
    let general = Scheme::general(3, 52).expect("scheme");
    let reused = session(&general, 2, 5, 8, Helpers::Reused)
        .monte_carlo(400, 7, &|| {})
        .expect("monte carlo");
    assert_eq!(reused[0].fraction_read, 0.0);
    assert!(reused.iter().all(|r| r.wrong_cards == 0));
    // The intervals separate the first deal from the last.
    assert!(reused[7].interval.0 > reused[0].interval.1, "{reused:?}");
    assert!(reused
        .windows(2)
        .all(|w| w[1].known_points > w[0].known_points));
    let fresh = session(&general, 2, 5, 8, Helpers::Fresh)
        .monte_carlo(100, 7, &|| {})
        .expect("monte carlo");
    assert!(fresh.iter().all(|r| r.fraction_read == 0.0), "{fresh:?}");
}

#[test]
fn the_attack_agrees_with_the_exact_fraction_on_a_tiny_deck() {
    let published = Scheme::published(4).expect("scheme");
    let s = session(&published, 1, 1, 3, Helpers::Reused);
    let exact = s.exact().expect("exact");
    let mc = s.monte_carlo(2000, 3, &|| {}).expect("monte carlo");
    for (e, m) in exact.iter().zip(&mc) {
        assert!(
            m.interval.0 <= e.fraction_read_f64 && e.fraction_read_f64 <= m.interval.1,
            "{e:?} {m:?}"
        );
    }
}
