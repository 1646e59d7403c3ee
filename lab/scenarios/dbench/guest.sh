#!/usr/bin/env bash
# dbench scenario (seed 002): dbench's file-server load in a container, its
# working directory on the mount kind under test. Raw output: $LL_OUT/dbench.txt.
set -euo pipefail
# run-trial.sh starts this script by its full path: ${0%/*} is its folder, no dirname process.
source "${0%/*}/../../../guest/lib.sh"
ll_require LL_OUT LL_MOUNT LL_TRIAL LL_IMAGE_DBENCH LL_P_CLIENTS LL_P_DURATION LL_P_LOADFILE

ll_phase mount
ll_mount_setup "$LL_MOUNT" "$LL_TRIAL" /data
# The container goes here only when ll_container_run did not remove it (a failure before that).
trap 'll_phase cleanup; ll_container_cleanup "ll-$LL_TRIAL"; ll_mount_cleanup' EXIT

ll_container_run "ll-$LL_TRIAL" "$LL_IMAGE_DBENCH" "$LL_OUT/dbench.txt" "$LL_OUT/dbench.stderr" \
  /usr/bin/dbench -t "$LL_P_DURATION" -c "/usr/share/dbench/$LL_P_LOADFILE" -D /data "$LL_P_CLIENTS"
