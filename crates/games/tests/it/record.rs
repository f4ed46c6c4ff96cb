//! A saved log is read strictly before the audit vouches for it: a field its format does not
//! have, a field its variant gives no meaning to, and a series without deals are refused by
//! name, so that a log the audit passes means what it says.

use facedown_core::rng::seeded_rng;
use facedown_games::cards::Suit;
use facedown_games::game::Bot;
use facedown_games::golf::{self, play_match, Golf, GreedyBot};
use facedown_games::ninety_nine::{audit_series, play_series, Length, Variant};
use facedown_games::record::{LogError, Record};
use serde_json::{json, Value};

use crate::support::nn_bots;

/// A finished series of `variant`, saved as `games play --save` saves it.
fn saved_series(variant: Variant) -> Value {
    let mut rng = seeded_rng(7);
    let mut bots = nn_bots(variant.rules().players, 0);
    let (log, _) =
        play_series(variant, false, Length::Deals(2), &mut bots, &mut rng).expect("plays");
    assert!(audit_series(&log).expect("a series").passed());
    serde_json::to_value(Record::NinetyNineSeries(log)).expect("serialises")
}

fn read(value: &Value) -> Result<Record, LogError> {
    Record::from_json(&value.to_string())
}

fn inapplicable_path(value: &Value) -> String {
    match read(value) {
        Err(LogError::Inapplicable { path, .. }) => path,
        other => panic!("expected an inapplicable field, got {other:?}"),
    }
}

#[test]
fn saved_logs_of_every_kind_read_back_strictly() {
    for v in [
        Variant::Revised,
        Variant::Classic,
        Variant::EighteenNinetyNine,
        Variant::TwoOpen,
    ] {
        read(&saved_series(v)).unwrap_or_else(|e| panic!("{v}: {e}"));
    }
    let mut rng = seeded_rng(8);
    let mut bots: Vec<Box<dyn Bot<Golf>>> = (0..3)
        .map(|_| Box::new(GreedyBot) as Box<dyn Bot<Golf>>)
        .collect();
    let (log, _) = play_match(golf::Rules::six(3), &mut bots, &mut rng).expect("plays");
    read(&serde_json::to_value(Record::GolfMatch(log)).expect("serialises")).expect("reads");
}

#[test]
fn a_field_the_format_does_not_have_is_refused_with_its_path() {
    let mut log = saved_series(Variant::Revised);
    log["deals"][1]["setup"]["trumps"] = json!("hearts");
    match read(&log) {
        Err(LogError::UnknownField { path }) => assert_eq!(path, "deals[1].setup.trumps"),
        other => panic!("expected an unknown field, got {other:?}"),
    }
    let mut log = saved_series(Variant::Revised);
    log["winner"] = json!(0);
    assert!(matches!(read(&log), Err(LogError::UnknownField { path }) if path == "winner"));
}

#[test]
fn a_trump_stack_outside_eighteen_ninety_nine_is_refused() {
    let mut log = saved_series(Variant::Revised);
    let card = log["deals"][0]["setup"]["deck"][0].clone();
    log["stack"] = json!([card]);
    assert_eq!(inapplicable_path(&log), "stack");
}

#[test]
fn a_trump_on_a_deal_that_turns_its_trump_up_is_refused() {
    let mut log = saved_series(Variant::Classic);
    log["deals"][0]["setup"]["trump"] = serde_json::to_value(Suit::Hearts).expect("a suit");
    assert_eq!(inapplicable_path(&log), "deals[0].setup.trump");
}

#[test]
fn streaks_outside_the_game_that_scores_them_are_refused() {
    let mut log = saved_series(Variant::Revised);
    log["deals"][1]["setup"]["streaks"] = json!([1, 0, 0]);
    assert_eq!(inapplicable_path(&log), "deals[1].setup.streaks");
}

#[test]
fn a_series_without_deals_is_refused_not_passed() {
    let mut log = saved_series(Variant::Revised);
    log["deals"] = json!([]);
    assert!(matches!(read(&log), Err(LogError::NoDeals)));
}

#[test]
fn a_pair_move_in_the_six_card_golf_game_is_refused() {
    let rules = golf::Rules {
        pair_move: true,
        ..golf::Rules::six(3)
    };
    let field = rules.inapplicable_field().expect("refused");
    assert_eq!(field.field, "pair_move");
}

#[test]
fn text_that_is_no_log_is_a_typed_error() {
    for text in [
        "",
        "{",
        "[]",
        r#"{"kind":"ninety-nine-series"}"#,
        r#"{"kind":"poker"}"#,
    ] {
        assert!(
            matches!(Record::from_json(text), Err(LogError::NotALog(_))),
            "{text}"
        );
    }
}
