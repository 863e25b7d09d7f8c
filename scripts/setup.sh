#!/usr/bin/env bash
# Installs what fleetd needs when it is missing, for one of two purposes:
#
#   scripts/setup.sh run    building and running (make build, release, run,
#                           install, deb): libsqlite3-dev (SQLite),
#                           libsystemd-dev (sd_notify, the journal, socket
#                           activation), pkg-config, libjs-leaflet (the
#                           console's map library, served from
#                           /usr/share/javascript/leaflet)
#   scripts/setup.sh test   all of that, and what the tests and benchmarks
#                           use (make check, test, bench): chromium and
#                           chromium-driver (the console's browser tests),
#                           prometheus (promtool checks the metrics and the
#                           alerting rules), lintian (checks the Debian
#                           package), postgresql-15 (the PostgreSQL backend's
#                           tests, each on a throwaway server of its own),
#                           nginx with libnginx-mod-stream (the UDP balancer
#                           in front of the cluster test's nodes), openssl
#                           (the mail tests' certificate); and from
#                           PyPI, into the project's own virtual environment
#                           .build/pytools: schemathesis (the API's tests),
#                           selenium and pillow (the console's tests),
#                           standardwebhooks (the reference check of webhook
#                           signatures), shapely (GEOS, the geometry oracle),
#                           aiosmtpd (the mail server of the mail tests).
#
# System packages come from apt-get (through sudo when not root).
set -euo pipefail
purpose=${1:-run}
case "$purpose" in
  run | test) ;;
  *)
    echo "setup: usage: scripts/setup.sh run|test (found \"$purpose\")" >&2
    exit 2
    ;;
esac
need=(libsqlite3-dev libsystemd-dev pkg-config libjs-leaflet)
if [ "$purpose" = test ]; then
  need+=(chromium chromium-driver prometheus lintian postgresql-15 nginx libnginx-mod-stream openssl)
fi
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "setup: apt-get not found; install ${missing[*]} (or your system's equivalents) by hand" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v swift >/dev/null; then
  echo "setup: the Swift toolchain (swift) is not on PATH nor in /opt/swift/usr/bin" >&2
  exit 1
fi
[ "$purpose" = test ] || exit 0
# Python tools for the tests, pinned so that a run is repeatable.
pytools=.build/pytools
schemathesis_version=4.32.5
selenium_version=4.51.0
pillow_version=13.0.0
standardwebhooks_version=1.1.0
shapely_version=2.2.0
aiosmtpd_version=1.4.6
wanted="schemathesis==$schemathesis_version selenium==$selenium_version pillow==$pillow_version"
wanted="$wanted standardwebhooks==$standardwebhooks_version shapely==$shapely_version"
wanted="$wanted aiosmtpd==$aiosmtpd_version"
if ! [ "$(cat "$pytools/installed" 2>/dev/null)" = "$wanted" ]; then
  echo "setup: installing $wanted in $pytools"
  if ! command -v python3 >/dev/null || ! python3 -c "import venv, ensurepip" 2>/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends python3 python3-venv
  fi
  rm -rf "$pytools"
  python3 -m venv "$pytools"
  # shellcheck disable=SC2086
  "$pytools/bin/pip" install -q --disable-pip-version-check $wanted
  echo "$wanted" > "$pytools/installed"
fi
