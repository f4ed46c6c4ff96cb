//! The game room: a student plays a whole game of Ninety-Nine, Golf or Девятка against bots on
//! a chosen table, through HTTP.
//!
//! Each game is the CLI's game ([`facedown::table_game::play_threads_with`],
//! [`facedown::table_golf_devyatka::play_threads_with`]): every player is his own session state
//! machine on his own thread, over his own view of the ideal table or his own engine of a
//! backend on an in-memory network. The student's seat hands the view and the legal moves his
//! session computed to the page and waits for the page's answer; the other seats are the
//! CLI's bots. No part of the room sees a secret the student's session does not see, except
//! the ideal table's own hub. What differs between the games is one [`games::Offer`] each.
//!
//! A game lives on a desk (`desk.rs`) the HTTP calls and the seats share: the question put to
//! the student, his answer, the cheats pressed, the log of the messages sent, and at the end
//! every player's report. The room holds at most [`Limits::games`] desks and closes a game
//! left alone for [`Limits::idle`]: a closed game's channels refuse every frame (the networked
//! players stop at once) and its student's seat is played by the bot (the ideal table's game
//! ends within moments).

mod desk;
pub mod games;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use facedown::core::PartyId;
use rand::RngCore;
use serde::Deserialize;
use serde_json::{json, Value};

use super::http::{Call, Refusal};
use crate::cli::output::Doc;
use desk::{Desk, Pressed, LOG_KEPT};
use games::json_body;

/// The student's seat.
pub const STUDENT: PartyId = PartyId(1);
/// Longest a call waits for the bots before it answers "waiting" (the page asks again).
const CALL_WAIT: Duration = Duration::from_secs(20);

/// How many games the room holds and how long one may sit idle.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Live games at most; a new one beyond is refused with 429.
    pub games: usize,
    /// A game nobody has asked about for this long is closed.
    pub idle: Duration,
}

/// The live games.
pub struct GameRoom {
    limits: Limits,
    games: Mutex<BTreeMap<String, Arc<Desk>>>,
}

impl GameRoom {
    /// An empty room.
    pub fn new(limits: Limits) -> GameRoom {
        GameRoom {
            limits,
            games: Mutex::new(BTreeMap::new()),
        }
    }

    fn games(&self) -> MutexGuard<'_, BTreeMap<String, Arc<Desk>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Closes and forgets every game left idle.
    fn sweep(&self) {
        self.games().retain(|_, desk| {
            let keep = !desk.expired();
            if !keep {
                desk.close();
            }
            keep
        });
    }

    /// Answers a call under `/api/game/`: `rest` is the path after it.
    pub fn route(&self, call: &Call, rest: &str) -> Result<Value, Refusal> {
        self.sweep();
        let post = call.method == tiny_http::Method::Post;
        let (id, action) = rest.split_once('/').unwrap_or((rest, ""));
        match (id, action, post) {
            ("new", "", true) => self.start(call),
            ("new", "", false) => Err(Refusal::new(405, "a game is started with POST")),
            ("offers", "", false) => Doc::new("serve game-offers")
                .build(&games::offers())
                .map_err(|e| Refusal::new(500, format!("cannot write the answer: {e}"))),
            (_, "", false) => state(id, &*self.desk(id)?),
            (_, "move", true) => self.play(call, id),
            (_, "cheat", true) => self.cheat(call, id),
            (_, "move" | "cheat", false) => Err(Refusal::new(
                405,
                format!("/api/game/ID/{action} takes POST with a JSON body"),
            )),
            _ => Err(Refusal::new(404, format!("no game endpoint {}", call.path))),
        }
    }

    fn desk(&self, id: &str) -> Result<Arc<Desk>, Refusal> {
        let desk = self.games().get(id).cloned().ok_or_else(|| {
            Refusal::new(
                404,
                format!("no game `{id}` (it may have ended after sitting idle)"),
            )
        })?;
        desk.board().touched = Some(Instant::now());
        Ok(desk)
    }

    fn start(&self, call: &Call) -> Result<Value, Refusal> {
        let offer = games::offer(&call.body)?;
        let mut games = self.games();
        if games.len() >= self.limits.games {
            return Err(Refusal::new(
                429,
                format!(
                    "the room already holds {} games, its limit; a game left alone for {} s \
                     ends and frees its place",
                    games.len(),
                    self.limits.idle.as_secs()
                ),
            ));
        }
        let desk = Arc::new(Desk::new(offer, self.limits.idle));
        let id = fresh_id();
        games.insert(id.clone(), Arc::clone(&desk));
        drop(games);
        seat_players(&desk)?;
        drop(desk.wait_until(CALL_WAIT, |b| b.asked.is_some() || b.result.is_some()));
        state(&id, &desk)
    }

    fn play(&self, call: &Call, id: &str) -> Result<Value, Refusal> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Body {
            #[serde(rename = "move")]
            mv: Value,
            /// The state's `moves` the move answers: a move sent again (or late) for an
            /// earlier question is refused rather than played at the next one.
            #[serde(default)]
            moves: Option<usize>,
        }
        let desk = self.desk(id)?;
        let body: Body = json_body(&call.body)?;
        let mut b = desk.board();
        let moves = b.moves;
        let asked = match (&b.result, &b.asked) {
            (Some(_), _) => return Err(Refusal::new(409, "the game is over")),
            (None, None) => {
                return Err(Refusal::new(
                    409,
                    "it is not your move: the other players are playing (ask again)",
                ))
            }
            (None, Some(asked)) => asked,
        };
        if let Some(sent) = body.moves.filter(|&n| n != moves) {
            return Err(Refusal::new(
                409,
                format!("this move answers the question after {sent} moves; {moves} are made"),
            ));
        }
        let index = desk.offer.legal_index(body.mv, asked)?;
        b.answer = Some(index);
        b.asked = None;
        drop(b);
        desk.changed.notify_all();
        drop(desk.wait_until(CALL_WAIT, |b| {
            b.result.is_some() || (b.moves > moves && b.asked.is_some())
        }));
        state(id, &desk)
    }

    fn cheat(&self, call: &Call, id: &str) -> Result<Value, Refusal> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Body {
            player: u16,
            kind: String,
        }
        let desk = self.desk(id)?;
        let body: Body = json_body(&call.body)?;
        let players = desk.offer.players();
        if body.player == 0 || usize::from(body.player) > players {
            return Err(Refusal::bad(format!(
                "there is no player {} at a table of {players}",
                body.player
            )));
        }
        let names = desk.offer.cheat_names();
        let kind = names
            .iter()
            .copied()
            .find(|n| *n == body.kind)
            .ok_or_else(|| {
                Refusal::bad(format!(
                    "{} has no cheat `{}` (one of {})",
                    desk.offer.name(),
                    body.kind,
                    names.join(", ")
                ))
            })?;
        let mut b = desk.board();
        if b.result.is_some() {
            return Err(Refusal::new(409, "the game is over"));
        }
        let player = PartyId(body.player);
        // A press not yet tried is replaced, with its entry: the presses kept are at most
        // the cheats tried and one per player, however often the button is pressed.
        if let Some(i) = b.armed.iter().position(|(p, _)| *p == player) {
            b.armed.remove(i);
            if let Some(j) = b.pressed.iter().rposition(|p| p.player == player) {
                b.pressed.remove(j);
            }
        }
        b.armed.push((player, kind));
        let after_moves = b.moves;
        b.pressed.push(Pressed {
            player,
            kind,
            after_moves,
        });
        drop(b);
        state(id, &desk)
    }
}

/// Starts every player of the desk's game on its own thread (and one that collects them).
fn seat_players(desk: &Arc<Desk>) -> Result<(), Refusal> {
    let desk = Arc::clone(desk);
    std::thread::Builder::new()
        .name("game-room".into())
        .spawn(move || {
            // Every wait of a seat lasts at most the idle limit: the student may think that long.
            let reports = desk.offer.play(&desk, desk.idle);
            desk.finish(reports);
        })
        .map(drop)
        .map_err(|e| Refusal::new(503, format!("cannot start the game: {e}")))
}

fn fresh_id() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `GET /api/game/ID`: what the student may see — his session's view, his legal moves when it
/// is his turn, the cheats pressed, the message log with sizes and the cost so far, and at the
/// end every player's report and verdict.
fn state(id: &str, desk: &Desk) -> Result<Value, Refusal> {
    let offer = &*desk.offer;
    let b = desk.board();
    let status = match (&b.result, &b.asked, b.closed) {
        (Some(_), ..) => "over",
        (None, Some(_), _) => "your-move",
        (None, None, true) => "closed",
        (None, None, false) => "waiting",
    };
    let view = b.asked.as_ref().map(|a| &a.view).or(b.shown.as_ref());
    let (legal, legal_text) = b
        .asked
        .as_ref()
        .map_or((&[][..], &[][..]), |a| (&a.legal[..], &a.legal_text[..]));
    let pressed: Vec<Value> = b
        .pressed
        .iter()
        .map(|p| json!({ "player": p.player.0, "kind": p.kind, "after_moves": p.after_moves }))
        .collect();
    let by_kind: BTreeMap<&str, Value> = b
        .by_kind
        .iter()
        .map(|(k, (n, bytes))| (*k, json!({ "messages": n, "bytes": bytes })))
        .collect();
    let body = json!({
        "id": id,
        "game": offer.name(),
        "backend": offer.backend().name(),
        "players": offer.players(),
        "player": STUDENT.0,
        "status": status,
        "moves": b.moves,
        "view": view,
        "legal": legal,
        "legal_text": legal_text,
        "cheat_kinds": offer.cheat_names(),
        "cheats": pressed,
        "log": {
            "recent": b.log,
            "by_kind": by_kind,
            "kept": LOG_KEPT,
        },
        "cost": { "messages": b.messages, "bytes": b.bytes, "rounds": b.rounds },
        "result": b.result,
    });
    Doc::new("serve game")
        .seed(offer.seed())
        .parameters(offer.parameters())
        .build(&body)
        .map_err(|e| Refusal::new(500, format!("cannot write the answer: {e}")))
}
