#!/usr/bin/env bash
# Runs one trial: lab/scenarios/$LL_SCENARIO/guest.sh with its output in $LL_OUT,
# then writes meta.json (times, exit status, load and CPU steal around it) and
# phases (where the trial's time went: ll_phase marks, the scenario's among them), and
# streams the folder's files to stdout as one tar (then removes them): a trial is a single
# SSH round trip. Everything else goes to files, so stdout carries only the tar.
# The scenario's exit status is recorded, not propagated: raw output is the truth
# and the controller decides what failed.
set -euo pipefail
# Builtins wherever they do the job (${BASH_SOURCE[0]%/*}, read, $EPOCHREALTIME): under TCG
# every process started here costs tens of milliseconds of harness time on
# every trial. The controller names this script by its full path, and the
# login shell sources it when that is bash (lab/util/shell.ts, bashScriptCommand):
# BASH_SOURCE, not $0, is this file then.
# The trial's first phase (setup) starts here; it is written once the output
# folder is ready for it (a file in it before then would have it made anew).
setup_start="$EPOCHREALTIME"
source "${BASH_SOURCE[0]%/*}/lib.sh"
ll_require LL_OUT LL_SCENARIO LL_TRIAL LL_MOUNT LL_REP

ll_reap_stale_trial
case "$LL_OUT" in
  "$LL_WORK"/*/*) ;;
  *) ll_die "LL_OUT=$LL_OUT is not a trial folder under $LL_WORK" ;;
esac
# The output folder stays from one trial to the next (the tar below takes its
# files, not the folder): no mkdir process on every trial. A folder with
# anything left in it (an attempt that did not end), a link or none is made anew.
shopt -s nullglob dotglob
left=("$LL_OUT"/*)
shopt -u nullglob dotglob
if [ -L "$LL_OUT" ] || [ ! -d "$LL_OUT" ] || [ "${#left[@]}" -gt 0 ]; then
  rm -rf -- "$LL_OUT"
  mkdir -p -- "$LL_OUT"
fi
ll_phase setup "$setup_start"
script="$LL_ROOT/lab/scenarios/$LL_SCENARIO/guest.sh"
[ -f "$script" ] || ll_die "no guest script for scenario $LL_SCENARIO"

# The 9th field of /proc/stat's first line ("cpu ...") is steal time, in ticks.
read -r load_before < /proc/loadavg
read -r _ _ _ _ _ _ _ _ steal_before _ < /proc/stat
start="$EPOCHREALTIME"
# The scenario script's phases follow (ll_phase); what it does not mark is "script".
ll_phase script "$start"
set +e
bash "$script" > "$LL_OUT/guest.stdout" 2> "$LL_OUT/guest.stderr"
status=$?
set -e
end="$EPOCHREALTIME"
ll_phase finish "$end"
read -r _ _ _ _ _ _ _ _ steal_after _ < /proc/stat
read -r load_after < /proc/loadavg
read -r kernel < /proc/sys/kernel/osrelease
images=()
for var in "${!LL_IMAGE_@}"; do images+=("${!var}"); done
# The kernel's tick rate (the unit of the steal counts) is fixed per kernel:
# asked of getconf once per kernel release, not on every trial.
clk_tck_cache="$LL_WORK/clk-tck"
cached_kernel='' clk_tck=''
if [ -f "$clk_tck_cache" ]; then read -r cached_kernel clk_tck < "$clk_tck_cache" || :; fi
if [ "$cached_kernel" != "$kernel" ] || [ -z "$clk_tck" ]; then
  clk_tck="$(getconf CLK_TCK)"
  printf '%s %s\n' "$kernel" "$clk_tck" > "$clk_tck_cache"
fi

ll_json_obj \
  scenario "$LL_SCENARIO" trial "$LL_TRIAL" mount "$LL_MOUNT" rep "$LL_REP" \
  start "$start" end "$end" exit_status "$status" \
  loadavg_before "$load_before" loadavg_after "$load_after" \
  steal_ticks_before "$steal_before" steal_ticks_after "$steal_after" \
  clk_tck "$clk_tck" kernel "$kernel" images "${images[*]}" \
  > "$LL_OUT/meta.json"

# The last mark: the MANIFEST covers the phases file, and what follows (the
# tar, SSH) is the controller's side of the trial.
ll_phase end
ll_write_manifest "$LL_OUT"
# tar removes each file once it is in the stream (no rm process) and leaves the
# folder, empty, for the next trial. Then the pidfile is emptied (a builtin):
# an empty pidfile says this attempt ran to its end (ll_reap_stale_trial).
cd -- "$LL_OUT"
shopt -s nullglob dotglob
entries=(*)
shopt -u nullglob dotglob
tar --remove-files -cf - -- "${entries[@]}"
: > "$LL_TRIAL_PIDFILE"
