#!/usr/bin/env bash
# Profile overlay2-xfs (seed 004): XFS with ftype=1 on the data disk at /var/lib/docker.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ll_profile_begin overlay2-xfs
mkfs.xfs -f -n ftype=1 "$LL_DISK" > "$LL_STATE/mkfs.txt"
ll_mount_docker_disk xfs
ll_docker_start overlay2 '[]'
echo overlay2-xfs > "$LL_STATE/profile"
