//! The in-memory network: `N` channel ends joined by queues, with accounting and an optional
//! latency model.
//!
//! Each end is a [`MemoryChannel`] (move it to its own thread to run one player per thread).
//! With a [`Latency`], every frame becomes visible to its receiver only `base + len/bandwidth`
//! after it was sent, and never before an earlier frame of the same link (links stay FIFO),
//! so a run's wall time grows with its rounds: what a comparison needs to show
//! round-dominated costs without a real network. Dropping an end reports it as disconnected to
//! every other end.
//!
//! Each end holds at most [`Limits::queue_frames`] frames and [`Limits::queue_bytes`] bytes from
//! one sender; a send into a full share waits for the receiver to take frames, up to
//! [`Limits::send_wait`], and then fails naming the receiver — the same back-pressure a TCP
//! window gives, so a flooding sender blocks itself rather than growing its victim's memory.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use facedown_core::echo::BroadcastKeys;
use facedown_core::PartyId;

use crate::channel::{Channel, Frame, Limits, WireStats};
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
    /// Frames and payload bytes queued per sender.
    pending: BTreeMap<PartyId, (usize, u64)>,
}

#[derive(Debug)]
struct Mailbox {
    inbox: Mutex<Inbox>,
    /// Signalled when an item is queued.
    ready: Condvar,
    /// Signalled when a frame is taken (room for its sender).
    room: Condvar,
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
    limits: Limits,
    stats: WireStats,
}

/// Builds a fully connected in-memory network of `players` ends (player `j` is element
/// `j − 1`), with an optional latency model and the default [`Limits`].
pub fn memory_network(players: usize, latency: Option<Latency>) -> Vec<MemoryChannel> {
    memory_network_with_limits(players, latency, Limits::default())
}

/// [`memory_network`] with other [`Limits`].
pub fn memory_network_with_limits(
    players: usize,
    latency: Option<Latency>,
    limits: Limits,
) -> Vec<MemoryChannel> {
    let boxes: Arc<Vec<Mailbox>> = Arc::new(
        (0..players)
            .map(|_| Mailbox {
                inbox: Mutex::new(Inbox::default()),
                ready: Condvar::new(),
                room: Condvar::new(),
            })
            .collect(),
    );
    PartyId::all(players)
        .map(|me| MemoryChannel {
            me,
            boxes: Arc::clone(&boxes),
            latency,
            limits,
            stats: WireStats::default(),
        })
        .collect()
}

impl MemoryChannel {
    /// Frames and payload bytes from `peer` queued at this end and not yet received.
    pub fn queued_from(&self, peer: PartyId) -> (usize, u64) {
        lock(&self.boxes[self.me.index()])
            .pending
            .get(&peer)
            .copied()
            .unwrap_or_default()
    }

    /// Waits, up to [`Limits::send_wait`], until `to` has room for `len` more bytes from this
    /// end.
    fn wait_for_room<'a>(
        &self,
        to: PartyId,
        mailbox: &'a Mailbox,
        mut inbox: MutexGuard<'a, Inbox>,
        len: usize,
    ) -> Result<MutexGuard<'a, Inbox>, NetError> {
        let give_up = Instant::now().checked_add(self.limits.send_wait);
        loop {
            let (frames, bytes) = inbox.pending.get(&self.me).copied().unwrap_or_default();
            if self.limits.has_room(frames, bytes, len as u64) {
                return Ok(inbox);
            }
            let left = match give_up {
                None => Duration::from_secs(3600),
                Some(t) => t.saturating_duration_since(Instant::now()),
            };
            if left.is_zero() {
                return Err(NetError::Timeout {
                    peer: to,
                    what: "room in its queue (it is not taking frames)".into(),
                    after: self.limits.send_wait,
                });
            }
            inbox = mailbox
                .room
                .wait_timeout(inbox, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    fn push(&self, to: PartyId, len: usize, item: Item) -> Result<(), NetError> {
        let mailbox = self
            .boxes
            .get(to.index())
            .filter(|_| to.0 != 0)
            .ok_or(NetError::UnknownParty(to.0))?;
        let mut inbox = lock(mailbox);
        if matches!(item, Item::Frame(_)) {
            inbox = self.wait_for_room(to, mailbox, inbox, len)?;
            let share = inbox.pending.entry(self.me).or_default();
            share.0 += 1;
            share.1 += len as u64;
        }
        let now = Instant::now();
        let delay = self.latency.map_or(Duration::ZERO, |l| l.delay(len));
        let mut at = now.checked_add(delay).unwrap_or(now);
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
        if payload.len() as u64 > self.limits.max_frame_bytes {
            return Err(NetError::FrameTooLarge {
                peer: self.me,
                len: payload.len() as u64,
                max: self.limits.max_frame_bytes,
            });
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
        let now = Instant::now();
        let deadline = now.checked_add(timeout);
        let mailbox = &self.boxes[self.me.index()];
        let mut inbox = lock(mailbox);
        loop {
            let now = Instant::now();
            let first = inbox.queue.keys().next().copied();
            let wake = match first {
                Some(key) if key.0 <= now => {
                    let item = inbox.queue.remove(&key);
                    if let Some(Item::Frame(f)) = &item {
                        if let Some(share) = inbox.pending.get_mut(&f.from) {
                            share.0 = share.0.saturating_sub(1);
                            share.1 = share.1.saturating_sub(f.payload.len() as u64);
                        }
                        mailbox.room.notify_all();
                    }
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
                Some(key) => deadline.map_or(key.0, |d| key.0.min(d)),
                None => deadline.unwrap_or(now + Duration::from_secs(3600)),
            };
            if deadline.is_some_and(|d| now >= d) {
                return Ok(None);
            }
            inbox = mailbox
                .ready
                .wait_timeout(inbox, wake.saturating_duration_since(now))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// The in-process keys ([`BroadcastKeys::in_process`]): the in-memory network runs
    /// every player in one process, as the in-memory driver does, and signs alike.
    fn broadcast_keys(&self) -> Option<BroadcastKeys> {
        Some(BroadcastKeys::in_process(self.me, self.boxes.len()))
    }

    fn limits(&self) -> Limits {
        self.limits
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
