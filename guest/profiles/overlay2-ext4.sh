#!/usr/bin/env bash
# Profile overlay2-ext4 (seed 003): ext4 on the data disk at /var/lib/docker.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ll_profile_begin overlay2-ext4
mkfs.ext4 -F -q "$LL_DISK"
dumpe2fs -h "$LL_DISK" > "$LL_STATE/mkfs.txt" 2>/dev/null
ll_mount_docker_disk ext4
ll_docker_start overlay2 '[]'
echo overlay2-ext4 > "$LL_STATE/profile"
