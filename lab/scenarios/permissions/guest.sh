#!/usr/bin/env bash
# permissions scenario (seed 003): a non-root container (uid 65534, like
# prom/prometheus) writes a file into its data directory, mounted seven ways
# (LL_P_CASES). For each case: the container's exit status and error text, and
# owner and mode of the directory as seen inside the container and on the host,
# the owner of the file it wrote as the host sees it, and, for a volume, whether
# the host user (uid 1000, as seed 003's) can list its _data and read the file.
# Raw output: $LL_OUT/permissions.tsv.
set -euo pipefail
source "$(dirname "$0")/../../../guest/lib.sh"
ll_require LL_OUT LL_TRIAL LL_IMAGE_SHELL LL_P_CASES

base="$LL_BIND_ROOT/ll-$LL_TRIAL"
cleanup() {
  local ids
  ll_phase cleanup
  ids="$(docker volume ls -q --filter label=layerlab.lab --filter "name=^ll-$LL_TRIAL-")"
  # shellcheck disable=SC2086 # volume names are ours: ll-<trial>-<case>
  if [ -n "$ids" ]; then docker volume rm -f $ids >/dev/null 2>&1 || true; fi
  rm -rf -- "$base"
}
trap cleanup EXIT
cleanup
mkdir -p -- "$base"

volume_dir() {
  docker volume inspect -f '{{.Mountpoint}}' "$1"
}

# Runs a command as the host user: uid and gid 1000 (the seed's 1000:1000), no
# supplementary groups, no account needed (setpriv, util-linux). Its status
# alone says whether the user could; its output is not kept.
HOST_USER=1000
as_host_user() {
  setpriv --reuid="$HOST_USER" --regid="$HOST_USER" --clear-groups -- "$@" > /dev/null 2>&1
}
# A setpriv that cannot drop to the user would read as "denied" in every case.
command -v setpriv > /dev/null || ll_die "setpriv not found on this host: the permissions scenario runs commands as uid $HOST_USER with it; install util-linux"
as_host_user true || ll_die "setpriv could not run true as uid $HOST_USER:$HOST_USER on this host; run 'setpriv --reuid=$HOST_USER --regid=$HOST_USER --clear-groups -- true' there to see why"

# file_owner: uid:gid of written.txt on the host, - when the container wrote none.
# host_list, host_read: 1/0 whether uid 1000 could list the volume's _data and
# read written.txt in it; - for a bind mount, host_read - where no file was written.
printf 'case\tuser\texit_status\twrote\tinside\toutside\tfile_owner\thost_list\thost_read\terror\n' \
  > "$LL_OUT/permissions.tsv"
for case in $LL_P_CASES; do
  ll_phase mount
  user=65534:65534
  source_kind=bind
  src="$base/$case"
  case "$case" in
    missing-host-path) ;; # nothing: docker run -v creates it
    host-user-dir) mkdir -p -- "$src"; chown 1000:1000 "$src"; chmod 775 "$src" ;;
    chown-fix) mkdir -p -- "$src"; chown 1000:1000 "$src"; chmod 775 "$src"; chown 65534:65534 "$src" ;;
    user-fix) mkdir -p -- "$src"; chown 1000:1000 "$src"; chmod 775 "$src"; user=1000:1000 ;;
    fresh-volume) source_kind=volume; src="ll-$LL_TRIAL-$case"; docker volume create "$src" >/dev/null ;;
    reset-empty-volume)
      source_kind=volume; src="ll-$LL_TRIAL-$case"; docker volume create "$src" >/dev/null
      chown root:root "$(volume_dir "$src")"; chmod 755 "$(volume_dir "$src")"
      ;;
    volume-with-root-file)
      source_kind=volume; src="ll-$LL_TRIAL-$case"; docker volume create "$src" >/dev/null
      echo existing > "$(volume_dir "$src")/existing.txt"
      chown root:root "$(volume_dir "$src")" "$(volume_dir "$src")/existing.txt"; chmod 755 "$(volume_dir "$src")"
      ;;
    *) ll_die "unknown permissions case: $case" ;;
  esac
  # -v (not --mount): the short form is the one that creates a missing host path.
  # One container per case: it reports how it sees /data, then tries to write.
  ll_phase work
  set +e
  docker run --rm --name "ll-$LL_TRIAL" --network none --user "$user" -v "$src:/data" "$LL_IMAGE_SHELL" \
    /bin/sh -c 'stat -c "%u:%g %a" /data && echo ok > /data/written.txt' > "$LL_OUT/$case.stdout" 2> "$LL_OUT/$case.stderr"
  status=$?
  set -e
  ll_phase output
  inside="$(head -n 1 "$LL_OUT/$case.stdout")"
  if [ "$source_kind" = volume ]; then outside_path="$(volume_dir "$src")"; else outside_path="$src"; fi
  outside="$(stat -c '%u:%g %a' "$outside_path")"
  file_owner=- host_list=- host_read=-
  if [ -f "$outside_path/written.txt" ]; then
    wrote=1
    file_owner="$(stat -c '%u:%g' "$outside_path/written.txt")"
  else
    wrote=0
  fi
  if [ "$source_kind" = volume ]; then
    # The seed's check: ls of the volume's _data as the host user (line 20).
    if as_host_user ls -- "$outside_path"; then host_list=1; else host_list=0; fi
    if [ "$wrote" = 1 ]; then
      if as_host_user cat -- "$outside_path/written.txt"; then host_read=1; else host_read=0; fi
    fi
  fi
  error="$(head -c 300 "$LL_OUT/$case.stderr" | tr '\t\n' '  ')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$user" "$status" "$wrote" "$inside" "$outside" \
    "$file_owner" "$host_list" "$host_read" "$error" >> "$LL_OUT/permissions.tsv"
done
