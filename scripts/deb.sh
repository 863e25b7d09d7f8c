#!/usr/bin/env bash
# `make deb`: builds the Debian package from a release build (the Swift
# runtime linked statically: make release uses --static-swift-stdlib), with
# dpkg-deb, and checks it with lintian (no errors allowed).
#   scripts/deb.sh BIN_DIR   -> .build/deb/fleetd_VERSION_ARCH.deb
set -euo pipefail
bin=${1:?usage: deb.sh BIN_DIR}
cd "$(dirname "$0")/.."
version=$(cat VERSION)
arch=$(dpkg --print-architecture)
out=.build/deb
stage=$out/fleetd_${version}_$arch
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"

DESTDIR="$stage" PREFIX=/usr SYSCONFDIR=/etc UNITDIR=/lib/systemd/system MANGZIP=1 \
  scripts/install.sh "$bin" > /dev/null
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
  "$stage/usr/bin/fleetd" "$stage/usr/bin/fleetctl" "$stage/usr/bin/fleetsim"

# The libraries the programs link directly (their NEEDED entries; the Swift
# runtime is linked statically): each one's Debian package, so that
# Depends: is exactly what they need.
libs=""
for p in fleetd fleetctl fleetsim; do
  map=$(ldd "$stage/usr/bin/$p")
  if echo "$map" | grep -q '/opt/swift'; then
    echo "deb: $p links the toolchain's libraries: the Swift runtime must be linked statically" >&2
    exit 1
  fi
  for soname in $(objdump -p "$stage/usr/bin/$p" | awk '/NEEDED/ {print $2}' | grep -v '^ld-linux'); do
    path=$(echo "$map" | awk -v s="$soname" '$1 == s {print $3}')
    [ -n "$path" ] || { echo "deb: $p needs $soname, which is not installed here" >&2; exit 1; }
    libs="$libs $path"
  done
done
depends=$(for lib in $(echo "$libs" | tr ' ' '\n' | sort -u); do
  dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib"
done | cut -d: -f1 | sort -u | grep -v '^libc6$' || true)
deps="libc6 (>= 2.36)"
for d in $depends; do deps="$deps, $d"; done
# The console's map library, served from /usr/share/javascript/leaflet.
deps="$deps, libjs-leaflet"

doc="$stage/usr/share/doc/fleetd"
install -d "$doc"
cat > "$doc/copyright" <<COPYRIGHT
fleetd

Copyright 2025-2026 the fleetd authors.
The terms are those of the fleetd project (its README names them).

Files: usr/share/fleetd/routes/*
 Recorded routes, as bundled in the source (Simulator/routes/README.md):
 t01_munich_car_1hz.csv from bmwcarit/barefoot (Apache-2.0);
 t02_visnjan_car.csv from tkrajina/gpxpy (Apache-2.0);
 t03_limerick_bus304.csv from movingpandas/movingpandas (data: "usage
 restrictions: none"; repository BSD-3-Clause).
 On Debian systems, the full text of the Apache License, Version 2.0 is in
 /usr/share/common-licenses/Apache-2.0.
COPYRIGHT
date=$(git log -1 --format=%aD 2>/dev/null || date -R)
printf 'fleetd (%s) unstable; urgency=medium\n\n  * Release %s.\n\n -- fleetd maintainers <maintainers@fleetd.invalid>  %s\n' \
  "$version" "$version" "$date" | gzip -9n > "$doc/changelog.gz"
install -m 0644 README.md "$doc/README.md"
# lintian's overrides, shipped in the package as Debian does it: each with why.
install -d "$stage/usr/share/lintian/overrides"
install -m 0644 packaging/lintian-overrides "$stage/usr/share/lintian/overrides/fleetd"

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: fleetd
Version: $version
Architecture: $arch
Maintainer: fleetd maintainers <maintainers@fleetd.invalid>
Installed-Size: $size
Depends: $deps
Section: net
Priority: optional
Description: vehicle telemetry ingestion and geofencing daemon
 fleetd receives GPS fixes from vehicle trackers (JSON, Teltonika and NMEA
 over UDP, OsmAnd over HTTP), checks them against geofences, raises alerts
 (enter, exit, dwell, overspeed, silent device), computes trips and mileage,
 stores everything in SQLite and acknowledges a device only after the
 commit. It serves an HTTP API with a live map console, Prometheus metrics
 and signed webhooks, and runs as a hardened, socket-activated systemd
 service.
CONTROL
printf '/etc/fleetd/fleetd.toml\n/etc/fleetd/geofences.geojson\n' > "$stage/DEBIAN/conffiles"
cat > "$stage/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
# The units are installed, not enabled: edit /etc/fleetd/fleetd.toml, then
#   systemctl enable --now fleetd.socket fleetd.service
if [ "$1" = configure ] && [ -d /run/systemd/system ]; then
  systemctl --system daemon-reload >/dev/null || true
  # An upgrade restarts what prerm stopped (and only that).
  if [ -e /run/fleetd.upgrade-restart ]; then
    rm -f /run/fleetd.upgrade-restart
    deb-systemd-invoke start fleetd.socket fleetd.service >/dev/null || true
  fi
fi
exit 0
POSTINST
cat > "$stage/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
set -e
# The service stops before its files go (remove) or are replaced (upgrade):
# a running fleetd must not outlive its binary, or keep its ports through a
# removal. postinst starts it again after an upgrade if it was running (and
# is enabled: deb-systemd-invoke starts no disabled unit, and respects
# policy-rc.d).
if [ -d /run/systemd/system ]; then
  case "$1" in
    remove | upgrade | deconfigure)
      if [ "$1" = upgrade ] && systemctl is-active --quiet fleetd.service fleetd.socket; then
        touch /run/fleetd.upgrade-restart
      fi
      deb-systemd-invoke stop fleetd.socket fleetd.service >/dev/null || true
      ;;
  esac
fi
exit 0
PRERM
cat > "$stage/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
  systemctl --system daemon-reload >/dev/null || true
fi
# Purge removes the database too (the service's StateDirectory=).
if [ "$1" = purge ]; then
  rm -rf /var/lib/fleetd /var/lib/private/fleetd
fi
exit 0
POSTRM
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm"
find "$stage" -type d -exec chmod 0755 {} +
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
  > "$stage/DEBIAN/md5sums"

deb=$out/fleetd_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" > /dev/null
echo "deb: $deb ($(du -h "$deb" | cut -f1)); Depends: $deps"
if command -v lintian > /dev/null; then
  # Errors fail the build; warnings are printed. Checked as root too (CI).
  lintian --allow-root --fail-on error "$deb"
else
  echo "deb: lintian is missing (make setup-test installs it)" >&2
  exit 1
fi
