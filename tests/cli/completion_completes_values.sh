#!/usr/bin/env bash
# The bash completion completes values, not only names: subcommands, flags, an option's choices,
# run folders (the folders holding a journal) where a command takes one, the candidates of repro,
# the commands of help, and files elsewhere; zsh completes an option's values too.
source "$(dirname "$0")/common.sh"
"$ENVBISECT" completion bash >"$T/envbisect.bash"
mkdir -p "$T/work/runs/one" "$T/work/runs/empty"
touch "$T/work/runs/one/journal.jsonl" "$T/work/recipe.json"
# offered WORD...: what the completion offers for the last word, one per line (plain bash, no -e:
# compgen fails when nothing matches).
cat >"$T/complete.sh" <<'SH'
source "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_envbisect
printf '%s\n' "${COMPREPLY[@]}" | sort
SH
offered() { (cd "$T/work" && bash "$T/complete.sh" "$T/envbisect.bash" envbisect "$@"); }
[[ "$(offered re | tr '\n' ' ')" == "replay report repro resume " ]] || { offered re; exit 1; }
[[ "$(offered report --format "" | tr '\n' ' ')" == "all html json md " ]] || { offered report --format ""; exit 1; }
[[ "$(offered run a.json b.json --executor s | tr '\n' ' ')" == "slurm ssh " ]]
[[ "$(offered resume runs/ | tr '\n' ' ')" == "runs/one " ]] || { offered resume runs/; exit 1; }
[[ "$(offered report -o x.md runs/ | tr '\n' ' ')" == "runs/one " ]]
[[ "$(offered repro runs/one "" | tr '\n' ' ')" == "bad good " ]] || { offered repro runs/one ""; exit 1; }
[[ "$(offered help st | tr '\n' ' ')" == "state store " ]]
[[ "$(offered completion "" | tr '\n' ' ')" == "bash zsh " ]]
offered run --rec >"$T/flags.txt"
expect_contains "$T/flags.txt" "--recipe"
[[ "$(offered run --recipe rec)" == "recipe.json" ]]
[[ "$(offered run --budget "")" == "" ]]  # free text: nothing offered
# zsh: the same values after an option (and `path`, zsh's PATH array, left alone).
"$ENVBISECT" completion zsh >"$T/_envbisect"
expect_contains "$T/_envbisect" '"report:--format") compadd -- md html json all; return ;;'
expect_contains "$T/_envbisect" '"run:--wheels") _files -/; return ;;'
not grep -q "local path" "$T/_envbisect"
if command -v zsh >/dev/null; then zsh -n "$T/_envbisect"; fi
echo "completion_completes_values: ok"
