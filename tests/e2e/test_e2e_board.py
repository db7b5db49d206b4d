"""Board clarity (issue 15, item 6), measured on the drawn page: every token stands out from
every terrain colour (3:1), texts read at 4.5:1, the "you can act here" mark shows on every
terrain, the owner has a second cue besides colour (each realm's emblem on each token) and
the upgrade mark uses no realm's colour. Colours are read from the rendered SVG and CSS and
from board.js's own tables, so the test measures what is drawn."""

from __future__ import annotations

from typing import Any

from e2e_support import create_game, open_scripted, send_if_asked, version, wait_past
from test_e2e_compose import UPGRADE_SEED, free_upgrade

TERRAINS = ("field", "forest", "mountain", "castle")
TEXT = 4.5  # WCAG AA for text
GRAPHIC = 3.0  # WCAG for graphical objects

# The colours of a drawn token, mark or text, as the browser computes them ("rgb(r, g, b)").
READ_TERRAIN = """(terrains) => Object.fromEntries(terrains.map((t) => [t,
  [...document.querySelectorAll(`#pat-${t} *`)].flatMap((el) => {
    const style = getComputedStyle(el);
    return [style.fill, style.stroke].filter((c) => c.startsWith("rgb"));
  })]))"""


def rgb(css: str) -> tuple[int, int, int]:
    """``rgb(1, 2, 3)`` or ``#rrggbb`` as a triple."""
    assert css.startswith(("rgb", "#")), f"not a colour: {css!r}"
    if css.startswith("#"):
        full = css[1:] if len(css) == 7 else "".join(c * 2 for c in css[1:])
        return int(full[0:2], 16), int(full[2:4], 16), int(full[4:6], 16)
    r, g, b = (int(float(x)) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3])
    return r, g, b


def luminance(css: str) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb(css))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def stands_out(colours: list[str], background: str) -> float:
    """How well a mark drawn in ``colours`` (e.g. a halo and a ring) stands out from one
    background colour: by its part that differs most."""
    return max(contrast(c, background) for c in colours)


def terrain_colours(page: Any) -> dict[str, list[str]]:
    colours: dict[str, list[str]] = page.evaluate(READ_TERRAIN, list(TERRAINS))
    assert all(len(colours[t]) >= 2 for t in TERRAINS), colours  # a base and its marks
    return colours


def styles(page: Any, selector: str, *props: str) -> list[str]:
    """The computed ``props`` of the first element ``selector`` matches, once it is drawn: a
    render can replace the element between finding and reading it, and a detached element
    has no style."""
    found = page.wait_for_function("""([selector, props]) => {
      const el = document.querySelector(selector);
      if (!el || !el.isConnected) return null;
      const style = getComputedStyle(el);
      const values = props.map((p) => style[p]);
      return values.every((v) => v) ? values : null;
    }""", arg=[selector, list(props)])
    values: list[str] = found.json_value()
    return values


def test_tokens_marks_and_texts_stand_out(page: Any, server: str) -> None:
    game_id, _ = open_scripted(page, server, UPGRADE_SEED, free_upgrade)
    terrains = terrain_colours(page)
    # "You can act here": the mark and the tile's outline, on every terrain colour.
    mark_colours = styles(page, "#board .act-mark", "fill", "stroke")
    [outline] = styles(page, "#board .tile.actionable .hex", "stroke")
    for terrain, colours in terrains.items():
        for colour in colours:
            assert stands_out(mark_colours, colour) >= GRAPHIC, (terrain, colour)
        assert contrast(outline, colours[0]) >= GRAPHIC, terrain  # on the tile's base
    before = version(page)
    page.locator("#event-options button.kind-upgrade").first.click()  # R7.9
    send_if_asked(page)  # a free upgrade cannot be taken back: the confirm bar
    wait_past(page, before)
    page.locator("#board .unit.upgraded").first.wait_for()
    # Tokens: a white halo and a dark ring around the realm's disc, on every terrain colour.
    [halo] = styles(page, "#board .unit .unit-halo", "fill")
    [ring] = styles(page, "#board .unit .unit-ring", "fill")
    for terrain, colours in terrains.items():
        for colour in colours:
            assert stands_out([halo, ring], colour) >= GRAPHIC, (terrain, colour)
    # Texts on tokens, for all six realms' colours as board.js draws them (R2: realms).
    realms = page.evaluate("""async () => {
      const board = await import("/static/js/board.js");
      return Object.entries(board.REALM_COLORS).map(
        ([realm, fill]) => [realm, fill, board.inkOn(fill)]);
    }""")
    assert len(realms) == 6
    for realm, fill, ink in realms:
        assert contrast(fill, ink) >= TEXT, realm
    for label in page.locator("#board .unit").all()[:12]:
        disc = label.locator(".unit-disc").evaluate("el => getComputedStyle(el).fill")
        text = label.locator(".unit-label").evaluate("el => getComputedStyle(el).fill")
        assert contrast(disc, text) >= TEXT, (disc, text)
        assert rgb(disc) in {rgb(fill) for _, fill, _ in realms}  # drawn from the table
    name = page.locator("#board .tile-name").first.evaluate(
        "el => [getComputedStyle(el).fill, getComputedStyle(el).stroke]")
    assert contrast(*name) >= TEXT  # a tile's name on its halo
    # The upgrade mark is black and white: no realm's colour (Kimbria is yellow).
    badge = page.locator("#board .unit.upgraded .upgrade-badge circle").first.evaluate(
        "el => [getComputedStyle(el).fill, getComputedStyle(el).stroke]")
    plus = page.locator("#board .unit.upgraded .badge-label").first.evaluate(
        "el => getComputedStyle(el).fill")
    for colour in [*badge, plus]:
        r, g, b = rgb(colour)
        assert r == g == b, colour  # grey: no hue at all
    assert contrast(badge[0], plus) >= TEXT
    assert page.locator("#board .unit.upgraded .unit-disc").first.evaluate(
        "el => getComputedStyle(el).strokeWidth") == "3px"  # the thick white rim
    # The page's own texts (panels, buttons, headings) read at 4.5:1 on their background.
    low = page.evaluate(TEXT_CONTRASTS)
    failing = [(text, fg, bg) for text, fg, bg in low if contrast(fg, bg) < TEXT]
    assert not failing, failing[:10]
    assert len(low) > 50, game_id


# Every visible element with its own text in the game page: (text, colour, the background
# colour of the nearest ancestor that has one).
TEXT_CONTRASTS = """() => {
  const out = [];
  const background = (el) => {
    for (let node = el; node; node = node.parentElement) {
      const bg = getComputedStyle(node).backgroundColor;
      if (bg && bg !== "rgba(0, 0, 0, 0)" && bg !== "transparent") return bg;
    }
    return "rgb(255, 255, 255)";
  };
  for (const el of document.querySelectorAll("#game *:not(svg *), #header *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || Number(style.opacity) === 0) continue;
    out.push([el.textContent.trim().slice(0, 40), style.color, background(el)]);
  }
  return out;
}"""


def test_every_token_carries_its_realms_emblem(page: Any, server: str) -> None:
    """R2 realms, six of them at six seats: the owner shows by colour and by emblem."""
    game_id = create_game(server, ["greedy"] * 6, name="six realms")["game_id"]
    page.goto(f"{server}/watch/{game_id}")
    page.wait_for_selector("#board .unit")
    tokens = page.eval_on_selector_all("#board .unit", """els => els.map((el) => [
      el.dataset.unit.split("/")[0], el.querySelector(".owner-badge .emblem")?.dataset.realm,
      el.querySelector(".owner-badge .emblem")?.getAttribute("d")])""")
    realms = {str(p["seat"]): p["realm"] for p in page.evaluate(
        f"fetch('/api/games/{game_id}/view').then(r => r.json())")["observation"]["players"]}
    assert len(set(realms.values())) == 6
    shapes: dict[str, set[str]] = {}
    for seat, realm, shape in tokens:
        assert realm == realms[seat]  # the owner's emblem on each of its tokens
        shapes.setdefault(realm, set()).add(shape)
    assert all(len(s) == 1 for s in shapes.values())
    assert len({next(iter(s)) for s in shapes.values()}) == len(shapes)  # one shape a realm
    swatches = page.eval_on_selector_all("#players .player .swatch-emblem",
                                         "els => els.map(e => e.dataset.realm)")
    assert sorted(swatches) == sorted(realms.values())  # the players panel is the legend
