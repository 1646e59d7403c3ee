#!/usr/bin/env bash
# Builds a tool image tarball (for `docker import`) from Debian packages: put
# the packages into a scratch rootfs with mmdebstrap, then keep either only the
# listed binaries and their shared-library closure (small images for single
# tools: the packages are unpacked, not installed) or the whole installed rootfs
# (tools that are a system: dpkg, MariaDB).
# Usage: build.sh <out.tar> <recipe-file> <apt-sources-file>...
# Recipe keys: packages, binaries, files, rootfs (closure|full), debs, data_owner.
set -euo pipefail

out="$1"; recipe="$2"; shift 2
work="$(mktemp -d "${out}.work.XXXXXX")"
trap 'rm -rf -- "$work"' EXIT
root="$work/rootfs"
image="$work/image"

recipe_value() {
  sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$recipe" | tail -n1
}
packages="$(recipe_value packages)"
binaries="$(recipe_value binaries)"
files="$(recipe_value files)"
mode="$(recipe_value rootfs)"; mode="${mode:-closure}"
debs="$(recipe_value debs)"
data_owner="$(recipe_value data_owner)"; data_owner="${data_owner:-0:0}"

hooks=()
if [ -n "$debs" ]; then
  # A local package cache inside the image (for workloads that install packages
  # without a network): the listed packages and whatever they need that the
  # image lacks, resolved by apt against the image's own dpkg status.
  export LL_DEBS="$debs"
  # shellcheck disable=SC2016 # expanded by mmdebstrap's hook shell, not here
  hooks+=(--customize-hook='mkdir -p "$1/debs/partial" && APT_CONFIG="$MMDEBSTRAP_APT_CONFIG" apt-get install --download-only --yes -o Dir::Cache::archives="$1/debs/" $(echo "$LL_DEBS" | tr , " ") && rm -rf "$1/debs/partial" "$1/debs/lock"')
fi

# merged /usr through the symlinks debootstrap makes (and the usr-is-merged
# package), not the usrmerge package: that one pulls in the whole of perl
# (about 50 MB and 1,600 files) that no tool image runs, and every host pays
# for each file in `docker import`. It is also the layout an installed
# bookworm has, so every file keeps its path in the image.
merged_usr=/usr/share/mmdebstrap/hooks/merged-usr
if [ ! -d "$merged_usr" ]; then
  echo "build.sh: this mmdebstrap has no $merged_usr: Debian 12's (1.3) or a newer one builds tool images" >&2
  exit 1
fi
variant=essential
if [ "$mode" != full ]; then
  # A closure image takes files only, and no maintainer script changes a
  # binary or a library: the packages and their dependencies are unpacked,
  # none configured, and the Essential set not installed at all. Most of an
  # installing build is dpkg and its scripts, and on a host under emulation
  # every process start is slow (README, Tool images). The package list
  # comes from the archives, which are gone after this hook.
  variant=extract
  # shellcheck disable=SC2016 # expanded by mmdebstrap's hook shell, not here
  hooks+=(--extract-hook='for deb in "$1"/var/cache/apt/archives/*.deb; do dpkg-deb --show --showformat="\${Package} \${Version}\n" "$deb"; done | LC_ALL=C sort > "$1/layerlab-packages"')
fi
mmdebstrap --mode=root --variant="$variant" --hook-dir="$merged_usr" --include="$packages" --format=directory \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' "${hooks[@]}" \
  bookworm "$root" "$@"

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

if [ "$mode" = full ]; then
  mv -- "$root" "$image"
  # docker provides /dev; apt's caches are dead weight without apt sources.
  rm -rf -- "$image/var/cache/apt" "$image/var/lib/apt/lists" "${image:?}/dev/"*
else
  mkdir -p "$image/tmp" "$image/etc"
  chmod 1777 "$image/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' > "$image/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' > "$image/etc/group"
  IFS=, read -r -a bins <<< "$binaries"
  for bin in "${bins[@]}"; do
    copy_path "$bin"
    # The loader's own listing inside the chroot (what ldd prints; an unpacked
    # rootfs has no ldd, nor the bash it needs): the loader and every library
    # the binary maps. Tool images are amd64, as the guests are.
    listing="$(chroot "$root" /lib64/ld-linux-x86-64.so.2 --list "$bin")"
    if grep -q 'not found' <<< "$listing"; then
      echo "build.sh: $bin needs libraries its packages do not hold:" >&2
      grep 'not found' <<< "$listing" >&2
      exit 1
    fi
    while read -r lib; do
      copy_path "$lib"
    done < <(grep -oE '/[^ ]+' <<< "$listing" | sort -u)
  done
  if [ -n "$files" ]; then
    IFS=, read -r -a extra <<< "$files"
    for f in "${extra[@]}"; do copy_path "$f"; done
  fi
  # The versions of the packages the files came from go along, so env capture can report them.
  mv -- "$root/layerlab-packages" "$image/etc/layerlab-packages"
fi
# The directory scenarios work in; its owner is what docker copies into an
# empty named volume mounted there (seed 003's permissions cases).
mkdir -p "$image/data"
chown -- "$data_owner" "$image/data"
[ -f "$image/etc/layerlab-packages" ] || dpkg-query --admindir="$image/var/lib/dpkg" -W -f '${Package} ${Version}\n' > "$image/etc/layerlab-packages"

tar --sort=name --mtime=@0 --numeric-owner -C "$image" -cf "$out.tmp" .
mv -- "$out.tmp" "$out"
