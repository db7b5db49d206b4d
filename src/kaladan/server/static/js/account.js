// Accounts in the browser: the header's sign-in link or the player's menu, and the pages
//   /signin /signup          sign in or up (a guest's seats in this browser become theirs)
//   /account                 settings: e-mail, turn mails, chat, password, sign out, delete
//   /account/confirm?token=  confirm the e-mail address (the link of the mail)
//   /account/reset?token=    choose a new password (the link of the mail)

import {api, currentSession, loadSession, setSession} from "./api.js";
import {h, mount, toast} from "./dom.js";
import {t} from "./i18n.js";

export const ACCOUNT_PAGES = {"signin": "signin", "signup": "signup", "account": "settings",
  "account/confirm": "confirm", "account/reset": "reset"};

/** The header's part: "Sign in" for a guest, the player's name and menu when signed in. */
export function accountLinks() {
  const me = currentSession();
  if (!me) return h("a", {href: "/signin", class: "account-link", id: "signin-link"}, t("account.sign_in"));
  return h("span", {class: "account-links", id: "account-links"},
    h("a", {href: `/players/${encodeURIComponent(me.name)}`, id: "me-link"}, me.name),
    h("a", {href: "/me/games", id: "my-games-link"}, t("match.my_games")),
    h("a", {href: "/account", id: "settings-link"}, t("account.settings")),
    h("button", {type: "button", id: "signout", class: "link", onclick: signOut}, t("account.sign_out")));
}

async function signOut() {
  try { await api("DELETE", "/api/session"); } catch { /* signed out already */ }
  setSession(null);
  location.href = "/";
}

function field(id, label, attrs = {}) {
  return h("label", {for: id}, h("span", {}, label), h("input", {id, name: id, ...attrs}));
}

function errorBox() {
  return h("p", {class: "error", id: "account-error", role: "alert", "aria-live": "assertive"});
}

function showError(err) {
  const box = document.getElementById("account-error");
  if (box) box.textContent = err.message;
}

const value = (id) => document.getElementById(id).value;

/** The seats this browser played as a guest (their tokens are in localStorage) become the
 * player's: their record and rating count for the account from now on. */
async function claimGuestSeats() {
  for (let i = 0; i < localStorage.length; i++) {
    const match = /^kaladan\.token\.(.+)\.(\d+)$/.exec(localStorage.key(i) || "");
    if (!match) continue;
    const token = localStorage.getItem(localStorage.key(i));
    try {
      await api("POST", `/api/games/${encodeURIComponent(match[1])}/seats/${match[2]}/claim`, {token});
    } catch { /* a seat of a finished, deleted or other player's game stays as it is */ }
  }
}

function next() {
  const target = new URLSearchParams(location.search).get("next");
  return target && target.startsWith("/") && !target.startsWith("//") ? target : "/";
}

function signInPage(root, signingUp) {
  const submit = async (e) => {
    e.preventDefault();
    const body = {name: value("account-name"), password: value("account-password")};
    if (signingUp && value("account-email")) body.email = value("account-email");
    try {
      setSession(await api("POST", signingUp ? "/api/accounts" : "/api/session", {body}));
      await claimGuestSeats();
      location.href = next();
    } catch (err) { showError(err); }
  };
  mount(root, h("section", {class: "panel account", id: "account-page"},
    h("h1", {}, t(signingUp ? "account.sign_up" : "account.sign_in")),
    h("form", {id: "account-form", onsubmit: submit},
      field("account-name", t("account.name"), {autocomplete: "username", required: true, maxlength: 24,
        minlength: signingUp ? 3 : 1}),
      field("account-password", t("account.password"), {type: "password", required: true,
        autocomplete: signingUp ? "new-password" : "current-password", minlength: signingUp ? 8 : 1}),
      signingUp ? field("account-email", t("account.email_optional"), {type: "email", autocomplete: "email"}) : null,
      signingUp ? h("p", {class: "hint"}, t("account.name_rules")) : null,
      errorBox(),
      h("button", {type: "submit", id: "account-submit"}, t(signingUp ? "account.sign_up" : "account.sign_in"))),
    h("p", {}, signingUp
      ? h("a", {href: `/signin${location.search}`}, t("account.have_account"))
      : h("a", {href: `/signup${location.search}`}, t("account.no_account"))),
    signingUp ? null : h("p", {}, h("a", {href: "/account/reset"}, t("account.forgot")))));
}

function settingsPage(root) {
  const me = currentSession();
  if (!me) { location.href = "/signin?next=/account"; return; }
  const save = async (body) => {
    try { setSession(await api("PATCH", "/api/account", {body})); toast(t("account.saved")); settingsPage(root); }
    catch (err) { showError(err); }
  };
  const changePassword = async (e) => {
    e.preventDefault();
    try {
      setSession(await api("PUT", "/api/account/password",
        {body: {password: value("old-password"), new_password: value("new-password")}}));
      toast(t("account.password_changed"));
      settingsPage(root);
    } catch (err) { showError(err); }
  };
  const everywhere = async () => {
    try { await api("DELETE", "/api/sessions"); } catch (err) { showError(err); return; }
    setSession(null);
    location.href = "/";
  };
  const remove = async (e) => {
    e.preventDefault();
    if (!window.confirm(t("account.delete_confirm"))) return;
    try { await api("DELETE", "/api/account", {body: {password: value("delete-password")}}); }
    catch (err) { showError(err); return; }
    setSession(null);
    location.href = "/";
  };
  mount(root, h("section", {class: "panel account", id: "account-page"},
    h("h1", {}, t("account.settings_of", {name: me.name})),
    errorBox(),
    h("h2", {}, t("account.email")),
    h("form", {id: "email-form", onsubmit: (e) => { e.preventDefault(); save({email: value("account-email") || null}); }},
      field("account-email", t("account.email"), {type: "email", value: me.email || "", autocomplete: "email"}),
      h("p", {class: "hint", id: "email-state"}, me.email
        ? t(me.email_confirmed ? "account.email_confirmed" : "account.email_unconfirmed") : t("account.email_none")),
      h("button", {type: "submit", id: "email-save"}, t("account.save"))),
    h("h2", {}, t("account.preferences")),
    h("label", {class: "check", for: "notify-email"},
      h("input", {type: "checkbox", id: "notify-email", checked: me.notify_email, disabled: !me.email_confirmed,
        onchange: (e) => save({notify_email: e.target.checked})}),
      h("span", {}, t("account.notify_email"))),
    h("label", {class: "check", for: "chat-on"},
      h("input", {type: "checkbox", id: "chat-on", checked: me.chat, onchange: (e) => save({chat: e.target.checked})}),
      h("span", {}, t("account.chat_on"))),
    h("h2", {}, t("account.password")),
    h("form", {id: "password-form", onsubmit: changePassword},
      field("old-password", t("account.current_password"), {type: "password", required: true, autocomplete: "current-password"}),
      field("new-password", t("account.new_password"), {type: "password", required: true, minlength: 8, autocomplete: "new-password"}),
      h("button", {type: "submit", id: "password-save"}, t("account.change_password"))),
    h("h2", {}, t("account.sessions")),
    h("button", {type: "button", id: "signout-everywhere", onclick: everywhere}, t("account.sign_out_everywhere")),
    h("h2", {}, t("account.delete")),
    h("form", {id: "delete-form", onsubmit: remove},
      h("p", {class: "hint"}, t("account.delete_hint")),
      field("delete-password", t("account.current_password"), {type: "password", required: true, autocomplete: "current-password"}),
      h("button", {type: "submit", id: "delete-account", class: "danger"}, t("account.delete")))));
}

async function confirmPage(root) {
  const token = new URLSearchParams(location.search).get("token") || "";
  mount(root, h("section", {class: "panel account", id: "account-page"}, h("h1", {}, t("account.email")),
    h("p", {id: "confirm-state"}, t("account.confirming"))));
  try {
    await api("POST", "/api/account/email/confirm", {body: {token}});
    await loadSession();
    document.getElementById("confirm-state").textContent = t("account.email_confirmed");
  } catch (err) { document.getElementById("confirm-state").textContent = err.message; }
}

function resetPage(root) {
  const token = new URLSearchParams(location.search).get("token");
  const ask = async (e) => {
    e.preventDefault();
    try { await api("POST", "/api/password-reset", {body: {name: value("reset-name")}}); toast(t("account.reset_sent")); }
    catch (err) { showError(err); }
  };
  const choose = async (e) => {
    e.preventDefault();
    try { await api("POST", "/api/password-reset/confirm", {body: {token, password: value("new-password")}}); }
    catch (err) { showError(err); return; }
    location.href = "/signin";
  };
  mount(root, h("section", {class: "panel account", id: "account-page"},
    h("h1", {}, t("account.forgot")), errorBox(),
    token
      ? h("form", {id: "reset-form", onsubmit: choose},
        field("new-password", t("account.new_password"), {type: "password", required: true, minlength: 8, autocomplete: "new-password"}),
        h("button", {type: "submit", id: "reset-submit"}, t("account.change_password")))
      : h("form", {id: "reset-form", onsubmit: ask},
        field("reset-name", t("account.name_or_email"), {required: true, autocomplete: "username"}),
        h("button", {type: "submit", id: "reset-submit"}, t("account.send_link")))));
}

export function showAccountPage(root, which) {
  document.title = `${t(`account.title_${which}`)} · ${t("app.title")}`;
  if (which === "signin" || which === "signup") signInPage(root, which === "signup");
  else if (which === "settings") settingsPage(root);
  else if (which === "confirm") confirmPage(root);
  else resetPage(root);
}
