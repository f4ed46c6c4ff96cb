//! The in-memory network: `N` channel ends joined by queues, with accounting and an optional
//! latency model.
//!
//! Each end is a [`MemoryChannel`] (move it to its own thread to run one player per thread).
//! With a [`Latency`], every frame becomes visible to its receiver only `base + len/bandwidth`
//! after it was sent, and never before an earlier frame of the same link (links stay FIFO),
//! so a run's wall time grows with its rounds: what a comparison needs to show
//! round-dominated costs without a real network. Dropping an end reports it as disconnected to
//! every other end.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use facedown_core::PartyId;

use crate::channel::{Channel, Frame, WireStats};
use crate::error::NetError;

/// A per-message delay model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Latency {
    /// Fixed delay of every frame (one-way).
    pub base: Duration,
    /// Link bandwidth in bytes per second (`None`: unlimited).
    pub bytes_per_second: Option<u64>,
}

impl Latency {
    /// A fixed one-way delay per frame, unlimited bandwidth.
    pub fn fixed(base: Duration) -> Latency {
        Latency {
            base,
            bytes_per_second: None,
        }
    }

    /// The delay of a frame of `len` bytes.
    pub fn delay(&self, len: usize) -> Duration {
        let transfer = match self.bytes_per_second {
            Some(bps) if bps > 0 => Duration::from_secs_f64(len as f64 / bps as f64),
            _ => Duration::ZERO,
        };
        self.base + transfer
    }
}

#[derive(Debug)]
enum Item {
    Frame(Frame),
    Closed(PartyId),
}

#[derive(Debug, Default)]
struct Inbox {
    /// Pending items by (visible-at, arrival order).
    queue: BTreeMap<(Instant, u64), Item>,
    arrivals: u64,
    /// Latest visible-at per sender, to keep links FIFO.
    last_from: BTreeMap<PartyId, Instant>,
}

#[derive(Debug)]
struct Mailbox {
    inbox: Mutex<Inbox>,
    ready: Condvar,
}

fn lock(m: &Mailbox) -> MutexGuard<'_, Inbox> {
    // A poisoned lock only means another player thread panicked; the queue itself is intact.
    m.inbox.lock().unwrap_or_else(|p| p.into_inner())
}

/// One player's end of an in-memory network.
#[derive(Debug)]
pub struct MemoryChannel {
    me: PartyId,
    boxes: Arc<Vec<Mailbox>>,
    latency: Option<Latency>,
    stats: WireStats,
}

/// Builds a fully connected in-memory network of `players` ends (player `j` is element
/// `j − 1`), with an optional latency model.
pub fn memory_network(players: usize, latency: Option<Latency>) -> Vec<MemoryChannel> {
    let boxes: Arc<Vec<Mailbox>> = Arc::new(
        (0..players)
            .map(|_| Mailbox {
                inbox: Mutex::new(Inbox::default()),
                ready: Condvar::new(),
            })
            .collect(),
    );
    PartyId::all(players)
        .map(|me| MemoryChannel {
            me,
            boxes: Arc::clone(&boxes),
            latency,
            stats: WireStats::default(),
        })
        .collect()
}

impl MemoryChannel {
    fn push(&self, to: PartyId, len: usize, item: Item) -> Result<(), NetError> {
        let mailbox = self
            .boxes
            .get(to.index())
            .filter(|_| to.0 != 0)
            .ok_or(NetError::UnknownParty(to.0))?;
        let now = Instant::now();
        let mut inbox = lock(mailbox);
        let mut at = now + self.latency.map_or(Duration::ZERO, |l| l.delay(len));
        if let Some(&prev) = inbox.last_from.get(&self.me) {
            at = at.max(prev);
        }
        inbox.last_from.insert(self.me, at);
        inbox.arrivals += 1;
        let key = (at, inbox.arrivals);
        inbox.queue.insert(key, item);
        mailbox.ready.notify_all();
        Ok(())
    }
}

impl Channel for MemoryChannel {
    fn me(&self) -> PartyId {
        self.me
    }

    fn players(&self) -> usize {
        self.boxes.len()
    }

    fn send(&mut self, to: PartyId, depth: u32, payload: &[u8]) -> Result<(), NetError> {
        if to == self.me {
            return Err(NetError::UnknownParty(to.0));
        }
        self.push(
            to,
            payload.len(),
            Item::Frame(Frame {
                from: self.me,
                depth,
                payload: payload.to_vec(),
            }),
        )?;
        self.stats.frames_sent += 1;
        self.stats.payload_bytes_sent += payload.len() as u64;
        self.stats.wire_bytes_sent += payload.len() as u64;
        self.stats.max_depth = self.stats.max_depth.max(depth);
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Frame>, NetError> {
        let deadline = Instant::now() + timeout;
        let mailbox = &self.boxes[self.me.index()];
        let mut inbox = lock(mailbox);
        loop {
            let now = Instant::now();
            let first = inbox.queue.keys().next().copied();
            let wake = match first {
                Some(key) if key.0 <= now => {
                    let item = inbox.queue.remove(&key);
                    drop(inbox);
                    return match item {
                        Some(Item::Frame(f)) => {
                            self.stats.frames_received += 1;
                            self.stats.wire_bytes_received += f.payload.len() as u64;
                            self.stats.max_depth = self.stats.max_depth.max(f.depth);
                            Ok(Some(f))
                        }
                        Some(Item::Closed(peer)) => Err(NetError::Disconnected { peer }),
                        None => Ok(None),
                    };
                }
                Some(key) => key.0.min(deadline),
                None => deadline,
            };
            if now >= deadline {
                return Ok(None);
            }
            inbox = mailbox
                .ready
                .wait_timeout(inbox, wake.saturating_duration_since(now))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    fn stats(&self) -> WireStats {
        self.stats
    }
}

impl Drop for MemoryChannel {
    fn drop(&mut self) {
        for peer in PartyId::all(self.boxes.len()).filter(|&p| p != self.me) {
            // Ignoring the result: the peer exists by construction.
            let _ = self.push(peer, 0, Item::Closed(self.me));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_arrive_in_order_with_accounting_and_latency() {
        let mut net = memory_network(2, Some(Latency::fixed(Duration::from_millis(30))));
        let mut b = net.pop().expect("two ends");
        let mut a = net.pop().expect("two ends");
        let start = Instant::now();
        a.send(PartyId(2), 1, b"hello").expect("send");
        a.send(PartyId(2), 2, b"world!").expect("send");
        let f = b
            .recv(Duration::from_secs(2))
            .expect("recv")
            .expect("a frame");
        assert!(
            start.elapsed() >= Duration::from_millis(30),
            "latency applied"
        );
        assert_eq!(
            (f.from, f.depth, f.payload.as_slice()),
            (PartyId(1), 1, &b"hello"[..])
        );
        let g = b
            .recv(Duration::from_secs(2))
            .expect("recv")
            .expect("frame");
        assert_eq!(g.payload, b"world!");
        assert_eq!(a.stats().frames_sent, 2);
        assert_eq!(a.stats().payload_bytes_sent, 11);
        assert_eq!(b.stats().max_depth, 2);
        assert_eq!(b.recv(Duration::from_millis(10)).expect("recv"), None);
        drop(a);
        match b.recv(Duration::from_secs(1)) {
            Err(NetError::Disconnected { peer }) => assert_eq!(peer, PartyId(1)),
            other => panic!("expected a disconnection, got {other:?}"),
        }
    }

    #[test]
    fn sending_to_oneself_or_a_stranger_is_an_error() {
        let mut net = memory_network(2, None);
        assert!(matches!(
            net[0].send(PartyId(1), 1, b"x"),
            Err(NetError::UnknownParty(1))
        ));
        assert!(matches!(
            net[0].send(PartyId(3), 1, b"x"),
            Err(NetError::UnknownParty(3))
        ));
    }
}
