#!/bin/sh
# customize-base.sh ROOT: mmdebstrap's customize hook for the local base images (scripts/images.sh).
# The "extract" variant only unpacks packages; this adds what a container's filesystem needs and drops what it
# does not: merged-/usr links, users, name-service config, a sticky /tmp, no docs.
set -eu
root=$1
for d in bin sbin lib lib64; do
  if [ -d "$root/usr/$d" ] && [ ! -e "$root/$d" ]; then ln -s "usr/$d" "$root/$d"; fi
done
# Users: root, distroless's nonroot (65532) and dht's node/operator user (10001, what the pods run as).
cat > "$root/etc/passwd" <<'P'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
dht:x:10001:10001:dht:/var/lib/dht:/sbin/nologin
P
cat > "$root/etc/group" <<'G'
root:x:0:
nogroup:x:65534:
nonroot:x:65532:
dht:x:10001:
G
printf 'hosts: files dns\nnetworks: files\n' > "$root/etc/nsswitch.conf"
mkdir -p "$root/tmp" "$root/home/nonroot" "$root/root"
chmod 1777 "$root/tmp"
chown 65532:65532 "$root/home/nonroot"
# The packages it holds, for whoever scans the image.
mkdir -p "$root/usr/share/dht"
ls "$root/usr/share/doc" > "$root/usr/share/dht/base-packages.txt" 2>/dev/null || true
rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/locale" \
       "$root/usr/share/lintian" "$root/usr/share/bug" "$root/etc/apt" "$root/var/cache/apt" "$root/var/lib/apt" \
       "$root/var/log"/* "$root/etc/resolv.conf" "$root/etc/hostname"
