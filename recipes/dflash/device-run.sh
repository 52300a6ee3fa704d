#!/usr/bin/env bash
# recipes/dflash/device-run.sh OUTDIR [all|bisect|probes]
# What ran on the GPU machine (2 H200s) for reports/2026-11-29-h200-x2: the exact stack, a check
# that the bundled envbisect runs, thread probes 1-4 (cold and warm cache, direct bench runs in the
# environment envbisect would build), then `envbisect run good.json bad.json`, all inside a deadline
# so results come back before the device call's limit. Needs build-bundle/envbisect (scripts/bundle
# --out build-bundle/envbisect) carried along. Writes at most 8 files into OUTDIR.
set -uo pipefail
OUT="$1"; PHASE="${2:-all}"; DEADLINE="${DEADLINE:-560}"
R="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$R/../.." && pwd)"
B="$ROOT/build-bundle/envbisect/envbisect"
PY="${PY_GPU:-/opt/torch/.venv/bin/python3}"
W=/tmp/dflash-work; rm -rf "$W"; mkdir -p "$W"
exec > >(tee "$OUT/log.txt") 2>&1
left() { echo $((DEADLINE - SECONDS)); }
echo "== phase $PHASE, deadline ${DEADLINE}s"

{
  echo "== date"; date -u
  echo "== uname"; uname -a
  echo "== os"; cat /etc/os-release
  echo "== nvidia-smi"; nvidia-smi
  echo "== nvidia-smi -q (first GPU, head)"; nvidia-smi -q -i 0 | head -40
  echo "== nvidia-smi topo"; nvidia-smi topo -m
  echo "== env (CUDA/NV/LD/TORCH/TRITON)"; env | grep -E '^(LD_|CUDA|NV|NCCL|TORCH|TRITON|PATH=|HOME=|LANG=)' | sort
  echo "== ldconfig libcuda"; ldconfig -p | grep -E 'libcuda\.so|libnvidia-ml' || true
  echo "== torch"; "$PY" -c 'import torch, triton, sys; print("python", sys.version); print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "triton", triton.__version__); print("devices", [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]); print("capability", torch.cuda.get_device_capability(0))'
  echo "== gcc"; gcc --version | head -1 || true
  if [[ "$PHASE" != bisect ]]; then echo "== collect_env"; timeout 90 "$PY" -m torch.utils.collect_env; fi
  echo "== bundle"; cat "$ROOT/build-bundle/envbisect/BUNDLE.txt"; ldd "$B"; "$B" --help | head -5; "$B" diff "$R/good.json" "$R/bad.json"
} > "$OUT/stack.txt" 2>&1
echo "stack done at ${SECONDS}s: $(grep -E '^torch ' "$OUT/stack.txt")"
grep -q 'not found' <("$B" --help 2>&1; ldd "$B") && echo "WARNING: bundle incomplete"

# bench_env CACHE_DIR: the environment envbisect builds (pass-through + recipe env + cache roles).
bench_env() {
  echo env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" TMPDIR="${TMPDIR:-/tmp}" USER="${USER:-root}" \
    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 ${EXTRA_ENV:-} \
    TORCHINDUCTOR_CACHE_DIR="$1" TRITON_CACHE_DIR="$1/triton"
}
# bench LABEL CACHE_DIR ARGS...: one direct bench run; its JSON line (+label, rc, wall) into probes.jsonl.
bench() {
  local label="$1" dir="$2"; shift 2
  local t0=$SECONDS rc=0
  $(bench_env "$dir") timeout 170 "$PY" "$R/bench.py" --target-gpus 0 --drafter-gpus 1 --seed 1234 "$@" \
    > "$W/$label.out" 2> "$W/$label.err" || rc=$?
  local line; line="$(grep '^{' "$W/$label.out" | tail -1)"
  "$PY" -c 'import json,sys; d=json.loads(sys.argv[1] or "{}"); d.update(label=sys.argv[2], rc=int(sys.argv[3]), outer_wall_s=int(sys.argv[4])); print(json.dumps(d, sort_keys=True))' \
    "$line" "$label" "$rc" "$((SECONDS - t0))" >> "$OUT/probes.jsonl"
  echo "$label rc=$rc $(echo "$line" | "$PY" -c 'import json,sys; d=json.loads(sys.stdin.read().strip() or "{}"); print("tok/s", d.get("tok_per_s"), "first", d.get("first_step_s"), "errors", d.get("errors"), "q", d.get("queue",{}).get("mean_depth"), "wall", d.get("wall_s"))')"
  if [[ $rc -ne 0 ]]; then tail -5 "$W/$label.err" | cut -c1-300; fi
}

if [[ "$PHASE" == all || "$PHASE" == probes ]]; then
  # Guard: the minimal environment must see the GPUs; else retry with the image's LD_LIBRARY_PATH.
  bench guard-1t-cold "$W/c-guard" --threads 1
  if ! grep -q '"label": "guard-1t-cold", "loss_checksum": "' "$OUT/probes.jsonl" && [[ -n "${LD_LIBRARY_PATH:-}" ]]; then
    echo "guard failed in the minimal environment; retrying with LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    EXTRA_ENV="LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; export EXTRA_ENV
    bench guard-1t-cold-ldpath "$W/c-guard2" --threads 1
  fi
  # Warm cache made once, single-threaded (as the recipe's warm-up does), copied per run.
  $(bench_env "$W/warm") timeout 170 "$PY" "$R/bench.py" --target-gpus 0 --drafter-gpus 1 --threads 1 --steps 3 --seed 1234 > "$W/warmup.out" 2>&1
  echo "warm-up rc=$? cache $(du -sh "$W/warm" | cut -f1), $(find "$W/warm" -type f | wc -l) files"
  for n in 1 2 3 4; do
    [[ $(left) -gt 200 ]] || { echo "deadline: probes stop before $n threads"; break; }
    bench "probe-${n}t-cold" "$W/c-$n" --threads "$n"
    rm -rf "$W/w-$n"; cp -a "$W/warm" "$W/w-$n"
    bench "probe-${n}t-warm" "$W/w-$n" --threads "$n"
  done
  echo "probes done at ${SECONDS}s"
fi

if [[ "$PHASE" == all || "$PHASE" == bisect ]]; then
  RECIPE="$R/recipe.json"
  if [[ -n "${EXTRA_ENV:-}" ]]; then
    "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["env"]["LD_LIBRARY_PATH"]=sys.argv[2]; json.dump(r, open(sys.argv[3],"w"), indent=2)' "$RECIPE" "$LD_LIBRARY_PATH" "$R/recipe-ldpath.json"
    RECIPE="$R/recipe-ldpath.json"
  fi
  budget=$(( $(left) - 15 ))
  echo "== envbisect run (budget ${budget}s)"
  t0=$SECONDS
  timeout -s INT -k 10 "$budget" "$B" run "$R/good.json" "$R/bad.json" --recipe "$RECIPE" --out "$W/run" ${RUN_ARGS:-} > "$W/run.stdout" 2> "$W/run.stderr"
  rc=$?
  echo "envbisect run rc=$rc in $((SECONDS - t0))s"
  cat "$W/run.stdout"; tail -20 "$W/run.stderr"
  cp "$W/run.stdout" "$OUT/envbisect-run.stdout.txt"; cp "$W/run.stderr" "$OUT/envbisect-run.stderr.txt"
  (cd "$W/run" && tar -czf "$OUT/envbisect-run.tar.gz" --exclude='./warm' --exclude='./envs' --exclude='./repos' .)
fi
(cd "$W" && tar -czf "$OUT/bench-logs.tar.gz" ./*.out ./*.err 2>/dev/null)
echo "== done at ${SECONDS}s"
