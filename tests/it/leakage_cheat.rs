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
