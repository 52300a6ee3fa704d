#!/usr/bin/env bash
# Side by side: (a) envbisect's commit bisection vs `git bisect run` with the same predicate script, one
# culprit among N = 64, 256, 1024 commits, on generated repos, several culprit positions: linear
# histories through the chain bisection (as a linear commit axis), histories with merges through the
# DAG bisection; the commits each asks are compared in order; (b) isolate() vs textbook ddmin for
# K = 1, 2, 3 interacting toggles among D = 8, 16, 40. Prints tables, then, last:
#   evals_vs_git_bisect: X          (worst over every (N, shape, culprit) run of ours / git's predicate runs)
#   git_question_match: M           (fraction of runs whose question sequence equals git's)
#   deterministic_runs_vs_git: R    (worst of a pass/fail run's total runs -- ours + 2 anchor runs + 2
#                                    boundary re-runs, as `envbisect run --deterministic` makes them --
#                                    over git's; the goal is <= 1 + 4/git's runs, checked per run)
#   deterministic_within_goal: F    (fraction of runs within that goal)
#   evals_vs_ddmin: Y               (worst over (K, D) of mean evaluations, ours / ddmin's)
#   evals_vs_info_bound: Z          (worst over (K, D) of mean evaluations / (ceil(log2 C(D, K)) + 1))
# Usage: bench/search/run.sh [--smoke] [seed]   (BUILD=build dir, default build; builds target bench_search)
#   --smoke: N = 64 only, three culprits, and the ddmin part skipped (CI: ctest bench_smoke.search).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
source "$root/bench/lib.sh"
bench_build_type "$build"
smoke=no
if [[ "${1:-}" == --smoke ]]; then smoke=yes; shift; fi
[[ -z "${BENCH_SMOKE:-}" ]] || smoke=yes  # CI: ctest bench_smoke.*
seed="${1:-20261129}"
bench_build "$build" --target bench_search -j1 >/dev/null
exe="$build/bench/bench_search"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME="$work" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com \
  GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com

# The predicate both tools run in a checkout: log one line per run, bad iff marker says so.
cat >"$work/predicate.sh" <<'SH'
cat id >>"$PREDICATE_LOG"
grep -q '^bad$' marker && exit 1
exit 0
SH

worst_git=0 worst_det=0 runs=0 matched=0 within=0
sizes="64 256 1024"; [[ $smoke == yes ]] && sizes=64
printf '%-6s %-7s %-8s %-5s %-5s %-6s %-12s %s\n' N shape culprit git ours bound same_culprit same_questions
for n in $sizes; do
  bound=$(awk -v n="$n" 'BEGIN { b = log(n) / log(2); print (b == int(b)) ? b : int(b) + 1 }')
  for shape in linear merges; do
    # Culprits: first, last, quarter points, and four seeded random commits.
    culprits="1 $((n / 4)) $((n / 2)) $((3 * n / 4)) $n"
    for i in 1 2 3 4; do culprits="$culprits $(( (seed * (i + 7) + n * i * 31) % n + 1 ))"; done
    [[ $smoke == yes ]] && culprits="1 $((n / 2)) $(( (seed * 8 + n * 31) % n + 1 ))"
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
      mode=dag; [[ $shape == linear ]] && mode=chain
      line=$("$exe" "$mode" "$repo" "$work/predicate.sh" 2>"$work/ours.err")
      ours_found=${line##* }
      ours_runs=$(wc -l <"$PREDICATE_LOG")

      same=no
      [[ "$git_found" == "$expected" && "$ours_found" == "$expected" ]] && same=yes
      questions=no
      cmp -s "$work/git.log" "$work/ours.log" && questions=yes
      printf '%-6s %-7s %-8s %-5s %-5s %-6s %-12s %s\n' "$n" "$shape" "$culprit" "$git_runs" "$ours_runs" "$bound" "$same" "$questions"
      [[ $same == yes ]] || { echo "culprit mismatch: expected $expected git $git_found ours $ours_found" >&2; exit 1; }
      runs=$((runs + 1))
      [[ $questions == yes ]] && matched=$((matched + 1))
      # A pass/fail run: one run of each anchor, the questions, one more run of each boundary commit.
      total=$((ours_runs + 4))
      (( total <= git_runs + 4 )) && within=$((within + 1))
      worst_git=$(awk -v a="$ours_runs" -v b="$git_runs" -v w="$worst_git" 'BEGIN { r = a / b; print (r > w) ? r : w }')
      worst_det=$(awk -v a="$total" -v b="$git_runs" -v w="$worst_det" 'BEGIN { r = a / b; print (r > w) ? r : w }')
      rm -rf "$repo"
    done
  done
done
echo
worst_ddmin=skipped worst_info=skipped
if [[ $smoke == no ]]; then
  sets=$("$exe" sets "$seed")
  printf '%s\n' "$sets" | grep -v '^ddmin_worst_ratio\|^info_bound_worst_ratio'
  worst_ddmin=$(printf '%s\n' "$sets" | sed -n 's/^ddmin_worst_ratio //p')
  worst_info=$(printf '%s\n' "$sets" | sed -n 's/^info_bound_worst_ratio //p')
fi
printf 'evals_vs_git_bisect: %.3f\n' "$worst_git"
printf 'git_question_match: %.3f\n' "$(awk -v m="$matched" -v r="$runs" 'BEGIN { print m / r }')"
printf 'deterministic_runs_vs_git: %.3f\n' "$worst_det"
printf 'deterministic_within_goal: %.3f\n' "$(awk -v m="$within" -v r="$runs" 'BEGIN { print m / r }')"
printf 'evals_vs_ddmin: %s\n' "$worst_ddmin"
printf 'evals_vs_info_bound: %s\n' "$worst_info"
# The smoke run fails CI when envbisect stops asking git's questions.
[[ $matched -eq $runs ]] || { echo "question sequences differ from git's in $((runs - matched)) of $runs runs" >&2; exit 1; }
