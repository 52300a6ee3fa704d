#pragma once

#include <string>
#include <vector>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect run` (and `resume`, which reads them back from the run directory).
struct RunOptions {
  std::string good_path;
  std::string bad_path;
  std::string recipe_path;
  std::vector<std::string> wheel_dirs;
  std::string out_dir;   // run directory; default runs/<time>
  int repeats = 0;       // 0: the recipe's
};

// Find the minimal cause that turns good into bad, write RUNDIR/result.json and print a summary.
ExitCode run_run(const RunOptions& options);

// Continue the run in `run_dir` where it stopped, reusing every finished attempt.
ExitCode run_resume(const std::string& run_dir);

}  // namespace envbisect
