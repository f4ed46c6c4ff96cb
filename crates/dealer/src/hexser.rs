//! Serde for fixed-size byte arrays: lowercase hex in human-readable formats (JSON), raw bytes
//! otherwise (bincode).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serializer};

/// Serializes `bytes` as hex (human-readable) or as a byte string.
pub fn serialize<S: Serializer, const N: usize>(
    bytes: &[u8; N],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        serializer.serialize_str(&hex::encode(bytes))
    } else {
        serializer.serialize_bytes(bytes)
    }
}

/// Deserializes what [`serialize`] wrote, checking the length.
pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
    deserializer: D,
) -> Result<[u8; N], D::Error> {
    let bytes: Vec<u8> = if deserializer.is_human_readable() {
        let s = String::deserialize(deserializer)?;
        hex::decode(s).map_err(D::Error::custom)?
    } else {
        serde_bytes_vec(deserializer)?
    };
    let len = bytes.len();
    bytes
        .try_into()
        .map_err(|_| D::Error::custom(format!("expected {N} bytes, got {len}")))
}

fn serde_bytes_vec<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("a byte string")
        }
        fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }
        fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut out = Vec::new();
            while let Some(b) = seq.next_element()? {
                out.push(b);
            }
            Ok(out)
        }
    }
    deserializer.deserialize_byte_buf(V)
}
