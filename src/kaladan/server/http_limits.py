"""Bounds on a request's head that uvicorn leaves open: its size and how long it may take.

uvicorn's httptools protocol buffers a request head of any size and waits for it forever,
so ten clients sending 50 MiB of headers cost 500 MiB, and a client that sends half a head
and stalls holds its connection for good (slowloris). ``LimitedHttpToolsProtocol`` refuses
a head over ``max_head`` bytes with 431 and drops a connection whose head is not complete
``head_timeout`` seconds after its first byte (or after the connection opened). Without
httptools, uvicorn's h11 protocol bounds the size (``h11_max_incomplete_event_size``) but
not the time.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from typing import Any

import uvicorn

log = logging.getLogger("kaladan.server")


class ServeConfig(uvicorn.Config):
    """uvicorn's configuration plus the head's time limit; the size limit is uvicorn's own
    ``h11_max_incomplete_event_size``. A class of its own, not a closure, so that worker
    processes receive it pickled."""

    def __init__(self, app: Any, *, head_timeout: float, max_head: int,
                 **options: Any) -> None:
        super().__init__(app, http=http_protocol(), h11_max_incomplete_event_size=max_head,
                         **options)
        self.head_timeout = head_timeout


def http_protocol() -> type[asyncio.Protocol] | str:
    """The protocol class for ``uvicorn.Config(http=...)``: ours over httptools when it is
    installed (uvicorn's "auto" picks it too), else uvicorn's h11."""
    if importlib.util.find_spec("httptools") is None:
        return "h11"
    return LimitedHttpToolsProtocol


def _refusal(status: int, reason: str) -> bytes:
    text = reason.encode("ascii")
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"content-length: {len(text)}\r\nconnection: close\r\n\r\n").encode("ascii") + text


if importlib.util.find_spec("httptools") is not None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class LimitedHttpToolsProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol with a bounded request head (module docstring).

        httptools keeps a header it is still reading inside the parser, out of sight of the
        callbacks, so the size is counted on the bytes received: a head stops at most one
        read (256 KiB) past the limit."""

        def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
            super().__init__(config, *args, **kwargs)
            assert isinstance(config, ServeConfig), "LimitedHttpToolsProtocol needs a ServeConfig"
            self.max_head = config.h11_max_incomplete_event_size or 0
            self.head_timeout = config.head_timeout
            self.head_timer: asyncio.TimerHandle | None = None
            self.in_head = True  # reading a head (a new connection waits for one)
            self.head_bytes = 0
            self.started_anything = False  # a byte of this connection has arrived
            # A head that began after another message ended in the same read is not
            # counted in that read (its share of the read is unknown; pipelining only).
            self.completed_in_read = False
            self.skip_read = False

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            self.started_anything = True
            self.completed_in_read = self.skip_read = False
            super().data_received(data)
            if not self.in_head or self.transport.is_closing() or self.skip_read:
                return
            self.head_bytes += len(data)
            if self.head_bytes > self.max_head:
                log.info("request head from %s over %d bytes: refused", _peer(self.client),
                         self.max_head)
                self._refuse(431, "Request Header Fields Too Large")

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self.in_head, self.head_bytes = True, 0
            self.skip_read = self.completed_in_read
            self._arm()

        def on_headers_complete(self) -> None:
            self.in_head = False
            self._disarm()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self.completed_in_read = True
            super().on_message_complete()

        def _arm(self) -> None:
            self._disarm()
            self.head_timer = self.loop.call_later(self.head_timeout, self._head_too_slow)

        def _disarm(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None

        def _head_too_slow(self) -> None:
            self.head_timer = None
            if self.transport.is_closing() or not self.in_head:
                return
            if self.started_anything:  # a connection that never spoke just closes
                log.info("request head from %s not complete within %g s: dropped",
                         _peer(self.client), self.head_timeout)
                self._refuse(408, "Request Timeout")
            else:
                self.transport.close()

        def _refuse(self, status: int, reason: str) -> None:
            self._disarm()
            self.transport.write(_refusal(status, reason))
            self.transport.close()


def _peer(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "?"
