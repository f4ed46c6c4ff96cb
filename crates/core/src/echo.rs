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
//! # Signatures: an equivocation names the equivocator
//!
//! Every broadcast of an echoed operation travels with its sender's ed25519 signature over
//! `(context, sender, operation, index, digest)` ([`BroadcastKeys`]: the index counts the
//! sender's broadcasts in the operation as the recipient received them), checked on arrival;
//! the echo carries, with each digest, the signature that came with it. A player holding two
//! valid signatures of one sender over different digests for one slot holds a proof that
//! anyone can check: that sender is named. An echo entry whose signature does not verify
//! names the witness that relayed it, never the purported signer. Because every player
//! echoes to every other, the proof reaches every honest player in the echo itself.
//!
//! The echo is not signed: everything in it that could blame another player is a signature
//! of that player, checkable on its own, and what it says about its own sender comes over that
//! sender's authenticated link.
//!
//! # Cost
//!
//! One more round per echoed operation, `N·(N − 1)` messages of `7 + 4·N + 96·b` bytes, `b`
//! the broadcasts of the operation; and 64 bytes of signature on each delivery of a
//! broadcast.
//!
//! [`Engine::is_broadcast`]: crate::Engine::is_broadcast
//! [`Engine::echoes`]: crate::Engine::echoes

use std::collections::{BTreeSet, VecDeque};

use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use sha3::{Digest, Sha3_256};

use crate::engine::Blame;
use crate::PartyId;

/// Domain separator of the statement a broadcast's signature covers.
pub const SIGNATURE_LABEL: &[u8] = b"facedown/broadcast-signature/v1";

/// An ed25519 signature's bytes.
pub type Sig = [u8; 64];

/// One player's broadcast signing key, every player's verifying key, and the context (the
/// roster's session) every signature binds.
#[derive(Clone)]
pub struct BroadcastKeys {
    me: PartyId,
    signing: SigningKey,
    keys: Vec<VerifyingKey>,
    context: Vec<u8>,
}

impl core::fmt::Debug for BroadcastKeys {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BroadcastKeys")
            .field("me", &self.me)
            .field("players", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl BroadcastKeys {
    /// Player `me`'s keys: its `signing` key, every player's verifying key (player 1 first,
    /// known to all before the session) and the `context`. `None` if `keys` does not list
    /// `me`'s own verifying key at its place.
    pub fn new(
        me: PartyId,
        signing: SigningKey,
        keys: Vec<VerifyingKey>,
        context: Vec<u8>,
    ) -> Option<BroadcastKeys> {
        let own = keys.get(me.index()).filter(|_| me.0 != 0)?;
        (*own == signing.verifying_key()).then_some(BroadcastKeys {
            me,
            signing,
            keys,
            context,
        })
    }

    /// The keys of player `me` of `parties` in **one process**: every key is derived from the
    /// player's number, so anyone can sign for anyone. This is for the in-process drivers
    /// (which hold every player's engine anyway), where signatures are measured and their
    /// checks exercised, not relied on; a networked game takes its keys from the roster.
    pub fn in_process(me: PartyId, parties: usize) -> BroadcastKeys {
        let key = |p: PartyId| {
            let mut h = Sha3_256::new();
            h.update(b"facedown/in-process-broadcast-key/v1");
            h.update(p.0.to_be_bytes());
            SigningKey::from_bytes(&h.finalize().into())
        };
        let keys = PartyId::all(parties)
            .map(|p| key(p).verifying_key())
            .collect();
        BroadcastKeys {
            me,
            signing: key(me),
            keys,
            context: b"in-process".to_vec(),
        }
    }

    /// The same keys for a sub-session (a hand of a longer game): `label` is appended to the
    /// context, so no signature of one sub-session verifies in another.
    pub fn within(&self, label: &[u8]) -> BroadcastKeys {
        let mut keys = self.clone();
        keys.context.extend((label.len() as u32).to_be_bytes());
        keys.context.extend(label);
        keys
    }

    /// The same keys bound to what an operation agreed on (`agreed`, the digest of every
    /// broadcast its echo round accepted, [`EchoRound::agreed`]): the context becomes
    /// `SHA3-256(label ‖ context ‖ agreed)`. After the setup that is every player's fresh
    /// hello, so no later signature of this game verifies in another game with the same roster.
    pub fn after(&self, agreed: &Head) -> BroadcastKeys {
        let mut h = Sha3_256::new();
        h.update(CHAIN_LABEL);
        h.update((self.context.len() as u32).to_be_bytes());
        h.update(&self.context);
        h.update(agreed);
        let mut keys = self.clone();
        keys.context = h.finalize().to_vec();
        keys
    }

    fn statement(&self, sender: PartyId, op: u32, index: u32, digest: &Head) -> Vec<u8> {
        let mut m = Vec::with_capacity(SIGNATURE_LABEL.len() + self.context.len() + 46);
        m.extend(SIGNATURE_LABEL);
        m.extend((self.context.len() as u32).to_be_bytes());
        m.extend(&self.context);
        m.extend(sender.0.to_be_bytes());
        m.extend(op.to_be_bytes());
        m.extend(index.to_be_bytes());
        m.extend(digest);
        m
    }

    /// This player's signature on its `index`-th broadcast `payload` of operation `op`.
    pub fn sign(&self, op: u32, index: u32, payload: &[u8]) -> Sig {
        let statement = self.statement(self.me, op, index, &digest(payload));
        self.signing.sign(&statement).to_bytes()
    }

    /// Whether `sig` is `sender`'s signature on digest `d` as its `index`-th broadcast of `op`.
    fn verifies(&self, sender: PartyId, op: u32, index: u32, d: &Head, sig: &Sig) -> bool {
        let Some(key) = self.keys.get(sender.index()).filter(|_| sender.0 != 0) else {
            return false;
        };
        let statement = self.statement(sender, op, index, d);
        key.verify_strict(&statement, &Signature::from_bytes(sig))
            .is_ok()
    }
}

/// The digest a chain keeps of a broadcast.
pub(crate) fn digest(payload: &[u8]) -> Head {
    let mut h = Sha3_256::new();
    h.update(ECHO_LABEL);
    h.update(payload);
    h.finalize().into()
}

/// Domain separator of the broadcast chains.
pub const ECHO_LABEL: &[u8] = b"facedown/echo/v1";

/// Domain separator of a signature context chained to an agreed operation.
pub const CHAIN_LABEL: &[u8] = b"facedown/broadcast-context/v1";

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
    /// A broadcast, or an echo entry, whose signature does not verify: `from` (who sent or
    /// relayed it) is blamed, never the purported signer.
    #[error("{from} sent {what} whose signature by {signer} does not verify")]
    BadSignature {
        /// Who sent or relayed it.
        from: PartyId,
        /// The purported signer.
        signer: PartyId,
        /// What it was.
        what: &'static str,
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
            EchoError::Malformed { from, .. } | EchoError::BadSignature { from, .. } => Some(*from),
            EchoError::Differs { blamed, .. } => *blamed,
            EchoError::GaveUp { .. } => None,
        }
    }
}

/// One entry of a chain: a broadcast's digest and its sender's signature.
pub type Entry = (Head, Sig);

/// One player's echo: every player's chain of signed digests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EchoMessage {
    /// The operation's number in the session (the setup is 1).
    pub op: u32,
    /// Whether the sender gave up (its chains are a prefix).
    pub failing: bool,
    /// Per player, player 1 first: the digests of the broadcasts received from it (sent, for
    /// the sender's own), in order, each with the signature that came with it.
    pub chains: Vec<Vec<Entry>>,
}

/// The bytes of one chain entry.
const ENTRY_BYTES: usize = 32 + 64;

impl EchoMessage {
    /// The encoding: `op` (4 bytes, big endian), `failing` (1), `N` (2), then per player
    /// `count` (4) and `count` entries of a 32-byte digest and a 64-byte signature.
    pub fn to_bytes(&self) -> Vec<u8> {
        let entries: usize = self.chains.iter().map(Vec::len).sum();
        let mut out = Vec::with_capacity(7 + 4 * self.chains.len() + ENTRY_BYTES * entries);
        out.extend(self.op.to_be_bytes());
        out.push(u8::from(self.failing));
        out.extend((self.chains.len() as u16).to_be_bytes());
        for chain in &self.chains {
            out.extend((chain.len() as u32).to_be_bytes());
            for (d, sig) in chain {
                out.extend(d);
                out.extend(sig);
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
            if count > r.0.len() / ENTRY_BYTES {
                return Err(bad("more entries than bytes"));
            }
            let chain = (0..count)
                .map(|_| Some((r.take::<32>()?, r.take::<64>()?)))
                .collect::<Option<Vec<_>>>()
                .ok_or(bad("truncated"))?;
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

/// One sender's broadcasts in the operation: the signed digest of each, in order.
#[derive(Clone, Debug, Default)]
struct Chain(Vec<Entry>);

impl Chain {
    /// Whether `theirs` agrees with this chain: equal when both are complete, else on the
    /// common prefix.
    fn agrees(&self, theirs: &[Entry], complete: bool) -> bool {
        let same = |(a, b): (&Entry, &Entry)| a.0 == b.0;
        if complete {
            return self.0.len() == theirs.len() && self.0.iter().zip(theirs).all(same);
        }
        self.0.iter().zip(theirs).all(same)
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
    aborted: BTreeSet<PartyId>,
    heard: BTreeSet<PartyId>,
    senders: BTreeSet<PartyId>,
    witnesses: BTreeSet<PartyId>,
    provable: BTreeSet<PartyId>,
    /// Every echo heard, by its witness: a broadcast this player receives after hearing an
    /// echo (a fast peer's failing echo arrives before the broadcasts it reports) is compared
    /// with it then ([`EchoRound::compare_late`]).
    echoes: Vec<(PartyId, Vec<Vec<Entry>>)>,
    /// Whether entries carry signatures (every round but the fresh-nonce round,
    /// [`crate::nonce`], whose messages come before anything a signature could bind).
    signed: bool,
}

impl EchoRound {
    /// The round of operation `op` at player `me` of `parties`.
    pub fn new(op: u32, me: PartyId, parties: usize) -> EchoRound {
        EchoRound {
            signed: true,
            op,
            me,
            chains: vec![Chain::default(); parties],
            sent: false,
            failing: None,
            aborted: BTreeSet::new(),
            heard: BTreeSet::new(),
            senders: BTreeSet::new(),
            witnesses: BTreeSet::new(),
            provable: BTreeSet::new(),
            echoes: Vec::new(),
        }
    }

    /// A round whose entries are digests without signatures: a difference names a witness
    /// only when it contradicts what that witness or this player sent, never a third player
    /// (nothing in it is transferable evidence).
    pub fn unsigned(op: u32, me: PartyId, parties: usize) -> EchoRound {
        EchoRound {
            signed: false,
            ..EchoRound::new(op, me, parties)
        }
    }

    /// Records `payload`, received from `from` (or this player's own) in an unsigned round.
    pub fn record_unsigned(&mut self, from: PartyId, payload: &[u8]) {
        let d = digest(payload);
        self.compare_late(from, self.next_index(from), &d);
        if let Some(c) = self.chains.get_mut(from.index()) {
            c.0.push((d, [0; 64]));
        }
    }

    /// The operation's number.
    pub fn op(&self) -> u32 {
        self.op
    }

    /// The index the next broadcast of `from` takes in its chain here.
    pub fn next_index(&self, from: PartyId) -> u32 {
        self.chains
            .get(from.index())
            .map_or(0, |c| u32::try_from(c.0.len()).unwrap_or(u32::MAX))
    }

    /// Records this player's own broadcast, signed for slot `index`: the first version sent
    /// for each slot (an honest player sends one version to everyone).
    pub fn record_own(&mut self, index: u32, payload: &[u8], sig: Sig) {
        let me = self.me;
        if self.next_index(me) != index {
            return;
        }
        let d = digest(payload);
        self.compare_late(me, index, &d);
        if let Some(c) = self.chains.get_mut(me.index()) {
            c.0.push((d, sig));
        }
    }

    /// Records a broadcast received from `from` once its signature verifies; else `from`,
    /// which sent it over its own authenticated link, is blamed.
    pub fn record(
        &mut self,
        from: PartyId,
        payload: &[u8],
        sig: &Sig,
        keys: &BroadcastKeys,
    ) -> Result<(), EchoError> {
        let d = digest(payload);
        if !keys.verifies(from, self.op, self.next_index(from), &d, sig) {
            return Err(EchoError::BadSignature {
                from,
                signer: from,
                what: "a broadcast",
            });
        }
        self.compare_late(from, self.next_index(from), &d);
        if let Some(c) = self.chains.get_mut(from.index()) {
            c.0.push((d, *sig));
        }
        Ok(())
    }

    /// Compares `s`'s broadcast `d` at slot `index`, received after some echoes were heard,
    /// with what those echoes report there. Their entries this player did not hold were
    /// checked when heard ([`EchoRound::hear`]: a valid signature of `s`, or the witness was
    /// blamed), and `d` is signed too, so a difference is two signed versions: `s`
    /// equivocated — unless `s` is the witness itself or this player, which the witness then
    /// misreports. In an unsigned round only those two cases name anyone.
    fn compare_late(&mut self, s: PartyId, index: u32, d: &Head) {
        let Ok(index) = usize::try_from(index) else {
            return;
        };
        for (witness, chains) in &self.echoes {
            let theirs = chains.get(s.index()).and_then(|c| c.get(index));
            if theirs.is_none_or(|(t, _)| t == d) {
                continue;
            }
            self.senders.insert(s);
            self.witnesses.insert(*witness);
            if s == *witness || s == self.me {
                self.provable.insert(*witness);
            } else if self.signed {
                self.provable.insert(s);
            }
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

    /// A peer's echo: compared with this player's chains. Every entry that differs from this
    /// player's must carry its sender's valid signature (else `from`, who relayed it, is
    /// blamed); two valid signatures of one sender on different digests for one slot name
    /// that sender.
    pub fn hear(
        &mut self,
        from: PartyId,
        echo: &EchoMessage,
        keys: &BroadcastKeys,
    ) -> Result<(), EchoError> {
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
            let two_versions = self.check_relayed(from, s, theirs, keys)?;
            if chain.agrees(theirs, complete) {
                continue;
            }
            self.senders.insert(s);
            self.witnesses.insert(from);
            if s == from || s == self.me {
                self.provable.insert(from);
            } else if two_versions {
                self.provable.insert(s);
            }
        }
        self.echoes.push((from, echo.chains.clone()));
        Ok(())
    }

    /// Checks the signature of every entry of `theirs` (sender `s`'s chain as `from` reports
    /// it) that this player does not hold itself; returns whether one of them, at a slot where
    /// this player holds another digest, is a second validly signed version.
    fn check_relayed(
        &self,
        from: PartyId,
        s: PartyId,
        theirs: &[Entry],
        keys: &BroadcastKeys,
    ) -> Result<bool, EchoError> {
        if !self.signed {
            return Ok(false);
        }
        let mine = self.chains.get(s.index()).map_or(&[][..], |c| &c.0[..]);
        let mut two_versions = false;
        for (i, (d, sig)) in theirs.iter().enumerate() {
            let held = mine.get(i);
            if held.is_some_and(|(m, _)| m == d) {
                continue;
            }
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            if !keys.verifies(s, self.op, index, d, sig) {
                return Err(EchoError::BadSignature {
                    from,
                    signer: s,
                    what: "an echo entry",
                });
            }
            two_versions |= held.is_some();
        }
        Ok(two_versions)
    }

    /// `from` aborted during the operation: it counts as a peer that gave up with the echo it
    /// sent, if it came (`echo`), else with empty chains, which agree with every prefix; an
    /// echo it sends later is dropped ([`EchoRound::aborted`]).
    pub fn hear_abort(
        &mut self,
        from: PartyId,
        echo: Option<&EchoMessage>,
        keys: &BroadcastKeys,
    ) -> Result<(), EchoError> {
        if !self.aborted.insert(from) || self.heard(from) {
            self.failing.get_or_insert(from);
            return Ok(());
        }
        let empty = EchoMessage {
            op: self.op,
            failing: true,
            chains: vec![Vec::new(); self.chains.len()],
        };
        self.hear(from, echo.unwrap_or(&empty), keys)?;
        self.failing.get_or_insert(from);
        Ok(())
    }

    /// Whether `from` aborted during the operation.
    pub fn aborted(&self, from: PartyId) -> bool {
        self.aborted.contains(&from)
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

    /// The digest of every sender's chain of digests (signatures left out: a sender may sign
    /// one message twice), what every honest player holds once the round is accepted.
    pub fn agreed(&self) -> Head {
        let mut h = Sha3_256::new();
        h.update(ECHO_LABEL);
        h.update(self.op.to_be_bytes());
        for chain in &self.chains {
            h.update((chain.0.len() as u32).to_be_bytes());
            for (d, _) in &chain.0 {
                h.update(d);
            }
        }
        h.finalize().into()
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

    fn keys(p: u16) -> BroadcastKeys {
        BroadcastKeys::in_process(PartyId(p), 3)
    }

    /// `r` receives `payload` from `from`, signed by `from` as its next broadcast.
    fn receive(r: &mut EchoRound, from: u16, payload: &[u8]) {
        let sig = keys(from).sign(r.op(), r.next_index(PartyId(from)), payload);
        r.record(PartyId(from), payload, &sig, &keys(r.me.0))
            .expect("signed");
    }

    #[test]
    fn echoes_round_trip_and_garbage_names_the_sender() {
        let mut r = round(1);
        receive(&mut r, 2, b"card");
        let e = r.echo(false);
        let bytes = e.to_bytes();
        assert_eq!(bytes.len(), 7 + 4 * 3 + 96);
        assert_eq!(EchoMessage::from_bytes(&bytes, 3, PartyId(1)), Ok(e));
        let err = EchoMessage::from_bytes(&bytes[1..], 3, PartyId(2)).expect_err("short");
        assert_eq!(err.blamed(), Some(PartyId(2)));
    }

    #[test]
    fn a_broadcast_signed_for_another_slot_or_by_another_player_names_its_sender() {
        let mut r = round(1);
        let wrong_slot = keys(2).sign(1, 5, b"card");
        let by_other = keys(3).sign(1, 0, b"card");
        let other_op = keys(2).sign(2, 0, b"card");
        for sig in [wrong_slot, by_other, other_op, [0; 64]] {
            let err = r.record(PartyId(2), b"card", &sig, &keys(1));
            assert_eq!(err.expect_err("refused").blamed(), Some(PartyId(2)));
        }
    }

    #[test]
    fn a_sender_that_signed_two_versions_is_named_by_every_witness() {
        let (mut a, mut b) = (round(1), round(2));
        receive(&mut a, 3, b"card A");
        receive(&mut b, 3, b"card B");
        let ea = a.echo(false);
        let eb = b.echo(false);
        a.hear(PartyId(2), &eb, &keys(1)).expect("decodes");
        b.hear(PartyId(1), &ea, &keys(2)).expect("decodes");
        for r in [&a, &b] {
            let err = r.verdict(3, None).expect_err("differs");
            assert!(matches!(&err, EchoError::Differs { senders, .. } if senders == &[PartyId(3)]));
            assert_eq!(err.blamed(), Some(PartyId(3)), "two signatures: a proof");
        }
    }

    #[test]
    fn a_forged_second_version_names_the_relayer_not_the_purported_signer() {
        let (mut a, mut b) = (round(1), round(2));
        receive(&mut a, 3, b"card");
        receive(&mut b, 3, b"card");
        let mut eb = b.echo(false);
        eb.chains[2][0].0 = digest(b"another card");
        let err = a.hear(PartyId(2), &eb, &keys(1)).expect_err("forged");
        assert!(matches!(
            err,
            EchoError::BadSignature {
                signer: PartyId(3),
                ..
            }
        ));
        assert_eq!(err.blamed(), Some(PartyId(2)));
    }

    #[test]
    fn a_missing_broadcast_is_not_a_proof_and_nobody_is_framed() {
        let (mut a, mut b) = (round(1), round(2));
        receive(&mut b, 3, b"card");
        a.echo(false);
        a.hear(PartyId(2), &b.echo(false), &keys(1))
            .expect("signed");
        let err = a.verdict(3, None).expect_err("differs");
        assert_eq!(
            err.blamed(),
            None,
            "player 3 omitted it to player 1, or 2 lies"
        );
        // If this player's own failure already named the sender, it deviated either way.
        assert_eq!(
            a.verdict(3, Some(PartyId(3))).expect_err("").blamed(),
            Some(PartyId(3))
        );
    }

    #[test]
    fn a_peer_misreporting_what_this_player_sent_is_blamed() {
        let (mut a, mut b) = (round(1), round(2));
        let sig = keys(1).sign(1, 0, b"mine");
        a.record_own(0, b"mine", sig);
        let mut eb = b.echo(false);
        eb.chains[0].push((digest(b"forged"), sig));
        a.echo(false);
        let err = a.hear(PartyId(2), &eb, &keys(1)).expect_err("forged");
        assert_eq!(err.blamed(), Some(PartyId(2)));
    }

    #[test]
    fn a_failing_echo_compares_prefixes_and_agreeing_chains_keep_the_verdict() {
        let (mut a, mut b) = (round(1), round(2));
        receive(&mut a, 3, b"deck");
        receive(&mut a, 3, b"later");
        receive(&mut b, 3, b"deck");
        a.hear(PartyId(2), &b.echo(true), &keys(1))
            .expect("decodes");
        assert!(!a.differs_anywhere(), "a prefix agrees");
        assert_eq!(
            a.verdict(3, None),
            Err(EchoError::GaveUp { peer: PartyId(2) })
        );
        assert!(
            a.hear(PartyId(2), &b.echo(true), &keys(1)).is_err(),
            "a second echo"
        );
    }

    /// A peer that failed early echoes before this player has the broadcasts it reports (on
    /// the network a player may still be in the fresh-nonce round). The version that arrives
    /// later is compared with the echo then: before, the echo had agreed with an empty
    /// prefix, the peer only "gave up", and the engine's own verdict — a proof of player 2
    /// that failed against player 3's other hello — framed player 2.
    #[test]
    fn a_broadcast_received_after_a_failing_echo_is_compared_with_it() {
        let (mut a, mut b) = (round(1), round(2));
        receive(&mut b, 3, b"hello B");
        a.hear(PartyId(2), &b.echo(true), &keys(1))
            .expect("signed by 3");
        assert!(!a.differs_anywhere(), "nothing to compare yet");
        receive(&mut a, 3, b"hello A");
        let err = a.verdict(3, Some(PartyId(2))).expect_err("differs");
        assert!(matches!(&err, EchoError::Differs { senders, .. } if senders == &[PartyId(3)]));
        assert_eq!(err.blamed(), Some(PartyId(3)), "two signatures: a proof");
    }

    #[test]
    fn a_later_broadcast_equal_to_the_failing_echo_keeps_the_gave_up_verdict() {
        let (mut a, mut b) = (round(1), round(2));
        receive(&mut b, 3, b"hello");
        a.hear(PartyId(2), &b.echo(true), &keys(1))
            .expect("signed by 3");
        receive(&mut a, 3, b"hello");
        receive(&mut a, 3, b"more");
        assert!(!a.differs_anywhere());
        assert_eq!(
            a.verdict(3, None),
            Err(EchoError::GaveUp { peer: PartyId(2) })
        );
    }

    /// The witness's own broadcast, received after its echo, differs from what the echo says
    /// it sent: the witness is named, as when the echo comes last.
    #[test]
    fn a_witness_whose_later_broadcast_contradicts_its_echo_is_blamed() {
        let (mut a, mut b) = (round(1), round(2));
        let said = keys(2).sign(1, 0, b"said");
        b.record_own(0, b"said", said);
        a.hear(PartyId(2), &b.echo(true), &keys(1))
            .expect("signed by 2");
        let sent = keys(2).sign(1, 0, b"sent");
        a.record(PartyId(2), b"sent", &sent, &keys(1))
            .expect("signed");
        assert_eq!(
            a.verdict(3, None).expect_err("differs").blamed(),
            Some(PartyId(2))
        );
    }
}
