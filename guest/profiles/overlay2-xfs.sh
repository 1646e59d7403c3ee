#!/usr/bin/env bash
# Profile overlay2-xfs (seed 004): XFS with ftype=1 on the data disk at /var/lib/docker.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ll_require LL_DATA_DISK
ll_profile_applied overlay2-xfs && exit 0

disk="$(readlink -f -- "$LL_DATA_DISK")"
[ -b "$disk" ] || ll_die "data disk $LL_DATA_DISK is not a block device"
systemctl stop docker.service docker.socket 2>/dev/null || true
mountpoint -q /var/lib/docker && umount /var/lib/docker
wipefs -a -q "$disk"
mkdir -p "$LL_STATE"
mkfs.xfs -f -n ftype=1 "$disk" > "$LL_STATE/mkfs.txt"
rm -rf /var/lib/docker
mkdir -p /var/lib/docker
uuid="$(blkid -s UUID -o value "$disk")"
sed -i '\|[[:space:]]/var/lib/docker[[:space:]]|d' /etc/fstab
echo "UUID=$uuid /var/lib/docker xfs defaults 0 0" >> /etc/fstab
mount /var/lib/docker
ll_docker_start overlay2 '[]'
echo overlay2-xfs > "$LL_STATE/profile"
