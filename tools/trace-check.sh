#!/usr/bin/env bash
# The refactoring check: traces of the bundled demo and of every test scene, 600 frames at a
# fixed seed, written by the debug build (the one the tests use).
#
#   tools/trace-check.sh record DIR    write the traces into DIR (do this before a refactor)
#   tools/trace-check.sh compare DIR   write them again and fail unless each is byte-identical
#
# SKITTER_BIN=path uses that binary instead of building (e.g. one built from the commit
# before the change, to record with).
# A behaviour-preserving change must pass `compare` against a `record` made before it.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
dir=${2:-}
if [[ -z "$mode" || -z "$dir" || ( "$mode" != record && "$mode" != compare ) ]]; then
  echo "usage: $0 record|compare DIR" >&2
  exit 2
fi
frames=${FRAMES:-600}
seed=${SEED:-7}
if [[ -n "${SKITTER_BIN:-}" ]]; then
  bin=$SKITTER_BIN
else
  cargo build --quiet --bin skitter
  bin=target/debug/skitter
fi

# name | mod folders
scenes=("demo|scripts")
for f in tests/fixtures/*/; do
  f=${f%/}
  [[ -f "$f/mod.toml" ]] || continue
  n=$(basename "$f")
  [[ "$n" == walkers ]] && continue
  scenes+=("$n|scripts/spider tests/fixtures/walkers $f")
done
scenes+=("paths|scripts/arena scripts/spider scripts/paths")

out=$dir
if [[ "$mode" == compare ]]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
fail=0
for s in "${scenes[@]}"; do
  name=${s%%|*}
  mods=${s#*|}
  # shellcheck disable=SC2086
  "$bin" run --headless --frames "$frames" --seed "$seed" --trace "$out/$name.jsonl" $mods >/dev/null 2>&1 || true
  if [[ ! -s "$out/$name.jsonl" ]]; then
    echo "$name: no trace written" >&2
    fail=1
    continue
  fi
  if [[ "$mode" == compare ]]; then
    if cmp -s "$dir/$name.jsonl" "$out/$name.jsonl"; then
      echo "same      $name ($(wc -l < "$out/$name.jsonl") lines)"
    else
      echo "DIFFERENT $name: $(cmp "$dir/$name.jsonl" "$out/$name.jsonl" | head -1)"
      fail=1
    fi
  else
    echo "recorded  $name ($(wc -l < "$out/$name.jsonl") lines)"
  fi
done
exit $fail
