//! `facedown serve`: the classroom in the browser.
//!
//! A small synchronous web server ([`tiny_http`]) with every page and asset compiled into the
//! binary, so a teacher runs one command and students open a page; the page fetches nothing
//! from elsewhere. Each room is a thin view over JSON endpoints that answer what the CLI
//! prints with `--json` ([`protocol_room`], [`deal_room`], [`game_room`]). The server binds to loopback unless told
//! otherwise, caps every body and parameter ([`http`]), and answers a bad request with a 4xx
//! and a message while it stays up.

mod assets;
pub mod deal_room;
mod door;
mod framing;
pub mod game_room;
mod gate;
pub mod http;
pub mod protocol_room;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;
use tiny_http::{Method, Server};

use super::output::Doc;
use game_room::GameRoom;
use gate::Gate;
use http::{read_call, Answer, Call, Refusal};

/// `facedown serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The TCP port (0 picks a free one; the address is printed on the first line).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on: loopback unless told otherwise (`0.0.0.0` for a room's
    /// network).
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Requests served at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub workers: u16,
    /// Games the game room holds at once (a new one beyond is refused with 429).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub games: u16,
    /// Connections served at once (each costs four file descriptors); one beyond is answered
    /// 503 at once.
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub connections: u16,
    /// Seconds a client has to send one whole request (and to take its answer) before it is
    /// answered 408 and let go.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub read_secs: u64,
    /// Seconds a game may sit without a call before the room closes it.
    #[arg(long, default_value_t = 900, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub game_idle_secs: u64,
    /// A name the server answers to besides its IP addresses and `localhost` (repeatable;
    /// students who open `http://NAME:PORT/` need it). A request naming any other host is
    /// refused 403: it may be another site's page that resolved its own name to this server.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Print the address as one line of JSON (for scripts that start the server).
    #[arg(long)]
    pub json: bool,
}

/// Runs the server until the process is stopped: clients reach the door (`door.rs`), which
/// hands each request, read whole, to `tiny_http` on a loopback port of its own.
pub fn run(args: Args) -> anyhow::Result<()> {
    let addr = SocketAddr::new(args.bind, args.port);
    let public = TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    let inner = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).context("cannot listen on loopback")?;
    let inner_addr = inner.local_addr()?;
    let server = Server::from_listener(inner, None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let bound = public.local_addr()?;
    announce(&args, &format!("http://{bound}/"))?;
    let server = Arc::new(server);
    let room = Arc::new(GameRoom::new(game_room::Limits {
        games: usize::from(args.games),
        idle: Duration::from_secs(args.game_idle_secs),
    }));
    let gate = Arc::new(Gate::new(&args.allow_host, &mut rand::rngs::OsRng));
    for _ in 0..args.workers {
        let (server, room, gate) = (Arc::clone(&server), Arc::clone(&room), Arc::clone(&gate));
        thread::spawn(move || serve_forever(&server, &room, &gate));
    }
    let limits = door::Door {
        connections: usize::from(args.connections),
        read: Duration::from_secs(args.read_secs),
        // One pass for the process's life, shared by every door thread.
        pass: Box::leak(gate.pass().into()),
    };
    door::open(&public, inner_addr, limits)
}

/// The first line on standard output: where the server listens.
fn announce(args: &Args, url: &str) -> anyhow::Result<()> {
    if args.json {
        let doc = Doc::new("serve")
            .parameters(serde_json::json!({
                "bind": args.bind.to_string(), "port": args.port, "workers": args.workers,
                "connections": args.connections, "read_secs": args.read_secs,
                "games": args.games, "game_idle_secs": args.game_idle_secs,
                "allow_host": args.allow_host,
            }))
            .build(&serde_json::json!({ "url": url }))?;
        println!("{doc}");
    } else {
        println!("facedown serve: {url}");
    }
    // The line must reach a script reading a pipe before the first request.
    std::io::Write::flush(&mut std::io::stdout())?;
    Ok(())
}

fn serve_forever(server: &Server, room: &GameRoom, gate: &Gate) {
    for mut request in server.incoming_requests() {
        let answer = match gate.check(&request).and_then(|()| read_call(&mut request)) {
            // A call that panics is answered 500 and the worker goes on.
            Ok(call) => std::panic::catch_unwind(AssertUnwindSafe(|| answer(&call, room)))
                .unwrap_or_else(|_| {
                    Answer::refusal(&Refusal::new(500, "the server failed on this call"))
                }),
            Err(refusal) => Answer::refusal(&refusal),
        };
        answer.send(request);
    }
}

/// The answer to one call: a page or asset, or an endpoint's JSON (a refusal as JSON too).
pub fn answer(call: &Call, room: &GameRoom) -> Answer {
    if !matches!(call.method, Method::Get | Method::Head | Method::Post) {
        let message = format!("{} is not served: GET, HEAD or POST", call.method);
        return Answer::refusal(&Refusal::new(405, message));
    }
    if let Some((content_type, body)) = assets::find(&call.path) {
        return match call.method {
            Method::Get | Method::Head => Answer::asset(content_type, body),
            _ => Answer::refusal(&Refusal::new(405, "pages are read with GET")),
        };
    }
    let answered = match call.path.strip_prefix("/api/game/") {
        Some(rest) => room.route(call, rest),
        None => endpoint(call),
    };
    match answered {
        Ok(doc) => Answer::json(&doc),
        Err(refusal) => Answer::refusal(&refusal),
    }
}

fn endpoint(call: &Call) -> Result<Value, Refusal> {
    let post = call.method == Method::Post;
    match (call.path.as_str(), post) {
        ("/api/protocols", false) => protocol_room::protocols(),
        ("/api/source", false) => protocol_room::source(call),
        ("/api/analyze", true) => protocol_room::analyze(call),
        ("/api/trace", true) => protocol_room::trace(call),
        ("/api/tree", true) => protocol_room::tree(call),
        ("/api/simulate", true) => protocol_room::simulate(call),
        ("/api/deal", false) => deal_room::deal(call),
        ("/api/collusion", false) => deal_room::collusion(call),
        ("/api/poker-deal", false) => deal_room::poker_deal(call),
        ("/api/analyze" | "/api/trace" | "/api/tree" | "/api/simulate", false) => {
            Err(Refusal::new(
                405,
                format!(
                    "{} takes POST with a .cards body, or POST ?protocol=NAME",
                    call.path
                ),
            ))
        }
        _ => Err(Refusal::new(
            404,
            format!("no page or endpoint {}", call.path),
        )),
    }
}
