#!/usr/bin/env bash
# fio scenario (seed 003): four stonewalled jobs — sequential write, sequential
# read, random write, random read — in one fio run inside the tool image, on the
# mount kind under test. Raw JSON goes to $LL_OUT/fio.json.
set -euo pipefail
source "$(dirname "$0")/../../../guest/lib.sh"
ll_require LL_OUT LL_MOUNT LL_TRIAL LL_IMAGE_FIO LL_P_SIZE LL_P_RUNTIME LL_P_RAMP LL_P_BS_SEQ LL_P_BS_RAND LL_P_IODEPTH LL_P_JOBS

ll_phase mount
ll_mount_setup "$LL_MOUNT" "$LL_TRIAL" /data
trap 'll_phase cleanup; docker rm -f "ll-$LL_TRIAL" >/dev/null 2>&1 || true; ll_mount_cleanup' EXIT

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

ll_container_run "ll-$LL_TRIAL" "$LL_IMAGE_FIO" "$LL_OUT/fio.json" "$LL_OUT/fio.stderr" /usr/bin/fio "${args[@]}"
