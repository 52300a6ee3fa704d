#pragma once

#include <ostream>
#include <string>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect diff`.
struct DiffOptions {
  std::string good_path;
  std::string bad_path;
  bool json = false;       // print the deltas as JSON instead of a table
  bool exit_code = false;  // exit 1 when the states differ (like `git diff --exit-code`)
};

// Print the differences between two state files, grouped by dimension, to `out`.
ExitCode run_diff(const DiffOptions& options, std::ostream& out);

}  // namespace envbisect
