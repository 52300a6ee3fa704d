#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/report_model.hpp"
#include "stats/quantity.hpp"

namespace envbisect::report {

// Return a measured change as people quote it, with its interval in the same terms: the ratio
// bad/good `ratio` (with its 95 % interval `low`..`high` when known) of a metric better the way `better`
// says, as "5.76× slower (95 % CI 4.1–10.4×)"; "faster", or "worse"/"better" for a unit that is
// neither a rate nor a duration. An interval that holds 1× claims no direction.
std::string factor_words(double ratio, std::optional<double> low, std::optional<double> high, stats::Better better,
                         const std::string& unit);

// Return a median measured against a baseline as the matrix and reports show it, with the unit:
// "2.77× slower", "1.3× faster", "same" within 1 %.
std::string factor_of(double baseline, double value, stats::Better better, const std::string& unit);

// Return the metric's unit: the recipe's, else the one the result recorded; "" when neither names one.
std::string metric_unit(const ReportModel& model);

// Return which way the metric is better: the recipe says so; without it (a recipe changed since the
// run) the result's own words for the effect do; higher when nothing says.
stats::Better better_of(const ReportModel& model);

// The answer of a run, built once from the model and rendered by every format: what the cause is, how
// it was verified, its effect in the user's terms, when it bites, and the run's caveats each on one line.
struct Answer {
  std::string headline;                 // "cause found: 2 differences, together, verified both ways"
  std::vector<std::string> cause;       // "packages/fauxtorch: 2.11.0+cu128 -> 2.11.0+cu130", one per member
  std::string verification;             // "good + cause -> bad (decision #7, 3 runs); bad - cause -> good (...)"
  std::string effect;                   // "6.29× slower (95 % CI 6.02–6.67×): 166 268 -> 26 070 tok/s, ..."
  std::vector<std::string> bites;       // "drafter_threads with inductor cold: 1 good; 2, 4 bad; 3 bad (inferred)"
  std::vector<std::string> could_be;    // undecided: the sets the cause could still be
  std::string settle;                   // undecided: what would settle it
  std::string noise;                    // "16 of 17 decisions noisy, CV 13–50 %", or ""
  std::string load;                     // "14 decisions ran at a higher load than the anchors", or ""
  std::string effort;                   // "17 candidates decided (8 while isolating), 67 runs, 29 s"
  std::string note;                     // the result's note, or ""
};

// Return the answer of the model's run (a headline that says so when the run has no result).
Answer answer_of(const ReportModel& model);

}  // namespace envbisect::report
