#include "app/matrix/run_matrix.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/inputs/load.hpp"
#include "app/matrix/measure.hpp"
#include "app/run/run.hpp"
#include "core/delta.hpp"
#include "core/json_input.hpp"
#include "core/version.hpp"
#include "env/wheel_source.hpp"
#include "matrix/cells.hpp"
#include "matrix/history.hpp"
#include "matrix/night.hpp"
#include "matrix/render.hpp"
#include "matrix/spec.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string today_utc() {
  std::time_t now = std::time(nullptr);
  char stamp[16];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d", std::gmtime(&now));
  return stamp;
}

bool is_date(const std::string& text) { return std::regex_match(text, std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}")); }

// Return the newest version of `name` in the wheel folders (PEP 440 order), or "" when there is none.
std::string latest_version(const std::vector<std::string>& wheel_dirs, const std::string& name) {
  std::optional<Version> best;
  std::string text;
  for (const Distribution& dist : list_distributions(WheelSources{wheel_dirs, {}}, name)) {
    std::optional<Version> version = Version::parse(dist.version);
    if (version && (!best || *best < *version)) {
      best = version;
      text = dist.version;
    }
  }
  return text;
}

// Load and check the spec, the base state, the recipe and every cell; collect every problem first.
MatrixInputs load_matrix_inputs(const MatrixOptions& options) {
  MatrixInputs in;
  std::vector<std::string> problems;
  if (!options.date.empty() && !is_date(options.date)) {
    problems.push_back("--date " + options.date + ": expected YYYY-MM-DD");
  }
  if (options.jobs < 0) {
    problems.push_back("--jobs " + std::to_string(options.jobs) + ": must be 1 or more");
  }
  if (options.executor != "local" && options.executor != "slurm") {
    problems.push_back("--executor " + options.executor + ": matrix cells are measured locally or as a Slurm job array (local, slurm)");
  }
  if (options.cell >= 0 && options.executor != "local") {
    problems.push_back("--cell " + std::to_string(options.cell) + ": a cell is measured here (it is what a Slurm array task runs); drop --executor " + options.executor);
  }
  if (options.cell < -1) {
    problems.push_back("--cell " + std::to_string(options.cell) + ": expected a cell index, 0 or more");
  }
  in.spec = matrix::parse_matrix_spec(read_input_file(options.spec_path), options.spec_path);
  std::string spec_dir = parent_dir(options.spec_path);
  std::string base_path = absolute_path(in.spec.base_path, spec_dir);
  in.recipe_path = absolute_path(in.spec.recipe_path, spec_dir);
  for (const std::string& dir : in.spec.wheel_dirs) {
    in.wheel_dirs.push_back(absolute_path(dir, spec_dir));
    if (!fs::is_directory(in.wheel_dirs.back())) {
      problems.push_back(options.spec_path + ": /wheels: " + in.wheel_dirs.back() + " is not a folder");
    }
  }
  in.store_dir = in.spec.store_dir.empty() ? "" : absolute_path(in.spec.store_dir, spec_dir);
  auto attempt = [&](auto load) {
    try {
      load();
    } catch (const Error& error) {
      problems.push_back(error.what());
    }
  };
  attempt([&] { in.base = load_state_file(base_path); });
  attempt([&] { in.recipe = load_recipe_file(in.recipe_path); });
  if (!problems.empty()) {
    throw Error(join(problems, "\n"), ExitCode::bad_input);
  }
  in.recipe_hash = sha256_hex(read_file(in.recipe_path));
  in.repeats = in.spec.repeats > 0 ? in.spec.repeats : in.recipe.repeats;
  in.cells = matrix::expand_cells(in.spec);
  if (in.cells.empty()) {
    throw Error(options.spec_path + ": /exclude: every cell of the matrix is excluded", ExitCode::bad_input);
  }
  if (options.cell >= static_cast<int>(in.cells.size())) {
    problems.push_back("--cell " + std::to_string(options.cell) + ": " + options.spec_path + " has " +
                       std::to_string(in.cells.size()) + " cells (0-" + std::to_string(in.cells.size() - 1) + ")");
  }
  // "latest" means the newest version in tonight's wheel folders.
  std::map<std::string, std::string> latest;
  for (const std::string& name : matrix::latest_packages(in.cells)) {
    std::string version = latest_version(in.wheel_dirs, name);
    if (version.empty()) {
      problems.push_back(options.spec_path + ": /axes/packages." + name + ": \"latest\" but no wheel of '" + name +
                         "' in " + join(in.wheel_dirs, ", "));
    } else {
      latest[name] = version;
    }
  }
  for (const matrix::Cell& cell : in.cells) {
    attempt([&] {
      EnvState state = matrix::cell_state(in.base, cell, latest);
      std::string where = options.spec_path + " (cell " + cell.id + ")";
      check_run_inputs(state, where, state, where, in.recipe, in.recipe_path, in.wheel_dirs);
      json identity = {{"state", state_to_json(state)}, {"recipe", in.recipe_hash}, {"repeats", in.repeats}};
      in.state_hashes.push_back(sha256_hex(identity.dump()));
      in.states.push_back(std::move(state));
    });
  }
  if (!problems.empty()) {
    throw Error(join(problems, "\n"), ExitCode::bad_input);
  }
  return in;
}

// Return every earlier night's cells from DIR/<date>/matrix.json, oldest night first, keyed by cell id.
std::map<std::string, std::vector<matrix::CellNight>> load_history(const std::string& results_dir, const std::string& date) {
  std::map<std::string, std::vector<matrix::CellNight>> history;
  if (!fs::is_directory(results_dir)) {
    return history;
  }
  std::vector<std::string> nights;
  for (const fs::directory_entry& entry : fs::directory_iterator(results_dir)) {
    std::string name = entry.path().filename().string();
    if (entry.is_directory() && is_date(name) && name < date && path_exists(entry.path().string() + "/matrix.json")) {
      nights.push_back(name);
    }
  }
  std::sort(nights.begin(), nights.end());
  for (const std::string& night : nights) {
    std::string path = results_dir + "/" + night + "/matrix.json";
    try {
      for (auto& [id, cell] : matrix::nights_from_json(parse_json_text(read_file(path), path), path)) {
        history[id].push_back(cell);
      }
    } catch (const Error& error) {
      // One damaged night must not stop every later one; its cells just lack that night.
      spdlog::warn("{}; that night is left out of the history", error.what());
    }
  }
  return history;
}

// Read what an auto-bisect's result.json says into the cell's bisect entry.
void read_bisect_result(const std::string& result_path, matrix::CellBisect& bisect) {
  json result = parse_json_text(read_file(result_path), result_path);
  bisect.status = result.value("found", false) ? "found" : "not_found";
  bisect.note = result.value("note", "");
  for (const json& delta : result.value("cause", json::array())) {
    auto text = [](const json& value) { return value.is_string() ? value.get<std::string>() : std::string("(absent)"); };
    bisect.cause.push_back(delta.value("dimension", "") + "/" + delta.value("name", "") + " " + text(delta["good"]) +
                           " -> " + text(delta["bad"]));
  }
  for (const json& refinement : result.value("refinements", json::array())) {
    bisect.refined.push_back("inside " + refinement["delta"].value("dimension", "") + "/" +
                             refinement["delta"].value("name", "") + ": first bad " +
                             refinement.value("first_bad", "") + ", last good " + refinement.value("last_good", ""));
  }
}

// Bisect a new red cell against its last green night's state, in CELL/bisect; reuse a finished one.
matrix::CellBisect bisect_cell(const MatrixInputs& in, std::size_t index, const std::string& results_dir,
                               const std::string& night_dir, const std::string& last_green) {
  matrix::CellBisect bisect;
  bisect.last_green_date = last_green;
  const std::string& id = in.cells[index].id;
  std::string cell_dir = night_dir + "/cells/" + id;
  std::string good_path = results_dir + "/" + last_green + "/cells/" + id + "/state.json";
  std::string bad_path = cell_dir + "/state.json";
  std::string out_dir = cell_dir + "/bisect";
  if (!path_exists(good_path)) {
    bisect.status = "not_possible";
    bisect.note = good_path + " is missing: the last green night's state is gone";
    return bisect;
  }
  if (diff_states(load_state_file(good_path), load_state_file(bad_path)).empty()) {
    bisect.status = "not_possible";
    bisect.note = "same environment as on " + last_green + ": the machine, the benchmark or the recipe changed";
    return bisect;
  }
  if (path_exists(out_dir + "/run.json")) {
    // A bisection from an earlier run tonight counts only if both ends are still the same states (the
    // wheelhouse may have moved on since, making tonight's state another one).
    json run_doc = json::parse(read_file(out_dir + "/run.json"), nullptr, false);
    if (run_doc.is_discarded() || run_doc.value("good_sha256", "") != sha256_hex(read_file(good_path)) ||
        run_doc.value("bad_sha256", "") != sha256_hex(read_file(bad_path))) {
      remove_tree(out_dir);
    }
  }
  if (!path_exists(out_dir + "/result.json")) {
    std::cerr << "envbisect: matrix: " << id << " turned red; bisecting against " << last_green << " (log: " << cell_dir
              << "/bisect.log)\n";
    // The bisection's own output goes to its log; the matrix prints one line.
    std::ofstream log(cell_dir + "/bisect.log", std::ios::app);
    std::streambuf* saved = std::cout.rdbuf(log.rdbuf());
    try {
      if (path_exists(out_dir + "/journal.jsonl")) {
        run_resume(out_dir);
      } else {
        RunOptions run;
        run.good_path = good_path;
        run.bad_path = bad_path;
        run.recipe_path = in.recipe_path;
        run.wheel_dirs = in.wheel_dirs;
        run.store_dir = in.store_dir;
        run.out_dir = out_dir;
        run.repeats = in.spec.repeats;
        run.no_probe = true;  // the cell fixes its thread counts; the matrix asks what changed, not where it bites
        run_run(run);
      }
    } catch (const Error& error) {
      std::cout.rdbuf(saved);
      if (error.code() == ExitCode::interrupted) {
        throw;
      }
      bisect.status = "not_possible";
      bisect.note = error.what();
      return bisect;
    }
    std::cout.rdbuf(saved);
  }
  if (!path_exists(out_dir + "/result.json")) {
    bisect.status = "not_possible";
    bisect.note = "the bisection wrote no result; see cells/" + id + "/bisect.log";
    return bisect;
  }
  read_bisect_result(out_dir + "/result.json", bisect);
  bisect.report = "cells/" + id + "/bisect/report.html";
  return bisect;
}

// Return the bisection made on `night` for the cell (the night it turned red), its report path made
// relative to a sibling night's folder; an empty entry when there was none.
matrix::CellBisect earlier_bisect(const std::string& results_dir, const std::string& night, const std::string& id) {
  matrix::CellBisect bisect;
  std::string path = results_dir + "/" + night + "/matrix.json";
  json doc = path_exists(path) ? json::parse(read_file(path), nullptr, false) : json();
  if (!doc.is_object() || !doc.contains("cells") || !doc["cells"].is_array()) {
    return bisect;
  }
  for (const json& item : doc["cells"]) {
    if (item.value("id", "") != id || !item.contains("bisect") || !item["bisect"].is_object()) {
      continue;
    }
    const json& found = item["bisect"];
    bisect.status = found.value("status", "");
    bisect.cause = found.value("cause", std::vector<std::string>{});
    bisect.refined = found.value("refined", std::vector<std::string>{});
    bisect.last_green_date = found.value("last_green", "");
    std::string report = found.value("report", "");
    bisect.report = report.empty() ? "" : "../" + night + "/" + report;
    bisect.note = "bisected on " + night + (found.value("note", "").empty() ? "" : "; " + found.value("note", ""));
  }
  return bisect;
}

}  // namespace

ExitCode run_matrix(const MatrixOptions& options) {
  // Validate the spec, the base state, the recipe and every cell first; nothing is written before.
  MatrixInputs in = load_matrix_inputs(options);
  std::string date = options.date.empty() ? today_utc() : options.date;
  std::string results_dir = absolute_path(options.results_dir, ".");
  std::string night_dir = results_dir + "/" + date;
  if (options.cell >= 0) {
    // One Slurm array task: measure this cell into its folder; the controller judges the night.
    const std::size_t index = static_cast<std::size_t>(options.cell);
    const std::string cell_dir = cell_dir_of(in, night_dir, index);
    // The controller wrote the state it submitted; a wheel landing since would make "latest" another.
    const std::string submitted = cell_dir + "/state.json";
    if (path_exists(submitted) && read_file(submitted) != state_to_json(in.states[index]).dump(2) + "\n") {
      throw Error("cell " + in.cells[index].id + ": " + submitted + " (the state the night submitted) differs from " +
                      "this task's (a wheel folder changed since?); rerun the night",
                  ExitCode::environment);
    }
    CellMeasurement cell = measure_cell(in, index, cell_dir);
    std::cout << "cell " << in.cells[index].id << ": " << cell.runs << " runs, " << cell.failed << " failed, "
              << cell.skipped << " skipped, median " << (cell.median ? std::to_string(*cell.median) : "none") << "\n";
    return ExitCode::ok;
  }
  std::map<std::string, std::vector<matrix::CellNight>> history = load_history(results_dir, date);
  // At this point every input is valid.

  make_dirs(night_dir + "/cells");
  std::vector<CellMeasurement> measured = options.executor == "slurm"
                                       ? measure_cells_slurm(in, options, results_dir, date, night_dir)
                                       : measure_cells(in, night_dir, std::max(1, options.jobs));
  // At this point every cell has its runs for tonight, measured now or earlier tonight.

  // Judge each cell against its own history, then bisect the ones that turned red.
  matrix::MatrixNight night;
  night.name = in.spec.name.empty() ? fs::path(options.spec_path).stem().string() : in.spec.name;
  night.date = date;
  night.metric = in.recipe.metric;
  night.unit = in.recipe.unit;
  night.higher_is_better = in.recipe.higher_is_better;
  night.threshold = in.spec.threshold;
  night.min_history = in.spec.min_history;
  matrix::JudgePolicy policy{in.recipe.higher_is_better, in.spec.threshold, in.spec.min_history, in.spec.history_window};
  for (std::size_t i = 0; i < in.cells.size(); ++i) {
    const matrix::Cell& cell = in.cells[i];
    const std::vector<matrix::CellNight>& past = history[cell.id];
    matrix::CellReport report;
    report.id = cell.id;
    report.assignment = cell.assignment;
    for (const auto& [name, value] : cell.assignment) {
      std::string key = name.substr(name.find('.') + 1);
      report.resolved[name] = starts_with(name, "packages.") ? in.states[i].packages.at(normalize_package_name(key)).version
                                                              : value;
    }
    report.state_hash = in.state_hashes[i];
    report.runs = measured[i].runs;
    report.failed = measured[i].failed;
    report.skipped = measured[i].skipped;
    report.median = measured[i].median;
    report.first_error = measured[i].first_error;
    report.judgement = matrix::judge_cell(date, report.runs, report.failed, report.skipped, report.median, past, policy);
    report.trend = past;
    report.trend.push_back({date, report.judgement.status, report.median, report.runs, report.failed, report.skipped});
    if (report.judgement.status == matrix::CellStatus::red && !report.judgement.new_red &&
        report.judgement.red_since && *report.judgement.red_since != date) {
      report.bisect = earlier_bisect(results_dir, *report.judgement.red_since, cell.id);
    }
    if (report.judgement.new_red) {
      if (!report.judgement.last_green) {
        report.bisect.status = "not_possible";
        report.bisect.note = "no earlier passing night of this cell to bisect against";
      } else {
        report.bisect = bisect_cell(in, i, results_dir, night_dir, *report.judgement.last_green);
      }
    }
    night.cells.push_back(report);
  }

  // Write the night's outputs; unchanged content leaves the files untouched.
  write_if_changed(night_dir + "/matrix.json", matrix::night_to_json(night).dump(2) + "\n");
  write_if_changed(night_dir + "/matrix.md", matrix::render_matrix_markdown(night));
  write_if_changed(night_dir + "/matrix.html", matrix::render_matrix_html(night));
  std::cout << matrix::summary_line(night) << "; " << night_dir << "/matrix.html\n";
  return matrix::count_new_red(night) > 0 ? ExitCode::inconclusive : ExitCode::ok;
}

}  // namespace envbisect
