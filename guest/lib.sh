#!/usr/bin/env bash
# Shared by every script that runs on a lab host. Sourced, never executed.
# Parameters arrive in LL_* environment variables; nothing here evaluates them.

# shellcheck disable=SC2034 # used by the scripts that source this file
LL_ROOT=/opt/layerlab
LL_STATE=/var/lib/layerlab
# Bind-mount sources sit beside docker's data, on the same filesystem as volumes,
# so layer/volume/bind compare mount mechanisms and not disks.
LL_BIND_ROOT=/var/lib/docker/layerlab-bind
# Where the local target's shared host folder (virtiofs tag llshare) is mounted.
LL_SHARE_ROOT=/mnt/layerlab-share

ll_die() {
  echo "layerlab: $*" >&2
  exit 1
}

ll_require() {
  local name
  for name in "$@"; do
    [ -n "${!name:-}" ] || ll_die "missing environment variable $name"
  done
}

# JSON string literal of $1 (quotes, backslashes and control characters escaped).
ll_json_str() {
  local s="$1"
  s="${s//\\/\\\\}"
  s="${s//\"/\\\"}"
  s="${s//$'\n'/\\n}"
  s="${s//$'\t'/\\t}"
  s="${s//$'\r'/}"
  printf '"%s"' "$s"
}

# ll_json_obj key value key value ... -> {"key":"value",...} (all strings)
ll_json_obj() {
  local out="{" sep=""
  while [ "$#" -ge 2 ]; do
    out+="$sep$(ll_json_str "$1"):$(ll_json_str "$2")"
    sep=","
    shift 2
  done
  printf '%s}\n' "$out"
}

# CPU steal ticks so far (8th value of the cpu line in /proc/stat).
ll_steal_ticks() {
  awk '/^cpu /{print $9; exit}' /proc/stat
}

# Seconds since the epoch with nanoseconds (for timing phases).
ll_now() {
  date +%s.%N
}

# Seconds between two ll_now values, to the microsecond.
ll_elapsed() {
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'
}

# Mounts the VM host's shared folder (mount kind hostshare) unless it is mounted.
ll_hostshare_mount() {
  mountpoint -q "$LL_SHARE_ROOT" && return 0
  mkdir -p "$LL_SHARE_ROOT"
  mount -t virtiofs llshare "$LL_SHARE_ROOT" 2>/dev/null ||
    ll_die "mount kind hostshare: no shared folder on this host (virtiofs tag llshare); only local VMs of a lab that lists hostshare have one"
}

LL_TRIAL_PIDFILE=/var/tmp/layerlab/trial.pid

# A host runs one trial at a time. An attempt whose controller vanished (SSH
# dropped, controller killed) may still be running: stop it — by its recorded
# pid, only if that pid is still a run-trial.sh — and remove its containers and
# volumes, so the new attempt starts clean and nothing is measured twice.
ll_reap_stale_trial() {
  local old pgid
  mkdir -p "$(dirname "$LL_TRIAL_PIDFILE")"
  old="$(cat "$LL_TRIAL_PIDFILE" 2>/dev/null || true)"
  if [ -n "$old" ] && [ "$old" != "$$" ] && tr '\0' ' ' < "/proc/$old/cmdline" 2>/dev/null | grep -q 'run-trial\.sh'; then
    pgid="$(ps -o pgid= -p "$old" | tr -d ' ')"
    # Never our own group (an attempt is always started in a session of its own).
    if [ "$pgid" = "$(ps -o pgid= -p "$$" | tr -d ' ')" ]; then pgid=""; fi
    echo "layerlab: stopping stale trial attempt (pid $old)" >&2
    if [ -n "$pgid" ]; then kill -TERM -- "-$pgid" 2>/dev/null || true; else kill -TERM "$old" 2>/dev/null || true; fi
    # Its cleanup traps remove volumes and folders of the same names as ours:
    # let them finish before this attempt creates its own.
    local _
    for _ in $(seq 1 60); do
      if [ -n "$pgid" ]; then kill -0 -- "-$pgid" 2>/dev/null || break; else kill -0 "$old" 2>/dev/null || break; fi
      sleep 0.5
    done
    if [ -n "$pgid" ]; then kill -KILL -- "-$pgid" 2>/dev/null || true; fi
  fi
  local ids
  ids="$(docker ps -aq --filter 'name=^ll-' 2>/dev/null || true)"
  if [ -n "$ids" ]; then
    # shellcheck disable=SC2086 # ids are docker's hex ids, one per word
    docker rm -f $ids >/dev/null 2>&1 || true
  fi
  echo "$$" > "$LL_TRIAL_PIDFILE"
}

# Writes MANIFEST in directory $1: "sha256 size path" for every other file, so
# that the controller can prove that what it unpacked is what the guest wrote.
ll_write_manifest() {
  local dir="$1" f
  (
    cd "$dir" || exit 1
    find . -type f ! -name MANIFEST -print0 | sort -z | while IFS= read -r -d '' f; do
      printf '%s %s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$(stat -c %s -- "$f")" "${f#./}"
    done
  ) > "$dir/MANIFEST"
}

# Starts applying storage profile $1 on the data disk $LL_DATA_DISK: exits the
# script (success) when the profile is already in place; otherwise stops docker,
# frees /var/lib/docker and wipes the disk, leaving its device path in LL_DISK.
ll_profile_begin() {
  local profile="$1"
  ll_require LL_DATA_DISK
  if [ "$(cat "$LL_STATE/profile" 2>/dev/null || true)" = "$profile" ] && systemctl is-active --quiet docker.service; then
    exit 0
  fi
  LL_DISK="$(readlink -f -- "$LL_DATA_DISK")"
  [ -b "$LL_DISK" ] || ll_die "data disk $LL_DATA_DISK is not a block device"
  systemctl stop docker.service docker.socket 2>/dev/null || true
  if mountpoint -q /var/lib/docker; then umount /var/lib/docker; fi
  wipefs -a -q "$LL_DISK"
  rm -rf /var/lib/docker
  mkdir -p "$LL_STATE"
}

# Mounts the freshly made filesystem on $LL_DISK (type $1) at /var/lib/docker,
# by UUID in fstab so that it survives a reboot.
ll_mount_docker_disk() {
  local fstype="$1" uuid
  mkdir -p /var/lib/docker
  uuid="$(blkid -s UUID -o value "$LL_DISK")"
  sed -i '\|[[:space:]]/var/lib/docker[[:space:]]|d' /etc/fstab
  echo "UUID=$uuid /var/lib/docker $fstype defaults 0 0" >> /etc/fstab
  mount /var/lib/docker
}

# Writes daemon.json and starts dockerd. $1 driver, $2 JSON array of storage opts.
ll_docker_start() {
  local driver="$1" opts="$2"
  mkdir -p /etc/docker "$LL_STATE"
  cat > /etc/docker/daemon.json <<JSON
{
  "storage-driver": "$driver",
  "storage-opts": $opts,
  "bridge": "none",
  "iptables": false,
  "ip-masq": false,
  "log-driver": "json-file"
}
JSON
  systemctl enable --quiet docker.service
  systemctl restart docker.service
  local _
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && return 0
    sleep 1
  done
  journalctl -u docker.service --no-pager -n 30 >&2 || true
  ll_die "dockerd did not come up with storage driver $driver"
}

# ll_mount_setup KIND NAME TARGET: sets LL_MOUNT_ARGS for `docker run`.
# Every kind gets fresh, empty storage; ll_mount_cleanup removes it.
ll_mount_setup() {
  local kind="$1" name="$2" target="$3"
  LL_MOUNT_KIND="$kind"
  LL_MOUNT_NAME="ll-$name"
  LL_MOUNT_ARGS=(--workdir "$target")
  case "$kind" in
    layer) ;; # docker creates the workdir inside the container's writable layer
    volume)
      docker volume rm -f "$LL_MOUNT_NAME" >/dev/null 2>&1 || true
      docker volume create "$LL_MOUNT_NAME" >/dev/null
      LL_MOUNT_ARGS+=(--mount "type=volume,source=$LL_MOUNT_NAME,target=$target")
      ;;
    bind)
      rm -rf -- "${LL_BIND_ROOT:?}/$LL_MOUNT_NAME"
      mkdir -p -- "$LL_BIND_ROOT/$LL_MOUNT_NAME"
      LL_MOUNT_ARGS+=(--mount "type=bind,source=$LL_BIND_ROOT/$LL_MOUNT_NAME,target=$target")
      ;;
    hostshare)
      ll_hostshare_mount
      rm -rf -- "${LL_SHARE_ROOT:?}/$LL_MOUNT_NAME"
      mkdir -p -- "$LL_SHARE_ROOT/$LL_MOUNT_NAME"
      LL_MOUNT_ARGS+=(--mount "type=bind,source=$LL_SHARE_ROOT/$LL_MOUNT_NAME,target=$target")
      ;;
    *) ll_die "unknown mount kind: $kind" ;;
  esac
}

ll_mount_cleanup() {
  case "${LL_MOUNT_KIND:-}" in
    volume) docker volume rm -f "$LL_MOUNT_NAME" >/dev/null 2>&1 || true ;;
    bind) rm -rf -- "${LL_BIND_ROOT:?}/$LL_MOUNT_NAME" ;;
    hostshare) rm -rf -- "${LL_SHARE_ROOT:?}/$LL_MOUNT_NAME" ;;
  esac
}
