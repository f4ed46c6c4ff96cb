//! The pages and their assets, compiled into the binary: a user needs no build step and the
//! page needs no network beyond this server. Every page is one frame (head, navigation, the
//! shared script) around its room's `<main>`.

use std::sync::LazyLock;

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";

/// The rooms: path, title, the room's own script, its `<main>`.
const PAGES: [(&str, &str, Option<&str>, &str); 4] = [
    (
        "/",
        "facedown classroom",
        None,
        include_str!("assets/index.main.html"),
    ),
    (
        "/protocol",
        "Protocol room",
        Some("/protocol.js"),
        include_str!("assets/protocol.main.html"),
    ),
    (
        "/deal",
        "Deal room",
        Some("/deal.js"),
        include_str!("assets/deal.main.html"),
    ),
    (
        "/game",
        "Game room",
        Some("/game.js"),
        include_str!("assets/game.main.html"),
    ),
];

static FRAMED: LazyLock<Vec<String>> = LazyLock::new(|| {
    PAGES
        .iter()
        .map(|&(_, title, script, main)| frame(title, script, main))
        .collect()
});

fn frame(title: &str, script: Option<&str>, main: &str) -> String {
    let script = script.map_or(String::new(), |s| {
        format!("<script src=\"{s}\" defer></script>\n")
    });
    let nav: Vec<String> = PAGES
        .iter()
        .map(|(path, name, _, _)| format!("<a href=\"{path}\">{name}</a>"))
        .collect();
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} · facedown</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n\
         <link rel=\"icon\" href=\"data:,\">\n<script src=\"/classroom.js\" defer></script>\n\
         {script}</head>\n<body>\n<nav>{}</nav>\n{main}</body>\n</html>\n",
        nav.join(" · ")
    )
}

/// The content type and text of the asset at `path`, if there is one.
pub fn find(path: &str) -> Option<(&'static str, &'static str)> {
    if let Some(i) = PAGES.iter().position(|(p, ..)| *p == path) {
        return Some((HTML, FRAMED[i].as_str()));
    }
    Some(match path {
        "/index.html" => (HTML, FRAMED[0].as_str()),
        "/style.css" => ("text/css; charset=utf-8", include_str!("assets/style.css")),
        "/classroom.js" => (JS, include_str!("assets/classroom.js")),
        "/protocol.js" => (JS, include_str!("assets/protocol.js")),
        "/deal.js" => (JS, include_str!("assets/deal.js")),
        "/game.js" => (JS, include_str!("assets/game.js")),
        _ => return None,
    })
}
