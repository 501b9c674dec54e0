#!/usr/bin/env bash
# Makes the runtime JVM runs use (verifier/sandbox/toolchains.py, JAVA_SE_IMAGE): javac's JDK
# jlink'ed down to the java.se modules, with a class-data archive of its own, once per host or
# image. Without jdk.unsupported a program has no sun.misc.Unsafe, which wrote into the JDK's
# objects (the Long cache a calls driver boxes through); without the image, runs pass
# --limit-modules java.se to the JDK's own java, which turns its class-data sharing off.
# Usage: java-se-runtime.sh [OUTPUT]   (default /usr/lib/jvm/rlvr-java-se; nothing if it exists)
set -euo pipefail
output=${1:-/usr/lib/jvm/rlvr-java-se}
[[ -x "$output/bin/java" ]] && exit 0
javac=$(command -v javac) || { echo "java-se-runtime: no javac" >&2; exit 1; }
jdk=$(dirname "$(dirname "$(readlink -f "$javac")")")
"$jdk/bin/jlink" --add-modules java.se --strip-java-debug-attributes --no-man-pages \
    --no-header-files \
    --output "$output.tmp"
"$output.tmp/bin/java" -Xshare:dump >/dev/null
mv "$output.tmp" "$output"
