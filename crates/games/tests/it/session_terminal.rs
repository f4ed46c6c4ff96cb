//! A person at the table: one seat of Ninety-Nine played through scripted input, on the ideal
//! table with the other seats bots — the hand, the table and the legal moves shown, a wrong
//! move refused with a message and asked again, the game checked like any other.

use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use facedown_core::PartyId;
use facedown_games::cards::parse_cards;
use facedown_games::game::Bot;
use facedown_games::ninety_nine::state::Move;
use facedown_games::ninety_nine::{HeuristicBot, Length, NinetyNine, Offer, Variant};
use facedown_games::session::ideal::IdealGame;
use facedown_games::session::ninety_nine::{play_game, GameReport, Seat};
use facedown_games::session::terminal::{parse_move, TerminalBot};

/// A writer whose bytes the test reads after the seat's thread is done.
#[derive(Clone, Default)]
struct Screen(Arc<Mutex<Vec<u8>>>);

impl Write for Screen {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("not poisoned").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Plays one deal with seat 1 reading `script`; every player's report and seat 1's screen.
fn play_scripted(script: &str) -> (Vec<GameReport>, String) {
    let game = IdealGame::new(3, 11);
    let screen = Screen::default();
    let handles: Vec<_> = PartyId::all(3)
        .map(|me| {
            let mut tables = game.tables(me, Duration::from_secs(20));
            let (script, screen) = (script.to_owned(), screen.clone());
            std::thread::spawn(move || {
                let bot: Box<dyn Bot<NinetyNine>> = match me.0 {
                    1 => Box::new(TerminalBot::new(Cursor::new(script), screen)),
                    _ => Box::new(HeuristicBot),
                };
                let mut seat = Seat {
                    me,
                    bot,
                    cheat: None,
                    cheated: false,
                };
                let mut rng = facedown_core::rng::trial_rng(11, u64::from(me.0));
                let v = Variant::Revised;
                play_game(&mut tables, &mut seat, v, Length::Deals(1), &mut rng).expect("runs")
            })
        })
        .collect();
    let reports = handles
        .into_iter()
        .map(|h| h.join().expect("no panic"))
        .collect();
    let text = String::from_utf8(screen.0.lock().expect("not poisoned").clone()).expect("utf-8");
    (reports, text)
}

#[test]
fn a_seat_played_through_scripted_input_sees_its_hand_is_refused_a_wrong_move_and_plays_on() {
    let script = format!("nonsense\n999\n8D\n{}", "1\n".repeat(40));
    let (reports, screen) = play_scripted(&script);
    for r in &reports {
        assert!(r.verdict.clean(), "{:?}", r.verdict);
        assert!(r.hands[0].outcome.is_some());
    }
    assert!(screen.contains("your hand: "), "{screen}");
    assert!(
        screen.contains("write the three cards you lay aside"),
        "{screen}"
    );
    assert!(screen.contains("not a legal move: `nonsense`"), "{screen}");
    assert!(screen.contains("there is no move 999"), "{screen}");
    assert!(screen.contains("a bid is three cards, not 1"), "{screen}");
    assert!(screen.contains("trick 1: "), "{screen}");
    assert!(screen.contains("legal moves:"), "{screen}");
    assert_eq!(
        screen.matches("you: play ").count(),
        9,
        "every card of the deal came from the script: {screen}"
    );
    assert!(!screen.contains("input closed"), "{screen}");
}

#[test]
fn when_the_input_ends_the_heuristic_bot_takes_the_seat_and_says_so() {
    let (reports, screen) = play_scripted("1\n");
    assert!(reports.iter().all(|r| r.verdict.clean()));
    assert!(
        screen.contains("input closed: the heuristic bot plays"),
        "{screen}"
    );
}

#[test]
fn moves_are_read_as_cards_words_or_numbers_and_wrong_ones_say_why() {
    let c = |s: &str| parse_cards(s).expect("cards");
    let play = [Move::Play(c("QH")[0]), Move::Play(c("7H")[0])];
    assert_eq!(parse_move("QH", &play), Ok(play[0]));
    assert_eq!(parse_move("play 7H", &play), Ok(play[1]));
    assert_eq!(parse_move("2", &play), Ok(play[1]));
    let follow = parse_move("8C", &play).expect_err("not playable");
    assert!(follow.contains("follow the suit led"), "{follow}");
    assert!(parse_move("0", &play).is_err());
    assert!(parse_move("", &play).is_err());
    let bid = [Move::Bid([c("8D")[0], c("JS")[0], c("9D")[0]])];
    assert_eq!(parse_move("9D 8D JS", &bid), Ok(bid[0]), "in any order");
    assert!(parse_move("9D 8D", &bid).is_err());
    let premium = [
        Move::Premium(Offer::Pass),
        Move::Premium(Offer::Declare),
        Move::Premium(Offer::Reveal),
    ];
    assert_eq!(parse_move("pass", &premium), Ok(premium[0]));
    assert_eq!(parse_move("Declare", &premium), Ok(premium[1]));
    assert_eq!(parse_move("reveal", &premium), Ok(premium[2]));
    let claim = [Move::Claim, Move::Silent];
    assert_eq!(parse_move("claim", &claim), Ok(Move::Claim));
    assert_eq!(parse_move("silent", &claim), Ok(Move::Silent));
}
