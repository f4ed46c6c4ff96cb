//! One game of the room: the [`Desk`] its seats and its HTTP calls share, the student's seat
//! and the bots' seats, and the channel that logs every frame. Nothing here depends on which
//! game is played: a seat hands the page its session's view and legal moves as JSON and gets
//! back the index of the move chosen, and a cheat is pressed by its name.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Display;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use facedown::core::PartyId;
use facedown::games::game::{Bot, Game};
use facedown::games::session::Cheat;
use facedown::net::wire::Wire;
use facedown::net::{Channel, Frame, Limits as WireLimits, MemoryChannel, NetError, WireStats};
use facedown::poker::messages::Message;
use facedown::table_game::GameError;
use rand::RngCore;
use serde_json::{json, Value};

use super::games::{summary, Offer};
use super::STUDENT;
use crate::cli::serve::deal_room::message_kind;

/// Messages kept in a game's log (older ones are counted, not kept).
pub const LOG_KEPT: usize = 400;
/// How often a waiting channel looks whether its game was closed.
const CLOSE_POLL: Duration = Duration::from_millis(200);

/// A question put to the student: his session's view and legal moves, as the page reads them.
#[derive(Clone, Debug)]
pub struct Asked {
    /// What he sees.
    pub view: Value,
    /// The moves he may make.
    pub legal: Vec<Value>,
    /// The same moves in words.
    pub legal_text: Vec<String>,
}

/// One cheat pressed: who, which, and how many of the student's moves had been made.
#[derive(Clone, Debug)]
pub struct Pressed {
    pub player: PartyId,
    pub kind: &'static str,
    pub after_moves: usize,
}

/// What the seats and the calls share about one game.
#[derive(Default)]
pub struct Board {
    pub closed: bool,
    pub touched: Option<Instant>,
    pub asked: Option<Asked>,
    /// The index, among the legal moves asked, of the student's answer.
    pub answer: Option<usize>,
    /// The last view the student was shown.
    pub shown: Option<Value>,
    pub moves: usize,
    pub armed: Vec<(PartyId, &'static str)>,
    pub pressed: Vec<Pressed>,
    pub log: VecDeque<Value>,
    pub by_kind: BTreeMap<&'static str, (u64, u64)>,
    pub messages: u64,
    pub bytes: u64,
    pub rounds: u32,
    pub result: Option<Value>,
}

/// One game: which game and table, and the board its seats and calls share.
pub struct Desk {
    pub offer: Box<dyn Offer>,
    pub idle: Duration,
    board: Mutex<Board>,
    pub changed: Condvar,
}

impl Desk {
    /// A fresh game of `offer`, touched now.
    pub fn new(offer: Box<dyn Offer>, idle: Duration) -> Desk {
        Desk {
            offer,
            idle,
            board: Mutex::new(Board {
                touched: Some(Instant::now()),
                ..Board::default()
            }),
            changed: Condvar::new(),
        }
    }

    pub fn board(&self) -> MutexGuard<'_, Board> {
        // A seat that panicked leaves a board that is still consistent: every write is whole.
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn close(&self) {
        self.board().closed = true;
        self.changed.notify_all();
    }

    pub fn expired(&self) -> bool {
        let b = self.board();
        b.closed || b.touched.is_some_and(|t| t.elapsed() > self.idle)
    }

    /// Waits until `done` holds, or `limit` passes; returns the board either way.
    pub fn wait_until(
        &self,
        limit: Duration,
        done: impl Fn(&Board) -> bool,
    ) -> MutexGuard<'_, Board> {
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
    fn take_armed(&self, player: PartyId) -> Option<&'static str> {
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

    /// Ends the game with every player's report (as JSON) or error.
    pub fn finish(&self, reports: Vec<Result<Value, GameError>>) {
        let result = summary(&*self.offer, &reports);
        let mut b = self.board();
        b.asked = None;
        b.result = Some(result);
        drop(b);
        self.changed.notify_all();
    }

    /// Puts `asked` to the student and waits for his answer: the index of his move, or
    /// `None` once the game is closed or left idle.
    fn ask(&self, asked: Asked) -> Option<usize> {
        let mut b = self.board();
        b.shown = Some(asked.view.clone());
        b.asked = Some(asked);
        drop(b);
        self.changed.notify_all();
        loop {
            let mut b = self.wait_until(self.idle, |b| b.answer.is_some());
            if let Some(i) = b.answer.take() {
                b.moves += 1;
                drop(b);
                self.changed.notify_all();
                return Some(i);
            }
            let idle = b.touched.is_some_and(|t| t.elapsed() > self.idle);
            if b.closed || idle {
                b.closed = true;
                b.asked = None;
                drop(b);
                self.changed.notify_all();
                return None;
            }
        }
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

/// A seat at the desk: the student's (his session's questions go to the page), or a bot's.
/// Either cheats when the page's button says so; a closed game's student is played by
/// `bot` so that his session ends.
pub struct Seat<G> {
    me: PartyId,
    desk: Arc<Desk>,
    bot: Box<dyn Bot<G> + Send>,
}

impl<G: Game> Seat<G> {
    /// Player `me`'s seat: the page's if he is the student, `bot`'s otherwise (and the
    /// student's too once the game is closed).
    pub fn at(me: PartyId, desk: &Arc<Desk>, bot: Box<dyn Bot<G> + Send>) -> Seat<G> {
        Seat {
            me,
            desk: Arc::clone(desk),
            bot,
        }
    }
}

impl<G: Game> Bot<G> for Seat<G>
where
    G::Move: Display,
{
    fn name(&self) -> &str {
        if self.me == STUDENT {
            "student"
        } else {
            self.bot.name()
        }
    }

    fn choose(&mut self, view: &G::View, legal: &[G::Move], rng: &mut dyn RngCore) -> G::Move {
        if self.me != STUDENT || self.desk.board().closed {
            return self.bot.choose(view, legal, rng);
        }
        let asked = Asked {
            view: serde_json::to_value(view).unwrap_or(Value::Null),
            legal: legal
                .iter()
                .map(|m| serde_json::to_value(m).unwrap_or(Value::Null))
                .collect(),
            legal_text: legal.iter().map(ToString::to_string).collect(),
        };
        match self.desk.ask(asked).and_then(|i| legal.get(i)) {
            Some(mv) => mv.clone(),
            None => self.bot.choose(view, legal, rng),
        }
    }

    fn cheat(&mut self) -> Option<Cheat> {
        self.desk.take_armed(self.me).and_then(Cheat::from_name)
    }

    fn cheat_named(&mut self) -> Option<&'static str> {
        self.desk.take_armed(self.me)
    }
}

/// A player's in-memory channel that writes every frame it sends into the game's log and
/// refuses to go on once the game is closed.
pub struct Logged {
    inner: MemoryChannel,
    desk: Arc<Desk>,
}

impl Logged {
    pub fn at(desk: &Arc<Desk>) -> impl Fn(MemoryChannel) -> Logged + '_ {
        move |inner| Logged {
            inner,
            desk: Arc::clone(desk),
        }
    }
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
