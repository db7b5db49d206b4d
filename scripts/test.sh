#!/usr/bin/env bash
# Set up a virtual environment (if needed) and run the whole test suite:
# ruff, mypy --strict on the whole package, then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet -e '.[test,ray,rl,openspiel,train]'
echo "== ruff"
.venv/bin/python -m ruff check src tests bench
echo "== mypy --strict"
.venv/bin/python -m mypy --strict src/kaladan
echo "== pytest"
exec .venv/bin/python -m pytest -q -n "${KALADAN_TEST_JOBS:-auto}" "$@"
