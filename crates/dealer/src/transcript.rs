//! The signed transcript of a deal: what the audit reads and what `--save` writes.
//!
//! The transcript is the union of every player's received messages (each is signed by its
//! sender, so a player can publish what it received without being able to alter it), the
//! public parameters and the list of openings the game scheduled. Saved as JSON.
//!
//! Part of the permutation-sharing dealer \[perm-sharing-dealer\]; see the [crate docs](crate).

use serde::{Deserialize, Serialize};

use crate::error::DealerError;
use crate::messages::Envelope;
use crate::player::Params;
use crate::scheme::Operation;

/// Version tag written into saved transcripts. Version 2: the envelopes are signed under the
/// deal's domain label ([`DEAL_LABEL`](crate::messages::DEAL_LABEL)); the signatures of a
/// version 1 file do not verify under it, so such a file is refused by its format rather than
/// read as forged by its signers.
pub const TRANSCRIPT_FORMAT: &str = "facedown-dealer-transcript/v2";

/// Largest transcript file `facedown dealer audit` reads: the largest deal the scheme allows
/// (64 players, 1024 cards) saves well under 100 MB, so this leaves room without letting an
/// endless input exhaust memory.
pub const MAX_TRANSCRIPT_BYTES: u64 = 256 << 20;

/// Everything needed to audit a deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transcript {
    /// Always [`TRANSCRIPT_FORMAT`].
    pub format: String,
    /// The public parameters.
    pub params: Params,
    /// The openings, in the order the game scheduled them.
    pub operations: Vec<Operation>,
    /// Every message, in the order it was sent.
    pub envelopes: Vec<Envelope>,
}

impl Transcript {
    /// An empty transcript for `params`.
    pub fn new(params: Params) -> Transcript {
        Transcript {
            format: TRANSCRIPT_FORMAT.into(),
            params,
            operations: vec![],
            envelopes: vec![],
        }
    }

    /// JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads JSON text; any malformation is a [`DealerError::Transcript`].
    pub fn from_json(text: &str) -> Result<Transcript, DealerError> {
        let t: Transcript =
            serde_json::from_str(text).map_err(|e| DealerError::Transcript(e.to_string()))?;
        if t.format != TRANSCRIPT_FORMAT {
            return Err(DealerError::Transcript(format!(
                "unknown format {:?}, expected {TRANSCRIPT_FORMAT:?}",
                t.format
            )));
        }
        t.params.scheme.validate()?;
        Ok(t)
    }
}
