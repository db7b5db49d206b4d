"""The optional chime when a decision becomes the seat's (issue 15): off by default, turned
on in the header, kept in localStorage, played with WebAudio (here a stand-in context that
notes every tone started)."""

from __future__ import annotations

from typing import Any

from e2e_support import click_and_wait, create_game, first_or_pass, wait_for_decision

FAKE_AUDIO = """
window.__tones = [];
window.AudioContext = class {
  constructor() { this.state = 'running'; this.currentTime = 0; this.destination = {}; }
  resume() {}
  createGain() {
    return {gain: {setValueAtTime() {}, exponentialRampToValueAtTime() {}},
            connect: (next) => next};
  }
  createOscillator() {
    const tone = {type: '', frequency: {value: 0}, connect: (next) => next, stop() {},
                  start: () => window.__tones.push(tone.frequency.value)};
    return tone;
  }
};
"""


def tones(page: Any) -> list[int]:
    heard: list[int] = page.evaluate("() => window.__tones")
    return heard


def test_the_chime_is_off_until_turned_on_and_then_sounds_on_each_decision(
        page: Any, server: str) -> None:
    page.add_init_script(FAKE_AUDIO)
    created = create_game(server, ["human", "greedy"], seed=12)
    page.goto(server + created["join"][0]["url"])
    page.wait_for_selector("#board .tile")
    assert not page.is_checked("#sound")  # off by default
    for _ in range(3):
        assert wait_for_decision(page)
        click_and_wait(page, first_or_pass(page))
    assert wait_for_decision(page)
    assert tones(page) == []
    page.check("#sound")
    assert page.evaluate("() => localStorage.getItem('kaladan.sound')") == "on"
    click_and_wait(page, first_or_pass(page))
    page.wait_for_function("() => window.__tones.length > 0")
    assert tones(page)[:2] == [660, 880]
    page.reload()
    page.wait_for_selector("#board .tile")
    assert page.is_checked("#sound")  # kept
    page.uncheck("#sound")
    assert page.evaluate("() => localStorage.getItem('kaladan.sound')") == "off"
