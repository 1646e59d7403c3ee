#!/usr/bin/env bash
# Profile overlay2-xfs (seed 004): XFS with ftype=1 on the data disk at /var/lib/docker.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ll_profile_begin overlay2-xfs
mkfs.xfs -f -n ftype=1 "$LL_DISK" > "$LL_STATE/mkfs.txt"
mkdir -p /var/lib/docker
uuid="$(blkid -s UUID -o value "$LL_DISK")"
sed -i '\|[[:space:]]/var/lib/docker[[:space:]]|d' /etc/fstab
echo "UUID=$uuid /var/lib/docker xfs defaults 0 0" >> /etc/fstab
mount /var/lib/docker
ll_docker_start overlay2 '[]'
echo overlay2-xfs > "$LL_STATE/profile"
