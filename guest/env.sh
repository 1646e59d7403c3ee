#!/usr/bin/env bash
# Captures the host's environment into $1: kernel, docker, storage, disks, load.
# summary.json holds the few facts the report prints; the rest is raw. A MANIFEST
# (as for trials) lets the controller check that what it unpacked is what was written.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out="${1:?usage: env.sh <output folder>}"
ll_work_dir
# Files of an earlier capture (xfs-info.txt from another profile) must not pass as current.
rm -rf -- "$out"
mkdir -p -- "$out"
cd -- "$out"

uname -a > kernel.txt
cat /proc/cmdline > cmdline.txt
cat /etc/os-release > os-release.txt
cat /proc/loadavg > loadavg.txt
nproc > nproc.txt
free -b > free.txt
grep -m1 'model name' /proc/cpuinfo > cpu.txt || true
docker version > docker-version.txt 2>&1 || true
docker info > docker-info.txt 2>&1 || true
docker info --format '{{json .}}' > docker-info.json 2>/dev/null || echo '{}' > docker-info.json
lsblk -b -o NAME,SIZE,TYPE,FSTYPE,MOUNTPOINT,MODEL,SERIAL > lsblk.txt 2>&1 || true
df -B1 -T > df.txt 2>&1 || true
findmnt -n -o SOURCE,FSTYPE,OPTIONS --target /var/lib/docker > docker-root-mount.txt 2>&1 || true
cp "$LL_STATE/mkfs.txt" mkfs.txt 2>/dev/null || true
if mountpoint -q /var/lib/docker && [ "$(findmnt -n -o FSTYPE /var/lib/docker)" = xfs ]; then
  xfs_info /var/lib/docker > xfs-info.txt 2>&1 || true
fi
lvs -a -o +devices > lvs.txt 2>&1 || true
docker images --format '{{.Repository}}:{{.Tag}} {{.ID}} {{.Size}}' > images.txt 2>&1 || true

read -r mount_source mount_fstype mount_options < docker-root-mount.txt || true
ll_json_obj \
  hostname "$(hostname)" \
  kernel "$(uname -r)" \
  os "$(. /etc/os-release && echo "$PRETTY_NAME")" \
  cpu "$(sed 's/^model name[[:space:]]*: //' cpu.txt)" \
  cpus "$(nproc)" \
  mem_bytes "$(awk '/^MemTotal/{print $2 * 1024}' /proc/meminfo)" \
  docker_version "$(docker version --format '{{.Server.Version}}' 2>/dev/null || echo unknown)" \
  storage_driver "$(docker info --format '{{.Driver}}' 2>/dev/null || echo unknown)" \
  backing_fs "$(docker info --format '{{range .DriverStatus}}{{if eq (index . 0) "Backing Filesystem"}}{{index . 1}}{{end}}{{end}}' 2>/dev/null || true)" \
  docker_root_source "${mount_source:-}" \
  docker_root_fstype "${mount_fstype:-}" \
  docker_root_options "${mount_options:-}" \
  data_disk "$(readlink -f -- "${LL_DATA_DISK:-/dev/null}")" \
  data_disk_bytes "$(blockdev --getsize64 "$(readlink -f -- "${LL_DATA_DISK:-/dev/null}")" 2>/dev/null || echo 0)" \
  loadavg "$(cat /proc/loadavg)" \
  > summary.json

ll_write_manifest "$PWD"
