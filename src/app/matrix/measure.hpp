#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/matrix/run_matrix.hpp"
#include "core/recipe.hpp"
#include "core/state.hpp"
#include "matrix/cells.hpp"
#include "matrix/spec.hpp"
#include "util/error.hpp"

namespace envbisect {

// Everything the night needs, validated before anything is written.
struct MatrixInputs {
  matrix::MatrixSpec spec;
  EnvState base;
  Recipe recipe;
  std::string recipe_path;
  std::string recipe_hash;
  std::vector<std::string> wheel_dirs;  // absolute
  std::string store_dir;                // absolute, or "" for the default
  int repeats = 3;
  std::vector<matrix::Cell> cells;
  std::vector<EnvState> states;         // per cell
  std::vector<std::string> state_hashes;
};

// What measuring one cell gave (or what was reused from earlier the same night).
struct CellMeasurement {
  int runs = 0;
  int failed = 0;
  int skipped = 0;
  std::optional<double> median;
  std::string first_error;
  std::string error;  // an Error thrown while measuring (environment), empty when none
  ExitCode error_code = ExitCode::ok;
};

// Write `content` to `path` unless the file already holds exactly it: a rerun of the same night
// leaves files untouched (their times included).
void write_if_changed(const std::string& path, const std::string& content);

// Return the folder a cell's files live in tonight: NIGHT/cells/<cell id>.
std::string cell_dir_of(const MatrixInputs& in, const std::string& night_dir, std::size_t index);

// Measure cell `index` in `cell_dir` with its own evaluator, journal and local runner (so cells can run
// on several threads), reusing what an earlier run of the same night measured for the same state;
// write cell.json. Throw Error (environment, interrupted) as the evaluator does.
CellMeasurement measure_cell(const MatrixInputs& in, std::size_t index, const std::string& cell_dir);

// Measure every cell, `jobs` at a time on threads; an Error in one cell is kept until all stop, then
// the first one is thrown (an interruption first), saying how many other cells failed.
std::vector<CellMeasurement> measure_cells(const MatrixInputs& in, const std::string& night_dir, int jobs);

// Measure the night's unmeasured cells as ONE Slurm job array, a task per cell, each task this same
// binary measuring one cell into its folder (`matrix ... --cell I`; the cluster shares the filesystem),
// then read every cell's measurement from its folder as a rerun of the night does. Throw Error
// (interrupted) after cancelling the array on Ctrl-C, (environment) when sbatch refuses it or a task
// ended without writing its measurement (naming the task, its state and its logs).
std::vector<CellMeasurement> measure_cells_slurm(const MatrixInputs& in, const MatrixOptions& options,
                                                 const std::string& results_dir, const std::string& date,
                                                 const std::string& night_dir);

}  // namespace envbisect
