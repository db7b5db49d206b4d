"""A WebSocket test client that reads in the background and keeps every message."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

TIMEOUT = 20.0
T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on a thread of its own: a test worker may already have an event loop
    running on its main thread (Playwright's sync API in the browser tests keeps one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class Socket:
    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.raw: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.arrived = asyncio.Condition()
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str) -> Socket:
        return cls(await connect(url, max_size=2**22))

    async def _read(self) -> None:
        try:
            async for text in self.connection:
                assert isinstance(text, str)
                async with self.arrived:
                    self.raw.append(text)
                    self.messages.append(json.loads(text))
                    self.arrived.notify_all()
        except ConnectionClosed:
            pass
        async with self.arrived:
            self.arrived.notify_all()

    async def wait_for(self, check: Callable[[dict[str, Any]], bool],
                       start: int = 0) -> dict[str, Any]:
        """The first message from index ``start`` on that passes ``check``."""
        async def find() -> dict[str, Any]:
            async with self.arrived:
                seen = start
                while True:
                    for message in self.messages[seen:]:
                        if check(message):
                            return message
                    seen = len(self.messages)
                    if self.reader.done():
                        raise AssertionError("the socket closed")
                    await self.arrived.wait()
        return await asyncio.wait_for(find(), TIMEOUT)

    def last_view(self) -> dict[str, Any] | None:
        for message in reversed(self.messages):
            if message["type"] == "view":
                view: dict[str, Any] = message["view"]
                return view
        return None

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        await self.connection.send(message if isinstance(message, (str, bytes))
                                   else json.dumps(message))

    async def close(self) -> None:
        await self.connection.close()
        await self.reader
