#!/usr/bin/env bash
# Profile btrfs: a btrfs data disk at /var/lib/docker and docker's btrfs driver
# (every image layer and container a subvolume).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ll_profile_begin btrfs
mkfs.btrfs -f "$LL_DISK" > "$LL_STATE/mkfs.txt"
ll_mount_docker_disk btrfs
ll_docker_start btrfs '[]'
echo btrfs > "$LL_STATE/profile"
