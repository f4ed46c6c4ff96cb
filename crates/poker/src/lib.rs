//! Barnett–Smart mental poker on ristretto255: keys, masking, Chaum–Pedersen proofs, a verifiable shuffle and reveal tokens.
