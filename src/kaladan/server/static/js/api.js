// The HTTP and WebSocket API of docs/api.md, and where seat tokens are kept.

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || null;
    this.rule = error.rule || null;
  }
}

// The signed-in player (GET /api/session), or null for a guest. Every write the session
// cookie authenticates carries the session's CSRF token (docs/api.md "Accounts").
let session = null;

export function currentSession() { return session; }

export function setSession(value) { session = value; }

/** Ask the server who is signed in (once per page load, and after signing in or out). */
export async function loadSession() {
  try { session = await api("GET", "/api/session"); } catch { session = null; }
  return session;
}

/** Call the HTTP API; resolves to the JSON body (null for 204) or throws ApiError. */
export async function api(method, path, {body, token} = {}) {
  const headers = {"Accept": "application/json"};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = `Bearer ${token}`;
  if (session && session.csrf && method !== "GET") headers["X-CSRF-Token"] = session.csrf;
  let response;
  try {
    response = await fetch(path, {method, headers,
      body: body === undefined ? undefined : JSON.stringify(body)});
  } catch (err) {
    throw new ApiError(0, {error: {message: String(err)}});
  }
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// A seat token is handed out once (on join), so it lives in localStorage keyed by game and seat;
// a reload or a new tab of the same browser plays on with it.
const tokenKey = (gameId, seat) => `kaladan.token.${gameId}.${seat}`;

export function storedToken(gameId, seat) {
  return localStorage.getItem(tokenKey(gameId, seat));
}

export function storeToken(gameId, seat, token) {
  localStorage.setItem(tokenKey(gameId, seat), token);
}

/** The seat's token: join with the one-time code if one is given, else the stored token. */
export async function seatToken(gameId, seat, code) {
  if (code) {
    try {
      const joined = await api("POST",
        `/api/games/${encodeURIComponent(gameId)}/seats/${seat}/join`, {body: {code}});
      storeToken(gameId, seat, joined.token);
      return joined.token;
    } catch (err) {
      // A used code (409) is fine when this browser joined earlier and kept the token.
      const kept = storedToken(gameId, seat);
      if (kept) return kept;
      throw err;
    }
  }
  return storedToken(gameId, seat);
}

/**
 * One game's WebSocket: calls onView with every view, reconnects after a drop (the server sends
 * the current view on connect, which restores the screen) and reports its state to onStatus.
 */
export class GameSocket {
  constructor(gameId, token, {onView, onError, onStatus, onFatal, onChat}) {
    this.gameId = gameId;
    this.token = token;
    this.handlers = {onView, onError, onStatus, onFatal, onChat};
    this.delay = 500;
    this.closed = false;
    this.ws = null;
    this.lastError = null;
    this.connect();
    this.ping = setInterval(() => this.send({type: "ping"}), 20000);
  }

  connect() {
    if (this.closed) return;
    this.handlers.onStatus("connecting");
    const ws = new WebSocket(socketUrl(this.gameId, this.token));
    this.ws = ws;
    ws.onopen = () => { this.delay = 500; this.handlers.onStatus("online"); };
    ws.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      if (message.type === "view") this.handlers.onView(message.view);
      else if (message.type === "error") {
        this.lastError = message.error || {};  // a refusal before a close says why (seat_moved)
        this.handlers.onError(this.lastError);
      }
      else if (message.type === "chat") this.handlers.onChat?.(message.message);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      if (event.code === 4403 || event.code === 4404) {
        this.closed = true;
        clearInterval(this.ping);
        this.handlers.onFatal(event.code, this.lastError?.code || null);
        return;
      }
      this.handlers.onStatus("offline");
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
  }

  /** Send a message; false when the socket is not open (the caller may fall back to HTTP). */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Connect again at once (the chat was turned on or off: the server hears it on connect). */
  reconnect() {
    if (this.ws) this.ws.close();
  }

  close() {
    this.closed = true;
    clearInterval(this.ping);
    if (this.ws) this.ws.close();
  }
}

function socketUrl(gameId, token) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const params = new URLSearchParams();
  if (token) params.set("token", token);
  // chat.js: a guest's chat-off switch (a signed-in player's is the account's)
  if (!session && localStorage.getItem("kaladan.chat") === "off") params.set("chat", "off");
  const query = params.size ? `?${params}` : "";
  return `${scheme}//${location.host}/ws/games/${encodeURIComponent(gameId)}${query}`;
}
