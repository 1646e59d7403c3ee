#!/usr/bin/env bash
# `down` on a machine layerlab does not own (static target): removes what lab
# $LL_LAB created there, found by its label (layerlab.lab=<lab>) and never by a
# name pattern: containers, volumes, networks and the tool images it loaded.
# Then its bind-mount sources and scratch space, puts back the owner's setup
# that the first profile change set aside (/var/lib/docker, daemon.json, the
# fstab lines; the data disk stays formatted), and removes its own files.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ll_require LL_LAB

if command -v docker >/dev/null 2>&1 && command docker info >/dev/null 2>&1; then
  ours=(--filter "label=layerlab.lab=$LL_LAB")
  mapfile -t containers < <(command docker ps -aq "${ours[@]}")
  if [ "${#containers[@]}" -gt 0 ]; then command docker rm -f "${containers[@]}" >/dev/null; fi
  mapfile -t volumes < <(command docker volume ls -q "${ours[@]}")
  if [ "${#volumes[@]}" -gt 0 ]; then command docker volume rm -f "${volumes[@]}" >/dev/null; fi
  mapfile -t networks < <(command docker network ls -q "${ours[@]}")
  if [ "${#networks[@]}" -gt 0 ]; then command docker network rm "${networks[@]}" >/dev/null; fi
  mapfile -t images < <(command docker image ls -q --no-trunc "${ours[@]}" | sort -u)
  if [ "${#images[@]}" -gt 0 ]; then command docker image rm -f "${images[@]}" >/dev/null; fi
  echo "removed ${#containers[@]} container(s), ${#volumes[@]} volume(s), ${#networks[@]} network(s), ${#images[@]} image(s) labelled layerlab.lab=$LL_LAB"
fi
rm -rf -- "${LL_BIND_ROOT:?}" "${LL_WORK:?}"
if [ -d "$LL_STATE" ]; then ll_safe_dir "$LL_STATE"; fi
ll_restore_owner_setup
rm -rf -- "${LL_ROOT:?}"
