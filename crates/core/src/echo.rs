//! Consistent broadcast: the echo round that every driver runs for an engine.
//!
//! A point-to-point network has no broadcast: a "broadcast" is `N − 1` private messages, and a
//! cheater can send each peer another version (another card, another deck, another hello). The
//! echo round makes every player compare what it was broadcast before it accepts an outcome.
//!
//! * The engine says which of its messages are broadcasts **by their kind**
//!   ([`Engine::is_broadcast`], never the sender's word), and which operations end with an echo
//!   ([`Engine::echoes`], a function of the operation that every honest player computes alike).
//! * For every player `s` the seat keeps the digests `SHA3-256(label ‖ m)` of the broadcasts
//!   `m` that `s` made in the operation, in order, as this player received them (its own as
//!   sent).
//! * When the engine is done, the seat sends every peer an [`EchoMessage`]: every list. It accepts the outcome once every peer's echo has arrived and agrees.
//! * **A verdict waits for the echo too.** When the engine fails during such an operation (a
//!   proof that does not verify, a bad signature) the failure may come from a state an
//!   earlier equivocation split — the next shuffler's honest proof fails against another
//!   deck. So the seat sends a *failing* echo with the chains so far and collects every
//!   peer's; a peer that receives a failing echo stops its own part and echoes at once. Lists
//!   are then compared on their common prefix.
//!
//! # Verdicts
//!
//! A difference about sender `s` reported by witness `k`:
//! * `s = k` (its echo contradicts what it sent this player) or `s` = this player (it reports
//!   another message than this player sent): `k` deviated, and is blamed;
//! * otherwise `s` equivocated or `k` lies, and without transferable evidence this player
//!   cannot tell which: nobody is blamed, and the error says who disagrees about whom
//!   ([`EchoError::Differs`]), unless this player's own failure already blamed `s` — then `s`
//!   deviated either way.
//!
//! A failure whose chains all agree keeps the engine's own verdict; a peer that gave up with
//! consistent chains blames nobody ([`EchoError::GaveUp`]).
//!
//! # Cost
//!
//! One more round per echoed operation, `N·(N − 1)` messages of `7 + 4·N + 32·b` bytes, `b`
//! the broadcasts of the operation.
//!
//! [`Engine::is_broadcast`]: crate::Engine::is_broadcast
//! [`Engine::echoes`]: crate::Engine::echoes

use std::collections::{BTreeSet, VecDeque};

use sha3::{Digest, Sha3_256};

use crate::engine::Blame;
use crate::PartyId;

/// Domain separator of the broadcast chains.
pub const ECHO_LABEL: &[u8] = b"facedown/echo/v1";

/// Most echoes one peer may have waiting (its echo for this operation and for the next).
pub const MAX_EARLY_ECHOES: usize = 2;

type Head = [u8; 32];

/// Why the echo round failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EchoError {
    /// An echo that does not decode, or comes for another operation.
    #[error("malformed echo from {from}: {reason}")]
    Malformed {
        /// The sender.
        from: PartyId,
        /// What is wrong.
        reason: &'static str,
    },
    /// Players received different broadcasts from the same sender.
    #[error("{} broadcast differently to this player and to {}{}", list(.senders), list(.witnesses), .blamed.map(|p| format!(": {p} deviated")).unwrap_or_else(|| ": unattributable without transferable evidence, nobody blamed".into()))]
    Differs {
        /// The senders whose broadcasts differ.
        senders: Vec<PartyId>,
        /// The peers whose echo shows the difference.
        witnesses: Vec<PartyId>,
        /// The player who provably deviated, if the evidence shows one.
        blamed: Option<PartyId>,
    },
    /// A peer gave up during the operation and every broadcast agrees: its reason is its own
    /// claim (it follows as its abort), nobody is blamed here.
    #[error("{peer} gave up during the operation; every broadcast agrees, nobody blamed")]
    GaveUp {
        /// The first peer that gave up.
        peer: PartyId,
    },
}

fn list(ps: &[PartyId]) -> String {
    ps.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Blame for EchoError {
    fn blamed(&self) -> Option<PartyId> {
        match self {
            EchoError::Malformed { from, .. } => Some(*from),
            EchoError::Differs { blamed, .. } => *blamed,
            EchoError::GaveUp { .. } => None,
        }
    }
}

/// One player's echo: the count and head of every player's broadcast chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EchoMessage {
    /// The operation's number in the session (the setup is 1).
    pub op: u32,
    /// Whether the sender gave up (its chains are a prefix).
    pub failing: bool,
    /// Per player, player 1 first: the digests of the broadcasts received from it (sent, for
    /// the sender's own), in order.
    pub chains: Vec<Vec<Head>>,
}

impl EchoMessage {
    /// The encoding: `op` (4 bytes, big endian), `failing` (1), `N` (2), then per player
    /// `count` (4) and `count` digests of 32 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let digests: usize = self.chains.iter().map(Vec::len).sum();
        let mut out = Vec::with_capacity(7 + 4 * self.chains.len() + 32 * digests);
        out.extend(self.op.to_be_bytes());
        out.push(u8::from(self.failing));
        out.extend((self.chains.len() as u16).to_be_bytes());
        for chain in &self.chains {
            out.extend((chain.len() as u32).to_be_bytes());
            for d in chain {
                out.extend(d);
            }
        }
        out
    }

    /// Decodes an echo from `from` at a table of `parties` players.
    pub fn from_bytes(bytes: &[u8], parties: usize, from: PartyId) -> Result<Self, EchoError> {
        let bad = |reason| EchoError::Malformed { from, reason };
        let mut r = Reader(bytes);
        let op = u32::from_be_bytes(r.take().ok_or(bad("truncated"))?);
        let failing = match r.take::<1>().ok_or(bad("truncated"))? {
            [0] => false,
            [1] => true,
            _ => return Err(bad("a flag that is neither 0 nor 1")),
        };
        if usize::from(u16::from_be_bytes(r.take().ok_or(bad("truncated"))?)) != parties {
            return Err(bad("another number of players"));
        }
        let mut chains = Vec::with_capacity(parties);
        for _ in 0..parties {
            let count = u32::from_be_bytes(r.take().ok_or(bad("truncated"))?) as usize;
            // Bounded by the bytes present, so a large count cannot allocate.
            if count > r.0.len() / 32 {
                return Err(bad("more digests than bytes"));
            }
            let chain = (0..count)
                .map(|_| r.take::<32>().ok_or(bad("truncated")))
                .collect::<Result<Vec<_>, _>>()?;
            chains.push(chain);
        }
        if !r.0.is_empty() {
            return Err(bad("trailing bytes"));
        }
        Ok(EchoMessage {
            op,
            failing,
            chains,
        })
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const K: usize>(&mut self) -> Option<[u8; K]> {
        let (head, rest) = self.0.split_at_checked(K)?;
        self.0 = rest;
        head.try_into().ok()
    }
}

/// One sender's broadcasts in the operation: the digest of each, in order.
#[derive(Clone, Debug, Default)]
struct Chain(Vec<Head>);

impl Chain {
    fn push(&mut self, payload: &[u8]) {
        let mut h = Sha3_256::new();
        h.update(ECHO_LABEL);
        h.update(payload);
        self.0.push(h.finalize().into());
    }

    /// Whether `theirs` agrees with this chain: equal when both are complete, else on the
    /// common prefix.
    fn agrees(&self, theirs: &[Head], complete: bool) -> bool {
        if complete {
            return self.0 == theirs;
        }
        self.0.iter().zip(theirs).all(|(a, b)| a == b)
    }
}

/// The echo round of one operation at one player.
#[derive(Debug)]
pub struct EchoRound {
    op: u32,
    me: PartyId,
    chains: Vec<Chain>,
    sent: bool,
    failing: Option<PartyId>,
    heard: BTreeSet<PartyId>,
    senders: BTreeSet<PartyId>,
    witnesses: BTreeSet<PartyId>,
    provable: BTreeSet<PartyId>,
}

impl EchoRound {
    /// The round of operation `op` at player `me` of `parties`.
    pub fn new(op: u32, me: PartyId, parties: usize) -> EchoRound {
        EchoRound {
            op,
            me,
            chains: vec![Chain::default(); parties],
            sent: false,
            failing: None,
            heard: BTreeSet::new(),
            senders: BTreeSet::new(),
            witnesses: BTreeSet::new(),
            provable: BTreeSet::new(),
        }
    }

    /// The operation's number.
    pub fn op(&self) -> u32 {
        self.op
    }

    /// Records a broadcast of `from` (this player's own when sent).
    pub fn record(&mut self, from: PartyId, payload: &[u8]) {
        if let Some(c) = self.chains.get_mut(from.index()) {
            c.push(payload);
        }
    }

    /// Whether this player has sent its echo.
    pub fn sent(&self) -> bool {
        self.sent
    }

    /// Whether this player or a peer gave up.
    pub fn failing(&self) -> bool {
        self.failing.is_some()
    }

    /// This player's echo (once: the round is then waiting for the peers'); `failing` when it
    /// gives up.
    pub fn echo(&mut self, failing: bool) -> EchoMessage {
        self.sent = true;
        if failing && self.failing.is_none() {
            self.failing = Some(self.me);
        }
        EchoMessage {
            op: self.op,
            failing,
            chains: self.chains.iter().map(|c| c.0.clone()).collect(),
        }
    }

    /// A peer's echo: compared with this player's chains.
    pub fn hear(&mut self, from: PartyId, echo: &EchoMessage) -> Result<(), EchoError> {
        if echo.op != self.op || echo.chains.len() != self.chains.len() {
            return Err(EchoError::Malformed {
                from,
                reason: "an echo of another operation",
            });
        }
        if !self.heard.insert(from) {
            return Err(EchoError::Malformed {
                from,
                reason: "a second echo",
            });
        }
        if echo.failing && self.failing.is_none() {
            self.failing = Some(from);
        }
        let complete = !echo.failing && self.failing.is_none();
        for (j, (chain, theirs)) in self.chains.iter().zip(&echo.chains).enumerate() {
            let s = PartyId::from_index(j);
            if chain.agrees(theirs, complete) {
                continue;
            }
            self.senders.insert(s);
            self.witnesses.insert(from);
            if s == from || s == self.me {
                self.provable.insert(from);
            }
        }
        Ok(())
    }

    /// Whether the echo of `from` has arrived.
    pub fn heard(&self, from: PartyId) -> bool {
        self.heard.contains(&from)
    }

    /// Whether every peer's echo has arrived.
    pub fn complete(&self, parties: usize) -> bool {
        self.heard.len() + 1 >= parties
    }

    /// The verdict so far: `Ok(true)` if the operation may be accepted (every echo in, all
    /// agreeing, nobody gave up), `Ok(false)` if echoes are missing; an error once the
    /// broadcasts differ or someone gave up. `own` is whom this player's own failure blames.
    pub fn verdict(&self, parties: usize, own: Option<PartyId>) -> Result<bool, EchoError> {
        if !self.senders.is_empty() {
            return Err(self.differs(own));
        }
        match self.failing {
            Some(peer) if peer != self.me => Err(EchoError::GaveUp { peer }),
            _ => Ok(self.complete(parties)),
        }
    }

    /// Whether the chains differ anywhere (so far).
    pub fn differs_anywhere(&self) -> bool {
        !self.senders.is_empty()
    }

    fn differs(&self, own: Option<PartyId>) -> EchoError {
        let only = |set: &BTreeSet<PartyId>| {
            (set.len() == 1)
                .then(|| set.iter().next().copied())
                .flatten()
        };
        let blamed = only(&self.provable).or_else(|| {
            let s = only(&self.senders)?;
            (own == Some(s)).then_some(s)
        });
        EchoError::Differs {
            senders: self.senders.iter().copied().collect(),
            witnesses: self.witnesses.iter().copied().collect(),
            blamed,
        }
    }
}

/// Echoes that arrived before this player could take them, per sender (bounded).
#[derive(Clone, Debug, Default)]
pub struct EarlyEchoes(Vec<VecDeque<(u32, Vec<u8>)>>);

impl EarlyEchoes {
    /// None yet, at a table of `parties`.
    pub fn new(parties: usize) -> EarlyEchoes {
        EarlyEchoes(vec![VecDeque::new(); parties])
    }

    /// Keeps an echo of `from` with its depth; refuses more than [`MAX_EARLY_ECHOES`].
    pub fn push(&mut self, from: PartyId, depth: u32, payload: Vec<u8>) -> Result<(), EchoError> {
        let q =
            self.0
                .get_mut(from.index())
                .filter(|_| from.0 != 0)
                .ok_or(EchoError::Malformed {
                    from,
                    reason: "not a player",
                })?;
        if q.len() >= MAX_EARLY_ECHOES {
            return Err(EchoError::Malformed {
                from,
                reason: "more echoes than operations under way",
            });
        }
        q.push_back((depth, payload));
        Ok(())
    }

    /// The operation number of the oldest waiting echo of `from`, if any.
    pub fn front_op(&self, from: PartyId) -> Option<u32> {
        let (_, p) = self.0.get(from.index())?.front()?;
        Some(u32::from_be_bytes(p.get(..4)?.try_into().ok()?))
    }

    /// Takes the oldest waiting echo of `from`, with its depth.
    pub fn pop(&mut self, from: PartyId) -> Option<(u32, Vec<u8>)> {
        self.0.get_mut(from.index())?.pop_front()
    }

    /// Puts an echo back at the front of its sender's queue.
    pub fn unpop(&mut self, from: PartyId, depth: u32, payload: Vec<u8>) {
        if let Some(q) = self.0.get_mut(from.index()) {
            q.push_front((depth, payload));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(me: u16) -> EchoRound {
        EchoRound::new(1, PartyId(me), 3)
    }

    #[test]
    fn echoes_round_trip_and_garbage_names_the_sender() {
        let mut r = round(1);
        r.record(PartyId(2), b"card");
        let e = r.echo(false);
        let bytes = e.to_bytes();
        assert_eq!(bytes.len(), 7 + 4 * 3 + 32);
        assert_eq!(EchoMessage::from_bytes(&bytes, 3, PartyId(1)), Ok(e));
        let err = EchoMessage::from_bytes(&bytes[1..], 3, PartyId(2)).expect_err("short");
        assert_eq!(err.blamed(), Some(PartyId(2)));
    }

    #[test]
    fn a_sender_that_broadcast_two_versions_is_found_and_nobody_is_framed() {
        let (mut a, mut b) = (round(1), round(2));
        a.record(PartyId(3), b"card A");
        b.record(PartyId(3), b"card B");
        let ea = a.echo(false);
        let eb = b.echo(false);
        a.hear(PartyId(2), &eb).expect("decodes");
        b.hear(PartyId(1), &ea).expect("decodes");
        for r in [&a, &b] {
            let err = r.verdict(3, None).expect_err("differs");
            assert!(matches!(&err, EchoError::Differs { senders, .. } if senders == &[PartyId(3)]));
            assert_eq!(err.blamed(), None, "the honest witness is not blamed");
        }
        // If this player's own failure already named the equivocator, he deviated either way.
        assert_eq!(
            a.verdict(3, Some(PartyId(3))).expect_err("").blamed(),
            Some(PartyId(3))
        );
    }

    #[test]
    fn a_peer_misreporting_what_this_player_sent_is_blamed() {
        let (mut a, mut b) = (round(1), round(2));
        a.record(PartyId(1), b"mine");
        b.record(PartyId(1), b"forged");
        a.echo(false);
        a.hear(PartyId(2), &b.echo(false)).expect("decodes");
        assert_eq!(a.verdict(3, None).expect_err("").blamed(), Some(PartyId(2)));
    }

    #[test]
    fn a_failing_echo_compares_prefixes_and_agreeing_chains_keep_the_verdict() {
        let (mut a, mut b) = (round(1), round(2));
        a.record(PartyId(3), b"deck");
        a.record(PartyId(3), b"later");
        b.record(PartyId(3), b"deck");
        a.hear(PartyId(2), &b.echo(true)).expect("decodes");
        assert!(!a.differs_anywhere(), "a prefix agrees");
        assert_eq!(
            a.verdict(3, None),
            Err(EchoError::GaveUp { peer: PartyId(2) })
        );
        assert!(a.hear(PartyId(2), &b.echo(true)).is_err(), "a second echo");
    }
}
