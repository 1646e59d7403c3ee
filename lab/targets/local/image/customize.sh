#!/usr/bin/env bash
# mmdebstrap customize hook: $1 is the guest's root directory.
# Everything host-specific (SSH host key, authorized key, hostname) arrives at
# boot from a per-VM seed disk, so one cached image serves every VM.
set -euo pipefail
root="$1"

echo layerlab > "$root/etc/hostname"
printf 'LABEL=layerlab-root / ext4 rw,errors=remount-ro 0 1\n' > "$root/etc/fstab"
: > "$root/etc/resolv.conf"

# Host keys baked in by openssh-server's postinst would be shared by every VM.
rm -f "$root"/etc/ssh/ssh_host_*
mkdir -p "$root/root/.ssh"
chmod 700 "$root/root/.ssh"

# DHCP on the user-mode NIC (restrict=on: the guest reaches nothing but QEMU's slirp).
mkdir -p "$root/etc/systemd/network"
cat > "$root/etc/systemd/network/10-dhcp.network" <<'NET'
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
LinkLocalAddressing=no
NET

cat > "$root/usr/local/sbin/layerlab-seed" <<'SEED'
#!/bin/bash
# Unpacks the per-VM seed (a plain tar written on a raw virtio disk with serial
# "llseed"): SSH host key, authorized_keys, hostname.
set -euo pipefail
dev=/dev/disk/by-id/virtio-llseed
for _ in $(seq 1 300); do [ -e "$dev" ] && break; sleep 0.1; done
[ -e "$dev" ] || { echo "layerlab-seed: $dev not found" >&2; exit 1; }
tar -xf "$dev" -C / --no-same-owner
chmod 600 /etc/ssh/ssh_host_ed25519_key
chmod 700 /root/.ssh
chmod 600 /root/.ssh/authorized_keys
hostname -F /etc/hostname
SEED
chmod 755 "$root/usr/local/sbin/layerlab-seed"

cat > "$root/etc/systemd/system/layerlab-seed.service" <<'UNIT'
[Unit]
Description=layerlab per-VM seed (SSH host key, authorized key, hostname)
DefaultDependencies=no
After=local-fs.target systemd-udevd.service
Before=ssh.service sysinit.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/layerlab-seed

[Install]
WantedBy=sysinit.target
UNIT

mkdir -p "$root/etc/ssh/sshd_config.d"
cat > "$root/etc/ssh/sshd_config.d/layerlab.conf" <<'SSHD'
HostKey /etc/ssh/ssh_host_ed25519_key
PermitRootLogin prohibit-password
PasswordAuthentication no
UseDNS no
# No PAM session per command: under TCG a logind session costs ~2 s per exec.
UsePAM no
SSHD

chroot "$root" systemctl enable layerlab-seed.service systemd-networkd.service ssh.service
chroot "$root" systemctl disable systemd-networkd-wait-online.service || true
# Docker starts only after prepare applied the storage profile.
chroot "$root" systemctl disable docker.service docker.socket || true
chroot "$root" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer man-db.timer || true
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
