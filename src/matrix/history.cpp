#include "matrix/history.hpp"

#include <cmath>
#include <cstdio>

#include "stats/samples.hpp"

namespace envbisect::matrix {

namespace {

bool passing(const CellNight& night) {
  return (night.status == CellStatus::green || night.status == CellStatus::no_history) && night.median.has_value();
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", fraction * 100.0);
  return text;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

std::string_view to_string(CellStatus status) {
  switch (status) {
    case CellStatus::green:
      return "green";
    case CellStatus::red:
      return "red";
    case CellStatus::no_history:
      return "no_history";
    case CellStatus::skip:
      return "skip";
  }
  return "skip";
}

std::optional<CellStatus> cell_status_from(std::string_view text) {
  for (CellStatus status : {CellStatus::green, CellStatus::red, CellStatus::no_history, CellStatus::skip}) {
    if (to_string(status) == text) {
      return status;
    }
  }
  return std::nullopt;
}

CellJudgement judge_cell(const std::string& date, int runs, int failed, int skipped, std::optional<double> median,
                         const std::vector<CellNight>& history, const JudgePolicy& policy) {
  CellJudgement out;
  // The baseline: the latest passing nights, at most history_window of them.
  std::vector<double> medians;
  for (auto night = history.rbegin(); night != history.rend(); ++night) {
    if (passing(*night)) {
      if (!out.last_green) {
        out.last_green = night->date;
      }
      if (static_cast<int>(medians.size()) < policy.history_window) {
        medians.push_back(*night->median);
      }
    }
  }
  out.history_nights = static_cast<int>(medians.size());
  if (!medians.empty()) {
    out.baseline = stats::median(medians);
  }

  if (runs == 0) {
    out.status = CellStatus::skip;
    out.reason = "not measured";
  } else if (failed > 0) {
    // A crash or a non-zero exit is red whatever the history says.
    out.status = CellStatus::red;
    out.reason = std::to_string(failed) + " of " + std::to_string(runs) + " runs failed";
  } else if (!median) {
    out.status = CellStatus::skip;
    out.reason = std::to_string(skipped) + " of " + std::to_string(runs) + " runs could not test this cell (skip)";
  } else if (out.history_nights < policy.min_history) {
    out.status = CellStatus::no_history;
    out.reason = "not enough history: " + std::to_string(out.history_nights) + " earlier passing night" +
                 (out.history_nights == 1 ? "" : "s") + ", " + std::to_string(policy.min_history) +
                 " needed to judge a regression";
  } else {
    double base = *out.baseline;
    double worse = policy.higher_is_better ? (base - *median) / std::fabs(base) : (*median - base) / std::fabs(base);
    if (base == 0.0) {
      worse = *median == base ? 0.0 : 1.0;
    }
    out.change = worse;
    std::string numbers = "median " + number(*median) + " vs baseline " + number(base) + " (median of " +
                          std::to_string(out.history_nights) + " passing night" + (out.history_nights == 1 ? "" : "s") +
                          ")";
    if (worse > policy.threshold) {
      out.status = CellStatus::red;
      out.reason = "regressed " + percent(worse) + " beyond the " + percent(policy.threshold) + " threshold: " + numbers;
    } else {
      out.status = CellStatus::green;
      out.reason = (worse >= 0 ? percent(worse) + " worse" : percent(-worse) + " better") + ", within the " +
                   percent(policy.threshold) + " threshold: " + numbers;
    }
  }

  if (out.status == CellStatus::red) {
    // New when the cell's last measured night was not red (or it has none).
    out.new_red = history.empty() || history.back().status != CellStatus::red;
    std::string since = date;
    for (auto night = history.rbegin(); night != history.rend() && night->status == CellStatus::red; ++night) {
      since = night->date;
    }
    out.red_since = since;
  }
  return out;
}

}  // namespace envbisect::matrix
