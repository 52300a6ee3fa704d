#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/delta.hpp"
#include "core/state.hpp"
#include "env/requirement.hpp"

namespace envbisect {

// The METADATA of the changed packages at each end of a run, by normalised name.
struct EndsMetadata {
  std::map<std::string, DistMetadata> good;
  std::map<std::string, DistMetadata> bad;
};

// Return the units the isolation moves, from metadata already read (plan_units' rule, pure): one per
// delta, except package deltas joined because one end's version of a package requires (a Requires-Dist
// without a marker) a version of another changed package that the other end's version does not satisfy,
// or lacks it; joins are transitive. Each unit lists delta indices ascending; units are sorted.
std::vector<std::vector<std::size_t>> units_from_metadata(const std::vector<Delta>& deltas, const EnvState& good,
                                                          const EnvState& bad, const EndsMetadata& metadata);

// Return the units the isolation moves: one per delta, except package deltas that must move together
// because one end's version of a package requires (Requires-Dist) a version of another that the other
// end's version does not satisfy (changing one alone would be unresolvable, as torch pins triton). Only
// the changed packages' METADATA is read, from the wheels' central directories (or uv archives),
// nothing unpacked, in time linear in the packages; packages that cannot be read stay single units.
std::vector<std::vector<std::size_t>> plan_units(const std::vector<Delta>& deltas, const EnvState& good,
                                                 const EnvState& bad, const std::vector<std::string>& wheel_dirs,
                                                 const std::vector<std::string>& uv_caches);

// Return the units that may be the other half of a renamed package in `unit_set` (unit indices): where
// the set adds a package (absent in good), the units that remove one (absent in bad), and the other way
// round; ascending. isolate() reverts them first when bad minus the set is untestable (IsolateOptions::partners).
std::vector<std::size_t> rename_partners(const std::vector<Delta>& deltas,
                                         const std::vector<std::vector<std::size_t>>& units,
                                         const std::vector<std::size_t>& unit_set);

}  // namespace envbisect
