//! The permutation-sharing dealer: N players compose secret permutations to deal cards without a trusted dealer, with hash commitments and an end-of-game audit.
