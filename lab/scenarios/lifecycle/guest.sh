#!/usr/bin/env bash
# lifecycle scenario (seed 004): N containers started one after another with
# `docker run -d`, `docker inspect --size` of all of them, `docker stop` and
# `docker rm` of all of them, each phase timed as a whole like the seed's
# `time for i in $(seq 10); do docker run ...`. Then the package churn: M
# containers at once install a set of .deb packages from the image's local
# cache (dpkg -i, no network) and remove them again (dpkg -P).
# Raw output: $LL_OUT/lifecycle.tsv: per phase its containers and seconds, then
# the disk use after it (seed 004's reason for being written): du of the
# engine's data root, `system df` of images, containers and volumes as the
# engine prints them, and on devicemapper the thin pool's data and metadata
# percent and size from lvs. A first row, start, is the disk use before the
# first container: the tool images loaded, nothing of this trial yet. With
# diskUse: false the disk columns and the start row are left out.
set -euo pipefail
source "$(dirname "$0")/../../../guest/lib.sh"
ll_require LL_OUT LL_TRIAL LL_IMAGE_SHELL LL_P_CONTAINERS LL_P_CHURN_CONTAINERS LL_P_IMAGE LL_P_DISK_USE
# The image of the timed containers: the shell tool image, or (image: large)
# one of over 1 GB like seed 004's, for what inspect --size and the disk
# table then show.
case "$LL_P_IMAGE" in
  small) image="$LL_IMAGE_SHELL" ;;
  large) ll_require LL_IMAGE_LARGE; image="$LL_IMAGE_LARGE" ;;
  *) ll_die "lifecycle: image must be small or large, not $LL_P_IMAGE" ;;
esac
# The containers' network, the target's (guest/lib.sh ll_container_network):
# default (aws) is the engine's default network, each start setting up its
# network as seed 004's `docker run -h … -d` did; none (local, static: their
# daemons run without a bridge) is --network none.
ll_container_network
network=("${LL_NETWORK_ARGS[@]}")
if [ "$LL_NETWORK" = default ]; then
  # A host prepared before its target kept the bridge runs dockerd without
  # one: its containers would start with no network and the report would
  # call the run's network the seed's.
  docker network inspect bridge > /dev/null 2>&1 ||
    ll_die "lifecycle: the target's containers use Docker's default bridge network, but dockerd on this host has none (it was prepared with bridge none): run \`layerlab down\` and \`layerlab up\` for this lab"
fi

prefix="ll-$LL_TRIAL"
# What of this trial may be in the engine, for cleanup: all (anything named
# $prefix-*: the script may stop anywhere, a failed `docker run` may leave a
# container made but not started), none (`rm` removed every timed container
# and no churn container was started since), or churn (the churn containers,
# every one of them started: they are removed by name). cleanup lists the
# engine's containers only for all: each listing is a docker CLI start (half a
# second to a second under TCG) or a curl. stale: the first cleanup found
# containers of an earlier attempt of this trial; their removal is quiet, so
# on exit they are looked for again (left stays all).
left=all
stale=0
churn=()
cleanup() {
  ll_phase cleanup
  case "$left" in
    none) ;;
    churn) ll_containers_rm "${churn[@]}" ;;
    *)
      # Ours only: the label as well as the name (an owner may name containers ll-*).
      ll_container_ids layerlab.lab "^$prefix-"
      if [ "${#LL_CONTAINER_IDS[@]}" -gt 0 ]; then stale=1; fi
      ll_containers_rm "${LL_CONTAINER_IDS[@]}"
      ;;
  esac
}
trap cleanup EXIT
cleanup
ll_phase prepare

# A container that stops at once on SIGTERM, as a real service would (a shell
# as PID 1 without a handler would wait for docker's 10 s kill).
idle=(/bin/sh -c 'trap "exit 0" TERM; sleep 100000 & wait')
names=()
for i in $(seq 1 "$LL_P_CONTAINERS"); do names+=("$prefix-$i"); done

# Bytes du counts under the data root. du -x: container file systems mounted
# inside the root (overlay merged dirs, devicemapper mounts) are not counted
# twice. Counted again when the tree changed while du walked it: an engine may
# still be removing a stopped container's files after its CLI returned
# (Podman's cleanup process does, and du then fails with "fts_read failed";
# run 20261202-122127-e2e-stacks-8fe2).
data_root_bytes() {
  local out attempt
  for attempt in 1 2 3 4 5; do
    if out="$(du -sxB1 -- "$root" 2>&1)" && [[ "$out" =~ ^[0-9]+$'\t' ]]; then
      printf '%s' "${out%%$'\t'*}"
      return 0
    fi
    [ "$attempt" = 5 ] || { echo "layerlab: du of the data root failed ($out); counting again" >&2; sleep 1; }
  done
  ll_die "du of the data root $root failed 5 times, the last: $out"
}

# The disk use now, tab-separated in the header's order. Taken between phases,
# outside their timing; sync first, so that the thin pool has allocated what
# the page cache still held. Every failure returns: this runs inside a command
# substitution, where bash does not apply set -e, and the caller's assignment
# is what stops the script.
disk_state() {
  local bytes df images containers volumes thin=$'-\t-\t-' pool data meta size
  sync
  bytes="$(data_root_bytes)" || return 1
  df="$(docker system df --format $'{{.Type}}\t{{.Size}}')" || ll_die "docker system df failed"
  images="$(awk -F'\t' '$1 == "Images" { print $2 }' <<< "$df")"
  containers="$(awk -F'\t' '$1 == "Containers" { print $2 }' <<< "$df")"
  volumes="$(awk -F'\t' '$1 == "Local Volumes" { print $2 }' <<< "$df")"
  if [ -n "$thin_pool" ]; then
    pool="$(LC_ALL=C lvs --noheadings --nosuffix --units b \
      -o data_percent,metadata_percent,lv_size "$thin_pool")" ||
      ll_die "lvs cannot read the thin pool $thin_pool"
    read -r data meta size <<< "$pool"
    thin="$data"$'\t'"$meta"$'\t'"$size"
  fi
  printf '%s\t%s\t%s\t%s\t%s' "$bytes" "${images:--}" "${containers:--}" "${volumes:--}" "$thin"
}

# diskUse: false (LL_P_DISK_USE=0) leaves the disk columns and the start row
# out: each measurement costs ~4 s under TCG, outside the timed phases; and
# the engine is not asked where its data is (a docker CLI start, up to a
# second under TCG).
if [ "$LL_P_DISK_USE" = 1 ]; then
  # The engine's data root as the engine itself reports it (Podman: its
  # graphroot), and Docker's storage driver with it: one `docker info`.
  thin_pool=""
  if [ "$LL_ENGINE" = podman ]; then
    root="$(docker info --format '{{.Store.GraphRoot}}')"
  else
    info="$(docker info --format '{{.Driver}} {{.DockerRootDir}}')"
    # The driver is one word; the root is the rest, spaces and all.
    root="${info#* }"
    # Docker's direct-lvm setup (dm.directlvm_device, profile devicemapper-lvm)
    # always names its pool thinpool in volume group docker.
    if [ "${info%% *}" = devicemapper ]; then thin_pool=docker/thinpool; fi
  fi
  [ -d "$root" ] || ll_die "the engine reports data root '$root', which is not a directory"
  printf 'phase\tcontainers\tseconds\tdata_root_bytes\tdf_images\tdf_containers\tdf_volumes\tthin_data_percent\tthin_metadata_percent\tthin_pool_bytes\n' \
    > "$LL_OUT/lifecycle.tsv"
  # An assignment, not an argument: a failed measurement stops the script (set -e).
  disk="$(disk_state)"
  printf 'start\t0\t-\t%s\n' "$disk" >> "$LL_OUT/lifecycle.tsv"
else
  printf 'phase\tcontainers\tseconds\n' > "$LL_OUT/lifecycle.tsv"
fi
phase() {
  local name="$1" count="$2" start end disk=""
  shift 2
  ll_phase work
  start="$(ll_now)"
  "$@"
  end="$(ll_now)"
  ll_phase output
  if [ "$LL_P_DISK_USE" = 1 ]; then
    disk="$(disk_state)"
    disk=$'\t'"$disk"
  fi
  printf '%s\t%s\t%s%s\n' "$name" "$count" "$(ll_elapsed "$start" "$end")" "$disk" >> "$LL_OUT/lifecycle.tsv"
}
run_all() {
  local name
  for name in "${names[@]}"; do
    docker run -d --name "$name" --hostname "$name" "${network[@]}" "$image" "${idle[@]}" >/dev/null
  done
}
phase run "$LL_P_CONTAINERS" run_all
phase inspect "$LL_P_CONTAINERS" \
  docker inspect --size -f '{{.Name}} SizeRw={{.SizeRw}} SizeRootFs={{.SizeRootFs}}' "${names[@]}" > "$LL_OUT/inspect.txt"
phase stop "$LL_P_CONTAINERS" docker stop "${names[@]}" > /dev/null
phase rm "$LL_P_CONTAINERS" docker rm "${names[@]}" > /dev/null
# rm removed every container this trial started: nothing is left to list on exit.
if [ "$stale" = 0 ]; then left=none; fi

if [ "$LL_P_CHURN_CONTAINERS" -gt 0 ]; then
  # The churn image is loaded only for labs that churn (lifecycle's toolImagesFor).
  ll_require LL_IMAGE_CHURN
  ll_phase start
  # A start that fails may leave its container made but not started: listed on exit.
  left=all
  for i in $(seq 1 "$LL_P_CHURN_CONTAINERS"); do
    docker run -d --name "$prefix-churn-$i" "${network[@]}" "$LL_IMAGE_CHURN" "${idle[@]}" >/dev/null
    churn+=("$prefix-churn-$i")
  done
  # Every one started, by the name it was given: removed by name on exit.
  if [ "$stale" = 0 ]; then left=churn; fi
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
