#!/usr/bin/env bash
# Loads a tool image (zstd-compressed rootfs tar on stdin) as TAG, labelled
# layerlab.lab=$LL_LAB (cleanup.sh removes it by that label) and with the
# archive's sha256, unless that image is there already. The bytes are checked against
# LL_SHA256 (the controller's hash of its cached archive) before the engine
# sees them: every host runs exactly what the controller holds.
# `load-image.sh --loaded TAG` only asks: exit 0 when TAG was loaded from
# these bytes, 1 when not (the controller asks before it sends an archive).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ll_require LL_LAB LL_SHA256
ask_only=0
if [ "${1:-}" = --loaded ]; then
  ask_only=1
  shift
fi
tag="${1:?usage: load-image.sh [--loaded] TAG}"
# Loaded before from the same bytes: nothing to do. (The same tag from other
# bytes — a mirror that moved on, a load before hashes were kept — is replaced.)
if ll_engine image inspect -f '{{index .Config.Labels "layerlab.archive-sha256"}}' "$tag" 2> /dev/null | grep -qx -- "$LL_SHA256"; then
  [ "$ask_only" = 1 ] || cat > /dev/null
  exit 0
fi
[ "$ask_only" = 0 ] || exit 1
ll_work_dir
archive="$(mktemp "$LL_WORK/incoming-image.XXXXXX")"
trap 'rm -f -- "$archive"' EXIT
cat > "$archive"
read -r got _ < <(sha256sum "$archive")
[ "$got" = "$LL_SHA256" ] || ll_die "tool image $tag: the archive received hashes to $got, not $LL_SHA256 (transfer damaged?)"
zstd -dc "$archive" |
  ll_engine import --change 'WORKDIR /' --change "LABEL layerlab.lab=$LL_LAB" \
    --change "LABEL layerlab.archive-sha256=$LL_SHA256" - "$tag" > /dev/null
