#pragma once

#include <iosfwd>
#include <string>

#include "util/error.hpp"

namespace envbisect {

// The largest --older-than that `store gc` accepts, in days (100 years).
inline constexpr int k_max_gc_age_days = 36500;

// Options of `envbisect store gc [--store DIR] [--older-than DAYS]`.
struct StoreGcOptions {
  std::string store_dir;       // "" means default_store_dir()
  double older_than_days = 30;  // entries unused for at least this long are removed
};

// Remove store entries and venv skeletons unused for `older_than_days`, and the temp folders of
// interrupted unpacks, waiting for running materializations first; print what was removed and kept
// on `out`. Environments already built keep working (their files are hard links), and shared
// environments stay while a run holds the store. Return ok. Throw Error (bad_input) for an age that is
// negative, not a number, infinite or over k_max_gc_age_days, or a store folder that does not exist.
ExitCode run_store_gc(const StoreGcOptions& options, std::ostream& out);

// Options of `envbisect store verify [--store DIR]`.
struct StoreVerifyOptions {
  std::string store_dir;  // "" means default_store_dir()
};

// Hash every file of every store entry against the hashes kept at its unpack and compare every
// shared environment with the file identity recorded when it was built; print each damaged entry
// or environment with its changed files on `out`. Return ok when all is intact, inconclusive (1)
// when something is damaged. Throw Error (bad_input) for a store folder that does not exist.
ExitCode run_store_verify(const StoreVerifyOptions& options, std::ostream& out);

}  // namespace envbisect
