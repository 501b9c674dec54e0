#!/usr/bin/env bash
# Builds a local stand-in for the public `debian:bookworm-slim` image.
#
# Why: where no image registry is reachable (CI, air-gapped hosts) `FROM debian:bookworm-slim`
# cannot be pulled, yet every Dockerfile here starts from it so that the same files build
# anywhere. This script makes that base from Debian's own packages (debootstrap, minbase
# variant) and `docker import`s it under the same name. Where the public image can be pulled,
# this script is not needed.
#
# The host's CA bundle goes into the rootfs and PIP_CERT points at it, so `pip install` works
# behind a TLS-intercepting proxy; it lives outside /etc/ssl/certs so that installing Debian's
# ca-certificates package later does not overwrite it.
#
# Usage: build-base.sh [--force]   (idempotent: does nothing if the image already exists)
set -euo pipefail

IMAGE="${BASE_IMAGE:-debian:bookworm-slim}"
SUITE="${BASE_SUITE:-bookworm}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
HOST_CA="${HOST_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
ROOTFS_CA=/etc/ssl/host-ca-bundle.crt

if [[ "${1:-}" != "--force" ]] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
    echo "build-base: $IMAGE already present"
    exit 0
fi

command -v debootstrap >/dev/null || { echo "build-base: debootstrap is not installed" >&2; exit 2; }

rootfs="$(mktemp -d /var/tmp/bookworm-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT
# mktemp -d makes the folder 0700, and it becomes the image's `/`: a non-root container could
# then not reach anything (`setpriv: failed to execute sh: Permission denied`) wherever the
# storage driver does not happen to mask it. The public image's `/` is 0755.
chmod 0755 "$rootfs"

debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >/dev/null

# Same apt sources as the public image: the release, its updates and its security archive.
rm -f "$rootfs/etc/apt/sources.list"
security_mirror="${MIRROR%/debian}/debian-security"
cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $SUITE ${SUITE}-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security_mirror
Suites: ${SUITE}-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF

# Slim like the public image: no package caches, no apt lists, no docs.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*

extra_env=()
if [[ -r "$HOST_CA" ]]; then
    mkdir -p "$(dirname "$rootfs$ROOTFS_CA")"
    cp "$HOST_CA" "$rootfs$ROOTFS_CA"
    extra_env=(--change "ENV PIP_CERT=$ROOTFS_CA")
fi

tar --numeric-owner -C "$rootfs" -c . | docker import \
    --change 'CMD ["bash"]' \
    "${extra_env[@]}" \
    - "$IMAGE" >/dev/null
echo "build-base: imported $IMAGE"
