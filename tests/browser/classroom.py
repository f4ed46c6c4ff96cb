"""Drives `facedown serve` in headless Chromium and checks each room against the CLI.

Run by `tests/browser/run.sh` (which `.ci/run` calls): starts the server on a free loopback
port, loads every page, pastes a protocol with an error and checks that the page shows it at
its line, steps a trace and toggles the hidden row, draws the state tree, runs the simulation,
deals in the deal room and steps its openings, computes the coalition table and the encrypted
deal, and compares every number the page shows with what `facedown … --json` prints for the same
question. Screenshots go to the directory given as the second argument.

Usage: classroom.py FACEDOWN_BINARY SCREENSHOT_DIR
"""

import http.client
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import Select, WebDriverWait

PROTOCOL = "five-card-trick"
BROKEN = "protocol broken\ninputs a b\nshuffel cut 1 2 3 4 5\n"


def cli(binary, *args):
    """The JSON document the CLI prints for `args`."""
    out = subprocess.run([binary, *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def start_server(binary):
    server = subprocess.Popen(
        [binary, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    first = server.stdout.readline().strip()
    assert first.startswith("facedown serve: http://"), first
    return server, first.split(": ", 1)[1]


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1600"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def wait_for(driver, condition, seconds=20):
    return WebDriverWait(driver, seconds).until(condition)


def check_index(driver, url, shots):
    driver.get(url)
    for room in ("protocol", "deal", "game"):
        link = driver.find_element(By.ID, f"room-{room}")
        assert link.get_attribute("href").endswith(f"/{room}")
    driver.save_screenshot(str(shots / "index.png"))


def check_analysis(driver, url, binary, shots):
    driver.get(url + "protocol")
    wait_for(driver, ready.text_to_be_present_in_element((By.ID, "verdict-security"), "perfect"))
    expected = cli(binary, "cards", "analyze", PROTOCOL)
    assert text_of(driver, "verdict-security") == expected["security"]
    assert text_of(driver, "verdict-correct") == ("yes" if expected["correct"] else "no")
    assert text_of(driver, "verdict-expected_shuffles") == expected["expected_shuffles"]
    assert text_of(driver, "verdict-tv_distance") == expected["tv_distance"]
    assert text_of(driver, "verdict-claim_holds") == "✓"
    shown = Select(driver.find_element(By.ID, "protocol-select")).options
    listed = cli(binary, "cards", "list")["protocols"]
    assert [o.get_attribute("value") for o in shown] == [p["name"] for p in listed]
    driver.save_screenshot(str(shots / "protocol-analysis.png"))


def check_parse_error(driver, shots):
    area = driver.find_element(By.ID, "source")
    area.clear()
    area.send_keys(BROKEN)
    driver.find_element(By.ID, "analyze").click()
    box = wait_for(driver, ready.visibility_of_element_located((By.ID, "error")))
    assert box.get_attribute("data-line") == "3", box.text
    assert box.text.startswith("line 3, column 1:"), box.text
    assert "shuffel" in box.text
    driver.save_screenshot(str(shots / "protocol-parse-error.png"))


def reload_protocol(driver):
    # The failed analysis left the earlier verdict on the page, so "perfect" is there at once:
    # wait for the new analysis to replace that cell (and the trace inputs with it).
    earlier = driver.find_element(By.ID, "verdict-security")
    driver.find_element(By.ID, "load").click()
    wait_for(driver, ready.staleness_of(earlier))
    wait_for(driver, ready.invisibility_of_element_located((By.ID, "error")))
    wait_for(driver, ready.text_to_be_present_in_element((By.ID, "verdict-security"), "perfect"))


def check_trace(driver, binary, shots):
    Select(driver.find_element(By.ID, "trace-input")).select_by_value("11")
    driver.find_element(By.ID, "trace-run").click()
    wait_for(driver, ready.visibility_of_element_located((By.ID, "trace")))
    expected = cli(binary, "cards", "trace", PROTOCOL, "--input", "11", "--seed", "0")
    steps = expected["steps"]
    assert text_of(driver, "trace-position") == f"step 1 of {len(steps)}"
    hidden = driver.find_element(By.ID, "trace-hidden")
    assert not hidden.is_displayed(), "the hidden row shows before it is asked for"
    driver.find_element(By.ID, "hidden-row").click()
    assert hidden.is_displayed()
    assert "".join(hidden.text.split()) == steps[0]["hidden_row"]
    assert text_of(driver, "trace-permutation") == steps[0]["hidden_permutation"]
    driver.save_screenshot(str(shots / "protocol-trace-hidden-row.png"))
    driver.find_element(By.ID, "hidden-row").click()
    assert not hidden.is_displayed()
    for _ in steps[1:]:
        driver.find_element(By.ID, "trace-next").click()
    assert text_of(driver, "trace-position") == f"step {len(steps)} of {len(steps)}"
    assert text_of(driver, "trace-output") == str(int(expected["output"]))
    table = "".join(driver.find_element(By.ID, "trace-table").text.split())
    assert table == "".join(steps[-1]["table"].split()), table


def check_tree(driver, binary, shots):
    driver.find_element(By.ID, "tree-draw").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#tree-svg g.vertex"))
    expected = cli(binary, "cards", "tree", PROTOCOL)
    vertices = driver.find_elements(By.CSS_SELECTOR, "#tree-svg g.vertex")
    assert len(vertices) == len(expected["vertices"])
    last = expected["vertices"][-1]
    driver.find_element(By.CSS_SELECTOR, f"#tree-svg g.vertex[data-id='{last['id']}']").click()
    table = wait_for(driver, ready.visibility_of_element_located((By.ID, "tree-vertex-table")))
    rows = table.find_elements(By.TAG_NAME, "tr")[1:]
    assert len(rows) == len(last["sequences"])
    first = [c.text for c in rows[0].find_elements(By.TAG_NAME, "td")[1:]]
    assert first == last["sequences"][0]["probabilities"]
    driver.save_screenshot(str(shots / "protocol-tree.png"))


def check_simulation(driver, binary, shots):
    driver.find_element(By.ID, "sim-run").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#sim-table tbody tr"))
    expected = cli(binary, "cards", "simulate", PROTOCOL, "--runs", "10000", "--seed", "0")
    runs = expected["runs_per_input"]
    for view in expected["views"]:
        row = driver.find_element(By.CSS_SELECTOR, f"#sim-table tr[data-view='{view['view']}']")
        seen = [float(c.text) for c in row.find_elements(By.CSS_SELECTOR, "td.seen")]
        assert seen == [round(c / runs, 4) for c in view["counts"]], (view, seen)
    driver.save_screenshot(str(shots / "protocol-simulation.png"))


def announced_too_large(url):
    """The status for a body announced larger than the cap (none of it is sent)."""
    host = url.removeprefix("http://").rstrip("/")
    connection = http.client.HTTPConnection(host, timeout=20)
    connection.putrequest("POST", "/api/analyze")
    connection.putheader("Content-Length", "100000")
    connection.endheaders()
    return connection.getresponse().status


def check_deal_room(driver, url, binary, shots):
    driver.get(url + "deal")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#deal-hands tr"))
    expected = cli(binary, "dealer", "deal", "--players", "3", "--cards", "6", "--hand", "1",
                   "--public", "1", "--seed", "0")
    rows = driver.find_elements(By.CSS_SELECTOR, "#deal-hands tr")
    for row, hand in zip(rows, expected["hands"]):
        assert row.find_elements(By.TAG_NAME, "td")[1].text == " ".join(map(str, hand))
    assert rows[-1].find_elements(By.TAG_NAME, "td")[1].text == " ".join(map(str, expected["public"]))
    assert len(driver.find_elements(By.CSS_SELECTOR, "#layers tbody tr")) >= 3
    assert text_of(driver, "opening-position").startswith("opening 1 of 4")
    for _ in range(3):
        driver.find_element(By.ID, "opening-next").click()
    assert "learned by everyone" in text_of(driver, "opening-route")
    chain = driver.find_elements(By.CSS_SELECTOR, "#opening-chain li")
    assert chain[-1].text.endswith(f"→ everyone: {expected['public'][0]}"), chain[-1].text
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(shots / "deal-room.png"))
    driver.find_element(By.ID, "collusion-run").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#collusion-table tbody tr"))
    rows = cli(binary, "dealer", "collusion", "--players", "3", "--cards", "6", "--hand", "1",
               "--public", "1")["rows"]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#collusion-table tbody tr")) == len(rows)
    driver.find_element(By.ID, "poker-run").click()
    wait_for(driver, ready.text_to_be_present_in_element((By.ID, "poker-audit"), "messages"))
    poker = cli(binary, "poker", "deal", "--players", "3", "--cards", "6", "--hand", "1",
                "--public", "1", "--seed", "0")
    assert f"{poker['cost']['messages']} messages" in text_of(driver, "poker-audit")
    assert driver.find_elements(By.CSS_SELECTOR, "#poker-table tr[data-kind='Shuffle']")
    driver.save_screenshot(str(shots / "deal-room-coalitions-and-encrypted-deck.png"))


def wait_turn(driver, after):
    """Waits until it is the student's move again (after `after` moves) or the game is over."""
    def turn(d):
        status = d.find_element(By.ID, "game-status")
        state = status.get_attribute("data-status")
        moves = int(status.get_attribute("data-moves") or 0)
        return state if state == "over" or (state == "your-move" and moves > after) else False
    return wait_for(driver, turn, 120)


def click_a_move(driver):
    """Plays one Ninety-Nine move by clicking: three cards and the bid button, a playable card,
    or a button."""
    if driver.find_elements(By.ID, "game-bid"):
        for i in range(3):
            driver.find_elements(By.CSS_SELECTOR, "#game-hand .card")[i].click()
        driver.find_element(By.ID, "game-bid").click()
        return
    playable = driver.find_elements(By.CSS_SELECTOR, "#game-hand .card.playable, #game-moves .card.playable")
    (playable or driver.find_elements(By.CSS_SELECTOR, "#game-moves .game-move"))[0].click()


def student_moves(driver):
    return int(driver.find_element(By.ID, "game-status").get_attribute("data-moves") or 0)


def click_golf_move(driver):
    """Plays one Golf move by clicking: three face-down cards and "Turn them up", a card of the
    grid to replace, or a button (keep, draw, take the discard)."""
    if driver.find_elements(By.ID, "golf-turn-up"):
        # Each click draws the grid again: find the next unselected card afresh.
        for _ in range(3):
            driver.find_element(By.CSS_SELECTOR, "#golf-grid-1 .card.playable:not(.selected)").click()
        driver.find_element(By.ID, "golf-turn-up").click()
        return
    def choices(d):
        return d.find_elements(By.CSS_SELECTOR, "#golf-grid-1 .card.playable, #game-moves .game-move")
    wait_for(driver, choices)[0].click()


def click_devyatka_move(driver):
    """Plays one Девятка move by clicking: a playable card of the hand, or the pass button."""
    def choices(d):
        return d.find_elements(By.CSS_SELECTOR, "#devyatka-hand .card.playable, #game-moves .game-move")
    wait_for(driver, choices)[0].click()


def click_moves(driver, state, most, click=click_a_move):
    """Makes up to `most` of the student's moves by clicking, stopping when the game is over."""
    for _ in range(most):
        if state == "over":
            break
        before = student_moves(driver)
        # `state` may be stale: pressing a cheat redraws the table from the server's answer,
        # which may come while the bots move. Click only once it is the student's move again.
        if wait_turn(driver, before - 1) == "over":
            return "over"
        click(driver)
        state = wait_turn(driver, before)
    return state


def new_game(driver, url, game, backend="ideal"):
    """Opens the game room, starts `game` on `backend` and waits for the student's first move."""
    driver.get(url + "game")
    wait_for(driver, lambda d: d.find_element(By.ID, "game-new").get_attribute("data-ready"))
    Select(driver.find_element(By.ID, "game-name")).select_by_value(game)
    Select(driver.find_element(By.ID, "game-backend")).select_by_value(backend)
    driver.find_element(By.ID, "game-new").click()
    return wait_turn(driver, -1)


def press_cheat(driver, player, kind):
    Select(driver.find_element(By.ID, "cheat-player")).select_by_value(str(player))
    Select(driver.find_element(By.ID, "cheat-kind")).select_by_value(kind)
    driver.find_element(By.ID, "cheat-press").click()
    wait_for(driver, ready.text_to_be_present_in_element((By.ID, "cheat-pressed"), kind))


def check_named(driver, cheater, players):
    """The verdict names `cheater`, by every player's session, and no honest player."""
    wait_for(driver, ready.visibility_of_element_located((By.ID, "verdict-section")))
    summary = text_of(driver, "verdict-summary")
    assert summary == f"Player {cheater} cheated and was named by every player.", summary
    views = driver.find_elements(By.CSS_SELECTOR, "#verdict-views li")
    assert len(views) == players, [v.text for v in views]
    assert all(f"names player {cheater} (at play time)" in v.text for v in views), [v.text for v in views]
    assert text_of(driver, "verdict-honest") == "No honest player was named."


def check_game_room(driver, url, shots):
    state = new_game(driver, url, "ninety-nine")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#game-hand .card")) == 12
    state = click_moves(driver, state, 6)
    tricks = driver.find_element(By.ID, "game-last-trick").text
    assert "won by player" in tricks, tricks
    driver.save_screenshot(str(shots / "game-room.png"))
    press_cheat(driver, 1, "not-in-hand")
    click_moves(driver, state, 40)
    check_named(driver, 1, 3)
    driver.find_element(By.ID, "verdict-section").location_once_scrolled_into_view
    driver.save_screenshot(str(shots / "game-room-cheat-caught.png"))


def check_golf(driver, url, shots):
    """A few Golf moves by clicking (turn up three, keep, draw from the stock and see the card
    drawn), then player 3 peeks and is named."""
    state = new_game(driver, url, "golf")
    grids = driver.find_elements(By.CSS_SELECTOR, "#golf-grids .grid-seat")
    assert len(grids) == 3, len(grids)
    down = driver.find_elements(By.CSS_SELECTOR, "#golf-grid-1 .card.down")
    assert len(down) == 9, "nobody has seen a grid card"
    state = click_moves(driver, state, 1, click_golf_move)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#golf-grid-1 .card.down")) == 6
    for _ in range(4):
        buttons = {b.text: b for b in driver.find_elements(By.CSS_SELECTOR, "#game-moves .game-move")}
        if "draw from the stock" in buttons:
            break
        state = click_moves(driver, state, 1, click_golf_move)
    before = student_moves(driver)
    buttons["draw from the stock"].click()
    state = wait_turn(driver, before)
    holding = text_of(driver, "golf-holding")
    assert "drawn from the stock (shown to you alone)" in holding, holding
    driver.save_screenshot(str(shots / "game-room-golf.png"))
    press_cheat(driver, 3, "peek")
    click_moves(driver, state, 30, click_golf_move)
    check_named(driver, 3, 3)


def check_devyatka(driver, url, shots):
    """A few Девятка moves by clicking on the encrypted deck (its messages logged and counted),
    then player 2 puts down a card that may not go down and is named."""
    state = new_game(driver, url, "devyatka", "poker")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#devyatka-hand .card")) == 12
    assert len(driver.find_elements(By.CSS_SELECTOR, "#devyatka-rows tr")) == 4
    state = click_moves(driver, state, 3, click_devyatka_move)
    down = driver.find_elements(By.CSS_SELECTOR, "#devyatka-rows .card:not(.empty)")
    assert len(down) >= 3, len(down)
    cost = text_of(driver, "cost-summary")
    assert cost.startswith("So far: ") and not cost.startswith("So far: 0 "), cost
    assert driver.find_elements(By.CSS_SELECTOR, "#game-log tbody tr"), "the message log is shown"
    assert driver.find_elements(By.CSS_SELECTOR, "#cost-kinds tr[data-kind='Shuffle']")
    driver.save_screenshot(str(shots / "game-room-devyatka.png"))
    press_cheat(driver, 2, "not-playable")
    click_moves(driver, state, 20, click_devyatka_move)
    check_named(driver, 2, 3)


def check_refusals(url):
    def status(path, body):
        request = urllib.request.Request(url + path, data=body, method="POST")
        try:
            with urllib.request.urlopen(request) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as refused:
            return refused.code, json.load(refused)

    assert announced_too_large(url) == 413
    assert status("api/simulate?protocol=five-card-trick&runs=999999999", b"")[0] == 400
    assert status("api/analyze?protocol=no-such-protocol", b"")[0] == 404
    assert status("api/analyze", b"\xff\xfe")[0] == 400
    code, doc = status("api/analyze?protocol=five-card-trick", b"")
    assert code == 200 and doc["security"] == "perfect", "the server did not stay up"


def main():
    binary, shots = sys.argv[1], Path(sys.argv[2])
    shots.mkdir(parents=True, exist_ok=True)
    server, url = start_server(binary)
    driver = browser()
    try:
        check_index(driver, url, shots)
        check_analysis(driver, url, binary, shots)
        check_parse_error(driver, shots)
        reload_protocol(driver)
        check_trace(driver, binary, shots)
        check_tree(driver, binary, shots)
        check_simulation(driver, binary, shots)
        check_deal_room(driver, url, binary, shots)
        check_game_room(driver, url, shots)
        check_golf(driver, url, shots)
        check_devyatka(driver, url, shots)
        check_refusals(url)
        # The 422 of the pasted error is expected; anything the scripts log is not.
        log = driver.get_log("browser")
        errors = [e for e in log if e["level"] == "SEVERE" and e["source"] != "network"]
        assert not errors, f"the page logged errors: {errors}"
    finally:
        driver.quit()
        server.terminate()
    for shot in sorted(shots.glob("*.png")):
        print(f"screenshot {shot} ({shot.stat().st_size} bytes)")
    print("browser test: every room checked against the CLI")


if __name__ == "__main__":
    main()
