//! `facedown play-local --game golf|devyatka`: Golf and Девятка with one process per player over
//! TCP on loopback, on the encrypted deck and on the dealer — honest nine-round Golf games and
//! honest Девятка deals where every player agrees and nobody is blamed, each game's cheats named
//! by every player and nobody else (exit status 3), and flags or tables that do not apply
//! refused (exit status 2).

use crate::support::run_split as run;
use serde_json::Value;

fn assert_all_agree(doc: &Value, key: &str) {
    assert_eq!(doc["agreed"], true);
    let views = doc["views"].as_array().expect("views");
    assert_eq!(
        views.len(),
        doc["players"].as_u64().expect("players") as usize
    );
    for v in views {
        assert_eq!(v["game"][key], views[0]["game"][key], "every player agrees");
        assert!(v["cost"]["messages"].as_u64() > Some(0), "{v}");
    }
}

#[test]
fn an_honest_nine_round_golf_game_over_tcp_is_never_blamed_and_every_player_agrees() {
    let (doc, code, err) = run(
        "play-local --players 2 --backend poker --game golf --seed 3 --timeout-ms 60000 --json",
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(doc["offender"].is_null());
    assert_eq!(doc["deals"], 9);
    assert_all_agree(&doc, "result");
    let totals = doc["views"][0]["game"]["result"]["totals"]
        .as_array()
        .expect("totals");
    assert_eq!(totals.len(), 2);
}

#[test]
fn honest_devyatka_deals_of_three_and_four_over_tcp_are_never_blamed() {
    for players in [3, 4] {
        let (doc, code, err) = run(&format!(
            "play-local --players {players} --backend poker --game devyatka --seed 2 --json"
        ));
        assert_eq!(code, Some(0), "{err}");
        assert!(doc["offender"].is_null());
        assert_all_agree(&doc, "outcome");
        let holds = doc["views"][0]["game"]["outcome"]["holds"]
            .as_array()
            .expect("holds");
        assert_eq!(holds.iter().filter(|h| h.as_u64() == Some(0)).count(), 1);
    }
}

/// `play-local --backend BACKEND ARGS` with one cheat: exit 3, every player agrees and names
/// `cheater`, and nobody else.
fn assert_cheat_named(backend: &str, args: &str, cheater: u64) {
    let (doc, code, err) = run(&format!(
        "play-local --backend {backend} {args} --seed 1 --timeout-ms 60000 --json"
    ));
    assert_eq!(code, Some(3), "{args}: {err}");
    assert_eq!(doc["agreed"], true, "{args}");
    assert_every_player_names(&doc, cheater, args);
}

#[test]
fn a_cheat_at_golf_or_devyatka_over_tcp_is_named_by_every_player_and_exits_3() {
    for (args, cheater) in [
        ("--players 3 --game golf --deals 1 --cheat 2:not-his", 2),
        ("--players 2 --game golf --deals 1 --cheat 1:peek", 1),
        ("--players 3 --game devyatka --cheat 3:not-playable", 3),
        ("--players 4 --game devyatka --cheat 1:false-pass", 1),
    ] {
        assert_cheat_named("poker", args, cheater);
    }
}

#[test]
fn golf_and_devyatka_flags_that_do_not_apply_are_refused() {
    for args in [
        "--players 2 --backend dealer --game golf",
        "--players 2 --backend dealer --game devyatka",
        "--players 5 --backend poker --game devyatka",
        "--players 3 --backend poker --game devyatka --variant six",
        "--players 3 --backend poker --game devyatka --deals 2",
        "--players 2 --backend poker --game golf --variant seven",
        "--players 2 --backend poker --game golf --cheat 1:revoke",
        "--players 2 --backend poker --game golf --cheat 3:peek",
        "--players 9 --backend poker --game golf",
    ] {
        let (_, code, err) = run(&format!("play-local {args} --seed 1"));
        assert_eq!(code, Some(2), "{args:?}: {err}");
    }
}

/// Every player's verdict in `doc` names `cheater`, and there is a verdict from every player.
fn assert_every_player_names(doc: &Value, cheater: u64, what: &str) {
    let views = doc["views"].as_array().expect("views");
    assert_eq!(
        views.len() as u64,
        doc["players"].as_u64().expect("players")
    );
    for v in views {
        let named = &v["game"]["verdict"]["offender"];
        assert_eq!(
            named.as_u64(),
            Some(cheater),
            "{what}: player {}",
            v["player"]
        );
    }
    assert_eq!(doc["offender"], cheater, "{what}");
}

#[test]
fn an_honest_nine_round_golf_game_on_the_dealer_over_tcp_is_never_blamed_and_its_audit_opens_the_undrawn_stock(
) {
    let (doc, code, err) = run(
        "play-local --players 3 --backend dealer --game golf --seed 3 --timeout-ms 60000 --json",
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(doc["offender"].is_null());
    assert_eq!(doc["deals"], 9);
    assert_all_agree(&doc, "result");
    let rounds = doc["views"][0]["game"]["rounds"]
        .as_array()
        .expect("rounds");
    let never_shown: u64 = rounds
        .iter()
        .filter_map(|r| r["never_shown"].as_u64())
        .sum();
    assert!(never_shown > 0, "some stock is never drawn in nine rounds");
    let stock = doc["guarantees"]
        .as_array()
        .expect("guarantees")
        .iter()
        .find(|g| {
            g["need"]
                .as_str()
                .is_some_and(|n| n.contains("never draws"))
        })
        .expect("the undrawn stock's guarantee");
    assert_eq!(stock["support"], "weakened");
    assert!(stock["reason"]
        .as_str()
        .is_some_and(|r| r.contains("every permutation")));
}

#[test]
fn honest_devyatka_deals_of_three_and_four_on_the_dealer_over_tcp_are_never_blamed() {
    for players in [3, 4] {
        let (doc, code, err) = run(&format!(
            "play-local --players {players} --backend dealer --game devyatka --seed 2 --json"
        ));
        assert_eq!(code, Some(0), "{players}: {err}");
        assert!(doc["offender"].is_null());
        assert_all_agree(&doc, "outcome");
        let holds = doc["views"][0]["game"]["outcome"]["holds"]
            .as_array()
            .expect("holds");
        assert_eq!(holds.iter().filter(|h| h.as_u64() == Some(0)).count(), 1);
        let left: u64 = holds.iter().filter_map(Value::as_u64).sum();
        assert_eq!(doc["views"][0]["game"]["never_shown"].as_u64(), Some(left));
    }
}

#[test]
fn every_cheat_at_golf_and_devyatka_on_the_dealer_over_tcp_names_the_cheater_and_nobody_else() {
    for (args, cheater) in [
        ("--players 3 --game golf --deals 1 --cheat 1:peek", 1),
        ("--players 3 --game golf --deals 1 --cheat 2:not-his", 2),
        (
            "--players 4 --game golf --deals 1 --cheat 3:discard-taken",
            3,
        ),
        ("--players 3 --game devyatka --cheat 3:not-in-hand", 3),
        ("--players 4 --game devyatka --cheat 2:not-playable", 2),
        ("--players 3 --game devyatka --cheat 1:false-pass", 1),
    ] {
        assert_cheat_named("dealer", args, cheater);
    }
}

#[test]
fn two_player_golf_or_devyatka_on_the_dealer_is_a_clear_error() {
    for game in ["golf", "devyatka"] {
        let (_, code, err) = run(&format!(
            "play-local --players 2 --backend dealer --game {game} --seed 1"
        ));
        assert_eq!(code, Some(2), "{game}: {err}");
        assert!(err.contains("the dealer needs at least 3"), "{game}: {err}");
        assert!(!err.contains("panicked"), "{game}: {err}");
    }
}

#[test]
fn on_the_encrypted_deck_every_pass_is_proved_at_play_time_and_a_false_one_is_named_at_the_pass() {
    let (doc, code, err) = run(
        "play-local --players 3 --backend poker --game devyatka --seed 7 --timeout-ms 60000 --json",
    );
    assert_eq!(code, Some(0), "{err}");
    for v in doc["views"].as_array().expect("views") {
        let said = v["game"]["said"].as_array().expect("said");
        let passes = said.iter().filter(|e| e["move"] == "pass").count() as u64;
        assert!(passes > 0, "seed 7 has passes");
        assert_eq!(v["game"]["proofs"].as_u64(), Some(passes));
        assert_eq!(
            v["operations"]["prove-none-of"]["count"].as_u64(),
            Some(passes)
        );
    }
    let (doc, code, err) = run(
        "play-local --players 3 --backend poker --game devyatka --seed 7 --cheat 2:false-pass \
         --timeout-ms 60000 --json",
    );
    assert_eq!(code, Some(3), "{err}");
    assert_every_player_names(&doc, 2, "false-pass");
    for v in doc["views"].as_array().expect("views") {
        let verdict = &v["game"]["verdict"];
        assert_eq!(verdict["at_play_time"], true);
        let reason = verdict["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("cannot prove"), "{reason}");
        let last = v["game"]["said"].as_array().and_then(|s| s.last().cloned());
        assert_eq!(last.map(|e| e["move"].clone()), Some(Value::from("pass")));
    }
}
