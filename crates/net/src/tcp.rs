//! TCP with `Noise_KK_25519_ChaChaPoly_BLAKE2s` \[Noise\]: one authenticated, encrypted link per pair of
//! players, all static keys known in advance from the [`Roster`].
//!
//! # Connections
//!
//! Player `i` listens on its roster address and dials every player `j < i`, so each pair has
//! exactly one connection. The dialer (Noise initiator) first sends an 8-byte clear hello,
//! `"FDN1" ‖ i ‖ j` (big-endian `u16`s), so that the listener knows which roster key to expect;
//! a false claim simply fails the handshake, and a failed handshake is dropped without
//! aborting anything (see [`crate::handshake`]: strangers on the port, key confirmation). KK authenticates both sides with their static keys
//! (`-> e, es, ss` / `<- e, ee, se`); the prologue
//! `"facedown-net/noise-kk/v1" ‖ session ‖ initiator ‖ responder` binds the session and both
//! parties, so a handshake meant for another game or another pair fails.
//!
//! # Framing
//!
//! On the wire every Noise message is prefixed by its length (2 bytes, big-endian; at most
//! 65535 bytes including the 16-byte tag, as the Noise specification requires). An
//! application frame is `len (u32) ‖ depth (u32) ‖ payload` (big-endian), split into as many
//! Noise messages as needed (at most 65519 plaintext bytes each); frames above
//! [`Limits::max_frame_bytes`] (at most [`MAX_FRAME_BYTES`]) are refused. Noise's implicit nonce means that a corrupted, replayed,
//! reordered or dropped message fails authenticated decryption: the receiver rejects it with
//! [`NetError::Corrupted`] naming the peer and stops reading from that link.
//!
//! # Threads and timeouts
//!
//! One reader thread per link decrypts frames and queues them; [`Channel::recv`] waits on that
//! queue with its timeout. The queue holds at most [`Limits::queue_frames`] frames and
//! [`Limits::queue_bytes`] bytes from each peer: while a peer's share is full its reader stops
//! reading, the kernel's receive window closes, and the flooding peer's own writes block (and
//! time out). A frame header announcing more than [`Limits::max_frame_bytes`] is refused before
//! any of the payload is read, and payload buffers grow with what really arrives, never with
//! what a header announces. Connecting, the handshake and writes have their own timeouts
//! ([`Timeouts`]). Dropping the mesh shuts every socket down and joins the reader threads.

use std::collections::{BTreeMap, VecDeque};
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use facedown_core::echo::BroadcastKeys;
use facedown_core::PartyId;
use snow::TransportState;

use crate::channel::{Channel, Frame, Limits, WireStats};
use crate::error::NetError;
use crate::roster::{Roster, StaticKeypair};

/// The Noise protocol name.
pub const NOISE_PARAMS: &str = "Noise_KK_25519_ChaChaPoly_BLAKE2s";
/// Largest Noise message, tag included.
pub const MAX_NOISE_MESSAGE: usize = 65535;
/// The AEAD tag length.
pub const TAG_LEN: usize = 16;
/// Largest plaintext per Noise message.
pub const MAX_CHUNK: usize = MAX_NOISE_MESSAGE - TAG_LEN;
/// Application frame header: payload length and depth.
pub const FRAME_HEADER: usize = 8;
/// Largest application payload the framing can carry at all (a `u32` length, and a bound on
/// [`Limits::max_frame_bytes`]).
pub const MAX_FRAME_BYTES: u64 = 64 << 20;
/// Domain separator of the prologue.
pub const PROLOGUE_LABEL: &[u8] = b"facedown-net/noise-kk/v1";

/// The prologue both sides of the pair `(initiator, responder)` feed into the handshake.
pub fn prologue(session: &[u8; 32], initiator: PartyId, responder: PartyId) -> Vec<u8> {
    let mut p = PROLOGUE_LABEL.to_vec();
    p.extend_from_slice(session);
    p.extend_from_slice(&initiator.0.to_be_bytes());
    p.extend_from_slice(&responder.0.to_be_bytes());
    p
}

/// Timeouts of the TCP transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// How long to keep trying to reach every peer (they may not be listening yet), and how
    /// long to wait for the peers that dial us.
    pub connect: Duration,
    /// How long one handshake may take once connected.
    pub handshake: Duration,
    /// How long a write may block (a peer that stops reading).
    pub write: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            handshake: Duration::from_secs(5),
            write: Duration::from_secs(10),
        }
    }
}

/// A deliberate fault in the next frame sent, for fault-injection experiments and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireFault {
    /// Flip one bit of the first ciphertext of the next frame.
    Corrupt,
    /// Send the next frame's first Noise message twice (a replay).
    Replay,
}

fn io_err(peer: PartyId, what: &'static str) -> impl Fn(std::io::Error) -> NetError {
    move |e| match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => NetError::Timeout {
            peer,
            what: what.into(),
            after: Duration::ZERO,
        },
        ErrorKind::UnexpectedEof
        | ErrorKind::ConnectionReset
        | ErrorKind::ConnectionAborted
        | ErrorKind::BrokenPipe => NetError::Disconnected { peer },
        _ => NetError::Io { peer, source: e },
    }
}

pub(crate) fn write_noise(stream: &mut TcpStream, msg: &[u8]) -> std::io::Result<()> {
    let len = u16::try_from(msg.len())
        .map_err(|_| std::io::Error::new(ErrorKind::InvalidInput, "noise message too long"))?;
    let mut out = Vec::with_capacity(2 + msg.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(msg);
    stream.write_all(&out)
}

pub(crate) fn read_noise(stream: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 2];
    stream.read_exact(&mut len)?;
    let mut msg = vec![0u8; usize::from(u16::from_be_bytes(len))];
    stream.read_exact(&mut msg)?;
    Ok(msg)
}

enum Event {
    Frame(Frame, u64),
    Closed(PartyId),
    Failed(NetError),
}

#[derive(Default)]
struct QueueState {
    events: VecDeque<Event>,
    /// Frames and payload bytes queued per peer.
    pending: BTreeMap<PartyId, (usize, u64)>,
    /// Reader threads still running.
    readers: usize,
    /// Set when the mesh is dropped: blocked readers give up.
    closed: bool,
}

/// What the reader threads hand to [`Channel::recv`], bounded per peer by [`Limits`].
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    /// Signalled when an event is queued or a reader ends.
    ready: Condvar,
    /// Signalled when a frame is taken or the mesh closes.
    room: Condvar,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a frame of `peer` once its share has room; `false` if the mesh closed meanwhile.
    fn push_frame(&self, frame: Frame, wire: u64, limits: &Limits) -> bool {
        let len = frame.payload.len() as u64;
        let mut st = self.lock();
        loop {
            if st.closed {
                return false;
            }
            let (frames, bytes) = st.pending.get(&frame.from).copied().unwrap_or_default();
            if limits.has_room(frames, bytes, len) {
                break;
            }
            st = self.room.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        let share = st.pending.entry(frame.from).or_default();
        share.0 += 1;
        share.1 += len;
        st.events.push_back(Event::Frame(frame, wire));
        self.ready.notify_all();
        true
    }

    /// Queues the end of a link (not counted against any share) and retires its reader.
    fn push_end(&self, event: Event) {
        let mut st = self.lock();
        st.events.push_back(event);
        st.readers = st.readers.saturating_sub(1);
        self.ready.notify_all();
    }

    /// The next event within `timeout`; `Err(())` when every reader has ended and nothing is
    /// left.
    fn pop(&self, timeout: Duration) -> Result<Option<Event>, ()> {
        let give_up = Instant::now().checked_add(timeout);
        let mut st = self.lock();
        loop {
            if let Some(event) = st.events.pop_front() {
                if let Event::Frame(f, _) = &event {
                    if let Some(share) = st.pending.get_mut(&f.from) {
                        share.0 = share.0.saturating_sub(1);
                        share.1 = share.1.saturating_sub(f.payload.len() as u64);
                    }
                    self.room.notify_all();
                }
                return Ok(Some(event));
            }
            if st.readers == 0 {
                return Err(());
            }
            let left = match give_up {
                None => Duration::from_secs(3600),
                Some(t) => t.saturating_duration_since(Instant::now()),
            };
            if left.is_zero() {
                return Ok(None);
            }
            st = self
                .ready
                .wait_timeout(st, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    fn close(&self) {
        self.lock().closed = true;
        self.room.notify_all();
    }
}

struct Link {
    stream: TcpStream,
    transport: Arc<Mutex<TransportState>>,
    reader: Option<JoinHandle<()>>,
}

/// One player's end of a full mesh of Noise_KK links over TCP.
pub struct TcpMesh {
    me: PartyId,
    players: usize,
    links: BTreeMap<PartyId, Link>,
    queue: Arc<Queue>,
    limits: Limits,
    stats: WireStats,
    fault: Option<WireFault>,
    keys: BroadcastKeys,
}

impl core::fmt::Debug for TcpMesh {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TcpMesh")
            .field("me", &self.me)
            .field("players", &self.players)
            .field("peers", &self.links.keys().collect::<Vec<_>>())
            .field("limits", &self.limits)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// What a reader thread reads from its peer, and the bounds it keeps.
struct Reader {
    stream: TcpStream,
    peer: PartyId,
    transport: Arc<Mutex<TransportState>>,
    queue: Arc<Queue>,
    limits: Limits,
}

impl Reader {
    fn decrypt(&self, msg: &[u8], plain: &mut [u8]) -> Result<usize, NetError> {
        let mut t = self.transport.lock().unwrap_or_else(|p| p.into_inner());
        t.read_message(msg, plain).map_err(|e| NetError::Corrupted {
            peer: self.peer,
            reason: format!(
                "authenticated decryption failed ({e}): the frame was corrupted, replayed or \
                 reordered"
            ),
        })
    }

    /// Reads and decrypts one Noise message: its plaintext length and its wire bytes.
    fn next_message(&mut self, plain: &mut [u8]) -> Result<(usize, u64), Event> {
        let msg = read_noise(&mut self.stream).map_err(|_| Event::Closed(self.peer))?;
        let n = self.decrypt(&msg, plain).map_err(Event::Failed)?;
        Ok((n, 2 + msg.len() as u64))
    }

    /// Reads one whole frame: header, then as many chunks as its length needs.
    fn next_frame(&mut self, plain: &mut [u8]) -> Result<(Frame, u64), Event> {
        let peer = self.peer;
        let (n, mut wire) = self.next_message(plain)?;
        if n < FRAME_HEADER {
            return Err(Event::Failed(NetError::Malformed {
                peer,
                reason: format!("a frame of {n} bytes has no header"),
            }));
        }
        let len = u64::from(u32::from_be_bytes([plain[0], plain[1], plain[2], plain[3]]));
        let depth = u32::from_be_bytes([plain[4], plain[5], plain[6], plain[7]]);
        let max = self.limits.max_frame_bytes.min(MAX_FRAME_BYTES);
        if len > max {
            return Err(Event::Failed(NetError::FrameTooLarge { peer, len, max }));
        }
        let len = len as usize;
        // Grow with what arrives, not with what the header announces.
        let mut payload = Vec::with_capacity(len.min(MAX_CHUNK));
        payload.extend_from_slice(&plain[FRAME_HEADER..n]);
        while payload.len() < len {
            let (n, w) = self.next_message(plain)?;
            wire += w;
            payload.extend_from_slice(&plain[..n]);
        }
        if payload.len() != len {
            return Err(Event::Failed(NetError::Malformed {
                peer,
                reason: format!(
                    "a frame announced {len} bytes and carried {}",
                    payload.len()
                ),
            }));
        }
        let frame = Frame {
            from: peer,
            depth,
            payload,
        };
        Ok((frame, wire))
    }

    fn run(mut self) {
        let mut plain = vec![0u8; MAX_NOISE_MESSAGE];
        loop {
            match self.next_frame(&mut plain) {
                Ok((frame, wire)) => {
                    if !self.queue.push_frame(frame, wire, &self.limits) {
                        self.queue.push_end(Event::Closed(self.peer));
                        return;
                    }
                }
                Err(end) => {
                    self.queue.push_end(end);
                    return;
                }
            }
        }
    }
}

impl TcpMesh {
    /// Binds the listener of player `me` at its roster address.
    pub fn bind(roster: &Roster, me: PartyId) -> Result<TcpListener, NetError> {
        let address = roster.party(me)?.address;
        TcpListener::bind(address).map_err(|source| NetError::LocalIo {
            context: format!("cannot listen on {address}"),
            source,
        })
    }

    /// Connects player `me` (static key `key`, listening on `listener`) to every other player
    /// of `roster` and completes every handshake, within `timeouts.connect`, with the default
    /// [`Limits`].
    pub fn connect(
        roster: &Roster,
        me: PartyId,
        key: &StaticKeypair,
        listener: TcpListener,
        timeouts: Timeouts,
    ) -> Result<TcpMesh, NetError> {
        TcpMesh::connect_with_limits(roster, me, key, listener, timeouts, Limits::default())
    }

    /// [`TcpMesh::connect`] with other [`Limits`].
    pub fn connect_with_limits(
        roster: &Roster,
        me: PartyId,
        key: &StaticKeypair,
        listener: TcpListener,
        timeouts: Timeouts,
        limits: Limits,
    ) -> Result<TcpMesh, NetError> {
        roster.validate()?;
        roster.party(me)?;
        let players = roster.players();
        let established = crate::handshake::establish(roster, me, key, listener, timeouts)?;
        // After the handshakes: a key file that is not the roster's fails them first.
        let keys = roster.broadcast_keys(me, key)?;
        let stats = WireStats {
            wire_bytes_sent: established.sent,
            wire_bytes_received: established.received,
            ..WireStats::default()
        };
        let conns = established.links;
        let queue = Arc::new(Queue::default());
        queue.lock().readers = conns.len();
        let mut links: BTreeMap<PartyId, Link> = BTreeMap::new();
        for (peer, (stream, t)) in conns {
            let setup = |s: &TcpStream| -> std::io::Result<TcpStream> {
                s.set_nodelay(true)?;
                s.set_read_timeout(None)?;
                s.set_write_timeout(Some(timeouts.write))?;
                s.try_clone()
            };
            let read_half = match setup(&stream) {
                Ok(r) => r,
                Err(source) => {
                    queue.close();
                    for link in links.values() {
                        let _ = link.stream.shutdown(std::net::Shutdown::Both);
                    }
                    return Err(NetError::Io { peer, source });
                }
            };
            let transport = Arc::new(Mutex::new(t));
            let reader = Reader {
                stream: read_half,
                peer,
                transport: Arc::clone(&transport),
                queue: Arc::clone(&queue),
                limits,
            };
            links.insert(
                peer,
                Link {
                    stream,
                    transport,
                    reader: Some(std::thread::spawn(move || reader.run())),
                },
            );
        }
        Ok(TcpMesh {
            me,
            players,
            links,
            queue,
            limits,
            stats,
            fault: None,
            keys,
        })
    }

    /// Frames and payload bytes from `peer` queued at this end and not yet received.
    pub fn queued_from(&self, peer: PartyId) -> (usize, u64) {
        self.queue
            .lock()
            .pending
            .get(&peer)
            .copied()
            .unwrap_or_default()
    }

    /// Makes the next frame sent carry `fault` (for fault-injection experiments and tests).
    pub fn inject_fault(&mut self, fault: WireFault) {
        self.fault = Some(fault);
    }
}

impl Channel for TcpMesh {
    fn me(&self) -> PartyId {
        self.me
    }

    fn players(&self) -> usize {
        self.players
    }

    fn send(&mut self, to: PartyId, depth: u32, payload: &[u8]) -> Result<(), NetError> {
        let link = self
            .links
            .get_mut(&to)
            .ok_or(NetError::UnknownParty(to.0))?;
        let max = self.limits.max_frame_bytes.min(MAX_FRAME_BYTES);
        let len = u32::try_from(payload.len())
            .ok()
            .filter(|&l| u64::from(l) <= max)
            .ok_or(NetError::FrameTooLarge {
                peer: self.me,
                len: payload.len() as u64,
                max,
            })?;
        let mut plain = Vec::with_capacity(FRAME_HEADER + payload.len());
        plain.extend_from_slice(&len.to_be_bytes());
        plain.extend_from_slice(&depth.to_be_bytes());
        plain.extend_from_slice(payload);
        let fault = self.fault.take();
        let mut out = Vec::with_capacity(plain.len() + plain.len() / MAX_CHUNK * 18 + 18);
        let mut buf = vec![0u8; MAX_NOISE_MESSAGE];
        {
            let mut t = link.transport.lock().unwrap_or_else(|p| p.into_inner());
            for (k, chunk) in plain.chunks(MAX_CHUNK).enumerate() {
                let n = t
                    .write_message(chunk, &mut buf)
                    .map_err(|e| NetError::Corrupted {
                        peer: to,
                        reason: format!("encryption failed: {e}"),
                    })?;
                let start = out.len();
                out.extend_from_slice(&(n as u16).to_be_bytes());
                out.extend_from_slice(&buf[..n]);
                if k == 0 {
                    match fault {
                        Some(WireFault::Corrupt) => out[start + 2] ^= 1,
                        Some(WireFault::Replay) => {
                            let copy = out[start..].to_vec();
                            out.extend_from_slice(&copy);
                        }
                        None => {}
                    }
                }
            }
        }
        link.stream
            .write_all(&out)
            .map_err(io_err(to, "sending a frame"))?;
        self.stats.frames_sent += 1;
        self.stats.payload_bytes_sent += payload.len() as u64;
        self.stats.wire_bytes_sent += out.len() as u64;
        self.stats.max_depth = self.stats.max_depth.max(depth);
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Frame>, NetError> {
        match self.queue.pop(timeout) {
            Ok(Some(Event::Frame(f, wire))) => {
                self.stats.frames_received += 1;
                self.stats.wire_bytes_received += wire;
                self.stats.max_depth = self.stats.max_depth.max(f.depth);
                Ok(Some(f))
            }
            Ok(Some(Event::Closed(peer))) => Err(NetError::Disconnected { peer }),
            Ok(Some(Event::Failed(e))) => Err(e),
            Ok(None) => Ok(None),
            Err(()) => Err(NetError::Config(
                "every link of this player is closed".into(),
            )),
        }
    }

    fn stats(&self) -> WireStats {
        self.stats
    }

    fn broadcast_keys(&self) -> Option<BroadcastKeys> {
        Some(self.keys.clone())
    }

    fn limits(&self) -> Limits {
        self.limits
    }
}

impl Drop for TcpMesh {
    fn drop(&mut self) {
        self.queue.close();
        for link in self.links.values() {
            let _ = link.stream.shutdown(std::net::Shutdown::Both);
        }
        for link in self.links.values_mut() {
            if let Some(h) = link.reader.take() {
                let _ = h.join();
            }
        }
    }
}
