//! An in-memory driver: runs `N` players, moves their messages through the wire encoding, and
//! counts messages, bytes and rounds per operation.
//!
//! # Accounting
//!
//! * **messages**: point-to-point deliveries. Channels are pairwise (the seed's assumption), so
//!   a broadcast to the other `N − 1` players counts `N − 1` messages.
//! * **bytes**: the size of the encoded [`Envelope`] (bincode, fixed-width integers, 64-byte
//!   signature included) times its deliveries.
//! * **rounds**: the driver delivers in synchronous rounds — everything sent in round `r` is
//!   delivered before round `r + 1` — so the rounds of a batch are the longest chain of messages
//!   that must happen one after another. Cards opened in the same batch run in parallel and
//!   share rounds; the rounds of one operation are the length of its own chain.
//! * **link messages** ([`Phase::link_messages`]): every value is its own signed message here;
//!   an implementation that merges everything one player sends another in one round would need
//!   only as many messages as there are distinct links used per round. That number is reported
//!   alongside, as a lower bound for batching (the bytes would shrink by the saved signatures
//!   and headers).
//!
//! Part of the permutation-sharing dealer \[perm-sharing-dealer\]; see the [crate docs](crate).

use ed25519_dalek::SigningKey;
use facedown_core::{Cost, PartyId};
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::audit::{audit_with, AuditReport, Signatures};
use crate::deal::DealShape;
use crate::error::DealerError;
use crate::messages::{Envelope, Roster, SessionId};
use crate::player::{Deviation, Learned, Params, Player, PlayerDone, PlayerReady, View};
use crate::scheme::{Operation, Route, Scheme};
use crate::transcript::Transcript;

/// The cost of one named phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phase {
    /// What was done.
    pub name: String,
    /// What it cost.
    pub cost: Cost,
    /// How many messages it would take if everything one player sends to another in the same
    /// round were merged into one message (one signature per link and round): a lower bound
    /// for a batching implementation. Compare with `cost.messages`.
    pub link_messages: u64,
}

/// The outcome of a batch of openings run in parallel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    /// Total cost (rounds: the longest chain in the batch).
    pub cost: Cost,
    /// Each operation and its own cost.
    pub per_op: Vec<(Operation, Cost)>,
    /// Every card learned, by whom.
    pub learned: Vec<(PartyId, Learned)>,
    /// Operations that never completed (a player withheld a message).
    pub aborted: Vec<u32>,
}

/// `N` players at an in-memory table.
#[derive(Debug)]
pub struct Table {
    players: Vec<PlayerReady>,
    transcript: Transcript,
    next_op: u32,
    phases: Vec<Phase>,
}

/// The end of a deal: the transcript, the audit and everyone's complete view.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The signed transcript.
    pub transcript: Transcript,
    /// The audit's verdict.
    pub audit: AuditReport,
    /// Every phase's cost, setup to audit.
    pub phases: Vec<Phase>,
    /// Every player's complete view, including the others' openings.
    pub views: Vec<View>,
}

/// Distinct `(sender, receiver)` links used by the envelopes of one round.
fn links(round: &[Envelope], players: usize) -> u64 {
    let mut set = std::collections::BTreeSet::new();
    for e in round {
        for p in PartyId::all(players) {
            if e.is_for(p) {
                set.insert((e.from, p));
            }
        }
    }
    set.len() as u64
}

fn deliver_cost(env: &Envelope, players: usize) -> (Cost, Envelope) {
    let bytes = env.to_bytes();
    let d = env.deliveries(players);
    let cost = Cost {
        messages: d,
        bytes: d * bytes.len() as u64,
        rounds: 0,
    };
    // Through the wire encoding, as a transport would.
    let back = Envelope::from_bytes(&bytes, env.from).unwrap_or_else(|_| env.clone());
    (cost, back)
}

impl Table {
    /// Sets up a deal: fresh keys, session, permutations and helper halves for every player
    /// (player `cheat.0` deviates as `cheat.1`), commitments exchanged.
    pub fn setup_with_rng<R: RngCore + CryptoRng + ?Sized>(
        scheme: Scheme,
        cheat: Option<(PartyId, Deviation)>,
        rng: &mut R,
    ) -> Result<Table, DealerError> {
        scheme.validate()?;
        let n_players = scheme.players;
        if let Some((p, _)) = cheat {
            if p.0 == 0 || p.index() >= n_players {
                return Err(DealerError::Config(format!("{p} is not at this table")));
            }
        }
        let keys: Vec<SigningKey> = (0..n_players)
            .map(|_| {
                let mut secret = [0u8; 32];
                rng.fill_bytes(&mut secret);
                SigningKey::from_bytes(&secret)
            })
            .collect();
        let mut session = [0u8; 32];
        rng.fill_bytes(&mut session);
        let params = Params {
            scheme,
            session: SessionId(session),
            roster: Roster::of(&keys),
        };
        let mut transcript = Transcript::new(params.clone());
        let mut waiting = Vec::with_capacity(n_players);
        let mut out = Vec::new();
        for (j, key) in keys.into_iter().enumerate() {
            let me = PartyId::from_index(j);
            let dev = cheat.and_then(|(p, d)| (p == me).then_some(d));
            let player = Player::new_with_rng(params.clone(), me, key, dev, rng)?;
            let (w, msgs) = player.commit();
            waiting.push(w);
            out.extend(msgs);
        }
        let mut cost = Cost::ZERO;
        let mut delivered = Vec::with_capacity(out.len());
        for env in &out {
            let (c, back) = deliver_cost(env, n_players);
            cost += c;
            delivered.push(back);
        }
        cost.rounds = 1;
        transcript.envelopes.extend(delivered.iter().cloned());
        let players = waiting
            .into_iter()
            .map(|w| {
                let me = w.view().party;
                let mine: Vec<Envelope> =
                    delivered.iter().filter(|e| e.is_for(me)).cloned().collect();
                w.receive_setup(&mine)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Table {
            players,
            transcript,
            next_op: 0,
            phases: vec![Phase {
                name: "setup (commitments and helper halves)".into(),
                cost,
                link_messages: links(&out, n_players),
            }],
        })
    }

    /// The public parameters.
    pub fn params(&self) -> &Params {
        &self.transcript.params
    }

    /// The scheme.
    pub fn scheme(&self) -> &Scheme {
        &self.transcript.params.scheme
    }

    /// Every phase so far.
    pub fn phases(&self) -> &[Phase] {
        &self.phases
    }

    /// Every player's view so far.
    pub fn views(&self) -> Vec<View> {
        self.players.iter().map(|p| p.view().clone()).collect()
    }

    /// The transcript so far.
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// Runs a batch of openings `(position, route)` in parallel, recording it as phase `name`.
    pub fn run(&mut self, name: &str, openings: &[(usize, Route)]) -> Result<Batch, DealerError> {
        let n_players = self.scheme().players;
        let mut ops = Vec::with_capacity(openings.len());
        for &(position, route) in openings {
            let position = u16::try_from(position)
                .map_err(|_| DealerError::Config(format!("position {position} is too large")))?;
            ops.push(Operation {
                id: self.next_op,
                position,
                route,
            });
            self.next_op += 1;
        }
        let mut queue = Vec::new();
        for op in &ops {
            for p in &mut self.players {
                queue.extend(p.schedule(*op)?);
            }
        }
        self.transcript.operations.extend(ops.iter().copied());
        let first_id = ops.first().map_or(0, |o| o.id);
        let mut per_op: Vec<Cost> = vec![Cost::ZERO; ops.len()];
        let mut cost = Cost::ZERO;
        let mut learned = Vec::new();
        let mut link_messages = 0;
        while !queue.is_empty() {
            cost.rounds += 1;
            link_messages += links(&queue, n_players);
            let mut delivered = Vec::with_capacity(queue.len());
            for env in queue {
                let (c, back) = deliver_cost(&env, n_players);
                cost.messages += c.messages;
                cost.bytes += c.bytes;
                if let crate::messages::Body::Value { op, hop, .. } = back.body {
                    if let Some(pc) = op
                        .checked_sub(first_id)
                        .and_then(|k| per_op.get_mut(k as usize))
                    {
                        pc.messages += c.messages;
                        pc.bytes += c.bytes;
                        pc.rounds = pc.rounds.max(u64::from(hop) + 1);
                    }
                }
                self.transcript.envelopes.push(back.clone());
                delivered.push(back);
            }
            queue = self.deliver_round(&delivered, &mut learned)?;
        }
        let aborted = ops
            .iter()
            .filter(|o| !learned.iter().any(|(_, l)| l.op == o.id))
            .map(|o| o.id)
            .collect();
        self.phases.push(Phase {
            name: name.into(),
            cost,
            link_messages,
        });
        Ok(Batch {
            cost,
            per_op: ops.into_iter().zip(per_op).collect(),
            learned,
            aborted,
        })
    }

    /// Hands one round's envelopes to their receivers (each player batch-verifies the
    /// signatures of his own) and returns the next round, in the order and with the first
    /// error that delivering them one by one would give.
    fn deliver_round(
        &mut self,
        round: &[Envelope],
        learned: &mut Vec<(PartyId, Learned)>,
    ) -> Result<Vec<Envelope>, DealerError> {
        let mut answers: Vec<_> = self
            .players
            .iter_mut()
            .map(|p| {
                let mine: Vec<&Envelope> = round.iter().filter(|e| e.is_for(p.id())).collect();
                p.receive_round(&mine).into_iter()
            })
            .collect();
        let mut next = Vec::new();
        for env in round {
            for (p, answers) in self.players.iter().zip(&mut answers) {
                if !env.is_for(p.id()) {
                    continue;
                }
                // A player's answers stop at his first error, which is returned here first.
                if let Some(answer) = answers.next() {
                    let (out, l) = answer?;
                    next.extend(out);
                    learned.extend(l.map(|l| (p.id(), l)));
                }
            }
        }
        Ok(next)
    }

    /// Deals `hand` cards privately to every player: player `p` gets positions
    /// `(p − 1)·hand .. p·hand`, all opened in one parallel batch.
    pub fn deal_hands(&mut self, hand: usize) -> Result<Batch, DealerError> {
        let scheme = self.scheme().clone();
        let shape = DealShape::new(&scheme, hand, 0)?;
        let mut openings = Vec::new();
        for p in PartyId::all(scheme.players).filter(|_| hand > 0) {
            let route = scheme.private_route(p)?;
            openings.extend(shape.hand_positions(p).map(|i| (i, route)));
        }
        self.run("deal hands (private openings)", &openings)
    }

    /// Opens `positions` to everyone in one parallel batch.
    pub fn open_public(&mut self, positions: &[usize]) -> Result<Batch, DealerError> {
        let openings: Vec<_> = positions.iter().map(|&i| (i, Route::Public)).collect();
        self.run("open publicly", &openings)
    }

    /// Opens `position` to player `to` only.
    pub fn open_private(&mut self, position: usize, to: PartyId) -> Result<Batch, DealerError> {
        let route = self.scheme().private_route(to)?;
        self.run(&format!("open privately to {to}"), &[(position, route)])
    }

    /// End of game: everyone opens his commitments, then the transcript is audited.
    pub fn finish(mut self) -> Result<Finished, DealerError> {
        let n_players = self.scheme().players;
        let mut done: Vec<PlayerDone> = Vec::with_capacity(n_players);
        let mut cost = Cost::ZERO;
        let mut reveals = Vec::new();
        for p in self.players {
            let (d, env) = p.reveal();
            let (c, back) = deliver_cost(&env, n_players);
            cost += c;
            reveals.push(back);
            done.push(d);
        }
        cost.rounds = 1;
        for env in &reveals {
            for d in &mut done {
                if env.is_for(d.view().party) {
                    d.receive_reveal(env)?;
                }
            }
        }
        let link_messages = links(&reveals, n_players);
        self.transcript.envelopes.extend(reveals);
        self.phases.push(Phase {
            name: "audit (openings of every commitment)".into(),
            cost,
            link_messages,
        });
        let audit = audit_with(&self.transcript, signatures_checked(&self.transcript))?;
        Ok(Finished {
            transcript: self.transcript,
            audit,
            phases: self.phases,
            views: done.into_iter().map(PlayerDone::into_view).collect(),
        })
    }
}

/// Whether the in-memory audit may skip the signatures: every envelope of the transcript
/// reached at least one player at the table, who verified it before acting on it (a failed
/// check ends the deal with its error, so a transcript that reaches the audit holds only
/// verified envelopes). If an envelope reached no player, the audit checks them all.
fn signatures_checked(t: &Transcript) -> Signatures {
    let players = t.params.scheme.players;
    let received = |e: &Envelope| PartyId::all(players).any(|p| e.is_for(p));
    if t.envelopes.iter().all(received) {
        Signatures::Checked
    } else {
        Signatures::Check
    }
}

/// A complete game: setup, hands, public cards, audit.
#[derive(Clone, Debug)]
pub struct Game {
    /// Each player's hand as he learned it (cards in position order), player 1 first.
    pub hands: Vec<Vec<u16>>,
    /// The public cards, as player 1 received them.
    pub public: Vec<u16>,
    /// The ends of the deal.
    pub finished: Finished,
    /// Operations that never completed.
    pub aborted: Vec<u32>,
    /// Every opening and its own cost.
    pub per_op: Vec<(Operation, Cost)>,
}

impl Game {
    /// Total cost of every phase.
    pub fn total(&self) -> Cost {
        self.finished
            .phases
            .iter()
            .fold(Cost::ZERO, |acc, p| acc + p.cost)
    }
}

/// Plays a deal: `hand` private cards to each player, then `public` cards opened to everyone
/// (positions after the hands), then the audit.
pub fn play_with_rng<R: RngCore + CryptoRng + ?Sized>(
    scheme: Scheme,
    hand: usize,
    public: usize,
    cheat: Option<(PartyId, Deviation)>,
    rng: &mut R,
) -> Result<Game, DealerError> {
    let shape = DealShape::new(&scheme, hand, public)?;
    let mut table = Table::setup_with_rng(scheme, cheat, rng)?;
    let hands_batch = table.deal_hands(hand)?;
    let positions: Vec<usize> = shape.public_positions().collect();
    let public_batch = if public > 0 {
        Some(table.open_public(&positions)?)
    } else {
        None
    };
    let mut aborted = hands_batch.aborted.clone();
    let mut per_op = hands_batch.per_op.clone();
    let views = table.views();
    let hands = views
        .iter()
        .map(|v| {
            let mut mine: Vec<&Learned> = v.learned.iter().filter(|l| !l.public).collect();
            mine.sort_by_key(|l| l.position);
            mine.into_iter().map(|l| l.card).collect()
        })
        .collect();
    let public_cards = match public_batch {
        Some(b) => {
            aborted.extend(b.aborted.iter().copied());
            per_op.extend(b.per_op.iter().copied());
            let mut seen: Vec<&Learned> = views[0].learned.iter().filter(|l| l.public).collect();
            seen.sort_by_key(|l| l.position);
            seen.into_iter().map(|l| l.card).collect()
        }
        None => vec![],
    };
    let finished = table.finish()?;
    Ok(Game {
        hands,
        public: public_cards,
        finished,
        aborted,
        per_op,
    })
}
