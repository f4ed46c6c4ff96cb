//! The game room: a student plays a whole game against bots on a chosen table, through HTTP.
//!
//! Each game is the CLI's game ([`facedown::table_game::play_threads_with`]): every player is his
//! own session state machine on his own thread, over his own view of the ideal table or his own
//! engine of the encrypted deck on an in-memory network. The student's seat is a
//! [`Bot`] that hands the view and the legal moves his session computed to the page and waits
//! for the page's answer; the other seats are the heuristic bot. No part of the room sees a
//! secret the student's session does not see, except the ideal table's own hub.
//!
//! A game lives on a [`Desk`] the HTTP calls and the seats share: the question put to the
//! student, his answer, the cheats pressed, the log of the messages sent, and at the end every
//! player's report. The room holds at most [`Limits::games`] desks and closes a game left alone
//! for [`Limits::idle`]: a closed game's channels refuse every frame (the encrypted deck's
//! players stop at once) and its student's seat is played by the heuristic bot (the ideal
//! table's game ends within moments).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use facedown::core::PartyId;
use facedown::games::game::{Bot, Game};
use facedown::games::ninety_nine::{HeuristicBot, Length, NinetyNine, Variant};
use facedown::games::session::Cheat;
use facedown::net::wire::Wire;
use facedown::net::{Channel, Frame, Limits as WireLimits, MemoryChannel, NetError, WireStats};
use facedown::poker::messages::Message;
use facedown::table_game::{play_threads_with, GameBackend, GameError, GameSpec, SeatReport};
use rand::RngCore;
use serde::Deserialize;
use serde_json::{json, Value};

use super::deal_room::message_kind;
use super::http::{Call, Refusal};
use crate::cli::output::Doc;

type View = <NinetyNine as Game>::View;
type Move = <NinetyNine as Game>::Move;

/// The student's seat.
pub const STUDENT: PartyId = PartyId(1);
/// Most deals in one game of the room.
pub const MAX_DEALS: u32 = 8;
/// Messages kept in a game's log (older ones are counted, not kept).
const LOG_KEPT: usize = 400;
/// Longest a call waits for the bots before it answers "waiting" (the page asks again).
const CALL_WAIT: Duration = Duration::from_secs(20);
/// How often a waiting channel looks whether its game was closed.
const CLOSE_POLL: Duration = Duration::from_millis(200);

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

/// What a new game is: `POST /api/game/new`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    game: String,
    #[serde(default = "revised")]
    variant: String,
    backend: String,
    #[serde(default)]
    seed: u64,
    #[serde(default = "one")]
    deals: u32,
}

fn revised() -> String {
    "revised".into()
}

fn one() -> u32 {
    1
}

/// A game's fixed parameters.
#[derive(Clone, Debug)]
struct Table {
    variant: Variant,
    backend: GameBackend,
    seed: u64,
    deals: u32,
}

/// One cheat pressed: who, what, and how many of the student's moves had been made.
#[derive(Clone, Debug)]
struct Pressed {
    player: PartyId,
    kind: Cheat,
    after_moves: usize,
}

/// What the seats and the calls share about one game.
#[derive(Default)]
struct Board {
    closed: bool,
    touched: Option<Instant>,
    asked: Option<(View, Vec<Move>)>,
    answer: Option<Move>,
    shown: Option<View>,
    moves: usize,
    armed: Vec<(PartyId, Cheat)>,
    pressed: Vec<Pressed>,
    log: VecDeque<Value>,
    by_kind: BTreeMap<&'static str, (u64, u64)>,
    messages: u64,
    bytes: u64,
    rounds: u32,
    result: Option<Value>,
}

/// One game: its parameters, and the board its seats and calls share.
pub struct Desk {
    table: Table,
    idle: Duration,
    board: Mutex<Board>,
    changed: Condvar,
}

impl Desk {
    fn board(&self) -> MutexGuard<'_, Board> {
        // A seat that panicked leaves a board that is still consistent: every write is whole.
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn close(&self) {
        self.board().closed = true;
        self.changed.notify_all();
    }

    fn expired(&self) -> bool {
        let b = self.board();
        b.closed || b.touched.is_some_and(|t| t.elapsed() > self.idle)
    }

    /// Waits until `done` holds, or `limit` passes; returns the board either way.
    fn wait_until(&self, limit: Duration, done: impl Fn(&Board) -> bool) -> MutexGuard<'_, Board> {
        let deadline = Instant::now() + limit;
        let mut b = self.board();
        while !done(&b) && !b.closed {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            b = match self.changed.wait_timeout(b, left) {
                Ok((b, _)) => b,
                Err(e) => e.into_inner().0,
            };
        }
        b
    }

    /// The cheat armed for `player`, once.
    fn take_armed(&self, player: PartyId) -> Option<Cheat> {
        let mut b = self.board();
        let i = b.armed.iter().position(|(p, _)| *p == player)?;
        Some(b.armed.remove(i).1)
    }

    fn record_frame(&self, from: PartyId, to: PartyId, depth: u32, payload: &[u8]) {
        let kind = frame_kind(payload);
        let mut b = self.board();
        let bytes = payload.len() as u64;
        b.messages += 1;
        b.bytes += bytes;
        b.rounds = b.rounds.max(depth);
        let k = b.by_kind.entry(kind).or_default();
        (k.0, k.1) = (k.0 + 1, k.1 + bytes);
        if b.log.len() == LOG_KEPT {
            b.log.pop_front();
        }
        let n = b.messages;
        b.log.push_back(json!({
            "n": n, "kind": kind, "from": from.0, "to": to.0, "bytes": bytes, "depth": depth,
        }));
    }

    fn finish(&self, reports: Vec<Result<SeatReport, GameError>>) {
        let result = summary(&reports);
        let mut b = self.board();
        b.asked = None;
        b.result = Some(result);
        drop(b);
        self.changed.notify_all();
    }
}

/// A frame's kind as the log shows it: the encrypted deck's message kind, or the driver's own
/// frame (echo, bye, abort, waiting). Frames carry the hand they belong to in their first four
/// bytes ([`facedown::table_game`]'s per-hand channel), then the driver's wire frame.
fn frame_kind(payload: &[u8]) -> &'static str {
    let wire = payload
        .get(4..)
        .and_then(|w| Wire::from_bytes(w, STUDENT).ok());
    match wire {
        Some(Wire::Engine(m) | Wire::Signed { payload: m, .. }) => {
            Message::from_bytes_unchecked(&m)
                .as_ref()
                .map_or("engine", message_kind)
        }
        Some(Wire::Echo(_)) => "echo",
        Some(Wire::Bye) => "bye",
        Some(Wire::Abort { .. }) => "abort",
        Some(Wire::Waiting { .. }) => "waiting",
        None => "unreadable",
    }
}

/// What `play-local --game … --json` says of a game, from every player's report: each view,
/// the errors, whether the verdicts agree, the offender, hands, tricks and the summed cost.
fn summary(reports: &[Result<SeatReport, GameError>]) -> Value {
    let views: Vec<&SeatReport> = reports.iter().filter_map(|r| r.as_ref().ok()).collect();
    let errors: Vec<Value> = reports
        .iter()
        .enumerate()
        .filter_map(|(j, r)| {
            r.as_ref()
                .err()
                .map(|e| json!({ "player": j + 1, "error": e }))
        })
        .collect();
    let offenders: Vec<Option<PartyId>> = views.iter().map(|v| v.game.verdict.offender).collect();
    let first = views.first();
    json!({
        "views": views,
        "errors": errors,
        "agreed": offenders.windows(2).all(|w| w[0] == w[1]),
        "offender": offenders.first().copied().flatten().map(|p| p.0),
        "hands": first.map_or(0, |v| v.game.hands.len()),
        "tricks": first.map_or(0, |v| v.game.hands.iter().map(|h| h.tricks).sum::<usize>()),
        "cost": {
            "messages": views.iter().map(|v| v.cost.messages).sum::<u64>(),
            "bytes": views.iter().map(|v| v.cost.bytes).sum::<u64>(),
            "rounds": views.iter().map(|v| v.cost.rounds).max().unwrap_or(0),
        },
    })
}

/// The student's seat: his session's view and legal moves go to the page, the page's move
/// comes back. A closed game is played on by the heuristic bot so the session ends.
struct Student {
    desk: Arc<Desk>,
}

impl Bot<NinetyNine> for Student {
    fn name(&self) -> &str {
        "student"
    }

    fn choose(&mut self, view: &View, legal: &[Move], rng: &mut dyn RngCore) -> Move {
        let mut b = self.desk.board();
        b.asked = Some((view.clone(), legal.to_vec()));
        b.shown = Some(view.clone());
        drop(b);
        self.desk.changed.notify_all();
        loop {
            let mut b = self.desk.wait_until(self.desk.idle, |b| b.answer.is_some());
            if let Some(mv) = b.answer.take() {
                b.moves += 1;
                drop(b);
                self.desk.changed.notify_all();
                return mv;
            }
            let idle = b.touched.is_some_and(|t| t.elapsed() > self.desk.idle);
            if b.closed || idle {
                b.closed = true;
                b.asked = None;
                drop(b);
                self.desk.changed.notify_all();
                return HeuristicBot.choose(view, legal, rng);
            }
        }
    }

    fn cheat(&mut self) -> Option<Cheat> {
        self.desk.take_armed(STUDENT)
    }
}

/// Another seat: the heuristic bot, which cheats when the page's button says so.
struct Opponent {
    me: PartyId,
    desk: Arc<Desk>,
}

impl Bot<NinetyNine> for Opponent {
    fn name(&self) -> &str {
        "heuristic"
    }

    fn choose(&mut self, view: &View, legal: &[Move], rng: &mut dyn RngCore) -> Move {
        HeuristicBot.choose(view, legal, rng)
    }

    fn cheat(&mut self) -> Option<Cheat> {
        self.desk.take_armed(self.me)
    }
}

/// A player's in-memory channel that writes every frame it sends into the game's log and
/// refuses to go on once the game is closed.
struct Logged {
    inner: MemoryChannel,
    desk: Arc<Desk>,
}

fn closed_error() -> NetError {
    NetError::Config("the classroom closed this game".into())
}

impl Channel for Logged {
    fn me(&self) -> PartyId {
        self.inner.me()
    }

    fn players(&self) -> usize {
        self.inner.players()
    }

    fn send(&mut self, to: PartyId, depth: u32, payload: &[u8]) -> Result<(), NetError> {
        if self.desk.board().closed {
            return Err(closed_error());
        }
        self.desk.record_frame(self.me(), to, depth, payload);
        self.inner.send(to, depth, payload)
    }

    fn broadcast_keys(&self) -> Option<facedown_core::echo::BroadcastKeys> {
        self.inner.broadcast_keys()
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Frame>, NetError> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.desk.board().closed {
                return Err(closed_error());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if let Some(frame) = self.inner.recv(left.min(CLOSE_POLL))? {
                return Ok(Some(frame));
            }
            if left <= CLOSE_POLL {
                return Ok(None);
            }
        }
    }

    fn stats(&self) -> WireStats {
        self.inner.stats()
    }

    fn limits(&self) -> WireLimits {
        self.inner.limits()
    }
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
        let table = new_table(call)?;
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
        let desk = Arc::new(Desk {
            table,
            idle: self.limits.idle,
            board: Mutex::new(Board {
                touched: Some(Instant::now()),
                ..Board::default()
            }),
            changed: Condvar::new(),
        });
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
            mv: Move,
        }
        let desk = self.desk(id)?;
        let body: Body = json_body(call)?;
        let mut b = desk.board();
        let moves = b.moves;
        let legal = match (&b.result, &b.asked) {
            (Some(_), _) => return Err(Refusal::new(409, "the game is over")),
            (None, None) => {
                return Err(Refusal::new(
                    409,
                    "it is not your move: the other players are playing (ask again)",
                ))
            }
            (None, Some((_, legal))) => legal,
        };
        if !legal.contains(&body.mv) {
            return Err(Refusal::new(
                422,
                format!(
                    "{} is not a legal move now; the legal moves are {}",
                    body.mv,
                    legal
                        .iter()
                        .map(Move::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        b.answer = Some(body.mv);
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
        let body: Body = json_body(call)?;
        let players = desk.table.variant.rules().players;
        if body.player == 0 || usize::from(body.player) > players {
            return Err(Refusal::bad(format!(
                "there is no player {} at a table of {players}",
                body.player
            )));
        }
        let kind = Cheat::from_name(&body.kind).ok_or_else(|| {
            Refusal::bad(format!(
                "no cheat `{}` (one of {})",
                body.kind,
                cheat_names().join(", ")
            ))
        })?;
        let mut b = desk.board();
        if b.result.is_some() {
            return Err(Refusal::new(409, "the game is over"));
        }
        let player = PartyId(body.player);
        b.armed.retain(|(p, _)| *p != player);
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

fn cheat_names() -> Vec<&'static str> {
    Cheat::ALL.iter().map(|c| c.name()).collect()
}

fn json_body<T: serde::de::DeserializeOwned>(call: &Call) -> Result<T, Refusal> {
    serde_json::from_str(&call.body)
        .map_err(|e| Refusal::bad(format!("the body is not the JSON this call takes: {e}")))
}

fn new_table(call: &Call) -> Result<Table, Refusal> {
    let new: NewGame = json_body(call)?;
    match new.game.as_str() {
        "ninety-nine" => {}
        "golf" | "devyatka" => {
            return Err(Refusal::new(
                422,
                format!(
                    "{} is not yet played at the table: only ninety-nine",
                    new.game
                ),
            ))
        }
        other => return Err(Refusal::bad(format!("no game `{other}`: give ninety-nine"))),
    }
    let variant = Variant::from_name(&new.variant)
        .ok_or_else(|| Refusal::bad(format!("no Ninety-Nine variant `{}`", new.variant)))?;
    let backend = GameBackend::ALL
        .into_iter()
        .find(|b| b.name() == new.backend)
        .ok_or_else(|| {
            Refusal::bad(format!(
                "no backend `{}`: ideal, poker or dealer",
                new.backend
            ))
        })?;
    if !(1..=MAX_DEALS).contains(&new.deals) {
        return Err(Refusal::bad(format!(
            "`deals` must be between 1 and {MAX_DEALS}, got {}",
            new.deals
        )));
    }
    let table = Table {
        variant,
        backend,
        seed: new.seed,
        deals: new.deals,
    };
    spec(&table, Duration::ZERO)
        .check()
        .map_err(|m| Refusal::new(422, m))?;
    Ok(table)
}

/// The CLI's game for `table`: `play-local --game ninety-nine --deals D --seed S` without a
/// cheat (the room's cheats are pressed during play).
fn spec(table: &Table, timeout: Duration) -> GameSpec {
    GameSpec {
        backend: table.backend,
        variant: table.variant,
        length: Length::Deals(table.deals),
        seed: table.seed,
        cheat: None,
        context: Vec::new(),
        timeout,
    }
}

/// Starts every player of the desk's game on its own thread (and one that collects them).
fn seat_players(desk: &Arc<Desk>) -> Result<(), Refusal> {
    let desk = Arc::clone(desk);
    // Every wait of a seat lasts at most the idle limit: the student may think that long.
    let spec = spec(&desk.table, desk.idle);
    std::thread::Builder::new()
        .name("game-room".into())
        .spawn(move || {
            let at_desk = Arc::clone(&desk);
            let bots = move |me: PartyId| -> Box<dyn Bot<NinetyNine> + Send> {
                let desk = Arc::clone(&at_desk);
                if me == STUDENT {
                    Box::new(Student { desk })
                } else {
                    Box::new(Opponent { me, desk })
                }
            };
            let wrap = |inner: MemoryChannel| Logged {
                inner,
                desk: Arc::clone(&desk),
            };
            let reports = play_threads_with(&spec, &bots, wrap);
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

/// `GET /api/game/ID`: what the student may see — his session's view (his hand, the table,
/// the bids, the tricks), his legal moves when it is his turn, the cheats pressed, the message
/// log with sizes and the cost so far, and at the end every player's report and verdict.
fn state(id: &str, desk: &Desk) -> Result<Value, Refusal> {
    let t = &desk.table;
    let b = desk.board();
    let status = match (&b.result, &b.asked, b.closed) {
        (Some(_), ..) => "over",
        (None, Some(_), _) => "your-move",
        (None, None, true) => "closed",
        (None, None, false) => "waiting",
    };
    let view = b.asked.as_ref().map(|(v, _)| v).or(b.shown.as_ref());
    let legal = b.asked.as_ref().map_or(&[][..], |(_, l)| l.as_slice());
    let pressed: Vec<Value> = b
        .pressed
        .iter()
        .map(|p| json!({ "player": p.player.0, "kind": p.kind.name(), "after_moves": p.after_moves }))
        .collect();
    let by_kind: BTreeMap<&str, Value> = b
        .by_kind
        .iter()
        .map(|(k, (n, bytes))| (*k, json!({ "messages": n, "bytes": bytes })))
        .collect();
    let body = json!({
        "id": id,
        "game": "ninety-nine",
        "variant": t.variant.name(),
        "backend": t.backend.name(),
        "players": t.variant.rules().players,
        "player": STUDENT.0,
        "status": status,
        "moves": b.moves,
        "view": view,
        "legal": legal,
        "legal_text": legal.iter().map(Move::to_string).collect::<Vec<_>>(),
        "cheat_kinds": cheat_names(),
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
        .seed(t.seed)
        .parameters(json!({
            "game": "ninety-nine", "variant": t.variant.name(), "backend": t.backend.name(),
            "deals": t.deals,
        }))
        .build(&body)
        .map_err(|e| Refusal::new(500, format!("cannot write the answer: {e}")))
}
