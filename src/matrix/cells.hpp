#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/state.hpp"
#include "matrix/spec.hpp"

namespace envbisect::matrix {

// One cell of the matrix: the axis values it sets, and a name that stays the same every night.
struct Cell {
  std::string id;         // file-system safe and stable: "packages.torch=latest,threads.workers=2"
  Assignment assignment;  // axis name -> value as written in the spec ("latest" unresolved)
};

// Return the cells of the spec: the product of the axes' values in the order written, minus the
// cells matching an exclude rule, plus the include assignments that are not already cells.
std::vector<Cell> expand_cells(const MatrixSpec& spec);

// Return the packages whose cells ask for "latest" (normalised names), so the adapter can look
// them up in the wheel folders.
std::vector<std::string> latest_packages(const std::vector<Cell>& cells);

// Return the base state with the cell's values applied; "latest" becomes latest[package]. Throw Error
// (bad_input) naming the cell when a package has no latest version or a threads value is not a number.
EnvState cell_state(const EnvState& base, const Cell& cell, const std::map<std::string, std::string>& latest);

}  // namespace envbisect::matrix
