"""The terminal game's words in English, Dutch and German.

Game terms (units, terrain, phases, realms, cards) come from the rules data: the glossary of
RULES.md section 1 and the card texts. Only the interface's own sentences live here.
"""

from __future__ import annotations

from typing import Final

from ..rules.catalog import (
    END_GAME_CARD_BY_ID,
    EVENT_CARD_BY_ID,
    GLOSSARY,
    MAGIC_CARD_BY_ID,
    REALM_BY_ID,
)
from ..rules.events import END_GAME_CARD_OF_OPTION
from ..rules.units import REALMS, UnitType

LANGS: Final = ("en", "nl", "de")

# Two-letter unit marks on the map; German needs its own so Sword and Shield differ.
_UNIT_ABBREV: Final[dict[str, tuple[str, ...]]] = {
    # crown, general, catapult, archer, shield, sword, special
    "en": ("Cr", "Ge", "Ca", "Ar", "Sh", "Sw", "Sp"),
    "nl": ("Kr", "Ge", "Ka", "Bo", "Sc", "Zw", "Sp"),
    "de": ("Kr", "Ge", "Ka", "Bo", "Sd", "Sw", "Sp"),
}

_UNIT_KEYS: Final = ("crown", "general", "catapult", "archer", "shield", "sword", "special_unit")
_PHASE_KEYS: Final = {
    "event": "event_phase", "spawn": "free_spawn_phase", "income": "income_phase",
    "action": "action_phase", "purchase": "purchase_phase", "reinforce": "reinforcement_phase",
}
_TERRAIN_KEYS: Final = ("field", "forest", "mountain", "castle")

_DECISIONS: Final[dict[str, tuple[str, str, str]]] = {
    "realm": ("choose a realm", "kies een rijk", "wähle ein Reich"),
    "start_card": ("choose a starting card", "kies een startkaart", "wähle eine Startkarte"),
    "castle": ("choose a castle spot", "kies een kasteelplek", "wähle einen Burgplatz"),
    "start_unit": ("choose a starting unit", "kies een starteenheid",
                   "wähle eine Starteinheit"),
    "event": ("resolve the event card", "voer de gebeurteniskaart uit",
              "handle die Ereigniskarte ab"),
    "spawn": ("free spawn", "gratis rekrutering", "freie Rekrutierung"),
    "action": ("move, swap, attack or pass", "verplaats, wissel, val aan of pas",
               "bewege, tausche, greife an oder passe"),
    "magic": ("declare a magic card or none", "kondig een magiekaart aan of geen",
              "sage eine Magiekarte an oder keine"),
    "casualty": ("choose a unit that dies", "kies een eenheid die sneuvelt",
                 "wähle eine Einheit, die fällt"),
    "invasion": ("choose a unit that stays behind", "kies een eenheid die achterblijft",
                 "wähle eine Einheit, die zurückbleibt"),
    "purchase": ("buy, upgrade or end", "koop, waardeer op of stop",
                 "kaufe, werte auf oder beende"),
    "reinforce": ("reinforce: move or pass", "versterk: verplaats of pas",
                  "verstärke: bewege oder passe"),
    "card": ("choose for your magic card", "kies voor je magiekaart",
             "wähle für deine Magiekarte"),
    "split": ("share the hits among allies", "verdeel de treffers onder bondgenoten",
              "verteile die Treffer unter Verbündeten"),
    "none": ("-", "-", "-"),
}

_TEXTS: Final[dict[str, tuple[str, str, str]]] = {
    # key: (en, nl, de)
    "title": ("Generals of Kaladan", "Generals of Kaladan", "Generals of Kaladan"),
    "setup_phase": ("Setup", "Opzet", "Aufbau"),
    "over_phase": ("Game over", "Einde van het spel", "Spielende"),
    "turn": ("Turn {n}", "Beurt {n}", "Zug {n}"),
    "final_round": ("final round", "laatste ronde", "letzte Runde"),
    "to_decide": ("{who} decides: {kind}", "{who} beslist: {kind}",
                  "{who} entscheidet: {kind}"),
    "human": ("human", "mens", "Mensch"),
    "you": ("you", "jij", "du"),
    "map": ("Map", "Kaart", "Karte"),
    "free": ("free {n}", "vrij {n}", "frei {n}"),
    "players": ("Players", "Spelers", "Spieler"),
    "col_player": ("Player", "Speler", "Spieler"),
    "col_realm": ("Realm", "Rijk", "Reich"),
    "col_who": ("Played by", "Gespeeld door", "Gespielt von"),
    "col_gold": ("Gold", "Goud", "Gold"),
    "col_hand": ("Cards", "Kaarten", "Karten"),
    "first": ("first", "eerste", "erster"),
    "team": ("team {n}", "team {n}", "Team {n}"),
    "out": ("out", "uit", "raus"),
    "none": ("none", "geen", "keine"),
    "hand_of": ("Hand of {who}", "Hand van {who}", "Hand von {who}"),
    "offered": ("Cards your options name:", "Kaarten in je mogelijkheden:",
                "Karten in deinen Möglichkeiten:"),
    "no_cards": ("no cards in hand", "geen kaarten in de hand", "keine Karten auf der Hand"),
    "condition": ("Condition", "Voorwaarde", "Bedingung"),
    "effect": ("Effect", "Effect", "Wirkung"),
    "event_drawn": ("Event card just drawn", "Net getrokken gebeurteniskaart",
                    "Soeben gezogene Ereigniskarte"),
    "no_event": ("no event card drawn yet", "nog geen gebeurteniskaart getrokken",
                 "noch keine Ereigniskarte gezogen"),
    "log": ("Log", "Logboek", "Protokoll"),
    "log_empty": ("nothing happened yet", "nog niets gebeurd", "noch nichts geschehen"),
    "actions": ("Your options", "Je mogelijkheden", "Deine Möglichkeiten"),
    "matching_tty": ("Options matching {text!r}", "Mogelijkheden met {text!r}",
                     "Möglichkeiten mit {text!r}"),
    "at_tiles": ("Options on {tiles}", "Mogelijkheden op {tiles}", "Möglichkeiten auf {tiles}"),
    "no_match": ("No option matches {text!r}.", "Geen mogelijkheid past bij {text!r}.",
                 "Keine Möglichkeit passt zu {text!r}."),
    "page": ("{k}/{n}: + or PgDn for more, - or PgUp back",
             "{k}/{n}: + of PgDn voor meer, - of PgUp terug",
             "{k}/{n}: + oder Bild↓ für mehr, - oder Bild↑ zurück"),
    "back_hint": ("Enter: back to your options", "Enter: terug naar je mogelijkheden",
                  "Enter: zurück zu deinen Möglichkeiten"),
    "options_hint": ("Type a number, an action in the notation ('{example}') or a command "
                     "('help', 'costs', 'odds')",
                     "Typ een nummer, een actie in de notatie ('{example}') of een commando "
                     "('help', 'costs', 'odds')",
                     "Tippe eine Nummer, eine Aktion in der Notation ('{example}') oder einen "
                     "Befehl ('help', 'costs', 'odds')"),
    "last_battle": ("Last battle", "Laatste gevecht", "Letzter Kampf"),
    "no_battle": ("There has been no battle yet.", "Er is nog geen gevecht geweest.",
                  "Es gab noch keinen Kampf."),
    "none_here": ("Nothing to do on {tiles} now.", "Nu niets te doen op {tiles}.",
                  "Auf {tiles} ist jetzt nichts zu tun."),
    "hand_more": ("(more: type 'hand')", "(meer: typ 'hand')", "(mehr: tippe 'hand')"),
    "battle_more": ("… (all of it: type 'battle')", "… (alles: typ 'battle')",
                    "… (alles: tippe 'battle')"),
    "hand_title": ("Your hand", "Je hand", "Deine Hand"),
    "help_title": ("Help", "Hulp", "Hilfe"),
    "odds_head": ("Odds", "Kansen", "Chancen"),
    "costs_title": ("Prices (rule R11.2)", "Prijzen (regel R11.2)", "Preise (Regel R11.2)"),
    "costs_head": ("{who} has {gold} gold. Units from the reserve, placed at once (R11.3):",
                   "{who} heeft {gold} goud. Eenheden uit de reserve, meteen geplaatst "
                   "(R11.3):",
                   "{who} hat {gold} Gold. Einheiten aus der Reserve, sofort aufgestellt "
                   "(R11.3):"),
    "costs_cols": ("unit|buy|upgrade|in reserve", "eenheid|kopen|opwaarderen|in reserve",
                   "Einheit|kaufen|aufwerten|in Reserve"),
    "costs_never": ("never", "nooit", "nie"),
    "costs_general": ("only after an event returned it (R11.7)",
                      "alleen nadat een gebeurtenis hem teruggaf (R11.7)",
                      "nur nachdem ein Ereignis ihn zurückgab (R11.7)"),
    "costs_other": ("Upgrade a castle tile you control: {castle} · swap a magic card with your "
                    "realm pool: {swap} · an extra card from the pool: {extra} · a card of a "
                    "player you eliminated: {eliminated}",
                    "Een kasteeltegel opwaarderen: {castle} · een magiekaart ruilen met de "
                    "rijkstapel: {swap} · een extra kaart uit de stapel: {extra} · een kaart "
                    "van een speler die je uitschakelde: {eliminated}",
                    "Ein Burgplättchen aufwerten: {castle} · eine Magiekarte mit dem "
                    "Reichsstapel tauschen: {swap} · eine Zusatzkarte aus dem Stapel: {extra} "
                    "· eine Karte eines Spielers, den du ausgeschaltet hast: {eliminated}"),
    "costs_when": ("Bought in your Purchase phase only (R11.1); the prices are in your options "
                   "there.",
                   "Alleen te kopen in je aankoopfase (R11.1); daar staan de prijzen bij je "
                   "mogelijkheden.",
                   "Nur in deiner Kaufphase zu kaufen (R11.1); dort stehen die Preise bei deinen "
                   "Möglichkeiten."),
    "log_title": ("Log", "Logboek", "Protokoll"),
    "you_are": ("{who}, your turn", "{who}, jij bent aan de beurt", "{who}, du bist dran"),
    "prompt": ("{who}: number, action or command (help) > ",
               "{who}: nummer, actie of commando (help) > ",
               "{who}: Nummer, Aktion oder Befehl (help) > "),
    "handover": ("Pass the keyboard to {who} and press Enter",
                 "Geef het toetsenbord aan {who} en druk op Enter",
                 "Gib die Tastatur an {who} weiter und drücke Enter"),
    "bad_number": ("There is no option {n}: choose a number from 1 to {max}.",
                   "Er is geen optie {n}: kies een nummer van 1 tot {max}.",
                   "Es gibt keine Option {n}: wähle eine Zahl von 1 bis {max}."),
    "illegal": ("Not allowed now: {reason} (rule {rule}). Nothing changed.",
                "Nu niet toegestaan: {reason} (regel {rule}). Er is niets veranderd.",
                "Jetzt nicht erlaubt: {reason} (Regel {rule}). Nichts wurde geändert."),
    "not_understood": ("Not understood: {text!r} ({reason}). Type a number from the list, an "
                       "action such as '{example}', or 'help'. Nothing changed.",
                       "Niet begrepen: {text!r} ({reason}). Typ een nummer uit de lijst, een "
                       "actie zoals '{example}', of 'help'. Er is niets veranderd.",
                       "Nicht verstanden: {text!r} ({reason}). Tippe eine Nummer aus der "
                       "Liste, eine Aktion wie '{example}' oder 'help'. Nichts wurde "
                       "geändert."),
    "matching": ("Options matching {text!r}:", "Mogelijkheden met {text!r}:",
                 "Möglichkeiten mit {text!r}:"),
    "empty_input": ("Type a number from the list, an action, or 'help'.",
                    "Typ een nummer uit de lijst, een actie, of 'help'.",
                    "Tippe eine Nummer aus der Liste, eine Aktion oder 'help'."),
    "confirm_attack": ("{action}: you win {p} - confirm? [y/n] ",
                       "{action}: je wint met {p} kans - bevestigen? [j/n] ",
                       "{action}: du gewinnst mit {p} - bestätigen? [j/n] "),
    "cancelled": ("Cancelled. Nothing changed.", "Geannuleerd. Er is niets veranderd.",
                  "Abgebrochen. Nichts wurde geändert."),
    "odds_title": ("Exact odds of every attack you can declare now:",
                   "Exacte kansen van elke aanval die je nu kunt aankondigen:",
                   "Genaue Chancen jedes Angriffs, den du jetzt ansagen kannst:"),
    "odds_line": ("{action}: you win {p}; expected losses: you {la}, defender {ld}",
                  "{action}: je wint {p}; verwachte verliezen: jij {la}, verdediger {ld}",
                  "{action}: du gewinnst {p}; erwartete Verluste: du {la}, Verteidiger {ld}"),
    "odds_none": ("You cannot declare an attack now.", "Je kunt nu geen aanval aankondigen.",
                  "Du kannst jetzt keinen Angriff ansagen."),
    "odds_unknown": ("{action}: odds not available ({reason})",
                     "{action}: kansen niet beschikbaar ({reason})",
                     "{action}: Chancen nicht verfügbar ({reason})"),
    "saved": ("Game saved to {path}.", "Spel opgeslagen in {path}.",
              "Spiel gespeichert in {path}."),
    "save_failed": ("Could not save to {path}: {reason}", "Opslaan in {path} mislukt: {reason}",
                    "Speichern in {path} fehlgeschlagen: {reason}"),
    "save_usage": ("Usage: save FILE", "Gebruik: save BESTAND", "Verwendung: save DATEI"),
    "eof_saved": ("Input ended: game saved to {path}. Resume with: kaladan play --load {path}",
                  "Invoer beëindigd: spel opgeslagen in {path}. Verder spelen met: kaladan "
                  "play --load {path}",
                  "Eingabe beendet: Spiel gespeichert in {path}. Weiterspielen mit: kaladan "
                  "play --load {path}"),
    "quit_saved": ("Game saved to {path}. Resume with: kaladan play --load {path}",
                   "Spel opgeslagen in {path}. Verder spelen met: kaladan play --load {path}",
                   "Spiel gespeichert in {path}. Weiterspielen mit: kaladan play --load {path}"),
    "end_saved": ("The game is saved in {path}; watch it again with: kaladan replay {path}",
                  "Het spel is opgeslagen in {path}; bekijk het opnieuw met: kaladan replay "
                  "{path}",
                  "Das Spiel ist in {path} gespeichert; noch einmal ansehen mit: kaladan "
                  "replay {path}"),
    "loaded": ("Game loaded from {path} ({n} decisions so far).",
               "Spel geladen uit {path} ({n} beslissingen tot nu toe).",
               "Spiel geladen aus {path} ({n} Entscheidungen bisher)."),
    "game_over": ("Game over ({end}).", "Het spel is voorbij ({end}).",
                  "Das Spiel ist vorbei ({end})."),
    "winner": ("Winner: {who}.", "Winnaar: {who}.", "Gewinner: {who}."),
    "winning_team": ("Winning team: {team} ({who}).", "Winnend team: {team} ({who}).",
                     "Siegerteam: {team} ({who})."),
    "draw": ("A draw: nobody wins.", "Gelijkspel: niemand wint.",
             "Unentschieden: niemand gewinnt."),
    "scores": ("Scores: {scores}", "Punten: {scores}", "Punkte: {scores}"),
    "end_last_crown": ("last Crown standing", "laatste Kroon overeind",
                       "letzte Krone steht"),
    "end_final_round": ("after the final round", "na de laatste ronde", "nach der letzten Runde"),
    "end_draw": ("no Crown left", "geen Kroon meer over", "keine Krone mehr übrig"),
    "battle": ("Battle", "Gevecht", "Kampf"),
    "battle_head": ("{attacker} attacks {d} from {a} ({defender} defends)",
                    "{attacker} valt {d} aan vanaf {a} ({defender} verdedigt)",
                    "{attacker} greift {d} von {a} aus an ({defender} verteidigt)"),
    "attack_pool": ("Attack dice", "Aanvalsdobbelstenen", "Angriffswürfel"),
    "defence_pool": ("Defence dice", "Verdedigingsdobbelstenen", "Verteidigungswürfel"),
    "pairs": ("Pairs (highest against highest)", "Paren (hoogste tegen hoogste)",
              "Paare (höchster gegen höchsten)"),
    "pair_attacker": ("defender loses one", "verdediger verliest er een",
                      "Verteidiger verliert einen"),
    "pair_defender": ("attacker loses one", "aanvaller verliest er een",
                      "Angreifer verliert einen"),
    "pair_tie": ("tie, no hit", "gelijk, geen treffer", "Gleichstand, kein Treffer"),
    "pair_tie_scales": ("tie: defender's hit (Scales)", "gelijk: treffer voor de verdediger",
                        "Gleichstand: Treffer für den Verteidiger"),
    "dropped": ("lowest dropped (mountain)", "laagste vervalt (berg)",
                "niedrigster entfällt (Gebirge)"),
    "hits": ("Hits: attacker loses {a}, defender loses {d}",
             "Treffers: aanvaller verliest {a}, verdediger verliest {d}",
             "Treffer: Angreifer verliert {a}, Verteidiger verliert {d}"),
    "attackers": ("Attackers", "Aanvallers", "Angreifer"),
    "defenders": ("Defenders", "Verdedigers", "Verteidiger"),
    "cards": ("Magic cards", "Magiekaarten", "Magiekarten"),
    "no_card": ("no card", "geen kaart", "keine Karte"),
    "face_down": ("a magic card (face down)", "een magiekaart (gedekt)",
                  "eine Magiekarte (verdeckt)"),
    "card_down": ("{card} (face down)", "{card} (gedekt)", "{card} (verdeckt)"),
    "card_shown": ("{card} (revealed)", "{card} (onthuld)", "{card} (aufgedeckt)"),
    "card_spent": ("{card} (played)", "{card} (gespeeld)", "{card} (gespielt)"),
    "card_back": ("{card} (back to the hand, {rule})", "{card} (terug naar de hand, {rule})",
                  "{card} (zurück auf die Hand, {rule})"),
    "killed": ("Killed", "Gesneuveld", "Gefallen"),
    "killed_by_card": ("{unit} (by {card})", "{unit} (door {card})", "{unit} (durch {card})"),
    "saved_by": ("Saved by {card}: {units}", "Gered door {card}: {units}",
              "Gerettet durch {card}: {units}"),
    "fallen": ("Where they go", "Waar ze heen gaan", "Wohin sie kommen"),
    "to_graveyard": ("graveyard of {who} (scalps)", "kerkhof van {who} (scalpen)",
                     "Friedhof von {who} (Skalpe)"),
    "to_reserve": ("reserve of {who}", "reserve van {who}", "Reserve von {who}"),
    "to_trophies": ("trophies of {who}", "trofeeën van {who}", "Trophäen von {who}"),
    "to_removed": ("out of the game", "uit het spel", "aus dem Spiel"),
    "battle_won": ("{who} takes {tile}.", "{who} verovert {tile}.", "{who} erobert {tile}."),
    "battle_attacker_won": ("{who} wins the battle for {tile}.",
                            "{who} wint het gevecht om {tile}.",
                            "{who} gewinnt den Kampf um {tile}."),
    "battle_emptied": ("{tile} is left empty.", "{tile} blijft leeg achter.",
                       "{tile} bleibt leer zurück."),
    "battle_held": ("{who} holds {tile}.", "{who} houdt {tile}.", "{who} hält {tile}."),
    "battle_stopped": ("The battle for {tile} is stopped: no dice, nothing moves.",
                       "Het gevecht om {tile} is gestopt: geen dobbelstenen, niets beweegt.",
                       "Der Kampf um {tile} ist abgebrochen: keine Würfel, nichts bewegt "
                       "sich."),
    "invasion": ("Invasion of {tile}: {units}", "Invasie van {tile}: {units}",
                 "Einmarsch in {tile}: {units}"),
    "left_behind": ("staying on {tile}: {units}", "blijven op {tile}: {units}",
                    "bleiben auf {tile}: {units}"),
    "upgrades_lost": ("Upgrades lost by the losing side on {tile}",
                      "Opwaardering kwijt voor de verliezende zijde op {tile}",
                      "Aufwertung verloren für die unterlegene Seite auf {tile}"),
    "legend": ("Units: {units}; + upgraded; free = room left on the tile",
               "Eenheden: {units}; + opgewaardeerd; vrij = plek op de tegel",
               "Einheiten: {units}; + aufgewertet; frei = Platz auf dem Plättchen"),
    "loading_bot": ("{who} is thinking...", "{who} denkt na...", "{who} denkt nach..."),
    "replay_prompt": ("step {k}/{n} - n next, p previous, number jumps, q quits > ",
                      "stap {k}/{n} - n volgende, p vorige, nummer springt, q stopt > ",
                      "Schritt {k}/{n} - n weiter, p zurück, Zahl springt, q beendet > "),
    "replay_start": ("start of the game", "begin van het spel", "Spielbeginn"),
    "replay_step": ("step {k}: {who}: {action}", "stap {k}: {who}: {action}",
                    "Schritt {k}: {who}: {action}"),
    "replay_bad": ("Use n, p, a step number from 0 to {n}, or q.",
                   "Gebruik n, p, een stapnummer van 0 tot {n}, of q.",
                   "Verwende n, p, eine Schrittnummer von 0 bis {n} oder q."),
    "help": (
        "Type the number of an option, or its notation (e.g. 'move T1 T2 sword'). "
        "Typing the start of an action (e.g. 'attack' or 'move T2') or a word of its text "
        "(e.g. 'sword') lists the matching options; Enter shows them all again. On a "
        "colour terminal a click on a tile lists what you can do there, a click on an "
        "option plays it.\n"
        "Commands:\n"
        "  help        this text\n"
        "  odds        exact odds of every attack you could declare now\n"
        "  costs       what units, upgrades and cards cost, and your reserve (rule R11.2)\n"
        "  hand        your magic cards with their whole texts\n"
        "  battle      the last battle, whole\n"
        "  log         the whole game log, as far as you may see it\n"
        "  + / -       the next / previous page of a long list (also PgDn / PgUp)\n"
        "  map         the screen as it was: every option, no list or text on top\n"
        "  save FILE   save the game (a bare name goes to the saves folder; resume with:\n"
        "              kaladan play --load FILE)\n"
        "  give P3 2   in a team game: give 2 of your gold to your ally P3 (rule R23.11)\n"
        "  give P1 P3 2\n"
        "              another player at the table, P1, gives 2 gold to P3, even when P1 is\n"
        "              not deciding; players are named as in the log (P1 is seat 0)\n"
        "  quit        save to the autosave file and stop\n"
        "Map: {legend}",
        "Typ het nummer van een optie, of de notatie (bv. 'move T1 T2 sword'). "
        "Het begin van een actie (bv. 'attack' of 'move T2') of een woord uit de tekst "
        "(bv. 'zwaard') toont de passende opties; Enter toont ze weer allemaal. Op een "
        "kleurenterminal toont een klik op een tegel wat je daar kunt doen, een klik op een "
        "optie speelt die.\n"
        "Commando's:\n"
        "  help        deze tekst\n"
        "  odds        exacte kansen van elke aanval die je nu kunt aankondigen\n"
        "  costs       wat eenheden, opwaarderingen en kaarten kosten, en je reserve (R11.2)\n"
        "  hand        je magiekaarten met hun hele tekst\n"
        "  battle      het laatste gevecht, helemaal\n"
        "  log         het hele logboek van het spel, voor zover je het mag zien\n"
        "  + / -       de volgende / vorige bladzijde van een lange lijst (ook PgDn / PgUp)\n"
        "  map         het scherm zoals het was: alle opties, geen lijst of tekst erover\n"
        "  save FILE   sla het spel op (een kale naam gaat naar de map met opslagen; verder\n"
        "              met: kaladan play --load FILE)\n"
        "  give P3 2   in een teamspel: geef 2 van je goud aan je bondgenoot P3 (regel R23.11)\n"
        "  give P1 P3 2\n"
        "              een andere speler aan tafel, P1, geeft 2 goud aan P3, ook als P1 niet\n"
        "              beslist; spelers heten zoals in het logboek (P1 is plaats 0); ook: geef\n"
        "  quit        sla op in het autosave-bestand en stop\n"
        "Kaart: {legend}",
        "Tippe die Nummer einer Option oder ihre Notation (z. B. 'move T1 T2 sword'). "
        "Der Anfang einer Aktion (z. B. 'attack' oder 'move T2') oder ein Wort ihres Textes "
        "(z. B. 'schwert') zeigt die passenden Optionen; Enter zeigt wieder alle. Auf einem "
        "Farbterminal zeigt ein Klick auf ein Plättchen, was du dort tun kannst, ein Klick "
        "auf eine Option spielt sie.\n"
        "Befehle:\n"
        "  help        dieser Text\n"
        "  odds        genaue Chancen jedes Angriffs, den du jetzt ansagen kannst\n"
        "  costs       was Einheiten, Aufwertungen und Karten kosten, und deine Reserve (R11.2)\n"
        "  hand        deine Magiekarten mit ihrem ganzen Text\n"
        "  battle      der letzte Kampf, vollständig\n"
        "  log         das ganze Spielprotokoll, soweit du es sehen darfst\n"
        "  + / -       die nächste / vorige Seite einer langen Liste (auch Bild↓ / Bild↑)\n"
        "  map         der Bildschirm wie zuvor: alle Optionen, keine Liste oder Text darüber\n"
        "  save FILE   Spiel speichern (ein bloßer Name kommt in den Ordner der Spielstände;\n"
        "              weiter mit: kaladan play --load FILE)\n"
        "  give P3 2   im Teamspiel: gib deinem Verbündeten P3 2 von deinem Gold (Regel R23.11)\n"
        "  give P1 P3 2\n"
        "              ein anderer Spieler am Tisch, P1, gibt P3 2 Gold, auch wenn P1 nicht\n"
        "              entscheidet; Spieler heißen wie im Protokoll (P1 ist Platz 0); auch: gib\n"
        "  quit        in die Autosave-Datei speichern und aufhören\n"
        "Karte: {legend}",
    ),
    "setup_players": ("How many players (2-6)? [{default}] ", "Hoeveel spelers (2-6)? [{default}] ",
                      "Wie viele Spieler (2-6)? [{default}] "),
    "setup_mode": ("Mode: free_for_all or {team}? [free_for_all] ",
                   "Modus: free_for_all of {team}? [free_for_all] ",
                   "Modus: free_for_all oder {team}? [free_for_all] "),
    "setup_seat": ("P{n}: human, random, greedy or mcts:time=1? [{default}] ",
                   "P{n}: human, random, greedy of mcts:time=1? [{default}] ",
                   "P{n}: human, random, greedy oder mcts:time=1? [{default}] "),
    "setup_quick": ("Quick setup (realms, cards and castles dealt at random)? [Y/n] ",
                    "Snelle opzet (rijken, kaarten en kastelen willekeurig)? [J/n] ",
                    "Schneller Aufbau (Reiche, Karten und Burgen zufällig)? [J/n] "),
    "setup_again": ("Please answer again: {reason}", "Antwoord opnieuw: {reason}",
                    "Bitte noch einmal: {reason}"),
    "give_line": ("Give gold to an ally (rule R23.11): {options}",
                  "Goud geven aan een bondgenoot (regel R23.11): {options}",
                  "Gold an einen Verbündeten geben (Regel R23.11): {options}"),
    "give_others": ("another player at the table: {options}",
                    "een andere speler aan tafel: {options}",
                    "ein anderer Spieler am Tisch: {options}"),
    "give_usage": ("Usage: give ALLY AMOUNT (e.g. 'give P3 2'), or give GIVER ALLY AMOUNT for "
                   "another player at the table (e.g. 'give P1 P3 2'); players are named as "
                   "in the log, P1 is seat 0. Nothing changed.",
                   "Gebruik: give BONDGENOOT BEDRAG (bv. 'give P3 2'), of give GEVER "
                   "BONDGENOOT BEDRAG voor een andere speler aan tafel (bv. 'give P1 P3 2'); "
                   "spelers heten zoals in het logboek, P1 is plaats 0. Er is niets veranderd.",
                   "Verwendung: give VERBÜNDETER BETRAG (z. B. 'give P3 2') oder give GEBER "
                   "VERBÜNDETER BETRAG für einen anderen Spieler am Tisch (z. B. 'give P1 P3 "
                   "2'); Spieler heißen wie im Protokoll, P1 ist Platz 0. Nichts wurde "
                   "geändert."),
    "give_no_team": ("Gold is given only to an ally, in a team game; this game is free-for-all "
                     "(rule R23.11). Nothing changed.",
                     "Goud geef je alleen aan een bondgenoot, in een teamspel; dit spel is "
                     "ieder voor zich (regel R23.11). Er is niets veranderd.",
                     "Gold gibt man nur einem Verbündeten, im Teamspiel; dieses Spiel ist "
                     "jeder gegen jeden (Regel R23.11). Nichts wurde geändert."),
    "give_no_seat": ("There is no player {player} in this game: the players are P1 to P{n} "
                     "(rule R23.11). Nothing changed.",
                     "Er is geen speler {player} in dit spel: de spelers zijn P1 tot P{n} "
                     "(regel R23.11). Er is niets veranderd.",
                     "Es gibt keinen Spieler {player} in diesem Spiel: die Spieler sind P1 "
                     "bis P{n} (Regel R23.11). Nichts wurde geändert."),
    "give_bot": ("{who} is played by a bot ({bot}): a bot gives gold in its own decisions, "
                 "not through 'give' (rule R23.11). Nothing changed.",
                 "{who} wordt door een bot gespeeld ({bot}): een bot geeft goud in zijn eigen "
                 "beslissingen, niet met 'give' (regel R23.11). Er is niets veranderd.",
                 "{who} wird von einem Bot gespielt ({bot}): ein Bot gibt Gold in seinen "
                 "eigenen Entscheidungen, nicht mit 'give' (Regel R23.11). Nichts wurde "
                 "geändert."),
    "give_can": ("{who} can give now: {options}", "{who} kan nu geven: {options}",
                 "{who} kann jetzt geben: {options}"),
    "give_nothing": ("{who} has no gold to give now.", "{who} heeft nu geen goud om te geven.",
                     "{who} hat jetzt kein Gold zu geben."),
    "end_game_card_is": ("the end-game card is {card}", "de eindspelkaart is {card}",
                         "die Endspielkarte ist {card}"),
    "rules_line": ("Rules options (R3.3): {options}", "Regelopties (R3.3): {options}",
                   "Regeloptionen (R3.3): {options}"),
}

# R3.3: what a ruleset option's value other than the default means, for the rules line.
_OPTION_VALUES: Final[dict[str, tuple[str, str, str]]] = {
    "turn_order_die=d10": ("the turn order is rolled with a D10",
                           "de beurtvolgorde wordt met een W10 gegooid",
                           "die Zugreihenfolge wird mit einem W10 ausgewürfelt"),
    "phase_order=official": ("Income before Free Spawn", "Inkomsten voor de gratis rekrutering",
                             "Einkommen vor der freien Rekrutierung"),
    "starting_magic=random": ("the starting magic card is drawn at random",
                              "de start-magiekaart wordt willekeurig getrokken",
                              "die Start-Magiekarte wird zufällig gezogen"),
    "realm_conflict=roll_off": ("a realm wanted by several players is rolled for",
                                "om een rijk dat meerdere spelers willen wordt gedobbeld",
                                "um ein Reich, das mehrere Spieler wollen, wird gewürfelt"),
    "mountain_defence=drop_lowest": ("on a Mountain the defenders drop their lowest die",
                                     "op een berg laten de verdedigers hun laagste "
                                     "dobbelsteen vallen",
                                     "im Gebirge streichen die Verteidiger ihren niedrigsten "
                                     "Würfel"),
    "crown_defence_in_castle=d8": ("a Crown defending on a castle rolls a D8",
                                   "een Kroon die op een kasteel verdedigt gooit een W8",
                                   "eine Krone, die auf einer Burg verteidigt, würfelt einen "
                                   "W8"),
    "wolf_d12=attack_from_forest": ("the Wolf rolls its D12 only attacking from a Forest",
                                    "de Wolf gooit zijn W12 alleen bij een aanval vanuit een "
                                    "bos",
                                    "der Wolf würfelt seinen W12 nur beim Angriff aus einem "
                                    "Wald"),
    "world=random_terrain": ("the terrain is dealt at random", "het terrein is willekeurig",
                             "das Gelände ist zufällig verteilt"),
    "world=custom": ("a world from a layout file", "een wereld uit een layoutbestand",
                     "eine Welt aus einer Layout-Datei"),
    "end_game_card=none": ("no end-game card: the last event card starts the final round",
                           "geen eindspelkaart: de laatste gebeurteniskaart begint de laatste "
                           "ronde",
                           "keine Endspielkarte: die letzte Ereigniskarte beginnt die letzte "
                           "Runde"),
    "team_castle_spots=alternating": ("allied castles alternate around the world",
                                      "kastelen van bondgenoten wisselen elkaar af",
                                      "verbündete Burgen wechseln sich ab"),
    "upgrade_loss=losing_side": ("the losing side's surviving units lose their upgrades too",
                                 "ook de overlevende eenheden van de verliezende zijde "
                                 "verliezen hun opwaardering",
                                 "auch die überlebenden Einheiten der unterlegenen Seite "
                                 "verlieren ihre Aufwertung"),
    "end_game_trigger=deck_end": ("the end-game card changes the rules; the final round "
                                  "starts when the deck runs out",
                                  "de eindspelkaart verandert de regels; de laatste ronde "
                                  "begint als de stapel op is",
                                  "die Endspielkarte ändert die Regeln; die letzte Runde "
                                  "beginnt, wenn der Stapel aufgebraucht ist"),
}


def text(lang: str, key: str, **values: object) -> str:
    """The interface sentence ``key`` in ``lang``, with ``values`` filled in."""
    en, nl, de = _TEXTS[key]
    template = {"en": en, "nl": nl, "de": de}.get(lang, en)
    return template.format(**values) if values else template


def option_value(lang: str, name: str, value: str) -> str:
    """What ``name=value`` (a ruleset option of R3.3, not its default) means, in words."""
    card = END_GAME_CARD_OF_OPTION.get(value) if name == "end_game_card" else None
    if card is not None:
        return text(lang, "end_game_card_is", card=card_name(lang, card))
    en, nl, de = _OPTION_VALUES.get(f"{name}={value}", (value, value, value))
    return {"en": en, "nl": nl, "de": de}.get(lang, en)


def decision_name(lang: str, kind: str) -> str:
    """What a pending decision asks (``Decision.label``), in words."""
    en, nl, de = _DECISIONS.get(kind, (kind, kind, kind))
    return {"en": en, "nl": nl, "de": de}.get(lang, en)


def glossary(lang: str, key: str) -> str:
    """A term of RULES.md section 1 in ``lang``, capitalised for a heading."""
    word = GLOSSARY[key].get(lang)
    return word[:1].upper() + word[1:]


def unit_name(lang: str, utype: int) -> str:
    return GLOSSARY[_UNIT_KEYS[utype]].get(lang)


def unit_abbrev(lang: str, utype: int) -> str:
    return _UNIT_ABBREV.get(lang, _UNIT_ABBREV["en"])[utype]


def unit_legend(lang: str) -> str:
    return ", ".join(f"{unit_abbrev(lang, t)} {unit_name(lang, t)}" for t in UnitType)


def terrain_name(lang: str, terrain: int) -> str:
    return GLOSSARY[_TERRAIN_KEYS[terrain]].get(lang)


def phase_name(lang: str, phase: str) -> str:
    """A phase of section 6 by its engine label (``action``), or setup / game over."""
    if phase in _PHASE_KEYS:
        return GLOSSARY[_PHASE_KEYS[phase]].get(lang)
    return text(lang, "setup_phase" if phase == "setup" else "over_phase")


def realm_name(lang: str, realm: int) -> str:
    if realm < 0:
        return "?"
    return REALM_BY_ID[REALMS[realm]].name.get(lang)


def card_name(lang: str, card: str) -> str:
    """The name of a magic, event or end-game card by id; the id itself if unknown."""
    for table in (MAGIC_CARD_BY_ID, EVENT_CARD_BY_ID, END_GAME_CARD_BY_ID):
        info = table.get(card)
        if info is not None:
            return info.name.get(lang)
    return card


def card_text(lang: str, card: str) -> str:
    for table in (MAGIC_CARD_BY_ID, EVENT_CARD_BY_ID, END_GAME_CARD_BY_ID):
        info = table.get(card)
        if info is not None:
            return info.text.get(lang)
    return ""


def card_condition(lang: str, card: str) -> str:
    info = MAGIC_CARD_BY_ID.get(card)
    return info.condition.get(lang) if info is not None else ""
