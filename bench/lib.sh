# Sourced by every bench/*/run.sh: bench_build_type BUILD_DIR prints `build_type: TYPE` for the build
# the bench measures, and refuses a build without optimisation (Debug, or no type at all: -O0 gave
# 19.9x pip where a release build gives 51.8x) unless BENCH_ALLOW_DEBUG=1 asks for it, so that no
# figure from an unoptimised build is quoted by mistake. The smoke mode (BENCH_SMOKE=1, CTest's
# bench_smoke.*) only proves a bench still runs, so it runs on any build.
bench_build_type() {
  local build="$1" type
  type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)"
  echo "build_type: ${type:-none}"
  case "$type" in
    Release | RelWithDebInfo | MinSizeRel) ;;
    *)
      if [[ "${BENCH_ALLOW_DEBUG:-}" != 1 && -z "${BENCH_SMOKE:-}" ]]; then
        echo "$(basename "$(dirname "$0")") bench: $build is a ${type:-type-less} build (no optimisation):" \
             "its figures are not the product's; build RelWithDebInfo or set BENCH_ALLOW_DEBUG=1" >&2
        exit 2
      fi
      echo "build_type ${type:-none}: figures not comparable with a release build"
      ;;
  esac
}

# bench_need PROGRAM PACKAGE: exit 125 (skipped) unless PROGRAM is on PATH, leaving the reason where
# scripts/test reads it (a program scripts/install-deps installs: scripts/test fails on this skip).
bench_need() {
  command -v "$1" >/dev/null && return 0
  local reason="$1 is missing (Debian package $2, which scripts/install-deps installs)"
  if [[ -n "${ENVBISECT_SKIP_DIR:-}" ]]; then
    mkdir -p "$ENVBISECT_SKIP_DIR"
    echo "missing: $reason" >"$ENVBISECT_SKIP_DIR/bench_smoke.$(basename "$(dirname "$0")")"
  fi
  echo "SKIP: $reason" >&2
  exit 125
}

# bench_build BUILD_DIR CMAKE_BUILD_ARGS...: build what the bench runs, except in the smoke mode: there
# CTest runs the bench beside the other tests of a build that already made every target, and a
# rebuild (a new commit relinks the library) would replace binaries those tests are running.
bench_build() {
  [[ -z "${BENCH_SMOKE:-}" ]] || return 0
  cmake --build "$@"
}
