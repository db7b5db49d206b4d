// The panels a seat's page and the replay page draw alike from a view and the log held:
// the battle view, the turn's phases, the players, the event card and the log panel.
// ``holder`` keeps the log, the past battle opened (or null) and the game's summary;
// ``render`` redraws the page.

import {byId} from "./dom.js";
import {renderBattle} from "./battle.js";
import {renderLog} from "./logpanel.js";
import {renderEvent, renderPhases, renderPlayers} from "./panels.js";

export function renderStory(view, holder, render) {
  renderBattle(byId("battle"), view, holder.log, holder.battle, () => { holder.battle = null; render(); });
  renderPhases(byId("phases"), view, holder.summary?.options?.phase_order);
  renderPlayers(byId("players"), view);
  renderEvent(byId("event"), view);
  renderLog(byId("log"), view, holder.log, {onFilter: render, onBattle: (index) => {
    holder.battle = index;
    render();
    byId("battle")?.scrollIntoView({block: "nearest"});
  }});
}
