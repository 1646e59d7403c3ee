#!/usr/bin/env bash
# fio scenario (seed 003): four stonewalled jobs — sequential write, sequential
# read, random write, random read — in one fio run inside the tool image, on the
# mount kind under test. Raw JSON goes to $LL_OUT/fio.json.
# LL_P_CONTAINER=fresh (the seed's `docker run --rm` per run): a new container
# and new storage every trial. kept: the cell's container and storage stay for
# the run and fio is `docker exec`'d into it (guest/lib.sh ll_kept_container);
# the file is still fio's own every trial (laid out, then unlinked by the last
# job) unless LL_P_LAYOUT=once, allowed for read-only job sets only, keeps it.
set -euo pipefail
# run-trial.sh starts this script by its full path: ${0%/*} is its folder, no dirname process.
source "${0%/*}/../../../guest/lib.sh"
ll_require LL_OUT LL_MOUNT LL_TRIAL LL_IMAGE_FIO LL_P_SIZE LL_P_RUNTIME LL_P_RAMP LL_P_BS_SEQ LL_P_BS_RAND LL_P_IODEPTH LL_P_JOBS
container="${LL_P_CONTAINER:-fresh}" layout="${LL_P_LAYOUT:-per-trial}"

args=(
  --output-format=json --directory=/data --filename=fio.dat
  --size="$LL_P_SIZE" --direct=1 --ioengine=libaio --iodepth="$LL_P_IODEPTH"
  --runtime="$LL_P_RUNTIME" --ramp_time="$LL_P_RAMP" --time_based
)
# Jobs come from the controller's job table as name:rw:bs (bs is seq or rand).
for job in $LL_P_JOBS; do
  IFS=: read -r name rw bs <<< "$job"
  case "$bs" in seq) size="$LL_P_BS_SEQ" ;; rand) size="$LL_P_BS_RAND" ;; *) ll_die "bad job $job" ;; esac
  args+=(--name="$name" --rw="$rw" --bs="$size" --stonewall)
done

case "$container:$layout" in
  fresh:per-trial)
    ll_phase mount
    ll_mount_setup "$LL_MOUNT" "$LL_TRIAL" /data
    # The container goes here only when ll_container_run did not remove it (a failure before that).
    trap 'll_phase cleanup; ll_container_cleanup "ll-$LL_TRIAL"; ll_mount_cleanup' EXIT
    ll_container_run "ll-$LL_TRIAL" "$LL_IMAGE_FIO" "$LL_OUT/fio.json" "$LL_OUT/fio.stderr" /usr/bin/fio "${args[@]}"
    ;;
  kept:per-trial | kept:once)
    # The last job's unlink leaves the kept storage as a fresh container's would
    # be: the next trial's first job lays the file out, or creates it, anew.
    if [ "$layout" = per-trial ]; then args+=(--unlink=1); fi
    ll_kept_container "$LL_IMAGE_FIO" /data
    # A trial that fails may leave a partial file or a broken container: the
    # next trial of the cell starts from nothing.
    trap 'if [ "$?" != 0 ]; then ll_phase cleanup; ll_kept_drop "$LL_SCENARIO-$LL_MOUNT" || :; fi' EXIT
    ll_phase work
    docker exec "$LL_KEPT_NAME" /usr/bin/fio "${args[@]}" > "$LL_OUT/fio.json" 2> "$LL_OUT/fio.stderr"
    ;;
  *) ll_die "fio: container=$container with layout=$layout is not a combination layerlab runs" ;;
esac
