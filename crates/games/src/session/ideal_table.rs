//! The ideal table as a process of its own: a trusted table that every player reaches over the
//! network, as a state machine with no I/O.
//!
//! The ideal functionality of a face-down table is a trusted party holding the physical cards.
//! [`TableServer`] is that party for a whole game: each player sends it every operation of his
//! session as he knows it ([`Request::Apply`], another player's commitment only as its
//! multiset), and it answers each with what the table shows that player ([`Reply::Shown`]) —
//! or refuses it ([`Reply::Refused`]) exactly as the shared table in memory does, since both
//! run [`IdealSteps`]. A request whose commitment only its author can lay waits until he does,
//! and an opening or a claim until every player has asked for it (all in the same words, or
//! the hand stops there with nothing shown).
//! Each hand is a fresh table shuffled from its own stream of the game's seed or of the table's
//! own key ([`hand_rng`]),
//! so a game over the network deals the same cards as the same game in memory.
//!
//! The players never talk to one another: everything goes through the table, which sees every
//! card (it is trusted) and shows each player only his share. Causal depths travel with every
//! message so rounds are measured as on the other backends: an answer follows its request and,
//! for a request that waited, the author's request it waited for.

use facedown_core::{PartyId, Seen, TableOp};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use facedown_core::rng::Randomness;

use super::ideal::{hand_rng, IdealSteps, IdealViewError};

/// The most hands a game may have at the table (a game to 100 stops after 200 deals).
pub const MAX_HANDS: u32 = 1024;

/// The most operations one hand may have.
pub const MAX_STEPS: usize = 1 << 16;

/// What a player asks of the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// Apply `op`, this player's next operation of hand `hand` (from 0), as he knows it.
    Apply {
        /// The hand.
        hand: u32,
        /// The operation.
        op: TableOp,
    },
    /// This player's game is over.
    Bye,
}

/// The table's answer to one [`Request::Apply`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    /// What the table shows this player of his operation.
    Shown(Seen),
    /// The table refused it.
    Refused(Refusal),
}

/// Why the table refused an operation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Refusal {
    /// A legal-play claim ([`TableOp::ProveNoneOf`]) of `owner` is false.
    HoldsExcluded {
        /// The player whose claim failed.
        owner: PartyId,
    },
    /// The player's operation is not the one the table applied at that step.
    Diverged {
        /// The step.
        step: usize,
    },
    /// The table refused the operation for another reason (it names nobody).
    Table(String),
    /// The request does not fit the game: an earlier hand, too many hands or steps, a second
    /// request before the answer to the first, a request after his goodbye.
    OutOfOrder(String),
    /// The player offered the cards of `author`'s commitment, which only `author` lays (an
    /// announcement he saw turned, laid again as if its author made it).
    NotTheAuthor {
        /// The commitment's author.
        author: PartyId,
        /// The step.
        step: usize,
    },
    /// The table cannot answer: `player`, whom it waits for at `step`, left (his link closed
    /// or he said goodbye).
    Left {
        /// The player who left.
        player: PartyId,
        /// The step.
        step: usize,
    },
    /// The table applied nothing for `waited_ms` while it waited at `step` for `awaited`.
    Stalled {
        /// The step.
        step: usize,
        /// Who the table waits for.
        awaited: Vec<PartyId>,
        /// How long the table applied nothing, in milliseconds.
        waited_ms: u64,
    },
}

impl Refusal {
    fn of(e: IdealViewError) -> Refusal {
        match e {
            IdealViewError::Table(facedown_core::table::TableError::HoldsExcluded { owner }) => {
                Refusal::HoldsExcluded { owner }
            }
            IdealViewError::Diverged { step, .. } => Refusal::Diverged { step },
            IdealViewError::NotTheAuthor { author, step, .. } => {
                Refusal::NotTheAuthor { author, step }
            }
            IdealViewError::Left { player, step } => Refusal::Left { player, step },
            other => Refusal::Table(other.to_string()),
        }
    }

    /// The error player `me`'s view of the table ends with, the same as in memory where there
    /// is one (so the same player is blamed).
    pub fn into_error(self, me: PartyId) -> IdealViewError {
        match self {
            Refusal::HoldsExcluded { owner } => {
                IdealViewError::Table(facedown_core::table::TableError::HoldsExcluded { owner })
            }
            Refusal::Diverged { step } => IdealViewError::Diverged { me, step },
            Refusal::NotTheAuthor { author, step } => {
                IdealViewError::NotTheAuthor { me, author, step }
            }
            Refusal::Left { player, step } => IdealViewError::Left { player, step },
            Refusal::Stalled {
                step,
                awaited,
                waited_ms,
            } => IdealViewError::Timeout {
                me,
                step,
                waited: std::time::Duration::from_millis(waited_ms),
                awaited,
            },
            Refusal::Table(why) | Refusal::OutOfOrder(why) => IdealViewError::Refused(why),
        }
    }
}

/// One message the table sends: `reply` to player `to`, at causal depth `depth`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The player.
    pub to: PartyId,
    /// The message's causal depth.
    pub depth: u32,
    /// The answer.
    pub reply: Reply,
}

/// Where one player is in the game, and his request that waits, if any.
#[derive(Clone, Debug, Default)]
struct Player {
    hand: u32,
    step: usize,
    waiting: Option<(TableOp, u32)>,
    gone: bool,
}

/// What the table did over a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ServerCounts {
    /// Hands dealt.
    pub hands: u64,
    /// Operations applied.
    pub applied: u64,
    /// Requests answered.
    pub answered: u64,
    /// Requests refused.
    pub refused: u64,
}

/// The trusted table of a whole game (see the [module docs](self)).
pub struct TableServer {
    parties: usize,
    shuffles: Randomness,
    hands: Vec<IdealSteps<ChaCha20Rng>>,
    players: Vec<Player>,
    counts: ServerCounts,
}

impl TableServer {
    /// The table of a game of `parties` players whose hand `k` shuffles with stream `k` of
    /// `seed`.
    pub fn new(parties: usize, seed: u64) -> TableServer {
        TableServer::shuffling(parties, Randomness::Seed(seed))
    }

    /// The table of a game of `parties` players whose hand `k` shuffles with stream `k` of
    /// `shuffles` ([`hand_rng`]): a seed every player may know (for reproducible runs, not for
    /// real play) or the table's own secret key.
    pub fn shuffling(parties: usize, shuffles: Randomness) -> TableServer {
        TableServer {
            parties,
            shuffles,
            hands: Vec::new(),
            players: vec![Player::default(); parties],
            counts: ServerCounts::default(),
        }
    }

    /// Whether every player has said goodbye.
    pub fn finished(&self) -> bool {
        self.players.iter().all(|p| p.gone)
    }

    /// The players who have not said goodbye.
    pub fn playing(&self) -> Vec<PartyId> {
        PartyId::all(self.parties)
            .filter(|p| !self.players[p.index()].gone)
            .collect()
    }

    /// What the table did so far.
    pub fn counts(&self) -> ServerCounts {
        self.counts
    }

    /// Player `who` left without a goodbye (his link closed): whether he was still playing,
    /// and the answers to the players whose requests waited for him ([`Refusal::Left`]).
    pub fn leave(&mut self, who: PartyId) -> (bool, Vec<Answer>) {
        match self.players.get_mut(who.index()).filter(|_| who.0 != 0) {
            Some(p) if !p.gone => {
                p.gone = true;
                p.waiting = None;
                (true, self.answer_waiting(0))
            }
            _ => (false, Vec::new()),
        }
    }

    /// The table applied nothing for `waited_ms`: every waiting request it cannot answer is
    /// refused, naming whom the table waits for ([`Refusal::Stalled`]), so its player does not
    /// time out on his own without knowing who stalled the hand.
    pub fn stalled(&mut self, waited_ms: u64) -> Vec<Answer> {
        let mut answers = Vec::new();
        for who in PartyId::all(self.parties) {
            let player = &self.players[who.index()];
            let Some((op, depth)) = &player.waiting else {
                continue;
            };
            let Some(steps) = self.hands.get(player.hand as usize) else {
                continue;
            };
            let awaited = steps.awaited(player.step, op);
            if awaited.is_empty() {
                continue;
            }
            let (step, depth) = (player.step, depth.saturating_add(1));
            answers.push(self.refused_waiting(
                who,
                depth,
                Refusal::Stalled {
                    step,
                    awaited,
                    waited_ms,
                },
            ));
        }
        answers
    }

    /// Refuses `who`'s waiting request with `why`.
    fn refused_waiting(&mut self, who: PartyId, depth: u32, why: Refusal) -> Answer {
        self.players[who.index()].waiting = None;
        self.counts.refused += 1;
        self.counts.answered += 1;
        Answer {
            to: who,
            depth,
            reply: Reply::Refused(why),
        }
    }

    /// The answers every waiting request can have now (after a player left).
    fn answer_waiting(&mut self, after: u32) -> Vec<Answer> {
        PartyId::all(self.parties)
            .filter_map(|p| {
                let hand = self.players[p.index()].hand;
                self.answer(hand, p, after)
            })
            .collect()
    }

    /// The refusal of a request of `from` that arrived at depth `depth` and does not fit the
    /// game (or does not decode).
    pub fn refuse(&mut self, from: PartyId, depth: u32, why: String) -> Vec<Answer> {
        self.counts.refused += 1;
        vec![Answer {
            to: from,
            depth: depth.saturating_add(1),
            reply: Reply::Refused(Refusal::OutOfOrder(why)),
        }]
    }

    /// Handles `request` from `from`, which arrived at causal depth `depth`: the answers to
    /// send (to him, and to every player whose request waited for this one).
    pub fn receive(&mut self, from: PartyId, depth: u32, request: Request) -> Vec<Answer> {
        let Some(player) = self.players.get_mut(from.index()).filter(|_| from.0 != 0) else {
            return Vec::new();
        };
        let why = match request {
            _ if player.gone => format!("{from} already said goodbye"),
            _ if player.waiting.is_some() => format!("{from} asked again before his answer"),
            Request::Bye => {
                player.gone = true;
                return self.answer_waiting(depth);
            }
            Request::Apply { hand, .. } if hand < player.hand || hand >= MAX_HANDS => {
                format!("{from} asked for hand {hand} at hand {}", player.hand)
            }
            Request::Apply { hand, op } => {
                if hand > player.hand {
                    (player.hand, player.step) = (hand, 0);
                }
                if player.step < MAX_STEPS {
                    player.waiting = Some((op, depth));
                    return self.serve(hand, from);
                }
                format!("{from} went past {MAX_STEPS} operations in a hand")
            }
        };
        self.refuse(from, depth, why)
    }

    /// Offers `from`'s waiting request of `hand` to its table, and, when that applied a new
    /// operation, every other request waiting at that step.
    fn serve(&mut self, hand: u32, from: PartyId) -> Vec<Answer> {
        while self.hands.len() <= hand as usize {
            let rng = hand_rng(&self.shuffles, self.hands.len());
            self.hands.push(IdealSteps::new(self.parties, rng));
            self.counts.hands += 1;
        }
        let settled = |steps: &IdealSteps<_>| (steps.applied(), steps.stopped());
        let before = settled(&self.hands[hand as usize]);
        let mut answers: Vec<Answer> = self.answer(hand, from, 0).into_iter().collect();
        let after = settled(&self.hands[hand as usize]);
        if after != before {
            self.counts.applied += u64::from(after.0 > before.0);
            let trigger = answers.first().map_or(0, |a| a.depth);
            for other in PartyId::all(self.parties).filter(|p| *p != from) {
                answers.extend(self.answer(hand, other, trigger));
            }
        }
        answers
    }

    /// `who`'s answer, if his waiting request of `hand` can be answered now; `after` is the
    /// depth of the message that made it answerable.
    fn answer(&mut self, hand: u32, who: PartyId, after: u32) -> Option<Answer> {
        let player = &self.players[who.index()];
        if player.hand != hand {
            return None;
        }
        let (op, depth) = player.waiting.clone()?;
        let (step, depth) = (player.step, depth.max(after).saturating_add(1));
        let steps = self.hands.get_mut(hand as usize)?;
        let reply = match steps.offer(who, step, &op) {
            Ok(None) => {
                let left = steps
                    .awaited(step, &op)
                    .into_iter()
                    .find(|p| self.players[p.index()].gone)?;
                return Some(self.refused_waiting(
                    who,
                    depth,
                    Refusal::Left { player: left, step },
                ));
            }
            Ok(Some(seen)) => {
                self.players[who.index()].step += 1;
                Reply::Shown(seen)
            }
            Err(e) => {
                self.counts.refused += 1;
                Reply::Refused(Refusal::of(e))
            }
        };
        self.players[who.index()].waiting = None;
        self.counts.answered += 1;
        Some(Answer {
            to: who,
            depth,
            reply,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use facedown_core::op::{CommitCards, Opening};
    use facedown_core::Symbol;

    fn apply(op: TableOp) -> Request {
        Request::Apply { hand: 0, op }
    }

    #[test]
    fn a_hidden_commitment_waits_for_its_author_and_both_see_their_share() {
        let mut table = TableServer::new(2, 1);
        let (p1, p2) = (PartyId(1), PartyId(2));
        let cards = vec![Symbol::from_code(0), Symbol::from_code(1)];
        let known = TableOp::Commit {
            party: p1,
            cards: CommitCards::Known(cards.clone()),
        };
        assert!(table.receive(p2, 0, apply(known.seen_by(p2))).is_empty());
        let answers = table.receive(p1, 3, apply(known));
        let to: Vec<(PartyId, u32)> = answers.iter().map(|a| (a.to, a.depth)).collect();
        assert_eq!(to, [(p1, 4), (p2, 5)]);
        let open = TableOp::Open(Opening {
            public: Vec::new(),
            private: vec![(p2, vec![0, 1])],
        });
        // An opening waits for every player's request, then answers both.
        assert!(table.receive(p1, 4, apply(open.clone())).is_empty());
        let shown = table.receive(p2, 5, apply(open));
        let mut replies: Vec<(PartyId, Reply)> =
            shown.into_iter().map(|a| (a.to, a.reply)).collect();
        replies.sort_by_key(|(to, _)| *to);
        let seen = |private| {
            Reply::Shown(Seen {
                public: vec![],
                private: vec![private],
            })
        };
        assert_eq!(replies, [(p1, seen(None)), (p2, seen(Some(cards)))]);
    }

    #[test]
    fn a_different_operation_a_repeated_request_and_an_old_hand_are_refused() {
        let mut table = TableServer::new(2, 1);
        let (p1, p2) = (PartyId(1), PartyId(2));
        let place = |n| TableOp::Place(vec![Symbol::from_code(n)]);
        table.receive(
            p1,
            0,
            Request::Apply {
                hand: 1,
                op: place(0),
            },
        );
        let refused = table.receive(
            p2,
            0,
            Request::Apply {
                hand: 1,
                op: place(1),
            },
        );
        assert_eq!(
            refused[0].reply,
            Reply::Refused(Refusal::Diverged { step: 0 })
        );
        let old = table.receive(p1, 0, apply(place(0)));
        assert!(matches!(
            old[0].reply,
            Reply::Refused(Refusal::OutOfOrder(_))
        ));
        let agreed = table.receive(
            p2,
            0,
            Request::Apply {
                hand: 1,
                op: place(0),
            },
        );
        assert!(matches!(agreed[0].reply, Reply::Shown(_)));
        let hidden = TableOp::Commit {
            party: p1,
            cards: CommitCards::Hidden(vec![Symbol::from_code(0)]),
        };
        table.receive(
            p2,
            0,
            Request::Apply {
                hand: 1,
                op: hidden.clone(),
            },
        );
        let again = table.receive(
            p2,
            0,
            Request::Apply {
                hand: 1,
                op: hidden,
            },
        );
        assert!(matches!(
            again[0].reply,
            Reply::Refused(Refusal::OutOfOrder(_))
        ));
        table.receive(p1, 0, Request::Bye);
        assert_eq!(table.playing(), [p2]);
    }
}
