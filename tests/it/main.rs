//! Cross-crate integration tests of the `facedown` package, in one test binary (one link
//! instead of one per file). Each module is a suite; `paper_*` modules reproduce published claims.

mod cli_bad_input;
mod cli_cards;
mod cli_cards_check;
mod cli_convention;
mod cli_search;
mod compare_engines;
mod compare_latency;
mod cross_backend;
mod dealer_cli;
mod dealer_commit_attack;
mod dealer_schedule;
mod game_sessions;
mod game_sessions_cli;
mod games_cli;
mod leakage_cards;
mod leakage_cheat;
mod leakage_cli;
mod leakage_forgery;
mod leakage_montecarlo;
mod leakage_session;
mod net_card_protocols;
mod net_play_local;
mod paper_cards_bias;
mod paper_cards_den_boer;
mod paper_cards_las_vegas;
mod paper_cards_library;
mod paper_cards_mks12;
mod paper_cards_ms09;
mod paper_cards_multiset;
mod paper_cards_pitfalls;
mod paper_dealer_collusion;
mod play_local_cleanup;
mod poker_cli;
mod repository;
mod serve;
