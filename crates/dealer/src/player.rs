//! Players as sans-IO state machines.
//!
//! A player never does I/O: each step consumes messages and returns messages, and the caller
//! (the in-memory [driver](crate::driver), a network transport, a test) moves them. The stages
//! are types, so steps cannot run out of order:
//!
//! ```text
//! Player ──commit()──▶ PlayerAwaitingSetup ──receive_setup(msgs)──▶ PlayerReady
//!                                                   schedule(op) / receive(msg) ↺
//!                                                   └──reveal()──▶ PlayerDone
//! ```
//!
//! Every player keeps its complete [`View`] — its own permutations, the helper permutations it
//! was given, every message it sent and received, every card it learned — for the leakage and
//! collusion harnesses.
//!
//! A player may be made to deviate ([`Deviation`]) so that the audit's detection can be shown.
//!
//! Part of the permutation-sharing dealer \[perm-sharing-dealer\]; see the [crate docs](crate).

use std::collections::BTreeMap;

use ed25519_dalek::SigningKey;
use facedown_core::{PartyId, Perm};
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::commit::{commit, Commitment, Salt};
use crate::error::DealerError;
use crate::messages::{verify_all, Body, Envelope, Opening, Roster, SessionId, VerifyingKeys};
use crate::rank::rank;
use crate::scheme::{Half, Operation, Plan, Recipient, Scheme, Slot};

/// The public parameters every player and the auditor share.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    /// The scheme (players, deck, helper pairs).
    pub scheme: Scheme,
    /// This deal's session identifier.
    pub session: SessionId,
    /// Everyone's signature keys.
    pub roster: Roster,
}

/// A way for one chosen player to deviate from the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Deviation {
    /// The `nth` (0-based) value message this player sends carries a wrong value:
    /// `v' = (v + 1 + offset mod (n − 1)) mod n ≠ v`.
    WrongValue {
        /// Which of his value messages (in sending order).
        nth: usize,
        /// Selects the wrong value.
        offset: u16,
    },
    /// The last player announces a wrong card (`A(i) + 1 mod n`) in his `nth` public
    /// announcement.
    WrongAnnouncement {
        /// Which announcement (0-based).
        nth: usize,
    },
    /// After committing to `A_j` the player plays `A_j ∘ (1 2)` instead — as if he had chosen
    /// his permutation after seeing the others' messages — and opens that at the end.
    SwitchPermutation,
    /// The player plays honestly but opens a different permutation than he committed to.
    RevealOther,
    /// The last player hands out a derived helper half of pair 0 that does not compose to
    /// `A_N` (`outer ∘ inner ≠ A_N`).
    WrongHelper,
    /// The player stops sending value messages from his `nth` one on (selective abort).
    Withhold {
        /// The first value message he withholds.
        nth: usize,
    },
    /// The `nth` value message this player sends carries exactly `value`: a forgery computed
    /// by a coalition (e.g. `C3⁻¹(c)`, so that the outer holder computes the card `c`).
    ForgeValue {
        /// Which of his value messages (in sending order).
        nth: usize,
        /// The value sent instead of the honest one.
        value: u16,
    },
}

/// A card a player learned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Learned {
    /// The operation.
    pub op: u32,
    /// The position opened.
    pub position: u16,
    /// The card `A(position)`.
    pub card: u16,
    /// Whether it was opened to everyone.
    pub public: bool,
}

/// Everything one player holds and receives: the input of the leakage harnesses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Whose view.
    pub party: PartyId,
    /// The permutation `A_j` the player actually plays.
    pub deal: Perm,
    /// For the last player: every helper pair he drew, as `(pair, outer, inner)`.
    pub drawn_helpers: Vec<(u16, Perm, Perm)>,
    /// Helper halves received, `(pair, half, permutation)`.
    pub helpers: Vec<(u16, Half, Perm)>,
    /// Every message received, in order.
    pub received: Vec<Envelope>,
    /// Every message sent, in order.
    pub sent: Vec<Envelope>,
    /// Every card learned.
    pub learned: Vec<Learned>,
}

#[derive(Clone, Debug)]
struct Core {
    params: Params,
    /// The roster's keys, decompressed once.
    keys: VerifyingKeys,
    me: PartyId,
    key: SigningKey,
    seq: u32,
    /// What the player committed to: (slot, committed permutation, salt).
    committed: Vec<(Slot, Perm, Salt)>,
    /// What he opens at the end (differs from `committed` only when deviating).
    revealed: Vec<(Slot, Perm, Salt)>,
    deviation: Option<Deviation>,
    values_sent: usize,
    announcements_sent: usize,
    last_seq: BTreeMap<PartyId, u32>,
    view: View,
}

impl Core {
    fn n(&self) -> usize {
        self.params.scheme.cards
    }

    fn send(&mut self, to: Recipient, body: Body) -> Envelope {
        let env = Envelope::sign(&self.params.session, &self.key, self.me, to, self.seq, body);
        self.seq += 1;
        self.view.sent.push(env.clone());
        env
    }

    /// Signature, recipient and replay checks common to every received message (the
    /// signature only when it is not among those `signed` says were batch-verified).
    fn check(&mut self, env: &Envelope, signed: Signed) -> Result<(), DealerError> {
        if signed == Signed::Unchecked {
            env.verify_with(&self.params.session, &self.keys)?;
        }
        if !env.is_for(self.me) {
            return Err(DealerError::WrongRecipient {
                from: env.from,
                me: self.me,
            });
        }
        if let Some(&last) = self.last_seq.get(&env.from) {
            if env.seq <= last {
                return Err(DealerError::Replay {
                    from: env.from,
                    seq: env.seq,
                });
            }
        }
        self.last_seq.insert(env.from, env.seq);
        self.view.received.push(env.clone());
        Ok(())
    }
}

fn transposition(n: usize) -> Perm {
    let mut images: Vec<usize> = (0..n).collect();
    images.swap(0, 1);
    Perm::from_images(images).unwrap_or_else(|_| Perm::identity(n))
}

fn compose(a: &Perm, b: &Perm) -> Perm {
    // Sizes agree by construction (all permutations of one deal are on n positions).
    a.compose(b).unwrap_or_else(|_| a.clone())
}

/// A player who has drawn his permutations but not yet committed.
#[derive(Debug)]
pub struct Player {
    core: Core,
    helper_msgs: Vec<(PartyId, u16, Half, Perm)>,
}

impl Player {
    /// Player `me` draws `A_me` (and, if he is the last player, the helper pairs) from `rng`.
    /// `key` must be the signing key whose public half is `me`'s in the roster.
    pub fn new_with_rng<R: RngCore + CryptoRng + ?Sized>(
        params: Params,
        me: PartyId,
        key: SigningKey,
        deviation: Option<Deviation>,
        rng: &mut R,
    ) -> Result<Player, DealerError> {
        params.scheme.validate()?;
        if me.0 == 0 || me.index() >= params.scheme.players {
            return Err(DealerError::Config(format!("{me} is not at this table")));
        }
        if params.roster.keys.len() != params.scheme.players {
            return Err(DealerError::Config(
                "the roster must have one key per player".into(),
            ));
        }
        let n = params.scheme.cards;
        let swap = transposition(n);
        let a = Perm::random_with_rng(n, rng);
        let salt = Salt::random_with_rng(rng);
        let played = match deviation {
            Some(Deviation::SwitchPermutation) => compose(&a, &swap),
            _ => a.clone(),
        };
        let opened = match deviation {
            Some(Deviation::SwitchPermutation) | Some(Deviation::RevealOther) => compose(&a, &swap),
            _ => a.clone(),
        };
        let mut committed = vec![(Slot::Deal(me), a, salt)];
        let mut revealed = vec![(Slot::Deal(me), opened, salt)];
        let mut drawn_helpers = Vec::new();
        let mut helper_msgs = Vec::new();
        if me == params.scheme.last() {
            for (k, pair) in params.scheme.pairs.iter().enumerate() {
                let k = k as u16;
                let r = Perm::random_with_rng(n, rng);
                let salt = Salt::random_with_rng(rng);
                let (slot, mut outer, mut inner) = match pair.drawn {
                    Half::Outer => (Slot::Outer(k), r.clone(), compose(&r.inverse(), &played)),
                    Half::Inner => (Slot::Inner(k), compose(&played, &r.inverse()), r.clone()),
                };
                if k == 0 && deviation == Some(Deviation::WrongHelper) {
                    match pair.drawn {
                        Half::Outer => inner = compose(&inner, &swap),
                        Half::Inner => outer = compose(&outer, &swap),
                    }
                }
                committed.push((slot, r.clone(), salt));
                revealed.push((slot, r, salt));
                drawn_helpers.push((k, outer.clone(), inner.clone()));
                helper_msgs.push((pair.outer_holder, k, Half::Outer, outer));
                helper_msgs.push((pair.inner_holder, k, Half::Inner, inner));
            }
        }
        Ok(Player {
            core: Core {
                view: View {
                    party: me,
                    deal: played,
                    drawn_helpers,
                    helpers: vec![],
                    received: vec![],
                    sent: vec![],
                    learned: vec![],
                },
                keys: params.roster.verifying_keys()?,
                params,
                me,
                key,
                seq: 0,
                committed,
                revealed,
                deviation,
                values_sent: 0,
                announcements_sent: 0,
                last_seq: BTreeMap::new(),
            },
            helper_msgs,
        })
    }

    /// This player's view so far.
    pub fn view(&self) -> &View {
        &self.core.view
    }

    /// Setup: broadcasts the commitments and (last player) sends the helper halves privately.
    pub fn commit(mut self) -> (PlayerAwaitingSetup, Vec<Envelope>) {
        let n = self.core.n();
        let me = self.core.me;
        let commitments = self
            .core
            .committed
            .iter()
            .map(|(slot, perm, salt)| {
                let c = commit(n, me, *slot, &rank(perm), salt).unwrap_or(Commitment([0; 32]));
                (*slot, c)
            })
            .collect();
        let mut out = vec![self.core.send(Recipient::All, Body::Commit { commitments })];
        for (to, pair, half, perm) in std::mem::take(&mut self.helper_msgs) {
            out.push(
                self.core
                    .send(Recipient::Party(to), Body::Helper { pair, half, perm }),
            );
        }
        (PlayerAwaitingSetup { core: self.core }, out)
    }
}

/// Whether a message's signature is still to be checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signed {
    /// Check it.
    Unchecked,
    /// It was checked in a batch with the others of its round.
    BatchVerified,
}

impl Core {
    /// Batch-verifies the signatures of `msgs`; when the batch fails every message is checked
    /// on its own as it is handled, so the error is the one it would be without batching.
    fn verify_batch(&self, msgs: &[&Envelope]) -> Signed {
        match verify_all(msgs, &self.params.session, &self.keys) {
            Ok(()) => Signed::BatchVerified,
            Err(_) => Signed::Unchecked,
        }
    }
}

/// A player who has committed and waits for everyone's commitments and his helper halves.
#[derive(Debug)]
pub struct PlayerAwaitingSetup {
    core: Core,
}

impl PlayerAwaitingSetup {
    /// This player's view so far.
    pub fn view(&self) -> &View {
        &self.core.view
    }

    /// Consumes every setup message addressed to this player (the other players'
    /// commitments and the helper halves meant for him). Fails, naming the culprit, on a bad
    /// signature, a duplicate or missing commitment, or a helper half he should not get.
    pub fn receive_setup(mut self, msgs: &[Envelope]) -> Result<PlayerReady, DealerError> {
        let scheme = self.core.params.scheme.clone();
        let me = self.core.me;
        let mut commits: BTreeMap<PartyId, Vec<(Slot, Commitment)>> = BTreeMap::new();
        let mut helpers: BTreeMap<(u16, Half), Perm> = BTreeMap::new();
        let signed = self.core.verify_batch(&msgs.iter().collect::<Vec<_>>());
        for env in msgs {
            self.core.check(env, signed)?;
            let unexpected = |what: &str| DealerError::Unexpected {
                from: env.from,
                what: what.into(),
            };
            match &env.body {
                Body::Commit { commitments } => {
                    if env.to != Recipient::All {
                        return Err(unexpected("a commitment must be broadcast"));
                    }
                    let slots: Vec<Slot> = commitments.iter().map(|(s, _)| *s).collect();
                    if slots != scheme.committed_slots(env.from) {
                        return Err(unexpected("commitments to the wrong set of permutations"));
                    }
                    if commits.insert(env.from, commitments.clone()).is_some() {
                        return Err(unexpected("a second set of commitments"));
                    }
                }
                Body::Helper { pair, half, perm } => {
                    let p = scheme
                        .pair(*pair)
                        .ok_or_else(|| unexpected("a helper half of a pair that does not exist"))?;
                    let holder = match half {
                        Half::Outer => p.outer_holder,
                        Half::Inner => p.inner_holder,
                    };
                    if env.from != scheme.last() || holder != me {
                        return Err(unexpected("a helper half this player should not get"));
                    }
                    if perm.len() != scheme.cards {
                        return Err(unexpected("a helper permutation of the wrong size"));
                    }
                    if helpers.insert((*pair, *half), perm.clone()).is_some() {
                        return Err(unexpected("the same helper half twice"));
                    }
                }
                _ => return Err(unexpected("a play or reveal message during setup")),
            }
        }
        for p in PartyId::all(scheme.players).filter(|&p| p != me) {
            if !commits.contains_key(&p) {
                return Err(DealerError::Unexpected {
                    from: p,
                    what: "no commitments received".into(),
                });
            }
        }
        for (k, pair) in scheme.pairs.iter().enumerate() {
            for (half, holder) in [
                (Half::Outer, pair.outer_holder),
                (Half::Inner, pair.inner_holder),
            ] {
                if holder == me && !helpers.contains_key(&(k as u16, half)) {
                    return Err(DealerError::Unexpected {
                        from: scheme.last(),
                        what: format!("helper half {half:?} of pair {k} was not received"),
                    });
                }
            }
        }
        self.core.view.helpers = helpers
            .iter()
            .map(|((k, h), p)| (*k, *h, p.clone()))
            .collect();
        Ok(PlayerReady {
            core: self.core,
            helpers,
            ops: BTreeMap::new(),
        })
    }
}

/// What handling a play message gives: the messages to send on, and the card if this player
/// learned one.
pub type Received = (Vec<Envelope>, Option<Learned>);

#[derive(Clone, Debug)]
struct OpState {
    op: Operation,
    plan: Plan,
    received: Vec<bool>,
}

/// A player in play: schedules openings and answers messages.
#[derive(Debug)]
pub struct PlayerReady {
    core: Core,
    helpers: BTreeMap<(u16, Half), Perm>,
    ops: BTreeMap<u32, OpState>,
}

impl PlayerReady {
    /// This player's identity.
    pub fn id(&self) -> PartyId {
        self.core.me
    }

    /// This player's view so far.
    pub fn view(&self) -> &View {
        &self.core.view
    }

    fn perm(&self, slot: Slot) -> Result<&Perm, DealerError> {
        let missing = || DealerError::Config(format!("{} does not hold {slot}", self.core.me));
        match slot {
            Slot::Deal(p) if p == self.core.me => Ok(&self.core.view.deal),
            Slot::Deal(_) => Err(missing()),
            Slot::Outer(k) => self.helpers.get(&(k, Half::Outer)).ok_or_else(missing),
            Slot::Inner(k) => self.helpers.get(&(k, Half::Inner)).ok_or_else(missing),
        }
    }

    fn apply(&self, slots: &[Slot], value: usize) -> Result<usize, DealerError> {
        slots.iter().try_fold(value, |v, &s| {
            self.perm(s)?.get(v).ok_or(DealerError::CardOutOfRange {
                from: self.core.me,
                value: v as u64,
                cards: self.core.n(),
            })
        })
    }

    /// Sends hop `hop` of `op` from the value `input` (applying the deviation, if any).
    fn send_hop(
        &mut self,
        id: u32,
        hop: usize,
        input: usize,
    ) -> Result<(Vec<Envelope>, Option<Learned>), DealerError> {
        let state = self
            .ops
            .get(&id)
            .ok_or_else(|| DealerError::Config("unknown op".into()))?;
        let h = state.plan.hops[hop].clone();
        let op = state.op;
        let n = self.core.n();
        let honest = self.apply(&h.apply, input)?;
        let mut value = honest;
        let nth = self.core.values_sent;
        self.core.values_sent += 1;
        let announcement = h.to == Recipient::All;
        match self.core.deviation {
            Some(Deviation::WrongValue { nth: k, offset }) if k == nth => {
                value = (value + 1 + usize::from(offset) % (n - 1)) % n;
            }
            Some(Deviation::WrongAnnouncement { nth: k })
                if announcement && k == self.core.announcements_sent =>
            {
                value = (value + 1) % n;
            }
            Some(Deviation::Withhold { nth: k }) if nth >= k => return Ok((vec![], None)),
            Some(Deviation::ForgeValue { nth: k, value: v }) if k == nth => {
                value = usize::from(v);
            }
            _ => {}
        }
        if announcement {
            self.core.announcements_sent += 1;
        }
        let env = self.core.send(
            h.to,
            Body::Value {
                op: id,
                hop: hop as u16,
                value: value as u16,
            },
        );
        // The last player of a public opening learns the card as he computes it.
        let learned = announcement.then_some(Learned {
            op: id,
            position: op.position,
            card: honest as u16,
            public: true,
        });
        if let Some(l) = learned {
            self.core.view.learned.push(l);
        }
        Ok((vec![env], learned))
    }

    /// Registers an opening decided by the game (every player schedules every opening); the
    /// first player of the chain returns his first message.
    pub fn schedule(&mut self, op: Operation) -> Result<Vec<Envelope>, DealerError> {
        let scheme = &self.core.params.scheme;
        if usize::from(op.position) >= scheme.cards {
            return Err(DealerError::Config(format!(
                "position {} is outside the deck 0..{}",
                op.position, scheme.cards
            )));
        }
        if self.ops.contains_key(&op.id) {
            return Err(DealerError::Config(format!(
                "operation {} scheduled twice",
                op.id
            )));
        }
        let plan = scheme.plan(op.route)?;
        let first = plan.hops.first().map(|h| h.from);
        let received = vec![false; plan.hops.len()];
        self.ops.insert(op.id, OpState { op, plan, received });
        if first == Some(self.core.me) {
            Ok(self.send_hop(op.id, 0, usize::from(op.position))?.0)
        } else {
            Ok(vec![])
        }
    }

    /// Handles a play message: checks it (signature, recipient, replay, operation, hop,
    /// range), then forwards along the plan or learns the card.
    pub fn receive(&mut self, env: &Envelope) -> Result<Received, DealerError> {
        self.receive_signed(env, Signed::Unchecked)
    }

    /// Handles one round's messages to this player, in order, as [`receive`](Self::receive)
    /// would one by one, with their signatures checked in one batch. The results stop at the
    /// first error, which is the error `receive` would give.
    pub fn receive_round(&mut self, round: &[&Envelope]) -> Vec<Result<Received, DealerError>> {
        let signed = self.core.verify_batch(round);
        let mut out = Vec::with_capacity(round.len());
        for env in round {
            let r = self.receive_signed(env, signed);
            let failed = r.is_err();
            out.push(r);
            if failed {
                break;
            }
        }
        out
    }

    fn receive_signed(&mut self, env: &Envelope, signed: Signed) -> Result<Received, DealerError> {
        self.core.check(env, signed)?;
        let me = self.core.me;
        let n = self.core.n();
        let unexpected = |what: &str| DealerError::Unexpected {
            from: env.from,
            what: what.into(),
        };
        let Body::Value { op, hop, value } = env.body else {
            return Err(unexpected("only value messages are allowed during play"));
        };
        if usize::from(value) >= n {
            return Err(DealerError::CardOutOfRange {
                from: env.from,
                value: u64::from(value),
                cards: n,
            });
        }
        let state = self
            .ops
            .get_mut(&op)
            .ok_or_else(|| unexpected("a value for an operation that was not scheduled"))?;
        let hop = usize::from(hop);
        let Some(h) = state.plan.hops.get(hop) else {
            return Err(unexpected("a hop beyond the end of the operation's path"));
        };
        let for_me = match h.to {
            Recipient::Party(p) => p == me,
            Recipient::All => h.from != me,
        };
        if h.from != env.from || !for_me || h.to != env.to {
            return Err(unexpected(
                "a hop of the path that is not from it to this player",
            ));
        }
        if std::mem::replace(&mut state.received[hop], true) {
            return Err(unexpected("the same hop twice"));
        }
        let position = state.op.position;
        let last_hop = hop + 1 == state.plan.hops.len();
        let finish = state.plan.finish.clone();
        let learner = state.plan.learner;
        if !last_hop {
            return self.send_hop(op, hop + 1, usize::from(value));
        }
        let learns = match learner {
            Recipient::All => true,
            Recipient::Party(p) => p == me,
        };
        if !learns {
            return Err(unexpected(
                "the last hop reached a player who does not learn the card",
            ));
        }
        let card = self.apply(&finish, usize::from(value))?;
        let l = Learned {
            op,
            position,
            card: card as u16,
            public: learner == Recipient::All,
        };
        self.core.view.learned.push(l);
        Ok((vec![], Some(l)))
    }

    /// End of game: broadcasts the openings (ordinal and salt) of every commitment.
    pub fn reveal(mut self) -> (PlayerDone, Envelope) {
        let openings = self
            .core
            .revealed
            .iter()
            .map(|(slot, perm, salt)| Opening {
                slot: *slot,
                rank: rank(perm),
                salt: *salt,
            })
            .collect();
        let env = self.core.send(Recipient::All, Body::Reveal { openings });
        (PlayerDone { core: self.core }, env)
    }
}

/// A player who has opened everything. He still accepts the others' openings into his view.
#[derive(Debug)]
pub struct PlayerDone {
    core: Core,
}

impl PlayerDone {
    /// Records another player's reveal message (checked like any other).
    pub fn receive_reveal(&mut self, env: &Envelope) -> Result<(), DealerError> {
        self.core.check(env, Signed::Unchecked)?;
        match env.body {
            Body::Reveal { .. } if env.to == Recipient::All => Ok(()),
            _ => Err(DealerError::Unexpected {
                from: env.from,
                what: "only broadcast reveals are allowed after play".into(),
            }),
        }
    }

    /// This player's complete view.
    pub fn view(&self) -> &View {
        &self.core.view
    }

    /// The player's view, consuming him.
    pub fn into_view(self) -> View {
        self.core.view
    }
}

impl Deviation {
    /// Whether the message this deviation names exists: `honest` is the deviating player's
    /// view of the honest game with the same seed (a deviation changes nothing that is drawn,
    /// so both games schedule the same messages up to the deviation). `value@3` for a player
    /// who sends three value messages, or `announce@0` for one who announces nothing, would
    /// otherwise leave the game honest and pass the audit as if the deviation had been tried.
    pub fn names_a_message(&self, honest: &View) -> bool {
        let values = || {
            honest
                .sent
                .iter()
                .filter(|e| matches!(e.body, Body::Value { .. }))
        };
        match *self {
            Deviation::WrongValue { nth, .. }
            | Deviation::Withhold { nth }
            | Deviation::ForgeValue { nth, .. } => nth < values().count(),
            Deviation::WrongAnnouncement { nth } => {
                nth < values().filter(|e| e.to == Recipient::All).count()
            }
            Deviation::SwitchPermutation | Deviation::RevealOther => true,
            Deviation::WrongHelper => !honest.drawn_helpers.is_empty(),
        }
    }
}

impl core::str::FromStr for Deviation {
    type Err = DealerError;

    /// Parses `value[@K[+OFFSET]]`, `announce[@K]`, `switch`, `reveal`, `helper`,
    /// `withhold[@K]` (`K` counts the player's value messages or announcements from 0).
    /// [`Deviation::ForgeValue`] has no syntax: a harness computes its value.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            DealerError::Config(format!(
                "unknown deviation {s:?}: expected value[@K[+OFFSET]], announce[@K], switch, \
                 reveal, helper or withhold[@K]"
            ))
        };
        let (kind, arg) = match s.split_once('@') {
            Some((k, a)) => (k, Some(a)),
            None => (s, None),
        };
        let (k, offset) = match arg {
            None => (0, 0),
            Some(a) => {
                let (k, off) = match a.split_once('+') {
                    Some((k, o)) => (k, Some(o)),
                    None => (a, None),
                };
                let k: usize = k.parse().map_err(|_| bad())?;
                let off: u16 = off
                    .map(str::parse)
                    .transpose()
                    .map_err(|_| bad())?
                    .unwrap_or(0);
                (k, off)
            }
        };
        let no_arg = |d| if arg.is_none() { Ok(d) } else { Err(bad()) };
        match kind {
            "value" => Ok(Deviation::WrongValue { nth: k, offset }),
            "announce" if offset == 0 => Ok(Deviation::WrongAnnouncement { nth: k }),
            "withhold" if offset == 0 => Ok(Deviation::Withhold { nth: k }),
            "switch" => no_arg(Deviation::SwitchPermutation),
            "reveal" => no_arg(Deviation::RevealOther),
            "helper" => no_arg(Deviation::WrongHelper),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deviations_parse_and_bad_ones_are_errors() {
        assert_eq!(
            "value".parse(),
            Ok(Deviation::WrongValue { nth: 0, offset: 0 })
        );
        assert_eq!(
            "value@3+7".parse(),
            Ok(Deviation::WrongValue { nth: 3, offset: 7 })
        );
        assert_eq!(
            "announce@2".parse(),
            Ok(Deviation::WrongAnnouncement { nth: 2 })
        );
        assert_eq!("withhold@1".parse(), Ok(Deviation::Withhold { nth: 1 }));
        assert_eq!("switch".parse(), Ok(Deviation::SwitchPermutation));
        assert_eq!("reveal".parse(), Ok(Deviation::RevealOther));
        assert_eq!("helper".parse(), Ok(Deviation::WrongHelper));
        for bad in [
            "",
            "lie",
            "value@x",
            "switch@1",
            "announce@1+2",
            "value@1+99999",
        ] {
            assert!(bad.parse::<Deviation>().is_err(), "{bad}");
        }
    }
}
