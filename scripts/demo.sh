#!/usr/bin/env bash
# The README's first command (`npm ci && npm run demo`): installs what the
# local target needs (Debian/Ubuntu, as root), then stands up labs/demo.yaml,
# runs it, writes the report and tears everything down.
set -euo pipefail
cd "$(dirname "$0")/.."
lab="${LAB:-labs/demo.yaml}"
if ! node bin/layerlab.js doctor --install; then
  echo "layerlab: the local target is missing prerequisites (see above); fix them and run 'npm run demo' again" >&2
  exit 2
fi
exec node bin/layerlab.js all --lab "$lab"
