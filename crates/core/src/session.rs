//! A fresh session for every game: each player's hello.
//!
//! At [`Setup`](crate::TableOp::Setup) every engine sends every other player a [`Hello`]: 32
//! fresh random bytes and, where the backend needs one, the public half of a key made for this
//! game (the dealer's ed25519 signature key). The session id is
//!
//! ```text
//! SHA3-256("facedown/session/v1" ‖ backend ‖ |context| ‖ context ‖ (id ‖ nonce ‖ key)_1..N)
//! ```
//!
//! where `context` is what the players agreed on beforehand (a roster's session, a test's
//! label). Every signature and proof of the game is bound to it, so nothing can be replayed
//! from another game even when the roster is reused.

use serde::{Deserialize, Serialize};
use sha3::{Digest, Sha3_256};

use crate::PartyId;

/// Domain separator of session ids.
pub const SESSION_LABEL: &[u8] = b"facedown/session/v1";

/// One player's hello.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Hello {
    /// Fresh random bytes.
    pub nonce: [u8; 32],
    /// The public key the sender made for this game, if the backend uses one.
    pub key: Option<[u8; 32]>,
}

/// Why a hello was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HelloError {
    /// The sender already said hello.
    #[error("{0} said hello twice")]
    Twice(PartyId),
    /// The sender is not a player.
    #[error("{0} is not a player")]
    Stranger(PartyId),
    /// The backend needs a key and the hello has none (or the other way round).
    #[error("the hello of {0} has no key, or one the backend does not use")]
    Key(PartyId),
}

impl HelloError {
    /// The player who sent the hello.
    pub fn sender(&self) -> PartyId {
        match self {
            HelloError::Twice(p) | HelloError::Stranger(p) | HelloError::Key(p) => *p,
        }
    }
}

/// The hellos received so far, this player's own included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hellos {
    got: Vec<Option<Hello>>,
    keyed: bool,
}

impl Hellos {
    /// Starts with this player's own hello (`mine.key` says whether the backend uses keys).
    pub fn new(me: PartyId, parties: usize, mine: Hello) -> Hellos {
        let mut got = vec![None; parties];
        if let Some(slot) = got.get_mut(me.index()) {
            *slot = Some(mine);
        }
        Hellos {
            got,
            keyed: mine.key.is_some(),
        }
    }

    /// Records the hello of `from`.
    pub fn receive(&mut self, from: PartyId, hello: Hello) -> Result<(), HelloError> {
        if hello.key.is_some() != self.keyed {
            return Err(HelloError::Key(from));
        }
        let slot = self
            .got
            .get_mut(from.index())
            .filter(|_| from.0 != 0)
            .ok_or(HelloError::Stranger(from))?;
        if slot.is_some() {
            return Err(HelloError::Twice(from));
        }
        *slot = Some(hello);
        Ok(())
    }

    /// The players not heard from yet.
    pub fn awaiting(&self) -> Vec<PartyId> {
        (0..self.got.len())
            .filter(|&i| self.got[i].is_none())
            .map(PartyId::from_index)
            .collect()
    }

    /// Every player's hello, player 1 first, once all have arrived.
    pub fn all(&self) -> Option<Vec<Hello>> {
        self.got.iter().copied().collect()
    }

    /// The session id of `backend` in `context`, once every hello has arrived.
    pub fn session(&self, backend: &str, context: &[u8]) -> Option<[u8; 32]> {
        let all = self.all()?;
        let mut h = Sha3_256::new();
        h.update(SESSION_LABEL);
        h.update(backend.as_bytes());
        h.update((context.len() as u64).to_be_bytes());
        h.update(context);
        for (j, hello) in all.iter().enumerate() {
            h.update(PartyId::from_index(j).0.to_be_bytes());
            h.update(hello.nonce);
            h.update(hello.key.unwrap_or([0; 32]));
        }
        Some(h.finalize().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello(b: u8) -> Hello {
        Hello {
            nonce: [b; 32],
            key: None,
        }
    }

    #[test]
    fn the_session_needs_every_hello_and_depends_on_each() {
        let mut a = Hellos::new(PartyId(1), 3, hello(1));
        assert_eq!(a.awaiting(), [PartyId(2), PartyId(3)]);
        a.receive(PartyId(2), hello(2)).expect("first hello");
        assert_eq!(a.session("x", b""), None);
        assert_eq!(
            a.receive(PartyId(2), hello(2)),
            Err(HelloError::Twice(PartyId(2)))
        );
        assert_eq!(
            a.receive(PartyId(4), hello(4)),
            Err(HelloError::Stranger(PartyId(4)))
        );
        let keyed = Hello {
            nonce: [3; 32],
            key: Some([0; 32]),
        };
        assert_eq!(
            a.receive(PartyId(3), keyed),
            Err(HelloError::Key(PartyId(3)))
        );
        a.receive(PartyId(3), hello(3)).expect("first hello");
        let s = a.session("x", b"ctx").expect("complete");
        let mut b = Hellos::new(PartyId(2), 3, hello(2));
        b.receive(PartyId(1), hello(1)).expect("hello");
        b.receive(PartyId(3), hello(3)).expect("hello");
        assert_eq!(
            b.session("x", b"ctx"),
            Some(s),
            "every player computes the same id"
        );
        assert_ne!(b.session("y", b"ctx"), Some(s));
        assert_ne!(b.session("x", b"other"), Some(s));
        let mut c = Hellos::new(PartyId(2), 3, hello(2));
        c.receive(PartyId(1), hello(9)).expect("hello");
        c.receive(PartyId(3), hello(3)).expect("hello");
        assert_ne!(c.session("x", b"ctx"), Some(s));
    }
}
