#!/usr/bin/env bash
# prepare.sh DEST [SRC_ZIP]
# Unzips the fixed held-out subset of java.base (JDK 25.0.3 sources) into DEST/java/...:
#   java/util/regex, java/util/zip, java/text, java/util/concurrent (top level only: no
#   atomic/, locks/, spi/ subpackages, no snippet-files). 141 .java files.
# SRC_ZIP defaults to $JDK_SRC_ZIP, then the first src.zip found among the JDKs below.
# The extracted files are checked against a pinned digest: questions.json line numbers are
# only right for these exact sources. Exit 3 when no src.zip is found, 4 on a digest mismatch.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: prepare.sh DEST [SRC_ZIP]" >&2
  exit 2
fi
DEST=$1
EXPECTED_SHA256=18966951fa254e1f5d2b09c02d80df8225d6dc75f9e5cfd681957807b1f53211

find_zip() {
  local c
  for c in "${2:-}" "${JDK_SRC_ZIP:-}" \
           /usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip \
           "${JAVA_HOME:+$JAVA_HOME/lib/src.zip}" \
           /usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip; do
    if [ -n "$c" ] && [ -f "$c" ]; then echo "$c"; return 0; fi
  done
  return 1
}

if [ -n "${2:-}" ] && [ ! -f "$2" ]; then
  echo "prepare.sh: JDK src.zip not found: $2" >&2
  exit 3
fi
if ! ZIP=$(find_zip "$@"); then
  echo "prepare.sh: JDK src.zip not found (tried \$2, \$JDK_SRC_ZIP, Temurin 25, \$JAVA_HOME/lib/src.zip)." >&2
  echo "  Install a JDK 25.0.3 with sources (Temurin 25 ships lib/src.zip) or pass its path." >&2
  exit 3
fi
command -v unzip >/dev/null || { echo "prepare.sh: needs unzip" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# unzip's * also matches '/', so list the top-level files of each package explicitly.
unzip -Z1 "$ZIP" | grep -E '^java\.base/java/(util/regex|util/zip|text|util/concurrent)/[^/]+\.java$' > "$TMP/list" || true
if [ ! -s "$TMP/list" ]; then
  echo "prepare.sh: $ZIP has no java.base/java/util/regex etc. (not a JDK 9+ src.zip?)" >&2
  exit 4
fi
(cd "$TMP" && xargs -a list unzip -q -o "$ZIP")

digest=$(cd "$TMP/java.base" && find java -name '*.java' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
if [ "$EXPECTED_SHA256" != "__DIGEST__" ] && [ "$digest" != "$EXPECTED_SHA256" ]; then
  echo "prepare.sh: the sources in $ZIP differ from the pinned JDK 25.0.3 subset" >&2
  echo "  (digest $digest); questions.json line numbers would be wrong. Use Temurin 25.0.3's src.zip." >&2
  exit 4
fi

mkdir -p "$DEST"
rm -rf "$DEST/java"
mv "$TMP/java.base/java" "$DEST/java"
n=$(find "$DEST/java" -name '*.java' | wc -l)
echo "prepared $n files from $ZIP in $DEST/java (digest ${digest:0:12})"
