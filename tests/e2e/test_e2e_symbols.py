"""Clear symbols and words (issue 40): no realm's emblem repeats a mark of the board's legend
(Laurielle's "+" made every unit of hers look upgraded, Zhojira's star an upgraded castle) or
a terrain's pattern, a full castle's five tokens stand apart, German words are not broken
inside a word and the chart's last round label is not clipped. Measured on the drawn page:
the legend as the game page shows it, board.js's own tables and the boxes Chromium draws."""

from __future__ import annotations

from typing import Any

from e2e_support import checked_page, create_game, open_scripted
from test_e2e_compose import CASUALTY_SEED, casualty_choice

# A drawn glyph's shape, for the legend's marks (a new mark must be named here).
GLYPH_SHAPES = {"★": "star", "☆": "star", "+": "cross", "✚": "cross", "●": "circle", "○": "circle"}

READ_SYMBOLS = """async () => {
  const board = await import("/static/js/board.js");
  return {emblems: board.EMBLEM_SHAPES, marks: board.MARKS, terrain: board.TERRAIN_SHAPES,
    paths: Object.fromEntries([...document.querySelectorAll("#players .swatch-emblem")]
      .map((el) => [el.dataset.realm, el.getAttribute("d")])),
    legend: [...document.querySelectorAll(".legend .legend-item")].map((el) => el.textContent)};
}"""

# A castle holding five units (three of them upgraded, of three realms), drawn by renderBoard
# into a fresh SVG of the page; the boxes of the tokens' halos, which hold their badges.
FULL_CASTLE = """async (units) => {
  const board = await import("/static/js/board.js");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", "400"); svg.setAttribute("height", "400");
  document.body.append(svg);
  const observation = {
    world: {terrain: [], castle_spots: [{q: 0, r: 0}], capacity: {C1: 5}},
    board: {C1: units}, fortified: ["C1"],
    players: [{realm: "laurielle"}, {realm: "zhojira"}, {realm: "kimbria"}]};
  board.renderBoard(svg, observation, {onTile: () => {}});
  const box = (el) => { const b = el.getBoundingClientRect();
    return [b.left, b.top, b.right, b.bottom]; };
  const out = {halos: [...svg.querySelectorAll(".unit-halo")].map(box),
    hex: box(svg.querySelector(".hex")), name: box(svg.querySelector(".tile-name")),
    pips: [...svg.querySelectorAll(".pip")].map(box),
    badges: [...svg.querySelectorAll(".owner-badge circle, .upgrade-badge circle")].map(box)};
  svg.remove();
  return out;
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(a: list[float], b: list[float]) -> bool:
    return b[0] <= a[0] and b[1] <= a[1] and a[2] <= b[2] and a[3] <= b[3]


def watch_six_realms(page: Any, server: str) -> None:
    game_id = create_game(server, ["greedy"] * 6, name="six emblems")["game_id"]
    page.goto(f"{server}/watch/{game_id}")
    page.wait_for_selector("#board .unit")
    page.wait_for_selector(".legend .legend-item")


def test_no_emblem_is_a_mark_of_the_legend(page: Any, server: str) -> None:
    """R2 realms: each realm's emblem is its own shape, none a mark the legend explains."""
    watch_six_realms(page, server)
    found = page.evaluate(READ_SYMBOLS)
    emblems: dict[str, str] = found["emblems"]
    assert len(emblems) == 6 and len(set(emblems.values())) == 6  # one shape a realm
    assert set(found["paths"]) == set(emblems)  # the players panel draws every realm's emblem
    assert len(set(found["paths"].values())) == 6
    # The legend's marks as drawn: every glyph it shows is one board.js declares.
    legend_glyphs = {ch for item in found["legend"] for ch in item if ch in GLYPH_SHAPES}
    declared = {ch for mark in found["marks"].values() for ch in mark["glyph"] if not ch.isspace()}
    assert legend_glyphs == declared, (found["legend"], declared)
    board_shapes = ({GLYPH_SHAPES[ch] for ch in legend_glyphs}
                    | {mark["shape"] for mark in found["marks"].values()}
                    | set(found["terrain"].values()))
    assert {"star", "cross", "circle", "triangle"} <= board_shapes
    clash = {realm: shape for realm, shape in emblems.items() if shape in board_shapes}
    assert not clash, f"emblems look like board marks: {clash}"


def test_a_full_castles_tokens_stand_apart(page: Any, server: str) -> None:
    """R4.5: a castle holds five units; each token (halo, disc, badges) is seen whole."""
    watch_six_realms(page, server)
    units = ["0/crown+", "1/general", "2/catapult+", "0/archer", "1/sword+"]
    drawn = page.evaluate(FULL_CASTLE, units)
    halos = drawn["halos"]
    assert len(halos) == 5
    for i, a in enumerate(halos):
        assert inside(a, drawn["hex"]), (i, a, drawn["hex"])
        assert not overlap(a, drawn["name"]), (i, a, drawn["name"])
        for pip in drawn["pips"]:
            assert not overlap(a, pip), (i, a, pip)
        for j, b in enumerate(halos[i + 1:], i + 1):
            assert not overlap(a, b), (i, j, a, b)
    # Every badge's disc stays within its own token's halo.
    assert len(drawn["badges"]) == 5 + 3
    assert all(any(inside(badge, halo) for halo in halos) for badge in drawn["badges"])



# Words of four letters or more whose characters stand on two lines: broken inside the word.
BROKEN_WORDS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest("svg, script, style, dialog:not([open])")) continue;
    const word = /[\\p{L}\\p{N}]{4,}/gu;
    for (let m = word.exec(node.data); m; m = word.exec(node.data)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
        .map((r) => Math.round(r.top)));
      if (lines.size > 1) out.push(`${el.className}: ${m[0]}`);
    }
  }
  return out;
}"""


def test_german_words_stay_whole_in_the_battle_view(browser: Any, server: str) -> None:
    """A casualty decision in German shows its battle's dice with their units' names
    ("Schwertkämpfer" was cut in two under its die), on a phone and a desktop."""
    for width in (390, 1280):
        for page in checked_page(browser, viewport={"width": width, "height": 844}):
            page.add_init_script("localStorage.setItem('kaladan.lang', 'de')")
            open_scripted(page, server, CASUALTY_SEED, casualty_choice)
            page.wait_for_selector(".die-source")
            assert page.evaluate("document.documentElement.lang") == "de"
            assert page.evaluate(BROKEN_WORDS) == [], width


CHART_TICKS = """async () => {
  const {lineChart} = await import("/static/js/chart.js");
  const url = location.pathname.replace("/watch/", "/api/games/") + "/view";
  const view = await (await fetch(url)).json();
  const obs = view.observation;
  const rounds = [1, 2, 3, null].map((round) => ({round,
    score: obs.players.map((p) => p.seat + 1)}));
  const chart = lineChart(rounds, obs, "score");
  chart.style.width = "320px";
  document.body.append(chart);
  const frame = chart.getBoundingClientRect();
  const out = [...chart.querySelectorAll(".chart-tick")].map((el) => {
    const b = el.getBoundingClientRect();
    return [el.textContent, b.left >= frame.left - 0.5 && b.right <= frame.right + 0.5
      && b.top >= frame.top - 0.5 && b.bottom <= frame.bottom + 0.5];
  });
  chart.remove();
  return out;
}"""


def test_the_charts_labels_are_not_clipped(browser: Any, server: str) -> None:
    """The chart's axis labels, the last round's "Ende" included, lie inside the chart."""
    game_id = create_game(server, ["greedy"] * 2, name="chart labels")["game_id"]
    for page in checked_page(browser, viewport={"width": 1280, "height": 800}):
        page.add_init_script("localStorage.setItem('kaladan.lang', 'de')")
        page.goto(f"{server}/watch/{game_id}")
        page.wait_for_selector("#board .unit")
        ticks = page.evaluate(CHART_TICKS)
        assert ("Ende", True) in [tuple(tick) for tick in ticks]
        assert all(inside for _, inside in ticks), ticks
