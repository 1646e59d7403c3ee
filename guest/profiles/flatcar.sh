#!/usr/bin/env bash
# Profile flatcar (seed 002): Flatcar Container Linux's own Docker, overlay2 on
# an ext4 data disk at /var/lib/docker. Runs only on a Flatcar host.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
grep -q '^ID=flatcar' /etc/os-release || ll_die "profile flatcar needs a Flatcar Container Linux host"
ll_profile_begin flatcar
mkfs.ext4 -F -q "$LL_DISK"
dumpe2fs -h "$LL_DISK" > "$LL_STATE/mkfs.txt" 2>/dev/null
ll_mount_docker_disk ext4
ll_docker_start overlay2 '[]'
echo flatcar > "$LL_STATE/profile"
