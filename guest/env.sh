#!/usr/bin/env bash
# Captures the host's environment into $1: kernel, engine (docker or podman:
# version, storage driver or snapshotter and its options), storage, disks, load.
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
# The engine's own account of itself: `docker info` or `podman info` as text,
# version and info as JSON, the images. Each engine call costs half a second
# to a second under TCG and this runs on every host at the start of every run,
# so there are as few as it takes (each JSON call also prints, on the lines
# before its JSON, the facts summary.json takes from it), and they run in two
# lanes at once, each lane writing files of its own.
engine_lane() {
  ll_engine info > "$LL_ENGINE-info.txt" 2>&1 || true
  ll_engine images --format '{{.Repository}}:{{.Tag}} {{.ID}} {{.Size}}' > images.txt 2>&1 || true
  # The tool images loaded here and the sha256 of the archive each came from
  # (load-image.sh checked the bytes against it): equal on every host, same bytes.
  # One inspect of every image listed, each line "<sha> <tags>" turned into
  # "<tags> <sha>" (only images with the label have a hex first word); podman's
  # localhost/ prefix dropped so docker and podman hosts read alike.
  local ids
  mapfile -t ids < <(awk '$2 ~ /^[0-9a-f]+$/ {print $2}' images.txt | sort -u)
  : > tool-images.txt
  if [ "${#ids[@]}" -gt 0 ]; then
    ll_engine image inspect -f '{{index .Config.Labels "layerlab.archive-sha256"}} {{range .RepoTags}}{{.}} {{end}}' "${ids[@]}" 2> /dev/null |
      awk '$1 ~ /^[0-9a-f]+$/ {line = ""; for (i = 2; i <= NF; i++) line = line $i " "; print line $1}' |
      sed 's#localhost/##g' | sort > tool-images.txt || true
  fi
}
engine_lane &
engine_lane_pid=$!

nl='{{"\n"}}'
if [ "$LL_ENGINE" = podman ]; then
  # No daemon: the local podman is client and engine at once.
  version_facts='{{.Client.Version}}'
  info_facts="{{.Store.GraphDriverName}}$nl{{index .Store.GraphStatus \"Backing Filesystem\"}}$nl{{json .Store.GraphOptions}}"
else
  # With the containerd image store, DriverStatus names the snapshotter type and .Driver the snapshotter.
  version_facts='{{.Server.Version}}'
  info_facts="{{.Driver}}$nl{{range .DriverStatus}}{{if eq (index . 0) \"Backing Filesystem\"}}{{index . 1}}{{end}}{{end}}"
  info_facts+="$nl{{range .DriverStatus}}{{if eq (index . 0) \"driver-type\"}}{{index . 1}}{{end}}{{end}}"
fi
engine_version='' driver='' backing_fs='' third_fact=''
{ read -r engine_version && cat > "$LL_ENGINE-version.json"; } \
  < <(ll_engine version --format "$version_facts$nl{{json .}}" 2> /dev/null) || true
{ read -r driver && read -r backing_fs && read -r third_fact && cat > "$LL_ENGINE-info.json"; } \
  < <(ll_engine info --format "$info_facts$nl{{json .}}" 2> /dev/null) || true
[ -s "$LL_ENGINE-info.json" ] || echo '{}' > "$LL_ENGINE-info.json"
[ -s "$LL_ENGINE-version.json" ] || echo '{}' > "$LL_ENGINE-version.json"
cp "$LL_DAEMON_JSON" daemon.json 2>/dev/null || true
cp "$LL_PODMAN_CONF" storage.conf 2>/dev/null || true
cp "$LL_CONTAINERD_CONF" containerd-config.toml 2>/dev/null || true
containerd --version > containerd-version.txt 2>&1 || true
lsblk -b -o NAME,SIZE,TYPE,FSTYPE,MOUNTPOINT,MODEL,SERIAL > lsblk.txt 2>&1 || true
df -B1 -T > df.txt 2>&1 || true
findmnt -n -o SOURCE,FSTYPE,OPTIONS --target /var/lib/docker > docker-root-mount.txt 2>&1 || true
cp "$LL_STATE/mkfs.txt" mkfs.txt 2>/dev/null || true
if mountpoint -q /var/lib/docker && [ "$(findmnt -n -o FSTYPE /var/lib/docker)" = xfs ]; then
  xfs_info /var/lib/docker > xfs-info.txt 2>&1 || true
fi
lvs -a -o +devices > lvs.txt 2>&1 || true
wait "$engine_lane_pid" || true

read -r mount_source mount_fstype mount_options < docker-root-mount.txt || true
# Engine, version, storage driver (or snapshotter) and its options, as each engine names them.
engine_version="${engine_version:-unknown}"
driver="${driver:-unknown}"
if [ "$LL_ENGINE" = podman ]; then
  docker_version="podman $engine_version"
  snapshotter=""
  storage_options="$third_fact"
else
  docker_version="$engine_version"
  snapshotter=""
  if [ -n "$third_fact" ]; then snapshotter="$driver ($third_fact)"; fi
  storage_options="$(sed -n 's/^[[:space:]]*"storage-opts":[[:space:]]*//p' "$LL_DAEMON_JSON" 2>/dev/null | sed 's/,$//' || true)"
fi
ll_json_obj \
  hostname "$(hostname)" \
  kernel "$(uname -r)" \
  os "$(. /etc/os-release && echo "$PRETTY_NAME")" \
  cpu "$(sed 's/^model name[[:space:]]*: //' cpu.txt)" \
  cpus "$(nproc)" \
  mem_bytes "$(awk '/^MemTotal/{print $2 * 1024}' /proc/meminfo)" \
  engine "$LL_ENGINE" \
  engine_version "$engine_version" \
  containerd_version "$(awk '/^containerd /{print $3}' containerd-version.txt)" \
  docker_version "$docker_version" \
  storage_driver "$driver" \
  snapshotter "$snapshotter" \
  storage_options "$storage_options" \
  backing_fs "$backing_fs" \
  docker_root_source "${mount_source:-}" \
  docker_root_fstype "${mount_fstype:-}" \
  docker_root_options "${mount_options:-}" \
  data_disk "$(readlink -f -- "${LL_DATA_DISK:-/dev/null}")" \
  data_disk_bytes "$(blockdev --getsize64 "$(readlink -f -- "${LL_DATA_DISK:-/dev/null}")" 2>/dev/null || echo 0)" \
  loadavg "$(cat /proc/loadavg)" \
  > summary.json

ll_write_manifest "$PWD"
