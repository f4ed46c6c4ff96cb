//! `facedown compare --latency`: the deals on the dealer and encrypted backends are played over
//! the in-memory network with a per-message delay, so their `wall_ms_at_latency` grows with the
//! latency (round-dominated costs); rows without a networked run are marked as estimates.

fn compare(extra: &[&str]) -> serde_json::Value {
    let args = [&["compare", "--json", "--only", "ninety-nine"][..], extra].concat();
    crate::support::run_json(&args)
}

fn row<'a>(v: &'a serde_json::Value, backend: &str) -> &'a serde_json::Value {
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["backend"] == backend)
        .expect("the backend's row")
}

fn at_latency(v: &serde_json::Value, backend: &str) -> f64 {
    row(v, backend)["wall_ms_at_latency"]
        .as_f64()
        .expect("wall_ms_at_latency is a number")
}

#[test]
fn latency_figure_of_a_networked_deal_grows_with_the_latency() {
    let zero = compare(&["--latency", "0"]);
    let five = compare(&["--latency", "5ms"]);
    assert_eq!(five["latency_ms"].as_f64(), Some(5.0));
    // Not a speed check: every sequential round sleeps for at least the delay, so the figure
    // has a floor that no machine can beat, whatever its load. (Comparing against the 0 ms run
    // would be a timing race.)
    let rounds = row(&five, "dealer")["rounds"].as_f64().expect("rounds");
    let w5 = at_latency(&five, "dealer");
    assert!(rounds >= 3.0, "a deal takes several rounds, got {rounds}");
    assert!(w5 >= 15.0, "dealer deal at 5 ms took only {w5} ms");
    assert!(at_latency(&zero, "dealer").is_finite());
    for b in ["dealer", "encrypted"] {
        let notes = row(&five, b)["notes"].to_string();
        assert!(notes.contains("in-memory network"), "{b}: {notes}");
        assert!(!notes.contains("estimate"), "{b}: {notes}");
    }
}

#[test]
fn rows_without_a_networked_run_are_labelled_estimates() {
    let five = compare(&["--latency", "5ms"]);
    let ideal = row(&five, "ideal");
    let rounds = ideal["rounds"].as_f64().expect("rounds");
    assert_eq!(ideal["wall_ms_at_latency"].as_f64(), Some(rounds * 5.0));
    assert!(ideal["notes"].to_string().contains("estimate"));
}

#[test]
fn without_latency_there_is_no_latency_column_and_bad_durations_are_refused() {
    let plain = compare(&[]);
    assert!(plain.get("latency_ms").is_none());
    assert!(row(&plain, "dealer").get("wall_ms_at_latency").is_none());
    let out = crate::support::facedown(&["compare", "--json", "--latency", "20 parsecs"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unit"));
}

#[test]
fn dealer_deals_have_zero_excess_leakage_from_the_closed_form() {
    // docs/leakage.md: no single player learns more than his hand and the public cards.
    for only in ["ninety-nine", "poker"] {
        let v = crate::support::run_json(&["compare", "--json", "--only", only]);
        let dealer = row(&v, "dealer");
        assert_eq!(dealer["excess_bits"].as_f64(), Some(0.0), "{only}");
        assert!(!dealer["notes"].to_string().contains("issue 4"));
    }
}
