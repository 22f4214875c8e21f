#!/bin/sh
# Builds brain_bm25 (src/native/brain_fts.c) with other BM25 constants, one build per (k1, b), each
# in OUT/k1-<k1>-b-<b>/brain_fts.node, for bench/hybrid-collect.ts --bm25 OUT to load over the
# installed one. The source is copied and only its BRAIN_K1 / BRAIN_B lines changed.
#
#   sh bench/bm25-variants.sh /tmp/retrieval-cv/bm25
set -eu
out=${1:?usage: sh bench/bm25-variants.sh OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
sqlite=$(node -p "require('path').dirname(require.resolve('better-sqlite3/package.json'))")/deps/sqlite3
for k1 in 0.9 1.2 1.5 2.0; do
  for b in 0.5 0.75 0.9; do
    dir="$out/k1-$k1-b-$b"
    mkdir -p "$dir"
    sed -e "s/^#define BRAIN_K1 .*/#define BRAIN_K1 $k1/" -e "s/^#define BRAIN_B .*/#define BRAIN_B $b/" \
      "$root/src/native/brain_fts.c" >"$dir/brain_fts.c"
    nice cc -O2 -shared -fPIC -I"$sqlite" -o "$dir/brain_fts.node" "$dir/brain_fts.c" -lm
  done
done
echo "built $(ls "$out" | wc -l) variants in $out"
