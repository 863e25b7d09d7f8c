#!/usr/bin/env bash
# Installs the system packages fleetd builds against, when they are missing:
# libsqlite3-dev (SQLite), libsystemd-dev (sd_notify), pkg-config.
set -euo pipefail
need=(libsqlite3-dev libsystemd-dev pkg-config)
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "setup: apt-get not found; install ${missing[*]} (or your system's equivalents) by hand" >&2
    exit 1
  fi
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v swift >/dev/null; then
  echo "setup: the Swift toolchain (swift) is not on PATH nor in /opt/swift/usr/bin" >&2
  exit 1
fi
