"""The short setup asked on a terminal when ``kaladan play`` gets no flags."""

from __future__ import annotations

from dataclasses import dataclass

from ..bots.levels import default_level, level_names
from ..bots.registry import check_config
from ..rules.config import Config, Mode
from ..rules.errors import KaladanError
from . import i18n
from .screen import Screen


@dataclass(frozen=True, slots=True)
class SetupAnswers:
    seats: tuple[str, ...]
    mode: str
    quick: bool
    lang: str


class SetupAborted(Exception):
    """Input ended during the setup questions."""


def _ask(screen: Screen, prompt: str) -> str:
    answer = screen.ask(prompt)
    if answer is None:
        raise SetupAborted
    return answer.strip()


def ask_setup(screen: Screen, lang: str | None) -> SetupAnswers:
    """Language, number of players, mode (4 or 6 players), who plays each seat, quick setup.
    An empty answer takes the default shown in brackets; a wrong one is asked again."""
    while lang is None:
        answer = _ask(screen, "Language / Taal / Sprache (en, nl, de)? [en] ").lower() or "en"
        if answer in i18n.LANGS:
            lang = answer
    while True:
        answer = _ask(screen, i18n.text(lang, "setup_players", default=2)) or "2"
        if answer in ("2", "3", "4", "5", "6"):
            players = int(answer)
            break
        screen.say(i18n.text(lang, "setup_again", reason="2-6"), "yellow")
    mode = "free_for_all"
    team = {4: "team_2v2", 6: "team_3v3"}.get(players)
    while team is not None:
        answer = _ask(screen, i18n.text(lang, "setup_mode", team=team)) or mode
        if answer in (mode, team):
            mode = answer
            break
        screen.say(i18n.text(lang, "setup_again", reason=f"free_for_all / {team}"), "yellow")
    seats: list[str] = []
    config = Config(players=players, mode=Mode(mode))  # what a bot must be able to play
    for seat in range(players):
        default = "human" if seat == 0 else default_level().name
        while True:
            answer = _ask(screen, i18n.text(lang, "setup_seat", n=seat + 1, default=default,
                                            levels=", ".join(level_names())))
            spec = answer or default
            if spec == "human":
                break
            try:
                check_config(spec, config)  # an unknown bot, or one that cannot play here
                break
            except KaladanError as exc:
                screen.say(i18n.text(lang, "setup_again", reason=exc), "yellow")
        seats.append(spec)
    quick = _ask(screen, i18n.text(lang, "setup_quick")).lower() not in ("n", "no", "nee", "nein")
    return SetupAnswers(tuple(seats), mode, quick, lang)
