//! The setup: a hello from every player (the session id), then every player's key share with
//! its Schnorr proof, bound to that session (round 0), and the joint key.

use facedown_core::engine::{After, Step, To};
use facedown_core::session::{Hello, HelloError, Hellos};
use facedown_core::{PartyId, Seen};
use rand::{CryptoRng, RngCore};

use super::{encoding, Pending, PokerEngine, Stage, Table, BACKEND};
use crate::elgamal::Deck;
use crate::errors::{PokerError, Result};
use crate::keys::{joint_key, PublicKey};
use crate::messages::{HelloMessage, Message};
use crate::transcript::ProofContext;

/// The setup in progress.
pub(super) enum Setup {
    /// Waiting for the other players' hellos.
    Hellos(Hellos),
    /// The session is known; waiting for key shares.
    Keys {
        session: Vec<u8>,
        keys: Vec<Option<PublicKey>>,
    },
}

impl Setup {
    pub(super) fn awaiting(&self) -> Vec<PartyId> {
        match self {
            Setup::Hellos(h) => h.awaiting(),
            Setup::Keys { keys, .. } => (0..keys.len())
                .filter(|&i| keys[i].is_none())
                .map(PartyId::from_index)
                .collect(),
        }
    }
}

fn hello_error(e: HelloError) -> PokerError {
    PokerError::UnexpectedMessage {
        player: e.sender(),
        reason: "a second or malformed hello",
    }
}

fn encode(msg: &Message) -> Result<Vec<u8>> {
    msg.to_bytes()
}

impl<R: RngCore + CryptoRng> PokerEngine<R> {
    pub(super) fn begin_setup(&mut self) -> Result<Step> {
        if !matches!(self.stage, Stage::Fresh) {
            return Err(PokerError::OutOfOrder("a second setup"));
        }
        let mut nonce = [0u8; 32];
        self.rng.fill_bytes(&mut nonce);
        let hello = Hello { nonce, key: None };
        self.stage = Stage::Setup(Setup::Hellos(Hellos::new(self.me, self.parties, hello)));
        let msg = Message::Hello(HelloMessage {
            player: self.me,
            nonce,
        });
        Ok(Step::wait().with(To::All, After::Start, encode(&msg)?))
    }

    pub(super) fn receive_setup(&mut self, from: PartyId, msg: Message) -> Result<Step> {
        let Stage::Setup(setup) = &mut self.stage else {
            return Err(PokerError::OutOfOrder("not in the setup"));
        };
        match (setup, msg) {
            (Setup::Hellos(hellos), Message::Hello(h)) => {
                let hello = Hello {
                    nonce: h.nonce,
                    key: None,
                };
                hellos.receive(from, hello).map_err(hello_error)?;
                match hellos.session(BACKEND, &self.context) {
                    Some(session) => self.announce_key(session.to_vec()),
                    None => Ok(Step::wait()),
                }
            }
            (Setup::Keys { session, keys }, Message::KeyShare(share)) => {
                let ctx = ProofContext {
                    session,
                    round: 0,
                    player: from,
                };
                let pk = share.verify(&mut self.base.clone(), &ctx)?;
                keys[from.index()] = Some(pk);
                if keys.iter().any(Option::is_none) {
                    return Ok(Step::wait());
                }
                self.enter_table()
            }
            _ => Err(PokerError::UnexpectedMessage {
                player: from,
                reason: "a message of the wrong kind for the setup",
            }),
        }
    }

    /// Every hello is in: the key share, bound to the session.
    fn announce_key(&mut self, session: Vec<u8>) -> Result<Step> {
        let ctx = ProofContext {
            session: &session,
            round: 0,
            player: self.me,
        };
        let share = self
            .sk
            .key_share_with_rng(&mut self.base.clone(), &ctx, &mut self.rng);
        let mut keys = vec![None; self.parties];
        keys[self.me.index()] = Some(*self.sk.public());
        self.stage = Stage::Setup(Setup::Keys { session, keys });
        let payload = encode(&Message::KeyShare(share))?;
        Ok(Step::wait().with(To::All, After::Everything, payload))
    }

    fn enter_table(&mut self) -> Result<Step> {
        let Stage::Setup(Setup::Keys { session, keys }) =
            std::mem::replace(&mut self.stage, Stage::Fresh)
        else {
            return Err(PokerError::OutOfOrder("not in the setup"));
        };
        let keys: Vec<PublicKey> = keys.into_iter().flatten().collect();
        let joint = joint_key(&keys)?;
        self.stage = Stage::Table(Box::new(Table {
            session,
            keys,
            joint,
            verification: self.verification,
            deck: Deck::from_ciphertexts(Vec::new()),
            encoding: encoding(2),
            round: 0,
            pending: Pending::Idle,
            shown: Default::default(),
        }));
        Ok(Step::done(Seen::default()))
    }
}
