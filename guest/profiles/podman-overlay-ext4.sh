#!/usr/bin/env bash
# Profile podman-overlay-ext4: ext4 on the data disk at /var/lib/docker, and
# Podman (root, no daemon) with its native overlay driver, its graphroot (and
# so its volumes) on that disk beside the bind-mount sources. Needs Debian 13's podman.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ll_profile_begin podman-overlay-ext4 podman
mkfs.ext4 -F -q "$LL_DISK"
dumpe2fs -h "$LL_DISK" > "$LL_STATE/mkfs.txt" 2>/dev/null
ll_mount_docker_disk ext4
ll_podman_start overlay
echo podman-overlay-ext4 > "$LL_STATE/profile"
