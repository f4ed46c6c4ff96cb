//! Static keys for the Noise \[Noise\] handshakes and the `parties.toml` roster.
//!
//! Every player has a long-term X25519 key pair ([`StaticKeypair`], written by
//! `facedown keygen` as TOML with hex strings). The roster lists, for every player, its number,
//! its address and its public key, plus a 32-byte `session` that every Noise prologue binds:
//!
//! ```toml
//! session = "5f1c…"          # 64 hex digits, fresh for every game
//!
//! [[party]]
//! id = 1
//! address = "127.0.0.1:40001"
//! public_key = "8a0e…"      # 64 hex digits
//! signing_key = "3b6a…"     # 64 hex digits
//! ```
//!
//! The `signing_key` is the player's ed25519 broadcast key ([`StaticKeypair::signing_key`],
//! derived from the same key file): every broadcast of a game is signed with it, so that two
//! different versions of one broadcast are a proof against their signer that every player can
//! check ([`facedown_core::echo`]). It sits in the roster, not in a first round of the game,
//! because a key a player announces itself could be announced differently to each peer, and
//! that split could not be attributed.
//!
//! A roster is checked before it is used ([`Roster::validate`], called by the parser and by
//! [`crate::TcpMesh::connect`]): every public key must be a canonical encoding of a point of
//! large order — a low-order point (the all-zero key among them) makes every Diffie–Hellman
//! with it predictable, so its "authentication" proves nothing — and no two players may share
//! a key or an address, or one player could answer for another. Each refusal is a
//! [`RosterError`] naming the players involved.

use std::net::SocketAddr;
use std::path::Path;

use curve25519_dalek::montgomery::MontgomeryPoint;
use ed25519_dalek::{SigningKey, VerifyingKey};
use facedown_core::echo::BroadcastKeys;
use facedown_core::input::read_text;
use facedown_core::PartyId;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};
use sha3::{Digest, Sha3_256};

use crate::error::NetError;

/// Most players a roster may list (a full mesh of that many is far beyond what this crate is
/// measured on; the limit keeps every size derived from a roster small).
pub const MAX_ROSTER_PARTIES: usize = 256;

/// Largest roster file read ([`Roster::load`]).
pub const MAX_ROSTER_BYTES: u64 = 1 << 20;

/// Largest key file read ([`StaticKeypair::load`]).
pub const MAX_KEY_FILE_BYTES: u64 = 16 << 10;

/// Why a roster is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RosterError {
    /// Fewer than two or more than [`MAX_ROSTER_PARTIES`] players.
    #[error("a roster lists 2..={MAX_ROSTER_PARTIES} parties, this one {0}")]
    Size(usize),
    /// Player ids are not exactly `1..=N`.
    #[error("party id {id} is outside 1..={players}")]
    IdOutOfRange {
        /// The id found.
        id: u16,
        /// Number of parties listed.
        players: usize,
    },
    /// One id listed twice.
    #[error("party {0} is listed twice")]
    DuplicateId(u16),
    /// Two players share one public key: either could answer for the other.
    #[error("{first} and {second} have the same public key")]
    DuplicateKey {
        /// The first player with the key.
        first: PartyId,
        /// The second.
        second: PartyId,
    },
    /// Two players share one address: a connection to it cannot tell them apart.
    #[error("{first} and {second} have the same address {address}")]
    DuplicateAddress {
        /// The first player at the address.
        first: PartyId,
        /// The second.
        second: PartyId,
        /// The address.
        address: SocketAddr,
    },
    /// Two players share one signing key: either could sign for the other.
    #[error("{first} and {second} have the same signing key")]
    DuplicateSigningKey {
        /// The first player with the key.
        first: PartyId,
        /// The second.
        second: PartyId,
    },
    /// A public key that authenticates nobody: not a canonical field element, or a point of
    /// small order (the all-zero key is one), whose Diffie–Hellman outputs anyone can compute.
    #[error("the public key of {party} is unusable: {reason}")]
    WeakKey {
        /// Whose key.
        party: PartyId,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An address nobody can dial (port 0 or an unspecified IP such as `0.0.0.0`).
    #[error("the address {address} of {party} cannot be dialled")]
    UndialableAddress {
        /// Whose address.
        party: PartyId,
        /// The address.
        address: SocketAddr,
    },
}

/// Why an X25519 public key cannot authenticate anyone, if it cannot.
///
/// The key must be the canonical encoding of a field element (`u < 2^255 − 19`, top bit clear:
/// X25519 ignores the top bit and reduces `u`, so other encodings alias canonical keys and
/// would slip past a duplicate check), and the point must not have small order: its multiple by
/// a clamped scalar (a multiple of the cofactor 8) is the identity exactly when the point lies in
/// the small subgroup of the curve or of its twist.
pub fn weak_key_reason(key: &[u8; 32]) -> Option<&'static str> {
    let top = key[31];
    let at_least_p = top == 0x7f && key[1..31].iter().all(|&b| b == 0xff) && key[0] >= 0xed;
    if top & 0x80 != 0 || at_least_p {
        return Some("not a canonical encoding (u ≥ 2^255 − 19 or the top bit set)");
    }
    // Any clamped scalar works; this one is fixed so the check is deterministic.
    let product = MontgomeryPoint(*key).mul_clamped([0x5a; 32]);
    if product.to_bytes() == [0u8; 32] {
        return Some("a point of small order (every Diffie–Hellman with it is predictable)");
    }
    None
}

/// Why an ed25519 verifying key cannot be used, if it cannot: not a point, or of small order
/// (a signature under it proves nothing).
pub fn weak_signing_key_reason(key: &[u8; 32]) -> Option<&'static str> {
    match VerifyingKey::from_bytes(key) {
        Err(_) => Some("a signing key that is not a curve point"),
        Ok(k) if k.is_weak() => Some("a signing key of small order"),
        Ok(_) => None,
    }
}

/// A static X25519 key pair (the `s` of Noise).
#[derive(Clone, PartialEq, Eq)]
pub struct StaticKeypair {
    /// The private scalar bytes (clamped when used, as X25519 specifies).
    pub private: [u8; 32],
    /// The public key `X25519(private, 9)`.
    pub public: [u8; 32],
}

impl core::fmt::Debug for StaticKeypair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StaticKeypair")
            .field("public", &hex::encode(self.public))
            .finish_non_exhaustive()
    }
}

#[derive(Serialize, Deserialize)]
struct KeyFile {
    private_key: String,
    public_key: String,
}

fn hex32(s: &str, what: &str) -> Result<[u8; 32], NetError> {
    let bytes =
        hex::decode(s.trim()).map_err(|e| NetError::Config(format!("{what} is not hex: {e}")))?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| {
        NetError::Config(format!(
            "{what} must be 32 bytes (64 hex digits), got {} bytes",
            bytes.len()
        ))
    })
}

impl StaticKeypair {
    /// Draws a fresh key pair from `rng`.
    pub fn generate_with_rng<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> StaticKeypair {
        let mut private = [0u8; 32];
        rng.fill_bytes(&mut private);
        StaticKeypair::from_private(private)
    }

    /// The key pair of a private key.
    pub fn from_private(private: [u8; 32]) -> StaticKeypair {
        let public = MontgomeryPoint::mul_base_clamped(private).to_bytes();
        StaticKeypair { private, public }
    }

    /// The key file's text (TOML, hex).
    pub fn to_toml(&self) -> String {
        format!(
            "# facedown static X25519 key pair (Noise_KK). Keep this file private.\n\
             private_key = \"{}\"\npublic_key = \"{}\"\n",
            hex::encode(self.private),
            hex::encode(self.public)
        )
    }

    /// The ed25519 broadcast signing key of this key pair:
    /// `SHA3-256("facedown/roster-signing-key/v1" ‖ private)` as the ed25519 seed, so one key
    /// file holds both keys.
    pub fn signing_key(&self) -> SigningKey {
        let mut h = Sha3_256::new();
        h.update(b"facedown/roster-signing-key/v1");
        h.update(self.private);
        SigningKey::from_bytes(&h.finalize().into())
    }

    /// The verifying key of [`signing_key`](Self::signing_key), as the roster lists it.
    pub fn signing_public(&self) -> [u8; 32] {
        self.signing_key().verifying_key().to_bytes()
    }

    /// Parses a key file; fails if the public key does not belong to the private key.
    pub fn from_toml(text: &str) -> Result<StaticKeypair, NetError> {
        let f: KeyFile = toml::from_str(text)
            .map_err(|e| NetError::Config(format!("key file: {}", e.message())))?;
        let kp = StaticKeypair::from_private(hex32(&f.private_key, "private_key")?);
        if kp.public != hex32(&f.public_key, "public_key")? {
            return Err(NetError::Config(
                "key file: public_key does not match private_key".into(),
            ));
        }
        Ok(kp)
    }

    /// Reads a key file (at most [`MAX_KEY_FILE_BYTES`]).
    pub fn load(path: &Path) -> Result<StaticKeypair, NetError> {
        let text = read_text(path, MAX_KEY_FILE_BYTES, "a key file")?;
        StaticKeypair::from_toml(&text)
    }

    /// Writes the key file, readable by its owner only (on Unix).
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        use std::io::Write;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let context = || format!("cannot write key file {}", path.display());
        let mut file = options.open(path).map_err(|source| NetError::LocalIo {
            context: context(),
            source,
        })?;
        file.write_all(self.to_toml().as_bytes())
            .map_err(|source| NetError::LocalIo {
                context: context(),
                source,
            })
    }
}

/// One roster entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Party {
    /// The player's number.
    pub id: PartyId,
    /// Where it listens.
    pub address: SocketAddr,
    /// Its static public key.
    pub public_key: [u8; 32],
    /// Its ed25519 broadcast verifying key ([`StaticKeypair::signing_public`]).
    pub signing_key: [u8; 32],
}

/// Every player of a game: numbers `1..=N`, addresses and static public keys, and the session
/// the Noise prologues bind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roster {
    /// The session identifier (fresh for every game).
    pub session: [u8; 32],
    /// Players in order: `parties[j − 1]` is player `j`.
    pub parties: Vec<Party>,
}

#[derive(Serialize, Deserialize)]
struct RosterFile {
    session: String,
    party: Vec<PartyFile>,
}

#[derive(Serialize, Deserialize)]
struct PartyFile {
    id: u16,
    address: String,
    public_key: String,
    signing_key: String,
}

impl Roster {
    /// Number of players.
    pub fn players(&self) -> usize {
        self.parties.len()
    }

    /// Player `id`'s entry.
    pub fn party(&self, id: PartyId) -> Result<&Party, NetError> {
        self.parties
            .get(id.index())
            .filter(|_| id.0 != 0)
            .ok_or(NetError::UnknownParty(id.0))
    }

    /// Parses `parties.toml`: ids must be exactly `1..=N` (in any order), addresses must parse
    /// as `IP:port`, keys and session must be 32 bytes of hex, and the whole roster must pass
    /// [`Roster::validate`].
    pub fn from_toml(text: &str) -> Result<Roster, NetError> {
        let f: RosterFile = toml::from_str(text)
            .map_err(|e| NetError::Config(format!("roster: {}", e.message())))?;
        let session = hex32(&f.session, "roster session")?;
        let n = f.party.len();
        if !(2..=MAX_ROSTER_PARTIES).contains(&n) {
            return Err(RosterError::Size(n).into());
        }
        let mut parties: Vec<Option<Party>> = vec![None; n];
        for p in f.party {
            if p.id == 0 || usize::from(p.id) > n {
                return Err(RosterError::IdOutOfRange {
                    id: p.id,
                    players: n,
                }
                .into());
            }
            let address: SocketAddr = p.address.parse().map_err(|e| {
                NetError::Config(format!(
                    "roster: address {:?} of party {}: {e}",
                    p.address, p.id
                ))
            })?;
            let public_key = hex32(&p.public_key, &format!("public_key of party {}", p.id))?;
            let signing_key = hex32(&p.signing_key, &format!("signing_key of party {}", p.id))?;
            let slot = &mut parties[usize::from(p.id) - 1];
            if slot.is_some() {
                return Err(RosterError::DuplicateId(p.id).into());
            }
            *slot = Some(Party {
                id: PartyId(p.id),
                address,
                public_key,
                signing_key,
            });
        }
        let parties = parties
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| NetError::Config("roster: a party id is missing".into()))?;
        let roster = Roster { session, parties };
        roster.validate()?;
        Ok(roster)
    }

    /// Checks what every use of a roster relies on: `2..=`[`MAX_ROSTER_PARTIES`] players
    /// numbered `1..=N` in order, every key usable ([`weak_key_reason`]), every address
    /// dialable, and no key or address shared by two players.
    pub fn validate(&self) -> Result<(), RosterError> {
        let n = self.parties.len();
        if !(2..=MAX_ROSTER_PARTIES).contains(&n) {
            return Err(RosterError::Size(n));
        }
        for (j, p) in self.parties.iter().enumerate() {
            if p.id != PartyId::from_index(j) {
                return Err(RosterError::IdOutOfRange {
                    id: p.id.0,
                    players: n,
                });
            }
            if let Some(reason) = weak_key_reason(&p.public_key) {
                return Err(RosterError::WeakKey {
                    party: p.id,
                    reason,
                });
            }
            if let Some(reason) = weak_signing_key_reason(&p.signing_key) {
                return Err(RosterError::WeakKey {
                    party: p.id,
                    reason,
                });
            }
            if p.address.port() == 0 || p.address.ip().is_unspecified() {
                return Err(RosterError::UndialableAddress {
                    party: p.id,
                    address: p.address,
                });
            }
            if let Some(q) = self.parties[..j]
                .iter()
                .find(|q| q.public_key == p.public_key)
            {
                return Err(RosterError::DuplicateKey {
                    first: q.id,
                    second: p.id,
                });
            }
            if let Some(q) = self.parties[..j]
                .iter()
                .find(|q| q.signing_key == p.signing_key)
            {
                return Err(RosterError::DuplicateSigningKey {
                    first: q.id,
                    second: p.id,
                });
            }
            if let Some(q) = self.parties[..j].iter().find(|q| q.address == p.address) {
                return Err(RosterError::DuplicateAddress {
                    first: q.id,
                    second: p.id,
                    address: p.address,
                });
            }
        }
        Ok(())
    }

    /// The roster as `parties.toml` text.
    pub fn to_toml(&self) -> String {
        let mut out = format!("session = \"{}\"\n", hex::encode(self.session));
        for p in &self.parties {
            out.push_str(&format!(
                "\n[[party]]\nid = {}\naddress = \"{}\"\npublic_key = \"{}\"\nsigning_key = \"{}\"\n",
                p.id.0,
                p.address,
                hex::encode(p.public_key),
                hex::encode(p.signing_key)
            ));
        }
        out
    }

    /// Player `me`'s broadcast keys: its signing key from `key` and every player's verifying
    /// key, bound to this roster's session. Fails if `key` is not the roster's for `me`.
    pub fn broadcast_keys(
        &self,
        me: PartyId,
        key: &StaticKeypair,
    ) -> Result<BroadcastKeys, NetError> {
        let keys = self
            .parties
            .iter()
            .map(|p| VerifyingKey::from_bytes(&p.signing_key))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| NetError::Config(format!("roster: a signing key: {e}")))?;
        BroadcastKeys::new(me, key.signing_key(), keys, self.session.to_vec()).ok_or_else(|| {
            NetError::Config(format!(
                "the key file's signing key is not the roster's for {me}"
            ))
        })
    }

    /// Reads `parties.toml` (at most [`MAX_ROSTER_BYTES`]).
    pub fn load(path: &Path) -> Result<Roster, NetError> {
        let text = read_text(path, MAX_ROSTER_BYTES, "a roster")?;
        Roster::from_toml(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use facedown_core::rng::seeded_rng;

    #[test]
    fn key_files_and_rosters_round_trip_and_bad_ones_are_typed_errors() {
        let mut rng = seeded_rng(1);
        let kp = StaticKeypair::generate_with_rng(&mut rng);
        assert_eq!(StaticKeypair::from_toml(&kp.to_toml()).expect("parse"), kp);
        let other = StaticKeypair::generate_with_rng(&mut rng);
        let mismatched = format!(
            "private_key = \"{}\"\npublic_key = \"{}\"\n",
            hex::encode(kp.private),
            hex::encode(other.public)
        );
        assert!(StaticKeypair::from_toml(&mismatched).is_err());
        assert!(StaticKeypair::from_toml("private_key = \"zz\"\npublic_key = \"00\"").is_err());

        let roster = Roster {
            session: [7; 32],
            parties: (1..=3)
                .map(|i| {
                    let k = StaticKeypair::generate_with_rng(&mut rng);
                    Party {
                        id: PartyId(i),
                        address: format!("127.0.0.1:{}", 40000 + i).parse().expect("addr"),
                        public_key: k.public,
                        signing_key: k.signing_public(),
                    }
                })
                .collect(),
        };
        assert_eq!(Roster::from_toml(&roster.to_toml()).expect("parse"), roster);
        let text = roster.to_toml();
        for (from, to) in [
            ("id = 3", "id = 2"),
            ("id = 3", "id = 4"),
            ("127.0.0.1:40002", "nowhere"),
            ("session = \"07", "session = \"0"),
        ] {
            assert!(
                Roster::from_toml(&text.replacen(from, to, 1)).is_err(),
                "{from} -> {to}"
            );
        }
    }
}
