#!/usr/bin/env bash
# The nightly lab in one script: up -> run -> compare with the history's
# baseline -> report -> down, with down and sweep always (an EXIT trap).
# .github/workflows/nightly.yml only calls this; the same steps run here
# against the local or the static target.
#
#   scripts/nightly.sh --lab <file> [--target local|aws|static] [--inventory <file>]
#       [--stack <name>] [--ssh-cidr <cidr>]... [--history <file|s3://bucket/key>]
#       [--baseline last|nights:N] [--threshold <N%>] [--summary <file>] [--dry-run]
#   scripts/nightly.sh --teardown --lab <file> [target options]   (down and sweep only)
#   scripts/nightly.sh --accept <run-id> --lab <file> --history <...>   (accept, nothing else)
#
# --accept: makes a night the baseline of later nights in the durable history
#   (`layerlab history accept`): read, accept, write back; no lab is started.
# --history: the durable copy of results/history.sqlite (a file, or S3
#   objects through the aws CLI: scripts/nightly-history.sh). Fetched before
#   the run: a missing one is the first night, one that cannot be read stops
#   the night (exit 3) before anything starts. Written back after the run,
#   whatever happened, new-then-switch (a night killed halfway loses nothing).
#   LAYERLAB_S3_ENDPOINT: an S3-compatible endpoint URL instead of AWS's.
# --summary: Markdown file the comparison and the report are appended to
#   (default: $GITHUB_STEP_SUMMARY when set).
# --dry-run: check the arguments and print the commands, running nothing.
#
# Exit codes: 0 every step passed and nothing regressed beyond the threshold;
# 1 a regression, a failed trial or a failed step (down and sweep included);
# 2 bad input or a missing prerequisite, before anything started;
# 3 the history could not be read (before anything started) or written back.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
results="${LAYERLAB_RESULTS:-results}"

usage() {
  sed -n '7,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}
die() {
  echo "nightly: $*" >&2
  usage
  exit 2
}

lab='' target='' inventory='' stack='' history='' baseline='last' threshold='5%'
summary="${GITHUB_STEP_SUMMARY:-}" dry_run=false teardown_only=false accept=
ssh_cidrs=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --lab | --target | --inventory | --stack | --ssh-cidr | --history | --baseline | --threshold | --summary | --accept)
      # An empty value is usually an unset variable or secret (e.g. --history "$LAYERLAB_HISTORY").
      [ "$#" -ge 2 ] && [ -n "$2" ] || die "$1 needs a value (got none, or an empty one)"
      case "$1" in
        --lab) lab="$2" ;;
        --target) target="$2" ;;
        --inventory) inventory="$2" ;;
        --stack) stack="$2" ;;
        --ssh-cidr) ssh_cidrs+=("$2") ;;
        --history) history="$2" ;;
        --baseline) baseline="$2" ;;
        --threshold) threshold="$2" ;;
        --summary) summary="$2" ;;
        --accept) accept="$2" ;;
      esac
      shift 2
      ;;
    --dry-run) dry_run=true && shift ;;
    --teardown) teardown_only=true && shift ;;
    -h | --help) usage && exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done

[ -n "$lab" ] || die "--lab <file> is required"
[ -r "$lab" ] || die "--lab: cannot read $lab"
case "$target" in
  '' | local | aws | static) ;;
  *) die "--target: expected local, aws or static; got '$target'" ;;
esac
[ -z "$inventory" ] || [ -r "$inventory" ] || die "--inventory: cannot read $inventory"
[ "$target" != static ] || [ -n "$inventory" ] || die "--target static needs --inventory <hosts.yaml>"
[[ "$baseline" =~ ^(last|nights:[1-9][0-9]?)$ ]] || die "--baseline: expected last or nights:N; got '$baseline'"
[[ "$threshold" =~ ^[0-9]{1,2}(\.[0-9]+)?%$ ]] || die "--threshold: expected a percentage like 5%; got '$threshold'"
[ -z "$accept" ] || [[ "$accept" =~ ^[0-9]{8}-[0-9]{6}-[a-z0-9-]+$ ]] || die "--accept: expected a run id like 20261130-101500-nightly-1a2b; got '$accept'"
[ -z "$accept" ] || [ -n "$history" ] || die "--accept needs --history (the history to record it in)"
case "$history" in
  s3://*)
    command -v aws > /dev/null || "$dry_run" || die "--history $history needs the aws CLI on PATH"
    command -v openssl > /dev/null || "$dry_run" || die "--history $history needs openssl on PATH (Content-MD5 of uploads)"
    ;;
esac

target_args=()
[ -z "$target" ] || target_args+=(--target "$target")
[ -z "$inventory" ] || target_args+=(--inventory "$inventory")
[ -z "$stack" ] || target_args+=(--stack "$stack")
for cidr in "${ssh_cidrs[@]}"; do target_args+=(--ssh-cidr "$cidr"); done
case "$target" in
  aws) sweep_args=(--cloud) ;;
  local | static) sweep_args=(--local) ;;
  *) sweep_args=() ;;
esac

# A command as it is run, on stderr.
trace() {
  printf '+' >&2
  printf ' %q' "$@" >&2
  printf '\n' >&2
}
# One step: printed, then run (or only printed with --dry-run); its exit code is returned.
step() {
  trace "$@"
  "$dry_run" && return 0
  "$@"
}
layerlab() {
  node "$repo/bin/layerlab.js" "$@"
}
# The first failure decides the exit code; later ones only make a clean run fail.
status=0
failed() {
  [ "$status" -ne 0 ] || status="$1"
}

# The lab's name, from its definition's top-level name: key.
lab_name() {
  sed -n 's/^name:[[:space:]]*["'"'"']\{0,1\}\([a-z0-9-]*\).*/\1/p' "$lab" | head -n 1
}

# The comparison first (it is what a reader of a failed night looks for), then the report.
# A night that measured nothing (up or run failed) still says so, and shows
# what the last measured night flagged: a regression stays in sight.
write_failure_summary() {
  [ -n "$summary" ] || return 0
  "$dry_run" && { echo "+ (append the failure and the last night's flagged cells to $summary)" >&2 && return 0; }
  local name
  name="$(lab_name)"
  {
    printf '# layerlab nightly: nothing measured tonight (%s failed, exit %s)\n\n' "$failed_step" "$status"
    printf 'The log of the step says why. The last measured night, as it was judged:\n\n'
  } >> "$summary"
  local rc=2 last="$results/nightly/last-night.md"
  if [ -n "$name" ] && [ -f "$results/history.sqlite" ]; then
    mkdir -p "$results/nightly"
    rc=0
    # Exit 1 is "it had regressions": those are what this part is for.
    layerlab compare --baseline "$baseline" --threshold "$threshold" --lab "$name" > "$last" 2> /dev/null || rc=$?
  fi
  if [ "$rc" -le 1 ] && [ -s "$last" ]; then
    cat "$last" >> "$summary"
  else
    printf '(no earlier night of this lab in the history)\n' >> "$summary"
  fi
}

write_summary() {
  [ -n "$summary" ] || return 0
  [ -n "$run_dir" ] || {
    write_failure_summary
    return 0
  }
  "$dry_run" && { echo "+ (append compare.md and report.md to $summary)" >&2 && return 0; }
  local part so_far
  for part in "$results/nightly/${run_dir##*/}/compare.md" "$run_dir/report.md"; do
    [ -f "$part" ] || continue
    so_far=0
    [ ! -f "$summary" ] || so_far="$(wc -c < "$summary")"
    # A job summary holds at most 1 MiB: a report that would not fit is left to the artifact.
    if [ $(($(wc -c < "$part") + so_far)) -gt 900000 ]; then
      printf '\n(%s is too long for the job summary; it is in the results artifact)\n' "${part##*/}" >> "$summary"
    else
      cat "$part" >> "$summary"
    fi
  done
  local trends="$results/nightly/${run_dir##*/}/trends/trends.html"
  [ ! -f "$trends" ] || printf '\nEach cell over the nights: %s (in the results artifact; trends.csv and trends.json beside it)\n' "$trends" >> "$summary"
}

teardown() {
  step layerlab down "${target_args[@]}" --lab "$lab" || failed 1
  step layerlab sweep "${sweep_args[@]}" || failed 1
}

# shellcheck source=scripts/nightly-history.sh
. "$repo/scripts/nightly-history.sh"

run_dir='' failed_step='the night'
finish() {
  local rc=$?
  trap - EXIT
  set +e
  failed "$rc"
  teardown
  store_history || failed 3
  write_summary || failed 1
  echo "nightly: exit $status" >&2
  exit "$status"
}

if "$teardown_only"; then
  teardown
  exit "$status"
fi

if [ -n "$accept" ]; then
  fetch_history
  step layerlab history accept "$accept" || exit 2
  store_history || exit 3
  exit 0
fi

# Bad input stops here, before anything is created or fetched (checked in a dry run too).
echo "+ layerlab validate $lab" >&2
layerlab validate "$lab" > /dev/null || exit 2
# A history that exists but cannot be read stops the night here (exit 3):
# nothing is up yet, and nothing is written back.
fetch_history
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if step layerlab up "${target_args[@]}" --lab "$lab"; then
  failed_step='layerlab run'
  run_out="$(step layerlab run "${target_args[@]}" --lab "$lab")" || failed "$?"
  report="$(printf '%s\n' "$run_out" | tail -n 1)"
  if "$dry_run"; then
    run_dir="$results/<run-id>"
  elif [ -f "$report" ]; then
    run_dir="$(dirname "$report")"
  fi
  if [ -n "$run_dir" ]; then
    # The night's own files sit beside the run folder, which only layerlab writes.
    out="$results/nightly/${run_dir##*/}"
    "$dry_run" || mkdir -p "$out"
    compare_md=/dev/null
    "$dry_run" || compare_md="$out/compare.md"
    rc=0
    step layerlab compare --baseline "$baseline" --threshold "$threshold" \
      --benchmark-dir "$out/benchmark" "$run_dir" > "$compare_md" || rc=$?
    case "$rc" in
      0) ;;
      1) echo "nightly: regressions against the baseline (see $out/compare.md)" >&2 && failed 1 ;;
      *) failed "$rc" ;;
    esac
    # Every cell over the nights, tonight's verdict included (after compare: it records the verdict).
    # A picture that cannot be drawn (a lab that compares no metric) does not fail the night.
    plot_lab=()
    name="$(lab_name)"
    [ -z "$name" ] || plot_lab=(--lab "$name")
    step layerlab history plot "${plot_lab[@]}" --out "$out/trends" > /dev/null ||
      echo "nightly: no trend page tonight (layerlab history plot failed; the night's verdict stands)" >&2
  fi
else
  failed "$?"
  failed_step='layerlab up'
fi
