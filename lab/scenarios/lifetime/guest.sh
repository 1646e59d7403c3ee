#!/usr/bin/env bash
# lifetime scenario (seed 003): one file in the container's writable layer, one
# on a named volume, one on a bind mount; then the container is restarted
# (stop + start) and, separately, removed and recreated from the same image
# with the same mounts. Which files are still there?
# Raw output: $LL_OUT/lifetime.tsv (phase, place, survived 1/0, what was read).
set -euo pipefail
source "$(dirname "$0")/../../../guest/lib.sh"
ll_require LL_OUT LL_TRIAL LL_IMAGE_SHELL

name="ll-$LL_TRIAL"
volume="ll-$LL_TRIAL-vol"
bind="$LL_BIND_ROOT/ll-$LL_TRIAL"
cleanup() {
  ll_phase cleanup
  docker rm -f "$name" >/dev/null 2>&1 || true
  docker volume rm -f "$volume" >/dev/null 2>&1 || true
  rm -rf -- "$bind"
}
trap cleanup EXIT
cleanup
ll_phase mount
docker volume create "$volume" >/dev/null
mkdir -p -- "$bind"
mounts=(--mount "type=volume,source=$volume,target=/vol" --mount "type=bind,source=$bind,target=/bind")
token="$LL_TRIAL-$(date +%s%N)"

# The container stays after this write: it keeps running until stopped.
ll_phase start
docker run -d --name "$name" --network none "${mounts[@]}" "$LL_IMAGE_SHELL" \
  /bin/sh -c 'echo "$1" > /layer.txt; echo "$1" > /vol/f.txt; echo "$1" > /bind/f.txt; trap "exit 0" TERM; sleep 100000 & wait' \
  sh "$token" >/dev/null
# Wait for the writes (the shell runs them before it starts waiting).
for _ in $(seq 1 100); do
  docker exec "$name" /bin/sh -c '[ -f /bind/f.txt ]' 2>/dev/null && break
  sleep 0.2
done

# Prints one line per place: phase, place, 1 when the file holds the token.
report() {
  local phase="$1" container="$2"
  docker exec "$container" /bin/sh -c '
    for place in layer:/layer.txt volume:/vol/f.txt bind:/bind/f.txt; do
      path="${place#*:}"
      if [ -f "$path" ] && [ "$(cat "$path")" = "$1" ]; then got=1; else got=0; fi
      printf "%s\t%s\t%s\t%s\n" "$2" "${place%%:*}" "$got" "$(cat "$path" 2>/dev/null || echo missing)"
    done' sh "$token" "$phase"
}

# What is observed: the files through a restart and a recreation.
ll_phase work
printf 'phase\tplace\tsurvived\tcontent\n' > "$LL_OUT/lifetime.tsv"
report written "$name" >> "$LL_OUT/lifetime.tsv"
docker stop "$name" >/dev/null
docker start "$name" >/dev/null
report restart "$name" >> "$LL_OUT/lifetime.tsv"
docker rm -f "$name" >/dev/null
docker run -d --name "$name" --network none "${mounts[@]}" "$LL_IMAGE_SHELL" \
  /bin/sh -c 'trap "exit 0" TERM; sleep 100000 & wait' >/dev/null
report recreate "$name" >> "$LL_OUT/lifetime.tsv"
