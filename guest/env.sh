#!/usr/bin/env bash
# Captures the host's environment into $1: kernel, engine (docker or podman:
# version, storage driver or snapshotter and its options), storage, disks, load.
# summary.json holds the few facts the report prints; the rest is raw. A MANIFEST
# (as for trials) lets the controller check that what it unpacked is what was written.
set -euo pipefail
# The controller always starts this script by its full path: ${0%/*} is its folder, no dirname process.
source "${0%/*}/lib.sh"
out="${1:?usage: env.sh <output folder>}"
ll_work_dir
# Files of an earlier capture (xfs-info.txt from another profile) must not pass as current.
rm -rf -- "$out"
mkdir -p -- "$out"
cd -- "$out"

# A copy of a text file with builtins only (no cat or cp process); status 1 when it is missing.
copy_text() {
  local text
  [ -f "$1" ] || return 1
  IFS= read -r -d '' text < "$1" || true
  printf '%s' "$text" > "$2"
}

uname -a > kernel.txt
copy_text /proc/cmdline cmdline.txt
copy_text /etc/os-release os-release.txt
copy_text /proc/loadavg loadavg.txt
nproc > nproc.txt
free -b > free.txt
: > cpu.txt
while IFS= read -r line; do
  if [[ $line == 'model name'* ]]; then
    printf '%s\n' "$line" > cpu.txt
    break
  fi
done < /proc/cpuinfo

# The engine's own account of itself: `docker info` or `podman info` as text,
# version and info as JSON, the images, and the tool images among them. Each
# engine CLI call costs half a second to a second of CPU under TCG, curl to
# Docker's socket a third of that, and this runs on every host at the start
# of every run, with the hosts sharing the controller's cores. So a Docker
# host with curl answers from the Engine API (the JSON the CLI's `{{json .}}`
# would print of the server, without the client's own part), with the text
# of `docker info` the only CLI call; Podman (no Docker socket) and a Docker
# host without curl use the CLI. Two lanes at once, each writing files of
# its own.

# "<tags> <sha>" per image that carries layerlab.archive-sha256 (load-image.sh
# checked the archive's bytes against it), sorted: equal on every host, same
# bytes. Podman's localhost/ prefix is dropped so docker and podman hosts read alike.
tool_images_cli() {
  local ids
  ll_engine images --format '{{.Repository}}:{{.Tag}} {{.ID}} {{.Size}}' > images.txt 2>&1 || true
  # One inspect of every image listed, each line "<sha> <tags>" turned into
  # "<tags> <sha>" (only images with the label have a hex first word).
  mapfile -t ids < <(awk '$2 ~ /^[0-9a-f]+$/ {print $2}' images.txt | sort -u)
  : > tool-images.txt
  if [ "${#ids[@]}" -gt 0 ]; then
    ll_engine image inspect -f '{{index .Config.Labels "layerlab.archive-sha256"}} {{range .RepoTags}}{{.}} {{end}}' "${ids[@]}" 2> /dev/null |
      awk '$1 ~ /^[0-9a-f]+$/ {line = ""; for (i = 2; i <= NF; i++) line = line $i " "; print line $1}' |
      sed 's#localhost/##g' | sort > tool-images.txt || true
  fi
}

# The same from the Engine API's image list (images.json), read with bash's
# regex: the Engine writes each image's fields in a fixed order (Labels,
# ParentId, RepoDigests, RepoTags), and "[^{]*" keeps a match inside one image.
tool_images_api() {
  local rest labels tags lines=()
  local image_re='"Labels":\{([^}]*)\}[^{]*"RepoTags":\[([^]]*)\]'
  local sha_re='"layerlab\.archive-sha256":"([0-9a-f]{64})"'
  rest="$(< images.json)"
  while [[ $rest =~ $image_re ]]; do
    labels="${BASH_REMATCH[1]}" tags="${BASH_REMATCH[2]}"
    rest="${rest#*"${BASH_REMATCH[0]}"}"
    [[ $labels =~ $sha_re ]] || continue
    tags="${tags//\"/}"
    tags="${tags//,/ }"
    lines+=("${tags:+$tags }${BASH_REMATCH[1]}")
  done
  if [ "${#lines[@]}" -gt 0 ]; then printf '%s\n' "${lines[@]}" | sort > tool-images.txt; else : > tool-images.txt; fi
}

# The API path only where the socket answers. One curl asks for all three
# documents (a curl process costs about 0.2 s under TCG), and api-status.txt
# keeps each one's HTTP status ("000": no answer): the version's decides the
# path, info's whether docker-info.json holds the engine's info.
use_api='' version_status='' info_status=''
if [ "$LL_ENGINE" = docker ] && command -v curl > /dev/null; then
  ll_docker_api --write-out '%{http_code} %{url_effective}\n' \
    http://docker/version -o docker-version.json http://docker/info -o docker-info.json \
    http://docker/images/json -o images.json > api-status.txt 2> /dev/null || true
  { read -r version_status _ && read -r info_status _; } < api-status.txt || true
  if [ "$version_status" = 200 ]; then
    use_api=1
  else
    # The CLI path writes these files itself, and none of an unanswered API may stay.
    rm -f -- docker-version.json docker-info.json images.json api-status.txt
  fi
fi

engine_lane() {
  ll_engine info > "$LL_ENGINE-info.txt" 2>&1 || true
  if [ -n "$use_api" ]; then tool_images_api; else tool_images_cli; fi
}
engine_lane &
engine_lane_pid=$!

# The facts summary.json takes: engine version, storage driver (or
# snapshotter), backing filesystem, a third fact (podman: the storage
# options; docker: the snapshotter's driver-type under the containerd image
# store), and containerd's version.
engine_version='' driver='' backing_fs='' third_fact='' containerd_version=''
if [ -n "$use_api" ]; then
  [ "$info_status" = 200 ] || echo '{}' > docker-info.json
  version_json="$(< docker-version.json)" info_json="$(< docker-info.json)"
  re='"Name":"Engine","Version":"([^"]*)"'
  if [[ $version_json =~ $re ]]; then engine_version="${BASH_REMATCH[1]}"; fi
  re='"Driver":"([^"]*)"'
  if [[ $info_json =~ $re ]]; then driver="${BASH_REMATCH[1]}"; fi
  re='\["Backing Filesystem","([^"]*)"\]'
  if [[ $info_json =~ $re ]]; then backing_fs="${BASH_REMATCH[1]}"; fi
  # With the containerd image store, DriverStatus names the snapshotter type and .Driver the snapshotter.
  re='\["driver-type","([^"]*)"\]'
  if [[ $info_json =~ $re ]]; then third_fact="${BASH_REMATCH[1]}"; fi
  # The API's version lists containerd among the engine's components.
  re='\{"Name":"containerd","Version":"([^"]*)"'
  if [[ $version_json =~ $re ]]; then containerd_version="${BASH_REMATCH[1]}"; fi
else
  # Each JSON call also prints, on the lines before its JSON, the facts summary.json takes from it.
  nl='{{"\n"}}'
  if [ "$LL_ENGINE" = podman ]; then
    # No daemon: the local podman is client and engine at once.
    version_facts='{{.Client.Version}}'
    info_facts="{{.Store.GraphDriverName}}$nl{{index .Store.GraphStatus \"Backing Filesystem\"}}$nl{{json .Store.GraphOptions}}"
  else
    version_facts='{{.Server.Version}}'
    info_facts="{{.Driver}}$nl{{range .DriverStatus}}{{if eq (index . 0) \"Backing Filesystem\"}}{{index . 1}}{{end}}{{end}}"
    info_facts+="$nl{{range .DriverStatus}}{{if eq (index . 0) \"driver-type\"}}{{index . 1}}{{end}}{{end}}"
  fi
  { read -r engine_version && cat > "$LL_ENGINE-version.json"; } \
    < <(ll_engine version --format "$version_facts$nl{{json .}}" 2> /dev/null) || true
  { read -r driver && read -r backing_fs && read -r third_fact && cat > "$LL_ENGINE-info.json"; } \
    < <(ll_engine info --format "$info_facts$nl{{json .}}" 2> /dev/null) || true
  # containerd asked itself (a Go binary's start: 0.1-0.3 s under TCG):
  # "containerd <package> <version> <commit>", its third word.
  containerd --version > containerd-version.txt 2>&1 || true
  read -r first _ third _ < containerd-version.txt || true
  if [ "${first:-}" = containerd ]; then containerd_version="${third:-}"; fi
fi
[ -s "$LL_ENGINE-info.json" ] || echo '{}' > "$LL_ENGINE-info.json"
[ -s "$LL_ENGINE-version.json" ] || echo '{}' > "$LL_ENGINE-version.json"
copy_text "$LL_DAEMON_JSON" daemon.json || true
copy_text "$LL_PODMAN_CONF" storage.conf || true
copy_text "$LL_CONTAINERD_CONF" containerd-config.toml || true
lsblk -b -o NAME,SIZE,TYPE,FSTYPE,MOUNTPOINT,MODEL,SERIAL > lsblk.txt 2>&1 || true
df -B1 -T > df.txt 2>&1 || true
findmnt -n -o SOURCE,FSTYPE,OPTIONS --target /var/lib/docker > docker-root-mount.txt 2>&1 || true
copy_text "$LL_STATE/mkfs.txt" mkfs.txt || true
read -r mount_source mount_fstype mount_options < docker-root-mount.txt || true
# findmnt --target names the filesystem holding the folder: xfs_info only when
# that is /var/lib/docker's own mount (the data disk), as before.
if [ "${mount_fstype:-}" = xfs ] && mountpoint -q /var/lib/docker; then
  xfs_info /var/lib/docker > xfs-info.txt 2>&1 || true
fi
# lvs (about 0.2 s under TCG) only where device-mapper has a device to list;
# elsewhere lvs.txt stays empty, as lvs would leave it.
: > lvs.txt
for dev in /dev/mapper/*; do
  if [ "$dev" != /dev/mapper/control ] && [ -e "$dev" ]; then
    lvs -a -o +devices > lvs.txt 2>&1 || true
    break
  fi
done
wait "$engine_lane_pid" || true

# Engine, version, storage driver (or snapshotter) and its options, as each engine names them.
engine_version="${engine_version:-unknown}"
driver="${driver:-unknown}"
snapshotter=""
if [ "$LL_ENGINE" = podman ]; then
  docker_version="podman $engine_version"
  storage_options="$third_fact"
else
  docker_version="$engine_version"
  if [ -n "$third_fact" ]; then snapshotter="$driver ($third_fact)"; fi
  # daemon.json's "storage-opts" line(s), as written by the profile.
  storage_options=''
  re='^[[:space:]]*"storage-opts":[[:space:]]*(.*)$'
  if [ -f daemon.json ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      if [[ $line =~ $re ]]; then storage_options+="${storage_options:+$'\n'}${BASH_REMATCH[1]%,}"; fi
    done < daemon.json
  fi
fi
# The rest from what was captured above or from /proc, with builtins.
read -r hostname < /proc/sys/kernel/hostname
read -r kernel < /proc/sys/kernel/osrelease
read -r cpus < nproc.txt
read -r loadavg < /proc/loadavg
read -r cpu_line < cpu.txt || true
re='^model name[[:space:]]*: (.*)$'
cpu=''
if [[ ${cpu_line:-} =~ $re ]]; then cpu="${BASH_REMATCH[1]}"; fi
mem_bytes=''
while read -r key value _; do
  if [ "$key" = MemTotal: ]; then mem_bytes=$((value * 1024)); break; fi
done < /proc/meminfo
data_disk="$(readlink -f -- "${LL_DATA_DISK:-/dev/null}")"
ll_json_obj \
  hostname "$hostname" \
  kernel "$kernel" \
  os "$(. /etc/os-release && echo "$PRETTY_NAME")" \
  cpu "$cpu" \
  cpus "$cpus" \
  mem_bytes "$mem_bytes" \
  engine "$LL_ENGINE" \
  engine_version "$engine_version" \
  containerd_version "$containerd_version" \
  docker_version "$docker_version" \
  storage_driver "$driver" \
  snapshotter "$snapshotter" \
  storage_options "$storage_options" \
  backing_fs "$backing_fs" \
  docker_root_source "${mount_source:-}" \
  docker_root_fstype "${mount_fstype:-}" \
  docker_root_options "${mount_options:-}" \
  data_disk "$data_disk" \
  data_disk_bytes "$(blockdev --getsize64 "$data_disk" 2>/dev/null || echo 0)" \
  loadavg "$loadavg" \
  > summary.json

ll_write_manifest "$PWD"
