#!/bin/sh
# Entry point of the worker image: makes /proc mountable for the jails, then drops every
# privilege before anything else runs.
#
# Why: each bubblewrap jail mounts a fresh /proc for its own PID namespace, and the kernel
# refuses that while the container's /proc has Docker's masks mounted over parts of it
# (/proc/kcore, /proc/sys...). `docker run --security-opt systempaths=unconfined` (and Compose
# v2) can ask Docker not to mask; docker-compose 1.29 cannot. So compose.yaml starts this
# script as root holding only SYS_ADMIN (to unmount the masks) and SETUID/SETGID/SETPCAP (to
# leave), and the worker itself then runs as `verifier` with no capability at all, an empty
# bounding set and no_new_privs. What the masks hid is root-only, so `verifier` cannot read it.
# Started as a non-root user (e.g. with systempaths=unconfined), it just runs the command.
set -eu

if [ "$(id -u)" = 0 ]; then
    # Mount points under /proc, deepest first (field 5 of mountinfo).
    for mount_point in $(awk '$5 ~ "^/proc/" { print $5 }' /proc/self/mountinfo | sort -r); do
        if ! umount "$mount_point" 2>/dev/null; then
            echo "worker-entrypoint: cannot unmount $mount_point: run the worker either as" \
                 "root with cap_add SYS_ADMIN (compose.yaml) or as a non-root user with" \
                 "--security-opt systempaths=unconfined" >&2
            exit 1
        fi
    done
    exec setpriv --reuid=verifier --regid=verifier --init-groups \
        --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"
fi
exec "$@"
