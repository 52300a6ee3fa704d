#pragma once

#include <functional>
#include <string>

#include "app/measure/evaluate.hpp"
#include "core/outcome.hpp"

namespace envbisect {

// Decides one candidate: measures it until the statistics decide, journals the decision (labelled
// with the search stage and a label a reader understands) and returns its verdict.
using DecideCandidate = std::function<Verdict(const Candidate&, const std::string& stage, const std::string& label)>;

}  // namespace envbisect
