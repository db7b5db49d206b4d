"""The JSON text the server sends: compact, non-ASCII as it is.

orjson writes it. The standard library's C encoder took a quarter of the server's time per
action (a view is 2-3 kB), orjson a fifth of that; both write the same text
(tests/server/test_server_fast_paths.py). Values orjson cannot write (an integer beyond 64
bits) go to the standard encoder.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def dumps(value: Any) -> str:
    """Compact JSON text of ``value``, as sent to clients."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return _ENCODER.encode(value)
