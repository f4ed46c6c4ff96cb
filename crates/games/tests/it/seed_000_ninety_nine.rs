//! Seeds 000 and 002 (Ninety-Nine): the rules facts that can be computed.

use facedown_games::ninety_nine::bid::{bid_value, encodings, made};
use facedown_games::ninety_nine::premium::{resolve, Auction, Offer};
use facedown_games::ninety_nine::score::{max_deal_score, score, Tally};
use facedown_games::ninety_nine::variant::BidReading;
use facedown_games::ninety_nine::Variant;

#[test]
fn claim_the_most_one_deal_scores_is_99_so_a_game_is_100() {
    assert_eq!(max_deal_score(&Variant::Revised.rules()), 99);
    assert_eq!(max_deal_score(&Variant::Classic.rules()), 99);
    assert_eq!(
        max_deal_score(&Variant::Four.rules()),
        100,
        "10 tricks + 30 + 60"
    );
    assert_eq!(
        max_deal_score(&Variant::Five.rules()),
        109,
        "9 tricks + 50 + 50"
    );
}

#[test]
fn claim_99_is_nine_tricks_the_only_success_and_a_reveal() {
    let rules = Variant::Revised.rules();
    let t = Tally {
        tricks: vec![9, 0, 0],
        bids: vec![9, 1, 2],
        credited: vec![true, false, false],
        premiums: vec![(0, Offer::Reveal)],
        streaks: vec![0; 3],
    };
    assert_eq!(score(&rules, &t).points, [99, 0, 0]);
}

#[test]
fn claim_failed_premiums_go_to_each_opponent() {
    let rules = Variant::Revised.rules();
    let t = Tally {
        tricks: vec![2, 3, 4],
        bids: vec![3, 3, 4],
        credited: vec![false, true, true],
        premiums: vec![(0, Offer::Declare)],
        streaks: vec![0; 3],
    };
    assert_eq!(score(&rules, &t).points, [2, 3 + 20 + 30, 4 + 20 + 30]);
}

#[test]
fn claim_three_bid_cards_encode_0_to_9_and_three_three_ways() {
    let e = encodings();
    assert!((0..10).all(|b| !e.ways[b].is_empty()));
    assert_eq!(e.ways[3], ["♦♦♣", "♦♠♥", "♠♠♠"]);
    assert_eq!(
        e.ways.iter().map(Vec::len).sum::<usize>(),
        20,
        "C(6, 3) multisets"
    );
}

#[test]
fn claim_three_diamonds_mean_0_or_10_with_four_players() {
    let reading = Variant::Four.rules().reading;
    assert_eq!(reading, BidReading::ZeroOrTen);
    assert!(made(0, 0, reading) && made(0, 10, reading) && !made(0, 5, reading));
    let cards: Vec<_> = ["6D", "AD", "JD"]
        .iter()
        .map(|t| t.parse().expect("card"))
        .collect();
    assert_eq!(bid_value(&cards, None), 0);
}

#[test]
fn claim_contract_bonuses_by_number_of_successes() {
    let check = |v: Variant, tricks: Vec<u32>, credited: Vec<bool>, expect: Vec<i32>| {
        let n = tricks.len();
        let t = Tally {
            bids: tricks.clone(),
            tricks,
            credited,
            premiums: Vec::new(),
            streaks: vec![0; n],
        };
        assert_eq!(score(&v.rules(), &t).points, expect, "{v}");
    };
    check(
        Variant::Revised,
        vec![3, 3, 3],
        vec![true; 3],
        vec![13, 13, 13],
    );
    check(
        Variant::Revised,
        vec![3, 3, 3],
        vec![true, true, false],
        vec![23, 23, 3],
    );
    check(
        Variant::Four,
        vec![1, 2, 3, 4],
        vec![true; 4],
        vec![1, 2, 3, 4],
    );
    check(
        Variant::Five,
        vec![1, 2, 2, 2, 2],
        vec![true, false, false, false, false],
        vec![51, 2, 2, 2, 2],
    );
}

#[test]
fn claim_reveal_beats_declare_and_the_dealers_left_has_priority() {
    // Dealer is seat 2: the order is 0, 1, 2.
    let order = [0, 1, 2];
    assert_eq!(
        resolve(&[(0, Offer::Declare), (2, Offer::Reveal)], &order),
        Some((2, Offer::Reveal))
    );
    assert_eq!(
        resolve(&[(1, Offer::Reveal), (0, Offer::Reveal)], &order),
        Some((0, Offer::Reveal))
    );
    assert_eq!(
        resolve(&[(2, Offer::Declare), (1, Offer::Declare)], &order),
        Some((1, Offer::Declare))
    );
    let mut a = Auction::single(order.to_vec(), true);
    a.offer(Offer::Declare).expect("eldest declares");
    a.offer(Offer::Pass).expect("pass");
    a.offer(Offer::Reveal).expect("the dealer reveals over him");
    a.offer(Offer::Reveal).expect("and the eldest raises");
    assert_eq!(a.premiums(), [(0, Offer::Reveal)]);
}
