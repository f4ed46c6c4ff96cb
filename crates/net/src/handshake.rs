//! Establishing a [`crate::TcpMesh`]: dialling the lower-numbered players, accepting the
//! higher-numbered ones, the Noise_KK handshake, and key confirmation.
//!
//! # What a stranger on the listening port can do
//!
//! Anyone can connect to a player's listening port and send a hello claiming a roster id. The
//! claim costs the stranger nothing, so a failed handshake proves nothing about the player it
//! names: it is **dropped**, and the listener keeps accepting until the connect deadline. Only
//! when the deadline passes without an authenticated link from some player does the connect
//! fail, naming that player (it never showed up), with the failed attempts claiming to be it
//! in the reason. Each accepted connection is handshaken on its own thread, at most
//! [`MAX_PENDING_HANDSHAKES`] at once and each within [`Timeouts::handshake`], so a stranger
//! who connects and stays silent cannot hold the port either.
//!
//! # Key confirmation
//!
//! KK's first message (`-> e, es, ss`) can be replayed by someone who recorded it, and the
//! responder finishes its side of the handshake after writing its reply: without more, a
//! replay would look like an authenticated link from the initiator and could displace the real
//! one. So the initiator's first transport message is a fixed confirmation
//! (`"facedown-net/confirm/v1"`), which only the holder of the initiator's ephemeral key can
//! encrypt, and the responder accepts a link only once it has decrypted it. The first
//! confirmed link from a player wins; later ones are dropped.
//!
//! The dialler retries a failed handshake until the deadline too (the listener may have been
//! busy), then reports the last failure.

use std::collections::BTreeMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::time::Duration;

use facedown_core::PartyId;
use snow::{Builder, HandshakeState, TransportState};

use crate::channel::Deadline;
use crate::error::NetError;
use crate::roster::{Roster, StaticKeypair};
use crate::tcp::{prologue, read_noise, write_noise, Timeouts, MAX_NOISE_MESSAGE, NOISE_PARAMS};

/// The clear hello that tells the listener which roster key to expect.
const HELLO_MAGIC: &[u8; 4] = b"FDN1";
/// The initiator's first transport message, proving it holds the handshake's keys.
const CONFIRM: &[u8] = b"facedown-net/confirm/v1";
/// Accepted connections handshaken at once; further ones are closed at once.
pub const MAX_PENDING_HANDSHAKES: usize = 16;
/// Pause between two attempts of the dialler.
const RETRY_PAUSE: Duration = Duration::from_millis(50);

/// Every link of one player, handshaken and confirmed, and what the handshakes cost.
#[derive(Default)]
pub(crate) struct Established {
    /// Per peer: the socket and its Noise transport.
    pub links: BTreeMap<PartyId, (TcpStream, TransportState)>,
    /// Handshake bytes written.
    pub sent: u64,
    /// Handshake bytes read.
    pub received: u64,
}

/// One confirmed link.
struct Joined {
    peer: PartyId,
    stream: TcpStream,
    transport: TransportState,
    sent: u64,
    received: u64,
}

/// A dropped connection: whom it claimed to be (if a roster player) and why it failed.
struct Rejected {
    claimed: Option<PartyId>,
    reason: String,
}

fn rejected(claimed: Option<PartyId>, reason: impl Into<String>) -> Rejected {
    Rejected {
        claimed,
        reason: reason.into(),
    }
}

/// What the listener needs to answer a handshake.
struct Responder {
    me: PartyId,
    roster: Roster,
    key: StaticKeypair,
    timeout: Duration,
}

fn noise_params() -> Result<snow::params::NoiseParams, NetError> {
    NOISE_PARAMS
        .parse()
        .map_err(|e| NetError::Config(format!("Noise parameters: {e:?}")))
}

fn snow_err(peer: PartyId, what: &str) -> impl Fn(snow::Error) -> NetError + '_ {
    move |e| NetError::Handshake {
        peer,
        reason: format!("{what}: {e}"),
    }
}

fn handshake_failed(peer: PartyId) -> impl Fn(std::io::Error) -> NetError {
    move |e| match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => NetError::Timeout {
            peer,
            what: "the Noise handshake".into(),
            after: Duration::ZERO,
        },
        _ => NetError::Handshake {
            peer,
            reason: format!(
                "the connection failed during the handshake ({e}): the peer rejected it — do \
                 our static key and the roster agree?"
            ),
        },
    }
}

fn finish(hs: HandshakeState, peer: PartyId) -> Result<TransportState, NetError> {
    hs.into_transport_mode()
        .map_err(snow_err(peer, "entering transport mode"))
}

fn set_timeouts(stream: &TcpStream, timeout: Duration) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))
}

/// The initiator's side on a connected stream: hello, `-> e, es, ss`, `<- e, ee, se`, then the
/// confirmation. Returns the transport and the bytes written and read.
fn initiate(
    stream: &mut TcpStream,
    (me, peer): (PartyId, PartyId),
    key: &StaticKeypair,
    peer_key: &[u8; 32],
    session: &[u8; 32],
    timeout: Duration,
) -> Result<(TransportState, u64, u64), NetError> {
    set_timeouts(stream, timeout).map_err(handshake_failed(peer))?;
    let pro = prologue(session, me, peer);
    let mut hs = Builder::new(noise_params()?)
        .local_private_key(&key.private)
        .and_then(|b| b.remote_public_key(peer_key))
        .and_then(|b| b.prologue(&pro))
        .and_then(|b| b.build_initiator())
        .map_err(snow_err(peer, "building the initiator"))?;
    let mut hello = HELLO_MAGIC.to_vec();
    hello.extend_from_slice(&me.0.to_be_bytes());
    hello.extend_from_slice(&peer.0.to_be_bytes());
    let mut buf = vec![0u8; MAX_NOISE_MESSAGE];
    let len = hs
        .write_message(&[], &mut buf)
        .map_err(snow_err(peer, "writing the first handshake message"))?;
    stream
        .write_all(&hello)
        .and_then(|()| write_noise(stream, &buf[..len]))
        .map_err(handshake_failed(peer))?;
    let reply = read_noise(stream).map_err(handshake_failed(peer))?;
    hs.read_message(&reply, &mut buf)
        .map_err(|e| NetError::Handshake {
            peer,
            reason: format!(
                "the responder's message does not authenticate ({e}): its static key is not the \
                 roster's, or it is in another session"
            ),
        })?;
    let mut transport = finish(hs, peer)?;
    let confirm = transport
        .write_message(CONFIRM, &mut buf)
        .map_err(snow_err(peer, "writing the key confirmation"))?;
    write_noise(stream, &buf[..confirm]).map_err(handshake_failed(peer))?;
    let sent = (hello.len() + 2 + len + 2 + confirm) as u64;
    let received = (2 + reply.len()) as u64;
    Ok((transport, sent, received))
}

/// The responder's side on an accepted stream: the hello names a roster player above us, its
/// first message authenticates with that player's key, and it confirms the keys.
fn respond(mut stream: TcpStream, r: &Responder) -> Result<Joined, Rejected> {
    set_timeouts(&stream, r.timeout).map_err(|e| rejected(None, e.to_string()))?;
    let mut hello = [0u8; 8];
    stream
        .read_exact(&mut hello)
        .map_err(|e| rejected(None, format!("no hello: {e}")))?;
    let from = PartyId(u16::from_be_bytes([hello[4], hello[5]]));
    let to = PartyId(u16::from_be_bytes([hello[6], hello[7]]));
    if &hello[..4] != HELLO_MAGIC || to != r.me || from <= r.me {
        return Err(rejected(None, "not a hello for this player"));
    }
    let peer_key = r
        .roster
        .party(from)
        .map_err(|e| rejected(None, e.to_string()))?
        .public_key;
    let claimed = Some(from);
    let fail = |what: &str, e: &dyn std::fmt::Display| rejected(claimed, format!("{what} ({e})"));
    let pro = prologue(&r.roster.session, from, r.me);
    let mut hs = Builder::new(noise_params().map_err(|e| fail("Noise parameters", &e))?)
        .local_private_key(&r.key.private)
        .and_then(|b| b.remote_public_key(&peer_key))
        .and_then(|b| b.prologue(&pro))
        .and_then(|b| b.build_responder())
        .map_err(|e| fail("building the responder", &e))?;
    let first = read_noise(&mut stream)
        .map_err(|e| fail("the connection failed during the handshake", &e))?;
    let mut buf = vec![0u8; MAX_NOISE_MESSAGE];
    hs.read_message(&first, &mut buf).map_err(|e| {
        fail(
            "its first message does not authenticate: its static key is not the roster's, or \
             it is in another session",
            &e,
        )
    })?;
    let len = hs
        .write_message(&[], &mut buf)
        .map_err(|e| fail("writing the reply", &e))?;
    write_noise(&mut stream, &buf[..len])
        .map_err(|e| fail("the connection failed during the handshake", &e))?;
    let mut transport = hs
        .into_transport_mode()
        .map_err(|e| fail("entering transport mode", &e))?;
    let confirm = read_noise(&mut stream).map_err(|e| fail("no key confirmation arrived", &e))?;
    let n = transport.read_message(&confirm, &mut buf).map_err(|e| {
        fail(
            "the key confirmation does not decrypt (a replayed handshake?)",
            &e,
        )
    })?;
    if &buf[..n] != CONFIRM {
        return Err(rejected(claimed, "the key confirmation is wrong"));
    }
    Ok(Joined {
        peer: from,
        stream,
        transport,
        sent: (2 + len) as u64,
        received: (hello.len() + 2 + first.len() + 2 + confirm.len()) as u64,
    })
}

/// Accepts until told to stop or the deadline passes, handshaking each connection on its own
/// thread (at most [`MAX_PENDING_HANDSHAKES`] at once).
fn accept_loop(
    listener: TcpListener,
    responder: Arc<Responder>,
    (deadline, stop): (Deadline, Arc<AtomicBool>),
    tx: Sender<Result<Joined, Rejected>>,
) {
    let pending = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) && !deadline.passed() {
        match listener.accept() {
            Ok((stream, _)) => {
                if pending.fetch_add(1, Ordering::SeqCst) >= MAX_PENDING_HANDSHAKES {
                    pending.fetch_sub(1, Ordering::SeqCst);
                    continue; // dropping the stream closes it
                }
                let (responder, in_thread, tx) =
                    (Arc::clone(&responder), Arc::clone(&pending), tx.clone());
                let spawned = std::thread::Builder::new().spawn(move || {
                    let result = respond(stream, &responder);
                    in_thread.fetch_sub(1, Ordering::SeqCst);
                    let _ = tx.send(result);
                });
                if spawned.is_err() {
                    pending.fetch_sub(1, Ordering::SeqCst);
                }
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

fn dial(address: SocketAddr, peer: PartyId, deadline: Deadline) -> Result<TcpStream, NetError> {
    loop {
        let Some(remaining) = deadline.remaining() else {
            return Err(NetError::Connect {
                peer,
                address: address.to_string(),
                reason: "nobody accepted the connection before the connect timeout".into(),
            });
        };
        match TcpStream::connect_timeout(&address, remaining.min(Duration::from_secs(1))) {
            Ok(s) => return Ok(s),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionRefused | ErrorKind::TimedOut | ErrorKind::WouldBlock
                ) =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => {
                return Err(NetError::Connect {
                    peer,
                    address: address.to_string(),
                    reason: e.to_string(),
                })
            }
        }
    }
}

/// Dials `peer` and handshakes, retrying until the deadline; on failure reports the last one.
fn dial_peer(
    roster: &Roster,
    (me, peer): (PartyId, PartyId),
    key: &StaticKeypair,
    timeouts: Timeouts,
    deadline: Deadline,
) -> Result<Joined, NetError> {
    let party = roster.party(peer)?;
    let mut attempts = 0u32;
    let mut last: Option<NetError> = None;
    loop {
        let mut stream = match dial(party.address, peer, deadline) {
            Ok(s) => s,
            Err(e) => return Err(retried(last, attempts).unwrap_or(e)),
        };
        attempts += 1;
        let handshake = initiate(
            &mut stream,
            (me, peer),
            key,
            &party.public_key,
            &roster.session,
            timeouts.handshake,
        );
        match handshake {
            Ok((transport, sent, received)) => {
                return Ok(Joined {
                    peer,
                    stream,
                    transport,
                    sent,
                    received,
                })
            }
            Err(e) => last = Some(e),
        }
        match deadline.remaining() {
            Some(left) => std::thread::sleep(left.min(RETRY_PAUSE)),
            None => return Err(retried(last, attempts).unwrap_or(NetError::UnknownParty(0))),
        }
    }
}

/// The last failure of `attempts` tries, saying how many there were.
fn retried(last: Option<NetError>, attempts: u32) -> Option<NetError> {
    last.map(|e| match e {
        NetError::Handshake { peer, reason } if attempts > 1 => NetError::Handshake {
            peer,
            reason: format!("{attempts} attempts before the connect deadline; the last: {reason}"),
        },
        other => other,
    })
}

/// Failed handshakes per player they claimed to come from.
#[derive(Default)]
struct Failures(BTreeMap<PartyId, (u32, String)>);

impl Failures {
    fn record(&mut self, r: Rejected) {
        if let Some(p) = r.claimed {
            let entry = self.0.entry(p).or_default();
            entry.0 += 1;
            entry.1 = r.reason;
        }
    }

    /// The error for `peer`, who had no link when the deadline passed.
    fn missing(&self, peer: PartyId, after: Duration) -> NetError {
        match self.0.get(&peer) {
            Some((k, reason)) => NetError::Handshake {
                peer,
                reason: format!(
                    "no connection from it authenticated before the connect deadline; {k} \
                     connection(s) claiming to be it failed, the last: {reason}"
                ),
            },
            None => NetError::Timeout {
                peer,
                what: "its connection and handshake".into(),
                after,
            },
        }
    }
}

fn add(est: &mut Established, j: Joined) {
    if est.links.contains_key(&j.peer) {
        return; // the first confirmed link wins
    }
    est.sent += j.sent;
    est.received += j.received;
    est.links.insert(j.peer, (j.stream, j.transport));
}

/// Dials every lower-numbered player, then collects the higher-numbered ones from `accepted`.
fn connect_all(
    roster: &Roster,
    me: PartyId,
    key: &StaticKeypair,
    timeouts: Timeouts,
    deadline: Deadline,
    accepted: &mpsc::Receiver<Result<Joined, Rejected>>,
) -> Result<Established, NetError> {
    let players = roster.players();
    let mut est = Established::default();
    let mut failures = Failures::default();
    for peer in PartyId::all(players).filter(|&p| p < me) {
        add(
            &mut est,
            dial_peer(roster, (me, peer), key, timeouts, deadline)?,
        );
    }
    while est.links.len() + 1 < players {
        let next = deadline.remaining().map(|left| accepted.recv_timeout(left));
        match next {
            Some(Ok(Ok(joined))) => add(&mut est, joined),
            Some(Ok(Err(r))) => failures.record(r),
            None | Some(Err(_)) => {
                let missing = PartyId::all(players)
                    .find(|p| *p != me && !est.links.contains_key(p))
                    .unwrap_or(me);
                return Err(failures.missing(missing, timeouts.connect));
            }
        }
    }
    Ok(est)
}

/// Connects `me` to every other player of `roster` within `timeouts.connect`.
pub(crate) fn establish(
    roster: &Roster,
    me: PartyId,
    key: &StaticKeypair,
    listener: TcpListener,
    timeouts: Timeouts,
) -> Result<Established, NetError> {
    let deadline = Deadline::after(timeouts.connect);
    listener
        .set_nonblocking(true)
        .map_err(|source| NetError::LocalIo {
            context: "cannot configure the listener".into(),
            source,
        })?;
    let (tx, rx) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let responder = Arc::new(Responder {
        me,
        roster: roster.clone(),
        key: key.clone(),
        timeout: timeouts.handshake,
    });
    let acceptor = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || accept_loop(listener, responder, (deadline, stop), tx))
    };
    let result = connect_all(roster, me, key, timeouts, deadline, &rx);
    stop.store(true, Ordering::Relaxed);
    let _ = acceptor.join();
    result
}
