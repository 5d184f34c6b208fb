#!/bin/sh
# Checks that every C source and header of the repository is formatted as
# .clang-format says (clang-format 14, the version Debian 12 ships): the
# formatting is mechanical, so a diff here is a file someone forgot to format.
# Fix with: clang-format-14 -i FILE.  Exit 77 (skipped) without clang-format-14.
#
# usage: format_check.sh SOURCE_DIR
set -u
SRC=$1
CF=$(command -v clang-format-14 || true)
[ -n "$CF" ] || { echo "clang-format-14 not installed: skipped"; exit 77; }
cd "$SRC" || exit 1
bad=0
n=0
for f in $(find src tests fuzz plugins bench -name node_modules -prune -o -name '*.[ch]' -print 2>/dev/null | sort); do
    n=$((n + 1))
    if ! "$CF" --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f (clang-format-14 -i $f)"
        bad=$((bad + 1))
    fi
done
echo "$n files, $bad not formatted"
[ "$bad" = 0 ]
