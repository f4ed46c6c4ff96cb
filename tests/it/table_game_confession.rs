//! A networked game's errors: only an abort that accuses its own sender is a confession, and
//! only a confession (or the table's own blame) names a player.

use facedown::core::PartyId;
use facedown::games::session::SessionError;
use facedown::net::NetError;
use facedown::table_game::{Confession, GameError};

#[test]
fn only_an_abort_that_accuses_its_own_sender_is_a_confession() {
    let abort = |peer: u16, claim: Option<u16>| NetError::Aborted {
        peer: PartyId(peer),
        claim: claim.map(PartyId),
        reason: "refused".into(),
        later: Vec::new(),
    };
    assert_eq!(abort(2, Some(2)).confessed(), Some(PartyId(2)));
    assert_eq!(
        abort(2, Some(3)).confessed(),
        None,
        "an accusation of another"
    );
    assert_eq!(abort(2, None).confessed(), None);
    let of = |e| GameError::of(SessionError::Table(e)).blame;
    assert_eq!(of(abort(2, Some(2))), Some(2));
    assert_eq!(of(abort(2, Some(3))), None);
}
