#!/usr/bin/env bash
# A real run whose states hold secrets (HF_TOKEN differs between good and bad and is part of the cause,
# WANDB_API_KEY, AWS_SECRET_ACCESS_KEY, tokens under harmless names (one prefixed, one only
# random-looking), DB_PASS, MYSQL_PWD, SESSION_ID, HF_SESSION_COOKIE, passwords inside DATABASE_URL /
# HTTPS_PROXY / SENTRY_DSN, a webhook URL, data.api_key and data.db_password) and whose recipe passes
# `--api-key VALUE` and `--password={data.db_password}` to a benchmark that prints them all: no secret
# appears in the journal, result.json, report.md/html/json, a re-rendered report, `diff` output or the
# run's own output; "<redacted>" does, URLs keep their host, and KEYBOARD's plain value stays visible. Then
# `capture` of a live environment holding secrets writes none of them into the state or its facts.
source "$(dirname "$0")/common.sh"
F="$SRC/fixtures/scenarios/flags"
need /usr/bin/python3 python3
hf_good="hf_GoodGoodGood0123456789abcdefGHIJ"
hf_bad="hf_BadBadBad9876543210zyxwvuABCDEF"
wandb="0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
aws="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
header="ghp_R4nd0mT0k3nV4lu3xxxxxxxxxxxxxxxx01"
plain_token="Xq7Lm2Pz9Kw4Rt8Yv3Bn6Hc1Jd"  # no known prefix: only the random-looking rule can spot it
# Secrets no value heuristic would spot: only the one naming rule (and the URL rule) can.
db_pass="Pa55-db-pass-4471"; mysql_pwd="my-sql-pwd-9931"; session_id="sess-77aa-session"; cookie="cookie-5150-jar"
url_good_pw="dburl-goodpw-1357"; url_bad_pw="dburl-badpw-2468"; proxy_pw="proxy-pw-8642"; sentry_key="sentrykey0a1b2c3"
slack_path="slackpath9753"; api_good="apikey-good-1111"; api_bad="apikey-bad-2222"; data_pw="dbpassword-3333"
argv_key="argv-api-key-4444"
# Names only the extended rule knows (PW, PAT, SSHPASS, a -SECRETKEY ending).
askpass_pw="askpass-pw-5555"; gh_pat="gh-pat-6666"; sshpass="sshpass-7777"; secretkey="secretkey-8888"

cat >"$T/bench.py" <<'PY'
import json, os, random, sys
# A careless benchmark: it prints its secrets to both logs.
print("HF_TOKEN=" + os.environ.get("HF_TOKEN", ""), "token", sys.argv[1], "header", os.environ.get("EXTRA_HEADER"))
print("WANDB_API_KEY=" + os.environ.get("WANDB_API_KEY", ""), file=sys.stderr)
print("argv", " ".join(sys.argv[2:]), "db", os.environ.get("DATABASE_URL"), "DB_PASS=" + os.environ.get("DB_PASS", ""))
print("GIT_ASKPASS_PW=" + os.environ.get("GIT_ASKPASS_PW", ""), "GH_PAT=" + os.environ.get("GH_PAT", ""))
slow = os.environ.get("FLAG_A") == "new" and os.environ.get("HF_TOKEN", "").startswith("hf_Bad")
rate = (200.0 if slow else 1000.0) * (1 + 0.05 * random.Random(os.getpid()).random())
print(json.dumps({"items_per_s": rate, "error": None}))
PY
"$PY" - "$T" "$hf_good" "$hf_bad" "$wandb" "$aws" "$header" "$db_pass" "$mysql_pwd" "$session_id" "$cookie" \
  "$url_good_pw" "$url_bad_pw" "$proxy_pw" "$sentry_key" "$slack_path" "$api_good" "$api_bad" "$data_pw" "$argv_key" \
  "$askpass_pw" "$gh_pat" "$sshpass" "$secretkey" "$plain_token" <<'PY'
import json, sys
(t, hf_good, hf_bad, wandb, aws, header, db_pass, mysql_pwd, session_id, cookie, url_good_pw, url_bad_pw, proxy_pw,
 sentry_key, slack_path, api_good, api_bad, data_pw, argv_key) = sys.argv[1:20]
extra = sys.argv[20:25]
def state(flag, hf, keyboard, url_pw, api_key):
    return {"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"},
            "env": {"FLAG_A": flag, "HF_TOKEN": hf, "WANDB_API_KEY": wandb, "AWS_SECRET_ACCESS_KEY": aws,
                    "EXTRA_HEADER": header, "KEYBOARD": keyboard, "DB_PASS": db_pass, "MYSQL_PWD": mysql_pwd,
                    "SESSION_ID": session_id, "HF_SESSION_COOKIE": cookie,
                    "DATABASE_URL": f"postgres://app:{url_pw}@db.internal:5432/prod",
                    "HTTPS_PROXY": f"http://proxyuser:{proxy_pw}@proxy.corp:3128",
                    "SENTRY_DSN": f"https://{sentry_key}@o1.ingest.sentry.io/5",
                    "SLACK_WEBHOOK_URL": f"https://hooks.slack.com/services/T0/B0/{slack_path}",
                    "GIT_ASKPASS_PW": extra[0], "GH_PAT": extra[1], "SSHPASS": extra[2], "MINIO_SECRETKEY": extra[3],
                    "BUILD_NOTE": extra[4]},
            "data": {"api_key": api_key, "db_password": data_pw, "steps": 3}}
json.dump(state("old", hf_good, "us", url_good_pw, api_good), open(f"{t}/good.json", "w"))
json.dump(state("new", hf_bad, "keyboard-de", url_bad_pw, api_bad), open(f"{t}/bad.json", "w"))
json.dump({"format": 1, "command": ["{python}", "{recipe_dir}/bench.py", "{env.HF_TOKEN}", "--api-key", argv_key,
                                    "--password={data.db_password}", "--steps", "{data.steps}"],
           "metric": "items_per_s", "repeats": 3, "timeout_s": 20, "seed": 1}, open(f"{t}/recipe.json", "w"))
PY
"$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" --no-probe >"$T/out.txt" 2>&1 ||
  { cat "$T/out.txt"; exit 1; }
"$ENVBISECT" report "$T/run" --out "$T/again" >/dev/null
"$ENVBISECT" diff "$T/good.json" "$T/bad.json" >"$T/diff.txt"
"$ENVBISECT" diff --json "$T/good.json" "$T/bad.json" >"$T/diff.json" || true

# The benchmark really saw and printed the secrets (its raw logs are its own business)...
grep -rqF "$hf_bad" "$T/run/attempts" || { echo "the benchmark never printed the token: the test proves nothing"; exit 1; }
for secret in "$argv_key" "$data_pw" "$url_bad_pw" "$db_pass" "$askpass_pw" "$gh_pat"; do
  grep -rqF -- "$secret" "$T/run/attempts" || { echo "the benchmark never saw $secret: the test proves nothing"; exit 1; }
done
# ...and nothing envbisect wrote or printed holds one.
files=("$T/run/journal.jsonl" "$T/run/result.json" "$T/run/report.md" "$T/run/report.html" "$T/run/report.json"
       "$T/again/report.md" "$T/again/report.html" "$T/again/report.json" "$T/out.txt" "$T/diff.txt" "$T/diff.json")
for file in "${files[@]}"; do
  [[ -s $file ]] || { echo "missing output $file"; exit 1; }
  for secret in "$hf_good" "$hf_bad" "$wandb" "$aws" "$header" "$db_pass" "$mysql_pwd" "$session_id" "$cookie" \
    "$url_good_pw" "$url_bad_pw" "$proxy_pw" "$sentry_key" "$slack_path" "$api_good" "$api_bad" "$data_pw" "$argv_key" \
    "$askpass_pw" "$gh_pat" "$sshpass" "$secretkey" "$plain_token"; do
    if grep -qF -- "$secret" "$file"; then
      echo "secret leaked into $file:"; grep -nF -- "$secret" "$file" | cut -c1-200; exit 1
    fi
  done
done
expect_contains "$T/run/result.json" '"name": "HF_TOKEN"'
expect_contains "$T/run/result.json" '<redacted>'
expect_contains "$T/run/report.md" '<redacted>'
expect_contains "$T/run/report.html" '&lt;redacted&gt;'
expect_contains "$T/run/journal.jsonl" '"keyboard-de"'
expect_contains "$T/run/journal.jsonl" '"GIT_ASKPASS_PW":"<redacted>"'
# URLs keep what is not secret; the argv keeps its flags.
expect_contains "$T/run/journal.jsonl" 'postgres://app:<redacted>@db.internal:5432/prod'
expect_contains "$T/out.txt" 'postgres://app:<redacted>@db.internal:5432/prod'
expect_contains "$T/diff.txt" 'postgres://app:<redacted>@db.internal:5432/prod'
expect_contains "$T/diff.json" '"name": "api_key"'
expect_contains "$T/run/report.md" '--api-key'

# capture: a live environment's secrets stay out of the state and its facts; URLs lose their password.
env HF_HUB_PASSPHRASE="$db_pass" HF_SESSION_COOKIE="$cookie" TORCH_DB_PWD="$mysql_pwd" \
  HF_ENDPOINT="https://hubuser:$proxy_pw@hub.example.org/" TRANSFORMERS_SESSION_ID="$session_id" NCCL_DEBUG=WARN \
  "$ENVBISECT" capture --python /usr/bin/python3 -o "$T/captured.json" >"$T/capture.out" 2>&1 ||
  { cat "$T/capture.out"; exit 1; }
for file in "$T/captured.json" "$T/captured.facts.json" "$T/capture.out"; do
  for secret in "$db_pass" "$cookie" "$mysql_pwd" "$proxy_pw" "$session_id"; do
    if grep -qF -- "$secret" "$file"; then
      echo "secret leaked into $file:"; grep -nF -- "$secret" "$file" | cut -c1-200; exit 1
    fi
  done
done
"$PY" - "$T/captured.json" "$T/captured.facts.json" <<'PY'
import json, sys
state, facts = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["captured"]
assert state["env"].get("NCCL_DEBUG") == "WARN", state["env"]
# A redacted value would be set in benchmarks as "<redacted>": redacted variables stay out of the state.
assert not {"HF_HUB_PASSPHRASE", "HF_SESSION_COOKIE", "TORCH_DB_PWD", "HF_ENDPOINT", "TRANSFORMERS_SESSION_ID"} & set(state["env"]), state["env"]
assert facts["env"]["HF_ENDPOINT"] == "https://hubuser:<redacted>@hub.example.org/", facts["env"]
assert facts["env"]["HF_SESSION_COOKIE"] == "<redacted>", facts["env"]
PY
