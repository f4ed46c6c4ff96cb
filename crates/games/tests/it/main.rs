//! Integration tests of `facedown-games`, in one test binary; each module is a suite.
//! `seed_*` suites reproduce the claims of the seed documents.

mod audit;
mod bots_play;
mod ideal_reveals;
mod ideal_stalls;
mod record;
mod seed_000_ninety_nine;
mod seed_002_devyatka;
mod seed_002_golf;
mod seed_003_chopsticks;
mod session_devyatka;
mod session_golf;
mod session_ninety_nine;
mod session_replay;
mod session_terminal;
mod solvers;
mod support;
mod views;
