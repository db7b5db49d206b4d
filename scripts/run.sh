#!/usr/bin/env bash
# Set up a virtual environment (if needed) and start the main job: the browser game
# (`kaladan serve`), which prints the URL to open. Extra arguments go to `kaladan serve`,
# e.g. `bash scripts/run.sh --port 8080`.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet -e . >/dev/null
exec .venv/bin/kaladan serve "$@"
