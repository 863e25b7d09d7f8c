#!/usr/bin/env bash
# Writes the programs' man pages, generated from their argument parsers by
# swift-argument-parser's generate-manual tool: fleetd.8, fleetctl.1,
# fleetsim.1 into OUT_DIR.
#   scripts/manpages.sh BIN_DIR OUT_DIR
set -euo pipefail
bin=${1:?usage: manpages.sh BIN_DIR OUT_DIR}
out=${2:?usage: manpages.sh BIN_DIR OUT_DIR}
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
# The plugin builds its tool (generate-manual-tool) on first use; asking it
# for help builds the tool without building the package again.
swift package --allow-writing-to-package-directory generate-manual --help > /dev/null
tool=$(find .build -path '*/debug/generate-manual-tool' -type f -perm -u+x | head -1)
[ -n "$tool" ] || { echo "manpages: generate-manual-tool was not built" >&2; exit 1; }
mkdir -p "$out"
# The date of the last commit (reproducible pages), today outside a checkout.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)
"$tool" "$bin/fleetd" --section 8 --date "$date" -o "$out"
"$tool" "$bin/fleetctl" --section 1 --date "$date" -o "$out"
"$tool" "$bin/fleetsim" --section 1 --date "$date" -o "$out"
for f in fleetd.8 fleetctl.1 fleetsim.1; do
  [ -s "$out/$f" ] || { echo "manpages: $out/$f was not written" >&2; exit 1; }
done
