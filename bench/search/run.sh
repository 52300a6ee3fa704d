#!/usr/bin/env bash
# Side by side: (a) envbisect's DAG bisection (dag_first_bad over commits_between) vs `git bisect run`
# with the same predicate script, one culprit among N = 64, 256, 1024 commits, on generated repos
# (linear and with merges), several culprit positions; (b) isolate() vs textbook ddmin for K = 1, 2, 3
# interacting toggles among D = 8, 16, 40. Prints tables, then, last, exactly two lines:
#   evals_vs_git_bisect: X   (worst over every (N, shape, culprit) run of ours / git's predicate runs)
#   evals_vs_ddmin: Y        (worst over (K, D) of mean evaluations, ours / ddmin's)
# Usage: bench/search/run.sh [seed]   (BUILD=build dir, default build; builds target bench_search)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
seed="${1:-20261129}"
cmake --build "$build" --target bench_search -j1 >/dev/null
exe="$build/bench/bench_search"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME="$work" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com \
  GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com

# The predicate both tools run in a checkout: log one line per run, bad iff marker says so.
cat >"$work/predicate.sh" <<'SH'
echo run >>"$PREDICATE_LOG"
grep -q '^bad$' marker && exit 1
exit 0
SH

worst_git=0
printf '%-6s %-7s %-8s %-5s %-5s %-6s %s\n' N shape culprit git ours bound same_culprit
sizes="64 256 1024"
[[ -z "${BENCH_SMOKE:-}" ]] || sizes="64"  # CI: only proves the bench still runs
for n in $sizes; do
  bound=$(awk -v n="$n" 'BEGIN { b = log(n) / log(2); print (b == int(b)) ? b : int(b) + 1 }')
  for shape in linear merges; do
    # Culprits: first, last, quarter points, and four seeded random commits.
    culprits="1 $((n / 4)) $((n / 2)) $((3 * n / 4)) $n"
    for i in 1 2 3 4; do culprits="$culprits $(( (seed * (i + 7) + n * i * 31) % n + 1 ))"; done
    [[ -z "${BENCH_SMOKE:-}" ]] || culprits="1 $((n / 2)) $n"
    for culprit in $culprits; do
      repo="$work/repo-$n-$shape-$culprit"
      git init -q -b main "$repo"
      "$exe" repo "$n" "$shape" "$culprit" "$seed" | git -C "$repo" fast-import --quiet
      git -C "$repo" reset -q --hard main
      expected=$(git -C "$repo" rev-parse culprit^{commit})

      export PREDICATE_LOG="$work/git.log"; : >"$PREDICATE_LOG"
      git -C "$repo" bisect start main good >/dev/null
      out=$(cd "$repo" && git bisect run sh "$work/predicate.sh" 2>&1)
      git_found=$(printf '%s\n' "$out" | sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p')
      git -C "$repo" bisect reset -q >/dev/null 2>&1 || true
      git_runs=$(wc -l <"$PREDICATE_LOG")

      export PREDICATE_LOG="$work/ours.log"; : >"$PREDICATE_LOG"
      line=$("$exe" dag "$repo" "$work/predicate.sh" 2>"$work/ours.err")
      ours_found=${line##* }
      ours_runs=$(wc -l <"$PREDICATE_LOG")

      same=no
      [[ "$git_found" == "$expected" && "$ours_found" == "$expected" ]] && same=yes
      printf '%-6s %-7s %-8s %-5s %-5s %-6s %s\n' "$n" "$shape" "$culprit" "$git_runs" "$ours_runs" "$bound" "$same"
      [[ $same == yes ]] || { echo "culprit mismatch: expected $expected git $git_found ours $ours_found" >&2; exit 1; }
      worst_git=$(awk -v a="$ours_runs" -v b="$git_runs" -v w="$worst_git" 'BEGIN { r = a / b; print (r > w) ? r : w }')
      rm -rf "$repo"
    done
  done
done
echo
sets=$("$exe" sets "$seed")
printf '%s\n' "$sets" | grep -v '^ddmin_worst_ratio'
worst_ddmin=$(printf '%s\n' "$sets" | sed -n 's/^ddmin_worst_ratio //p')
printf 'evals_vs_git_bisect: %.3f\n' "$worst_git"
printf 'evals_vs_ddmin: %s\n' "$worst_ddmin"
