// Entry point: the header (language switch, connection state) and the route of the page.
//   /                         lobby
//   /play/{game_id}/{seat}    a seat (?code=... joins once, then the stored token is used)
//   /watch/{game_id}          spectator
//   /replay/{game_id}         a finished game told again
//   /how-to-play              the rules in short
//   /tutorial                 a first game with a guide (tutorial.js), played on /play/...
//   /players/{name}           a player's profile (rating, history, last games)
//   /leaderboard              the best rated players
//   /me/games, /unsubscribe   the player's games, turn mails off (match.js)

import {byId, h, mount} from "./dom.js";
import {currentLang, initI18n, LANGS, setLang, t} from "./i18n.js";
import {showLobby} from "./lobby.js";
import {rerenderGame, showGame} from "./game.js";
import {rerenderReplay, showReplay} from "./replay.js";
import {installUnitTips} from "./dice.js";
import {showHowTo} from "./howto.js";
import {showLeaderboard, showProfile} from "./profile.js";
import {setSound, soundOn} from "./sound.js";
import {loadSession} from "./api.js";
import {accountLinks, showAccountPage, ACCOUNT_PAGES} from "./account.js";
import {showMyGames, showUnsubscribe, watchTurns} from "./match.js";
import {guideGame, isTutorial, showTutorial} from "./tutorial.js";

function route() {
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "play" && parts.length === 3 && /^\d+$/.test(parts[2])) {
    return {page: "play", gameId: parts[1], seat: Number(parts[2])};
  }
  if (parts[0] === "watch" && parts.length === 2) return {page: "watch", gameId: parts[1]};
  if (parts[0] === "replay" && parts.length === 2) return {page: "replay", gameId: parts[1]};
  if (parts[0] === "how-to-play" && parts.length === 1) return {page: "howto"};
  if (parts[0] === "tutorial" && parts.length === 1) return {page: "tutorial"};
  if (parts.join("/") === "me/games") return {page: "mygames"};
  if (parts.join("/") === "unsubscribe") return {page: "unsubscribe"};
  const accountPage = ACCOUNT_PAGES[parts.join("/")];
  if (accountPage) return {page: "account", which: accountPage};
  if (parts[0] === "players" && parts.length === 2) return {page: "profile", name: parts[1]};
  if (parts[0] === "leaderboard" && parts.length === 1) return {page: "leaderboard"};
  return {page: "lobby"};
}

function renderHeader(current) {
  // Pages without a heading of their own (the lobby, a game, a replay) have the brand as
  // their h1 (axe: page-has-heading-one); the others' h1 names the page.
  const brand = h("a", {href: "/", class: "brand"}, "Kaladan");
  mount(byId("header"),
    ["lobby", "play", "watch", "replay"].includes(current.page) ? h("h1", {class: "brand-heading"}, brand) : brand,
    h("span", {class: "subtitle"}, t("app.subtitle")),
    h("span", {class: "spacer"}),
    // From a game, the rules open in a new tab: the game page stays as it is.
    h("a", {href: "/how-to-play", class: "howto-link", id: "howto-link",
      target: ["play", "watch", "replay"].includes(current.page) ? "_blank" : null, rel: "noopener"}, t("howto.link")),
    ["lobby", "howto"].includes(current.page)
      ? h("a", {href: "/tutorial", class: "howto-link", id: "tutorial-link"}, t("tutorial.link")) : null,
    h("a", {href: "/leaderboard", class: "howto-link", id: "leaderboard-link",
      target: ["play", "watch", "replay"].includes(current.page) ? "_blank" : null, rel: "noopener"}, t("rating.leaderboard")),
    current.page === "play" ? h("label", {class: "sound", for: "sound"},
      h("input", {type: "checkbox", id: "sound", checked: soundOn(), onchange: (e) => setSound(e.target.checked)}),
      h("span", {}, t("sound.label"))) : null,
    ["lobby", "replay", "howto", "tutorial", "account", "profile", "leaderboard", "mygames", "unsubscribe"].includes(current.page) ? null : h("span", {id: "conn", class: "conn", "data-status": "connecting"}, t("conn.connecting")),
    accountLinks(),
    h("label", {class: "lang", for: "lang"}, h("span", {class: "visually-hidden"}, t("app.language")),
      h("select", {id: "lang", onchange: async (e) => { await setLang(e.target.value); refresh(current); }},
        LANGS.map((code) => h("option", {value: code, selected: code === currentLang()}, t(`lang.${code}`))))));
  document.title = t("app.title");
}

function refresh(current) {
  const status = byId("conn")?.dataset.status;
  renderHeader(current);
  if (status && byId("conn")) { byId("conn").dataset.status = status; byId("conn").textContent = t(`conn.${status}`); }
  if (current.page === "lobby") showLobby(byId("app"));
  else if (current.page === "howto") showHowTo(byId("app"));
  else if (current.page === "tutorial") return;  // on its way to the game it created
  else if (current.page === "account") showAccountPage(byId("app"), current.which);
  else if (current.page === "profile") showProfile(byId("app"), current.name);
  else if (current.page === "leaderboard") showLeaderboard(byId("app"));
  else if (current.page === "mygames") showMyGames(byId("app"));
  else if (current.page === "unsubscribe") showUnsubscribe(byId("app"));
  else if (current.page === "replay") rerenderReplay(byId("app"));
  else rerenderGame(byId("app"));
}

async function main() {
  try {
    await initI18n();
  } catch (err) {
    mount(byId("app"), h("p", {class: "error"}, `Cannot load the game data: ${err.message}`));
    return;
  }
  const current = route();
  await loadSession();
  renderHeader(current);
  const code = new URLSearchParams(location.search).get("code");
  installUnitTips();
  watchTurns(current);
  if (current.page === "lobby") showLobby(byId("app"));
  else if (current.page === "howto") showHowTo(byId("app"));
  else if (current.page === "tutorial") await showTutorial(byId("app"));
  else if (current.page === "account") showAccountPage(byId("app"), current.which);
  else if (current.page === "profile") await showProfile(byId("app"), current.name);
  else if (current.page === "leaderboard") await showLeaderboard(byId("app"));
  else if (current.page === "mygames") await showMyGames(byId("app"));
  else if (current.page === "unsubscribe") showUnsubscribe(byId("app"));
  else if (current.page === "replay") await showReplay(byId("app"), current.gameId);
  else {
    if (current.page === "play" && isTutorial(current.gameId, current.seat)) guideGame(current.gameId, current.seat);
    await showGame(byId("app"), current.gameId, current.page === "play" ? current.seat : null, code);
  }
}

main();
