#!/usr/bin/env bash
# Shared by every script that runs on a lab host. Sourced, never executed.
# Parameters arrive in LL_* environment variables; nothing here evaluates them.

# shellcheck disable=SC2034 # used by the scripts that source this file
LL_ROOT=/opt/layerlab
# layerlab's own state on the host: root's, mode 0700 (see ll_safe_dir).
LL_STATE=/var/lib/layerlab
# Scratch space of trials and environment captures. Not /var/tmp: any user can
# create a folder there first, and root would then write through their links.
LL_WORK=$LL_STATE/work
# What the first profile change set aside (the owner's /var/lib/docker,
# daemon.json, fstab lines); `down` (cleanup.sh) puts it back.
LL_BACKUP=$LL_STATE/backup
LL_DOCKER_DIR=/var/lib/docker
LL_DAEMON_JSON=/etc/docker/daemon.json
LL_FSTAB=/etc/fstab
# Bind-mount sources sit beside docker's data, on the same filesystem as volumes,
# so layer/volume/bind compare mount mechanisms and not disks.
LL_BIND_ROOT=/var/lib/docker/layerlab-bind
# Where the local target's shared host folders are mounted: virtiofs (tag
# llshare, mount kind hostshare) and NFSv4 (hostshare-nfs; the server is
# forwarded to 10.0.2.100:2049 by the VM's user-mode NIC, lab/targets/local/nfs-share.ts).
LL_SHARE_ROOT=/mnt/layerlab-share
LL_NFS_ROOT=/mnt/layerlab-nfs
LL_NFS_SOURCE=10.0.2.100:/share
# ... and 9p (hostshare-9p; QEMU's virtio-9p, tag ll9p, lab/targets/local/ninep-share.ts).
LL_9P_ROOT=/mnt/layerlab-9p
# Podman's storage (graphroot) on the data disk, beside volumes and bind sources.
LL_PODMAN_ROOT=$LL_DOCKER_DIR/podman
LL_PODMAN_CONF=/etc/containers/storage.conf
# containerd's root on the data disk when Docker keeps images in containerd.
LL_CONTAINERD_ROOT=$LL_DOCKER_DIR/layerlab-containerd
LL_CONTAINERD_CONF=/etc/containerd/config.toml
# The engine the host's profile set up (ll_profile_begin records it): docker or
# podman. Every container command of every script goes through ll_engine.
# read, not cat: this runs at every script's start, where a process costs
# tens of milliseconds under TCG. No file: docker. A file: its first line,
# with or without a newline at its end (read's status says only that).
if [ -z "${LL_ENGINE:-}" ]; then
  if [ -e "$LL_STATE/engine" ]; then read -r LL_ENGINE < "$LL_STATE/engine" || :; else LL_ENGINE=docker; fi
fi

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

# Sets variable $1 to the JSON string literal of $2: quotes and backslashes
# escaped, and every control character below 0x20 (JSON allows none raw; a
# \x01 in a CPU model name once made a whole env summary unreadable).
# Builtins only, and no subshell: ll_json_obj calls it for every key and value.
ll_json_str_to() {
  # Most strings hold no quote, backslash or control character: one test,
  # and none of the five replacements below (every trial's meta.json is 32 strings).
  if [[ $2 != *[\"\\[:cntrl:]]* ]]; then
    printf -v "$1" '"%s"' "$2"
    return 0
  fi
  local _ll_s="$2" _ll_code _ll_hex _ll_char _ll_escaped
  _ll_s="${_ll_s//\\/\\\\}"
  _ll_s="${_ll_s//\"/\\\"}"
  _ll_s="${_ll_s//$'\n'/\\n}"
  _ll_s="${_ll_s//$'\t'/\\t}"
  _ll_s="${_ll_s//$'\r'/\\r}"
  # Most strings hold no other control character: skip the 31 replacements.
  if [[ "$_ll_s" == *[[:cntrl:]]* ]]; then
    for _ll_code in {1..31}; do
      printf -v _ll_hex '%02x' "$_ll_code"
      printf -v _ll_char "\\x$_ll_hex"
      if [[ "$_ll_s" == *"$_ll_char"* ]]; then
        printf -v _ll_escaped '\\u00%s' "$_ll_hex"
        _ll_s="${_ll_s//"$_ll_char"/"$_ll_escaped"}"
      fi
    done
  fi
  printf -v "$1" '"%s"' "$_ll_s"
}

# JSON string literal of $1 on stdout.
ll_json_str() {
  local _ll_out
  ll_json_str_to _ll_out "$1"
  printf '%s' "$_ll_out"
}

# ll_json_obj key value key value ... -> {"key":"value",...} (all strings)
ll_json_obj() {
  local out="{" sep="" _ll_key _ll_value
  while [ "$#" -ge 2 ]; do
    ll_json_str_to _ll_key "$1"
    ll_json_str_to _ll_value "$2"
    out+="$sep$_ll_key:$_ll_value"
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

# ll_phase NAME [TIME]: the trial enters phase NAME now (or at TIME, an
# $EPOCHREALTIME taken earlier): one line "NAME SECONDS" appended to
# $LL_OUT/phases. A phase lasts until the next line; run-trial.sh writes the
# first (setup) and the last (end). The controller reads the file as untrusted
# (lab/collect/phases.ts) and knows these names: setup (run-trial.sh before the
# scenario), script (the scenario script, where it marks nothing), mount (the
# trial's storage), prepare (untimed work the measurement needs: a dataset, a
# server started), start (containers created and started), work (what is
# measured: the tool running, or the span the script times itself), output
# (reading results back), cleanup, finish (run-trial.sh after the scenario),
# end. Builtins only (printf, a redirection, $EPOCHREALTIME): a process costs
# tens of milliseconds under TCG. Outside a trial (no LL_OUT) it does nothing.
ll_phase() {
  [ -n "${LL_OUT:-}" ] || return 0
  local _ll_at="${2:-$EPOCHREALTIME}"
  # A locale whose decimal separator is a comma writes $EPOCHREALTIME with one.
  # A mark that cannot be written never fails the trial: its time is then not itemised.
  { printf '%s %s\n' "$1" "${_ll_at/,/.}" >> "$LL_OUT/phases"; } 2> /dev/null || :
}

# Seconds between two ll_now values, to the microsecond.
ll_elapsed() {
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'
}

# Mounts the VM host's shared folder of mount kind $1 (hostshare,
# hostshare-nfs or hostshare-9p) unless it is mounted; sets LL_SHARED to where it is.
ll_hostshare_mount() {
  local kind="$1" err
  case "$kind" in
    hostshare) LL_SHARED="$LL_SHARE_ROOT" ;;
    hostshare-nfs) LL_SHARED="$LL_NFS_ROOT" ;;
    hostshare-9p) LL_SHARED="$LL_9P_ROOT" ;;
    *) ll_die "not a shared-folder mount kind: $kind" ;;
  esac
  mountpoint -q "$LL_SHARED" && return 0
  mkdir -p "$LL_SHARED"
  case "$kind" in
    hostshare)
      mount -t virtiofs llshare "$LL_SHARED" 2>/dev/null ||
        ll_die "mount kind hostshare: no shared folder on this host (virtiofs tag llshare); only local VMs of a lab that lists hostshare have one"
      ;;
    hostshare-nfs)
      # NFSv4.2 over TCP, hard (as Vagrant's NFS shares), mounted by the kernel
      # itself (no mount.nfs in the guest image): addr= is the server's address.
      err="$(mount -t nfs4 -o "vers=4.2,proto=tcp,port=2049,addr=${LL_NFS_SOURCE%%:*},hard,timeo=600" \
        "$LL_NFS_SOURCE" "$LL_SHARED" 2>&1)" ||
        ll_die "mount kind hostshare-nfs: cannot mount $LL_NFS_SOURCE ($err); only local VMs of a lab that lists hostshare-nfs have an NFS server"
      ;;
    hostshare-9p)
      # 9P2000.L, 512 kB messages (the virtio transport's most on this
      # kernel), cache=mmap: no client cache but shared mmap works (databases).
      err="$(mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=mmap ll9p "$LL_SHARED" 2>&1)" ||
        ll_die "mount kind hostshare-9p: cannot mount tag ll9p ($err); only local VMs of a lab that lists hostshare-9p have one, booted with the generic kernel"
      ;;
  esac
}

# Creates each directory (mode 0700, parents first) unless it exists, and
# refuses one that someone other than root could have planted or can write
# into: a symbolic link, another owner, group- or world-writable. Root never
# writes through it: the caller writes only once this has returned. One stat
# for all of them, and chmod only where the mode is not 0700 yet: every trial
# starts here, and each process costs tens of milliseconds under TCG.
ll_safe_dir() {
  local dir owner mode stats
  for dir in "$@"; do
    [ ! -L "$dir" ] || ll_die "$dir is a symbolic link, refusing to use it: remove it (it is not layerlab's), then retry"
    if [ ! -e "$dir" ]; then
      # Not mkdir -p: a folder someone creates in between makes this fail, not pass.
      mkdir -m 0700 -- "$dir" || ll_die "cannot create $dir"
    fi
    [ -d "$dir" ] || ll_die "$dir is not a directory, refusing to use it: remove it, then retry"
  done
  # stat -c of a symbolic link describes the link itself: one planted since
  # the check above shows its owner, never root's.
  stats="$(stat -c '%u %a %n' -- "$@")" || ll_die "cannot read the owner and mode of $*"
  while read -r owner mode dir; do
    [ "$owner" = 0 ] || ll_die "$dir is owned by uid $owner, not root, refusing to use it: remove it, then retry"
    [ $((8#$mode & 8#022)) = 0 ] ||
      ll_die "$dir is group- or world-writable (mode $mode), refusing to use it: remove it, then retry"
    [ "$mode" = 700 ] || chmod 0700 -- "$dir"
  done <<< "$stats"
}

# The state and scratch folders, checked (ll_safe_dir) before anything is written there.
ll_work_dir() {
  ll_safe_dir "$LL_STATE" "$LL_WORK"
}

# The same folders on every trial, with builtins only (a stat process costs
# tens of milliseconds under TCG on every trial): still directories, not links,
# and root's. ll_work_dir checked them in full at the run's start (env.sh runs
# first in every run and resumption); a root-owned folder's mode can change
# since then only by root's hand, so their mode is not asked again.
ll_work_dir_unchanged() {
  local dir
  for dir in "$LL_STATE" "$LL_WORK"; do
    [ ! -L "$dir" ] || ll_die "$dir is a symbolic link, refusing to use it: remove it (it is not layerlab's), then run again"
    [ -d "$dir" ] || ll_die "$dir is missing or not a directory (env.sh creates it at the start of every run): run again"
    [ -O "$dir" ] || ll_die "$dir is no longer owned by root, refusing to use it: remove it, then run again"
  done
}

# Everything layerlab creates in Docker carries its lab's label (and its run's,
# in a run): cleanup.sh and the ownership check find it by label, never by a
# name pattern, so an owner's container called ll-something is left alone.
# What a cell keeps across its trials (ll_kept_container: LL_KEPT=<scenario>-<mount>
# while it creates) carries layerlab.kept=<cell> too, by which it is found again.
ll_label_args() {
  [ -n "${LL_LAB:-}" ] || ll_die "LL_LAB is not set: everything layerlab creates in Docker carries its lab's label"
  LL_LABEL_ARGS=(--label "layerlab.lab=$LL_LAB")
  if [ -n "${LL_RUN:-}" ]; then LL_LABEL_ARGS+=(--label "layerlab.run=$LL_RUN"); fi
  if [ -n "${LL_KEPT:-}" ]; then LL_LABEL_ARGS+=(--label "layerlab.kept=$LL_KEPT"); fi
}

# Sets variable $1 to the labels of ll_label_args as the Engine API takes them
# (a JSON object), so that what the API creates is labelled as the CLI's would be.
ll_label_json_to() {
  local _ll_arg _ll_pairs=()
  ll_label_args
  for _ll_arg in "${LL_LABEL_ARGS[@]}"; do
    if [ "$_ll_arg" != --label ]; then _ll_pairs+=("${_ll_arg%%=*}" "${_ll_arg#*=}"); fi
  done
  printf -v "$1" '%s' "$(ll_json_obj "${_ll_pairs[@]}")"
}

# The engine's CLI: docker's, or podman's, which takes the same commands and
# flags for everything layerlab does (run, create, exec, inspect, volume, import).
ll_engine() {
  case "$LL_ENGINE" in
    docker | podman) command "$LL_ENGINE" "$@" ;;
    *) ll_die "unknown engine $LL_ENGINE (expected docker or podman)" ;;
  esac
}

# The one wrapper every script that sources this file (scenarios included)
# creates through: `docker run|create`, `docker volume|network create` get the
# labels; every other docker command passes through unchanged. Whatever the
# engine: scenarios say `docker` and run unchanged on podman hosts.
docker() {
  case "${1:-}:${2:-}" in
    run:* | create:*)
      ll_label_args
      ll_engine "$1" "${LL_LABEL_ARGS[@]}" "${@:2}"
      ;;
    volume:create | network:create)
      ll_label_args
      ll_engine "$1" "$2" "${LL_LABEL_ARGS[@]}" "${@:3}"
      ;;
    *) ll_engine "$@" ;;
  esac
}

LL_TRIAL_PIDFILE=$LL_WORK/trial.pid

# A host runs one trial at a time. An attempt whose controller vanished (SSH
# dropped, controller killed) may still be running: stop it — by its recorded
# pid, only if that pid is still a run-trial.sh — and remove its containers and
# volumes, so the new attempt starts clean and nothing is measured twice.
ll_reap_stale_trial() {
  local old pgid
  ll_work_dir_unchanged
  # An empty pidfile (or none): the last attempt ran to its end (run-trial.sh
  # empties it last) and its scenario's trap removed what it made. Nothing to
  # reap, and no engine call, which costs a second or more under TCG on every trial.
  if [ ! -s "$LL_TRIAL_PIDFILE" ]; then
    echo "$$" > "$LL_TRIAL_PIDFILE"
    return 0
  fi
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
  ids="$(ll_engine ps -aq --filter label=layerlab.lab 2>/dev/null || true)"
  if [ -n "$ids" ]; then
    # shellcheck disable=SC2086 # ids are docker's hex ids, one per word
    docker rm -f $ids >/dev/null 2>&1 || true
  fi
  echo "$$" > "$LL_TRIAL_PIDFILE"
}

# Writes MANIFEST in directory $1: "sha256 size path" for every other file, so
# that the controller can prove that what it unpacked is what the guest wrote.
# Two processes for all files (find for the sizes and paths, one sha256sum),
# the rest in bash: under TCG each process start costs tens of milliseconds,
# and this runs on every trial.
ll_write_manifest() {
  local dir="$1" found=() entries=() paths=() sums=() entry i
  # "size path" of every file; the MANIFEST (if any) is not one of them.
  mapfile -d '' found < <(find "$dir" -type f -printf '%s %P\0')
  for entry in "${found[@]}"; do
    [ "${entry#* }" != MANIFEST ] || continue
    entries+=("$entry")
    paths+=("$dir/${entry#* }")
  done
  # No files, no sha256sum: without operands it would hash its stdin.
  if [ "${#paths[@]}" -gt 0 ]; then mapfile -t sums < <(sha256sum -- "${paths[@]}"); fi
  [ "${#sums[@]}" = "${#entries[@]}" ] || ll_die "sha256sum of the files in $dir failed"
  for i in "${!entries[@]}"; do
    printf '%s %s\n' "${sums[i]%% *}" "${entries[i]}"
  done > "$dir/MANIFEST"
}

# Whether the engine is up: dockerd's service, or podman answering (no daemon).
ll_engine_up() {
  if [ "$LL_ENGINE" = podman ]; then
    command podman info >/dev/null 2>&1
  else
    systemctl is-active --quiet docker.service
  fi
}

# Whether profile $1 is already in place (then applying it changes nothing).
ll_profile_in_place() {
  [ "$(cat "$LL_STATE/profile" 2>/dev/null || true)" = "$1" ] && ll_engine_up
}

# Prints "<what>: <names>" for the things of one kind that Docker lists and
# that do not carry a layerlab.lab label. $1 what, then the docker list command.
ll_unlabelled() {
  local what="$1" extra
  shift
  extra="$(comm -23 <(ll_engine "$@" | sort -u) \
    <(ll_engine "$@" --filter label=layerlab.lab | sort -u) | paste -sd' ' -)"
  if [ -n "$extra" ]; then echo "$what: $extra"; fi
}

# What Docker's data folder holds that layerlab did not create, one line per
# kind; nothing when it holds only layerlab's (or Docker's own empty skeleton).
ll_foreign_docker_content() {
  local entry others=()
  # Docker's own top-level folders, and ours: anything else someone put there.
  while IFS= read -r -d '' entry; do
    case "$entry" in
      aufs | btrfs | buildkit | containerd | containers | devicemapper | engine-id | fuse-overlayfs | image | \
        lost+found | network | overlay2 | plugins | runtimes | swarm | tmp | trust | vfs | volumes | zfs | layerlab-bind | \
        podman | layerlab-containerd) ;;
      *) others+=("$entry") ;;
    esac
  done < <(if [ -d "$LL_DOCKER_DIR" ]; then find "$LL_DOCKER_DIR" -mindepth 1 -maxdepth 1 -printf '%f\0'; fi)
  if [ "${#others[@]}" -gt 0 ]; then echo "files not made by Docker in $LL_DOCKER_DIR: ${others[*]}"; fi
  # Docker is asked even without /var/lib/docker: its data may live elsewhere (data-root).
  if ! ll_engine info >/dev/null 2>&1; then
    if [ -d "$LL_DOCKER_DIR" ] && [ -n "$(find "$LL_DOCKER_DIR" -mindepth 1 -maxdepth 1 -print -quit)" ]; then
      echo "docker is not running, so what $LL_DOCKER_DIR holds cannot be listed (start docker to let layerlab look)"
    fi
    return 0
  fi
  ll_unlabelled containers ps -a --format '{{.Names}}'
  ll_unlabelled images image ls -a --format '{{.Repository}}:{{.Tag}}@{{.ID}}'
  ll_unlabelled volumes volume ls --format '{{.Name}}'
  ll_unlabelled networks network ls --filter type=custom --format '{{.Name}}'
}

# What stands in the way of applying a profile with data disk $1, one line
# each (status 3), or nothing (status 0). A disk (or a partition of it) in use
# anywhere but /var/lib/docker always does; what Docker holds does unless the
# host is the lab's own (LL_DEDICATED=1: a VM layerlab made, or a static
# machine whose inventory says `dedicated: true`).
ll_may_change_host() {
  local disk="$1" problems mounts
  mounts="$(lsblk -nrpo MOUNTPOINT -- "$disk" 2>/dev/null | grep -v -x -e '' -e "$LL_DOCKER_DIR" | paste -sd' ' - || true)"
  problems="$(
    if [ -n "$mounts" ]; then echo "data disk $disk is in use at $mounts"; fi
    if [ "${LL_DEDICATED:-0}" != 1 ]; then ll_foreign_docker_content; fi
  )"
  [ -n "$problems" ] || return 0
  printf '%s\n' "$problems"
  return 3
}

# First change of a host: the owner's setup is set aside before anything
# changes, so that cleanup.sh (`down`) can put it back: whether docker ran,
# daemon.json (or that there was none), the fstab lines for /var/lib/docker,
# and /var/lib/docker itself (moved, never deleted). Later changes find the
# backup complete; what is at /var/lib/docker then is layerlab's own.
ll_set_aside_owner_setup() {
  local was_active=0
  if systemctl is-active --quiet docker.service; then was_active=1; fi
  systemctl stop docker.service docker.socket 2>/dev/null || true
  while mountpoint -q "$LL_DOCKER_DIR"; do umount "$LL_DOCKER_DIR"; done
  if [ -f "$LL_BACKUP/complete" ]; then
    rm -rf -- "$LL_DOCKER_DIR"
    return 0
  fi
  # Every step copies or moves without overwriting: an attempt cut short is redone safely.
  ll_safe_dir "$LL_BACKUP"
  if [ "$was_active" = 1 ]; then touch "$LL_BACKUP/docker-was-active"; fi
  # ll_docker_start enables docker at boot: whether the owner had is put back too.
  if systemctl is-enabled --quiet docker.service 2>/dev/null; then touch "$LL_BACKUP/docker-was-enabled"; fi
  if [ -e "$LL_DAEMON_JSON" ]; then
    cp -p -- "$LL_DAEMON_JSON" "$LL_BACKUP/daemon.json"
  else
    touch "$LL_BACKUP/daemon.json.absent"
  fi
  cp -p -- "$LL_FSTAB" "$LL_BACKUP/fstab.before"
  grep "[[:space:]]$LL_DOCKER_DIR/\{0,1\}[[:space:]]" "$LL_FSTAB" > "$LL_BACKUP/fstab.lines" || true
  if [ -e "$LL_DOCKER_DIR" ] || [ -L "$LL_DOCKER_DIR" ]; then
    [ ! -e "$LL_BACKUP/docker" ] ||
      ll_die "both $LL_DOCKER_DIR and $LL_BACKUP/docker exist: look at both and keep the owner's at $LL_BACKUP/docker"
    mv -T -- "$LL_DOCKER_DIR" "$LL_BACKUP/docker"
  fi
  touch "$LL_BACKUP/complete"
}

# Records, before data disk $1 is wiped, what named it and each partition or
# volume on it, so that `down` knows which filesystems layerlab destroyed:
# "<date> KEY=value" lines appended to the backup at every wipe, first
# DISK=<disk>, then DEVICE= (device paths and their /dev/disk links) and the
# UUID, LABEL, PARTUUID and PARTLABEL that blkid reports (UUIDs in lower case).
ll_record_data_disk() {
  local disk="$1" when dev key value link names=()
  when="$(date -u +%Y-%m-%d)"
  names=("$disk")
  while IFS= read -r dev; do
    if [ -n "$dev" ] && [ "$dev" != "$disk" ]; then names+=("$dev"); fi
  done < <(lsblk -nrpo NAME "$disk" 2>/dev/null || true)
  {
    printf '%s DISK=%s\n' "$when" "$disk"
    for dev in "${names[@]}"; do
      printf '%s DEVICE=%s\n' "$when" "$dev"
      for key in UUID LABEL PARTUUID PARTLABEL; do
        value="$(blkid -s "$key" -o value "$dev" 2>/dev/null || true)"
        case "$key" in UUID | PARTUUID) value="${value,,}" ;; esac
        if [ -n "$value" ]; then printf '%s %s=%s\n' "$when" "$key" "$value"; fi
      done
    done
    # -ef (same device node) is a builtin: no readlink process per link.
    for link in /dev/disk/*/*; do
      [ -L "$link" ] || continue
      for dev in "${names[@]}"; do
        if [ "$link" -ef "$dev" ]; then printf '%s DEVICE=%s\n' "$when" "$link"; fi
      done
    done
  } >> "$LL_BACKUP/data-disk.ids"
}

# "warning: $*" on stdout, which `down` shows the operator: the text comes
# from the host (its fstab, its disks), so no control character reaches a terminal.
ll_warn() {
  local text="warning: $*"
  printf '%s\n' "${text//[[:cntrl:]]/?}"
}

# What the source field $1 of an fstab line names, as KEY=value (UUID, LABEL,
# PARTUUID, PARTLABEL, or DEVICE=<path> for any other /dev path); status 1 for
# a source that is no block device (tmpfs, proc, a network share, a bind).
# fstab's quotes and octal escapes (\040) and udev's (\x20) are undone.
ll_fstab_tag() {
  local source="$1" key value
  case "$source" in
    UUID=* | LABEL=* | PARTUUID=* | PARTLABEL=*) key="${source%%=*}" value="${source#*=}" ;;
    /dev/disk/by-uuid/* | /dev/disk/by-label/* | /dev/disk/by-partuuid/* | /dev/disk/by-partlabel/*)
      key="${source#/dev/disk/by-}"
      key="${key%%/*}"
      key="${key^^}"
      value="${source##*/}"
      ;;
    /dev/*) key=DEVICE value="$source" ;;
    *) return 1 ;;
  esac
  value="${value#\"}"
  value="${value%\"}"
  if [[ $value == *\\* ]]; then printf -v value '%b' "$value"; fi
  case "$key" in UUID | PARTUUID) value="${value,,}" ;; esac
  printf '%s=%s\n' "$key" "$value"
}

# Why the filesystem named by tag $1 (ll_fstab_tag) is gone because it was on
# the data disk layerlab wiped (ll_record_data_disk), or nothing.
ll_fstab_wiped() {
  local tag="$1" ids="$LL_BACKUP/data-disk.ids" resolved="" when entry disk="the data disk"
  [ -f "$ids" ] || return 0
  if [[ $tag == DEVICE=* ]] && [ -e "${tag#DEVICE=}" ]; then resolved="DEVICE=$(readlink -f -- "${tag#DEVICE=}")"; fi
  while read -r when entry; do
    if [[ $entry == DISK=* ]]; then
      disk="data disk ${entry#DISK=}"
    elif [ "$entry" = "$tag" ] || [ "$entry" = "$resolved" ]; then
      echo "filesystem gone: ${tag#DEVICE=} was on $disk, which layerlab wiped and re-made on $when"
      return 0
    fi
  done < "$ids"
}

# Whether something answers to tag $1 (ll_fstab_tag) now: what systemd waits
# for at boot before it mounts the line.
ll_fstab_present() {
  local key="${1%%=*}" value="${1#*=}" hit=""
  case "$key" in
    UUID) hit="$(blkid -U "$value" 2>/dev/null || true)" ;;
    LABEL) hit="$(blkid -L "$value" 2>/dev/null || true)" ;;
    PARTUUID | PARTLABEL) hit="$(blkid -o device -t "$1" 2>/dev/null || true)" ;;
    *) if [ -e "$value" ]; then hit="$value"; fi ;;
  esac
  [ -n "$hit" ]
}

# Copies fstab $1 to $2, line by line, reconciled with the disks now present.
# A line whose filesystem is gone — it was on the data disk layerlab wiped,
# or it is a /var/lib/docker line layerlab puts back and nothing answers to
# its UUID=, LABEL=, PARTUUID=, PARTLABEL= or /dev path — is kept, commented
# out under a "# layerlab:" note saying why, and named in a warning on stdout
# (`down` shows it): at boot systemd would wait for it and stop in emergency
# mode. Every other line is copied unchanged (an absent filesystem layerlab
# never touched is only warned about: the owner's line, not ours to change);
# so is one marked nofail or noauto unless layerlab wiped its filesystem.
# Sets LL_FSTAB_DISABLED to the number of lines disabled.
ll_fstab_reconcile() {
  local from="$1" to="$2" line tag why today fields=() kept=()
  today="$(date -u +%Y-%m-%d)"
  LL_FSTAB_DISABLED=0
  while IFS= read -r line || [ -n "$line" ]; do
    why=""
    read -r -a fields <<< "$line"
    if [ "${#fields[@]}" -ge 2 ] && [[ ${fields[0]} != \#* ]] && tag="$(ll_fstab_tag "${fields[0]}")"; then
      why="$(ll_fstab_wiped "$tag")"
      if [ -z "$why" ] && ! ll_fstab_present "$tag"; then
        if [[ ,${fields[3]:-}, == *,nofail,* || ,${fields[3]:-}, == *,noauto,* ]]; then
          ll_warn "$LL_FSTAB names ${tag#DEVICE=}, which is not present now; its line is nofail or noauto (it cannot stop a boot), so it was left as it was"
        elif [ "${fields[1]%/}" != "$LL_DOCKER_DIR" ]; then
          # Not a line layerlab set aside and puts back: the owner's to fix, not ours to change.
          ll_warn "$LL_FSTAB names ${tag#DEVICE=} for ${fields[1]}, which is not present now and not a disk layerlab wiped: its line was left as it was, and the next boot may stop in emergency mode until it is fixed"
        else
          why="filesystem gone: nothing has ${tag#DEVICE=} now"
          [[ $tag != DEVICE=* ]] || why="filesystem gone: ${tag#DEVICE=} does not exist now"
        fi
      fi
    fi
    if [ -z "$why" ]; then
      kept+=("$line")
      continue
    fi
    kept+=("# layerlab: disabled on $today by \`layerlab down\`, $why. Remove the '#' of the next line once it is back, or delete the line." "#$line")
    LL_FSTAB_DISABLED=$((LL_FSTAB_DISABLED + 1))
    ll_warn "$LL_FSTAB line \"${line//$'\t'/ }\" disabled ($why): at the next boot systemd would wait for it and stop in emergency mode. It is kept, commented out under a \"# layerlab:\" note: point it at a filesystem that exists (blkid lists them) and remove its '#', or delete it"
  done < "$from"
  if [ "${#kept[@]}" -gt 0 ]; then printf '%s\n' "${kept[@]}" > "$to"; else : > "$to"; fi
}

# Puts back what ll_set_aside_owner_setup set aside (nothing to do when it
# never ran): docker stopped, layerlab's disk unmounted, the owner's fstab
# lines, daemon.json and /var/lib/docker back, docker started if it ran before.
# The data disk stays formatted: it cannot be un-formatted.
ll_restore_owner_setup() {
  [ -f "$LL_BACKUP/complete" ] || return 0
  systemctl stop docker.service docker.socket 2>/dev/null || true
  while mountpoint -q "$LL_DOCKER_DIR"; do umount "$LL_DOCKER_DIR"; done
  {
    grep -v "[[:space:]]$LL_DOCKER_DIR/\{0,1\}[[:space:]]" "$LL_FSTAB" || true
    cat -- "$LL_BACKUP/fstab.lines"
  } > "$LL_BACKUP/fstab.new"
  # The owner's lines may name a filesystem the profile wiped since: disabled,
  # never deleted, or the next boot stops in emergency mode (ll_fstab_reconcile).
  ll_fstab_reconcile "$LL_BACKUP/fstab.new" "$LL_BACKUP/fstab.checked"
  cat -- "$LL_BACKUP/fstab.checked" > "$LL_FSTAB"
  systemctl daemon-reload 2>/dev/null || true
  if [ -f "$LL_BACKUP/daemon.json" ]; then
    cp -p -- "$LL_BACKUP/daemon.json" "$LL_DAEMON_JSON"
  else
    rm -f -- "$LL_DAEMON_JSON"
  fi
  # What is at /var/lib/docker now is layerlab's (the owner's was moved aside).
  rm -rf -- "$LL_DOCKER_DIR"
  if [ -e "$LL_BACKUP/docker" ]; then mv -T -- "$LL_BACKUP/docker" "$LL_DOCKER_DIR"; fi
  if [ -f "$LL_BACKUP/docker-was-enabled" ]; then
    systemctl enable --quiet docker.service
  else
    systemctl disable --quiet docker.service 2>/dev/null || true
  fi
  if [ -f "$LL_BACKUP/docker-was-active" ]; then systemctl start docker.service; fi
  # The profile is no longer in place: all of layerlab's state goes.
  rm -rf -- "${LL_STATE:?}"
  if [ "$LL_FSTAB_DISABLED" -gt 0 ]; then
    echo "restored the owner's /var/lib/docker, daemon.json and fstab lines ($LL_FSTAB_DISABLED fstab line(s) disabled: see the warnings above)"
  else
    echo "restored the owner's /var/lib/docker, daemon.json and fstab lines"
  fi
}

# Starts applying storage profile $1 of engine $2 (default docker) on the data
# disk $LL_DATA_DISK: exits the script (success) when the profile is already in
# place. Otherwise refuses a host that is not the lab's to change
# (ll_may_change_host), sets the owner's setup aside, wipes the disk, leaving
# its device path in LL_DISK, and records the engine for every later script.
ll_profile_begin() {
  local profile="$1" problems
  LL_ENGINE="${2:-docker}"
  ll_require LL_DATA_DISK
  if ll_profile_in_place "$profile"; then exit 0; fi
  LL_DISK="$(readlink -f -- "$LL_DATA_DISK")"
  [ -b "$LL_DISK" ] || ll_die "data disk $LL_DATA_DISK is not a block device"
  if ! problems="$(ll_may_change_host "$LL_DISK")"; then
    ll_die "refusing to apply profile $profile, nothing was changed: $(paste -sd';' - <<< "$problems"). If this machine is the lab's to change, set \`dedicated: true\` for it in the inventory (its Docker data is then set aside and put back by down)"
  fi
  ll_safe_dir "$LL_STATE"
  ll_set_aside_owner_setup
  ll_record_data_disk "$LL_DISK"
  wipefs -a -q "$LL_DISK"
  echo "$LL_ENGINE" > "$LL_STATE/engine"
}

# Mounts the freshly made filesystem on $LL_DISK (type $1) at /var/lib/docker,
# by UUID in fstab so that it survives a reboot (the owner's lines are in the backup).
ll_mount_docker_disk() {
  local fstype="$1" uuid
  mkdir -p "$LL_DOCKER_DIR"
  uuid="$(blkid -s UUID -o value "$LL_DISK")"
  sed -i "\\|[[:space:]]$LL_DOCKER_DIR/\\{0,1\\}[[:space:]]|d" "$LL_FSTAB"
  echo "UUID=$uuid $LL_DOCKER_DIR $fstype defaults 0 0" >> "$LL_FSTAB"
  mount "$LL_DOCKER_DIR"
}

# The target's container network, LL_CONTAINER_NETWORK (lab/catalog.ts
# CONTAINER_NETWORK, which the controller passes to the profile and to every
# trial; none when unset), checked here for every caller: sets LL_NETWORK to
# none or default, and LL_NETWORK_ARGS to what `docker run` takes for it:
# --network none, or nothing for the engine's default network (aws only, as
# seed 004's `docker run -h … -d`). Any other value stops the script before
# anything is changed or started.
ll_container_network() {
  LL_NETWORK="${LL_CONTAINER_NETWORK:-none}"
  case "$LL_NETWORK" in
    none) LL_NETWORK_ARGS=(--network none) ;;
    default) LL_NETWORK_ARGS=() ;;
    *) ll_die "LL_CONTAINER_NETWORK=$LL_NETWORK: expected none or default, the target's container network as lab/catalog.ts CONTAINER_NETWORK sets it (layerlab passes it; when running a guest script by hand, set one of the two or leave it unset for none)" ;;
  esac
}

# Writes daemon.json (the owner's is in the backup) and starts dockerd.
# $1 driver (with the containerd image store: the snapshotter), $2 JSON array
# of storage opts, $3 JSON object of daemon features (default none).
# The target's container network (ll_container_network): none starts dockerd
# without its bridge, iptables rules or NAT; default leaves Docker's own
# bridge network as the seeds ran it (aws only).
ll_docker_start() {
  local driver="$1" opts="$2" features="" network=""
  if [ -n "${3:-}" ]; then features=$'\n  "features": '"$3,"; fi
  ll_container_network
  if [ "$LL_NETWORK" = none ]; then network=$'\n  "bridge": "none",\n  "iptables": false,\n  "ip-masq": false,'; fi
  mkdir -p "$(dirname "$LL_DAEMON_JSON")" "$LL_STATE"
  cat > "$LL_DAEMON_JSON" <<JSON
{
  "storage-driver": $(ll_json_str "$driver"),
  "storage-opts": $opts,$features$network
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

# Moves containerd's root onto the data disk (with Docker's containerd image
# store, images and container layers are containerd snapshots: they belong on
# the disk under test, like /var/lib/docker) and restarts containerd. Its
# config.toml is not set aside (ll_set_aside_owner_setup): the profiles that
# call this run only on hosts layerlab made (catalog: no static target).
ll_containerd_root() {
  mkdir -p "$LL_CONTAINERD_ROOT" "$(dirname "$LL_CONTAINERD_CONF")"
  printf 'version = 2\nroot = %s\n' "$(ll_json_str "$LL_CONTAINERD_ROOT")" > "$LL_CONTAINERD_CONF"
  systemctl restart containerd.service
}

# Writes podman's storage.conf (driver $1, graphroot on the data disk) and
# checks that podman answers with that driver. Podman has no daemon: every
# podman command reads this file.
ll_podman_start() {
  local driver="$1" got
  mkdir -p "$(dirname "$LL_PODMAN_CONF")" "$LL_PODMAN_ROOT"
  cat > "$LL_PODMAN_CONF" <<TOML
[storage]
driver = $(ll_json_str "$driver")
graphroot = $(ll_json_str "$LL_PODMAN_ROOT")
runroot = "/run/containers/storage"
TOML
  got="$(command podman info --format '{{.Store.GraphDriverName}}' 2>&1)" ||
    ll_die "podman does not answer with storage driver $driver: $got"
  [ "$got" = "$driver" ] || ll_die "podman runs storage driver $got, not $driver"
}

# An empty folder at $1, anything there before removed: rm only when there is
# something (a process costs tens of milliseconds under TCG; usually nothing is).
ll_fresh_dir() {
  if [ -e "$1" ] || [ -L "$1" ]; then rm -rf -- "$1"; fi
  mkdir -p -- "$1"
}

# ll_mount_setup KIND NAME TARGET: fresh, empty storage of kind KIND for a
# container's TARGET, described twice from the same values: LL_MOUNT_ARGS for
# `docker run`, LL_MOUNT_TYPE/LL_MOUNT_SOURCE/LL_MOUNT_TARGET for the Engine
# API (ll_container_run). ll_mount_cleanup removes it. A volume is made, and
# removed, through the Engine API where containers start through it
# (ll_engine_api): a curl costs a fraction of a docker CLI start under TCG.
ll_mount_setup() {
  local kind="$1" name="$2" target="$3"
  LL_MOUNT_KIND="$kind"
  LL_MOUNT_NAME="ll-$name"
  LL_MOUNT_TARGET="$target"
  LL_MOUNT_TYPE=""
  LL_MOUNT_SOURCE=""
  case "$kind" in
    layer) ;; # docker creates the workdir inside the container's writable layer
    volume)
      ll_volume_fresh "$LL_MOUNT_NAME"
      LL_MOUNT_TYPE=volume LL_MOUNT_SOURCE="$LL_MOUNT_NAME"
      ;;
    bind)
      ll_fresh_dir "${LL_BIND_ROOT:?}/$LL_MOUNT_NAME"
      LL_MOUNT_TYPE=bind LL_MOUNT_SOURCE="$LL_BIND_ROOT/$LL_MOUNT_NAME"
      ;;
    hostshare | hostshare-nfs | hostshare-9p)
      ll_hostshare_mount "$kind"
      ll_fresh_dir "${LL_SHARED:?}/$LL_MOUNT_NAME"
      LL_MOUNT_TYPE=bind LL_MOUNT_SOURCE="$LL_SHARED/$LL_MOUNT_NAME"
      ;;
    *) ll_die "unknown mount kind: $kind" ;;
  esac
  LL_MOUNT_ARGS=(--workdir "$target")
  if [ -n "$LL_MOUNT_TYPE" ]; then
    LL_MOUNT_ARGS+=(--mount "type=$LL_MOUNT_TYPE,source=$LL_MOUNT_SOURCE,target=$target")
  fi
}

ll_mount_cleanup() {
  case "${LL_MOUNT_KIND:-}" in
    volume) ll_volume_rm "$LL_MOUNT_NAME" ;;
    bind) rm -rf -- "${LL_BIND_ROOT:?}/$LL_MOUNT_NAME" ;;
    hostshare | hostshare-nfs | hostshare-9p) rm -rf -- "${LL_SHARED:?}/$LL_MOUNT_NAME" ;;
  esac
}

# JSON array of strings from the arguments.
ll_json_array() {
  local out="[" sep="" arg _ll_item
  for arg in "$@"; do
    ll_json_str_to _ll_item "$arg"
    out+="$sep$_ll_item"
    sep=","
  done
  printf '%s]' "$out"
}

LL_DOCKER_SOCKET=/var/run/docker.sock

# One request to the Docker Engine API over its unix socket; the body of an
# error reply goes to stdout and the call fails. Each further request in the
# same curl process (after --next) names the socket again: one curl start
# (a fifth of a second under TCG) for requests that go together.
ll_docker_api() {
  curl --silent --show-error --fail-with-body --unix-socket "$LL_DOCKER_SOCKET" "$@"
}

# Whether containers start through the Engine API (ll_container_run), and
# volumes are made (ll_mount_setup) and containers listed and removed
# (ll_container_ids, ll_containers_rm) through it: Docker with curl, unless
# LL_CONTAINER_START=cli asks for the CLI.
ll_engine_api() {
  [ "$LL_ENGINE" != podman ] && [ "${LL_CONTAINER_START:-api}" != cli ] && command -v curl > /dev/null
}

# ll_docker_api_quietly ARGS...: one Engine API request whose answer does not
# matter (a removal that may find nothing): no output, and it never fails.
ll_docker_api_quietly() {
  curl --silent --unix-socket "$LL_DOCKER_SOCKET" -o /dev/null "$@" || :
}

# ll_volume_fresh NAME: volume NAME, new and empty: a volume of that name left
# by an attempt that did not end is removed first. Through the Engine API
# where containers start through it (ll_engine_api), labelled as
# ll_label_args labels what the CLI creates; one curl for both requests: the
# removal's answer is not checked (404, none, is the usual one), the
# creation's decides (curl's status is its last request's).
ll_volume_fresh() {
  local name="$1" labels json_name reply
  if ! ll_engine_api; then
    docker volume rm -f "$name" > /dev/null 2>&1 || true
    docker volume create "$name" > /dev/null
    return
  fi
  ll_label_json_to labels
  ll_json_str_to json_name "$name"
  if ! reply="$(curl --silent --show-error --unix-socket "$LL_DOCKER_SOCKET" -o /dev/null \
    -X DELETE "http://docker/volumes/$name?force=true" \
    --next --fail-with-body --unix-socket "$LL_DOCKER_SOCKET" -X POST -H 'Content-Type: application/json' \
    --data-binary "{\"Name\":$json_name,\"Labels\":$labels}" http://docker/volumes/create)"; then
    ll_die "the Engine API did not create volume $name: $reply"
  fi
}

# ll_volume_rm NAME: removes volume NAME as `docker volume rm -f` does,
# quietly: whether it was there or not, cleanup goes on.
ll_volume_rm() {
  if ll_engine_api; then
    ll_docker_api_quietly -X DELETE "http://docker/volumes/$1?force=true"
  else
    docker volume rm -f "$1" > /dev/null 2>&1 || true
  fi
}

# ll_api_container_start [--ro-bind SOURCE TARGET]... NAME IMAGE CMD...:
# creates and starts, through the Engine API with networking disabled, a
# container of IMAGE running CMD as root with the storage of ll_mount_setup at
# its working directory and the labels of ll_label_args; prints its id. Each
# --ro-bind adds a read-only bind mount of host folder SOURCE at TARGET after
# that storage (as `--mount type=bind,...,readonly` does; db-import's template
# datadir); without one the request is the storage's alone. One curl does
# both: the start (by the container's name) only once the create succeeded
# (--fail-early). NetworkMode none on every target, aws included
# (LL_CONTAINER_NETWORK concerns lifecycle's timed `docker run` only): fio,
# dbench and db-import time their own work, not the container's start.
ll_api_container_start() {
  local extra=() mount
  while [ "${1:-}" = --ro-bind ]; do
    [ "$#" -ge 3 ] || ll_die "ll_api_container_start: --ro-bind takes a source and a target"
    mount="$(ll_json_obj Type bind Source "$2" Target "$3")"
    extra+=("${mount%\}},\"ReadOnly\":true}")
    shift 3
  done
  local name="$1" image="$2" mounts="[]" labels body reply id_re='"Id":"([0-9a-f]{64})"'
  shift 2
  ll_label_json_to labels
  if [ -n "$LL_MOUNT_TYPE" ]; then
    extra=("$(ll_json_obj Type "$LL_MOUNT_TYPE" Source "$LL_MOUNT_SOURCE" Target "$LL_MOUNT_TARGET")" "${extra[@]}")
  fi
  if [ "${#extra[@]}" -gt 0 ]; then mounts="[$(IFS=,; printf '%s' "${extra[*]}")]"; fi
  body="{\"Image\":$(ll_json_str "$image"),\"Cmd\":$(ll_json_array "$@"),\"User\":\"0\""
  body+=",\"WorkingDir\":$(ll_json_str "$LL_MOUNT_TARGET"),\"Labels\":$labels,\"NetworkDisabled\":true"
  body+=",\"HostConfig\":{\"NetworkMode\":\"none\",\"Mounts\":$mounts}}"
  if ! reply="$(ll_docker_api --fail-early -X POST -H 'Content-Type: application/json' --data-binary "$body" \
    "http://docker/containers/create?name=$name" \
    --next --fail-with-body --unix-socket "$LL_DOCKER_SOCKET" -X POST "http://docker/containers/$name/start")"; then
    ll_die "the Engine API did not create and start container $name: $reply"
  fi
  [[ $reply =~ $id_re ]] || ll_die "the Engine API did not create container $name: $reply"
  printf '%s\n' "${BASH_REMATCH[1]}"
}

# Splits the Engine API's log stream of a container without a TTY (stdin) into
# two files (its arguments): frames of an 8-byte header (stream: 0 stdin or 1
# stdout, 2 stderr, 3 the engine's own error; 3 zero bytes; payload length,
# 4 bytes big-endian) and their payload, byte for byte as `docker logs` splits
# them. Fails on a stream cut short or a frame it does not know. The same
# file twice: both streams into it, in the stream's order (as `docker logs >
# FILE 2>&1`). perl, not the CLI: perl-base is in every Debian and starts in a
# fraction of the time.
# shellcheck disable=SC2016 # perl's variables, not the shell's
LL_LOG_SPLIT='binmode STDIN;
open(my $out, ">:raw", $ARGV[0]) or die "cannot write $ARGV[0]: $!\n";
my $err;
if ($ARGV[1] eq $ARGV[0]) { $err = $out } else { open($err, ">:raw", $ARGV[1]) or die "cannot write $ARGV[1]: $!\n" }
my ($head, $chunk);
for (;;) {
  my $got = read(STDIN, $head, 8) // die "cannot read the log stream: $!\n";
  last if $got == 0;
  $got == 8 or die "the log stream ends inside a frame header\n";
  my ($stream, $size) = unpack("C x3 N", $head);
  $stream <= 3 or die "the log stream has a frame of unknown stream $stream\n";
  my $engine = "";
  while ($size > 0) {
    $got = read(STDIN, $chunk, $size < 65536 ? $size : 65536) // die "cannot read the log stream: $!\n";
    $got > 0 or die "the log stream ends inside a frame ($size bytes missing)\n";
    $size -= $got;
    if ($stream == 3) { $engine .= $chunk } else { print { $stream == 2 ? $err : $out } $chunk or die "cannot write: $!\n" }
  }
  $stream == 3 and die "the engine: $engine\n";
}
close $out or die "cannot write $ARGV[0]: $!\n";
$err == $out or close $err or die "cannot write $ARGV[1]: $!\n";'

# ll_container_output NAME ID OUT ERR: the stdout of exited container NAME (id
# ID) in OUT and its stderr in ERR (both in OUT when ERR is OUT), from the
# Engine API's log stream (LL_LOG_SPLIT), or from `docker logs` on a host
# without perl.
ll_container_output() {
  local name="$1" id="$2" out="$3" err="$4"
  if command -v perl > /dev/null; then
    # --fail, not --fail-with-body: an error's body is no log stream.
    curl --silent --show-error --fail --unix-socket "$LL_DOCKER_SOCKET" "http://docker/containers/$id/logs?stdout=1&stderr=1" |
      perl -e "$LL_LOG_SPLIT" -- "$out" "$err" ||
      ll_die "cannot read the output of container $name from the Engine API (the errors above say why)"
  elif [ "$out" = "$err" ]; then
    command docker logs "$id" > "$out" 2>&1
  else
    command docker logs "$id" > "$out" 2> "$err"
  fi
}

# The name of the container the last ll_container_run removed itself: the
# scenario's EXIT trap (ll_container_cleanup) then has nothing left to remove.
LL_CONTAINER_GONE=''

# ll_container_run NAME IMAGE OUT ERR CMD...: runs CMD in a fresh container of
# IMAGE as root, with the storage of ll_mount_setup at its working directory,
# stdout to OUT and stderr to ERR; returns the command's exit status.
#
# Through the Engine API with networking disabled, because `docker run
# --network none` still has libnetwork's prestart hook set up an empty sandbox:
# 4-5 s of every container start under TCG, and no part of what fio or dbench
# measure (they time their own I/O). The container still gets a network
# namespace of its own with only lo in it. LL_CONTAINER_START=cli takes the
# `docker run` path instead (bench/ compares the two); so does a host without
# curl (a static host may lack it), and a Podman host: the socket is Docker's;
# Podman runs the container through its CLI (the docker wrapper), --network none.
# Its phases (ll_phase): start (create and start), work (the command, from
# start to exit: the caller's measured tool), output (its logs), cleanup; the
# CLI path is one command, all of it work. No docker CLI on the API path (each
# start of it costs half a second to a second under TCG) where perl is there.
ll_container_run() {
  local name="$1" image="$2" out="$3" err="$4"
  shift 4
  LL_CONTAINER_GONE=''
  if ! ll_engine_api; then
    local status=0
    ll_phase work
    docker run --rm --name "$name" --network none --user 0 "${LL_MOUNT_ARGS[@]}" "$image" "$@" \
      > "$out" 2> "$err" || status=$?
    # With --rm the CLI returns once the container is removed: when the command
    # ran and succeeded, there is nothing left. Any other status may be the
    # engine's own failure (125), which can leave one.
    if [ "$status" = 0 ]; then LL_CONTAINER_GONE="$name"; fi
    return "$status"
  fi
  local id reply status='' status_re='"StatusCode":([0-9]+)'
  ll_phase start
  id="$(ll_api_container_start "$name" "$image" "$@")"
  ll_phase work
  reply="$(ll_docker_api -X POST "http://docker/containers/$id/wait")"
  if [[ $reply =~ $status_re ]]; then status="${BASH_REMATCH[1]}"; fi
  ll_phase output
  ll_container_output "$name" "$id" "$out" "$err"
  ll_phase cleanup
  ll_docker_api -X DELETE "http://docker/containers/$id?v=true" > /dev/null
  LL_CONTAINER_GONE="$name"
  [ -n "$status" ] || ll_die "the Engine API gave no exit status for container $name"
  return "$status"
}

# ll_container_cleanup NAME: for a scenario's EXIT trap: removes container
# NAME (forced, with its anonymous volumes) unless ll_container_run removed it
# already. A trial that failed before that (a container made but not started,
# one still running, or none) still leaves nothing behind. Quiet, and never
# fails: cleanup goes on.
ll_container_cleanup() {
  local name="$1"
  [ "$LL_CONTAINER_GONE" != "$name" ] || return 0
  ll_containers_rm "$name"
}

# ll_containers_rm ID|NAME...: removes these containers, running or not; one
# already gone is no failure. Quiet, and never fails: cleanup goes on. One
# curl for all of them where the Engine API is used (ll_engine_api), which
# removes their anonymous volumes too (v=true), else one `docker rm -f` as
# before the API path (the CLI's containers ran with --rm, which removes them);
# none at all for no container.
ll_containers_rm() {
  [ "$#" -gt 0 ] || return 0
  if ! ll_engine_api; then
    docker rm -f "$@" > /dev/null 2>&1 || :
    return 0
  fi
  local args=() target
  for target in "$@"; do
    # Each request after --next names the socket and its output again.
    if [ "${#args[@]}" -gt 0 ]; then args+=(--next --silent --unix-socket "$LL_DOCKER_SOCKET" -o /dev/null); fi
    args+=(-X DELETE "http://docker/containers/$target?force=true&v=true")
  done
  ll_docker_api_quietly "${args[@]}"
}

# ll_container_ids LABEL NAME_RE: sets LL_CONTAINER_IDS to the ids of every
# container, running or not, that carries label LABEL (a key, or key=value)
# AND whose name matches NAME_RE (a regular expression, as `docker ps --filter
# name=` takes it): the engine's own filters, both in one request. Through
# the Engine API where ll_engine_api (a curl costs a fraction of a docker CLI
# start under TCG), else `docker ps`. Stops the script, saying why, when the
# engine does not answer.
ll_container_ids() {
  local label="$1" name_re="$2" label_json name_json reply id_re='"Id":"([0-9a-f]{64})"'
  LL_CONTAINER_IDS=()
  if ! ll_engine_api; then
    reply="$(docker ps -aq --filter "label=$label" --filter "name=$name_re")" ||
      ll_die "$LL_ENGINE ps could not list the containers labelled $label and named $name_re (its error is above): is the engine running?"
    if [ -n "$reply" ]; then mapfile -t LL_CONTAINER_IDS <<< "$reply"; fi
    return 0
  fi
  ll_json_str_to label_json "$label"
  ll_json_str_to name_json "$name_re"
  reply="$(ll_docker_api -G --data all=1 --data-urlencode "filters={\"label\":[$label_json],\"name\":[$name_json]}" \
    http://docker/containers/json)" ||
    ll_die "the Engine API did not list the containers labelled $label and named $name_re: $reply (is dockerd running?)"
  # Builtins: each match taken off the front of the reply until none is left.
  while [[ $reply =~ $id_re ]]; do
    LL_CONTAINER_IDS+=("${BASH_REMATCH[1]}")
    reply="${reply#*"${BASH_REMATCH[0]}"}"
  done
}

# A scenario's `container: kept` (seed 003's procedure is a fresh `docker run
# --rm` per run, the default): one container per cell (scenario, mount kind)
# for the whole run, idle in `sleep infinity` with the cell's storage mounted
# at its working directory, and each trial's tool `docker exec`'d into it.
# What it saves is no part of what the tool measures: container create, start
# and removal, and the mount made and removed, every trial.
#
# ll_kept_container IMAGE TARGET: the cell's container of IMAGE with storage of
# kind $LL_MOUNT at TARGET, found by its labels (lab, run, cell) when an earlier
# trial of this run made it and it still runs; made anew otherwise (anything
# left of the cell, of another run or a failed trial, removed first). Sets
# LL_KEPT_NAME. Phases: start while it looks; mount and start when it makes one.
ll_kept_container() {
  local image="$1" target="$2" cell="$LL_SCENARIO-$LL_MOUNT" found
  ll_require LL_RUN LL_SCENARIO LL_MOUNT
  LL_KEPT_NAME="ll-keep-$cell"
  ll_phase start
  local labels=("layerlab.lab=$LL_LAB" "layerlab.run=$LL_RUN" "layerlab.kept=$cell")
  if ll_engine_api; then
    # A curl start costs a fraction of the docker CLI's under TCG, on every trial.
    found="$(ll_docker_api -G --data-urlencode "filters={\"label\":$(ll_json_array "${labels[@]}"),\"status\":[\"running\"]}" \
      http://docker/containers/json | sed -n 's/.*"Id":"\([0-9a-f]\{64\}\)".*/\1/p')"
  else
    found="$(ll_engine ps -q --filter "label=${labels[0]}" --filter "label=${labels[1]}" --filter "label=${labels[2]}" \
      --filter status=running)"
  fi
  [ -z "$found" ] || return 0
  ll_kept_drop "$cell" || :
  ll_phase mount
  LL_KEPT="$cell" ll_mount_setup "$LL_MOUNT" "keep-$cell" "$target"
  ll_phase start
  # As ll_container_run starts its containers: the Engine API where it can
  # (no libnetwork sandbox, 10 s and more under TCG), else the CLI.
  if ll_engine_api; then
    LL_KEPT="$cell" ll_api_container_start "$LL_KEPT_NAME" "$image" /bin/sleep infinity > /dev/null
  else
    LL_KEPT="$cell" docker run -d --name "$LL_KEPT_NAME" --network none --user 0 "${LL_MOUNT_ARGS[@]}" \
      "$image" /bin/sleep infinity > /dev/null
  fi
}

# ll_kept_drop [CELL]: removes what `container: kept` keeps for cell CELL (a
# failed trial, a container of another run) or, without CELL, for every cell
# of lab $LL_LAB (guest/drop-kept.sh, at a run's start and end): containers
# and volumes by their labels, never by name (an owner's container may be
# called anything), and the cell's folders among layerlab's own bind sources
# and, where one is mounted, shared-folder subfolders. Stops at the first
# failure; the callers for one cell go on regardless (`|| :`).
ll_kept_drop() {
  local cell="${1:-}" label=layerlab.kept ids root path
  if [ -n "$cell" ]; then label+="=$cell"; fi
  mapfile -t ids < <(ll_engine ps -aq --filter "label=layerlab.lab=$LL_LAB" --filter "label=$label")
  if [ "${#ids[@]}" -gt 0 ]; then ll_engine rm -f "${ids[@]}" > /dev/null; fi
  mapfile -t ids < <(ll_engine volume ls -q --filter "label=layerlab.lab=$LL_LAB" --filter "label=$label")
  if [ "${#ids[@]}" -gt 0 ]; then ll_engine volume rm -f "${ids[@]}" > /dev/null; fi
  for root in "${LL_BIND_ROOT:?}" "$LL_SHARE_ROOT" "$LL_NFS_ROOT" "$LL_9P_ROOT"; do
    if [ "$root" != "$LL_BIND_ROOT" ] && ! mountpoint -q "$root"; then continue; fi
    for path in "$root"/ll-keep-*; do
      [ -e "$path" ] || continue
      if [ -z "$cell" ] || [ "${path##*/}" = "ll-keep-$cell" ]; then rm -rf -- "$path"; fi
    done
  done
}
