//! The rule audit: a log with an illegal move names the player who made it (and only him); an
//! honest log passes; a log cut short names the player who did not move.

use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_games::cards::Card;
use facedown_games::chopsticks::{self, Chopsticks, Move as ChopMove, Rules as ChopRules};
use facedown_games::devyatka::{self, Deal, Devyatka, Move as DevMove, Player};
use facedown_games::game::{audit, play_out, Entry, Fault, Game, Log};
use facedown_games::golf::{self, Move as GolfMove, Rules as GolfRules};
use facedown_games::ninety_nine::{
    self, audit_series, play_series, Length, Move as NnMove, NinetyNine, Offer, Variant,
};

use crate::support::{golf_round, nn_bots, nn_deal, random_bots};

/// The game reached by replaying the first `n` moves of `log`.
fn replayed<G: Game>(log: &Log<G>, n: usize) -> G {
    let mut game = G::start(&log.setup).expect("valid setup");
    for e in &log.moves[..n] {
        game.play(&e.mv).expect("an honest prefix");
    }
    game
}

/// `log` with move `i` replaced.
fn forged<G: Game>(log: &Log<G>, i: usize, mv: G::Move) -> Log<G> {
    let mut out = log.clone();
    out.moves[i].mv = mv;
    out
}

fn assert_blames<G: Game>(log: &Log<G>, index: usize, by: PartyId) -> Fault<G::Illegal> {
    let verdict = audit(log).expect("valid setup");
    assert!(!verdict.passed());
    let offence = verdict.offence.expect("the audit finds the offence");
    assert_eq!((offence.index, offence.by), (index, by), "{offence:?}");
    offence.fault
}

/// The first play in `log` where the player to play holds the suit led and another card:
/// its index, the player, and the off-suit card he could have revoked with.
fn revoke_chance(log: &Log<NinetyNine>, from_dummy: bool) -> Option<(usize, PartyId, Card)> {
    for (i, e) in log.moves.iter().enumerate() {
        let NnMove::Play(_) = e.mv else { continue };
        let game = replayed(log, i);
        let view = game.view(e.by);
        let Some(&(_, lead)) = view.current.first() else {
            continue;
        };
        let seat = view.to_play?;
        if (Some(seat) == view.dummy) != from_dummy {
            continue;
        }
        let hand = if from_dummy {
            view.open_hands[seat].clone()?
        } else {
            view.hand.clone()
        };
        let led = ninety_nine::trick::played(lead, view.turned).suit;
        let suit_of = |c: &Card| ninety_nine::trick::played(*c, view.turned).suit;
        if hand.iter().any(|c| suit_of(c) == led) {
            if let Some(&off) = hand.iter().find(|c| suit_of(c) != led) {
                return Some((i, e.by, off));
            }
        }
    }
    None
}

#[test]
fn honest_ninety_nine_deals_pass_the_audit_in_every_variant() {
    for v in Variant::ALL {
        let (log, _) = nn_deal(v, 7, 0b010);
        let verdict = audit(&log).expect("valid");
        assert!(verdict.passed(), "{v}: {:?}", verdict.offence);
    }
}

#[test]
fn a_revoke_is_caught_and_the_revoker_named() {
    for v in [
        Variant::Revised,
        Variant::Classic,
        Variant::FourSolo,
        Variant::Five,
    ] {
        let (log, _) = (0..20)
            .map(|seed| nn_deal(v, seed, 0))
            .find(|(log, _)| revoke_chance(log, false).is_some())
            .expect("some deal offers a revoke");
        let (i, by, off) = revoke_chance(&log, false).expect("found above");
        let fault = assert_blames(&forged(&log, i, NnMove::Play(off)), i, by);
        assert!(
            matches!(fault, Fault::Illegal(ninety_nine::Illegal::Revoke { card, .. }) if card == off),
            "{v}: {fault:?}"
        );
    }
}

#[test]
fn a_wrong_dummy_play_names_the_player_controlling_the_dummy() {
    for v in [Variant::TwoDummy, Variant::TwoDummyTurnUp] {
        let (log, _) = (0..40)
            .map(|seed| nn_deal(v, seed, 0))
            .find(|(log, _)| revoke_chance(log, true).is_some())
            .expect("some deal offers a dummy revoke");
        let (i, by, off) = revoke_chance(&log, true).expect("found above");
        assert!(by.index() < 2, "a live player controls the dummy");
        assert_blames(&forged(&log, i, NnMove::Play(off)), i, by);
    }
}

#[test]
fn a_card_not_in_the_hand_is_caught() {
    let (log, game) = nn_deal(Variant::Revised, 3, 0);
    let i = log
        .moves
        .iter()
        .position(|e| matches!(e.mv, NnMove::Play(_)))
        .expect("a play");
    let by = log.moves[i].by;
    let mid = replayed(&log, i);
    let elsewhere = (1..=3)
        .map(PartyId)
        .filter(|&p| p != by)
        .find_map(|p| mid.view(p).hand.first().copied())
        .expect("another hand holds cards");
    let fault = assert_blames(&forged(&log, i, NnMove::Play(elsewhere)), i, by);
    assert!(matches!(fault, Fault::Illegal(ninety_nine::Illegal::NotInHand(c)) if c == elsewhere));
    assert!(game.outcome().is_some());
}

#[test]
fn bid_cards_must_be_three_distinct_cards_of_the_bidder() {
    let (log, _) = nn_deal(Variant::Revised, 4, 0);
    let NnMove::Bid(cards) = log.moves[0].mv else {
        panic!("the first move is a bid")
    };
    let by = log.moves[0].by;
    let repeated = NnMove::Bid([cards[0], cards[0], cards[1]]);
    let fault = assert_blames(&forged(&log, 0, repeated), 0, by);
    assert!(matches!(
        fault,
        Fault::Illegal(ninety_nine::Illegal::RepeatedCard(_))
    ));
    let second = &log.moves[1];
    let NnMove::Bid(theirs) = second.mv else {
        panic!("the second move is a bid")
    };
    let stolen = NnMove::Bid([theirs[0], cards[1], cards[2]]);
    assert_blames(&forged(&log, 0, stolen), 0, by);
}

#[test]
fn a_false_claim_of_a_made_bid_is_caught() {
    let found = (0..60).find_map(|seed| {
        let (log, _) = nn_deal(Variant::Revised, seed, 0);
        let i = log.moves.iter().position(|e| e.mv == NnMove::Silent)?;
        Some((log, i))
    });
    let (log, i) = found.expect("some player fails and stays silent");
    let by = log.moves[i].by;
    let fault = assert_blames(&forged(&log, i, NnMove::Claim), i, by);
    assert!(matches!(
        fault,
        Fault::Illegal(ninety_nine::Illegal::FalseClaim { .. })
    ));
}

#[test]
fn a_premium_the_priority_rule_forbids_is_caught() {
    let mut rng = seeded_rng(11);
    let setup = ninety_nine::Setup::shuffled(Variant::Revised, &mut rng);
    let mut game = NinetyNine::start(&setup).expect("valid");
    let mut log: Log<NinetyNine> = Log::new(setup);
    while game.phase() == ninety_nine::Phase::Bid {
        let mv = game.legal_moves()[0];
        log.moves.push(Entry {
            by: game.to_move().expect("someone bids"),
            mv,
        });
        game.play(&mv).expect("legal");
    }
    let first = game.to_move().expect("premiums");
    log.moves.push(Entry {
        by: first,
        mv: NnMove::Premium(Offer::Declare),
    });
    game.play(&NnMove::Premium(Offer::Declare))
        .expect("first may declare");
    let second = game.to_move().expect("second speaks");
    log.moves.push(Entry {
        by: second,
        mv: NnMove::Premium(Offer::Declare),
    });
    let fault = assert_blames(&log, log.moves.len() - 1, second);
    assert!(matches!(
        fault,
        Fault::Illegal(ninety_nine::Illegal::Offer(Offer::Declare))
    ));
}

#[test]
fn moving_out_of_turn_names_the_mover_not_the_player_whose_turn_it_was() {
    let (log, _) = nn_deal(Variant::Four, 5, 0);
    let mut bad = log.clone();
    let i = 10;
    let whose = bad.moves[i].by;
    let intruder = PartyId(whose.0 % 4 + 1);
    bad.moves[i].by = intruder;
    let fault = assert_blames(&bad, i, intruder);
    assert_eq!(
        fault,
        Fault::OutOfTurn {
            expected: Some(whose)
        }
    );
}

#[test]
fn a_log_cut_short_names_the_player_who_did_not_move() {
    let (log, _) = nn_deal(Variant::Revised, 6, 0);
    let mut short = log.clone();
    let missing = short.moves.len() - 5;
    short.moves.truncate(missing);
    let expected = replayed(&short, missing).to_move().expect("unfinished");
    let fault = assert_blames(&short, missing, expected);
    assert_eq!(fault, Fault::Stalled);
}

#[test]
fn a_move_after_the_end_is_out_of_turn() {
    let (mut log, _) = nn_deal(Variant::Revised, 8, 0);
    let last = log.moves.last().expect("moves").clone();
    log.moves.push(last.clone());
    let fault = assert_blames(&log, log.moves.len() - 1, last.by);
    assert_eq!(fault, Fault::OutOfTurn { expected: None });
}

#[test]
fn a_log_of_another_game_is_refused() {
    let (log, _) = nn_deal(Variant::Revised, 1, 0);
    let mut other = log.clone();
    other.game = "golf".into();
    assert!(audit(&other).is_err());
}

#[test]
fn a_series_with_a_revoke_in_its_third_deal_names_the_deal_and_the_revoker() {
    let mut rng = seeded_rng(99);
    let mut bots = nn_bots(3, 0);
    let (mut series, _) = play_series(
        Variant::Revised,
        false,
        Length::game(Variant::Revised),
        &mut bots,
        &mut rng,
    )
    .expect("a game plays out");
    assert!(audit_series(&series).expect("a series").passed());
    let (deal, (i, by, off)) = series
        .deals
        .iter()
        .enumerate()
        .skip(2)
        .find_map(|(d, log)| revoke_chance(log, false).map(|r| (d, r)))
        .expect("a revoke chance after the second deal");
    series.deals[deal].moves[i].mv = NnMove::Play(off);
    let verdict = audit_series(&series).expect("a series");
    let (at, offence) = verdict.offence.expect("caught");
    assert_eq!((at, offence.index, offence.by), (deal, i, by));
}

#[test]
fn a_series_whose_trump_is_not_the_one_the_last_deal_fixed_is_refused() {
    let mut rng = seeded_rng(98);
    let mut bots = nn_bots(3, 0);
    let (mut series, _) = play_series(
        Variant::Revised,
        false,
        Length::game(Variant::Revised),
        &mut bots,
        &mut rng,
    )
    .expect("a game plays out");
    let setup = &mut series.deals[1].setup;
    setup.trump = match setup.trump {
        Some(_) => None,
        None => Some(facedown_games::cards::Suit::Hearts),
    };
    let verdict = audit_series(&series).expect("a series");
    assert_eq!(verdict.bad_setup.map(|(d, _)| d), Some(1));
}

fn devyatka_log(seed: u64) -> Log<Devyatka> {
    let mut rng = seeded_rng(seed);
    let deal = Deal::random(&mut rng);
    let setup = devyatka::Setup::new(&deal, Player::Alice);
    let mut bots = random_bots::<Devyatka>(2);
    play_out(setup, &mut bots, 200, &mut rng).expect("plays").0
}

#[test]
fn an_unplayable_devyatka_card_is_caught() {
    let log = devyatka_log(1);
    let (i, by, card) = log
        .moves
        .iter()
        .enumerate()
        .find_map(|(i, e)| {
            let game = replayed(&log, i);
            let hand = game.view(e.by).hand;
            let bad = hand
                .into_iter()
                .find(|&c| game.check(&DevMove::Play(c)).is_err())?;
            Some((i, e.by, bad))
        })
        .expect("some hand holds an unplayable card");
    let fault = assert_blames(&forged(&log, i, DevMove::Play(card)), i, by);
    assert!(matches!(fault, Fault::Illegal(devyatka::Illegal::NotPlayable(c)) if c == card));
}

#[test]
fn a_devyatka_pass_while_able_to_play_is_caught() {
    let log = devyatka_log(2);
    let i = log
        .moves
        .iter()
        .position(|e| matches!(e.mv, DevMove::Play(_)))
        .expect("a card is played");
    let by = log.moves[i].by;
    let fault = assert_blames(&forged(&log, i, DevMove::Pass), i, by);
    assert!(matches!(
        fault,
        Fault::Illegal(devyatka::Illegal::PassWithMove(_))
    ));
}

#[test]
fn a_devyatka_card_of_the_opponent_is_caught() {
    let log = devyatka_log(3);
    let first = &log.moves[0];
    let theirs = match first.by {
        PartyId(1) => log.setup.bob[0],
        _ => log.setup.alice[0],
    };
    let fault = assert_blames(&forged(&log, 0, DevMove::Play(theirs)), 0, first.by);
    assert!(matches!(
        fault,
        Fault::Illegal(devyatka::Illegal::NotInHand(_))
    ));
}

#[test]
fn golf_offences_are_caught() {
    let (log, _) = golf_round(GolfRules::nine(2), 4);
    assert!(audit(&log).expect("valid").passed());
    let by = log.moves[0].by;
    let fault = assert_blames(&forged(&log, 0, GolfMove::TurnUp([1, 1, 2])), 0, by);
    assert!(matches!(fault, Fault::Illegal(golf::Illegal::Position(1))));
    let i = log
        .moves
        .iter()
        .position(|e| e.mv == GolfMove::TakeDiscard)
        .expect("someone takes the discard");
    let by = log.moves[i + 1].by;
    let fault = assert_blames(&forged(&log, i + 1, GolfMove::Discard), i + 1, by);
    assert!(matches!(
        fault,
        Fault::Illegal(golf::Illegal::DiscardFromPile)
    ));
    let fault = assert_blames(&forged(&log, i + 1, GolfMove::Replace(9)), i + 1, by);
    assert!(matches!(fault, Fault::Illegal(golf::Illegal::Position(9))));
}

#[test]
fn an_illegal_chopsticks_move_is_caught() {
    let setup = chopsticks::Setup::new(ChopRules::standard(), 100);
    let mut rng = seeded_rng(5);
    let mut bots = random_bots::<Chopsticks>(2);
    let (log, _) = play_out(setup, &mut bots, 200, &mut rng).expect("plays");
    let split = ChopMove::Split {
        hands: [0, 2, 0, 0],
    };
    let fault = assert_blames(&forged(&log, 0, split), 0, PartyId(1));
    assert!(matches!(fault, Fault::Illegal(_)));
}
