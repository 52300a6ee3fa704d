#!/usr/bin/env bash
# recipes/gpu-slots/device-run.sh OUTDIR [BAD_STATE]   (BAD_STATE: bad.json, or bad-many.json for seven differences)
# On a machine with 2 GPUs: the same bisection run twice, serially (--slots 1) and with --slots 2, the
# states' GPU split one GPU wide, so slot 0 runs on GPU 0 and slot 1 on GPU 1. Then checks, from every
# attempt's own output, which GPU ran it and when: each slot on its own GPU, attempts overlapping in
# time, and the same cause and verification as the serial run. Needs build-bundle/envbisect
# (scripts/bundle --out build-bundle/envbisect) carried along. Writes a few small files into OUTDIR.
set -uo pipefail
OUT="$1"; BAD="${2:-bad.json}"
R="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$R/../.." && pwd)"
B="$ROOT/build-bundle/envbisect/envbisect"
W=/tmp/gpu-slots-work; rm -rf "$W"; mkdir -p "$W"
exec > >(tee "$OUT/log.txt") 2>&1
nvidia-smi -L
/opt/torch/.venv/bin/python3 -c 'import torch; print("torch", torch.__version__, [torch.cuda.get_device_properties(i).uuid for i in range(torch.cuda.device_count())])'
for slots in 1 2; do
  t0=$(date +%s.%N)
  rc=0
  timeout -s INT -k 10 240 "$B" run "$R/good.json" "$R/$BAD" --recipe "$R/recipe.json" --out "$W/slots$slots" \
    --anchor-runs 3 --max-runs 6 --slots "$slots" > "$W/slots$slots.stdout" 2> "$W/slots$slots.stderr" || rc=$?
  t1=$(date +%s.%N)
  echo "slots $slots: rc $rc, $(python3 -c "print(round($t1 - $t0, 1))") s"
  tail -8 "$W/slots$slots.stdout"
  cp "$W/slots$slots.stdout" "$OUT/slots$slots-stdout.txt"
  tail -20 "$W/slots$slots.stderr" > "$OUT/slots$slots-stderr-tail.txt"
  cp "$W/slots$slots/result.json" "$OUT/slots$slots-result.json" 2>/dev/null
  cp "$W/slots$slots/journal.jsonl" "$OUT/slots$slots-journal.jsonl" 2>/dev/null
  echo "$t0 $t1 $rc" > "$W/slots$slots.wall"
done
python3 - "$W" "$OUT/summary.json" <<'PY'
import glob, json, sys
work, out = sys.argv[1:]
summary = {}
for slots in (1, 2):
    runs = []
    for path in glob.glob(f"{work}/slots{slots}/attempts/*/*/stdout.txt"):
        lines = [l for l in open(path) if l.startswith("{")]
        if lines:
            d = json.loads(lines[-1])
            runs.append({"path": path.split(f"slots{slots}/")[1], "gpu": d["gpu"], "uuid": d["gpu_uuid"],
                         "start": d["start"], "end": d["end"], "metric": d["matmuls_per_s"]})
    runs.sort(key=lambda r: r["start"])
    overlaps = sum(1 for i, a in enumerate(runs) for b in runs[i + 1:]
                   if a["start"] < b["end"] and b["start"] < a["end"])
    cross_gpu_overlaps = sum(1 for i, a in enumerate(runs) for b in runs[i + 1:]
                             if a["start"] < b["end"] and b["start"] < a["end"] and a["uuid"] != b["uuid"])
    same_gpu_overlaps = overlaps - cross_gpu_overlaps
    t0, t1, rc = open(f"{work}/slots{slots}.wall").read().split()
    result = json.load(open(f"{work}/slots{slots}/result.json")) if glob.glob(f"{work}/slots{slots}/result.json") else {}
    summary[f"slots{slots}"] = {
        "rc": int(rc), "wall_s": round(float(t1) - float(t0), 1), "attempts": len(runs),
        "gpus_used": sorted({(r["gpu"], r["uuid"]) for r in runs}),
        "overlapping_pairs": overlaps, "overlapping_pairs_on_different_gpus": cross_gpu_overlaps,
        "overlapping_pairs_on_the_same_gpu": same_gpu_overlaps,
        "cause": [f'{c["dimension"]}/{c["name"]}' for c in result.get("cause", [])],
        "verified": result.get("verified"),
    }
s1, s2 = summary["slots1"], summary["slots2"]
summary["same_cause_and_verification"] = s1["cause"] == s2["cause"] and s1["verified"] == s2["verified"]
summary["wall_ratio_slots2_over_slots1"] = round(s2["wall_s"] / s1["wall_s"], 3) if s1["wall_s"] else None
json.dump(summary, open(out, "w"), indent=2, default=list)
print(json.dumps(summary, indent=2, default=list))
PY
