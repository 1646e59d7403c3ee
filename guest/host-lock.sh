#!/usr/bin/env bash
# Which controller drives this machine (static target): $LL_STATE/host.lock,
# one key=value line each (id, lab, who, home, pid, since), written whole or
# not at all (a hard link, which fails when the lock exists). The controller
# sends lib.sh and this file on stdin with
#   LL_LOCK_ACTION  check (read-only) | take | release
#   LL_LOCK_ID      its own id (lab/targets/controller.ts)
#   LL_LOCK_BODY    the lock's lines (take)
# Exit 0: free, ours, taken or released. Exit 3: held by another controller,
# or a file there that layerlab did not write; its lines on stdout. A lock
# that is not ours is never removed.
set -euo pipefail
declare -F ll_die >/dev/null || source "$(dirname "$0")/lib.sh"
ll_require LL_LOCK_ACTION LL_LOCK_ID
lock="$LL_STATE/host.lock"

# The holder's id, or nothing when the lock is not a file layerlab wrote.
holder_id() {
  if [ -f "$lock" ] && [ ! -L "$lock" ]; then sed -n 's/^id=//p' -- "$lock" | head -n 1; fi
}

# Exit 3 with what holds the machine.
refuse() {
  if [ -n "$(holder_id)" ]; then
    cat -- "$lock"
  else
    echo "unknown=$lock is there but layerlab did not write it"
  fi
  exit 3
}

mine() {
  [ "$(holder_id)" = "$LL_LOCK_ID" ]
}

case "$LL_LOCK_ACTION" in
  check)
    if [ ! -e "$lock" ] && [ ! -L "$lock" ]; then exit 0; fi
    mine || refuse
    ;;
  take)
    ll_require LL_LOCK_BODY
    ll_safe_dir "$LL_STATE"
    if [ -e "$lock" ] || [ -L "$lock" ]; then
      mine || refuse
      echo ours
      exit 0
    fi
    draft="$LL_STATE/host.lock.$$"
    trap 'rm -f -- "$draft"' EXIT
    (umask 077 && printf '%s\n' "$LL_LOCK_BODY" > "$draft")
    # -T: never "into" a folder someone made at that path.
    if ln -T -- "$draft" "$lock" 2>/dev/null; then
      echo taken
      exit 0
    fi
    mine || refuse
    echo ours
    ;;
  release)
    if [ ! -e "$lock" ] && [ ! -L "$lock" ]; then exit 0; fi
    mine || refuse
    rm -f -- "$lock"
    # Left empty by a `down` of a machine never prepared: it goes too (rmdir removes nothing else).
    rmdir -- "$LL_STATE" 2>/dev/null || true
    echo released
    ;;
  *) ll_die "LL_LOCK_ACTION must be check, take or release, not $LL_LOCK_ACTION" ;;
esac
