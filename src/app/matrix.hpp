#pragma once

#include <string>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect matrix SPEC --results DIR [--jobs N] [--date YYYY-MM-DD]`.
struct MatrixOptions {
  std::string spec_path;
  std::string results_dir;
  int jobs = 1;      // cells measured at once, one worker thread (and one evaluator) per cell
  std::string date;  // the night's folder name; "" = today (UTC)
};

// Measure every cell of the matrix for one night into DIR/<date>/ (cells measured earlier that night
// are reused), judge each against its own history, bisect each new red cell against its last green
// state, write matrix.json, matrix.md and matrix.html, and print a one-line summary. Return
// ExitCode::inconclusive (1) when new red cells appeared, ok otherwise; throw Error (bad_input) before
// writing anything when the spec or its inputs are invalid.
ExitCode run_matrix(const MatrixOptions& options);

}  // namespace envbisect
