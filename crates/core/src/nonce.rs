//! The fresh-nonce round: something fresh from every player before anything is signed.
//!
//! Every signature of a game binds a context ([`BroadcastKeys`]) that starts as what the
//! players agreed on beforehand (a roster's session) and moves on with every accepted echo
//! round. Without a round before the hellos, the hellos are signed under the roster's session
//! alone: a hello replayed from an earlier game with the same roster verifies, and shown beside
//! the signer's real hello it makes the signer look like an equivocator. So before an engine's
//! setup messages leave, its seat runs this round:
//!
//! 1. every player sends every other a **fresh nonce** ([`NonceMessage::Nonce`]): the digest
//!    `SHA3-256("facedown/fresh-nonce/v1" ‖ player ‖ its setup messages)` of the messages the
//!    engine is about to send, which carry the 32 fresh random bytes of its hello (so the
//!    seat needs no randomness of its own, and a seeded run stays deterministic);
//! 2. once it holds every nonce, it sends every other the list of all of them
//!    ([`NonceMessage::View`]), moves its signature context on to
//!    `SHA3-256("facedown/broadcast-context/v1" ‖ context ‖ agreed)` (as after any echo round,
//!    [`BroadcastKeys::after`]) and only then signs and sends its setup messages;
//! 3. a peer's setup messages are handed to the engine only once that peer's list has arrived
//!    and equals this player's: the two sign under the same context, so a signature that fails
//!    is its sender's fault, and an honest relayer never relays a signature that fails.
//!
//! The lists are the round's echo, folded into the first round of the setup: one round more
//! in all. Nothing in this round is signed — a signature made before anything fresh is known
//! could be replayed from another game, so it would prove nothing. A list that differs names
//! its sender when it contradicts what that sender or this player sent (it reports another
//! nonce than the one the sender sent this player, or another than this player's own), and
//! otherwise nobody ([`EchoError::Differs`]).
//!
//! # Cost
//!
//! One round, `2·N·(N − 1)` messages: a nonce of `4 + 1 + 32` bytes and a list of
//! `4 + 1 + 32·N` bytes from every player to every other.

use std::collections::BTreeSet;

use sha3::{Digest, Sha3_256};

use crate::echo::{digest, BroadcastKeys, EchoError, EchoMessage, EchoRound};
use crate::engine::Step;
use crate::PartyId;

/// Domain separator of a player's fresh nonce.
pub const NONCE_LABEL: &[u8] = b"facedown/fresh-nonce/v1";

/// The operation number the round's messages carry (the setup is 1, so an echo never has it).
pub const NONCE_OP: u32 = 0;

/// A player's fresh nonce.
pub type Nonce = [u8; 32];

/// A message of the round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NonceMessage {
    /// The sender's fresh nonce.
    Nonce(Nonce),
    /// Every player's nonce as the sender received it (its own as sent), player 1 first.
    View(Vec<Nonce>),
}

impl NonceMessage {
    /// The encoding: [`NONCE_OP`] (4 bytes), a tag (0: a nonce, 1: a list), the nonces.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = NONCE_OP.to_be_bytes().to_vec();
        match self {
            NonceMessage::Nonce(n) => {
                out.push(0);
                out.extend(n);
            }
            NonceMessage::View(all) => {
                out.push(1);
                all.iter().for_each(|n| out.extend(n));
            }
        }
        out
    }

    /// Whether `bytes` are a message of this round (and not an echo of an operation).
    pub fn is_one(bytes: &[u8]) -> bool {
        bytes.starts_with(&NONCE_OP.to_be_bytes())
    }

    /// Decodes a message from `from` at a table of `parties` players.
    pub fn from_bytes(bytes: &[u8], parties: usize, from: PartyId) -> Result<Self, EchoError> {
        let bad = |reason| EchoError::Malformed { from, reason };
        let body = bytes
            .strip_prefix(&NONCE_OP.to_be_bytes()[..])
            .ok_or(bad("not a message of the nonce round"))?;
        let (tag, rest) = body.split_first().ok_or(bad("truncated"))?;
        if rest.len() % 32 != 0 {
            return Err(bad("a nonce that is not 32 bytes"));
        }
        let nonces: Vec<Nonce> = rest
            .chunks_exact(32)
            .filter_map(|c| c.try_into().ok())
            .collect();
        match (tag, nonces.as_slice()) {
            (0, [n]) => Ok(NonceMessage::Nonce(*n)),
            (1, all) if all.len() == parties => Ok(NonceMessage::View(nonces)),
            _ => Err(bad("neither a nonce nor a list of every player's")),
        }
    }
}

/// Player `me`'s fresh nonce for the setup messages `setup` its engine is about to send.
pub fn fresh_nonce(me: PartyId, setup: &Step) -> Nonce {
    let mut h = Sha3_256::new();
    h.update(NONCE_LABEL);
    h.update(me.0.to_be_bytes());
    for m in &setup.send {
        h.update((m.payload.len() as u64).to_be_bytes());
        h.update(&m.payload);
    }
    h.finalize().into()
}

/// The round at one player (see the [module docs](self)).
#[derive(Debug)]
pub struct NonceRound {
    me: PartyId,
    got: Vec<Option<Nonce>>,
    /// The peers' lists that came before this player held every nonce, with their depths.
    early: Vec<Option<(u32, Vec<Nonce>)>>,
    round: EchoRound,
    agreeing: BTreeSet<PartyId>,
    /// Peers that aborted after sending a list this player could not take yet: each counts
    /// as giving up once its list is taken.
    aborted_early: BTreeSet<PartyId>,
}

impl NonceRound {
    /// The round of player `me` of `parties`, whose own nonce is `mine`.
    pub fn new(me: PartyId, parties: usize, mine: Nonce) -> NonceRound {
        let mut got = vec![None; parties];
        if let Some(slot) = got.get_mut(me.index()) {
            *slot = Some(mine);
        }
        let mut round = EchoRound::unsigned(NONCE_OP, me, parties);
        round.record_unsigned(me, &mine);
        NonceRound {
            me,
            got,
            early: vec![None; parties],
            round,
            agreeing: BTreeSet::new(),
            aborted_early: BTreeSet::new(),
        }
    }

    /// A message from `from`: a nonce is recorded, a list kept until this player holds every
    /// nonce ([`NonceRound::take_views`]). A second of either names its sender.
    /// `depth` is the message's causal depth, kept with a list until it is taken.
    pub fn offer(&mut self, from: PartyId, depth: u32, msg: NonceMessage) -> Result<(), EchoError> {
        let bad = |reason| EchoError::Malformed { from, reason };
        if from == self.me || from.0 == 0 || from.index() >= self.got.len() {
            return Err(bad("not a peer"));
        }
        match msg {
            NonceMessage::Nonce(n) => {
                let slot = &mut self.got[from.index()];
                if slot.is_some() {
                    return Err(bad("a second nonce"));
                }
                *slot = Some(n);
                self.round.record_unsigned(from, &n);
            }
            NonceMessage::View(all) => {
                let early = &mut self.early[from.index()];
                if early.is_some() || self.round.heard(from) {
                    return Err(bad("a second list of nonces"));
                }
                *early = Some((depth, all));
            }
        }
        Ok(())
    }

    /// Every player's nonce, once this player holds them all.
    pub fn view(&self) -> Option<Vec<Nonce>> {
        self.got.iter().copied().collect()
    }

    /// What every signature of the game binds from now on ([`BroadcastKeys::after`]).
    pub fn agreed(&self) -> [u8; 32] {
        self.round.agreed()
    }

    /// Compares every list that waits with this player's own, once it holds every nonce;
    /// returns the depths of the lists taken (so a list that came early counts only from
    /// then on, and the depths do not depend on the order of arrival).
    pub fn take_views(&mut self, keys: &BroadcastKeys) -> Result<Vec<u32>, EchoError> {
        let mut depths = Vec::new();
        let Some(mine) = self.view() else {
            return Ok(depths);
        };
        for j in 0..self.early.len() {
            let Some((depth, theirs)) = self.early[j].take() else {
                continue;
            };
            let from = PartyId::from_index(j);
            let echo = EchoMessage {
                op: NONCE_OP,
                failing: false,
                chains: theirs.iter().map(|n| vec![(digest(n), [0; 64])]).collect(),
            };
            self.round.hear(from, &echo, keys)?;
            let aborted = self.aborted_early.remove(&from);
            depths.push(depth);
            if theirs == mine {
                self.agreeing.insert(from);
            } else if aborted {
                self.round.hear_abort(from, None, keys)?;
            }
        }
        Ok(depths)
    }

    /// Whether `p`'s list has arrived and equals this player's.
    pub fn agrees_with(&self, p: PartyId) -> bool {
        self.agreeing.contains(&p)
    }

    /// `from` aborted. Links keep their order, so a list it sent came first: if that list
    /// equals this player's (now, or once this player holds every nonce and takes it), the
    /// peer finished this round and its abort is the setup's, judged there with its setup
    /// echo; the setup messages it sent are handed on as usual. Before, the list was dropped
    /// and the peer counted as giving up here, so a slow player stopped in this round and an
    /// equivocation that the setup echoes showed went unseen: the verdict named nobody.
    /// Without a list, or with one that differs, it gave up here.
    pub fn hear_abort(&mut self, from: PartyId, keys: &BroadcastKeys) -> Result<(), EchoError> {
        if self.agreeing.contains(&from) {
            return Ok(());
        }
        if self.early.get(from.index()).is_some_and(Option::is_some) {
            self.aborted_early.insert(from);
            return Ok(());
        }
        self.round.hear_abort(from, None, keys)
    }

    /// The peers this player still awaits: those whose nonce is missing, then those whose
    /// list is.
    pub fn awaiting(&self) -> Vec<PartyId> {
        let peers = PartyId::all(self.got.len()).filter(|&p| p != self.me);
        if self.view().is_none() {
            return peers.filter(|p| self.got[p.index()].is_none()).collect();
        }
        peers.filter(|&p| !self.round.heard(p)).collect()
    }

    /// `Ok(true)` once every list is in and equals this player's; `Ok(false)` while lists are
    /// missing; the round's verdict once every list is in and one differs, or a peer gave up.
    pub fn verdict(&self) -> Result<bool, EchoError> {
        let parties = self.got.len();
        if !self.round.complete(parties) {
            return Ok(false);
        }
        self.round.verdict(parties, None)
    }

    /// The verdict on what has arrived, if a list differs (a wait that is over).
    pub fn differs(&self) -> Option<EchoError> {
        if !self.round.differs_anywhere() {
            return None;
        }
        self.round.verdict(self.got.len(), None).err()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Blame;

    fn keys(p: u16) -> BroadcastKeys {
        BroadcastKeys::in_process(PartyId(p), 3)
    }

    #[test]
    fn messages_round_trip_and_garbage_names_the_sender() {
        for m in [
            NonceMessage::Nonce([7; 32]),
            NonceMessage::View(vec![[1; 32], [2; 32], [3; 32]]),
        ] {
            let bytes = m.to_bytes();
            assert!(NonceMessage::is_one(&bytes));
            assert_eq!(NonceMessage::from_bytes(&bytes, 3, PartyId(2)), Ok(m));
            let err = NonceMessage::from_bytes(&bytes[..bytes.len() - 1], 3, PartyId(2));
            assert_eq!(err.expect_err("cut").blamed(), Some(PartyId(2)));
        }
        let short_list = NonceMessage::View(vec![[1; 32]]).to_bytes();
        assert!(NonceMessage::from_bytes(&short_list, 3, PartyId(3)).is_err());
    }

    /// Player 1's round after player 2 sent `n2` and player 3 `n3`.
    fn round_with(n2: Nonce, n3: Nonce) -> NonceRound {
        let mut r = NonceRound::new(PartyId(1), 3, [1; 32]);
        r.offer(PartyId(2), 1, NonceMessage::Nonce(n2))
            .expect("first");
        r.offer(PartyId(3), 1, NonceMessage::Nonce(n3))
            .expect("first");
        r
    }

    #[test]
    fn agreeing_lists_complete_the_round_and_a_second_nonce_names_its_sender() {
        let mut r = round_with([2; 32], [3; 32]);
        let all = r.view().expect("every nonce");
        assert_eq!(
            r.offer(PartyId(2), 1, NonceMessage::Nonce([9; 32]))
                .expect_err("twice")
                .blamed(),
            Some(PartyId(2))
        );
        for p in [2, 3] {
            r.offer(PartyId(p), 2, NonceMessage::View(all.clone()))
                .expect("first");
        }
        r.take_views(&keys(1)).expect("compared");
        assert!(r.agrees_with(PartyId(2)) && r.agrees_with(PartyId(3)));
        assert_eq!(r.verdict(), Ok(true));
    }

    #[test]
    fn a_list_contradicting_its_senders_nonce_names_it_and_a_third_players_names_nobody() {
        // Player 3 sent player 1 nonce 3 and (say) player 2 nonce 4.
        let mut r = round_with([2; 32], [3; 32]);
        r.offer(
            PartyId(2),
            2,
            NonceMessage::View(vec![[1; 32], [2; 32], [4; 32]]),
        )
        .expect("first");
        r.offer(
            PartyId(3),
            2,
            NonceMessage::View(vec![[1; 32], [2; 32], [3; 32]]),
        )
        .expect("first");
        r.take_views(&keys(1)).expect("compared");
        assert!(!r.agrees_with(PartyId(2)) && r.agrees_with(PartyId(3)));
        let err = r.verdict().expect_err("differs");
        assert_eq!(err.blamed(), None, "player 2's word against player 3's");
        // Player 2's side: player 3's own list contradicts the nonce it sent player 2.
        let mut r2 = NonceRound::new(PartyId(2), 3, [2; 32]);
        r2.offer(PartyId(1), 1, NonceMessage::Nonce([1; 32]))
            .expect("first");
        r2.offer(PartyId(3), 1, NonceMessage::Nonce([4; 32]))
            .expect("first");
        r2.offer(
            PartyId(3),
            2,
            NonceMessage::View(vec![[1; 32], [2; 32], [3; 32]]),
        )
        .expect("first");
        r2.take_views(&keys(2)).expect("compared");
        assert_eq!(r2.differs().and_then(|e| e.blamed()), Some(PartyId(3)));
    }

    /// Player 2's list reaches player 1 before player 3's nonce, then player 2's abort (of the
    /// setup, which player 2 reached): the list still counts, the round completes, and the
    /// abort is left to the setup's echo round.
    #[test]
    fn an_abort_after_an_agreeing_list_leaves_the_round_to_complete() {
        let mut r = NonceRound::new(PartyId(1), 3, [1; 32]);
        r.offer(PartyId(2), 1, NonceMessage::Nonce([2; 32]))
            .expect("first");
        let all = vec![[1; 32], [2; 32], [3; 32]];
        r.offer(PartyId(2), 2, NonceMessage::View(all.clone()))
            .expect("first");
        r.hear_abort(PartyId(2), &keys(1)).expect("heard");
        r.offer(PartyId(3), 1, NonceMessage::Nonce([3; 32]))
            .expect("first");
        r.offer(PartyId(3), 2, NonceMessage::View(all))
            .expect("first");
        r.take_views(&keys(1)).expect("compared");
        assert!(r.agrees_with(PartyId(2)), "the early list was kept");
        assert_eq!(r.verdict(), Ok(true));
        r.hear_abort(PartyId(3), &keys(1)).expect("heard");
        assert_eq!(
            r.verdict(),
            Ok(true),
            "an abort after an agreeing list is the setup's"
        );
    }

    #[test]
    fn an_abort_without_a_list_gives_up_the_round() {
        let mut r = round_with([2; 32], [3; 32]);
        r.hear_abort(PartyId(2), &keys(1)).expect("heard");
        let all = r.view().expect("every nonce");
        r.offer(PartyId(3), 2, NonceMessage::View(all))
            .expect("first");
        r.take_views(&keys(1)).expect("compared");
        assert!(r.verdict().is_err(), "player 2 gave up in the round");
    }
}
