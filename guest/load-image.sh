#!/usr/bin/env bash
# Loads a tool image (zstd-compressed rootfs tar on stdin) as TAG, labelled
# layerlab.lab=$LL_LAB (cleanup.sh removes it by that label), unless present.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ll_require LL_LAB
tag="$1"
if ll_engine image inspect -f '{{json .Config.Labels}}' "$tag" 2>/dev/null | grep -q '"layerlab.lab"'; then
  cat > /dev/null
  exit 0
fi
zstd -dc | ll_engine import --change 'WORKDIR /' --change "LABEL layerlab.lab=$LL_LAB" - "$tag" >/dev/null
