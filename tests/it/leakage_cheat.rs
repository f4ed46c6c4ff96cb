//! The cheating harness: the audit detects and names every deviation, and never frames an
//! honest player; the last player's selective abort biases the public card.

use facedown_dealer::Scheme;
use facedown_leakage::cheat::cheat_table;
use facedown_leakage::Schedule;

#[test]
fn audit_names_every_cheater_and_frames_nobody() {
    for scheme in [
        Scheme::general(3, 8).expect("scheme"),
        Scheme::general(4, 9).expect("scheme"),
        Scheme::published(8).expect("scheme"),
    ] {
        let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
        let rows = cheat_table(&sched, 6, 1, &|| {}).expect("table");
        assert!(rows.len() >= 4 * scheme.players);
        for r in &rows {
            assert_eq!(r.framed, 0, "{r:?}");
            if r.deviation == "selective-abort" {
                let (fav, completed) = r.favourable.expect("recorded");
                assert_eq!(fav, completed, "completed games only show upper-half cards");
                assert_eq!(r.named, r.aborted, "every abort is blamed on him");
            } else {
                assert_eq!((r.detected, r.named), (r.trials, r.trials), "{r:?}");
            }
            if r.deviation == "reveal" {
                assert_eq!(r.steered, 0, "opening another permutation changes no card");
            }
        }
    }
}

#[test]
fn a_deviation_naming_a_message_that_does_not_exist_is_reported_not_passed() {
    // No public card: player 3 of the general scheme sends no value message at all.
    let sched = Schedule::new(&Scheme::general(3, 12).expect("scheme"), 2, 0).expect("schedule");
    let rows = cheat_table(&sched, 3, 2, &|| {}).expect("table");
    for dev in ["value@0", "withhold@0"] {
        let r = rows
            .iter()
            .find(|r| r.player == 3 && r.deviation == dev)
            .expect("row");
        assert_eq!((r.no_such_message, r.detected), (3, 0), "{r:?}");
    }
    let r = rows
        .iter()
        .find(|r| r.player == 2 && r.deviation == "value@0")
        .expect("row");
    assert_eq!((r.no_such_message, r.named), (0, 3), "{r:?}");
}

#[test]
fn seed_last_player_chooses_the_river_with_certainty_against_a_one_in_n_baseline() {
    use facedown_leakage::strategy::chosen_river;
    let sched = Schedule::new(&Scheme::general(3, 52).expect("scheme"), 2, 5).expect("schedule");
    let row = chosen_river(&sched, 51, None, 40, 3, &|| {}).expect("strategy");
    assert_eq!(row.success, row.trials, "{row:?}");
    assert_eq!(row.baseline_exact.as_deref(), Some("1/52"));
    assert!(
        row.baseline <= 2,
        "an honest river is 51 about once in 52 games: {row:?}"
    );
    let changed = row.trials - row.baseline;
    assert_eq!(
        (row.detected, row.named, row.framed),
        (changed, changed, 0),
        "{row:?}"
    );
    // Card 51 is in someone else's hand or on the board in about 6 of 51 forged games.
    assert!(row.visible_during_play < row.trials / 2, "{row:?}");
}

#[test]
fn seed_selective_abort_with_redeals_raises_the_last_players_flop_chance() {
    use facedown_leakage::strategy::{selective_abort, Abort, Redeal};
    let sched = Schedule::new(&Scheme::general(3, 52).expect("scheme"), 2, 3).expect("schedule");
    let abort = Abort {
        flop: 3,
        redeals: 2,
        redeal: Redeal::Again,
    };
    let row = selective_abort(&sched, &abort, None, 60, 11, &|| {}).expect("strategy");
    // Honest: a flop pairs one of two cards with probability about 0.32; with two re-deals
    // about 1 − 0.68³ ≈ 0.69.
    assert!(row.success > row.baseline, "{row:?}");
    assert!(
        row.success_interval.0 > row.baseline as f64 / row.trials as f64,
        "{row:?}"
    );
    assert_eq!(
        (row.named, row.framed),
        (row.aborts, 0),
        "every abort is blamed on him: {row:?}"
    );
}
