#!/usr/bin/env bash
# Read-only: may profile $LL_PROFILE be applied to this host with data disk
# $LL_DATA_DISK? Exit 0: yes (or it is in place already, so nothing changes).
# Exit 3: no, with what stands in the way on stdout, one line each (see
# ll_may_change_host). The controller sends lib.sh and this file on stdin
# before it pushes anything, so a refused host is left exactly as it was.
set -euo pipefail
declare -F ll_die >/dev/null || source "$(dirname "$0")/lib.sh"
ll_require LL_PROFILE LL_DATA_DISK
if ll_profile_in_place "$LL_PROFILE"; then exit 0; fi
disk="$(readlink -f -- "$LL_DATA_DISK")"
if [ ! -b "$disk" ]; then
  echo "data disk $LL_DATA_DISK is not a block device"
  exit 3
fi
ll_may_change_host "$disk"
