#include "matrix/night.hpp"

#include <nlohmann/json.hpp>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect::matrix {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json optional_text(const std::optional<std::string>& value) { return value ? json(*value) : json(nullptr); }

}  // namespace

json night_to_json(const MatrixNight& night) {
  json doc = {{"format", 1}, {"kind", "envbisect-matrix"}, {"name", night.name}, {"date", night.date},
              {"metric", night.metric}, {"direction", night.higher_is_better ? "higher" : "lower"},
              {"threshold", night.threshold}, {"min_history", night.min_history}, {"new_red", count_new_red(night)},
              {"cells", json::array()}};
  for (const CellReport& cell : night.cells) {
    const CellJudgement& j = cell.judgement;
    json item = {{"id", cell.id}, {"assignment", cell.assignment}, {"resolved", cell.resolved},
                 {"state_hash", cell.state_hash}, {"status", to_string(j.status)}, {"new_red", j.new_red},
                 {"reason", j.reason}, {"runs", cell.runs}, {"failed", cell.failed}, {"skipped", cell.skipped},
                 {"median", optional_number(cell.median)}, {"first_error", cell.first_error},
                 {"baseline", optional_number(j.baseline)}, {"change", optional_number(j.change)},
                 {"history_nights", j.history_nights}, {"last_green", optional_text(j.last_green)},
                 {"red_since", optional_text(j.red_since)}, {"trend", json::array()}};
    for (const CellNight& point : cell.trend) {
      item["trend"].push_back({{"date", point.date}, {"status", to_string(point.status)},
                               {"median", optional_number(point.median)}});
    }
    if (!cell.bisect.status.empty()) {
      item["bisect"] = {{"status", cell.bisect.status}, {"cause", cell.bisect.cause},
                        {"refined", cell.bisect.refined}, {"last_green", cell.bisect.last_green_date},
                        {"report", cell.bisect.report}, {"note", cell.bisect.note}};
    }
    doc["cells"].push_back(item);
  }
  return doc;
}

std::map<std::string, CellNight> nights_from_json(const json& doc, const std::string& source) {
  if (!doc.is_object() || doc.value("format", 0) != 1 || doc.value("kind", "") != "envbisect-matrix" ||
      !doc.contains("cells") || !doc["cells"].is_array()) {
    throw Error(source + ": not a matrix.json of format 1 (kind envbisect-matrix)", ExitCode::bad_input);
  }
  std::map<std::string, CellNight> out;
  for (const json& item : doc["cells"]) {
    CellNight night;
    night.date = doc.value("date", "");
    std::optional<CellStatus> status = cell_status_from(item.value("status", ""));
    if (!item.contains("id") || !item["id"].is_string() || !status) {
      throw Error(source + ": a cell without an id or a known status", ExitCode::bad_input);
    }
    night.status = *status;
    if (item.contains("median") && item["median"].is_number()) {
      night.median = item["median"].get<double>();
    }
    night.runs = item.value("runs", 0);
    night.failed = item.value("failed", 0);
    night.skipped = item.value("skipped", 0);
    out[item["id"].get<std::string>()] = night;
  }
  return out;
}

int count_new_red(const MatrixNight& night) {
  int count = 0;
  for (const CellReport& cell : night.cells) {
    count += cell.judgement.new_red ? 1 : 0;
  }
  return count;
}

std::string summary_line(const MatrixNight& night) {
  std::map<CellStatus, int> counts;
  std::vector<std::string> new_red;
  for (const CellReport& cell : night.cells) {
    ++counts[cell.judgement.status];
    if (cell.judgement.new_red) {
      std::string text = cell.id;
      if (!cell.bisect.cause.empty()) {
        text += " (cause: " + join(cell.bisect.cause, " + ") + ")";
      }
      new_red.push_back(text);
    }
  }
  std::string line = "matrix " + night.date + ": " + std::to_string(night.cells.size()) + " cells: " +
                     std::to_string(counts[CellStatus::green]) + " green, " + std::to_string(counts[CellStatus::red]) +
                     " red (" + std::to_string(new_red.size()) + " new), " +
                     std::to_string(counts[CellStatus::no_history]) + " without enough history, " +
                     std::to_string(counts[CellStatus::skip]) + " skipped";
  if (!new_red.empty()) {
    line += "; new red: " + join(new_red, "; ");
  }
  return line;
}

}  // namespace envbisect::matrix
