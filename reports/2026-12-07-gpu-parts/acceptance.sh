#!/usr/bin/env bash
# acceptance.sh N: the 1-GPU incident with default options and --budget 500s; the run folder's journal,
# result, report and the log go to $OUT/runN.tar.gz.
set -uo pipefail
N="$1"; HERE="$(cd "$(dirname "$0")" && pwd)"; RUN=/tmp/run$N; rm -rf "$RUN"
cd "$HERE"
{
  echo "== date"; date -u
  nvidia-smi -L; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  ./envbisect/envbisect --version
  echo "== command"
  echo "envbisect run states/good-1gpu.json states/bad-1gpu.json --recipe recipes/dflash/recipe.json --budget 500s --out $RUN"
  start=$(date +%s.%N)
  ./envbisect/envbisect run states/good-1gpu.json states/bad-1gpu.json --recipe recipes/dflash/recipe.json \
    --budget 500s --out "$RUN" > stdout.txt 2> stderr.txt
  rc=$?
  end=$(date +%s.%N)
  echo "== exit $rc, wall $(python3 -c "print(round($end - $start, 1))") s"
  echo "== stdout"; cat stdout.txt
  echo "== stderr (progress)"; cat stderr.txt
} > log.txt 2>&1
cp log.txt "$RUN/log.txt"
tar czf "$OUT/run$N.tar.gz" -C "$RUN" journal.jsonl result.json report.md log.txt run.json 2>/dev/null
grep -E "^== exit|verified cause after|when it bites|fails|cause \(|verified:" log.txt -m 40
