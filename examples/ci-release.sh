#!/usr/bin/env bash
# A CI step for an evaluation that is archived per release (docs/releases.md, "In CI").
#
#   bash examples/ci-release.sh SPEC VERSION ARCHIVE [NOTES.md]
#
# 1. builds the report as release VERSION of ARCHIVE (with its manifest; the release notes against the
#    previous release are written into ARCHIVE/VERSION/diff.html);
# 2. writes the release notes as Markdown to NOTES.md (default: release-notes.md), ready to post as a
#    pull-request comment (a one-line headline, the conclusions that changed, the rest collapsed in a
#    <details> block; keep ARCHIVE, with its item-scores/ folder, between runs: the notes' intervals are then
#    paired though the data table is overwritten for each release);
# 3. exits 1 when a conclusion changed since the previous release (sigreport diff --fail-on conclusions),
#    2 on a user error (bad spec or data), 0 otherwise. The first release of an archive has nothing to
#    compare with: it writes a one-line note and exits 0.
#
# SIGREPORT (environment) names the command to run (default: sigreport on PATH).
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 SPEC VERSION ARCHIVE [NOTES.md]" >&2
  exit 2
fi
spec=$1 version=$2 archive=$3 notes=${4:-release-notes.md}
sigreport=${SIGREPORT:-sigreport}

$sigreport build "$spec" --release "$version" --archive "$archive" --quiet
previous=$(python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m.get("previous") or "")' \
  "$archive/$version/manifest.json")
if [ -z "$previous" ]; then
  echo "$version is the first release of $archive: nothing to compare with." > "$notes"
  exit 0
fi
status=0
$sigreport diff "$previous" "$version" --archive "$archive" --format markdown --fail-on conclusions \
  > "$notes" || status=$?
exit "$status"
