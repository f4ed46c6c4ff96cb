//! Network errors: every variant names the peer involved where there is one.

use std::time::Duration;

use facedown_core::table::TableError;
use facedown_core::{Blame, PartyId};

/// Everything that can go wrong on a channel or while a networked player runs.
///
/// Transport failures (timeouts, disconnections, failed handshakes, rejected frames) name the
/// peer; protocol failures carry the engine's own typed error, which names the offending party.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// Nothing arrived from `peer` within the timeout while this player was waiting for it.
    #[error("timed out after {after:?} waiting for {peer} ({what})")]
    Timeout {
        /// The peer that did not answer.
        peer: PartyId,
        /// What was awaited.
        what: String,
        /// How long this player waited.
        after: Duration,
    },
    /// This player's part was done but the echoes ([`facedown_core::echo`]) or goodbyes of
    /// `missing` did not come within the timeout. Nobody is blamed: a player that has not
    /// answered may itself be waiting for a cheater.
    #[error("timed out after {after:?} waiting for the {what} of {} (unattributable, nobody blamed)", missing.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    Unanswered {
        /// The peers whose answer is missing.
        missing: Vec<PartyId>,
        /// What was awaited.
        what: String,
        /// How long this player waited.
        after: Duration,
    },
    /// `peer` closed its connection (or its process died) before the end of the protocol.
    #[error("{peer} disconnected before the end of the protocol")]
    Disconnected {
        /// The peer that went away.
        peer: PartyId,
    },
    /// No connection to `peer` could be made within the connect timeout.
    #[error("could not connect to {peer} at {address}: {reason}")]
    Connect {
        /// The peer.
        peer: PartyId,
        /// Its roster address.
        address: String,
        /// What the socket layer said.
        reason: String,
    },
    /// The Noise handshake with `peer` failed: a wrong static key (the peer's key is not the
    /// one in the roster, or ours is not), another session or a mismatched prologue.
    #[error("Noise handshake with {peer} failed: {reason}")]
    Handshake {
        /// The peer.
        peer: PartyId,
        /// What failed.
        reason: String,
    },
    /// A frame from `peer` failed authenticated decryption: it was corrupted, replayed or
    /// reordered (Noise's implicit nonce makes a replayed frame fail like a corrupted one).
    #[error("rejected a frame from {peer}: {reason}")]
    Corrupted {
        /// The peer the frame came from.
        peer: PartyId,
        /// Why it was rejected.
        reason: String,
    },
    /// `peer` announced a frame larger than the limit.
    #[error("{peer} announced a frame of {len} bytes, above the limit of {max}")]
    FrameTooLarge {
        /// The peer.
        peer: PartyId,
        /// The announced length.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// `peer` sent more frames the protocol did not ask for than a game allows
    /// ([`crate::channel::OffProtocol`]): over an authenticated link, its own doing.
    #[error("{peer} sent {frames} frames ({bytes} bytes) the protocol did not ask for, more than allowed")]
    Flooded {
        /// The peer.
        peer: PartyId,
        /// Such frames so far.
        frames: u32,
        /// Their bytes.
        bytes: u64,
    },
    /// A correctly decrypted frame from `peer` does not decode as a message of this protocol,
    /// or comes at a time the protocol does not allow.
    #[error("malformed message from {peer}: {reason}")]
    Malformed {
        /// The peer.
        peer: PartyId,
        /// What is wrong.
        reason: String,
    },
    /// `peer` aborted the game and said why, perhaps accusing a player. The accusation is
    /// the peer's **claim**, not evidence: an abort blames nobody ([`NetError::blamed`]), so a
    /// cheater cannot frame an honest player by aborting in his name.
    #[error("{peer} aborted{}: {reason}", claim.map(|b| format!(" (claiming {b} cheated; a claim, not a verdict)")).unwrap_or_default())]
    Aborted {
        /// The peer that aborted.
        peer: PartyId,
        /// Whom it accuses, if anyone (its claim; see [`NetError::claim`]).
        claim: Option<PartyId>,
        /// Its error message.
        reason: String,
        /// The claims of the aborts that arrived after it, while this player lingered
        /// (`(accuser, accused)`; see [`NetError::claims`]).
        later: Vec<(PartyId, PartyId)>,
    },
    /// A party number that is not in the roster.
    #[error("party {0} is not in the roster")]
    UnknownParty(u16),
    /// The roster or a key file is unusable.
    #[error("bad roster or key file: {0}")]
    Config(String),
    /// The workload cannot run on this table (a protocol the table refuses, wrong inputs):
    /// nobody's fault, and the same at every player.
    #[error("the workload cannot run here: {0}")]
    Workload(String),
    /// The roster is refused: a weak or shared key, a shared address, bad ids.
    #[error("refused roster: {0}")]
    Roster(#[from] crate::roster::RosterError),
    /// An input file (roster, key file) is unreadable, too large or not text.
    #[error(transparent)]
    Input(#[from] facedown_core::input::InputError),
    /// An I/O error on the socket of `peer`.
    #[error("I/O error with {peer}: {source}")]
    Io {
        /// The peer.
        peer: PartyId,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An I/O error not tied to one peer (binding the listener, reading a file).
    #[error("{context}: {source}")]
    LocalIo {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// This player's engine refused a step: its error, and whom it names.
    #[error("{source}")]
    Protocol {
        /// The party the engine's error holds responsible.
        blame: Option<PartyId>,
        /// The engine's error (downcast with [`NetError::protocol_error`]).
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An operation the table cannot run (a position, a party, an empty shuffle).
    #[error(transparent)]
    Table(#[from] TableError),
}

impl NetError {
    /// An engine's error.
    pub fn protocol<E: std::error::Error + Blame + Send + Sync + 'static>(e: E) -> NetError {
        NetError::Protocol {
            blame: e.blamed(),
            source: Box::new(e),
        }
    }

    /// The engine's error of a [`NetError::Protocol`], as its own type.
    pub fn protocol_error<E: std::error::Error + 'static>(&self) -> Option<&E> {
        match self {
            NetError::Protocol { source, .. } => source.downcast_ref(),
            _ => None,
        }
    }
}

impl NetError {
    /// The party this error holds responsible, if any: the peer of a transport failure or the
    /// offending party of a protocol error — what this player observed itself. An abort
    /// blames nobody: the aborting peer may be an honest player that caught a cheater (or a
    /// cheater accusing an honest one); its accusation is [`NetError::claim`].
    pub fn blamed(&self) -> Option<PartyId> {
        match self {
            NetError::Timeout { peer, .. }
            | NetError::Disconnected { peer }
            | NetError::Connect { peer, .. }
            | NetError::Handshake { peer, .. }
            | NetError::Corrupted { peer, .. }
            | NetError::FrameTooLarge { peer, .. }
            | NetError::Flooded { peer, .. }
            | NetError::Malformed { peer, .. }
            | NetError::Io { peer, .. } => Some(*peer),
            NetError::Protocol { blame, .. } => *blame,
            NetError::Aborted { .. }
            | NetError::Unanswered { .. }
            | NetError::UnknownParty(_)
            | NetError::Config(_)
            | NetError::Workload(_)
            | NetError::Roster(_)
            | NetError::Input(_)
            | NetError::LocalIo { .. }
            | NetError::Table(_) => None,
        }
    }
}

impl NetError {
    /// The first accusation an aborting peer made, with that peer: `(accuser, accused)`
    /// (the first of [`NetError::claims`]). A claim, reported beside the verdict
    /// ([`NetError::blamed`]) and never in its place.
    pub fn claim(&self) -> Option<(PartyId, PartyId)> {
        self.claims().first().copied()
    }

    /// Every accusation of the aborts this player received, `(accuser, accused)`, in the
    /// order they arrived: the abort that stopped it, then those read while it lingered.
    /// Claims, never verdicts.
    pub fn claims(&self) -> Vec<(PartyId, PartyId)> {
        match self {
            NetError::Aborted {
                peer, claim, later, ..
            } => claim
                .map(|accused| (*peer, accused))
                .into_iter()
                .chain(later.iter().copied())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// This error, with the claims of aborts that arrived after it (kept by an abort; other
    /// errors are this player's own verdict and stay as they are).
    pub fn with_later_claims(mut self, heard: Vec<(PartyId, PartyId)>) -> NetError {
        if let NetError::Aborted { later, .. } = &mut self {
            later.extend(heard);
        }
        self
    }
}

impl Blame for NetError {
    fn blamed(&self) -> Option<PartyId> {
        NetError::blamed(self)
    }
}
