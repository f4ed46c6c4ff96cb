//! One player of the permutation-sharing dealer as an [`Engine`]: the face-down table of a card
//! protocol (the *layer model*) and the dealer's own deal.
//!
//! # The layer model
//!
//! Every card placed on the table is public (the "base" row `b`); what hides it is a stack of
//! *layers*, permutations of the row applied one after another. With layers `L_1, …, L_k` (in
//! the order they were applied, `L = L_k ∘ … ∘ L_1`) position `j` holds `b[L⁻¹(j)]`.
//!
//! | table operation | layers |
//! |---|---|
//! | place | appends to `b` (public) |
//! | commit by `p` | appends the sorted cards to `b`, then a secret layer held by `p` that puts them in `p`'s order (for a bit: swap or not) |
//! | rearrange | a public layer |
//! | shuffle `Uniform(G)`, `G` a group | one fresh uniform layer `g_p ∈ G` per player `p = 1..N`; `g_N ∘ … ∘ g_1` is uniform on `G` as soon as one player is honest |
//! | any other shuffle (weighted, or over a non-group) | one layer drawn by player 1 alone (**weakened**: he knows it) |
//! | shuffle `All` | the dealer's own deal `A = A_N ∘ … ∘ A_1` ([`crate::player`]), with its helper pairs and audit |
//!
//! Every secret layer is committed to when it is drawn (a broadcast [`Body::Commit`] with the
//! dealer's [`commit`](crate::commit::commit) of its ordinal) and opened at the end of the
//! game, where every player checks every opening.
//!
//! **Opening position `j`** evaluates `L⁻¹(j)` along the holders of the layers, last layer
//! first: the current holder applies his layer's inverse and sends the intermediate position to
//! the holder of the next layer (a signed [`Body::Values`]); public layers are applied by
//! whoever holds the value. The route is **public**: a secret layer is passed by only when the
//! public knowledge of where the value can be (the images of every element the layer may be)
//! shows that it cannot move it, so every player knows whom it awaits. The holder of the last
//! layer on the route reads `b[·]` and broadcasts the card (a turn) or sends it to the one
//! player (a private opening). Positions with the same route and audience travel together, one
//! message per hop. After a deal, openings go through the dealer's own routes instead.
//!
//! **What this costs in privacy.** The intermediate positions are seen by the next holder. In
//! the dealer's deal every player holds exactly one layer and the values are uniform to each of
//! them; in a card protocol the same player holds several interleaved layers (his input
//! commitment, then his share of each shuffle), so the values he receives can reveal another
//! player's share of a shuffle — and with it, after the turns, an input. Every engine records
//! what it saw ([`ViewEvent`]); the leakage harness (`facedown-leakage`) enumerates every
//! player's choices ([`Script`]) and measures the excess exactly. A private opening on a card
//! protocol's row is weakened too: the last holder on the route learns the card.
//!
//! # The end: every layer opened, every hop rechecked
//!
//! At the end every holder opens every layer he drew, and every player checks each opening
//! against its commitment. A holder's layer is checked only then, so a holder who forwards
//! another position than his layer gives, or shows another card (his committed bit swapped
//! at the turn, say), is caught here, and named: with his openings every player sends the
//! others his *bundle*, the signed envelope of every hop to one player he sent or received
//! (intermediate positions, and cards opened to one player) in a [`DealerMessage::Close`];
//! a player without such hops sends his openings alone. Every player then holds every hop of
//! every lane, each signed by its sender, recomputes each lane from its public start through
//! the opened layers, and names the **first** holder whose signed output does not follow
//! from his input ([`EngineError::FalseCard`]): every hop before his was right, so his input
//! was the true one, and his signature binds him to his output. Two different envelopes one
//! holder signed for one hop (one sent, another in his bundle) name him too; a bundle that
//! leaves out a hop its sender took part in, relays one he neither sent nor received, carries
//! a signature that fails (a changed value, another session) or is longer than his hops names
//! its sender ([`EngineError::Bundle`]). Colluding holders get the first of them named. An
//! honest player is never named: he holds every hop he took part in (the opening would not
//! have ended otherwise), and his one output follows from his one input. A cheater who sends
//! different bundles to different peers is caught by the echo round of the driver
//! ([`facedown_core::echo`]). So a card opened privately is rechecked at the end as a card
//! shown to everyone is. After the end every card of the layer model follows from the opened
//! layers anyway, so the bundles show nothing new; they cost bytes in the last broadcast (and
//! one more broadcast from a player who was shown cards privately but holds no layer).
//!
//! # Sessions and the deal
//!
//! At setup every player sends a hello with a fresh ed25519 key for this game; the session id
//! binds every signature ([`facedown_core::session`]). A deal (`All`) runs the dealer's players
//! ([`crate::player::Player`]); at the end every player opens his commitments, then sends every
//! other player the envelopes it received and sent privately, so that each holds the whole signed
//! transcript and runs the [`audit`](crate::audit::audit) itself. A relayed envelope must be a
//! private message of the deal that its schedule calls for (a helper half, a hop of a scheduled
//! opening) and that the relayer took part in; anything else names the relayer, whoever signed
//! it. The deal and the layer model sign under different domain labels ([`Domain`]), each with
//! its own sequence numbers, so a hop of one cannot be passed off as a message of the other.
//!
//! Security model: honest-but-curious players who do not collude, as for the dealer itself;
//! a player who deviates on an opening's route is named at the end (see above), and one who
//! deviates in the deal by its audit.

mod deal;
mod evidence;
mod lanes;
mod layers;
mod wire;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ed25519_dalek::{SigningKey, VerifyingKey};
use facedown_core::engine::{After, Blame, Engine, Step, To};
use facedown_core::session::{Hello, Hellos};
use facedown_core::table::{
    check_party, Capabilities, SecurityModel, ShuffleSet, Support, TableError,
};
use facedown_core::{CommitCards, Opening, PartyId, Perm, Seen, Symbol, TableOp};
use rand::{CryptoRng, Rng, RngCore};
use serde::{Deserialize, Serialize};

use crate::audit::AuditReport;
use crate::error::DealerError;
use crate::messages::{Body, Domain, Envelope, PublicKey, Roster, SessionId, VerifyingKeys};
use crate::player::Deviation;
use crate::scheme::Recipient;

pub use evidence::{BundleFault, HopFault};
pub use wire::{DealerMessage, MAX_ENGINE_MESSAGE_BYTES};

/// Largest row (the ordinal of a layer is committed to as a number below `n!`).
pub const MAX_ROW: usize = 1024;

/// The name of this backend, in capabilities and session ids.
pub const BACKEND: &str = "dealer";

/// Why a dealer engine refused or failed a step.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Bad input: a position, permutation size, party or empty shuffle.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A deal (`All`) with fewer than three players.
    #[error("the dealer's deal needs at least 3 players, this table has {0}")]
    DealPlayers(usize),
    /// A deal (`All`) over cards already hidden by secret layers.
    #[error(
        "the dealer's deal must start from public cards; this row already holds secret layers"
    )]
    DealOverSecrets,
    /// An operation the dealer's deal does not support once dealt.
    #[error(
        "after the dealer's deal only public rearrangements, input commitments and openings \
         are supported, not {0}"
    )]
    AfterDeal(&'static str),
    /// An opening after the deal that mixes dealt cards with cards committed since.
    #[error("an opening after the deal shows dealt cards and later commitments together")]
    MixedOpening,
    /// The row is too long for committed layers.
    #[error("a row of {0} cards is too long (at most {MAX_ROW})")]
    TooLong(usize),
    /// A message or the deal's protocol failed (names the offending player).
    #[error(transparent)]
    Dealer(#[from] DealerError),
    /// A layer's opening at the end does not match its commitment.
    #[error("{party} opened a layer that does not match his commitment")]
    AuditMismatch {
        /// The party.
        party: PartyId,
    },
    /// The deal's audit failed.
    #[error("the dealer's audit failed: {finding}")]
    DealAudit {
        /// The player the audit names.
        blame: Option<PartyId>,
        /// Its first finding.
        finding: String,
    },
    /// A holder on an opening's route signed a value (an intermediate position, or a card
    /// shown to everyone or to one player) that does not follow from the value he was sent and
    /// his layers as opened at the end, or signed two versions of it: the first such holder on
    /// the route, on the signed evidence every player holds at the end.
    #[error("{party} forwarded or showed a false value on hop {hop} of lane {lane}: {fault}")]
    FalseCard {
        /// The holder.
        party: PartyId,
        /// The lane (a group of positions of one opening with one route and audience).
        lane: u32,
        /// The hop: his place on the route.
        hop: u16,
        /// What he signed.
        fault: HopFault,
    },
    /// The envelopes a player sent at the end as the hops he took part in are not those hops.
    #[error("{party}'s bundle of the hops he took part in is false: {fault}")]
    Bundle {
        /// The player who sent the bundle.
        party: PartyId,
        /// What is wrong with it.
        fault: BundleFault,
    },
    /// An operation started out of order (before the setup, during another, after the end).
    #[error("operation out of order: {0}")]
    OutOfOrder(&'static str),
}

impl Blame for EngineError {
    fn blamed(&self) -> Option<PartyId> {
        match self {
            EngineError::Dealer(e) => e.blamed(),
            EngineError::AuditMismatch { party } => Some(*party),
            EngineError::DealAudit { blame, .. } => *blame,
            EngineError::FalseCard { party, .. } | EngineError::Bundle { party, .. } => {
                Some(*party)
            }
            _ => None,
        }
    }
}

type Result<T> = core::result::Result<T, EngineError>;

/// One thing a player saw that the ideal table would not have shown him.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ViewEvent {
    /// A layer he drew himself (an input commitment or his share of a shuffle).
    OwnLayer(Perm),
    /// An intermediate position received on an opening's route.
    Received {
        /// The sender.
        from: PartyId,
        /// The position.
        value: u16,
    },
    /// A card shown to everyone (also on the ideal table).
    Public(Symbol),
    /// A card shown to him alone (also on the ideal table).
    Private(Symbol),
}

/// One random choice of a player: element `choice` of a set, with probability
/// `weight / total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    /// The element chosen.
    pub choice: usize,
    /// Its weight.
    pub weight: u64,
    /// The sum of the weights.
    pub total: u64,
    /// The number of elements to choose from.
    pub arity: usize,
}

/// Scripted randomness for the leakage harness: the choices of the shuffles' group elements
/// are taken from `forced` (element 0 once it runs out) and recorded, instead of drawn, so
/// that every combination of every player's choices can be enumerated. Salts and keys still
/// come from each engine's generator. Engines of one table share one script, in the order the
/// driver starts them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    forced: Vec<usize>,
    drawn: Vec<Draw>,
}

impl Script {
    /// A script that makes the `k`-th choice `forced[k]`.
    pub fn new(forced: Vec<usize>) -> Script {
        Script {
            forced,
            drawn: Vec::new(),
        }
    }

    /// Every choice made so far.
    pub fn drawn(&self) -> &[Draw] {
        &self.drawn
    }

    fn choose(&mut self, weights: &[u64]) -> usize {
        let k = self.drawn.len();
        let choice = self
            .forced
            .get(k)
            .copied()
            .unwrap_or(0)
            .min(weights.len().saturating_sub(1));
        self.drawn.push(Draw {
            choice,
            weight: weights.get(choice).copied().unwrap_or(1),
            total: weights.iter().sum(),
            arity: weights.len(),
        });
        choice
    }
}

/// A script shared by the engines of one table.
pub type SharedScript = Arc<Mutex<Script>>;

/// Why the dealer has no play-time proof that a hand holds none of some symbols.
const NONE_OF_UNSUPPORTED: &str = "prove at play time that a hand holds none of some symbols: \
     the dealer checks hands by the end-of-game audit only";

/// What the dealer can do, and how securely, at a table of `parties` players.
pub fn capabilities(parties: usize) -> Capabilities {
    Capabilities {
        backend: BACKEND.to_owned(),
        security: SecurityModel::HonestButCuriousNoCollusion,
        information_theoretic: true,
        commit: Support::Secure,
        uniform_shuffle: Support::Weakened(
            "over a group only, one secret layer per player; openings pass intermediate \
             positions between interleaved layer holders, which can leak to one player (see \
             excess_bits)"
                .to_owned(),
        ),
        other_shuffle: Support::Weakened(
            "per-player layers do not compose to it, so player 1 draws it alone as one secret \
             layer: he knows the permutation"
                .to_owned(),
        ),
        full_shuffle: if parties >= 3 {
            Support::Secure
        } else {
            Support::Unsupported("the dealer's deal needs at least 3 players".to_owned())
        },
        private_open: Support::Weakened(
            "secure for dealt cards (the dealer's helper-pair routes); on a card protocol's row \
             the last layer holder on the route also learns the card"
                .to_owned(),
        ),
        prove_none_of: Support::Unsupported(NONE_OF_UNSUPPORTED.to_owned()),
    }
}

/// One player of the dealer (see the [module docs](self)).
pub struct DealerEngine<R> {
    me: PartyId,
    parties: usize,
    context: Vec<u8>,
    rng: R,
    key: SigningKey,
    deviation: Option<Deviation>,
    script: Option<SharedScript>,
    stage: Stage,
    view: Vec<ViewEvent>,
    audit: Option<AuditReport>,
}

impl<R> core::fmt::Debug for DealerEngine<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DealerEngine")
            .field("me", &self.me)
            .field("parties", &self.parties)
            .finish_non_exhaustive()
    }
}

enum Stage {
    Fresh,
    Hello(Hellos),
    Table(Box<Table>),
    Finished,
}

/// What every player holds after the setup.
struct Table {
    session: SessionId,
    roster: Roster,
    keys: VerifyingKeys,
    seq: u32,
    last_seq: BTreeMap<PartyId, u32>,
    row: layers::Row,
    /// The next lane id of the layer model's openings.
    next_lane: u32,
    deal: Option<deal::Deal>,
    /// The lanes of the layer model's openings and the signed hops this player holds, kept
    /// to be checked against the layers opened at the end.
    evidence: evidence::Evidence,
    pending: Pending,
}

enum Pending {
    Idle,
    Commits(layers::Commits),
    Open(lanes::Open),
    Reveals(layers::Reveals),
    Deal(deal::Phase),
}

impl Table {
    /// Signs `body` from `me` to `to`, as a message of the layer model (its own domain and
    /// numbers: the deal's player signs and numbers its messages apart).
    fn sign(&mut self, key: &SigningKey, me: PartyId, to: Recipient, body: Body) -> Envelope {
        let env = Envelope::sign_in(Domain::Layers, &self.session, key, me, to, self.seq, body);
        self.seq += 1;
        env
    }

    /// The checks every layer-model envelope passes: sent by the peer it came from, signed
    /// for the layer model, addressed to this player, not replayed.
    fn check(&mut self, me: PartyId, from: PartyId, env: &Envelope) -> Result<()> {
        if env.from != from {
            return Err(DealerError::Malformed {
                peer: from,
                reason: format!("it relayed a message of {} as its own", env.from),
            }
            .into());
        }
        env.verify_in(Domain::Layers, &self.session, &self.keys)?;
        if !env.is_for(me) {
            return Err(DealerError::WrongRecipient { from, me }.into());
        }
        if self.last_seq.get(&from).is_some_and(|&s| env.seq <= s) {
            return Err(DealerError::Replay { from, seq: env.seq }.into());
        }
        self.last_seq.insert(from, env.seq);
        Ok(())
    }
}

fn envelope_step(env: &Envelope, after: After) -> Step {
    let to = match env.to {
        Recipient::All => To::All,
        Recipient::Party(p) => To::Party(p),
    };
    Step::wait().with(to, after, DealerMessage::Envelope(env.clone()).to_bytes())
}

impl<R: RngCore + CryptoRng> DealerEngine<R> {
    /// Player `me` of `parties ≥ 2`, in a game whose players agreed beforehand on `context`
    /// (a roster's session, a label), drawing every secret from `rng`.
    pub fn with_rng(me: PartyId, parties: usize, context: &[u8], mut rng: R) -> Result<Self> {
        if !(2..=crate::scheme::MAX_PLAYERS).contains(&parties) {
            return Err(DealerError::Config(format!(
                "a dealer table needs 2..={} players, not {parties}",
                crate::scheme::MAX_PLAYERS
            ))
            .into());
        }
        check_party(me, parties)?;
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut secret);
        Ok(DealerEngine {
            me,
            parties,
            context: context.to_vec(),
            rng,
            key: SigningKey::from_bytes(&secret),
            deviation: None,
            script: None,
            stage: Stage::Fresh,
            view: Vec::new(),
            audit: None,
        })
    }

    /// Makes this player deviate in the deal as `deviation` (to show the audit naming him).
    pub fn deviating(mut self, deviation: Deviation) -> Self {
        self.deviation = Some(deviation);
        self
    }

    /// Takes the shuffles' choices from `script` instead of the generator (the leakage
    /// harness's enumeration).
    pub fn scripted(mut self, script: SharedScript) -> Self {
        self.script = Some(script);
        self
    }

    /// What this player saw beyond his own inputs: his own layers, the intermediate positions
    /// he received and the cards shown to him.
    pub fn view(&self) -> &[ViewEvent] {
        &self.view
    }

    /// The session id every signature of this game binds, once the setup is done.
    pub fn session(&self) -> Option<SessionId> {
        match &self.stage {
            Stage::Table(t) => Some(t.session),
            _ => None,
        }
    }

    /// The deal's audit as this player ran it, after the end of a game with a deal.
    pub fn audit(&self) -> Option<&AuditReport> {
        self.audit.as_ref()
    }

    /// The choice of an element of a set with `weights` (all 1 for a uniform draw).
    fn draw(&mut self, weights: &[u64]) -> usize {
        if let Some(script) = &self.script {
            // A poisoned lock only means another thread panicked; the script is intact.
            return script
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .choose(weights);
        }
        let total: u64 = weights.iter().sum();
        let mut x = self.rng.gen_range(0..total.max(1));
        for (k, &w) in weights.iter().enumerate() {
            if x < w {
                return k;
            }
            x -= w;
        }
        0
    }

    fn table(&mut self) -> Result<&mut Table> {
        table_of(&mut self.stage)
    }

    fn idle(&mut self) -> Result<&mut Table> {
        idle_table(&mut self.stage)
    }

    fn begin(&mut self, op: &TableOp) -> Result<Step> {
        match op {
            TableOp::Setup => self.begin_setup(),
            TableOp::Place(cards) => {
                let t = self.idle()?;
                if t.deal.is_some() {
                    return Err(EngineError::AfterDeal("placing cards"));
                }
                t.row.place(cards)?;
                Ok(Step::done(Seen::default()))
            }
            TableOp::Commit { party, cards } => self.begin_commit(*party, cards),
            TableOp::Rearrange(perm) => {
                let t = self.idle()?;
                match &mut t.deal {
                    Some(deal) => deal.rearrange(perm)?,
                    None => t.row.rearrange(perm)?,
                }
                Ok(Step::done(Seen::default()))
            }
            TableOp::Shuffle(ShuffleSet::All) => self.begin_deal(),
            TableOp::Shuffle(set) => self.begin_shuffle(set),
            TableOp::Open(opening) => self.begin_open(opening),
            TableOp::ProveNoneOf { .. } => Err(TableError::Unsupported(NONE_OF_UNSUPPORTED).into()),
            TableOp::Finish => self.begin_finish(),
        }
    }

    fn begin_setup(&mut self) -> Result<Step> {
        if !matches!(self.stage, Stage::Fresh) {
            return Err(EngineError::OutOfOrder("a second setup"));
        }
        let mut nonce = [0u8; 32];
        self.rng.fill_bytes(&mut nonce);
        let hello = Hello {
            nonce,
            key: Some(self.key.verifying_key().to_bytes()),
        };
        self.stage = Stage::Hello(Hellos::new(self.me, self.parties, hello));
        let payload = DealerMessage::Hello(hello).to_bytes();
        Ok(Step::wait().with(To::All, After::Start, payload))
    }

    fn receive_hello(&mut self, from: PartyId, hello: Hello) -> Result<Step> {
        let Stage::Hello(hellos) = &mut self.stage else {
            return Err(unexpected(from, "a second hello"));
        };
        let valid = hello
            .key
            .is_some_and(|k| VerifyingKey::from_bytes(&k).is_ok());
        if !valid {
            return Err(unexpected(from, "its hello carries no valid signature key"));
        }
        hellos
            .receive(from, hello)
            .map_err(|e| unexpected(e.sender(), "a second or malformed hello"))?;
        let (Some(session), Some(all)) = (hellos.session(BACKEND, &self.context), hellos.all())
        else {
            return Ok(Step::wait());
        };
        let keys = all
            .iter()
            .map(|h| PublicKey(h.key.unwrap_or([0; 32])))
            .collect();
        let roster = Roster { keys };
        self.stage = Stage::Table(Box::new(Table {
            session: SessionId(session),
            keys: roster.verifying_keys()?,
            roster,
            seq: 0,
            last_seq: BTreeMap::new(),
            row: layers::Row::default(),
            next_lane: 0,
            deal: None,
            evidence: evidence::Evidence::default(),
            pending: Pending::Idle,
        }));
        Ok(Step::done(Seen::default()))
    }

    fn begin_commit(&mut self, party: PartyId, cards: &CommitCards) -> Result<Step> {
        let (me, parties) = (self.me, self.parties);
        let t = self.idle()?;
        check_party(party, parties)?;
        let layer = t.row.commit(party, cards)?;
        if party != me {
            t.pending = Pending::Commits(layers::Commits::of(vec![(party, layer)]));
            return Ok(Step::wait());
        }
        let CommitCards::Known(order) = cards else {
            return Err(TableError::HiddenCommit { party }.into());
        };
        let perm = layers::arrangement(&t.row, layer, order)?;
        let step = self.own_layer(layer, perm)?;
        Ok(with_done(step))
    }

    fn begin_shuffle(&mut self, set: &ShuffleSet) -> Result<Step> {
        let (me, parties) = (self.me, self.parties);
        let t = self.idle()?;
        if t.deal.is_some() {
            return Err(EngineError::AfterDeal("further shuffles"));
        }
        let Some(layers::Drawn {
            drawers,
            weights,
            perms,
            first,
        }) = t.row.shuffle(set, parties)?
        else {
            return Ok(Step::done(Seen::default()));
        };
        let others: Vec<(PartyId, usize)> = drawers
            .iter()
            .enumerate()
            .filter(|(_, &p)| p != me)
            .map(|(k, &p)| (p, first + k))
            .collect();
        let mine = drawers.iter().position(|&p| p == me);
        if !others.is_empty() {
            t.pending = Pending::Commits(layers::Commits::of(others));
        }
        // Every player draws in the same order (the script's enumeration relies on it).
        let mut step = Step::wait();
        if let Some(k) = mine {
            let choice = self.draw(&weights);
            let perm = perms[choice].clone();
            step = self.own_layer(first + k, perm)?;
        }
        let t = self.table()?;
        if matches!(t.pending, Pending::Idle) {
            return Ok(with_done(step));
        }
        Ok(step)
    }

    /// Fixes this player's secret layer `layer` to `perm` and broadcasts its commitment.
    fn own_layer(&mut self, layer: usize, perm: Perm) -> Result<Step> {
        let salt = crate::commit::Salt::random_with_rng(&mut self.rng);
        self.view.push(ViewEvent::OwnLayer(perm.clone()));
        let (me, key) = (self.me, self.key.clone());
        let t = self.table()?;
        let commitment = t.row.own(me, layer, perm, salt)?;
        let body = Body::Commit {
            commitments: vec![(crate::scheme::Slot::Deal(me), commitment)],
        };
        let env = t.sign(&key, me, Recipient::All, body);
        Ok(envelope_step(&env, After::Start))
    }

    fn handle(&mut self, from: PartyId, payload: &[u8]) -> Result<Step> {
        if !self.awaiting().contains(&from) {
            return Err(unexpected(from, "a message this player does not await now"));
        }
        match DealerMessage::from_bytes(payload, from)? {
            DealerMessage::Hello(hello) => self.receive_hello(from, hello),
            DealerMessage::Envelope(env) => self.receive_envelope(from, env),
            DealerMessage::Transcript(list) => self.receive_transcript(from, list),
            DealerMessage::Close { reveal, held } => self.receive_close(from, reveal, held),
        }
    }

    fn receive_envelope(&mut self, from: PartyId, env: Envelope) -> Result<Step> {
        let me = self.me;
        let t = self.table()?;
        match std::mem::replace(&mut t.pending, Pending::Idle) {
            Pending::Deal(step) => self.deal_envelope(step, from, env),
            pending => {
                t.check(me, from, &env)?;
                match pending {
                    Pending::Commits(c) => self.receive_commit(c, from, env),
                    Pending::Open(open) => self.receive_values(open, from, env),
                    Pending::Reveals(r) => self.receive_reveal(r, from, Some(&env), Vec::new()),
                    Pending::Idle | Pending::Deal(_) => Err(unexpected(from, "an envelope now")),
                }
            }
        }
    }

    fn receive_commit(
        &mut self,
        mut commits: layers::Commits,
        from: PartyId,
        env: Envelope,
    ) -> Result<Step> {
        let t = self.table()?;
        commits.receive(&mut t.row, from, &env)?;
        if commits.is_done() {
            return Ok(Step::done(Seen::default()));
        }
        t.pending = Pending::Commits(commits);
        Ok(Step::wait())
    }

    fn begin_finish(&mut self) -> Result<Step> {
        let (me, parties, key) = (self.me, self.parties, self.key.clone());
        let t = self.idle()?;
        if t.deal.is_some() && !t.row.has_secrets() {
            return self.finish_deal();
        }
        // The layers first (a game's announcements after a deal), then the deal's own end.
        let (mut reveals, body) = layers::Reveals::begin(&t.row, me);
        reveals.also_await(
            t.evidence
                .bundlers(parties)
                .into_iter()
                .filter(|&p| p != me),
        );
        let reveal = body.map(|body| t.sign(&key, me, Recipient::All, body));
        let held = t.evidence.held().to_vec();
        let message = match (reveal, held.is_empty()) {
            (Some(env), true) => Some(DealerMessage::Envelope(env)),
            (reveal, false) => Some(DealerMessage::Close { reveal, held }),
            (None, true) => None,
        };
        let step = match message {
            Some(m) => Step::wait().with(To::All, After::Start, m.to_bytes()),
            None => Step::wait(),
        };
        if reveals.is_done() {
            return self.after_reveals(step);
        }
        t.pending = Pending::Reveals(reveals);
        Ok(step)
    }

    /// The end of the layers from `from`: the openings of his layers (checked on arrival when
    /// they came alone) and, if he took part in hops to one player, his bundle of them.
    fn receive_close(
        &mut self,
        from: PartyId,
        reveal: Option<Envelope>,
        held: Vec<Envelope>,
    ) -> Result<Step> {
        let me = self.me;
        let t = self.table()?;
        let Pending::Reveals(reveals) = std::mem::replace(&mut t.pending, Pending::Idle) else {
            return Err(unexpected(from, "the end of the layers now"));
        };
        if let Some(env) = &reveal {
            t.check(me, from, env)?;
        }
        self.receive_reveal(reveals, from, reveal.as_ref(), held)
    }

    fn receive_reveal(
        &mut self,
        mut reveals: layers::Reveals,
        from: PartyId,
        reveal: Option<&Envelope>,
        held: Vec<Envelope>,
    ) -> Result<Step> {
        let t = self.table()?;
        reveals.receive(&mut t.row, from, reveal)?;
        t.evidence.check_bundle(&t.session, &t.keys, from, held)?;
        if reveals.is_done() {
            return self.after_reveals(Step::wait());
        }
        t.pending = Pending::Reveals(reveals);
        Ok(Step::wait())
    }
}

impl<R: RngCore + CryptoRng> DealerEngine<R> {
    /// Every layer is opened and every hop is in: every lane is recomputed from the layers
    /// and the first holder who signed a false value is named; then the game ends here, or
    /// goes on to the end of its deal.
    fn after_reveals(&mut self, mut step: Step) -> Result<Step> {
        let t = self.table()?;
        t.evidence.check(&t.row)?;
        if self.table()?.deal.is_some() {
            step.send.extend(self.finish_deal()?.send);
            return Ok(step);
        }
        self.stage = Stage::Finished;
        Ok(with_done(step))
    }
}

fn table_of(stage: &mut Stage) -> Result<&mut Table> {
    match stage {
        Stage::Table(t) => Ok(t),
        Stage::Fresh | Stage::Hello(_) => Err(EngineError::OutOfOrder("before the setup")),
        Stage::Finished => Err(EngineError::OutOfOrder("after the end of the game")),
    }
}

/// The table, if no operation is under way.
fn idle_table(stage: &mut Stage) -> Result<&mut Table> {
    let t = table_of(stage)?;
    if !matches!(t.pending, Pending::Idle) {
        return Err(EngineError::OutOfOrder("during another operation"));
    }
    Ok(t)
}

fn with_done(mut step: Step) -> Step {
    step.done = Some(Seen::default());
    step
}

fn unexpected(from: PartyId, what: &str) -> EngineError {
    DealerError::Unexpected {
        from,
        what: what.into(),
    }
    .into()
}

impl<R: RngCore + CryptoRng> Engine for DealerEngine<R> {
    type Error = EngineError;

    fn capabilities(parties: usize) -> Capabilities {
        capabilities(parties)
    }

    fn me(&self) -> PartyId {
        self.me
    }

    fn parties(&self) -> usize {
        self.parties
    }

    fn start(&mut self, op: &TableOp) -> Result<Step> {
        self.begin(op)
    }

    fn receive(&mut self, from: PartyId, payload: &[u8]) -> Result<Step> {
        self.handle(from, payload)
    }

    /// Every operation but the public ones that send nothing.
    fn echoes(&self, op: &TableOp) -> bool {
        !matches!(
            op,
            TableOp::Place(_) | TableOp::Rearrange(_) | TableOp::ProveNoneOf { .. }
        )
    }

    /// Hellos, transcripts, the ends of the layers and envelopes addressed to everyone.
    fn is_broadcast(&self, payload: &[u8]) -> bool {
        match DealerMessage::from_bytes(payload, self.me) {
            Ok(
                DealerMessage::Hello(_)
                | DealerMessage::Transcript(_)
                | DealerMessage::Close { .. },
            ) => true,
            Ok(DealerMessage::Envelope(env)) => env.to == Recipient::All,
            Err(_) => false,
        }
    }

    fn awaiting(&self) -> Vec<PartyId> {
        match &self.stage {
            Stage::Hello(h) => h.awaiting(),
            Stage::Table(t) => match &t.pending {
                Pending::Idle => Vec::new(),
                Pending::Commits(c) => c.awaiting(),
                Pending::Open(o) => o.awaiting(),
                Pending::Reveals(r) => r.awaiting(),
                Pending::Deal(d) => d.awaiting(),
            },
            Stage::Fresh | Stage::Finished => Vec::new(),
        }
    }
}

/// Checks an opening against the row and the players.
fn check_opening(opening: &Opening, len: usize, parties: usize) -> Result<()> {
    opening.check(len, parties).map_err(EngineError::from)
}
