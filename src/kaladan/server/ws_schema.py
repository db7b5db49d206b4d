"""JSON Schemas of the WebSocket messages (docs/api.md "WebSocket", docs/ws-schema.json).

The messages are described by the same models as the HTTP API (a ``view`` message carries
the ``View`` of ``GET .../view``, an ``error`` the ``ErrorDetail`` of every error answer), so
the two cannot drift apart; ``document()`` is the JSON file shipped in docs/, which a test
holds equal to it, and every message of whole games is validated against it.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from .chat import MAX_TEXT
from .models import ACTION_OR_INDEX, MAX_WHOLE, ErrorDetail, Strict, View
from .social_models import ChatMessage

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class ViewMessage(Strict):
    """The seat's (or the spectator's) view: on connect with the whole log, after every
    change with the log entries since the view sent before."""

    type: Literal["view"]
    view: View


class ErrorMessage(Strict):
    """A message the server refused; nothing changed and the socket stays open."""

    type: Literal["error"]
    error: ErrorDetail


class ChatPush(Strict):
    """A chat message the connection's reader may read (docs/api.md "Chat"), as it is
    sent."""

    type: Literal["chat"]
    message: ChatMessage


class PongMessage(Strict):
    """The answer to a ``ping``."""

    type: Literal["pong"]


class ActionMessage(Strict):
    """A decision by text or by index into ``legal`` (exactly one of the two), optionally
    with the version it was made at; a gift at any moment by text (``gift 2 3``)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=ACTION_OR_INDEX)

    type: Literal["action"]
    action: str | None = Field(None, min_length=1, pattern=r"\S",
                               description="the action's text, not only spaces")
    index: int | None = Field(None, ge=0, le=MAX_WHOLE)
    version: int | None = Field(None, ge=0, le=MAX_WHOLE,
                                description="409 stale_version when the game has moved on")


class ChatSend(Strict):
    """A seat's chat message to the players' channel: plain text, 1 to 300 characters once
    control characters are taken out (400 ``too_long``; 429 over 5 in 10 seconds)."""

    type: Literal["chat"]
    text: str = Field(min_length=1, max_length=4 * MAX_TEXT)


class PingMessage(Strict):
    """Asks for a ``pong``."""

    type: Literal["ping"]


ServerMessage = Annotated[ViewMessage | ErrorMessage | ChatPush | PongMessage,
                          Field(discriminator="type")]
ClientMessage = Annotated[ActionMessage | ChatSend | PingMessage, Field(discriminator="type")]


def _schema(kind: Any, title: str, description: str) -> dict[str, Any]:
    schema: dict[str, Any] = TypeAdapter(kind).json_schema(mode="serialization")
    return {"$schema": SCHEMA_DIALECT, "title": title, "description": description, **schema}


def server_message_schema() -> dict[str, Any]:
    """Every message the server sends on ``/ws/games/{game_id}``."""
    return _schema(ServerMessage, "Kaladan WebSocket: server to client",
                   "a view, an error, a chat message or a pong, by 'type'")


def client_message_schema() -> dict[str, Any]:
    """Every message the server takes on ``/ws/games/{game_id}`` (anything else is answered
    with a 400 ``malformed_message`` error)."""
    return _schema(ClientMessage, "Kaladan WebSocket: client to server",
                   "an action, a chat message or a ping, by 'type'; at most 4 KiB of "
                   "JSON text")


def document() -> str:
    """docs/ws-schema.json: both schemas, as JSON text."""
    return json.dumps({"server": server_message_schema(), "client": client_message_schema()},
                      indent=1, sort_keys=True) + "\n"
