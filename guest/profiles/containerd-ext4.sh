#!/usr/bin/env bash
# Profile containerd-ext4: ext4 on the data disk at /var/lib/docker, containerd's
# root beside it, and Docker with the containerd image store
# (features.containerd-snapshotter): images and container layers are snapshots
# of containerd's overlayfs snapshotter instead of overlay2 graph-driver layers.
# Needs Docker >= 24 (Debian 13's docker.io 26).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ll_profile_begin containerd-ext4 docker
mkfs.ext4 -F -q "$LL_DISK"
dumpe2fs -h "$LL_DISK" > "$LL_STATE/mkfs.txt" 2>/dev/null
ll_mount_docker_disk ext4
ll_containerd_root
ll_docker_start overlayfs '[]' '{"containerd-snapshotter": true}'
[ "$(ll_engine info --format '{{.Driver}}')" = overlayfs ] || ll_die "dockerd did not start with the overlayfs snapshotter"
echo containerd-ext4 > "$LL_STATE/profile"
