#!/usr/bin/env bash
# Under `set -o pipefail` (tests/cli/common.sh, scripts/*), `WRITER | head -n 1` fails the script at
# random: head exits after its line, and a writer with more to write (grep flushing its second 4 KiB
# block of a long processes.jsonl) dies of SIGPIPE, exit 141. The first match is `grep -m 1`, the
# first line of a list `sed -n 1p` (it reads to the end). No bash file of the tree pipes into head.
source "$(dirname "$0")/common.sh"
cd "$SRC"
"$PY" - <<'PY'
import pathlib, re, sys
files = [p for p in sorted(pathlib.Path(".").glob("tests/cli/*.sh")) + sorted(pathlib.Path(".").glob("bench/*/*.sh"))
         + sorted(pathlib.Path(".").glob("scripts/*")) + [pathlib.Path(".ci/run")]
         if p.is_file() and p.read_text(errors="replace").startswith("#!/usr/bin/env bash")]
assert len(files) > 100, len(files)
bad = []
for path in files:
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
        if re.search(r"\|\s*head\b", code):
            bad.append(f"{path}:{number}: {line.strip()}")
assert not bad, "pipes into head (use grep -m 1 or sed -n 1p):\n" + "\n".join(bad)
PY
