//! Networked players: one dealer or mental-poker player per process (or thread), talking to
//! the others through any [`Channel`].
//!
//! Both backends' players are sans-IO state machines; this module only moves their messages.
//! It keeps what the dealer's notes ask of a transport: links are FIFO, and a message that
//! arrives before its player has reached the step it belongs to (a value for an opening not
//! yet scheduled, a reveal during play, a later shuffle turn) is **buffered** until then.
//!
//! # Phases
//!
//! * **hello** (both backends): every player broadcasts 32 fresh random bytes (and, for the
//!   dealer, its fresh ed25519 signature key for this game, sent over the authenticated link
//!   so it is bound to the sender). The game's session id is
//!   `SHA3-256("facedown-net/session/v1" ‖ backend ‖ roster session ‖ nonce_1 ‖ key_1 ‖ …)`: fresh
//!   even when a roster is reused, so signatures and proofs cannot be replayed across games.
//! * **dealer**: setup (commitments, helper halves), the hands (one parallel batch of private
//!   openings), the public cards (one batch), the reveal of every commitment, then a
//!   **transcript exchange** — every player broadcasts the signed envelopes it received
//!   privately — so that every player holds the whole signed transcript and runs the audit
//!   itself. The in-memory driver has no such phase (its auditor sees everything).
//! * **poker**: key shares, `N` shuffle turns, reveal tokens ([`facedown_poker::player`]).
//!
//! At the end every player sends `Bye` and waits for everyone's; a player that fails sends
//! `Abort` with its error and whom it blames before closing, so the others stop at once.
//!
//! # Accounting
//!
//! `cost.messages` and `cost.bytes` count what **this player sent**: one per delivery (a
//! broadcast counts `N − 1`) and the size of the backend's own encoding (the signed dealer
//! envelope, the poker message — the quantities the in-memory drivers count), or of the
//! [`Wire`] encoding for the hello and the transcript exchange; `Bye`/`Abort` are not counted.
//! `cost.rounds` is the largest causal depth this player saw (see [`crate::channel`]); a
//! value forwarded on receipt has depth one more than the value it forwards, every other
//! message one more than the deepest message its sender had processed. The run's totals
//! are [`crate::total_cost`] of every player's cost. The transport's own overhead (frames,
//! Noise tags, handshakes) is in [`PlayerReport::wire`].

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use ed25519_dalek::SigningKey;
use facedown_core::{Cost, PartyId};
use facedown_dealer::{
    audit, Body, Envelope, Operation, Params, Player, Recipient, Roster as SigRoster, Route,
    Scheme, SessionId, Transcript,
};
use facedown_poker::messages::Message;
use facedown_poker::player::{DealParams, GameSetup, Player as PokerPlayer};
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};
use sha3::{Digest, Sha3_256};

use crate::channel::{Channel, WireStats};
use crate::error::NetError;
use crate::wire::Wire;

/// Which protocol deals the cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// The permutation-sharing dealer ([`facedown_dealer`]), general scheme.
    Dealer,
    /// Barnett–Smart mental poker ([`facedown_poker`]).
    Poker,
}

impl Backend {
    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Dealer => "dealer",
            Backend::Poker => "poker",
        }
    }
}

/// What is dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Ninety-Nine: a 37-card deck, twelve cards to each of three players, one trump face up.
    NinetyNine,
    /// Hold'em on a 52-card deck: two cards to each player, five public cards.
    Poker52,
}

impl Workload {
    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Workload::NinetyNine => "ninety-nine",
            Workload::Poker52 => "poker52",
        }
    }

    /// `(cards, hand, public)`.
    pub fn shape(self) -> (usize, usize, usize) {
        match self {
            Workload::NinetyNine => (37, 12, 1),
            Workload::Poker52 => (52, 2, 5),
        }
    }
}

/// A game as every player sees it before it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSpec {
    /// The protocol.
    pub backend: Backend,
    /// The deal.
    pub workload: Workload,
    /// Number of players.
    pub players: usize,
    /// The roster's session (bound into every handshake and into the game's session id).
    pub roster_session: [u8; 32],
    /// How long to wait for any one message before giving up, naming the awaited peer.
    pub timeout: Duration,
}

impl GameSpec {
    /// Checks that the workload fits the players and the backend.
    pub fn validate(&self) -> Result<(), NetError> {
        let (cards, hand, public) = self.workload.shape();
        let min = match self.backend {
            Backend::Dealer => 3,
            Backend::Poker => 2,
        };
        if self.players < min {
            return Err(NetError::Config(format!(
                "the {} backend needs at least {min} players, got {}",
                self.backend.name(),
                self.players
            )));
        }
        if self.players * hand + public > cards {
            return Err(NetError::Config(format!(
                "{}: {} hands of {hand} and {public} public cards do not fit {cards} cards",
                self.workload.name(),
                self.players
            )));
        }
        Ok(())
    }
}

/// The audit's verdict as one player sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditSummary {
    /// Whether the audit (dealer) or every proof (poker) passed.
    pub passed: bool,
    /// The player blamed for the first failure.
    pub blame: Option<u16>,
    /// The first failure, in words.
    pub first: Option<String>,
}

/// The cost of one phase, from this player's account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseCost {
    /// The phase.
    pub name: String,
    /// Messages and bytes this player sent in it; rounds it added to the causal depth it
    /// had seen before (for the whole run, use `end_depth`: a phase's rounds are the largest
    /// `end_depth` of any player minus the largest of the previous phase).
    pub cost: Cost,
    /// The causal depth this player had reached at the end of the phase.
    pub end_depth: u32,
}

/// What one player learned and what the game cost it (the deal's output shape, one object per
/// player).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerReport {
    /// This player.
    pub player: u16,
    /// The protocol.
    pub backend: Backend,
    /// The deal.
    pub workload: Workload,
    /// Number of players.
    pub players: usize,
    /// Deck size.
    pub cards: usize,
    /// Every player's hand as this player knows it: its own, and empty lists for the others.
    pub hands: Vec<Vec<u16>>,
    /// The public cards.
    pub public: Vec<u16>,
    /// The dealer's whole deal `A(0), …, A(n − 1)`, public once the audit has opened every
    /// permutation (`None` for poker, where nothing beyond the dealt cards is ever opened).
    pub deal: Option<Vec<u16>>,
    /// The audit.
    pub audit: AuditSummary,
    /// What this player sent (see the module docs).
    pub cost: Cost,
    /// Per phase.
    pub phases: Vec<PhaseCost>,
    /// The transport's own counters.
    pub wire: WireStats,
    /// Wall time of the game at this player, connection excluded, in milliseconds.
    pub wall_time_ms: f64,
}

/// Messages as the game handles them, decoded at arrival.
#[derive(Debug)]
enum Msg {
    Hello {
        nonce: [u8; 32],
        signing_key: Option<[u8; 32]>,
    },
    Env(Envelope),
    Transcript(Vec<Envelope>),
    Poker(Message),
}

#[derive(Debug)]
struct Incoming {
    from: PartyId,
    depth: u32,
    msg: Msg,
}

/// Every player's hello: nonce and (dealer) signature key.
type Hellos = BTreeMap<PartyId, ([u8; 32], Option<[u8; 32]>)>;

/// A hook called after each phase with its name and the channel (fault injection in tests).
pub type PhaseHook<'a, C> = &'a mut dyn FnMut(&str, &mut C);

struct Session<'a, C: Channel> {
    chan: &'a mut C,
    me: PartyId,
    players: usize,
    timeout: Duration,
    stash: VecDeque<Incoming>,
    byes: BTreeSet<PartyId>,
    clock: u32,
    phase_start: u32,
    phase_cost: Cost,
    phases: Vec<PhaseCost>,
}

impl<C: Channel> Session<'_, C> {
    fn peers(&self) -> impl Iterator<Item = PartyId> {
        let me = self.me;
        PartyId::all(self.players).filter(move |&p| p != me)
    }

    fn observe(&mut self, depth: u32) {
        self.clock = self.clock.max(depth);
    }

    fn end_phase(&mut self, name: &str) {
        let mut cost = std::mem::take(&mut self.phase_cost);
        cost.rounds = u64::from(self.clock.saturating_sub(self.phase_start));
        self.phase_start = self.clock;
        self.phases.push(PhaseCost {
            name: name.into(),
            cost,
            end_depth: self.clock,
        });
    }

    /// Sends `wire` to `to`; counts `bytes` as protocol bytes unless `None`.
    fn send(
        &mut self,
        to: PartyId,
        depth: u32,
        wire: &Wire,
        bytes: Option<usize>,
    ) -> Result<(), NetError> {
        let payload = wire.to_bytes()?;
        self.chan.send(to, depth, &payload)?;
        self.observe(depth);
        if let Some(b) = bytes {
            self.phase_cost.messages += 1;
            self.phase_cost.bytes += b as u64;
        }
        Ok(())
    }

    fn broadcast(&mut self, depth: u32, wire: &Wire, bytes: Option<usize>) -> Result<(), NetError> {
        for p in self.peers().collect::<Vec<_>>() {
            self.send(p, depth, wire, bytes)?;
        }
        Ok(())
    }

    fn send_envelope(&mut self, env: &Envelope, depth: u32) -> Result<(), NetError> {
        let bytes = env.to_bytes();
        let len = bytes.len();
        let wire = Wire::Dealer(bytes);
        match env.to {
            Recipient::All => self.broadcast(depth, &wire, Some(len)),
            Recipient::Party(p) => self.send(p, depth, &wire, Some(len)),
        }
    }

    fn decode(&self, from: PartyId, wire: Wire) -> Result<Option<Msg>, NetError> {
        Ok(Some(match wire {
            Wire::Hello { nonce, signing_key } => Msg::Hello { nonce, signing_key },
            Wire::Dealer(bytes) => {
                let env = Envelope::from_bytes(&bytes, from)?;
                if env.from != from {
                    return Err(NetError::Malformed {
                        peer: from,
                        reason: format!("it relayed a message of {} as its own", env.from),
                    });
                }
                Msg::Env(env)
            }
            Wire::Transcript(list) => Msg::Transcript(
                list.iter()
                    .map(|b| Envelope::from_bytes(b, from))
                    .collect::<Result<_, _>>()?,
            ),
            Wire::Poker(bytes) => Msg::Poker(Message::from_bytes(from, &bytes)?),
            Wire::Abort { blame, reason } => {
                return Err(NetError::Aborted {
                    peer: from,
                    blame: blame.map(PartyId),
                    reason,
                })
            }
            Wire::Bye => return Ok(None),
        }))
    }

    /// One message of a kind from every other player, in arrival order: `take` returns the
    /// payload of a message of the kind and `None` for any other (buffered for later). On a
    /// timeout, blames the first player not heard from.
    fn one_from_each_peer<T>(
        &mut self,
        what: &str,
        take: impl Fn(&Msg) -> Option<T>,
    ) -> Result<Vec<T>, NetError> {
        let mut got = Vec::new();
        let mut heard = BTreeSet::new();
        while heard.len() + 1 < self.players {
            let missing: Vec<PartyId> = self.peers().filter(|p| !heard.contains(p)).collect();
            let inc = self.next(what, &|| missing.clone(), &mut |i| {
                !heard.contains(&i.from) && take(&i.msg).is_some()
            })?;
            self.observe(inc.depth);
            heard.insert(inc.from);
            got.extend(take(&inc.msg));
        }
        Ok(got)
    }

    /// The next message satisfying `wanted`, buffering every other one. On a timeout, blames
    /// the first of `waiting()`.
    fn next(
        &mut self,
        what: &str,
        waiting: &dyn Fn() -> Vec<PartyId>,
        wanted: &mut dyn FnMut(&Incoming) -> bool,
    ) -> Result<Incoming, NetError> {
        if let Some(pos) = self.stash.iter().position(&mut *wanted) {
            if let Some(found) = self.stash.remove(pos) {
                return Ok(found);
            }
        }
        loop {
            match self.chan.recv(self.timeout) {
                Ok(Some(frame)) => {
                    let wire = Wire::from_bytes(&frame.payload, frame.from)?;
                    match self.decode(frame.from, wire)? {
                        None => {
                            self.byes.insert(frame.from);
                        }
                        Some(msg) => {
                            let inc = Incoming {
                                from: frame.from,
                                depth: frame.depth,
                                msg,
                            };
                            if wanted(&inc) {
                                return Ok(inc);
                            }
                            self.stash.push_back(inc);
                        }
                    }
                }
                Ok(None) => {
                    return Err(NetError::Timeout {
                        peer: waiting().first().copied().unwrap_or(self.me),
                        what: what.into(),
                        after: self.timeout,
                    })
                }
                Err(NetError::Disconnected { peer }) if self.byes.contains(&peer) => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// One `Hello` from every peer.
    fn hello<R: RngCore + CryptoRng + ?Sized>(
        &mut self,
        signing_key: Option<[u8; 32]>,
        rng: &mut R,
    ) -> Result<Hellos, NetError> {
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        let wire = Wire::Hello { nonce, signing_key };
        let len = wire.to_bytes()?.len();
        self.broadcast(1, &wire, Some(len))?;
        let mut got = BTreeMap::new();
        got.insert(self.me, (nonce, signing_key));
        while got.len() < self.players {
            let missing: Vec<PartyId> = self.peers().filter(|p| !got.contains_key(p)).collect();
            let inc = self.next("its hello", &|| missing.clone(), &mut |i| {
                matches!(i.msg, Msg::Hello { .. }) && !got.contains_key(&i.from)
            })?;
            self.observe(inc.depth);
            if let Msg::Hello { nonce, signing_key } = inc.msg {
                got.insert(inc.from, (nonce, signing_key));
            }
        }
        self.end_phase("hello (fresh session, signature keys)");
        Ok(got)
    }

    /// Says goodbye and waits for everyone's.
    fn bye(&mut self) -> Result<(), NetError> {
        let payload = Wire::Bye.to_bytes()?;
        for p in self.peers().collect::<Vec<_>>() {
            self.chan.send(p, 0, &payload)?;
        }
        while self.byes.len() + 1 < self.players {
            let missing = self
                .peers()
                .find(|p| !self.byes.contains(p))
                .unwrap_or(self.me);
            match self.chan.recv(self.timeout) {
                // Nothing but a Bye is expected now: other messages are dropped.
                Ok(Some(frame)) => match Wire::from_bytes(&frame.payload, frame.from)? {
                    Wire::Abort { blame, reason } => {
                        return Err(NetError::Aborted {
                            peer: frame.from,
                            blame: blame.map(PartyId),
                            reason,
                        })
                    }
                    Wire::Bye => {
                        self.byes.insert(frame.from);
                    }
                    _ => {}
                },
                Ok(None) => {
                    return Err(NetError::Timeout {
                        peer: missing,
                        what: "its goodbye".into(),
                        after: self.timeout,
                    })
                }
                Err(NetError::Disconnected { peer }) if self.byes.contains(&peer) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn abort(&mut self, e: &NetError) {
        if let Ok(payload) = (Wire::Abort {
            blame: e.blamed().map(|p| p.0),
            reason: e.to_string(),
        })
        .to_bytes()
        {
            for p in self.peers().collect::<Vec<_>>() {
                let _ = self.chan.send(p, 0, &payload);
            }
        }
    }
}

fn session_id(backend: Backend, roster_session: &[u8; 32], hellos: &Hellos) -> [u8; 32] {
    let mut h = Sha3_256::new();
    h.update(b"facedown-net/session/v1");
    h.update(backend.name().as_bytes());
    h.update(roster_session);
    for (p, (nonce, key)) in hellos {
        h.update(p.0.to_be_bytes());
        h.update(nonce);
        h.update(key.unwrap_or([0; 32]));
    }
    h.finalize().into()
}

/// Runs one player of `spec` over `chan`, drawing every secret from `rng`. On failure the
/// player tells every peer why (`Abort`) and returns the error, which names the party it
/// blames. `hook` is called after each phase.
pub fn play_with_rng<C, R>(
    chan: &mut C,
    spec: &GameSpec,
    rng: &mut R,
    hook: PhaseHook<'_, C>,
) -> Result<PlayerReport, NetError>
where
    C: Channel,
    R: RngCore + CryptoRng,
{
    spec.validate()?;
    if chan.players() != spec.players {
        return Err(NetError::Config(format!(
            "the channel joins {} players, the game has {}",
            chan.players(),
            spec.players
        )));
    }
    let start = Instant::now();
    let me = chan.me();
    let mut s = Session {
        me,
        players: spec.players,
        timeout: spec.timeout,
        stash: VecDeque::new(),
        byes: BTreeSet::new(),
        clock: 0,
        phase_start: 0,
        phase_cost: Cost::ZERO,
        phases: vec![],
        chan,
    };
    let result = match spec.backend {
        Backend::Dealer => dealer_game(&mut s, spec, rng, hook),
        Backend::Poker => poker_game(&mut s, spec, rng, hook),
    };
    let mut report = match result {
        Ok(r) => r,
        Err(e) => {
            s.abort(&e);
            return Err(e);
        }
    };
    if let Err(e) = s.bye() {
        s.abort(&e);
        return Err(e);
    }
    report.cost = s.phases.iter().fold(Cost::ZERO, |acc, p| Cost {
        messages: acc.messages + p.cost.messages,
        bytes: acc.bytes + p.cost.bytes,
        rounds: 0,
    });
    report.cost.rounds = u64::from(s.clock);
    report.phases = std::mem::take(&mut s.phases);
    report.wire = s.chan.stats();
    report.wall_time_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(report)
}

fn empty_report(spec: &GameSpec, me: PartyId) -> PlayerReport {
    let (cards, _, _) = spec.workload.shape();
    PlayerReport {
        player: me.0,
        backend: spec.backend,
        workload: spec.workload,
        players: spec.players,
        cards,
        hands: vec![vec![]; spec.players],
        public: vec![],
        deal: None,
        audit: AuditSummary {
            passed: false,
            blame: None,
            first: None,
        },
        cost: Cost::ZERO,
        phases: vec![],
        wire: WireStats::default(),
        wall_time_ms: 0.0,
    }
}

/// The dealer's openings: every hand in one batch, then the public cards.
fn dealer_batches(
    scheme: &Scheme,
    hand: usize,
    public: usize,
) -> Result<Vec<Vec<Operation>>, NetError> {
    let mut next = 0u32;
    let mut op = |position: usize, route: Route| -> Result<Operation, NetError> {
        let position = u16::try_from(position)
            .map_err(|_| NetError::Config(format!("position {position} is too large")))?;
        let o = Operation {
            id: next,
            position,
            route,
        };
        next += 1;
        Ok(o)
    };
    let mut hands = vec![];
    for p in PartyId::all(scheme.players).filter(|_| hand > 0) {
        let route = scheme.private_route(p)?;
        for i in p.index() * hand..(p.index() + 1) * hand {
            hands.push(op(i, route)?);
        }
    }
    let start = scheme.players * hand;
    let publics = (start..start + public)
        .map(|i| op(i, Route::Public))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(vec![hands, publics])
}

fn phase_of(body: &Body) -> u8 {
    match body {
        Body::Commit { .. } | Body::Helper { .. } => 0,
        Body::Value { .. } | Body::Values { .. } => 1,
        Body::Reveal { .. } => 2,
    }
}

fn dealer_game<C: Channel, R: RngCore + CryptoRng>(
    s: &mut Session<'_, C>,
    spec: &GameSpec,
    rng: &mut R,
    hook: PhaseHook<'_, C>,
) -> Result<PlayerReport, NetError> {
    let me = s.me;
    let n_players = spec.players;
    let (cards, hand, public) = spec.workload.shape();
    let scheme = Scheme::general(n_players, cards)?;

    // Hello: fresh session and signature keys.
    let mut secret = [0u8; 32];
    rng.fill_bytes(&mut secret);
    let key = SigningKey::from_bytes(&secret);
    let hellos = s.hello(Some(key.verifying_key().to_bytes()), rng)?;
    hook("hello", s.chan);
    let mut keys = Vec::with_capacity(n_players);
    for (p, (_, k)) in &hellos {
        let k = k.ok_or_else(|| NetError::Malformed {
            peer: *p,
            reason: "its hello carries no signature key".into(),
        })?;
        keys.push(facedown_dealer::messages::PublicKey(k));
    }
    let params = Params {
        scheme: scheme.clone(),
        session: SessionId(session_id(spec.backend, &spec.roster_session, &hellos)),
        roster: SigRoster { keys },
    };

    // Setup.
    let player = Player::new_with_rng(params.clone(), me, key, None, rng)?;
    let (waiting, out) = player.commit();
    let depth = s.clock + 1;
    for env in &out {
        s.send_envelope(env, depth)?;
    }
    let mut owed: BTreeMap<PartyId, usize> = s.peers().map(|p| (p, 1)).collect();
    for pair in &scheme.pairs {
        for holder in [pair.outer_holder, pair.inner_holder] {
            if holder == me {
                *owed.entry(scheme.last()).or_default() += 1;
            }
        }
    }
    let mut setup_msgs = vec![];
    while owed.values().any(|&k| k > 0) {
        let waiting_for: Vec<PartyId> = owed
            .iter()
            .filter(|(_, &k)| k > 0)
            .map(|(p, _)| *p)
            .collect();
        let inc = s.next(
            "its commitments and helper halves",
            &|| waiting_for.clone(),
            &mut |i| {
                matches!(&i.msg, Msg::Env(e) if phase_of(&e.body) == 0)
                    && owed.get(&i.from).is_some_and(|&k| k > 0)
            },
        )?;
        s.observe(inc.depth);
        if let Some(k) = owed.get_mut(&inc.from) {
            *k -= 1;
        }
        if let Msg::Env(e) = inc.msg {
            setup_msgs.push(e);
        }
    }
    let mut ready = waiting.receive_setup(&setup_msgs)?;
    s.end_phase("setup (commitments and helper halves)");
    hook("setup", s.chan);

    // Play: hands, then public cards.
    let batches = dealer_batches(&scheme, hand, public)?;
    let names = ["deal hands (private openings)", "open publicly"];
    for (batch, name) in batches.iter().zip(names) {
        let ids: BTreeSet<u32> = batch.iter().map(|o| o.id).collect();
        let mut expected: BTreeMap<(u32, u16), PartyId> = BTreeMap::new();
        for op in batch {
            let plan = scheme.plan(op.route)?;
            for (k, h) in plan.hops.iter().enumerate() {
                let to_me = match h.to {
                    Recipient::Party(p) => p == me,
                    Recipient::All => h.from != me,
                };
                if to_me {
                    expected.insert((op.id, k as u16), h.from);
                }
            }
        }
        let depth = s.clock + 1;
        for op in batch {
            for env in ready.schedule(*op)? {
                s.send_envelope(&env, depth)?;
            }
        }
        while !expected.is_empty() {
            let waiting_for: Vec<PartyId> = expected.values().copied().collect();
            let inc = s.next("a value of an opening", &|| waiting_for.clone(), &mut |i| {
                matches!(&i.msg, Msg::Env(Envelope { body: Body::Value { op, .. }, .. }) if ids.contains(op))
            })?;
            s.observe(inc.depth);
            let Msg::Env(env) = inc.msg else { continue };
            if let Body::Value { op, hop, .. } = env.body {
                expected.remove(&(op, hop));
            }
            let (out, _) = ready.receive(&env)?;
            for o in out {
                s.send_envelope(&o, inc.depth + 1)?;
            }
        }
        s.end_phase(name);
        hook(name, s.chan);
    }

    // Reveal every commitment.
    let (mut done, env) = ready.reveal();
    let depth = s.clock + 1;
    s.send_envelope(&env, depth)?;
    let mut revealed = BTreeSet::new();
    while revealed.len() + 1 < n_players {
        let missing: Vec<PartyId> = s.peers().filter(|p| !revealed.contains(p)).collect();
        let inc = s.next("its openings", &|| missing.clone(), &mut |i| {
            matches!(
                &i.msg,
                Msg::Env(Envelope {
                    body: Body::Reveal { .. },
                    ..
                })
            ) && !revealed.contains(&i.from)
        })?;
        s.observe(inc.depth);
        if let Msg::Env(e) = inc.msg {
            done.receive_reveal(&e)?;
            revealed.insert(inc.from);
        }
    }
    s.end_phase("reveal (openings of every commitment)");
    hook("reveal", s.chan);

    // Transcript exchange: everything received privately, so everyone can audit everything.
    let view = done.into_view();
    let private: Vec<Vec<u8>> = view
        .received
        .iter()
        .filter(|e| e.to != Recipient::All)
        .map(Envelope::to_bytes)
        .collect();
    let wire = Wire::Transcript(private);
    let len = wire.to_bytes()?.len();
    let depth = s.clock + 1;
    s.broadcast(depth, &wire, Some(len))?;
    let mut all: Vec<Envelope> = view.sent.iter().chain(&view.received).cloned().collect();
    let mut heard = BTreeSet::new();
    while heard.len() + 1 < n_players {
        let missing: Vec<PartyId> = s.peers().filter(|p| !heard.contains(p)).collect();
        let inc = s.next("its transcript", &|| missing.clone(), &mut |i| {
            matches!(i.msg, Msg::Transcript(_)) && !heard.contains(&i.from)
        })?;
        s.observe(inc.depth);
        heard.insert(inc.from);
        if let Msg::Transcript(list) = inc.msg {
            all.extend(list);
        }
    }
    s.end_phase("transcript exchange (for the audit)");
    // One copy of each envelope, in an order that keeps every sender's sequence numbers
    // increasing: setup, play, reveals; within a phase by sequence number.
    all.sort_by_key(|e| (phase_of(&e.body), e.seq, e.from, e.to_bytes()));
    all.dedup();
    let mut transcript = Transcript::new(params);
    transcript.operations = batches.concat();
    transcript.envelopes = all;
    let (audit_summary, deal) = match audit(&transcript) {
        Ok(r) => (
            AuditSummary {
                passed: r.passed,
                blame: r.blame.map(|p| p.0),
                first: r.first().map(|f| f.to_string()),
            },
            r.deal,
        ),
        Err(e) => {
            let blamed = NetError::Dealer(e.clone()).blamed();
            (
                AuditSummary {
                    passed: false,
                    blame: blamed.map(|p| p.0),
                    first: Some(e.to_string()),
                },
                None,
            )
        }
    };
    let mut report = empty_report(spec, me);
    let mut mine: Vec<_> = view.learned.iter().filter(|l| !l.public).collect();
    mine.sort_by_key(|l| l.position);
    report.hands[me.index()] = mine.iter().map(|l| l.card).collect();
    let mut open: Vec<_> = view.learned.iter().filter(|l| l.public).collect();
    open.sort_by_key(|l| l.position);
    report.public = open.iter().map(|l| l.card).collect();
    report.deal = deal;
    report.audit = audit_summary;
    Ok(report)
}

fn poker_game<C: Channel, R: RngCore + CryptoRng>(
    s: &mut Session<'_, C>,
    spec: &GameSpec,
    rng: &mut R,
    hook: PhaseHook<'_, C>,
) -> Result<PlayerReport, NetError> {
    let me = s.me;
    let n_players = spec.players;
    let (cards, hand, public) = spec.workload.shape();
    let params = DealParams {
        players: n_players,
        cards: u16::try_from(cards).map_err(|_| NetError::Config("deck too large".into()))?,
        hand,
        public,
    };
    let hellos = s.hello(None, rng)?;
    hook("hello", s.chan);
    let session = session_id(spec.backend, &spec.roster_session, &hellos);
    let setup = GameSetup::new(&session, params)?;

    let send = |s: &mut Session<'_, C>, msg: Message| -> Result<(), NetError> {
        let bytes = msg.to_bytes()?;
        let len = bytes.len();
        let depth = s.clock + 1;
        s.broadcast(depth, &Wire::Poker(bytes), Some(len))
    };

    // Key shares.
    let (waiting, share) = PokerPlayer::new_with_rng(
        setup,
        me,
        merlin::Transcript::new(b"facedown-poker deal"),
        rng,
    )?;
    send(s, Message::KeyShare(share))?;
    let mut shares = vec![share];
    shares.extend(s.one_from_each_peer("its key share", |m| match m {
        Msg::Poker(Message::KeyShare(k)) => Some(*k),
        _ => None,
    })?);
    let mut shuffling = waiting.receive_key_shares(&shares)?;
    s.end_phase("key shares");
    hook("keys", s.chan);

    // Shuffles in turn.
    for turn in PartyId::all(n_players) {
        if turn == me {
            let msg = shuffling.shuffle_with_rng(rng)?;
            send(s, Message::Shuffle(Box::new(msg)))?;
        } else {
            let inc = s.next("its shuffle", &|| vec![turn], &mut |i| {
                i.from == turn && matches!(i.msg, Msg::Poker(Message::Shuffle(_)))
            })?;
            s.observe(inc.depth);
            if let Msg::Poker(Message::Shuffle(m)) = inc.msg {
                shuffling.receive_shuffle(&m)?;
            }
        }
    }
    let dealing = shuffling.finish()?;
    s.end_phase("shuffles");
    hook("shuffles", s.chan);

    // Reveal tokens.
    send(s, Message::Reveal(dealing.reveal_message_with_rng(rng)))?;
    let reveals = s.one_from_each_peer("its reveal tokens", |m| match m {
        Msg::Poker(Message::Reveal(r)) => Some(r.clone()),
        _ => None,
    })?;
    let dealt = dealing.receive_reveals(&reveals)?;
    s.end_phase("reveal tokens");
    hook("reveal", s.chan);

    let mut report = empty_report(spec, me);
    report.hands[me.index()] = dealt.hand;
    report.public = dealt.public;
    report.audit = AuditSummary {
        passed: true,
        blame: None,
        first: None,
    };
    Ok(report)
}

/// The phases of a run from every player's report: messages and bytes summed over players,
/// rounds the growth of the largest causal depth any player reached (`end_depth`).
pub fn merge_phases(reports: &[PlayerReport]) -> Vec<PhaseCost> {
    let mut out: Vec<PhaseCost> = Vec::new();
    for r in reports {
        for (k, p) in r.phases.iter().enumerate() {
            match out.get_mut(k) {
                Some(m) => {
                    m.cost.messages += p.cost.messages;
                    m.cost.bytes += p.cost.bytes;
                    m.end_depth = m.end_depth.max(p.end_depth);
                }
                None => out.push(p.clone()),
            }
        }
    }
    let mut before = 0;
    for m in &mut out {
        m.cost.rounds = u64::from(m.end_depth.saturating_sub(before));
        before = before.max(m.end_depth);
    }
    out
}

/// Plays a whole game over the in-memory network, one thread per player, player `j` drawing
/// from ChaCha20 stream `j` of `seed` ([`facedown_core::rng::trial_rng`]). With a
/// [`Latency`](crate::Latency), every frame is delayed, so the wall time shows what the rounds
/// cost (what `facedown compare --latency` needs). Returns every player's report in player
/// order, or the first player's error.
pub fn play_in_memory(
    spec: &GameSpec,
    latency: Option<crate::Latency>,
    seed: u64,
) -> Result<Vec<PlayerReport>, NetError> {
    spec.validate()?;
    let handles: Vec<_> = crate::memory_network(spec.players, latency)
        .into_iter()
        .map(|mut chan| {
            let spec = *spec;
            std::thread::spawn(move || {
                let mut rng = facedown_core::rng::trial_rng(seed, u64::from(chan.me().0));
                play_with_rng(&mut chan, &spec, &mut rng, &mut |_, _| {})
            })
        })
        .collect();
    let mut reports = Vec::with_capacity(handles.len());
    let mut first_error = None;
    for (j, h) in handles.into_iter().enumerate() {
        match h.join() {
            Ok(Ok(r)) => reports.push(r),
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(_) => {
                first_error.get_or_insert(NetError::Config(format!(
                    "the thread of player {} panicked",
                    j + 1
                )));
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(reports),
    }
}
