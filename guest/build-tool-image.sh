#!/usr/bin/env bash
# Builds a tool image on this host, for a controller that cannot build one
# itself (not root, no mmdebstrap, no Debian sources): the same builder and
# recipe the controller would run, with this host's apt sources, bookworm's
# packages. Prints a tar of image.tar.zst and image.sha256 on stdout; all
# else goes to stderr.
# Usage: build-tool-image.sh <recipe name> <apt sources file>...
# LL_MAY_INSTALL=1: the host is layerlab's, so mmdebstrap may be installed
# with apt when missing; otherwise a host without it refuses (exit 3).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
here="$(dirname "$0")"
name="${1:?usage: build-tool-image.sh <recipe name> <apt sources file>...}"
shift
[[ "$name" =~ ^[a-z0-9][a-z0-9-]*$ ]] || ll_die "tool image name '$name' is not [a-z0-9-]"
recipe="$here/images/$name.image"
[ -f "$recipe" ] || ll_die "no recipe $recipe on this host"
[ "$#" -gt 0 ] || ll_die "no apt sources given"
for sources in "$@"; do
  case "$sources" in
    /etc/apt/sources.list | /etc/apt/sources.list.d/*.list | /etc/apt/sources.list.d/*.sources) ;;
    *) ll_die "apt sources file $sources is not under /etc/apt" ;;
  esac
  [ -f "$sources" ] || ll_die "apt sources file $sources is missing"
done
# The sources are used as they are: only a bookworm host builds bookworm's packages.
release="$(. /etc/os-release && echo "${ID:-}/${VERSION_CODENAME:-}")"
if [ "$release" != debian/bookworm ]; then
  echo "layerlab: this host runs $release, not debian/bookworm: tool images are built from Debian 12 only" >&2
  exit 3
fi
if ! command -v mmdebstrap > /dev/null; then
  if [ "${LL_MAY_INSTALL:-0}" != 1 ]; then
    echo "layerlab: mmdebstrap is not installed on this host, and the host is not layerlab's to change" >&2
    exit 3
  fi
  echo "layerlab: installing mmdebstrap with apt to build tool images here" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >&2
fi
ll_work_dir
out="$LL_WORK/tool-image-$name"
rm -rf -- "$out"
mkdir -m 0700 -- "$out"
trap 'rm -rf -- "$out"' EXIT
bash "$LL_ROOT/lab/toolimages/build.sh" "$out/image.tar" "$recipe" "$@" >&2
zstd -q -3 -T0 --rm "$out/image.tar" -o "$out/image.tar.zst" >&2
sha256sum "$out/image.tar.zst" | cut -d' ' -f1 > "$out/image.sha256"
tar -cf - -C "$out" image.tar.zst image.sha256
