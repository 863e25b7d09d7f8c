#!/usr/bin/env bash
# `make install`: installs fleetd from a release build.
#   scripts/install.sh BIN_DIR
# Settings (environment, as make passes them):
#   DESTDIR     staging root (default: none, i.e. the live system)
#   PREFIX      /usr/local by default: programs in PREFIX/bin, man pages in
#               PREFIX/share/man, examples in PREFIX/share/fleetd
#   SYSCONFDIR  /etc by default: the config goes to SYSCONFDIR/fleetd
#   UNITDIR     systemd units (default PREFIX/lib/systemd/system, which
#               systemd reads for /usr/local; the Debian package uses
#               /lib/systemd/system)
#   MANGZIP     1: compress the man pages (the Debian package)
# The config (fleetd.toml, geofences.geojson) is never overwritten: when an
# installed one differs from the shipped one, the shipped one is put beside
# it as fleetd.toml.dist and the installed one is left as it is.
# The console's page, script and style are compiled into fleetd; its map
# library comes from Debian's libjs-leaflet (/usr/share/javascript/leaflet).
set -euo pipefail
bin=${1:?usage: install.sh BIN_DIR}
cd "$(dirname "$0")/.."
destdir=${DESTDIR:-}
prefix=${PREFIX:-/usr/local}
sysconfdir=${SYSCONFDIR:-/etc}
unitdir=${UNITDIR:-$prefix/lib/systemd/system}
mangzip=${MANGZIP:-0}

for p in fleetd fleetctl fleetsim; do
  [ -x "$bin/$p" ] || { echo "install: $bin/$p is missing: build first (make release)" >&2; exit 1; }
done

# Programs.
install -d "$destdir$prefix/bin"
install -m 0755 "$bin/fleetd" "$bin/fleetctl" "$bin/fleetsim" "$destdir$prefix/bin/"

# Units: ExecStart= names where fleetd now is.
install -d "$destdir$unitdir"
sed "s|^ExecStart=/usr/local/bin/fleetd|ExecStart=$prefix/bin/fleetd|" systemd/fleetd.service \
  > "$destdir$unitdir/fleetd.service"
chmod 0644 "$destdir$unitdir/fleetd.service"
install -m 0644 systemd/fleetd.socket "$destdir$unitdir/fleetd.socket"

# The config: the shipped one with the service's paths (the database under
# StateDirectory=, the fences beside the config) and a closed registry
# (only devices added with fleetctl devices add are taken), each other
# key's default shown.
etc="$destdir$sysconfdir/fleetd"
install -d "$etc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e 's|^# database = "var/fleetd.db"|database = "/var/lib/fleetd/fleetd.db"|' \
  -e 's|^# accept_unknown = true|accept_unknown = false|' \
  -e "s|^# file = \"config/geofences.geojson\"|file = \"$sysconfdir/fleetd/geofences.geojson\"|" \
  -e 's|^# uploads = ""|uploads = "/var/lib/fleetd/geofences.geojson"|' \
  config/fleetd.toml > "$tmp/fleetd.toml"
grep -q '^database = "/var/lib/fleetd/fleetd.db"' "$tmp/fleetd.toml" || { echo "install: config/fleetd.toml has no database line to set" >&2; exit 1; }
grep -q '^accept_unknown = false' "$tmp/fleetd.toml" || { echo "install: config/fleetd.toml has no accept_unknown line to set" >&2; exit 1; }
grep -q "^file = \"$sysconfdir/fleetd/geofences.geojson\"" "$tmp/fleetd.toml" || { echo "install: config/fleetd.toml has no fences line to set" >&2; exit 1; }
grep -q '^uploads = "/var/lib/fleetd/geofences.geojson"' "$tmp/fleetd.toml" || { echo "install: config/fleetd.toml has no fence uploads line to set" >&2; exit 1; }
printf '{"type":"FeatureCollection","features":[]}\n' > "$tmp/geofences.geojson"
for f in fleetd.toml geofences.geojson; do
  if [ ! -e "$etc/$f" ]; then
    install -m 0644 "$tmp/$f" "$etc/$f"
  elif ! cmp -s "$tmp/$f" "$etc/$f"; then
    install -m 0644 "$tmp/$f" "$etc/$f.dist"
    echo "install: kept the edited $etc/$f; the shipped one is $etc/$f.dist"
  fi
done

# Examples: the sample fences, the Prometheus alerting rules, the socket unit's notes.
share="$destdir$prefix/share/fleetd"
install -d "$share/examples"
install -m 0644 config/geofences.geojson "$share/examples/geofences.geojson"
install -m 0644 config/fleetd.rules.yml "$share/examples/fleetd.rules.yml"
# The bundled routes, which `fleetsim fleet` drives by default (it looks in
# ../share/fleetd/routes beside its program).
install -d "$share/routes"
install -m 0644 Simulator/routes/*.csv "$share/routes/"

# Man pages: the programs' from their own argument parsers (swift-argument-
# parser's generate-manual), fleetd.toml(5) written by hand.
man="$destdir$prefix/share/man"
install -d "$man/man1" "$man/man5" "$man/man8"
scripts/manpages.sh "$bin" "$tmp/man"
install -m 0644 "$tmp/man/fleetctl.1" "$tmp/man/fleetsim.1" "$man/man1/"
install -m 0644 "$tmp/man/fleetd.8" "$man/man8/"
install -m 0644 docs/man/fleetd.toml.5 "$man/man5/"
if [ "$mangzip" = 1 ]; then
  gzip -9n -f "$man/man1/fleetctl.1" "$man/man1/fleetsim.1" "$man/man8/fleetd.8" "$man/man5/fleetd.toml.5"
fi
echo "install: fleetd installed under ${destdir:-}$prefix (config in $sysconfdir/fleetd, units in $unitdir)"
