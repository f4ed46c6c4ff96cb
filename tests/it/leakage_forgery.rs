//! Coalitions that cheat: players 2 and 3 of the published scheme force player 1's card
//! (player 3 supplies `C3`, player 2 sends `C3⁻¹(c)` instead of `D3(x)`); the audit names
//! player 2, who signed the forged value, and never player 3.

use facedown_core::PartyId;
use facedown_dealer::Scheme;
use facedown_leakage::forgery::forge_card;
use facedown_leakage::{Coalition, Schedule};

#[test]
fn seed_coalition_forgery_of_player_1s_card_succeeds_with_the_accomplice_unnamed() {
    let scheme = Scheme::published(8).expect("scheme");
    let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
    let s = Coalition::new([PartyId(2), PartyId(3)]);
    let row = forge_card(&sched, &s, PartyId(1), 7, 12, 5, &|| {}).expect("forgery");
    assert_eq!((row.forger, row.accomplices.as_slice()), (2, &[3u16][..]));
    assert_eq!(
        row.forced, row.trials,
        "player 1 holds card 7 every time: {row:?}"
    );
    assert!(row.honest_already < row.trials, "{row:?}");
    // Every game where the forged value differs from the honest one fails the audit and
    // names the forger; the accomplice and the victim are never named.
    let changed = row.trials - row.honest_already;
    assert_eq!(row.detected, changed, "{row:?}");
    assert_eq!(row.forger_named, changed, "{row:?}");
    assert_eq!((row.accomplice_named, row.framed), (0, 0), "{row:?}");
}

#[test]
fn a_coalition_without_the_outer_half_or_the_last_message_cannot_forge() {
    let scheme = Scheme::published(8).expect("scheme");
    let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
    for members in [vec![PartyId(2)], vec![PartyId(3)]] {
        let s = Coalition::new(members);
        assert!(
            forge_card(&sched, &s, PartyId(1), 7, 2, 5, &|| {}).is_err(),
            "{s}"
        );
    }
    let general = Scheme::general(3, 8).expect("scheme");
    let sched = Schedule::new(&general, 1, 1).expect("schedule");
    let s = Coalition::new([PartyId(2), PartyId(3)]);
    let row = forge_card(&sched, &s, PartyId(1), 0, 6, 1, &|| {}).expect("forgery");
    assert_eq!(
        (row.forced, row.accomplice_named, row.framed),
        (6, 0, 0),
        "{row:?}"
    );
}

#[test]
fn a_forgery_split_into_three_shards_adds_up_to_the_unsplit_forgery() {
    use facedown::cards::search::{Shard, Trials};
    use facedown_leakage::forgery::merge_rows;
    let scheme = Scheme::published(8).expect("scheme");
    let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
    let s = Coalition::new([PartyId(2), PartyId(3)]);
    let whole = forge_card(&sched, &s, PartyId(1), 7, 8, 3, &|| {}).expect("forgery");
    let shard = |i| Shard::new(i, 3).expect("a shard");
    let parts: Vec<_> = [3, 1, 2]
        .into_iter()
        .map(|i| {
            let share = Trials::share(8, Some(shard(i)));
            let row = forge_card(&sched, &s, PartyId(1), 7, share, 3, &|| {}).expect("forgery");
            (shard(i), row)
        })
        .collect();
    assert_eq!(merge_rows(parts.clone(), 8).expect("merged"), whole);
    // A row of another card does not add up with the others.
    let mut other = parts;
    other[0].1.card = 6;
    assert!(merge_rows(other, 8).is_err());
}
