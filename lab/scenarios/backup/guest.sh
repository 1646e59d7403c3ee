#!/usr/bin/env bash
# backup scenario (seed 003): one dataset (LL_P_LARGE_FILES of LL_P_LARGE_BYTES
# plus LL_P_SMALL_FILES of LL_P_SMALL_BYTES, incompressible) archived with
# `tar czf` three ways: from the host directory behind a bind mount, from the
# named volume's _data directory on the host, and through a helper container
# that mounts the volume read-only. The order is shuffled per trial (seeded by
# the trial id); the page cache is dropped before each method, so none of them
# reads what the previous one cached. The helper container runs the tool
# image's tar and gzip; they must be byte-identical to the host's (both come
# from Debian 12), or the trial fails: seed 003's comparison mixed busybox and
# GNU tar. Raw output: $LL_OUT/backup.tsv.
set -euo pipefail
source "$(dirname "$0")/../../../guest/lib.sh"
ll_require LL_OUT LL_TRIAL LL_IMAGE_SHELL LL_P_LARGE_FILES LL_P_LARGE_BYTES LL_P_SMALL_FILES LL_P_SMALL_BYTES

volume="ll-$LL_TRIAL-data"
bind="$LL_BIND_ROOT/ll-$LL_TRIAL-data"
archives="$LL_BIND_ROOT/ll-$LL_TRIAL-archives"
cleanup() {
  ll_phase cleanup
  docker rm -f "ll-$LL_TRIAL" >/dev/null 2>&1 || true
  docker volume rm -f "$volume" >/dev/null 2>&1 || true
  rm -rf -- "$bind" "$archives"
}
trap cleanup EXIT
cleanup
ll_phase mount
mkdir -p -- "$bind" "$archives"
docker volume create "$volume" >/dev/null
voldata="$(docker volume inspect -f '{{.Mountpoint}}' "$volume")"

# Same tools everywhere: the host's tar and gzip against the image's.
ll_phase prepare
host_tools="$(sha256sum /usr/bin/tar /usr/bin/gzip | awk '{print $1}' | paste -sd' ' -)"
image_tools="$(docker run --rm --network none "$LL_IMAGE_SHELL" sha256sum /bin/tar /bin/gzip | awk '{print $1}' | paste -sd' ' -)"
[ "$host_tools" = "$image_tools" ] ||
  ll_die "tar/gzip differ between host ($host_tools) and tool image ($image_tools); the methods would not compare like with like"

# The dataset, written once into the bind directory and copied into the volume.
# One random stream cut into files by split: a process per file is slow under
# TCG, and at the seed's 22,000 files it would outweigh the archives themselves.
random_files() {
  local dir="$1" count="$2" bytes="$3"
  mkdir -p -- "$dir"
  [ "$count" -gt 0 ] || return 0
  head -c "$((count * bytes))" /dev/urandom | split -b "$bytes" -a 7 -d - "$dir/f"
}
random_files "$bind/large" "$LL_P_LARGE_FILES" "$LL_P_LARGE_BYTES"
random_files "$bind/small" "$LL_P_SMALL_FILES" "$LL_P_SMALL_BYTES"
cp -a -- "$bind/." "$voldata/"
expected_files=$((LL_P_LARGE_FILES + LL_P_SMALL_FILES))
dataset_bytes="$(find "$bind" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')"

# Trial-seeded shuffle: reproducible, and different from trial to trial.
mapfile -t order < <(printf '%s\n' host-bind host-volume helper-container | shuf --random-source=<(yes "$LL_TRIAL"))

printf 'method\tposition\tseconds\tarchive_bytes\tfiles\texpected_files\tdataset_bytes\ttools\n' > "$LL_OUT/backup.tsv"
position=0
for method in "${order[@]}"; do
  position=$((position + 1))
  archive="$archives/$method.tgz"
  ll_phase prepare
  sync
  echo 3 > /proc/sys/vm/drop_caches
  ll_phase work
  start="$(ll_now)"
  case "$method" in
    host-bind) tar czf "$archive" -C "$bind" . ;;
    host-volume) tar czf "$archive" -C "$voldata" . ;;
    helper-container)
      docker run --rm --name "ll-$LL_TRIAL" --network none --user 0 \
        --mount "type=volume,source=$volume,target=/d,readonly" \
        --mount "type=bind,source=$archives,target=/b" \
        "$LL_IMAGE_SHELL" tar czf "/b/$method.tgz" -C /d .
      ;;
  esac
  end="$(ll_now)"
  ll_phase output
  files="$(tar tzf "$archive" | grep -vc '/$' || true)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$method" "$position" "$(ll_elapsed "$start" "$end")" \
    "$(stat -c %s "$archive")" "$files" "$expected_files" "$dataset_bytes" "$host_tools" >> "$LL_OUT/backup.tsv"
  rm -f -- "$archive"
done
