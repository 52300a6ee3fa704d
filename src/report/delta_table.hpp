#pragma once

#include <string>
#include <vector>

#include "core/delta.hpp"

namespace envbisect {

// Return the deltas as a plain-text table grouped by dimension (a header line per dimension, then one
// aligned row per delta: name, good value, bad value, and "added"/"removed"/"changed").
std::string render_delta_table(const std::vector<Delta>& deltas);

}  // namespace envbisect
