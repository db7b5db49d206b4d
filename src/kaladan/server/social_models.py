"""Request and response models of the chat and the rematch (docs/api.md "Chat" and
"Rematch"), over HTTP and the WebSocket."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .chat import MAX_TEXT
from .models import Strict, Whole


class ChatMessage(BaseModel):
    """One message as stored: plain text, never markup."""

    id: int = Field(description="increasing within the game; ``after`` of the history")
    channel: Literal["players", "spectators"]
    seat: int | None = Field(description="the author's seat (the players' channel)")
    author: str = Field(description="the author's name at the time; empty for a guest "
                        "seat (named by its seat)")
    text: str = Field(description=f"1 to {MAX_TEXT} characters without control characters")
    at: str = Field(description="ISO 8601, UTC")


class MutedAuthor(BaseModel):
    message: int = Field(description="one of the author's messages: what unmuting names")
    seat: int | None
    author: str


class ChatHistory(BaseModel):
    messages: list[ChatMessage] = Field(description="the oldest first, at most 200, "
                                        "without the authors the reader muted")
    muted: list[MutedAuthor] = Field(description="the authors the reader muted")


class ChatRequest(Strict):
    text: str = Field(min_length=1, max_length=4 * MAX_TEXT)


class MuteRequest(Strict):
    message: Whole = Field(description="a message of the author to mute or unmute")
    muted: bool = Field(True, strict=True)


class MuteList(BaseModel):
    muted: list[MutedAuthor]


class RematchState(BaseModel):
    status: Literal["none", "waiting", "started"]
    accepted: list[int] = Field(description="the seats of this game that accepted")
    humans: list[int] = Field(description="the human seats, who must all accept")
    game_id: str | None = Field(description="the new game once started")
    seat: int | None = Field(description="the caller's seat in the new game (seats "
                             "rotate: seat i plays seat i+1)")
    token: str | None = Field(description="the caller's token of that seat, told only to "
                              "the holder of the old seat's token")
