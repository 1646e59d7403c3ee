#!/usr/bin/env bash
# permissions scenario (seed 003): a non-root container (uid 65534, like
# prom/prometheus) writes a file into its data directory, mounted seven ways
# (LL_P_CASES). For each case: the container's exit status and error text, and
# owner and mode of the directory as seen inside the container and on the host.
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

printf 'case\tuser\texit_status\twrote\tinside\toutside\terror\n' > "$LL_OUT/permissions.tsv"
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
  if [ -f "$outside_path/written.txt" ]; then wrote=1; else wrote=0; fi
  error="$(head -c 300 "$LL_OUT/$case.stderr" | tr '\t\n' '  ')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$user" "$status" "$wrote" "$inside" "$outside" "$error" \
    >> "$LL_OUT/permissions.tsv"
done
