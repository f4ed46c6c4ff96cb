//! The front door: the only socket a client reaches. `tiny_http` trusts its clients (a head
//! line read without end, a body read as long as the client trickles it, a worker's drop that
//! allocates whatever `Content-Length` announced, an accept loop that stops at its first
//! error), so it listens on loopback behind this door, which
//!
//! - admits at most [`Door::connections`] clients at once and answers the others 503 at once;
//! - never stops accepting: an error (out of file descriptors) is waited out;
//! - reads each request whole within [`Door::read`] ([`super::framing`] bounds its bytes)
//!   before a worker sees it, so a slow client holds a door thread, never a worker;
//! - passes on one request per connection and relays the answer, written within the same
//!   kind of deadline.

use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use super::framing::{read_request, Unread};

/// How long accepting pauses after an error (the process may be out of file descriptors).
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);
/// Longest the inner server may take to answer (a game call waits 20 s for the bots; a
/// simulation of a million runs takes seconds).
const INNER_WAIT: Duration = Duration::from_secs(300);
/// After answering, how long unread input is drained so the close does not reset the answer.
const LINGER: Duration = Duration::from_millis(500);
/// At most this much unread input is drained.
const LINGER_BYTES: u64 = 256 * 1024;

/// The door's limits.
#[derive(Clone, Copy, Debug)]
pub struct Door {
    /// Clients served at once (each costs four file descriptors).
    pub connections: usize,
    /// Time a client has to send one whole request, and to take its answer.
    pub read: Duration,
    /// The pass added to every request handed on ([`super::gate`]).
    pub pass: &'static str,
}

/// Accepts clients on `public` for ever and relays each one's request to `inner`.
pub fn open(public: &TcpListener, inner: SocketAddr, door: Door) -> ! {
    let live = Arc::new(AtomicUsize::new(0));
    loop {
        match public.accept() {
            Ok((client, _)) => admit(client, inner, door, &live),
            Err(_) => thread::sleep(ACCEPT_PAUSE),
        }
    }
}

/// A place at the door, given back when dropped.
struct Place(Arc<AtomicUsize>);

impl Drop for Place {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

fn admit(client: TcpStream, inner: SocketAddr, door: Door, live: &Arc<AtomicUsize>) {
    if live.fetch_add(1, Ordering::AcqRel) >= door.connections {
        live.fetch_sub(1, Ordering::AcqRel);
        return turn_away(&client, door.connections);
    }
    let place = Place(Arc::clone(live));
    // A thread that cannot start drops the client unanswered, and gives its place back.
    let _ = thread::Builder::new().name("door".into()).spawn(move || {
        let _place = place;
        serve(&client, inner, door);
    });
}

/// 503 without reading and without waiting: the accept loop must never block on a client.
fn turn_away(client: &TcpStream, connections: usize) {
    let _ = client.set_nonblocking(true);
    let message = format!("the server is serving {connections} connections, its limit; try again");
    let _ = (&*client).write_all(&refusal(503, &message));
}

/// One client: its request read whole, answered by the inner server, the answer relayed.
fn serve(client: &TcpStream, inner: SocketAddr, door: Door) {
    let deadline = Instant::now() + door.read;
    let mut reader = BufReader::new(Timed { client, deadline });
    let request = read_request(&mut reader, door.pass, || {
        (&*client).write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
    });
    let answer = match request {
        Ok(request) => ask(inner, &request)
            .unwrap_or_else(|e| refusal(503, &format!("the server could not answer: {e}"))),
        Err(Unread::Refused(status, message)) => refusal(status, &message),
        Err(Unread::Gone) => return,
    };
    let _ = write_within(client, &answer, Instant::now() + door.read);
    let _ = client.shutdown(Shutdown::Write);
    linger(client);
}

/// The inner server's whole answer to `request`.
fn ask(inner: SocketAddr, request: &[u8]) -> io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect(inner)?;
    stream.set_read_timeout(Some(INNER_WAIT))?;
    stream.write_all(request)?;
    stream.shutdown(Shutdown::Write)?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    Ok(answer)
}

/// Writes `bytes` to `client` unless the client takes them slower than `deadline` allows.
fn write_within(client: &TcpStream, bytes: &[u8], deadline: Instant) -> io::Result<()> {
    for chunk in bytes.chunks(16 * 1024) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        client.set_write_timeout(Some(left))?;
        (&*client).write_all(chunk)?;
    }
    Ok(())
}

/// Reads and drops what the client still sends, briefly, so the close is not a reset that
/// would make the client lose the answer.
fn linger(client: &TcpStream) {
    let mut rest = Timed {
        client,
        deadline: Instant::now() + LINGER,
    }
    .take(LINGER_BYTES);
    let _ = io::copy(&mut rest, &mut io::sink());
}

/// An answer the door writes itself, in the form of every refusal of [`super::http`], with its
/// headers that keep a browser from reading it as anything but JSON.
fn refusal(status: u16, message: &str) -> Vec<u8> {
    let body = serde_json::json!({ "error": { "message": message } }).to_string();
    let reason = tiny_http::StatusCode(status).default_reason_phrase();
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'none'\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The client's socket, read with one deadline for all its reads.
struct Timed<'a> {
    client: &'a TcpStream,
    deadline: Instant,
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.client.set_read_timeout(Some(left))?;
        (&*self.client).read(buf)
    }
}
