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
//! ```

use std::net::SocketAddr;
use std::path::Path;

use curve25519_dalek::montgomery::MontgomeryPoint;
use facedown_core::PartyId;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::error::NetError;

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

    /// Reads a key file.
    pub fn load(path: &Path) -> Result<StaticKeypair, NetError> {
        let text = std::fs::read_to_string(path).map_err(|source| NetError::LocalIo {
            context: format!("cannot read key file {}", path.display()),
            source,
        })?;
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
    /// as `IP:port`, keys and session must be 32 bytes of hex.
    pub fn from_toml(text: &str) -> Result<Roster, NetError> {
        let f: RosterFile = toml::from_str(text)
            .map_err(|e| NetError::Config(format!("roster: {}", e.message())))?;
        let session = hex32(&f.session, "roster session")?;
        let n = f.party.len();
        if n < 2 {
            return Err(NetError::Config(format!(
                "roster: need at least 2 parties, got {n}"
            )));
        }
        let mut parties: Vec<Option<Party>> = vec![None; n];
        for p in f.party {
            if p.id == 0 || usize::from(p.id) > n {
                return Err(NetError::Config(format!(
                    "roster: party id {} is outside 1..={n}",
                    p.id
                )));
            }
            let address: SocketAddr = p.address.parse().map_err(|e| {
                NetError::Config(format!(
                    "roster: address {:?} of party {}: {e}",
                    p.address, p.id
                ))
            })?;
            let public_key = hex32(&p.public_key, &format!("public_key of party {}", p.id))?;
            let slot = &mut parties[usize::from(p.id) - 1];
            if slot.is_some() {
                return Err(NetError::Config(format!(
                    "roster: party {} is listed twice",
                    p.id
                )));
            }
            *slot = Some(Party {
                id: PartyId(p.id),
                address,
                public_key,
            });
        }
        let parties = parties
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| NetError::Config("roster: a party id is missing".into()))?;
        Ok(Roster { session, parties })
    }

    /// The roster as `parties.toml` text.
    pub fn to_toml(&self) -> String {
        let mut out = format!("session = \"{}\"\n", hex::encode(self.session));
        for p in &self.parties {
            out.push_str(&format!(
                "\n[[party]]\nid = {}\naddress = \"{}\"\npublic_key = \"{}\"\n",
                p.id.0,
                p.address,
                hex::encode(p.public_key)
            ));
        }
        out
    }

    /// Reads `parties.toml`.
    pub fn load(path: &Path) -> Result<Roster, NetError> {
        let text = std::fs::read_to_string(path).map_err(|source| NetError::LocalIo {
            context: format!("cannot read roster {}", path.display()),
            source,
        })?;
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
                .map(|i| Party {
                    id: PartyId(i),
                    address: format!("127.0.0.1:{}", 40000 + i).parse().expect("addr"),
                    public_key: StaticKeypair::generate_with_rng(&mut rng).public,
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
