#!/usr/bin/env bash
# At a run's start and end: removes every container (and its storage) that a
# scenario's `container: kept` keeps across a cell's trials (guest/lib.sh
# ll_kept_container), found by the lab's label and layerlab.kept.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ll_require LL_LAB
if ll_engine_up; then ll_kept_drop; fi
