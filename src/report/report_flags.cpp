#include "report/report_flags.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "stats/effect.hpp"
#include "util/strings.hpp"

namespace envbisect::report {

namespace {

std::string cv_percent(double cv) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", cv * 100.0);
  return text;
}

std::string noise_threshold() { return cv_percent(stats::k_noisy_cv); }

// The candidate's label as the report names it, or its hash's first 12 digits.
std::string label_of_candidate(const ReportModel& model, const std::string& hash) {
  const CandidateView* view = find_candidate(model, hash);
  if (view != nullptr && !view->label.empty()) {
    return view->label;
  }
  return hash.substr(0, 12);
}

// The first few changed files, and how many more there are.
std::string first_files(const std::vector<std::string>& files) {
  constexpr std::size_t shown = 5;
  if (files.size() <= shown) {
    return join(files, ", ");
  }
  return join(std::vector<std::string>(files.begin(), files.begin() + shown), ", ") + " and " +
         std::to_string(files.size() - shown) + " more";
}

}  // namespace

std::vector<std::string> noise_flags(const ReportModel& model) {
  std::vector<std::string> out;
  if (model.preflight) {
    for (const auto& [name, cv] : {std::pair{"good", model.preflight->good_cv}, std::pair{"bad", model.preflight->bad_cv}}) {
      if (cv && *cv > stats::k_noisy_cv && std::isfinite(*cv)) {
        out.push_back(std::string("the ") + name + " anchor's runs: CV " + cv_percent(*cv) + ", above the " +
                      noise_threshold() + " noise threshold; verdicts need more runs and small effects can hide");
      }
    }
  }
  for (const Decision& decision : model.decisions) {
    if (decision.noisy && decision.cv) {
      out.push_back("decision #" + std::to_string(decision.n) + " " + decision.label + ": " +
                    std::to_string(decision.runs) + (decision.runs == 1 ? " run" : " runs") + " with CV " +
                    cv_percent(*decision.cv) + ", above the " + noise_threshold() + " noise threshold");
    }
  }
  return out;
}

std::vector<std::string> damage_flags(const ReportModel& model) {
  // One line per set of changed files: a benchmark that writes at every run through a store file
  // several environments share gets its environments rebuilt before every attempt, which is one finding.
  std::vector<std::string> out;
  std::vector<std::vector<std::string>> seen_files;
  std::vector<std::set<std::string>> envs;
  std::vector<int> times;
  for (const Build& build : model.builds) {
    if (!build.damaged) {
      continue;
    }
    const auto same = std::find(seen_files.begin(), seen_files.end(), build.damaged_files);
    if (same != seen_files.end()) {
      const auto at = static_cast<std::size_t>(same - seen_files.begin());
      ++times[at];
      envs[at].insert(build.env_hash);
      continue;
    }
    std::string text = "environment " + build.env_hash.substr(0, 12) + " was rebuilt: " +
                       std::to_string(build.damaged_files.size()) +
                       (build.damaged_files.size() == 1 ? " file" : " files") + " changed (" + first_files(build.damaged_files) +
                       ")";
    if (build.damaged_after_candidate.empty()) {
      text += " before this run used it";
    } else {
      text += " after run " + std::to_string(build.damaged_after_attempt) + " of " +
              label_of_candidate(model, build.damaged_after_candidate);
    }
    if (!build.damaged_latest_candidate.empty()) {
      text += (build.damaged_after_candidate.empty() ? "; " : ", the last in it; ") + std::string("or by run ") +
              std::to_string(build.damaged_latest_attempt) + " of " +
              label_of_candidate(model, build.damaged_latest_candidate) +
              ", the latest anywhere, through a store file the environments share";
    }
    out.push_back(text);
    seen_files.push_back(build.damaged_files);
    envs.push_back({build.env_hash});
    times.push_back(1);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (times[i] > 1) {
      out[i] += " (the same files changed " + std::to_string(times[i]) + " times in all, in " +
                std::to_string(envs[i].size()) + (envs[i].size() == 1 ? " environment)" : " environments)");
    }
  }
  return out;
}

}  // namespace envbisect::report
