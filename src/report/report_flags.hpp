#pragma once

#include <string>
#include <vector>

#include "report/report_model.hpp"

namespace envbisect::report {

// Return one sentence per anchor whose preflight runs and per decision whose runs were noisy (a CV
// above stats::k_noisy_cv, as the run judged it): which one, its CV and the threshold.
std::vector<std::string> noise_flags(const ReportModel& model);

// Return one sentence per environment rebuilt because what ran in it changed its files: the
// environment, the changed files and the run after which the change was found.
std::vector<std::string> damage_flags(const ReportModel& model);

}  // namespace envbisect::report
