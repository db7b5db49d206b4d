"""The page holds no copy of the action grammar and parses no action text (STYLE principles
16 and 18): it describes a legal action from its kind, its fields (``args``) and the
catalogue's words, and sends it by its index. Here every listed action reaches the page with
a text of a shape it has never seen, and some kinds' words are changed in the catalogue only
(the placeholders in another order): the page shows the new words filled from the args, and
its clicks still make the actions meant."""

from __future__ import annotations

import json
import re
from typing import Any

from e2e_support import create_game, http_json, send_if_asked, version, wait_for_decision, wait_past

REWORDED = {
    "attack": "Storm {tile2} out of {tile}!",
    "pass": "Nothing more for now",
    "end": "That is all",
    "nomagic": "Keep the cards",
}


def strange(view: dict[str, Any]) -> dict[str, Any]:
    """The view with every listed action's text replaced by one the page cannot read."""
    for entry in view.get("legal") or []:
        entry["text"] = f"~{entry['index']}~?"
    return view


def rewrite_message(message: str | bytes) -> str | bytes:
    try:
        data = json.loads(message)
    except ValueError:
        return message
    if isinstance(data, dict) and data.get("type") == "view":
        data["view"] = strange(data["view"])
        return json.dumps(data)
    return message


def reworded_catalogue(route: Any) -> None:
    response = route.fetch()
    catalogue = response.json()
    for kind, words in REWORDED.items():
        catalogue["act"][kind] = words
    route.fulfill(response=response, json=catalogue)


def strange_view(route: Any) -> None:
    response = route.fetch()
    route.fulfill(response=response, json=strange(response.json()))


def open_with_strange_texts(page: Any, server: str) -> tuple[str, str]:
    created = create_game(server, ["human", "random"], seed=41, name="strange texts")
    game_id = created["game_id"]
    token = http_json(server, "POST", f"/api/games/{game_id}/seats/0/join",
                      {"code": created["join"][0]["code"]})["token"]
    page.route(re.compile(r"/static/i18n/en\.json$"), reworded_catalogue)
    page.route(re.compile(r"/api/games/[^/]+/(view|actions)"), strange_view)

    def on_socket(ws: Any) -> None:
        upstream = ws.connect_to_server()
        upstream.on_message(lambda message: ws.send(rewrite_message(message)))

    page.route_web_socket(re.compile(r"/ws/games/"), on_socket)
    page.goto(server + "/")
    page.evaluate("([key, token]) => localStorage.setItem(key, token)",
                  [f"kaladan.token.{game_id}.0", token])
    page.goto(f"{server}/play/{game_id}/0")
    return game_id, token


def filled(words: str, args: dict[str, Any]) -> str:
    """The catalogue's words with the tiles filled in (the only args REWORDED shows as they
    are; units are checked by name below)."""
    return words.replace("{tile}", args.get("tile", "")).replace("{tile2}", args.get("tile2", ""))


def test_the_page_works_with_texts_it_has_never_seen_and_words_from_the_catalogue(
        page: Any, server: str) -> None:
    game_id, token = open_with_strange_texts(page, server)
    seen: set[str] = set()
    attacked = False
    for _ in range(80):
        if not wait_for_decision(page):
            break
        legal = http_json(server, "GET", f"/api/games/{game_id}/legal", token=token)["legal"]
        truth = {entry["index"]: entry for entry in legal}
        buttons = page.locator("#actions button[data-index]")
        buttons.first.wait_for()  # a casualty is asked once the dice have settled
        # A button's words, without what is hidden from its name (a quick answer's key).
        shown = buttons.evaluate_all(
            "els => els.map(e => [Number(e.dataset.index), e.dataset.action, [...e.childNodes]"
            ".filter(n => !(n.nodeType === 1 && n.getAttribute('aria-hidden') === 'true'))"
            ".map(n => n.textContent).join('')])")
        assert shown, "the decision offers listed actions"
        for index, text, words in shown:
            entry = truth[index]
            assert text == f"~{index}~?"  # the page got the strange text, and did not mind
            assert "~" not in words  # ... and never showed it
            if entry["kind"] == "buy":  # in its unit's row of the purchase panel: the tile
                assert words.strip() == entry["args"]["tile"], words
                seen.add("buy")
            elif entry["kind"] in REWORDED:
                assert words.strip() == filled(REWORDED[entry["kind"]], entry["args"]), words
                seen.add(entry["kind"])
        attack = next((i for i, _, _ in shown if truth[i]["kind"] == "attack"), None)
        before = version(page)
        if attack is not None and not attacked:
            page.click(f"#actions button[data-index='{attack}']")
            page.locator("#confirm").wait_for(state="visible")
            title = page.locator("#confirm-title").inner_text()
            assert title == filled(REWORDED["attack"], truth[attack]["args"])
            page.click("#confirm-ok")
            wait_past(page, before)
            started = [e for e in http_json(server, "GET", f"/api/games/{game_id}/view")["log"]
                       if e["kind"] == "battle_started"][-1]
            assert (started["a_tile"], started["d_tile"]) == (
                truth[attack]["args"]["tile"], truth[attack]["args"]["tile2"])
            attacked = True
            continue
        if page.get_attribute("#game", "data-auto-answering") == "true":
            wait_past(page, before)  # the page answers a forced pass itself, by index
            continue
        index, _, _ = shown[0]
        quick = page.locator("#actions .buttons.quick button[data-index]")
        if quick.count():
            index = int(quick.first.get_attribute("data-index"))
        page.click(f"#actions button[data-index='{index}']")
        send_if_asked(page)  # a move or a purchase waits in the confirm bar
        wait_past(page, before)
        steps = http_json(server, "GET", f"/api/games/{game_id}")
        assert steps["status"] in ("running", "over")
        if attacked and {"pass", "end"} & seen:
            break
    assert attacked, "no attack was offered in the game"
    assert {"attack", "pass"} <= seen or {"attack", "end"} <= seen, seen
