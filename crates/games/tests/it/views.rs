//! Views: what each player sees is what the rules let him see, and no more.

use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_games::cards::Card;
use facedown_games::devyatka::{self, Deal, Devyatka, Player};
use facedown_games::game::{Game, Log};
use facedown_games::golf::{self, Move as GolfMove};
use facedown_games::ninety_nine::{Move, NinetyNine, Offer, Phase, Setup, Variant};

use crate::support::{golf_round, nn_deal};

fn mentions(text: &str, card: Card) -> bool {
    text.contains(&format!("\"{card}\""))
}

/// Every state of a log, with the move about to be made.
fn states<G: Game>(log: &Log<G>) -> Vec<G> {
    let mut game = G::start(&log.setup).expect("valid");
    let mut out = vec![game.clone()];
    for e in &log.moves {
        game.play(&e.mv).expect("honest log");
        out.push(game.clone());
    }
    out
}

#[test]
fn ninety_nine_views_show_other_hands_and_bids_only_where_the_rules_open_them() {
    for v in Variant::ALL {
        let (log, _) = nn_deal(v, 21, 0);
        let players = v.rules().players;
        let seats = v.rules().seats;
        for game in states(&log) {
            for p in 0..players {
                let me = game.view(PartyId::from_index(p));
                let text = serde_json::to_string(&me).expect("serialises");
                for q in (0..players).filter(|&q| q != p) {
                    let theirs = game.view(PartyId::from_index(q));
                    for &c in &theirs.hand {
                        let open = me.open_hands[q].as_ref().is_some_and(|h| h.contains(&c));
                        assert!(
                            !mentions(&text, c) || open,
                            "{v}: {p} sees {c} in {q}'s hand"
                        );
                    }
                    for &c in theirs.bid.iter().flatten() {
                        let shown = me.shown_bids[q].is_some_and(|b| b.contains(&c));
                        assert!(!mentions(&text, c) || shown, "{v}: {p} sees {q}'s bid {c}");
                    }
                }
                for s in 0..seats {
                    let revealed = me
                        .offers
                        .iter()
                        .any(|&(who, o)| who == s && o == Offer::Reveal);
                    if me.open_hands[s].is_some() {
                        let playing = matches!(me.phase, Phase::Play | Phase::Claim | Phase::Over);
                        assert!(
                            playing && (me.dummy == Some(s) || revealed),
                            "{v}: hand {s} open"
                        );
                    }
                }
            }
        }
    }
}

/// The cards the player to play may play, worked out from his view alone.
fn plays_from_view(view: &facedown_games::ninety_nine::View) -> Vec<Card> {
    use facedown_games::ninety_nine::trick::played;
    let Some(seat) = view.to_play else {
        return Vec::new();
    };
    let hand = if view.dummy == Some(seat) {
        view.open_hands[seat].clone().unwrap_or_default()
    } else {
        view.hand.clone()
    };
    let suit = |c: &Card| played(*c, view.turned).suit;
    let led = view.current.first().map(|(_, c)| suit(c));
    let following: Vec<Card> = hand
        .iter()
        .copied()
        .filter(|c| Some(suit(c)) == led)
        .collect();
    if following.is_empty() {
        hand
    } else {
        following
    }
}

#[test]
fn a_player_can_work_out_his_legal_plays_from_his_own_view() {
    for v in Variant::ALL {
        let (log, _) = nn_deal(v, 31, 0b101);
        for game in states(&log) {
            if game.phase() != Phase::Play {
                continue;
            }
            let mover = game.to_move().expect("someone plays");
            let mut legal: Vec<Card> = game
                .legal_moves()
                .into_iter()
                .filter_map(|m| match m {
                    Move::Play(c) => Some(c),
                    _ => None,
                })
                .collect();
            let mut derived = plays_from_view(&game.view(mover));
            legal.sort();
            derived.sort();
            assert_eq!(legal, derived, "{v}");
        }
    }
}

#[test]
fn the_dummy_stays_hidden_until_the_bids_and_declarations_are_made() {
    for v in [Variant::TwoDummy, Variant::TwoDummyTurnUp] {
        let (log, _) = nn_deal(v, 3, 0);
        for game in states(&log) {
            let me = game.view(PartyId(1));
            let dummy = me.dummy.expect("a dummy");
            let playing = matches!(me.phase, Phase::Play | Phase::Claim | Phase::Over);
            assert_eq!(
                me.open_hands[dummy].is_some(),
                playing,
                "{v} in {:?}",
                me.phase
            );
            if me.phase != Phase::Over {
                assert!(
                    me.shown_bids[dummy].is_none(),
                    "{v}: the dummy's bid is hidden"
                );
            }
        }
    }
}

#[test]
fn swapping_two_cards_between_other_hands_does_not_change_a_players_first_view() {
    let mut rng = seeded_rng(4);
    let setup = Setup::shuffled(Variant::Revised, &mut rng);
    let mut swapped = setup.clone();
    swapped.deck.swap(12, 24);
    let a = NinetyNine::start(&setup).expect("valid");
    let b = NinetyNine::start(&swapped).expect("valid");
    let json = |g: &NinetyNine| serde_json::to_string(&g.view(PartyId(1))).expect("json");
    assert_eq!(json(&a), json(&b));
    assert_ne!(
        serde_json::to_string(&a.view(PartyId(2))).expect("json"),
        serde_json::to_string(&b.view(PartyId(2))).expect("json")
    );
}

#[test]
fn a_declarers_bid_cards_are_public_and_others_stay_hidden() {
    let found = (0..400).find_map(|seed| {
        let (log, _) = nn_deal(Variant::Revised, seed, 0b111);
        let i = log
            .moves
            .iter()
            .position(|e| e.mv == Move::Premium(Offer::Declare))?;
        Some((log, i))
    });
    let (log, i) = found.expect("some random bot declares");
    let declarer = log.moves[i].by;
    let game = &states(&log)[log.moves.len()];
    for p in 1..=3 {
        let view = game.view(PartyId(p));
        assert!(view.shown_bids[declarer.index()].is_some());
    }
}

#[test]
fn golf_grids_are_unseen_even_by_their_owner_and_a_stock_card_by_all_but_its_drawer() {
    let (log, _) = golf_round(golf::Rules::nine(3), 5);
    let all = states(&log);
    let start = all[0].view(PartyId(1));
    assert!(start.grids.iter().flatten().all(Option::is_none));
    for (k, game) in all.iter().enumerate() {
        if game.outcome().is_some() {
            continue;
        }
        let views: Vec<_> = (1..=3).map(|p| game.view(PartyId(p))).collect();
        for v in &views {
            assert_eq!(v.grids, views[0].grids, "every player sees the same grids");
        }
        let drew = k > 0 && log.moves[k - 1].mv == GolfMove::DrawStock;
        if drew {
            let drawer = log.moves[k - 1].by;
            for v in &views {
                assert_eq!(v.holding.is_some(), v.player == drawer);
            }
        }
    }
    let after = &all[1].view(PartyId(1));
    assert_eq!(
        after.grids[0].iter().flatten().count(),
        3,
        "three turned up"
    );
}

#[test]
fn a_devyatka_player_sees_his_hand_and_the_table_only() {
    let deal = Deal::random(&mut seeded_rng(8));
    let game = Devyatka::start(&devyatka::Setup::new(&deal, Player::Bob)).expect("valid");
    let alice = game.view(PartyId(1));
    let text = serde_json::to_string(&alice).expect("json");
    for c in deal.hand(Player::Bob) {
        assert!(!mentions(&text, c));
    }
    assert_eq!(alice.hand, deal.hand(Player::Alice));
    assert_eq!(alice.opponent_holds, 18);
}
