//! The ideal table over the network: a trusted table process that every player reaches over
//! his channel (TCP with Noise between processes), and each player's view of it.
//!
//! The table is the **last member of the roster**: a game of `N` players has a roster of
//! `N + 1` parties, the players `1..=N` and the table `N + 1`, each with its own static key, so
//! the players authenticate the table as they authenticate one another. The players send each
//! other nothing; each sends the table every operation of his session and waits for its answer
//! ([`facedown_games::session::ideal_table`]: the same [`IdealSteps`] as the shared table in
//! memory, so the same cards are dealt from the same seed, each player is shown the same
//! share, and the same cheats are refused with the same player named).
//!
//! [`RemoteTables`] is one player's hands at the table (one [`RemoteView`] per hand, the
//! [`Tables`] every game session plays on); [`serve_table`] is the table process, which runs
//! [`TableServer`] over its channel until every player has said goodbye.
//!
//! [`IdealSteps`]: facedown_games::session::ideal::IdealSteps

use std::time::{Duration, Instant};

use bincode::Options;
use facedown_core::rng::Randomness;
use facedown_core::table::{ideal_capabilities, Capabilities, FaceDownTable, TableError};
use facedown_core::{Blame, Cost, PartyId, Seen, TableOp};
use facedown_games::session::ideal::IdealViewError;
use facedown_games::session::ideal_table::{Answer, Reply, Request, ServerCounts, TableServer};
use facedown_games::session::ninety_nine::Tables;
use facedown_net::{Channel, Deadline, NetError, WireStats};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::table_game::Confession;

/// The largest request or answer, in bytes.
const MAX_MESSAGE: u64 = 1 << 20;

fn options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_big_endian()
        .reject_trailing_bytes()
        .with_limit(MAX_MESSAGE)
}

fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, NetError> {
    options()
        .serialize(message)
        .map_err(|e| NetError::Config(format!("cannot encode a message to the table: {e}")))
}

fn decode<T: DeserializeOwned>(bytes: &[u8], peer: PartyId) -> Result<T, NetError> {
    options()
        .deserialize(bytes)
        .map_err(|e| NetError::Malformed {
            peer,
            reason: e.to_string(),
        })
}

/// Why a player's view of the table process failed: what the table said (as in memory), or
/// the transport.
#[derive(Debug, thiserror::Error)]
pub enum RemoteTableError {
    /// The table refused the operation, or its answer did not come in time.
    #[error(transparent)]
    View(#[from] IdealViewError),
    /// The link to the table failed.
    #[error(transparent)]
    Net(#[from] NetError),
}

impl From<TableError> for RemoteTableError {
    fn from(e: TableError) -> Self {
        RemoteTableError::View(IdealViewError::Table(e))
    }
}

impl Blame for RemoteTableError {
    fn blamed(&self) -> Option<PartyId> {
        match self {
            RemoteTableError::View(e) => e.blamed(),
            RemoteTableError::Net(e) => e.blamed(),
        }
    }
}

impl Confession for RemoteTableError {
    fn confessed(&self) -> Option<PartyId> {
        match self {
            RemoteTableError::View(_) => None,
            RemoteTableError::Net(e) => e.confessed(),
        }
    }
}

/// The table's number at a roster of `roster` parties: the last.
pub fn table_party(roster: usize) -> PartyId {
    PartyId(u16::try_from(roster).unwrap_or(u16::MAX))
}

/// One player's hands at the table process, over `chan` (whose last party is the table).
pub struct RemoteTables<C> {
    chan: Option<C>,
    clock: u32,
    timeout: Duration,
}

impl<C: Channel> RemoteTables<C> {
    /// The hands of the player at the end of `chan`, in a game of `players` (the channel's
    /// roster has them and the table); each answer is awaited at most `timeout`.
    pub fn new(chan: C, players: usize, timeout: Duration) -> Result<Self, NetError> {
        if chan.players() != players + 1 || chan.me() == table_party(chan.players()) {
            return Err(NetError::Config(format!(
                "the ideal table over the network needs a roster of the {players} players and \
                 the table, last ({} parties, this is {})",
                players + 1,
                chan.me()
            )));
        }
        Ok(RemoteTables {
            chan: Some(chan),
            clock: 0,
            timeout,
        })
    }

    /// Says goodbye to the table, and returns what this player sent and the transport's
    /// counters.
    pub fn finish(mut self) -> Result<(Cost, WireStats), NetError> {
        let mut chan = self.take()?;
        let table = table_party(chan.players());
        chan.send(table, self.clock.saturating_add(1), &encode(&Request::Bye)?)?;
        let stats = chan.stats();
        Ok((stats.cost(), stats))
    }

    fn take(&mut self) -> Result<C, NetError> {
        self.chan
            .take()
            .ok_or_else(|| NetError::Config("the channel was lost in an earlier hand".into()))
    }
}

impl<C: Channel> Tables for RemoteTables<C> {
    type Table = RemoteView<C>;

    fn open(&mut self, hand: usize) -> Result<RemoteView<C>, RemoteTableError> {
        let chan = self.take()?;
        let hand = u32::try_from(hand).map_err(|_| NetError::Config("too many hands".into()))?;
        Ok(RemoteView {
            table: table_party(chan.players()),
            parties: chan.players() - 1,
            chan,
            hand,
            step: 0,
            len: 0,
            clock: self.clock,
            timeout: self.timeout,
        })
    }

    fn close(&mut self, view: RemoteView<C>) -> Result<(), RemoteTableError> {
        self.clock = view.clock;
        self.chan = Some(view.chan);
        Ok(())
    }
}

/// One player's view of one hand at the table process.
pub struct RemoteView<C> {
    chan: C,
    table: PartyId,
    parties: usize,
    hand: u32,
    step: usize,
    len: usize,
    clock: u32,
    timeout: Duration,
}

impl<C: Channel> RemoteView<C> {
    /// The table's answer, ignoring the other players: they send nothing, and their links
    /// close as they finish. The table itself refuses a request it cannot answer after
    /// `timeout` of silence, naming whom it waits for ([`Refusal::Stalled`]); this player
    /// waits a quarter longer for that answer before giving up on his own, naming nobody.
    ///
    /// [`Refusal::Stalled`]: facedown_games::session::ideal_table::Refusal::Stalled
    fn answer(&mut self) -> Result<Reply, RemoteTableError> {
        let deadline = Deadline::after(self.timeout.saturating_add(self.timeout / 4));
        loop {
            match self.chan.recv_by(deadline) {
                Ok(Some(frame)) if frame.from == self.table => {
                    self.clock = self.clock.max(frame.depth);
                    return Ok(decode(&frame.payload, self.table)?);
                }
                Ok(Some(_)) => {}
                Err(NetError::Disconnected { peer }) if peer != self.table => {}
                Ok(None) => {
                    return Err(IdealViewError::Timeout {
                        me: self.chan.me(),
                        step: self.step,
                        waited: self.timeout,
                        awaited: Vec::new(),
                    }
                    .into())
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
}

impl<C: Channel> FaceDownTable for RemoteView<C> {
    type Error = RemoteTableError;

    fn capabilities(&self) -> Capabilities {
        ideal_capabilities()
    }

    fn parties(&self) -> usize {
        self.parties
    }

    fn len(&self) -> usize {
        self.len
    }

    fn apply(&mut self, op: &TableOp) -> Result<Seen, RemoteTableError> {
        let request = encode(&Request::Apply {
            hand: self.hand,
            op: op.clone(),
        })?;
        self.clock = self.clock.saturating_add(1);
        self.chan.send(self.table, self.clock, &request)?;
        match self.answer()? {
            Reply::Shown(seen) => {
                self.step += 1;
                self.len += op.new_cards();
                Ok(seen)
            }
            Reply::Refused(why) => Err(why.into_error(self.chan.me()).into()),
        }
    }

    fn cost(&self) -> Cost {
        self.chan.stats().cost()
    }
}

/// What the table process did over a game, and what it sent.
#[derive(Clone, Debug, Serialize)]
pub struct TableReport {
    /// The players at the table.
    pub players: usize,
    /// Hands dealt, operations applied, requests answered and refused.
    pub counts: ServerCounts,
    /// The players whose link closed before their goodbye.
    pub left: Vec<u16>,
    /// What the table sent (rounds: the deepest causal depth it saw).
    pub cost: Cost,
    /// The transport's counters.
    pub wire: WireStats,
    /// Wall time at the table, in milliseconds.
    pub wall_ms: f64,
}

/// Runs the table of a game shuffling from `shuffles` over `chan` (this party the roster's last)
/// until every player has said goodbye or left. After `timeout` with no operation applied the
/// table refuses every request it cannot answer, naming whom it waits for
/// ([`TableServer::stalled`]) — whether or not other messages came; a second `timeout` with no
/// message at all after that is an error naming the players still at the table. A player who leaves while others wait for him is named to them
/// ([`TableServer::leave`]).
pub fn serve_table<C: Channel>(
    mut chan: C,
    shuffles: Randomness,
    timeout: Duration,
) -> Result<TableReport, NetError> {
    let start = Instant::now();
    if chan.me() != table_party(chan.players()) || chan.players() < 2 {
        return Err(NetError::Config(format!(
            "the table is the last party of the roster ({}), not {}",
            chan.players(),
            chan.me()
        )));
    }
    let players = chan.players() - 1;
    let mut server = TableServer::shuffling(players, shuffles);
    let mut left = Vec::new();
    let waited_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    // When the table last applied an operation (or refused the stalled requests): a player
    // who floods it with refused requests instead of asking does not keep it from noticing.
    let mut progress = Instant::now();
    let mut silent = false;
    while !server.finished() {
        let applied = server.counts().applied;
        let wait = (progress + timeout).saturating_duration_since(Instant::now());
        let answers = match wait.is_zero() {
            true => {
                progress = Instant::now();
                server.stalled(waited_ms)
            }
            false => match chan.recv(wait) {
                Ok(Some(frame)) => {
                    silent = false;
                    match decode::<Request>(&frame.payload, frame.from) {
                        Ok(request) => server.receive(frame.from, frame.depth, request),
                        Err(e) => server.refuse(frame.from, frame.depth, e.to_string()),
                    }
                }
                Ok(None) if !silent => {
                    silent = true;
                    Vec::new()
                }
                Ok(None) => {
                    return Err(NetError::Unanswered {
                        missing: server.playing(),
                        what: "requests".into(),
                        after: timeout,
                    })
                }
                Err(NetError::Disconnected { peer }) => {
                    let (playing, answers) = server.leave(peer);
                    if playing {
                        left.push(peer.0);
                    }
                    answers
                }
                Err(e) => return Err(e),
            },
        };
        if server.counts().applied != applied {
            progress = Instant::now();
        }
        for a in answers {
            send_answer(&mut chan, &a)?;
        }
    }
    let wire = chan.stats();
    Ok(TableReport {
        players,
        counts: server.counts(),
        left,
        cost: wire.cost(),
        wire,
        wall_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

/// Sends `answer` to its player; one whose link already closed is skipped (he left, and the
/// others' answers still go out).
fn send_answer<C: Channel>(chan: &mut C, answer: &Answer) -> Result<(), NetError> {
    match chan.send(answer.to, answer.depth, &encode(&answer.reply)?) {
        Err(NetError::Disconnected { .. }) => Ok(()),
        other => other,
    }
}
