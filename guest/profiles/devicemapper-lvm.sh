#!/usr/bin/env bash
# Profile devicemapper-lvm (seed 004): docker's own direct-lvm setup builds a
# thin pool on the whole data disk. Needs a Docker that still has devicemapper
# (Debian 12's docker.io 20.10). Volumes and bind sources stay on the root disk.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ll_profile_begin devicemapper-lvm
echo "direct-lvm thin pool on $LL_DISK (dm.directlvm_device)" > "$LL_STATE/mkfs.txt"
ll_docker_start devicemapper "[$(ll_json_str "dm.directlvm_device=$LL_DISK"), \"dm.directlvm_device_force=true\", \"dm.thinp_percent=95\", \"dm.thinp_metapercent=1\", \"dm.thinp_autoextend_threshold=80\", \"dm.thinp_autoextend_percent=20\"]"
echo devicemapper-lvm > "$LL_STATE/profile"
