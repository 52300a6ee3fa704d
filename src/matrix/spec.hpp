#pragma once

#include <map>
#include <string>
#include <vector>

namespace envbisect::matrix {

// One axis of the matrix: a field of the base state ("packages.torch", "threads.workers",
// "caches.inductor", "env.NCCL_ALGO", "data.rows") and the values each cell gives it.
struct AxisSpec {
  std::string name;                 // "dimension.key" as written in the spec
  std::string dimension;            // packages | caches | threads | env | data
  std::string key;                  // the package, cache, knob, variable or data name
  std::vector<std::string> values;  // as text; for packages "latest" = newest in the wheel folders
};

// A partial assignment of axis values: {"packages.torch": "latest", "threads.workers": "2"}.
using Assignment = std::map<std::string, std::string>;

// A matrix spec, format v1 (docs/MATRIX.md). Paths are as written, relative to the spec's folder.
struct MatrixSpec {
  std::string name;
  std::string description;
  std::string base_path;                // state file every cell starts from
  std::string recipe_path;              // recipe file every cell runs
  std::vector<std::string> wheel_dirs;  // wheel folders: cells' packages, and where "latest" is looked up
  std::string store_dir;                // content-addressed store; "" = the default
  int repeats = 0;                      // runs per cell; 0 = the recipe's
  double threshold = 0.2;               // relative regression against the cell's history that makes it red
  int min_history = 1;                  // earlier passing nights a cell needs before it can regress
  int history_window = 7;               // earlier passing nights whose medians form the baseline
  std::vector<AxisSpec> axes;           // in the order written
  std::vector<Assignment> include;      // extra cells (axes they leave out keep the base's value)
  std::vector<Assignment> exclude;      // cells of the product matching every entry of a rule are dropped
};

// Parse a matrix spec document. `source` names the file in messages. Collect every problem (unknown
// fields, wrong types, unknown axes in include/exclude, bad values) and throw one Error (bad_input)
// listing them all, each with the file and JSON pointer.
MatrixSpec parse_matrix_spec(const std::string& text, const std::string& source);

}  // namespace envbisect::matrix
