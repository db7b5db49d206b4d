#!/usr/bin/env bash
# Set up a virtual environment (if needed) and run the whole test suite:
# ruff, mypy --strict on the whole package, pytest against the compiled engine (the install
# builds it with mypyc), then the rules, golden-record and format tests a second time on the
# pure-Python engine (KALADAN_PURE=1). The slow invariant suites run once, compiled: their
# games are checked to play alike on both engines (tests/test_compiled.py), and their checks
# cost the same time on either.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet -e '.[test,ray,rl,openspiel,train]'
# axe-core 4 from npm for the browser tests' accessibility scan (tests/e2e/test_e2e_axe.py),
# kept in the user's cache; without it those tests skip, and fail under CI=true.
export KALADAN_AXE_DIR="${KALADAN_AXE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kaladan/axe}"
if [ ! -f "$KALADAN_AXE_DIR/node_modules/axe-core/axe.min.js" ] && command -v npm >/dev/null 2>&1; then
  npm install --silent --no-audit --no-fund --prefix "$KALADAN_AXE_DIR" axe-core@4 >/dev/null \
    || echo "axe-core could not be installed from npm: the accessibility scan will not run"
fi
echo "== ruff"
.venv/bin/python -m ruff check src tests bench
echo "== mypy --strict"
.venv/bin/python -m mypy --strict src/kaladan
echo "== pytest ($(.venv/bin/python -c 'import kaladan; print(kaladan.engine_mode())') engine)"
.venv/bin/python -m pytest -q -n "${KALADAN_TEST_JOBS:-auto}" --durations=20 "$@"
if [ "$#" -eq 0 ]; then
  echo "== pytest (pure engine): rules, golden records, formats"
  KALADAN_PURE=1 .venv/bin/python -m pytest -q -n "${KALADAN_TEST_JOBS:-auto}" -m "not slow" \
    tests/rules tests/test_formats.py tests/test_gamelog.py tests/test_illegal.py
fi
