#!/usr/bin/env bash
# Builds a tool image tarball (for `docker import`) from Debian packages:
# install the packages into a scratch rootfs with mmdebstrap, then keep only the
# listed binaries and their shared-library closure.
# Usage: build.sh <out.tar> <packages,comma,separated> <binaries,comma,separated> <apt-sources-file>...
set -euo pipefail

out="$1"; packages="$2"; binaries="$3"; shift 3
work="$(mktemp -d "${out}.work.XXXXXX")"
trap 'rm -rf -- "$work"' EXIT
root="$work/rootfs"
image="$work/image"

mmdebstrap --mode=root --variant=essential --include="$packages" --format=directory \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  bookworm "$root" "$@"

mkdir -p "$image/tmp" "$image/etc" "$image/data"
chmod 1777 "$image/tmp"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' > "$image/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$image/etc/group"

copy_path() {
  # Copies a file (following the symlink chain, keeping each link) into the image.
  local path="$1"
  while :; do
    mkdir -p "$image$(dirname "$path")"
    if [ -L "$root$path" ]; then
      local target
      target="$(readlink "$root$path")"
      cp -a -- "$root$path" "$image$path"
      case "$target" in /*) path="$target" ;; *) path="$(dirname "$path")/$target" ;; esac
    else
      cp -a -- "$root$path" "$image$path"
      return
    fi
  done
}

IFS=, read -r -a bins <<< "$binaries"
for bin in "${bins[@]}"; do
  copy_path "$bin"
  # ldd inside the chroot: the loader and every library the binary maps.
  while read -r lib; do
    copy_path "$lib"
  done < <(chroot "$root" ldd "$bin" | grep -oE '/[^ ]+' | sort -u)
done
# The package versions go along, so env capture can report them.
chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' > "$image/etc/layerlab-packages"

tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$image" -cf "$out.tmp" .
mv -- "$out.tmp" "$out"
