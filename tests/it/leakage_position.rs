//! The strategies swept over the message at which the deviation happens, and the re-deal
//! models of the selective abort: which messages let the last player choose the river or
//! abort a bad flop, and which table rule takes the abort's gain away.

use facedown_core::PartyId;
use facedown_dealer::Scheme;
use facedown_leakage::position::{all_messages, known_before, sweep};
use facedown_leakage::strategy::{selective_abort, Abort, Redeal, Strategy};
use facedown_leakage::Schedule;

fn small() -> Schedule {
    Schedule::new(&Scheme::general(3, 12).expect("scheme"), 1, 2).expect("schedule")
}

#[test]
fn the_last_player_knows_every_public_card_of_the_batch_before_his_first_announcement() {
    let sched = small();
    let mut rng = facedown_core::rng::trial_rng(4, 0);
    let g = facedown_leakage::dealer::play_schedule(&sched, None, &mut rng).expect("game");
    let msgs = all_messages(&sched, &g);
    let first = msgs
        .iter()
        .find(|m| m.player == 3 && m.to == "everyone")
        .expect("an announcement");
    let known = known_before(&sched, &g, PartyId(3), first);
    assert_eq!(known.iter().filter(|l| l.public).count(), 2, "{known:?}");
    // Player 1 sends the first hop of the public cards knowing none of them.
    let p1 = msgs
        .iter()
        .find(|m| m.player == 1 && m.phase == "public openings")
        .expect("a public hop");
    let known = known_before(&sched, &g, PartyId(1), p1);
    assert!(known.iter().all(|l| !l.public), "{known:?}");
    assert_eq!(known.len(), 1, "his own card: {known:?}");
}

#[test]
fn seed_a_chosen_river_works_only_at_the_last_players_announcement_of_the_river() {
    let sched = small();
    let trials = 8;
    let rows = sweep(
        &sched,
        &Strategy::ChosenRiver { card: 11 },
        trials,
        2,
        &|| {},
    )
    .expect("sweep");
    let river = sched
        .openings
        .iter()
        .map(|o| o.position)
        .max()
        .expect("river") as u16;
    let mut working = Vec::new();
    for r in &rows {
        let (m, x) = (&r.message, &r.result);
        assert_eq!(x.trials, trials);
        // Whoever forges is the one named, in every game the forgery changed; no one else.
        assert_eq!((x.named, x.framed), (x.detected, 0), "{r:?}");
        if x.success == trials {
            working.push((m.player, m.position, m.to.clone()));
        }
        if m.position != river {
            assert_eq!(x.success, x.baseline, "the river is untouched: {r:?}");
        }
    }
    assert_eq!(
        working,
        vec![(3, river, "everyone".to_owned())],
        "{rows:#?}"
    );
}

#[test]
fn seed_a_selective_abort_gains_only_once_the_last_player_has_seen_the_flop() {
    let sched = Schedule::new(&Scheme::general(3, 16).expect("scheme"), 1, 2).expect("schedule");
    let st = Strategy::SelectiveAbort {
        flop: 2,
        redeals: 1,
        redeal: Redeal::Again,
    };
    let trials = 24;
    let rows = sweep(&sched, &st, trials, 5, &|| {}).expect("sweep");
    for r in &rows {
        let (m, x) = (&r.message, &r.result);
        assert_eq!((x.named, x.framed), (x.aborts, 0), "{r:?}");
        let announces = m.player == 3 && m.to == "everyone";
        if !announces {
            // He has seen no flop card: he cannot tell a good flop and aborts every first deal.
            assert_eq!(x.aborts, trials, "{r:?}");
        } else {
            assert!(x.aborts < trials, "{r:?}");
            assert!(x.success > x.baseline, "{r:?}");
        }
    }
    assert!(rows
        .iter()
        .any(|r| r.message.player == 3 && r.message.to == "everyone"));
}

#[test]
fn seed_forfeit_and_resume_remove_the_selective_aborts_gain_and_a_fresh_deal_keeps_it() {
    let sched = Schedule::new(&Scheme::general(3, 52).expect("scheme"), 2, 3).expect("schedule");
    let trials = 40;
    let run = |redeal| {
        let abort = Abort {
            flop: 3,
            redeals: 2,
            redeal,
        };
        selective_abort(&sched, &abort, None, trials, 11, &|| {}).expect("strategy")
    };
    let again = run(Redeal::Again);
    assert!(
        again.success_interval.0 > again.baseline as f64 / trials as f64,
        "{again:?}"
    );
    let forfeit = run(Redeal::Forfeit);
    let resume = run(Redeal::Resume);
    let bad = trials - again.baseline;
    // The first deal of every trial is the same under every model.
    assert_eq!(
        (forfeit.baseline, resume.baseline),
        (again.baseline, again.baseline)
    );
    // Losing the hand: he reaches the goal exactly when the first flop pairs, and aborts once
    // otherwise.
    assert_eq!(
        (forfeit.success, forfeit.aborts),
        (forfeit.baseline, bad),
        "{forfeit:?}"
    );
    // The same committed deal again: the same bad flop every time, until the re-deals run out.
    assert_eq!(
        (resume.success, resume.aborts),
        (resume.baseline, 2 * bad),
        "{resume:?}"
    );
    for row in [&again, &forfeit, &resume] {
        assert_eq!((row.named, row.framed), (row.aborts, 0), "{row:?}");
    }
}

#[test]
fn seed_after_a_flop_phase_any_player_can_abort_a_bad_flop_at_a_later_message() {
    use facedown_leakage::position::messages_of;
    let scheme = Scheme::general(3, 52).expect("scheme");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schedules/general-holdem.toml");
    let text = std::fs::read_to_string(path).expect("schedule file");
    let file = facedown_dealer::DealSchedule::from_toml(&text, &scheme).expect("schedule");
    let sched = Schedule::from_file(&scheme, &file, "general-holdem.toml").expect("schedule");
    let mut rng = facedown_core::rng::trial_rng(3, 0);
    let g = facedown_leakage::dealer::play_schedule(&sched, None, &mut rng).expect("game");
    let at = |phase: &str| {
        let m = messages_of(&sched, &g, PartyId(1))
            .into_iter()
            .find(|m| m.phase == phase)
            .expect("a message");
        Some((PartyId(1), m.nth))
    };
    let abort = Abort {
        flop: 3,
        redeals: 2,
        redeal: Redeal::Again,
    };
    let trials = 40;
    let river = selective_abort(&sched, &abort, at("river"), trials, 3, &|| {}).expect("river");
    // The shown hands come after the flop and are not part of it.
    assert!(river.baseline < trials / 2, "{river:?}");
    assert!(
        river.success_interval.0 > river.baseline as f64 / trials as f64,
        "player 1 has seen the flop by the river: {river:?}"
    );
    let hands = selective_abort(&sched, &abort, at("hands"), trials, 3, &|| {}).expect("hands");
    assert_eq!(
        hands.aborts,
        2 * trials,
        "nothing seen, so always aborted: {hands:?}"
    );
    for row in [&river, &hands] {
        assert_eq!((row.named, row.framed), (row.aborts, 0), "{row:?}");
    }
}
