#!/usr/bin/env bash
# Set up a virtual environment (if needed) and run the main job: until a play front end
# exists, a simulation of random games that prints its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet -e . >/dev/null
exec .venv/bin/kaladan simulate --players random,random,random,random --games 200 --seed 1 "$@"
