//! `facedown serve` against a hostile client: a stranger on the network, a page of another
//! site, a player who forges, replays or floods his calls. Each test makes one attack and
//! checks the typed refusal (status and message), and that the server still answers an honest
//! call afterwards. No test measures time: timeouts only keep a failing test from hanging.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

/// A running server, stopped when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(flags: &[&str]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_facedown"));
        command.args(["serve", "--port", "0", "--json"]).args(flags);
        Server::spawn(command)
    }

    /// The server started by `sh -c` after `ulimit -n files`: a process short of descriptors.
    fn start_with_files(files: u32, flags: &str) -> Server {
        let line = format!(
            "ulimit -n {files} && exec '{}' serve --port 0 --json {flags}",
            env!("CARGO_BIN_EXE_facedown")
        );
        let mut command = Command::new("sh");
        command.args(["-c", &line]);
        Server::spawn(command)
    }

    fn spawn(mut command: Command) -> Server {
        let mut child = command
            .stdout(Stdio::piped())
            .spawn()
            .expect("facedown serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the address line");
        let doc: Value = serde_json::from_str(&line).expect("one JSON line");
        let url = doc["url"].as_str().expect("url");
        let addr = url.trim_start_matches("http://").trim_end_matches('/');
        Server {
            child,
            addr: addr.to_owned(),
        }
    }

    /// A connection that has sent `bytes` and is kept open.
    fn open(&self, bytes: &[u8]) -> TcpStream {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60))).ok();
        let _ = s.write_all(bytes);
        s
    }

    /// Sends raw request bytes; the status (`None` when no answer came) and the body.
    fn raw(&self, request: &[u8]) -> (Option<u16>, String) {
        answer_of(self.open(request))
    }

    fn call(&self, method: &str, target: &str, body: &[u8]) -> (u16, Value) {
        self.call_with(method, target, "", body)
    }

    /// A call with extra header lines (`extra` ends each with `\r\n`).
    fn call_with(&self, method: &str, target: &str, extra: &str, body: &[u8]) -> (u16, Value) {
        let mut request = format!(
            "{method} {target} HTTP/1.1\r\nHost: {}\r\n{extra}Content-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        let (status, text) = self.raw(&request);
        let status = status.unwrap_or_else(|| panic!("no answer to {method} {target}"));
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// The server still answers an honest call.
    fn assert_up(&self) {
        let (status, doc) = self.call("GET", "/api/protocols", b"");
        assert_eq!(status, 200, "{doc}");
        assert_eq!(doc["schema"], "facedown/cards-list/1");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Everything the server sends on `s` until it closes: the status and the body.
fn answer_of(mut s: TcpStream) -> (Option<u16>, String) {
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok());
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_owned());
    (status, body)
}

fn message(doc: &Value) -> &str {
    doc["error"]["message"].as_str().unwrap_or_default()
}

fn parsed(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or(Value::Null)
}

#[test]
fn a_body_announced_huge_is_refused_and_the_server_lives_on() {
    let server = Server::start(&[]);
    // tiny_http alone allocated the announced length when the refused request was dropped:
    // the process aborted on one line.
    for length in ["100000000000000", "18446744073709551615"] {
        let (status, body) = server.raw(
            format!(
                "POST /api/analyze HTTP/1.1\r\nHost: localhost\r\nContent-Length: {length}\r\n\r\n"
            )
            .as_bytes(),
        );
        assert_eq!(status, Some(413), "{length}: {body}");
        assert!(
            message(&parsed(&body)).contains("larger than 65536"),
            "{body}"
        );
        server.assert_up();
    }
    for (length, text) in [
        ("5\r\nContent-Length: 6", "disagree"),
        ("five", "not a length"),
    ] {
        let (status, doc) = server.call_with(
            "POST",
            "/api/analyze",
            &format!("Content-Length: {length}\r\n"),
            b"",
        );
        assert_eq!(status, 400, "{doc}");
        assert!(message(&doc).contains(text), "{doc}");
    }
    server.assert_up();
}

/// The door's own refusals carry the headers of every other answer: a browser that opens one
/// reads JSON, sniffs nothing, runs nothing and keeps no copy.
#[test]
fn the_doors_refusals_are_answered_with_the_servers_security_headers() {
    let server = Server::start(&[]);
    let mut answer = String::new();
    let _ = server
        .open(b"POST /api/analyze HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000000000000\r\n\r\n")
        .read_to_string(&mut answer);
    let head = answer.split_once("\r\n\r\n").map_or("", |(h, _)| h);
    assert!(head.starts_with("HTTP/1.1 413"), "{answer}");
    for header in [
        "Content-Type: application/json",
        "X-Content-Type-Options: nosniff",
        "Content-Security-Policy: default-src 'none'",
        "Cache-Control: no-store",
    ] {
        assert!(
            head.lines().any(|l| l == header),
            "{header} missing: {head}"
        );
    }
}

#[test]
fn an_endless_head_is_cut_at_its_cap() {
    let server = Server::start(&[]);
    // A header line without end (tiny_http alone kept every byte of it), then many short
    // header lines: both are refused once the head passes 8 KiB.
    let mut line = b"GET / HTTP/1.1\r\nX-Long: ".to_vec();
    line.extend(std::iter::repeat_n(b'a', 20_000));
    let mut many = b"GET / HTTP/1.1\r\n".to_vec();
    for i in 0..2_000 {
        many.extend(format!("X-{i}: 1\r\n").as_bytes());
    }
    for request in [line, many] {
        let (status, body) = server.raw(&request);
        assert_eq!(status, Some(431), "{body}");
        assert!(
            message(&parsed(&body)).contains("longer than 8192"),
            "{body}"
        );
    }
    server.assert_up();
}

#[test]
fn slow_clients_hold_no_worker_and_are_let_go_with_408() {
    let server = Server::start(&["--workers", "1", "--read-secs", "3"]);
    // Each of these held the only worker until its client closed: a body announced and
    // trickled, a head never finished, and an upgrade that made the worker read the socket
    // itself.
    let body = server.open(
        b"POST /api/analyze HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2000\r\n\r\nprotocol",
    );
    let head = server.open(b"GET /api/protocols HTTP/1.1\r\nHost: localhost\r\nX-Slow: ");
    let upgrade = server
        .open(b"GET /api/protocols HTTP/1.1\r\nHost: localhost\r\nConnection: upgrade\r\n\r\n");
    server.assert_up();
    let (status, answer) = answer_of(upgrade);
    assert_eq!(
        status,
        Some(200),
        "the upgrade is read as one plain request"
    );
    assert!(answer.contains("facedown/cards-list/1"));
    for slow in [body, head] {
        let (status, answer) = answer_of(slow);
        assert_eq!(status, Some(408), "{answer}");
        assert!(
            message(&parsed(&answer)).contains("not sent in time"),
            "{answer}"
        );
    }
    server.assert_up();
}

#[test]
fn connections_beyond_the_limit_are_turned_away_and_the_server_recovers() {
    // 150 idle connections to a process allowed 128 descriptors: tiny_http alone stopped
    // accepting for good at its first failed accept.
    let server = Server::start_with_files(128, "--connections 16");
    let idle: Vec<TcpStream> = (0..150).map(|_| server.open(b"")).collect();
    let (status, body) = answer_of(idle.last().expect("one").try_clone().expect("clone"));
    assert_eq!(status, Some(503), "{body}");
    assert!(
        message(&parsed(&body)).contains("16 connections, its limit"),
        "{body}"
    );
    drop(idle);
    // The door's places come back as their clients go: an honest call is served again.
    let served = (0..50).any(|_| {
        let (status, _) = server.raw(b"GET /api/protocols HTTP/1.1\r\nHost: localhost\r\n\r\n");
        std::thread::sleep(Duration::from_millis(100));
        status == Some(200)
    });
    assert!(
        served,
        "the server answers again once the idle clients are gone"
    );
}

#[test]
fn a_connection_carries_one_request_and_its_framing_is_not_disputed() {
    let server = Server::start(&[]);
    // A request smuggled behind another is not served; `Transfer-Encoding` wins over
    // `Content-Length`, as the inner server is told.
    let (status, answer) = server.raw(
        b"POST /api/analyze?protocol=five-card-trick HTTP/1.1\r\nHost: localhost\r\n\
          Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n\
          GET /api/protocols HTTP/1.1\r\nHost: localhost\r\n\r\n",
    );
    assert_eq!(status, Some(200), "{answer}");
    assert_eq!(parsed(&answer)["security"], "perfect");
    for (framing, body, want, text) in [
        ("Transfer-Encoding: gzip", "", 501, "only `chunked`"),
        (
            "Transfer-Encoding: chunked",
            "zz\r\n",
            400,
            "not a chunk size",
        ),
        (
            "Transfer-Encoding: chunked",
            "2\r\nabc\r\n0\r\n\r\n",
            400,
            "longer than its size",
        ),
    ] {
        let (status, answer) = server.raw(
            format!("POST /api/analyze HTTP/1.1\r\nHost: localhost\r\n{framing}\r\n\r\n{body}")
                .as_bytes(),
        );
        assert_eq!(status, Some(want), "{framing} {body:?}: {answer}");
        assert!(message(&parsed(&answer)).contains(text), "{answer}");
    }
    server.assert_up();
}

#[test]
fn a_page_of_another_site_may_not_call_the_server() {
    let server = Server::start(&[]);
    let body = br#"{"game": "ninety-nine", "backend": "ideal", "seed": 1}"#;
    for origin in ["http://evil.example", "null", "http://127.0.0.1:1"] {
        let (status, doc) = server.call_with(
            "POST",
            "/api/game/new",
            &format!("Origin: {origin}\r\n"),
            body,
        );
        assert_eq!(status, 403, "{origin}: {doc}");
        assert!(message(&doc).contains("only its own pages"), "{doc}");
    }
    // The server's own page sends its own origin.
    let own = format!("Origin: http://{}\r\n", server.addr);
    let (status, doc) = server.call_with("POST", "/api/game/new", &own, body);
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["status"], "your-move");
}

/// The loopback ports `pid` listens on (Linux: its socket inodes matched in `/proc/net/tcp`).
fn listening_ports(pid: u32) -> Vec<u16> {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("the server's descriptors")
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|target| {
            let t = target.to_string_lossy().into_owned();
            Some(t.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .collect();
    let table = std::fs::read_to_string("/proc/net/tcp").expect("/proc/net/tcp");
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (local, state, inode) = (f.get(1)?, f.get(3)?, f.get(9)?);
            let listening = *state == "0A" && inodes.iter().any(|i| i == inode);
            let port = u16::from_str_radix(local.rsplit_once(':')?.1, 16).ok()?;
            listening.then_some(port)
        })
        .collect()
}

/// `tiny_http` listens on a loopback port of its own behind the door; a process of the machine
/// that finds it is refused there, since only the door's requests carry its pass.
#[test]
fn a_request_that_skips_the_door_is_refused_by_the_inner_server() {
    let server = Server::start(&[]);
    let public: u16 = server
        .addr
        .rsplit_once(':')
        .expect("port")
        .1
        .parse()
        .expect("port");
    let inner: Vec<u16> = listening_ports(server.child.id())
        .into_iter()
        .filter(|p| *p != public)
        .collect();
    assert_eq!(inner.len(), 1, "one inner port besides {public}: {inner:?}");
    let mut s = TcpStream::connect(("127.0.0.1", inner[0])).expect("the inner port");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let request = "GET /api/protocols HTTP/1.1\r\nHost: localhost\r\nX-Facedown-Door: 00\r\n\
                   Connection: close\r\n\r\n";
    s.write_all(request.as_bytes()).expect("sent");
    let (status, body) = answer_of(s);
    assert_eq!(status, Some(403), "{body}");
    assert!(
        message(&parsed(&body)).contains("the address it printed"),
        "{body}"
    );
    let (status, _) = server.raw(b"GET /api/protocols HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assert_eq!(status, Some(200), "the door's requests pass");
    // A client's own pass header is dropped at the door, so a guess neither passes nor
    // spoils the door's.
    let (status, body) = server
        .raw(b"GET /api/protocols HTTP/1.1\r\nHost: localhost\r\nX-Facedown-Door: 00\r\n\r\n");
    assert_eq!(status, Some(200), "{body}");
}

/// DNS rebinding: another site's page that resolved its own name to this server calls it with
/// `Host` and `Origin` of that name, which agree, so the origin check alone let it in.
#[test]
fn a_call_naming_another_host_is_refused_unless_the_name_is_allowed() {
    let server = Server::start(&["--allow-host", "teacher.local"]);
    let call = |host: &str| {
        server.raw(
            format!(
                "POST /api/game/new HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n\
                 Content-Length: 2\r\n\r\n{{}}"
            )
            .as_bytes(),
        )
    };
    for host in [
        "evil.example:8080",
        "evil.example",
        "localhost.evil.example",
        "127.0.0.1.evil.example",
        ":8080",
    ] {
        let (status, body) = call(host);
        assert_eq!(status, Some(403), "{host}: {body}");
        assert!(message(&parsed(&body)).contains("--allow-host"), "{body}");
    }
    for host in [
        "teacher.local:8080",
        "Teacher.Local",
        "localhost:8080",
        "LocalHost",
        "[::1]:8080",
        "10.0.0.7",
        server.addr.as_str(),
    ] {
        let (status, body) = call(host);
        assert_ne!(status, Some(403), "{host}: {body}");
    }
    server.assert_up();
}

#[test]
fn methods_other_than_get_head_and_post_are_refused() {
    let server = Server::start(&[]);
    // They were answered as a GET.
    for method in ["DELETE", "PUT", "OPTIONS", "PATCH"] {
        let (status, doc) = server.call(method, "/api/protocols", b"");
        assert_eq!(status, 405, "{method}: {doc}");
        assert!(message(&doc).contains("GET, HEAD or POST"), "{doc}");
    }
    let (status, _) = server.raw(b"HEAD /api/protocols HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assert_eq!(status, Some(200));
}

#[test]
fn no_path_reaches_past_the_compiled_in_pages() {
    let server = Server::start(&[]);
    for target in [
        "/../Cargo.toml",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/assets/style.css",
        "//style.css",
        "/style.css/..",
        "/src/cli/serve/assets/game.js",
        "/game.js%00.html",
        "/..%2fCargo.toml",
        "http://elsewhere/style.css",
    ] {
        let (status, doc) = server.call("GET", target, b"");
        assert_eq!(status, 404, "{target}: {doc}");
        assert!(message(&doc).contains("no page or endpoint"), "{doc}");
    }
}

fn new_game(server: &Server) -> Value {
    let body = br#"{"game": "ninety-nine", "backend": "ideal", "seed": 3}"#;
    let (status, doc) = server.call("POST", "/api/game/new", body);
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["status"], "your-move", "{doc}");
    doc
}

#[test]
fn forged_game_calls_are_refused_and_start_or_change_nothing() {
    let server = Server::start(&[]);
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    for body in [
        deep.clone(),
        r#"{"game": "golf", "game": "devyatka", "backend": "ideal"}"#.to_owned(),
        r#"{"game": "golf", "backend": "ideal", "seed": -1}"#.to_owned(),
        r#"{"game": "golf", "backend": "ideal", "players": 99999999999999999999}"#.to_owned(),
    ] {
        let (status, doc) = server.call("POST", "/api/game/new", body.as_bytes());
        assert_eq!(status, 400, "{doc}");
        assert!(message(&doc).contains("not the JSON"), "{doc}");
    }
    let doc = new_game(&server);
    let id = doc["id"].as_str().expect("id");
    assert_eq!(id.len(), 32, "128 random bits");
    assert_ne!(new_game(&server)["id"], doc["id"], "every game its own id");
    let legal = doc["legal"][0].clone();
    let mv = format!("/api/game/{id}/move");
    let cheat = format!("/api/game/{id}/cheat");
    for (target, body, want) in [
        // A move for another seat, a move nested without end, a player that is no u16.
        (&mv, json!({ "move": legal, "player": 2 }).to_string(), 400),
        (&mv, format!(r#"{{"move": {deep}}}"#), 400),
        (
            &cheat,
            r#"{"player": 65536, "kind": "revoke"}"#.to_owned(),
            400,
        ),
        (&cheat, r#"{"player": 0, "kind": "revoke"}"#.to_owned(), 400),
        (
            &cheat,
            r#"{"player": 2, "kind": "revoke", "kind": "dummy"}"#.to_owned(),
            400,
        ),
    ] {
        let (status, answer) = server.call("POST", target, body.as_bytes());
        assert_eq!(status, want, "{body:.80}: {answer}");
    }
    let (status, state) = server.call("GET", &format!("/api/game/{id}"), b"");
    assert_eq!(status, 200);
    assert_eq!(
        (state["moves"].clone(), state["cheats"].clone()),
        (json!(0), json!([]))
    );
    // A stranger who guesses an id finds no game.
    let guess: String = id.chars().rev().collect();
    let (status, _) = server.call("GET", &format!("/api/game/{guess}"), b"");
    assert_eq!(status, 404);
}

#[test]
fn a_cheat_pressed_without_end_keeps_one_press_per_player() {
    let server = Server::start(&[]);
    let doc = new_game(&server);
    let cheat = format!("/api/game/{}/cheat", doc["id"].as_str().expect("id"));
    // Every press was kept, and every state carried them all: the game grew without bound.
    let mut last = Value::Null;
    for kind in ["revoke", "dummy"].iter().cycle().take(300) {
        // The student's own cheat: his seat takes it only at his next move, which never comes.
        let body = json!({ "player": 1, "kind": kind }).to_string();
        let (status, state) = server.call("POST", &cheat, body.as_bytes());
        assert_eq!(status, 200, "{state}");
        last = state;
    }
    assert_eq!(
        last["cheats"],
        json!([{ "player": 1, "kind": "dummy", "after_moves": 0 }]),
        "the press not yet tried is replaced"
    );
}

#[test]
fn a_move_sent_twice_is_played_once() {
    let server = Server::start(&[]);
    let doc = new_game(&server);
    let id = doc["id"].as_str().expect("id").to_owned();
    let body = json!({ "move": doc["legal"][0], "moves": doc["moves"] }).to_string();
    let target = format!("/api/game/{id}/move");
    // The same move twice at once (a double click, a retried request): whichever comes
    // second finds the question answered, whatever the timing.
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let calls: Vec<_> = (0..2)
            .map(|_| s.spawn(|| server.call("POST", &target, body.as_bytes()).0))
            .collect();
        calls
            .into_iter()
            .map(|c| c.join().expect("a call"))
            .collect()
    });
    let mut sorted = statuses.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [200, 409], "{statuses:?}");
    let (status, again) = server.call("POST", &target, body.as_bytes());
    let (_, state) = server.call("GET", &format!("/api/game/{id}"), b"");
    assert_eq!(status, 409, "{again}");
    assert_eq!(state["moves"], 1, "one move played: {state}");
}
