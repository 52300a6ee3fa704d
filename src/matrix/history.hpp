#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envbisect::matrix {

// How a cell stands on one night.
enum class CellStatus {
  green,       // ran, and within the threshold of its own history
  red,         // a run failed (crash, non-zero exit, timeout), or it regressed beyond the threshold
  no_history,  // ran, but too few earlier passing nights to say whether it regressed
  skip,        // could not be tested (environment not buildable, the benchmark said skip)
};

// Return the lower-case name of a status ("green", "red", "no_history", "skip").
std::string_view to_string(CellStatus status);

// Return the status named `text`; nullopt when it names none.
std::optional<CellStatus> cell_status_from(std::string_view text);

// What one night measured for a cell.
struct CellNight {
  std::string date;               // YYYY-MM-DD
  CellStatus status = CellStatus::skip;
  std::optional<double> median;   // median metric of its ok runs
  int runs = 0;
  int failed = 0;                 // failed or timed out
  int skipped = 0;
};

// The verdict on tonight's measurements, with the numbers behind it.
struct CellJudgement {
  CellStatus status = CellStatus::skip;
  bool new_red = false;              // red tonight, not red on the cell's last measured night
  std::optional<double> baseline;    // median of the earlier passing nights' medians
  std::optional<double> change;      // relative change against the baseline, signed, "worse" positive
  int history_nights = 0;            // earlier passing nights in the baseline
  std::optional<std::string> last_green;  // date of the latest earlier passing night
  std::optional<std::string> red_since;   // first night of the current red streak, tonight included
  std::string reason;                // one line a user can check
};

// How cells are judged against their history.
struct JudgePolicy {
  bool higher_is_better = true;
  double threshold = 0.2;   // relative: 0.2 = 20 % worse than the baseline is red
  int min_history = 1;      // passing nights needed before a regression can be called
  int history_window = 7;   // the latest passing nights that form the baseline
};

// Judge tonight's (`date`) runs of a cell (`runs` attempts, `failed` of them failed or timed out, `skipped`
// said skip, `median` over the ok ones) against its earlier nights, oldest first. Failures are red
// regardless of history; a regression beyond the threshold is red; fewer than min_history passing
// nights give no_history.
CellJudgement judge_cell(const std::string& date, int runs, int failed, int skipped, std::optional<double> median,
                         const std::vector<CellNight>& history, const JudgePolicy& policy);

}  // namespace envbisect::matrix
