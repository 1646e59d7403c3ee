#!/usr/bin/env bash
# Removes what layerlab put on a machine it does not own (static target): its
# containers and volumes (named ll-*), bind-mount sources, tool images
# (layerlab/*), trial scratch space and its own files. The storage profile
# stays as it is: a formatted data disk cannot be un-formatted, and the
# machine's owner chose the profile when listing the disk in the inventory.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  mapfile -t containers < <(docker ps -aq --filter 'name=^ll-')
  if [ "${#containers[@]}" -gt 0 ]; then docker rm -f "${containers[@]}" >/dev/null; fi
  mapfile -t volumes < <(docker volume ls -q --filter 'name=^ll-')
  if [ "${#volumes[@]}" -gt 0 ]; then docker volume rm -f "${volumes[@]}" >/dev/null; fi
  mapfile -t images < <(docker image ls --format '{{.Repository}}:{{.Tag}}' 'layerlab/*')
  if [ "${#images[@]}" -gt 0 ]; then docker image rm -f "${images[@]}" >/dev/null; fi
  echo "removed ${#containers[@]} container(s), ${#volumes[@]} volume(s), ${#images[@]} image(s)"
fi
rm -rf -- "${LL_BIND_ROOT:?}" /var/tmp/layerlab "${LL_ROOT:?}"
