#!/usr/bin/env bash
# Loads a tool image (zstd-compressed rootfs tar on stdin) as TAG, unless present.
set -euo pipefail
tag="$1"
if docker image inspect "$tag" >/dev/null 2>&1; then
  cat > /dev/null
  exit 0
fi
zstd -dc | docker import --change 'WORKDIR /' - "$tag" >/dev/null
