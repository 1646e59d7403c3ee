#!/usr/bin/env bash
# Builds the local target's guest image without a loop mount:
#   mmdebstrap -> directory -> mkfs.ext4 -d -> base.raw (+ kernel and initrd for direct boot).
# Usage: build.sh <out-dir> <codename> [<extra-packages-file> ...] -- <apt-sources-file> [...]
# packages.txt beside this script is every release's list; each extra file adds
# a release's own packages or the kernel (kernel.<flavour>.txt). The sources
# are the machine's, moved to <codename>.
# Runs as root (mmdebstrap --mode=root). Writes into <out-dir>.partial and renames
# it at the end, so a cancelled build never looks like a finished one.
set -euo pipefail

out="$1"; codename="$2"; shift 2
here="$(cd "$(dirname "$0")" && pwd)"
lists=("$here/packages.txt")
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do lists+=("$1"); shift; done
[ "${1:-}" = -- ] || { echo "build.sh: expected -- before the apt sources" >&2; exit 2; }
shift
tmp="${out}.partial"
rm -rf -- "$tmp"
mkdir -p -- "$tmp"
root="$tmp/rootfs"

packages="$(cat -- "${lists[@]}" | grep -v '^#' | grep -v '^[[:space:]]*$' | paste -sd, -)"

# The apt sources are pasted into the guest as-is (mmdebstrap accepts a path
# to a .sources/.list file as a mirror argument).
mirrors=()
for src in "$@"; do mirrors+=("$src"); done

mmdebstrap \
  --mode=root \
  --variant=apt \
  --format=directory \
  --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --customize-hook="$here/customize.sh" \
  "$codename" "$root" "${mirrors[@]}"

kernel="$(find "$root/boot" -maxdepth 1 -name 'vmlinuz-*' | sort | tail -n1)"
initrd="$(find "$root/boot" -maxdepth 1 -name 'initrd.img-*' | sort | tail -n1)"
if [ -z "$kernel" ] || [ -z "$initrd" ]; then
  echo "build.sh: no kernel/initrd in $root/boot" >&2
  exit 1
fi
cp -- "$kernel" "$tmp/vmlinuz"
cp -- "$initrd" "$tmp/initrd.img"

mkfs.ext4 -q -F -L layerlab-root -d "$root" "$tmp/base.raw" 3G
rm -rf -- "$root"
rm -rf -- "$out"
mv -- "$tmp" "$out"
