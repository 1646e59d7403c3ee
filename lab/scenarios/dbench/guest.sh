#!/usr/bin/env bash
# dbench scenario (seed 002): dbench's file-server load in a container, its
# working directory on the mount kind under test. Raw output: $LL_OUT/dbench.txt.
set -euo pipefail
source "$(dirname "$0")/../../../guest/lib.sh"
ll_require LL_OUT LL_MOUNT LL_TRIAL LL_IMAGE_DBENCH LL_P_CLIENTS LL_P_DURATION LL_P_LOADFILE

ll_phase mount
ll_mount_setup "$LL_MOUNT" "$LL_TRIAL" /data
trap 'll_phase cleanup; docker rm -f "ll-$LL_TRIAL" >/dev/null 2>&1 || true; ll_mount_cleanup' EXIT

ll_container_run "ll-$LL_TRIAL" "$LL_IMAGE_DBENCH" "$LL_OUT/dbench.txt" "$LL_OUT/dbench.stderr" \
  /usr/bin/dbench -t "$LL_P_DURATION" -c "/usr/share/dbench/$LL_P_LOADFILE" -D /data "$LL_P_CLIENTS"
