# Sourced by tests/cli/isolation_*.sh after common.sh. isolation_scenario BACKEND runs one small
# `envbisect run` with `--isolation none` (the control: the probes must see everything) and one with
# `--isolation BACKEND`; inside every isolated candidate the benchmark must not see the host python's
# site-packages (a marker module put there by this script), another candidate's cache folders (the
# other environment's warm snapshot) or the network (a listener on 127.0.0.1 that this script starts).

isolation_scenario() {
  local backend="$1"
  local site marker port
  site="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  [[ -w "$site" ]] || skip "cannot write the host python's site-packages ($site)"
  marker="envbisect_host_marker_$$"
  echo 'VISIBLE = True' >"$site/$marker.py"
  "$PY" - "$T/port" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
__import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); c.close()
PY
  LISTENER=$!
  SITE_MARKER="$site/$marker.py"
  trap 'rc=$?; kill "$LISTENER" 2>/dev/null || true; rm -f "$SITE_MARKER"; (exit $rc); _cli_on_exit' EXIT
  for _ in $(seq 50); do [[ -s "$T/port" ]] && break; sleep 0.1; done
  port="$(cat "$T/port")"
  # The marker is really visible to the host python.
  "$PY" -c "import $marker"

  mkdir -p "$T/src"
  echo 'SPEED = 1000.0' >"$T/src/probe.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name probe --version 1.0 --src "$T/src" --out "$T/wheels" >/dev/null
  echo 'SPEED = 200.0' >"$T/src/probe.py"
  "$PY" "$SRC/scripts/make_wheel.py" --name probe --version 1.1 --src "$T/src" --out "$T/wheels" >/dev/null
  mkdir -p "$T/recipe"  # its own folder: the recipe folder is bound read-only, the run folder must not be in it
  cat >"$T/recipe/bench.py" <<'PY'
import glob, importlib, json, os, socket, sys
marker, site, port, cache, run_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
import probe
seen = {"cwd": os.getcwd()}
try:
    importlib.import_module(marker); seen["marker_import"] = True
except ImportError:
    seen["marker_import"] = False
seen["marker_file"] = os.path.exists(os.path.join(site, marker + ".py"))
seen["site_listing"] = len(os.listdir(site)) if os.path.isdir(site) else 0
own = os.path.realpath(cache)
seen["foreign_caches"] = [d for d in glob.glob(os.path.join(run_dir, "warm", "*", "c")) if os.path.realpath(d) != own]
seen["cache_writable"] = True
open(os.path.join(cache, "written"), "w").write("x")
s = socket.socket(); s.settimeout(1.0)
try:
    s.connect(("127.0.0.1", port)); seen["net_connect"] = True
except OSError:
    seen["net_connect"] = False
seen["interfaces"] = sorted(name for _, name in socket.if_nameindex())
seen["m"] = probe.SPEED * (1 + os.getpid() % 7 / 100)
print(json.dumps(seen))
PY
  cat >"$T/recipe/recipe.json" <<JSON
{"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "$marker", "$site", "$port", "{cache.c}", "{run_dir}"],
 "metric": "m", "repeats": 3, "timeout_s": 30}
JSON
  for v in 1.0 1.1; do
    echo "{\"format\": 1, \"python\": {\"interpreter\": \"$PY\"}, \"packages\": {\"probe\": \"$v\"},
           \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"warm\"}}}" >"$T/state-$v.json"
  done

  # ISOLATION_BASE (optional): a rootfs folder or image for the isolated run (--isolation-base).
  local base_args=()
  for mode in none "$backend"; do
    [[ $mode == none || -z "${ISOLATION_BASE:-}" ]] || base_args=(--isolation-base "$ISOLATION_BASE")
    "$ENVBISECT" run "$T/state-1.0.json" "$T/state-1.1.json" --recipe "$T/recipe/recipe.json" --wheels "$T/wheels" \
      --store "$T/store" --out "$T/run-$mode" --isolation "$mode" "${base_args[@]}" --no-probe --anchor-runs 3 \
      >"$T/out-$mode.txt"
    expect_contains "$T/out-$mode.txt" "packages/probe 1.0 -> 1.1"
    # One difference: the cause is all of it, and the output says that re-reading the anchors is no verification.
    expect_contains "$T/out-$mode.txt" "not a verification: the cause is every difference"
  done

  "$PY" - "$T/run-none" "$T/run-$backend" <<'PY'
import json, sys
def seen(run):
    out = []
    for line in open(f"{run}/journal.jsonl"):
        record = json.loads(line)
        if record["type"] == "attempt":
            assert record["status"] == "ok", record
            out.append(json.loads([l for l in open(record["stdout"]) if l.startswith("{")][-1]))
    assert len(out) >= 6, len(out)
    return out
control, isolated = seen(sys.argv[1]), seen(sys.argv[2])
# The control proves the probes work: without isolation all three leaks are there.
assert all(s["marker_file"] and s["site_listing"] for s in control), control[0]
assert any(s["foreign_caches"] for s in control), "the control never saw the other environment's snapshot"
assert all(s["net_connect"] for s in control), control[0]
# Inside the container: nothing of it.
for s in isolated:
    assert not s["marker_import"] and not s["marker_file"], s
    assert not s["site_listing"], s          # the host python's site-packages is masked (empty) or absent
    assert s["foreign_caches"] == [], s
    assert not s["net_connect"] and s["interfaces"] == ["lo"], s
    assert s["cache_writable"], s
print(f"control: {len(control)} runs saw the leaks; isolated: {len(isolated)} runs saw none")
PY
}
