#!/usr/bin/env bash
# The Debian package as an operator meets it: installed with dpkg -i on
# this machine, its config checked by the installed fleetd, the installed
# fleetctl run, the man pages found, then purged and checked gone. Needs
# root (dpkg); run by `make test` after `make deb`.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(cat VERSION)
deb=.build/deb/fleetd_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || { echo "package-test: $deb is missing (make deb)" >&2; exit 1; }
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
fail() { echo "package-test: FAILED: $*" >&2; exit 1; }

if dpkg-query -W -f='${Status}' fleetd 2>/dev/null | grep -q "install ok installed"; then
  fail "a fleetd package is already installed here; remove it first (dpkg --purge fleetd)"
fi
cleanup() { "${sudo[@]}" dpkg --purge fleetd > /dev/null 2>&1 || true; }
trap cleanup EXIT

"${sudo[@]}" dpkg -i "$deb" > /dev/null || fail "dpkg -i $deb"
for f in /usr/bin/fleetd /usr/bin/fleetctl /usr/bin/fleetsim /lib/systemd/system/fleetd.service \
  /lib/systemd/system/fleetd.socket /etc/fleetd/fleetd.toml /etc/fleetd/geofences.geojson \
  /usr/share/man/man8/fleetd.8.gz /usr/share/man/man1/fleetctl.1.gz \
  /usr/share/man/man1/fleetsim.1.gz /usr/share/man/man5/fleetd.toml.5.gz; do
  [ -e "$f" ] || fail "$f was not installed"
done
grep -q '^ExecStart=/usr/bin/fleetd --config /etc/fleetd/fleetd.toml' /lib/systemd/system/fleetd.service \
  || fail "fleetd.service does not run /usr/bin/fleetd"
# The programs run without the toolchain (the Swift runtime is linked in).
if ldd /usr/bin/fleetd | grep -q /opt/swift; then fail "fleetd links the toolchain's runtime"; fi

grep -q '^uploads = "/var/lib/fleetd/geofences.geojson"' /etc/fleetd/fleetd.toml \
  || fail "the installed config keeps uploaded fences outside the service's StateDirectory"
grep -q '^accept_unknown = false' /etc/fleetd/fleetd.toml \
  || fail "the installed config does not close the device registry"
out=$(/usr/bin/fleetd --check-config /etc/fleetd/fleetd.toml 2>&1) || fail "fleetd --check-config: $out"
echo "package-test: fleetd --check-config /etc/fleetd/fleetd.toml: $out"
echo "$out" | grep -q "config OK" || fail "check-config said: $out"

# A document uploaded through the API (kept in the StateDirectory) wins
# over the one in /etc, and the check says so.
"${sudo[@]}" mkdir -p /var/lib/fleetd
printf '{"type":"FeatureCollection","features":[{"type":"Feature","id":"yard","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[0.01,0],[0.01,0.01],[0,0]]]}}]}' \
  | "${sudo[@]}" tee /var/lib/fleetd/geofences.geojson > /dev/null
out=$(/usr/bin/fleetd --check-config /etc/fleetd/fleetd.toml 2>&1) || fail "fleetd --check-config with an upload: $out"
echo "$out" | grep -q "loaded 1 fences from /var/lib/fleetd/geofences.geojson, uploaded through the API, instead of /etc/fleetd/geofences.geojson" \
  || fail "check-config with an uploaded fences file said: $out"
"${sudo[@]}" rm /var/lib/fleetd/geofences.geojson

# The installed fleetctl finds the installed config's database on its own
# (run from a folder with no var/fleetd.db, which would come first).
state=$(mktemp -d)
cd "$state"
"${sudo[@]}" mkdir -p /var/lib/fleetd
out=$(/usr/bin/fleetctl users add operator --role admin --password-stdin <<< "package-test-password" 2>&1) \
  || fail "fleetctl users add: $out"
[ -e /var/lib/fleetd/fleetd.db ] || fail "fleetctl did not use /var/lib/fleetd/fleetd.db"
out=$(/usr/bin/fleetctl users 2>&1) || fail "fleetctl users: $out"
echo "$out" | grep -q operator || fail "fleetctl users shows: $out"
out=$(/usr/bin/fleetctl status 2>&1) || true
echo "package-test: fleetctl status: $out"
man -w fleetd > /dev/null 2>&1 || [ ! -x /usr/bin/man ] || fail "man fleetd finds no page"
cd - > /dev/null
rm -rf "$state"

# The maintainer scripts under systemd, as dpkg runs them on remove and on
# upgrade: in a mount namespace of its own whose /run says systemd is the
# init (this machine's is not), with a systemctl that records its calls and
# reports the service running and enabled.
control=$(mktemp -d)
dpkg-deb -e "$deb" "$control/DEBIAN"
cat > "$control/systemctl" <<'STUB'
#!/bin/sh
echo "systemctl $*" >> /run/calls
case "$*" in *is-enabled*) echo enabled ;; esac
exit 0
STUB
chmod 0755 "$control/systemctl"
calls=$("${sudo[@]}" unshare -m sh -c '
  set -e
  mount -t tmpfs tmpfs /run
  mkdir -p /run/systemd/system
  # A container image'"'"'s policy-rc.d (exit 101: start nothing) is hidden.
  if [ -e /usr/sbin/policy-rc.d ]; then mount --bind /dev/null /usr/sbin/policy-rc.d; fi
  export PATH="$1:$PATH"
  sh "$1/DEBIAN/prerm" remove
  echo "-- upgrade" >> /run/calls
  sh "$1/DEBIAN/prerm" upgrade 0.0.1
  [ -e /run/fleetd.upgrade-restart ] && echo "marker" >> /run/calls
  sh "$1/DEBIAN/postinst" configure 0.0.1
  [ -e /run/fleetd.upgrade-restart ] && echo "marker left" >> /run/calls
  cat /run/calls' sh "$control" 2> /dev/null) || fail "the maintainer scripts under a systemd /run: $calls"
rm -rf "$control"
echo "package-test: prerm and postinst under systemd called: $(echo "$calls" | grep -v -e --version -e list-units | tr '\n' ';')"
# What matters, in order: remove stops both units; upgrade notes that the
# service ran, stops it; postinst reloads and starts both again.
got=$(echo "$calls" | grep -e '^systemctl.* stop fleetd' -e '^systemctl.* start fleetd' -e '^-- upgrade' \
  -e '^marker' -e 'daemon-reload' | sed 's/--quiet //; s/--system //')
expected='systemctl stop fleetd.socket fleetd.service
-- upgrade
systemctl stop fleetd.socket fleetd.service
marker
systemctl daemon-reload
systemctl start fleetd.socket fleetd.service'
[ "$got" = "$expected" ] || fail "prerm/postinst called: $got; expected: $expected"

"${sudo[@]}" dpkg --purge fleetd > /dev/null || fail "dpkg --purge fleetd"
for f in /usr/bin/fleetd /etc/fleetd/fleetd.toml /lib/systemd/system/fleetd.service /var/lib/fleetd; do
  [ ! -e "$f" ] || fail "$f is still there after purge"
done
trap - EXIT
echo "package-test: $deb installed, checked, used and purged"
