//! The messages of the dealer, their signatures and their wire encoding.
//!
//! Every message is an [`Envelope`]: sender, recipient, a per-sender sequence number, a
//! [`Body`] and an ed25519 signature over
//! `label ‖ session ‖ bincode(from, to, seq, body)`. Signing is what lets the
//! end-of-game audit *name* a deviating player: a receiver cannot claim to have received a value
//! its sender did not sign, and the sender cannot deny a value it did sign (non-repudiation).
//! The session identifier binds every message to one deal, so messages cannot be replayed
//! across deals; the recipient and sequence number are signed so they cannot be replayed
//! within one.
//!
//! The label names the protocol the message belongs to ([`Domain`]): the dealer's deal
//! ([`DEAL_LABEL`]) or a card protocol's layer model in an [engine](crate::engine)
//! ([`LAYERS_LABEL`]). One key signs both in one session, each with its own sequence numbers,
//! so without the label a message of one would be a validly signed message of the other: a
//! cheater could relay a hop the layer model sent him into the deal's transcript and get its
//! honest signer named there (or the reverse). A verifier checks a signature in the domain it
//! expects, and an envelope of the other domain fails like a forgery, naming whoever presented
//! it.
//!
//! On the wire an envelope is bincode with fixed-width integers and a size limit
//! ([`Envelope::to_bytes`], [`Envelope::from_bytes`]); in saved transcripts it is JSON.
//!
//! Part of the permutation-sharing dealer \[perm-sharing-dealer\]; see the [crate docs](crate).

use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use facedown_core::{PartyId, Perm};
use num_bigint::BigUint;
use serde::{Deserialize, Serialize};

use crate::commit::{Commitment, Salt};
use crate::error::DealerError;
use crate::hexser;
use crate::scheme::{Half, Recipient, Slot};
use crate::signature;

/// Domain-separation label of the deal's message signatures ([`Domain::Deal`]).
pub const DEAL_LABEL: &[u8] = b"facedown-dealer/deal/v2";
/// Domain-separation label of the layer model's message signatures ([`Domain::Layers`]).
pub const LAYERS_LABEL: &[u8] = b"facedown-dealer/layers/v2";

/// The protocol a signature is for (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// The dealer's deal: its players ([`crate::player`]), driver and audit.
    Deal,
    /// A card protocol's layer model in an engine ([`crate::engine`]).
    Layers,
}

impl Domain {
    /// The label its signatures begin with.
    pub fn label(self) -> &'static [u8] {
        match self {
            Domain::Deal => DEAL_LABEL,
            Domain::Layers => LAYERS_LABEL,
        }
    }
}

/// Largest encoded envelope accepted from the wire.
pub const MAX_MESSAGE_BYTES: u64 = 1 << 20;

/// Identifies one deal; every signature covers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SessionId(#[serde(with = "hexser")] pub [u8; 32]);

/// The players' public signature keys, known in advance ("certificates known to everyone").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roster {
    /// `keys[j − 1]` is player `j`'s key.
    pub keys: Vec<PublicKey>,
}

/// An ed25519 verifying key, hex in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PublicKey(#[serde(with = "hexser")] pub [u8; 32]);

impl Roster {
    /// The roster of the given signing keys, in player order.
    pub fn of(keys: &[SigningKey]) -> Roster {
        Roster {
            keys: keys
                .iter()
                .map(|k| PublicKey(k.verifying_key().to_bytes()))
                .collect(),
        }
    }

    /// Every key, decompressed once (for players that verify many messages).
    pub fn verifying_keys(&self) -> Result<VerifyingKeys, DealerError> {
        let keys = PartyId::all(self.keys.len())
            .map(|p| self.key(p))
            .collect::<Result<_, _>>()?;
        Ok(VerifyingKeys(keys))
    }

    fn key(&self, party: PartyId) -> Result<VerifyingKey, DealerError> {
        let unknown = DealerError::UnknownSender {
            claimed: party.0,
            players: self.keys.len(),
        };
        if party.0 == 0 {
            return Err(unknown);
        }
        let bytes = self.keys.get(party.index()).ok_or(unknown)?;
        VerifyingKey::from_bytes(&bytes.0)
            .ok()
            .filter(signature::check_key)
            .ok_or_else(|| {
                DealerError::Transcript(format!(
                    "the roster key of {party} is not a canonical encoding of a point of large \
                     order"
                ))
            })
    }
}

/// A roster's keys, decompressed ([`Roster::verifying_keys`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKeys(Vec<VerifyingKey>);

impl VerifyingKeys {
    fn key(&self, party: PartyId) -> Result<&VerifyingKey, DealerError> {
        self.0
            .get(party.index())
            .filter(|_| party.0 != 0)
            .ok_or(DealerError::UnknownSender {
                claimed: party.0,
                players: self.0.len(),
            })
    }
}

/// A published opening of one committed permutation: its ordinal and salt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// Which permutation.
    pub slot: Slot,
    /// Its ordinal `X` (must be `< n!`).
    pub rank: BigUint,
    /// Its salt `k`.
    pub salt: Salt,
}

/// What a message says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body {
    /// Setup, broadcast: the sender's commitments, one per slot it draws.
    Commit {
        /// `(slot, c)` pairs.
        commitments: Vec<(Slot, Commitment)>,
    },
    /// Setup, private from the last player: one half of helper pair `pair`.
    Helper {
        /// The helper pair.
        pair: u16,
        /// Which half.
        half: Half,
        /// The permutation.
        perm: Perm,
    },
    /// Play: hop `hop` of operation `op` carries `value` (a position-or-card in `0..n`).
    Value {
        /// The operation.
        op: u32,
        /// The hop index in the operation's plan.
        hop: u16,
        /// The forwarded value (the card itself on the last hop of a public opening).
        value: u16,
    },
    /// End of game, broadcast: the sender opens every commitment.
    Reveal {
        /// One opening per committed slot.
        openings: Vec<Opening>,
    },
    /// A card protocol's opening on the layer model ([`crate::engine`]): hop `hop` of lane
    /// `lane` carries one value per position of the lane (intermediate positions, or the cards
    /// on the last hop). Positions that follow the same route travel in one message.
    Values {
        /// The lane (a group of positions of one opening with the same route and audience).
        lane: u32,
        /// The hop on the lane's route.
        hop: u16,
        /// One value per position of the lane, in the opening's order.
        values: Vec<u16>,
    },
}

impl Body {
    /// A short name for reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Body::Commit { .. } => "commit",
            Body::Helper { .. } => "helper",
            Body::Value { .. } => "value",
            Body::Reveal { .. } => "reveal",
            Body::Values { .. } => "values",
        }
    }
}

/// A signed message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// The sender.
    pub from: PartyId,
    /// The recipient.
    pub to: Recipient,
    /// The sender's sequence number (strictly increasing per sender and domain; it may skip).
    pub seq: u32,
    /// The content.
    pub body: Body,
    /// ed25519 signature of the sender.
    #[serde(with = "hexser")]
    pub signature: [u8; 64],
}

fn wire() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_big_endian()
        .with_limit(MAX_MESSAGE_BYTES)
        .reject_trailing_bytes()
}

/// What a signature covers: sender, recipient, number and body, in one session and domain.
struct Statement<'a> {
    domain: Domain,
    session: &'a SessionId,
    from: PartyId,
    to: Recipient,
    seq: u32,
    body: &'a Body,
}

fn signed_bytes(s: &Statement<'_>) -> Vec<u8> {
    use bincode::Options;
    let Statement {
        domain,
        session,
        from,
        to,
        seq,
        body,
    } = *s;
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(domain.label());
    out.extend_from_slice(&session.0);
    // Serializing plain data into memory cannot fail; an empty tail would only make the
    // signature fail to verify, never verify wrongly.
    out.extend(wire().serialize(&(from, to, seq, body)).unwrap_or_default());
    out
}

impl Envelope {
    /// Signs a message of the deal ([`Domain::Deal`]).
    pub fn sign(
        session: &SessionId,
        key: &SigningKey,
        from: PartyId,
        to: Recipient,
        seq: u32,
        body: Body,
    ) -> Envelope {
        Envelope::sign_in(Domain::Deal, session, key, from, to, seq, body)
    }

    /// Signs a message of `domain`.
    pub fn sign_in(
        domain: Domain,
        session: &SessionId,
        key: &SigningKey,
        from: PartyId,
        to: Recipient,
        seq: u32,
        body: Body,
    ) -> Envelope {
        let statement = Statement {
            domain,
            session,
            from,
            to,
            seq,
            body: &body,
        };
        let signature = key.sign(&signed_bytes(&statement)).to_bytes();
        Envelope {
            from,
            to,
            seq,
            body,
            signature,
        }
    }

    /// Checks the signature, as a message of the deal, under the claimed sender's key in
    /// `roster`, and that the recipient exists.
    pub fn verify(&self, session: &SessionId, roster: &Roster) -> Result<(), DealerError> {
        let key = roster.key(self.from)?;
        self.verify_under(Domain::Deal, session, &key, roster.keys.len())
    }

    /// As [`verify`](Envelope::verify), with the roster's keys decompressed beforehand.
    pub fn verify_with(
        &self,
        session: &SessionId,
        keys: &VerifyingKeys,
    ) -> Result<(), DealerError> {
        self.verify_in(Domain::Deal, session, keys)
    }

    /// As [`verify_with`](Envelope::verify_with), as a message of `domain`.
    pub fn verify_in(
        &self,
        domain: Domain,
        session: &SessionId,
        keys: &VerifyingKeys,
    ) -> Result<(), DealerError> {
        let key = keys.key(self.from)?;
        self.verify_under(domain, session, key, keys.0.len())
    }

    fn verify_under(
        &self,
        domain: Domain,
        session: &SessionId,
        key: &VerifyingKey,
        players: usize,
    ) -> Result<(), DealerError> {
        self.check_recipient(players)?;
        if signature::verify(key, &self.signed_bytes(domain, session), &self.signature) {
            Ok(())
        } else {
            Err(DealerError::BadSignature {
                from: self.from,
                seq: self.seq,
            })
        }
    }

    fn check_recipient(&self, players: usize) -> Result<(), DealerError> {
        match self.to {
            Recipient::Party(to) if to.0 == 0 || to.index() >= players => {
                Err(DealerError::UnknownRecipient {
                    from: self.from,
                    to: to.0,
                })
            }
            _ => Ok(()),
        }
    }

    /// The bytes its signature covers as a message of `domain` in `session`:
    /// `label ‖ session ‖ bincode(from, to, seq, body)` (for a verifier of its own, or a test
    /// that signs them otherwise).
    pub fn signed_bytes(&self, domain: Domain, session: &SessionId) -> Vec<u8> {
        signed_bytes(&Statement {
            domain,
            session,
            from: self.from,
            to: self.to,
            seq: self.seq,
            body: &self.body,
        })
    }

    /// The wire encoding (bincode, fixed-width big-endian integers).
    pub fn to_bytes(&self) -> Vec<u8> {
        use bincode::Options;
        wire().serialize(self).unwrap_or_default()
    }

    /// Decodes bytes received from `peer`; a malformed or oversized message is an error naming
    /// `peer`. The signature is **not** checked here (see [`Envelope::verify`]).
    pub fn from_bytes(bytes: &[u8], peer: PartyId) -> Result<Envelope, DealerError> {
        use bincode::Options;
        wire()
            .deserialize(bytes)
            .map_err(|e| DealerError::Malformed {
                peer,
                reason: e.to_string(),
            })
    }

    /// Number of point-to-point deliveries this envelope costs among `players` players.
    pub fn deliveries(&self, players: usize) -> u64 {
        match self.to {
            Recipient::Party(_) => 1,
            Recipient::All => players as u64 - 1,
        }
    }

    /// Whether `party` receives this envelope.
    pub fn is_for(&self, party: PartyId) -> bool {
        match self.to {
            Recipient::Party(p) => p == party,
            Recipient::All => self.from != party,
        }
    }
}

/// Checks the signatures of many envelopes of the deal at once: one batch verification (a
/// random linear combination of the verification equations, one multiscalar multiplication
/// with each player's key once) instead of one double-base scalar multiplication per envelope.
///
/// The verdict is the one-by-one verdict: when the batch (or any recipient or sender check)
/// fails, every envelope is verified on its own, in order, and the first error is returned, so
/// a forged envelope names the same sender and sequence number as [`Envelope::verify_with`]
/// would. Both checks accept a signature by the same rule — canonical encodings, a nonce point
/// not of small order, the cofactored equation (see `signature.rs`) — so a signature its signer
/// crafted with a small-order or non-canonical nonce is refused alike, alone or in any batch.
pub fn verify_all(
    envelopes: &[&Envelope],
    session: &SessionId,
    keys: &VerifyingKeys,
) -> Result<(), DealerError> {
    if batch_holds(envelopes, session, keys) {
        return Ok(());
    }
    envelopes
        .iter()
        .try_for_each(|e| e.verify_with(session, keys))
}

/// Whether the whole batch verifies (`false` on any unknown sender or recipient).
fn batch_holds(envelopes: &[&Envelope], session: &SessionId, keys: &VerifyingKeys) -> bool {
    let players = keys.0.len();
    let mut messages = Vec::with_capacity(envelopes.len());
    let mut signers = Vec::with_capacity(envelopes.len());
    for e in envelopes {
        if keys.key(e.from).is_err() || e.check_recipient(players).is_err() {
            return false;
        }
        messages.push(e.signed_bytes(Domain::Deal, session));
        signers.push(e.from.index());
    }
    let messages: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
    let signatures: Vec<&[u8; 64]> = envelopes.iter().map(|e| &e.signature).collect();
    signature::verify_batch(&keys.0, &signers, &messages, &signatures)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn setup() -> (SessionId, Vec<SigningKey>, Roster) {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let keys: Vec<SigningKey> = (0..3).map(|_| SigningKey::generate(&mut rng)).collect();
        let roster = Roster::of(&keys);
        (SessionId([9; 32]), keys, roster)
    }

    fn value(op: u32, v: u16) -> Body {
        Body::Value {
            op,
            hop: 0,
            value: v,
        }
    }

    #[test]
    fn signed_envelope_round_trips_and_verifies() {
        let (s, keys, roster) = setup();
        let e = Envelope::sign(
            &s,
            &keys[0],
            PartyId(1),
            Recipient::Party(PartyId(2)),
            0,
            value(1, 5),
        );
        let back = Envelope::from_bytes(&e.to_bytes(), PartyId(1)).expect("decodes");
        assert_eq!(back, e);
        assert_eq!(back.verify(&s, &roster), Ok(()));
        let json = serde_json::to_string(&e).expect("json");
        let back: Envelope = serde_json::from_str(&json).expect("json back");
        assert_eq!(back, e);
    }

    #[test]
    fn tampering_wrong_sender_and_other_session_are_rejected() {
        let (s, keys, roster) = setup();
        let e = Envelope::sign(
            &s,
            &keys[0],
            PartyId(1),
            Recipient::Party(PartyId(2)),
            0,
            value(1, 5),
        );
        let mut forged = e.clone();
        forged.body = value(1, 6);
        assert_eq!(
            forged.verify(&s, &roster),
            Err(DealerError::BadSignature {
                from: PartyId(1),
                seq: 0
            })
        );
        let mut impostor = e.clone();
        impostor.from = PartyId(3);
        assert_eq!(
            impostor.verify(&s, &roster),
            Err(DealerError::BadSignature {
                from: PartyId(3),
                seq: 0
            })
        );
        let mut redirected = e.clone();
        redirected.to = Recipient::Party(PartyId(3));
        assert!(redirected.verify(&s, &roster).is_err());
        assert!(e.verify(&SessionId([8; 32]), &roster).is_err());
        let mut stranger = e.clone();
        stranger.from = PartyId(7);
        assert_eq!(
            stranger.verify(&s, &roster),
            Err(DealerError::UnknownSender {
                claimed: 7,
                players: 3
            })
        );
    }

    #[test]
    fn a_signature_for_one_domain_does_not_verify_in_the_other() {
        let (s, keys, roster) = setup();
        let keys_of = roster.verifying_keys().expect("valid keys");
        let to = Recipient::Party(PartyId(2));
        let body = || Body::Values {
            lane: 0,
            hop: 0,
            values: vec![1],
        };
        let layers = Envelope::sign_in(Domain::Layers, &s, &keys[0], PartyId(1), to, 1, body());
        let deal = Envelope::sign(&s, &keys[0], PartyId(1), to, 1, body());
        assert_ne!(layers.signature, deal.signature);
        assert_eq!(layers.verify_in(Domain::Layers, &s, &keys_of), Ok(()));
        let forged = Err(DealerError::BadSignature {
            from: PartyId(1),
            seq: 1,
        });
        assert_eq!(layers.verify(&s, &roster), forged);
        assert_eq!(layers.verify_with(&s, &keys_of), forged);
        assert_eq!(deal.verify_in(Domain::Layers, &s, &keys_of), forged);
        assert!(verify_all(&[&layers], &s, &keys_of).is_err());
    }

    #[test]
    fn truncated_and_garbage_bytes_are_typed_errors_naming_the_peer() {
        let (s, keys, _) = setup();
        let e = Envelope::sign(&s, &keys[1], PartyId(2), Recipient::All, 3, value(2, 1));
        let bytes = e.to_bytes();
        for cut in 0..bytes.len() {
            match Envelope::from_bytes(&bytes[..cut], PartyId(2)) {
                Err(DealerError::Malformed { peer, .. }) => assert_eq!(peer, PartyId(2)),
                other => panic!("truncation at {cut} gave {other:?}"),
            }
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            Envelope::from_bytes(&long, PartyId(2)),
            Err(DealerError::Malformed { .. })
        ));
        // A huge claimed length must not allocate: the size limit rejects it.
        let huge = [
            0u8, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xff,
        ];
        assert!(Envelope::from_bytes(&huge, PartyId(1)).is_err());
    }
}
