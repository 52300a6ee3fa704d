#pragma once

#include <string>

#include "util/error.hpp"

namespace envbisect {

// Options of `envbisect matrix SPEC --results DIR [--jobs N] [--date YYYY-MM-DD]`.
struct MatrixOptions {
  std::string spec_path;
  std::string results_dir;
  int jobs = 0;      // cells measured at once: worker threads locally (0 = 1), array tasks running at
                     // once on Slurm (--array=...%N; 0 = as Slurm schedules)
  std::string date;  // the night's folder name; "" = today (UTC)
  std::string executor = "local";  // where cells are measured: "local" (--jobs threads) or "slurm" (one job array)
  int slurm_gpus = 0;               // slurm: `--gres=gpu:N` per array task; 0 = no GPUs asked for
  std::string slurm_partition;      // slurm: `--partition`; "" = the cluster's default
  int cell = -1;                    // internal (what each Slurm array task runs): measure only cell INDEX here
};

// Measure every cell of the matrix for one night into DIR/<date>/ (cells measured earlier that night
// are reused), judge each against its own history, bisect each new red cell against its last green
// state, write matrix.json, matrix.md and matrix.html, and print a one-line summary. Return
// ExitCode::inconclusive (1) when new red cells appeared, ok otherwise; throw Error (bad_input) before
// writing anything when the spec or its inputs are invalid. With executor "slurm" the night's unmeasured
// cells are measured by one Slurm job array, a task per cell running `envbisect matrix ... --cell I`; a
// task that ends without its measurement throws Error (environment) naming the task and its logs. With
// `cell` >= 0 measure only that cell into DIR/<date>/cells/<id>/, print one line and return ok.
ExitCode run_matrix(const MatrixOptions& options);

}  // namespace envbisect
