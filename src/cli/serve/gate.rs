//! Who may call the inner server: a request the door passed on (it carries the door's pass, a
//! secret drawn when the server starts), addressed by a name the server answers to.
//!
//! - **The pass.** `tiny_http` listens on a loopback port of its own; any process of the
//!   machine could reach it there and skip the door's limits. The door adds the pass to every
//!   request it hands on (and drops a client's header of that name), and the inner server
//!   refuses a request without it.
//! - **The host.** A page of another site can make a browser resolve its own name to this
//!   server's address (DNS rebinding); its calls then carry `Host: its-name` and an `Origin`
//!   that matches it. So the server answers only to an IP address, `localhost`, or a name the
//!   teacher gave with `--allow-host`.

use std::net::IpAddr;

use rand::{CryptoRng, RngCore};
use subtle::ConstantTimeEq;
use tiny_http::Request;

use super::http::{header, Refusal};

/// The header that carries the door's pass to the inner server.
pub const PASS_HEADER: &str = "X-Facedown-Door";

/// The inner server's checks of a request's origin.
#[derive(Clone, Debug)]
pub struct Gate {
    pass: String,
    hosts: Vec<String>,
}

impl Gate {
    /// A gate with a fresh 128-bit pass drawn from `rng`, answering to IP addresses,
    /// `localhost` and `hosts`.
    pub fn new(hosts: &[String], rng: &mut (impl RngCore + CryptoRng)) -> Gate {
        let mut secret = [0u8; 16];
        rng.fill_bytes(&mut secret);
        Gate {
            pass: hex::encode(secret),
            hosts: hosts.iter().map(|h| h.to_ascii_lowercase()).collect(),
        }
    }

    /// The pass the door adds to each request.
    pub fn pass(&self) -> &str {
        &self.pass
    }

    /// Refuses a request that did not come through the door, or that names another host.
    pub fn check(&self, request: &Request) -> Result<(), Refusal> {
        let header = |name| header(request, name);
        let pass = header(PASS_HEADER).unwrap_or_default().as_bytes();
        if !bool::from(pass.ct_eq(self.pass.as_bytes())) {
            return Err(Refusal::new(
                403,
                "this port is the server's own: call the address it printed",
            ));
        }
        let host = header("Host").unwrap_or_default();
        match self.answers_to(host) {
            true => Ok(()),
            false => Err(Refusal::new(
                403,
                format!(
                    "this server answers to its IP address, localhost, or a name given with \
                     --allow-host, not `{host}` (a page that reaches it by another name may be \
                     another site's)"
                ),
            )),
        }
    }

    /// Whether `host` (a `Host` header: a name or address, maybe with a port) is one this
    /// server answers to.
    fn answers_to(&self, host: &str) -> bool {
        let name = without_port(host);
        if name.is_empty() {
            return false;
        }
        let literal = name.strip_prefix('[').and_then(|n| n.strip_suffix(']'));
        literal.unwrap_or(name).parse::<IpAddr>().is_ok()
            || name.eq_ignore_ascii_case("localhost")
            || self.hosts.iter().any(|h| h.eq_ignore_ascii_case(name))
    }
}

/// `host` without a trailing `:port` (an IPv6 literal keeps its brackets).
fn without_port(host: &str) -> &str {
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) && !name.ends_with(':') => {
            name
        }
        _ => host,
    }
}
