#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/marker.hpp"
#include "env/requirement.hpp"

namespace envbisect {

// Return one line per Requires-Dist of the set that the set itself does not satisfy, worded like a
// resolver ("fauxtransformers 5.8.1 requires fauxtorch==2.10.0, but the candidate has fauxtorch
// 2.11.0+cu128"; "... requires fauxtokenizers>=0.20, which the candidate lacks"); empty when the set
// is consistent. `set` maps normalised names to their metadata. Markers that do not apply are
// skipped; markers that cannot be evaluated are skipped and named in `ignored` when given.
std::vector<std::string> unmet_requirements(const std::map<std::string, DistMetadata>& set, const MarkerEnvironment& env,
                                            std::vector<std::string>* ignored = nullptr);

}  // namespace envbisect
