//! The pages and their assets, compiled into the binary: a user needs no build step and the
//! page needs no network beyond this server.

/// The content type and text of the asset at `path`, if there is one.
pub fn find(path: &str) -> Option<(&'static str, &'static str)> {
    const HTML: &str = "text/html; charset=utf-8";
    Some(match path {
        "/" | "/index.html" => (HTML, include_str!("assets/index.html")),
        "/protocol" => (HTML, include_str!("assets/protocol.html")),
        "/deal" => (HTML, include_str!("assets/deal.html")),
        "/style.css" => ("text/css; charset=utf-8", include_str!("assets/style.css")),
        "/protocol.js" => (
            "text/javascript; charset=utf-8",
            include_str!("assets/protocol.js"),
        ),
        "/deal.js" => (
            "text/javascript; charset=utf-8",
            include_str!("assets/deal.js"),
        ),
        _ => return None,
    })
}
