//! Games as workloads of `facedown compare`: a game row's counts are exact (the same seed plays
//! the same game and sends the same messages and bytes), a backend that cannot host a game is a
//! row that says why, and the JSON carries each game's cost per deal and per trick.

use std::process::Command;

use facedown::compare::games::{game_entries, measure, play_once, GameEntry, GameSet, Network};
use facedown::compare::Backend;

fn entry(prefix: &str) -> GameEntry {
    game_entries(GameSet::Hand)
        .into_iter()
        .find(|g| g.name.starts_with(prefix))
        .expect("a game workload")
}

#[test]
fn a_game_row_counts_the_same_messages_and_bytes_twice_from_one_seed() {
    for (prefix, backend) in [
        ("game ninety-nine, one hand", Backend::Dealer),
        ("game devyatka", Backend::Encrypted),
    ] {
        let game = entry(prefix);
        let first = play_once(&game, backend, 11, None).expect("an honest game");
        let again = play_once(&game, backend, 11, None).expect("an honest game");
        assert_eq!(first.cost, again.cost, "{prefix} on {}", backend.name());
        assert_eq!(
            (first.deals, first.tricks, first.hidden_opened),
            (again.deals, again.tricks, again.hidden_opened)
        );
        assert!(first.cost.messages > 0 && first.cost.bytes > 0 && first.cost.rounds > 0);
        assert_eq!(first.deals, 1);
        assert!(first.tricks > 0);
        assert!(first.busiest.is_some_and(|b| !b.is_zero()));
    }
}

#[test]
fn a_ninety_nine_hand_is_nine_tricks_on_the_dealer_and_the_ideal_table_sends_nothing() {
    let game = entry("game ninety-nine, one hand");
    let dealer = play_once(&game, Backend::Dealer, 3, None).expect("an honest hand");
    assert_eq!((dealer.deals, dealer.tricks), (1, 9));
    // A silent bid keeps three cards hidden by the rules; the audit turns them.
    assert_eq!(dealer.hidden_opened % 3, 0);
    let ideal = play_once(&game, Backend::Ideal, 3, None).expect("an honest hand");
    assert_eq!(ideal.cost.messages, 0);
    assert_eq!(ideal.cost.bytes, 0);
    assert_eq!((ideal.deals, ideal.tricks), (1, 9));
}

#[test]
fn a_two_player_game_on_the_dealer_is_a_stated_row_not_a_failure() {
    let game = entry("game ninety-nine two-dummy");
    let row =
        measure(&game, Backend::Dealer, 0, None, Network::Memory).expect("a row, not an error");
    assert_eq!(row.runs, 0);
    assert!(row.messages.is_none() && row.game.is_none());
    let notes = row.notes.join("; ");
    assert!(notes.starts_with("unsupported: "), "{notes}");
    assert!(notes.contains("at least 3"), "{notes}");
}

#[test]
fn compare_json_carries_a_game_row_per_backend_with_its_cost_per_trick() {
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args([
            "compare",
            "--json",
            "--only",
            "game devyatka",
            "--seed",
            "2",
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["parameters"]["games"], "hand");
    let rows = v["rows"].as_array().expect("rows");
    let backends: Vec<&str> = rows.iter().filter_map(|r| r["backend"].as_str()).collect();
    assert_eq!(backends, ["ideal", "dealer", "encrypted"]);
    let encrypted = &rows[2]["game"];
    assert_eq!(encrypted["trick_unit"], "move");
    assert_eq!(encrypted["deals"].as_f64(), Some(1.0));
    let (tricks, messages) = (
        encrypted["tricks"].as_f64().expect("tricks"),
        rows[2]["messages"].as_f64().expect("messages"),
    );
    let per_trick = encrypted["per_trick"]["messages"]
        .as_f64()
        .expect("per trick");
    assert!((per_trick * tricks - messages).abs() < 1e-6 * messages);
    assert_eq!(
        encrypted["hidden_cards_are"],
        "cards left in the losers' hands"
    );
    assert!(rows[0]["notes"].to_string().contains("sends nothing"));
    // Девятка's table: the dealer refuses it (this version), with the reason.
    if rows[1]["runs"] == 0 {
        assert!(rows[1]["notes"].to_string().contains("unsupported"));
    }
}
