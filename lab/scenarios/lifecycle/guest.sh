#!/usr/bin/env bash
# lifecycle scenario (seed 004): N containers started one after another with
# `docker run -d`, `docker inspect --size` of all of them, `docker stop` and
# `docker rm` of all of them, each phase timed as a whole like the seed's
# `time for i in $(seq 10); do docker run ...`. Then the package churn: M
# containers at once install a set of .deb packages from the image's local
# cache (dpkg -i, no network) and remove them again (dpkg -P).
# Raw output: $LL_OUT/lifecycle.tsv (phase, containers, seconds).
set -euo pipefail
source "$(dirname "$0")/../../../guest/lib.sh"
ll_require LL_OUT LL_TRIAL LL_IMAGE_SHELL LL_IMAGE_CHURN LL_P_CONTAINERS LL_P_CHURN_CONTAINERS

prefix="ll-$LL_TRIAL"
cleanup() {
  local ids
  # Ours only: the label as well as the name (an owner may name containers ll-*).
  ids="$(docker ps -aq --filter label=layerlab.lab --filter "name=^$prefix-")"
  # shellcheck disable=SC2086 # docker's hex ids
  if [ -n "$ids" ]; then docker rm -f $ids >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
cleanup

# A container that stops at once on SIGTERM, as a real service would (a shell
# as PID 1 without a handler would wait for docker's 10 s kill).
idle=(/bin/sh -c 'trap "exit 0" TERM; sleep 100000 & wait')
names=()
for i in $(seq 1 "$LL_P_CONTAINERS"); do names+=("$prefix-$i"); done

printf 'phase\tcontainers\tseconds\n' > "$LL_OUT/lifecycle.tsv"
phase() {
  local name="$1" count="$2" start end
  shift 2
  start="$(ll_now)"
  "$@"
  end="$(ll_now)"
  printf '%s\t%s\t%s\n' "$name" "$count" "$(ll_elapsed "$start" "$end")" >> "$LL_OUT/lifecycle.tsv"
}
run_all() {
  local name
  for name in "${names[@]}"; do
    docker run -d --name "$name" --hostname "$name" --network none "$LL_IMAGE_SHELL" "${idle[@]}" >/dev/null
  done
}
phase run "$LL_P_CONTAINERS" run_all
phase inspect "$LL_P_CONTAINERS" \
  docker inspect --size -f '{{.Name}} SizeRw={{.SizeRw}} SizeRootFs={{.SizeRootFs}}' "${names[@]}" > "$LL_OUT/inspect.txt"
phase stop "$LL_P_CONTAINERS" docker stop "${names[@]}" > /dev/null
phase rm "$LL_P_CONTAINERS" docker rm "${names[@]}" > /dev/null

if [ "$LL_P_CHURN_CONTAINERS" -gt 0 ]; then
  churn=()
  for i in $(seq 1 "$LL_P_CHURN_CONTAINERS"); do
    churn+=("$prefix-churn-$i")
    docker run -d --name "$prefix-churn-$i" --network none "$LL_IMAGE_CHURN" "${idle[@]}" >/dev/null
  done
  # Runs one command in every churn container at once; fails if any failed.
  in_all() {
    local name pids=() failed=0 pid
    for name in "${churn[@]}"; do
      docker exec "$name" /bin/sh -c "$1" >> "$LL_OUT/churn.log" 2>&1 &
      pids+=("$!")
    done
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    return "$failed"
  }
  phase install "$LL_P_CHURN_CONTAINERS" in_all 'dpkg -i /debs/*.deb > /dev/null'
  phase remove "$LL_P_CHURN_CONTAINERS" in_all \
    'dpkg -P $(for f in /debs/*.deb; do dpkg-deb -f "$f" Package; done) > /dev/null'
  docker exec "${churn[0]}" /bin/sh -c 'ls /debs/*.deb | wc -l' > "$LL_OUT/churn-packages.txt"
fi
