//! `facedown serve`: the endpoints answer what the CLI prints with `--json`, refuse bad input
//! with a 4xx and a message (an oversized or endless body, a malformed protocol, an unknown
//! name, a huge parameter), stay up afterwards, and bind to loopback by default. The pages
//! themselves are driven in headless Chromium by `tests/browser/run.sh` (CI).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A running server, stopped when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start() -> Server {
        Server::start_with(&[])
    }

    fn start_with(flags: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_facedown"))
            .args(["serve", "--port", "0", "--json"])
            .args(flags)
            .stdout(Stdio::piped())
            .spawn()
            .expect("facedown serve starts");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the address line");
        let doc: Value = serde_json::from_str(&line).expect("one JSON line");
        assert_eq!(doc["command"], "serve");
        assert_eq!(doc["schema"], "facedown/serve/1");
        let url = doc["url"].as_str().expect("url").to_owned();
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        Server { child, addr }
    }

    /// Sends raw request bytes; returns the status and the body.
    fn raw(&self, request: &[u8]) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).ok();
        // The server may answer (and stop reading) before the whole request is written.
        let _ = s.write_all(request);
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let status = answer
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {answer:?}"));
        let body = answer
            .split_once("\r\n\r\n")
            .map_or(String::new(), |(_, b)| b.to_owned());
        (status, body)
    }

    fn call(&self, method: &str, target: &str, body: &[u8]) -> (u16, Value) {
        let mut request = format!(
            "{method} {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        let (status, text) = self.raw(&request);
        let doc = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, doc)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The document `facedown ARGS --json` prints (`args` split at spaces).
fn cli(args: &str) -> Value {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(args.split_whitespace())
        .arg("--json")
        .output()
        .expect("facedown runs");
    assert!(out.status.success(), "{args:?}");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn message(doc: &Value) -> &str {
    doc["error"]["message"].as_str().unwrap_or_default()
}

#[test]
fn the_analysis_endpoint_answers_what_cards_analyze_json_prints() {
    let server = Server::start();
    for name in ["mks-four-card-and", "mks-without-first-shuffle"] {
        let (status, doc) = server.call("POST", &format!("/api/analyze?protocol={name}"), b"");
        assert_eq!(status, 200, "{doc}");
        let cli = cli(&format!("cards analyze {name}"));
        assert_eq!(doc["schema"], "facedown/cards-analyze/1");
        for field in [
            "security",
            "correct",
            "expected_shuffles",
            "tv_distance",
            "errors",
        ] {
            assert_eq!(doc[field], cli[field], "{name}: {field}");
        }
    }
}

#[test]
fn a_pasted_protocol_is_analysed_and_its_error_is_shown_at_its_line() {
    let server = Server::start();
    let source = facedown::cards::library::find("five-card-trick")
        .expect("built in")
        .source;
    let (status, doc) = server.call("POST", "/api/analyze", source.as_bytes());
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["security"], "perfect");
    let broken = "protocol broken\ninputs a b\nshuffel cut 1 2 3 4 5\n";
    let (status, doc) = server.call("POST", "/api/analyze", broken.as_bytes());
    assert_eq!(status, 422, "{doc}");
    assert_eq!(doc["error"]["line"], 3);
    assert_eq!(doc["error"]["col"], 1);
    assert_eq!(doc["error"]["source_line"], "shuffel cut 1 2 3 4 5");
    assert!(message(&doc).contains("shuffel"), "{doc}");
}

#[test]
fn the_simulation_answers_the_cli_runs_with_the_exact_views_beside_them() {
    let server = Server::start();
    let (status, doc) = server.call(
        "POST",
        "/api/simulate?protocol=five-card-trick&runs=2000&seed=3",
        b"",
    );
    assert_eq!(status, 200, "{doc}");
    let cli = cli("cards simulate five-card-trick --runs 2000 --seed 3");
    assert_eq!(doc["views"], cli["views"], "same seed, same runs");
    let exact = doc["exact_views"].as_array().expect("an acyclic protocol");
    // Each of the four inputs sees one of ten rotations' worth of views, each 1/5.
    assert_eq!(exact.len(), 10);
    for view in exact {
        for q in view["exact"].as_array().expect("per input") {
            assert!(q == "0" || q == "1/5", "{view}");
        }
    }
}

#[test]
fn trace_and_tree_answer_the_cli_documents() {
    let server = Server::start();
    let (status, doc) = server.call(
        "POST",
        "/api/trace?protocol=mks-four-card-and&input=1,0&seed=5",
        b"",
    );
    assert_eq!(status, 200, "{doc}");
    let cli_trace = cli("cards trace mks-four-card-and --input 1,0 --seed 5");
    assert_eq!(doc["steps"], cli_trace["steps"]);
    let (status, doc) = server.call("POST", "/api/tree?protocol=five-card-trick", b"");
    assert_eq!(status, 200, "{doc}");
    let cli_tree = cli("cards tree five-card-trick");
    assert_eq!(doc["vertices"], cli_tree["vertices"]);
    assert_eq!(doc["edges"], cli_tree["edges"]);
}

#[test]
fn bad_requests_are_refused_with_a_message_and_the_server_stays_up() {
    let server = Server::start();
    // A body announced larger than the cap is refused before a byte of it is read (so none is
    // sent here: unread bytes would make the server's close a reset).
    let (status, body) = server.raw(
        b"POST /api/analyze HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 100000\r\n\r\n",
    );
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("larger than 65536"), "{body}");
    let cases: Vec<(&str, String, &[u8], u16, &str)> = vec![
        (
            "POST",
            "/api/analyze?protocol=five-card-trik".into(),
            b"",
            404,
            "did you mean `five-card-trick`",
        ),
        (
            "POST",
            "/api/simulate?protocol=five-card-trick&runs=99999999999".into(),
            b"",
            400,
            "between 1 and 1000000",
        ),
        (
            "POST",
            "/api/trace?protocol=five-card-trick&input=1,2".into(),
            b"",
            400,
            "not a bit",
        ),
        (
            "POST",
            "/api/trace?protocol=five-card-trick&input=1,0&seed=-1".into(),
            b"",
            400,
            "whole number",
        ),
        ("POST", "/api/analyze".into(), b"\xff\xfe", 400, "not UTF-8"),
        ("GET", "/api/analyze".into(), b"", 405, "takes POST"),
        ("GET", "/no-such-page".into(), b"", 404, "no page"),
        ("POST", "/protocol".into(), b"", 405, "GET"),
        (
            "GET",
            format!("/api/source?protocol={}", "a".repeat(5000)),
            b"",
            414,
            "longer than",
        ),
    ];
    for (method, target, body, want, text) in cases {
        let (status, doc) = server.call(method, &target, body);
        assert_eq!(
            status,
            want,
            "{method} {}: {doc}",
            &target[..target.len().min(60)]
        );
        assert!(message(&doc).contains(text), "{doc}");
    }
    let (status, doc) = server.call("POST", "/api/analyze?protocol=five-card-trick", b"");
    assert_eq!((status, doc["security"].as_str()), (200, Some("perfect")));
}

#[test]
fn an_endless_body_is_cut_at_the_cap() {
    let server = Server::start();
    // A chunked body that never ends: the server reads one byte past its cap and answers
    // without waiting for the rest. The client sends exactly that much and then nothing.
    let mut request = format!(
        "POST /api/analyze HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n",
        server.addr
    )
    .into_bytes();
    for _ in 0..64 {
        request.extend_from_slice(b"400\r\n");
        request.extend(std::iter::repeat_n(b'#', 0x400));
        request.extend_from_slice(b"\r\n");
    }
    // One more byte, in a chunk announced much longer than what follows.
    request.extend_from_slice(b"100000\r\n#");
    let (status, body) = server.raw(&request);
    assert_eq!(status, 413, "{body}");
    let (status, _) = server.call("GET", "/api/protocols", b"");
    assert_eq!(status, 200);
}

#[test]
fn serve_binds_to_loopback_and_its_pages_load_nothing_from_elsewhere() {
    let server = Server::start();
    assert!(server.addr.starts_with("127.0.0.1:"), "{}", server.addr);
    for page in [
        "/",
        "/protocol",
        "/deal",
        "/game",
        "/classroom.js",
        "/protocol.js",
        "/deal.js",
        "/game.js",
        "/style.css",
    ] {
        let (status, body) = server.raw(
            format!("GET {page} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        assert_eq!(status, 200, "{page}");
        for external in [
            "src=\"http",
            "href=\"http",
            "url(http",
            "fetch(\"http",
            "//cdn",
        ] {
            assert!(
                !body.contains(external),
                "{page} loads from elsewhere: {external}"
            );
        }
    }
}

fn get(server: &Server, target: &str) -> Value {
    let (status, doc) = server.call("GET", target, b"");
    assert_eq!(status, 200, "{target}: {doc}");
    doc
}

#[test]
fn the_deal_room_deals_what_dealer_deal_deals_and_its_layers_compose_into_the_deal() {
    let server = Server::start();
    let doc = get(
        &server,
        "/api/deal?players=3&cards=12&hand=3&public=2&seed=7",
    );
    let cli = cli("dealer deal --players 3 --cards 12 --hand 3 --public 2 --seed 7");
    assert_eq!(doc["hands"], cli["hands"]);
    assert_eq!(doc["public"], cli["public"]);
    assert_eq!(doc["cost"], cli["cost"]);
    assert_eq!(doc["audit"]["passed"], true);
    // The players' layers, opened at the audit, compose into the deal: position i holds
    // A_3(A_2(A_1(i))).
    let layers: Vec<Vec<u64>> = doc["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .filter(|l| l["slot"].as_str().is_some_and(|s| s.starts_with('A')))
        .map(|l| serde_json::from_value(l["perm"].clone()).expect("a permutation"))
        .collect();
    assert_eq!(layers.len(), 3, "one layer per player");
    let card_at = |i: u64| layers.iter().fold(i, |x, a| a[x as usize]);
    let openings = doc["openings"].as_array().expect("openings");
    assert_eq!(openings.len(), 3 * 3 + 2, "one opening per dealt card");
    let public: Vec<&Value> = openings
        .iter()
        .filter(|o| o["learner"] == "everyone")
        .collect();
    for (o, card) in public.iter().zip(cli["public"].as_array().expect("public")) {
        let position = o["position"].as_u64().expect("position");
        assert_eq!(Value::from(card_at(position)), *card, "{o}");
        let last = o["hops"]
            .as_array()
            .and_then(|h| h.last())
            .expect("a chain");
        assert_eq!(last["to"], "everyone");
        assert_eq!(last["value"], *card, "the last hop publishes the card");
    }
    for (p, hand) in cli["hands"].as_array().expect("hands").iter().enumerate() {
        let mine: Vec<Value> = openings
            .iter()
            .filter(|o| o["learner"] == (p + 1))
            .map(|o| Value::from(card_at(o["position"].as_u64().expect("position"))))
            .collect();
        let mut mine = mine;
        let mut hand = hand.as_array().expect("a hand").clone();
        mine.sort_by_key(|v| v.as_u64());
        hand.sort_by_key(|v| v.as_u64());
        assert_eq!(mine, hand, "player {}'s openings are his hand", p + 1);
    }
}

#[test]
fn the_deal_room_shows_the_collusion_table_and_the_encrypted_deal_of_the_cli() {
    let server = Server::start();
    let doc = get(&server, "/api/collusion?players=3&cards=6&hand=1&public=1");
    let cli_rows = cli("dealer collusion --players 3 --cards 6 --hand 1 --public 1");
    assert_eq!(doc["rows"], cli_rows["rows"]);
    assert_eq!(doc["exact"], true);
    let doc = get(
        &server,
        "/api/poker-deal?players=3&cards=12&hand=3&public=1&seed=4",
    );
    let cli_deal = cli("poker deal --players 3 --cards 12 --hand 3 --public 1 --seed 4");
    assert_eq!(doc["report"]["hands"], cli_deal["hands"]);
    assert_eq!(doc["report"]["cost"], cli_deal["cost"]);
    let deliveries = doc["deliveries"].as_array().expect("deliveries");
    let shuffles = deliveries.iter().filter(|d| d["kind"] == "Shuffle").count();
    assert_eq!(
        shuffles,
        3 * 2,
        "each player's shuffle reaches the two others"
    );
}

#[test]
fn the_deal_room_refuses_a_deal_that_cannot_be_made() {
    let server = Server::start();
    for (target, text) in [
        ("/api/deal?players=2", "between 3 and 8"),
        ("/api/deal?cards=53", "between 3 and 52"),
        (
            "/api/deal?players=3&cards=6&hand=3&public=1",
            "need 10 cards",
        ),
        ("/api/poker-deal?players=9", "between 3 and 8"),
    ] {
        let (status, doc) = server.call("GET", target, b"");
        assert_eq!(status, 400, "{target}: {doc}");
        assert!(message(&doc).contains(text), "{doc}");
    }
}

/// Starts a game room game; its first state (the student's first question, or the end).
fn new_game(server: &Server, body: &str) -> Value {
    let (status, doc) = server.call("POST", "/api/game/new", body.as_bytes());
    assert_eq!(status, 200, "{body}: {doc}");
    assert_eq!(doc["schema"], "facedown/serve-game/1");
    doc
}

/// Plays `choose(state)` whenever it is the student's move, until the game is over.
fn play_out(server: &Server, mut doc: Value, mut choose: impl FnMut(&Value) -> Value) -> Value {
    let id = doc["id"].as_str().expect("an id").to_owned();
    for _ in 0..10_000 {
        doc = match doc["status"].as_str() {
            Some("over") => return doc,
            Some("your-move") => {
                let body = serde_json::json!({ "move": choose(&doc) }).to_string();
                let target = format!("/api/game/{id}/move");
                let (status, next) = server.call("POST", &target, body.as_bytes());
                assert_eq!(status, 200, "{body}: {next}");
                next
            }
            _ => get(server, &format!("/api/game/{id}")),
        };
    }
    panic!("the game did not end: {doc}");
}

/// Player 1's moves of a hand as the room's page sends them: each said move with its
/// positions read in the deck the end-of-hand audit opened.
fn student_moves(hand: &Value) -> Vec<Value> {
    let deck = hand["setup"]["deck"].as_array().expect("the audited deck");
    let card = |p: &Value| deck[p.as_u64().expect("a position") as usize].clone();
    hand["said"]
        .as_array()
        .expect("the said moves")
        .iter()
        .filter(|e| e["by"] == 1)
        .map(|e| match &e["move"] {
            Value::Object(m) if m.contains_key("bid") => serde_json::json!({
                "bid": m["bid"].as_array().expect("three").iter().map(card).collect::<Vec<_>>()
            }),
            Value::Object(m) if m.contains_key("play") => {
                serde_json::json!({ "play": card(&m["play"]) })
            }
            Value::Object(m) if m.contains_key("claim") => Value::from("claim"),
            other => other.clone(),
        })
        .collect()
}

#[test]
fn a_hand_played_through_http_is_the_hand_play_local_plays_with_the_same_seed() {
    let cli = cli("play-local --game ninety-nine --players 3 --backend poker --deals 1 --seed 5");
    let cli_hand = &cli["views"][0]["game"]["hands"][0];
    let mut script = student_moves(cli_hand).into_iter();
    let server = Server::start();
    let doc = new_game(
        &server,
        r#"{"game": "ninety-nine", "backend": "poker", "seed": 5, "deals": 1}"#,
    );
    assert_eq!(doc["view"]["hand"].as_array().map(Vec::len), Some(12));
    let over = play_out(&server, doc, |state| {
        let mv = script.next().expect("the CLI's player 1 moved as often");
        assert!(
            state["legal"].as_array().expect("legal").contains(&mv),
            "{mv} is legal in the room as in the CLI"
        );
        mv
    });
    assert!(
        script.next().is_none(),
        "every move of the CLI's player 1 made"
    );
    let result = &over["result"];
    assert_eq!(result["agreed"], true);
    assert_eq!(result["offender"], Value::Null);
    assert_eq!(result["hands"], cli["hands"]);
    assert_eq!(result["tricks"], cli["tricks"]);
    for (room, cli) in result["views"]
        .as_array()
        .expect("views")
        .iter()
        .zip(cli["views"].as_array().expect("views"))
    {
        let (room, cli) = (&room["game"]["hands"][0], &cli["game"]["hands"][0]);
        for field in ["setup", "said", "outcome", "verdict", "announcements"] {
            assert_eq!(room[field], cli[field], "{field}");
        }
    }
    // The log saw every message the players sent; the engine's own count excludes the
    // driver's byes, so the log has at least as many.
    let logged = over["cost"]["messages"].as_u64().expect("messages");
    assert!(logged >= result["cost"]["messages"].as_u64().expect("cost"));
    assert!(over["log"]["by_kind"]["Shuffle"]["messages"].as_u64() > Some(0));
}

fn first_legal(state: &Value) -> Value {
    state["legal"][0].clone()
}

#[test]
fn a_cheat_pressed_in_the_game_room_is_caught_and_only_the_cheater_named() {
    let server = Server::start();
    for (cheater, kind) in [(2, "not-in-hand"), (1, "not-in-hand"), (3, "revoke")] {
        let doc = new_game(
            &server,
            r#"{"game": "ninety-nine", "backend": "ideal", "seed": 3}"#,
        );
        let id = doc["id"].as_str().expect("id");
        let body = format!(r#"{{"player": {cheater}, "kind": "{kind}"}}"#);
        let (status, armed) =
            server.call("POST", &format!("/api/game/{id}/cheat"), body.as_bytes());
        assert_eq!(status, 200, "{armed}");
        assert_eq!(armed["cheats"][0]["kind"], kind);
        let over = play_out(&server, armed, first_legal);
        let result = &over["result"];
        assert_eq!(result["agreed"], true, "{kind}: {result}");
        assert_eq!(result["offender"], cheater, "{kind}: {result}");
        for view in result["views"].as_array().expect("every player's view") {
            let verdict = &view["game"]["verdict"];
            assert_eq!(
                verdict["offender"], cheater,
                "{kind}: no honest player named"
            );
            assert!(verdict["reason"].as_str().is_some_and(|r| !r.is_empty()));
        }
        if kind == "not-in-hand" {
            assert_eq!(result["views"][0]["game"]["verdict"]["at_play_time"], true);
        }
    }
}

#[test]
fn an_honest_game_in_the_room_names_nobody() {
    let server = Server::start();
    let doc = new_game(
        &server,
        r#"{"game": "ninety-nine", "backend": "ideal", "seed": 4, "deals": 2}"#,
    );
    assert_eq!(
        doc["cost"]["messages"], 0,
        "the ideal table sends no messages"
    );
    let over = play_out(&server, doc, first_legal);
    let result = &over["result"];
    assert_eq!(
        (&result["offender"], &result["agreed"]),
        (&Value::Null, &Value::Bool(true))
    );
    assert_eq!(result["hands"], 2);
    assert!(result["errors"].as_array().is_some_and(Vec::is_empty));
}

#[test]
fn the_game_room_refuses_bad_calls_with_a_message() {
    let server = Server::start();
    let game = |body: &str| server.call("POST", "/api/game/new", body.as_bytes());
    for (body, want, text) in [
        ("{", 400, "not the JSON"),
        (
            r#"{"game": "chess", "backend": "ideal"}"#,
            400,
            "no game `chess`",
        ),
        (
            r#"{"game": "golf", "backend": "ideal", "players": 5}"#,
            400,
            "between 2 and 4",
        ),
        (
            r#"{"game": "golf", "backend": "ideal", "deals": 10}"#,
            400,
            "between 1 and 9",
        ),
        (
            r#"{"game": "golf", "backend": "ideal", "variant": "six"}"#,
            400,
            "nine-card",
        ),
        (
            r#"{"game": "devyatka", "backend": "ideal", "deals": 2}"#,
            400,
            "does not apply to devyatka",
        ),
        (
            r#"{"game": "devyatka", "backend": "ideal", "variant": "x"}"#,
            400,
            "does not apply to devyatka",
        ),
        (
            r#"{"game": "ninety-nine", "backend": "ideal", "players": 4}"#,
            400,
            "does not apply to ninety-nine",
        ),
        (
            r#"{"game": "devyatka", "backend": "dealer", "players": 2}"#,
            422,
            "dealer",
        ),
        (
            r#"{"game": "ninety-nine", "backend": "quantum"}"#,
            400,
            "no backend",
        ),
        (
            r#"{"game": "ninety-nine", "backend": "dealer", "variant": "two-dummy"}"#,
            422,
            "the dealer needs at least 3",
        ),
        (
            r#"{"game": "ninety-nine", "backend": "ideal", "deals": 0}"#,
            400,
            "between 1 and",
        ),
        (
            r#"{"game": "ninety-nine", "backend": "ideal", "variant": "x"}"#,
            400,
            "no Ninety-Nine variant",
        ),
        (
            r#"{"game": "ninety-nine", "backend": "ideal", "extra": 1}"#,
            400,
            "unknown field",
        ),
    ] {
        let (status, doc) = game(body);
        assert_eq!(status, want, "{body}: {doc}");
        assert!(message(&doc).contains(text), "{body}: {doc}");
    }
    let doc = new_game(
        &server,
        r#"{"game": "ninety-nine", "backend": "ideal", "seed": 9}"#,
    );
    let id = doc["id"].as_str().expect("id");
    let (mv, cheat) = (
        format!("/api/game/{id}/move"),
        format!("/api/game/{id}/cheat"),
    );
    for (method, target, body, want, text) in [
        (
            "GET",
            "/api/game/0123".to_owned(),
            "",
            404,
            "no game `0123`",
        ),
        ("GET", "/api/game/new".to_owned(), "", 405, "POST"),
        ("GET", mv.clone(), "", 405, "takes POST"),
        (
            "POST",
            mv.clone(),
            r#"{"move": "claim"}"#,
            422,
            "not a legal move",
        ),
        (
            "POST",
            mv.clone(),
            r#"{"move": {"play": "ZZ"}}"#,
            400,
            "not the JSON",
        ),
        (
            "POST",
            cheat.clone(),
            r#"{"player": 4, "kind": "revoke"}"#,
            400,
            "no player 4",
        ),
        (
            "POST",
            cheat.clone(),
            r#"{"player": 2, "kind": "peek"}"#,
            400,
            "no cheat `peek`",
        ),
        (
            "POST",
            format!("/api/game/{id}/undo"),
            "{}",
            404,
            "no game endpoint",
        ),
    ] {
        let (status, doc) = server.call(method, &target, body.as_bytes());
        assert_eq!(status, want, "{method} {target} {body}: {doc}");
        assert!(message(&doc).contains(text), "{target}: {doc}");
    }
    let over = play_out(&server, doc, first_legal);
    let (status, doc) = server.call("POST", &mv, br#"{"move": "claim"}"#);
    assert_eq!((status, message(&doc)), (409, "the game is over"));
    let (status, _) = server.call("POST", &cheat, br#"{"player": 2, "kind": "revoke"}"#);
    assert_eq!(status, 409);
    assert_eq!(over["status"], "over");
}

#[test]
fn the_game_room_holds_at_most_its_games_and_frees_an_idle_one() {
    let server = Server::start_with(&["--games", "1", "--game-idle-secs", "1"]);
    let body = r#"{"game": "ninety-nine", "backend": "ideal", "seed": 1}"#;
    let first = new_game(&server, body);
    let (status, doc) = server.call("POST", "/api/game/new", body.as_bytes());
    assert_eq!(status, 429, "{doc}");
    assert!(message(&doc).contains("its limit"), "{doc}");
    // Left alone past its idle limit, the first game is closed and its place freed.
    std::thread::sleep(Duration::from_millis(2500));
    let second = new_game(&server, body);
    assert_ne!(first["id"], second["id"]);
    let (status, doc) = server.call(
        "GET",
        &format!("/api/game/{}", first["id"].as_str().unwrap_or("")),
        b"",
    );
    assert_eq!(status, 404, "{doc}");
}

/// The `said` moves of a Golf round as the engine's moves, with each position read as a slot
/// of its mover's grid: the room's page sends slots. The grids, the stock and the discard pile
/// are followed as the session lays them out (grid `p` at positions `9p ..`, the first discard
/// after the grids, the stock after it).
fn golf_moves(round: &Value, players: usize) -> Vec<(u64, Value)> {
    let mut grids: Vec<Vec<u64>> = (0..players as u64)
        .map(|p| (9 * p..9 * p + 9).collect())
        .collect();
    let (mut stock, mut pile, mut holding) = (9 * players as u64 + 1, vec![9 * players as u64], 0);
    let mut moves = Vec::new();
    for entry in round["said"].as_array().expect("the said moves") {
        let by = entry["by"].as_u64().expect("a player");
        let grid = &mut grids[by as usize - 1];
        let slot = |grid: &[u64], p: &Value| {
            let p = p.as_u64().expect("a position");
            grid.iter().position(|&q| q == p).expect("in his grid") as u64
        };
        let said = &entry["move"];
        let mv = match said.as_str() {
            Some("draw_stock") => {
                (holding, stock) = (stock, stock + 1);
                said.clone()
            }
            Some("take_discard") => {
                holding = pile.pop().expect("a discard");
                said.clone()
            }
            Some("discard") => {
                pile.push(holding);
                said.clone()
            }
            Some(_) => said.clone(),
            None if said.get("turn_up").is_some() => {
                let ps = said["turn_up"].as_array().expect("three");
                serde_json::json!({ "turn_up": ps.iter().map(|p| slot(grid, p)).collect::<Vec<_>>() })
            }
            None if said.get("arrange").is_some() => {
                let (from, to) = (
                    slot(grid, &said["arrange"]["from"]),
                    slot(grid, &said["arrange"]["to"]),
                );
                grid.swap(from as usize, to as usize);
                serde_json::json!({ "arrange": { "from": from, "to": to } })
            }
            None => {
                let k = slot(grid, &said["replace"]);
                pile.push(grid[k as usize]);
                grid[k as usize] = holding;
                serde_json::json!({ "replace": k })
            }
        };
        moves.push((by, mv));
    }
    moves
}

/// Player 1's moves of a Девятка deal as the page sends them: each position read in the hands
/// the end-of-deal audit opened.
fn devyatka_moves(deal: &Value) -> Vec<Value> {
    let deck: Vec<&Value> = deal["setup"]["hands"]
        .as_array()
        .expect("the audited hands")
        .iter()
        .flat_map(|h| h.as_array().expect("a hand"))
        .collect();
    deal["said"]
        .as_array()
        .expect("the said moves")
        .iter()
        .filter(|e| e["by"] == 1)
        .map(|e| match &e["move"]["play"] {
            Value::Null => e["move"].clone(),
            p => serde_json::json!({ "play": deck[p.as_u64().expect("a position") as usize] }),
        })
        .collect()
}

/// Plays `script` for the student (each move checked to be among the room's legal ones) and
/// returns the final state.
fn play_script(server: &Server, doc: Value, script: Vec<Value>) -> Value {
    let mut script = script.into_iter();
    let over = play_out(server, doc, |state| {
        let mv = script.next().expect("the CLI's player 1 moved as often");
        assert!(
            state["legal"].as_array().expect("legal").contains(&mv),
            "{mv} is legal in the room as in the CLI: {}",
            state["legal"]
        );
        mv
    });
    assert!(
        script.next().is_none(),
        "every move of the CLI's player 1 made"
    );
    over
}

/// Every player's report in the room equals the CLI's, field by field, at `path` in each.
fn assert_same_reports(room: &Value, cli: &Value, path: &[&str], fields: &[&str]) {
    let views = |doc: &Value| doc["views"].as_array().expect("views").clone();
    let (room, cli) = (views(room), views(cli));
    assert_eq!(room.len(), cli.len(), "one report per player");
    for (j, (r, c)) in room.iter().zip(&cli).enumerate() {
        let at = |v: &Value| path.iter().fold(v.clone(), |v, k| v[*k].clone());
        let (r, c) = (at(r), at(c));
        for field in fields {
            assert_eq!(r[field], c[field], "player {}: {field}", j + 1);
        }
    }
}

#[test]
fn a_golf_round_played_through_http_is_the_round_play_local_plays_with_the_same_seed() {
    let cli = cli("play-local --game golf --players 3 --backend poker --deals 1 --seed 5");
    let round = &cli["views"][0]["game"]["rounds"][0];
    let script: Vec<Value> = golf_moves(round, 3)
        .into_iter()
        .filter(|(by, _)| *by == 1)
        .map(|(_, mv)| mv)
        .collect();
    let server = Server::start();
    let doc = new_game(
        &server,
        r#"{"game": "golf", "backend": "poker", "players": 3, "seed": 5, "deals": 1}"#,
    );
    let grid = doc["view"]["grids"][0]
        .as_array()
        .expect("the student's grid");
    assert_eq!(grid.len(), 9);
    assert!(
        grid.iter().all(Value::is_null),
        "nobody, the student included, has seen a grid card: {grid:?}"
    );
    let over = play_script(&server, doc, script);
    let result = &over["result"];
    assert_eq!(
        (&result["agreed"], &result["offender"]),
        (&Value::Bool(true), &Value::Null)
    );
    assert_eq!(result["rounds"], 1);
    assert_eq!(result["scores"][0], round["outcome"]["scores"]);
    assert_same_reports(
        result,
        &cli,
        &["game", "rounds", "0"],
        &["setup", "said", "outcome", "verdict", "announcements"],
    );
    assert!(over["log"]["by_kind"]["Shuffle"]["messages"].as_u64() > Some(0));
}

#[test]
fn a_devyatka_deal_played_through_http_is_the_deal_play_local_plays_with_the_same_seed() {
    let cli = cli("play-local --game devyatka --players 3 --backend poker --seed 5");
    let script = devyatka_moves(&cli["views"][0]["game"]);
    let server = Server::start();
    let doc = new_game(
        &server,
        r#"{"game": "devyatka", "backend": "poker", "players": 3, "seed": 5}"#,
    );
    assert_eq!(doc["view"]["hand"].as_array().map(Vec::len), Some(12));
    let over = play_script(&server, doc, script);
    let result = &over["result"];
    assert_eq!(
        (&result["agreed"], &result["offender"]),
        (&Value::Bool(true), &Value::Null)
    );
    assert_eq!(
        result["winner"],
        cli["views"][0]["game"]["outcome"]["winner"]
    );
    assert_same_reports(
        result,
        &cli,
        &["game"],
        &["setup", "said", "outcome", "verdict", "announcements"],
    );
    assert!(over["cost"]["messages"].as_u64() >= result["cost"]["messages"].as_u64());
}

/// The student's move: the first legal one among `preferred`, else the first legal one.
fn preferring(preferred: &'static [&'static str]) -> impl FnMut(&Value) -> Value {
    move |state| {
        let legal = state["legal"].as_array().expect("legal");
        preferred
            .iter()
            .find_map(|p| legal.iter().find(|m| m.as_str() == Some(p)))
            .unwrap_or(&legal[0])
            .clone()
    }
}

#[test]
fn every_golf_and_devyatka_cheat_pressed_in_the_room_is_caught_and_only_the_cheater_named() {
    let server = Server::start();
    for (game, players, cheater, kind) in [
        ("golf", 3, 3, "peek"),
        ("golf", 3, 2, "not-his"),
        ("golf", 2, 1, "discard-taken"),
        ("devyatka", 2, 1, "not-in-hand"),
        ("devyatka", 3, 2, "not-playable"),
        ("devyatka", 4, 3, "false-pass"),
    ] {
        let doc = new_game(
            &server,
            &format!(
                r#"{{"game": "{game}", "backend": "ideal", "players": {players}, "seed": 2}}"#
            ),
        );
        let id = doc["id"].as_str().expect("id");
        let body = format!(r#"{{"player": {cheater}, "kind": "{kind}"}}"#);
        let (status, armed) =
            server.call("POST", &format!("/api/game/{id}/cheat"), body.as_bytes());
        assert_eq!(status, 200, "{armed}");
        assert_eq!(armed["cheats"][0]["kind"], kind);
        let over = play_out(&server, armed, preferring(&["take_discard"]));
        let result = &over["result"];
        assert_eq!(result["agreed"], true, "{kind}: {result}");
        assert_eq!(result["offender"], cheater, "{kind}: {result}");
        let views = result["views"].as_array().expect("every player's view");
        assert_eq!(views.len(), players, "{kind}: every player reports");
        for view in views {
            let verdict = &view["game"]["verdict"];
            assert_eq!(
                verdict["offender"], cheater,
                "{kind}: no honest player named"
            );
            assert!(verdict["reason"].as_str().is_some_and(|r| !r.is_empty()));
        }
    }
}

#[test]
fn a_whole_golf_game_of_nine_rounds_in_the_room_names_nobody_and_totals_its_rounds() {
    let server = Server::start();
    let doc = new_game(
        &server,
        r#"{"game": "golf", "backend": "ideal", "seed": 8}"#,
    );
    assert_eq!(doc["parameters"]["rules"]["golf"]["rounds"], 9);
    let over = play_out(&server, doc, first_legal);
    let result = &over["result"];
    assert_eq!(
        (&result["agreed"], &result["offender"]),
        (&Value::Bool(true), &Value::Null)
    );
    assert_eq!(result["rounds"], 9);
    let scores = result["scores"].as_array().expect("each round's scores");
    for (p, total) in result["totals"]
        .as_array()
        .expect("totals")
        .iter()
        .enumerate()
    {
        let sum: i64 = scores.iter().map(|s| s[p].as_i64().expect("a score")).sum();
        assert_eq!(total.as_i64(), Some(sum), "player {}'s total", p + 1);
    }
}

#[test]
fn the_game_room_offers_every_game_with_its_cheats_and_refuses_a_wrong_move_of_each() {
    let server = Server::start();
    let offers = get(&server, "/api/game/offers");
    let names: Vec<&str> = offers["games"]
        .as_array()
        .expect("games")
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert_eq!(names, ["ninety-nine", "golf", "devyatka"]);
    assert_eq!(
        offers["games"][1]["cheats"],
        serde_json::json!(["peek", "not-his", "discard-taken"])
    );
    assert_eq!(
        offers["games"][2]["cheats"],
        serde_json::json!(["false-pass", "not-in-hand", "not-playable"])
    );
    for game in offers["games"].as_array().expect("games") {
        for b in game["backends"].as_array().expect("backends") {
            if b["name"] != "dealer" {
                assert_eq!(b["refused"], Value::Null, "{game}");
            }
        }
    }
    for (body, bad, wrong) in [
        (
            r#"{"game": "golf", "backend": "ideal", "seed": 1}"#,
            r#"{"move": {"replace": 0}}"#,
            r#"{"player": 1, "kind": "revoke"}"#,
        ),
        (
            r#"{"game": "devyatka", "backend": "ideal", "seed": 1}"#,
            r#"{"move": {"play": "2S"}}"#,
            r#"{"player": 1, "kind": "peek"}"#,
        ),
    ] {
        let doc = new_game(&server, body);
        let id = doc["id"].as_str().expect("id");
        let (status, refused) =
            server.call("POST", &format!("/api/game/{id}/move"), bad.as_bytes());
        assert_eq!(status, 422, "{body} {bad}: {refused}");
        assert!(message(&refused).contains("not a legal move"), "{refused}");
        let (status, refused) = server.call(
            "POST",
            &format!("/api/game/{id}/move"),
            br#"{"move": "fly"}"#,
        );
        assert_eq!(status, 400, "{refused}");
        let (status, refused) =
            server.call("POST", &format!("/api/game/{id}/cheat"), wrong.as_bytes());
        assert_eq!(status, 400, "{refused}");
        assert!(message(&refused).contains("has no cheat"), "{refused}");
        let (status, refused) = server.call(
            "POST",
            &format!("/api/game/{id}/cheat"),
            br#"{"player": 5, "kind": "peek"}"#,
        );
        assert_eq!(status, 400, "{refused}");
        assert!(message(&refused).contains("no player 5"), "{refused}");
    }
}
