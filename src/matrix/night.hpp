#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "matrix/history.hpp"
#include "matrix/spec.hpp"

namespace envbisect::matrix {

// What the automatic bisection of a new red cell found (or why there was none).
struct CellBisect {
  std::string status;                // "found", "not_found", "not_possible" or "" (not attempted)
  std::vector<std::string> cause;    // "packages/fauxlib 1.1 -> 1.2", one per difference
  std::vector<std::string> refined;  // "inside packages/x: first bad 1.2, last good 1.1"
  std::string last_green_date;       // the night whose state was the good end
  std::string report;                // report.html, relative to the night's folder ("../DATE/..." when
                                     // carried from the night the cell turned red)
  std::string note;                  // why not possible, the search's note, or "bisected on DATE" for
                                     // a cell still red since DATE (whose bisection this is)
};

// One cell on one night, as the matrix outputs show it and later nights read it back.
struct CellReport {
  std::string id;
  Assignment assignment;                       // axis values as written in the spec
  std::map<std::string, std::string> resolved; // axis -> value used tonight ("latest" resolved)
  std::string state_hash;                      // sha256 of the cell's state and the recipe
  int runs = 0;
  int failed = 0;
  int skipped = 0;
  std::optional<double> median;
  std::string first_error;                     // the first failed run's error class
  CellJudgement judgement;
  std::vector<CellNight> trend;                // earlier nights then tonight, oldest first
  CellBisect bisect;
};

// One night of the matrix: every cell, judged.
struct MatrixNight {
  std::string name;
  std::string date;
  std::string metric;
  std::string unit;          // the metric's unit from the recipe ("tok/s"); "" when it names none
  bool higher_is_better = true;
  double threshold = 0.2;
  int min_history = 1;
  std::vector<CellReport> cells;
};

// Return the night as matrix.json (format 1). Deterministic: the same night gives the same bytes.
nlohmann::json night_to_json(const MatrixNight& night);

// Return the cells' nights recorded in a matrix.json document, keyed by cell id; the document names
// `source` in messages. Throw Error (bad_input) when it is not a matrix.json of format 1.
std::map<std::string, CellNight> nights_from_json(const nlohmann::json& doc, const std::string& source);

// Return the number of cells that turned red tonight.
int count_new_red(const MatrixNight& night);

// Return the one-line summary printed on stdout: counts per status and the new red cells.
std::string summary_line(const MatrixNight& night);

}  // namespace envbisect::matrix
