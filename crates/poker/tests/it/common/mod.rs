//! Shared test fixtures.
#![allow(dead_code)]

use facedown_core::{rng::seeded_rng, PartyId};
use facedown_poker::elgamal::{CardEncoding, Deck, JointKey};
use facedown_poker::generators::CommitmentKey;
use facedown_poker::keys::{joint_key, SecretKey};
use facedown_poker::reveal::own_token;
use facedown_poker::ProofContext;
use merlin::Transcript;

/// Players' secret keys, the joint key, the card encoding, the commitment key and the open deck.
pub struct Fixture {
    pub sks: Vec<SecretKey>,
    pub key: JointKey,
    pub cards: CardEncoding,
    pub ck: CommitmentKey,
    pub open: Deck,
}

pub fn fixture(players: usize, n: u16, seed: u64) -> Fixture {
    let mut rng = seeded_rng(seed);
    let sks: Vec<SecretKey> = (0..players)
        .map(|_| SecretKey::random_with_rng(&mut rng))
        .collect();
    let pks: Vec<_> = sks.iter().map(|s| *s.public()).collect();
    let key = joint_key(&pks).expect("honest shares do not sum to the identity");
    let cards = CardEncoding::new(n);
    let open = Deck::open_deck(&cards);
    Fixture {
        sks,
        key,
        cards,
        ck: CommitmentKey::new(usize::from(n)),
        open,
    }
}

impl Fixture {
    /// Decrypts every card of `deck` with all secret keys (test oracle).
    pub fn decrypt(&self, deck: &Deck) -> Vec<u16> {
        deck.ciphertexts()
            .iter()
            .enumerate()
            .map(|(pos, ct)| {
                let tokens: Vec<_> = self.sks.iter().map(|sk| own_token(sk, ct)).collect();
                facedown_poker::reveal::open_card(&self.cards, pos, ct, &tokens)
                    .expect("every position holds a card")
            })
            .collect()
    }
}

pub fn ctx(session: &'static [u8], round: u64, player: u16) -> ProofContext<'static> {
    ProofContext {
        session,
        round,
        player: PartyId(player),
    }
}

pub fn transcript() -> Transcript {
    Transcript::new(b"facedown-poker tests")
}
