#include "app/run/refine/rate_probes.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "app/run/refine/probes.hpp"
#include "store/journal.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

// One cell of the grid: a thread count with one cache variant.
struct Cell {
  std::string knob;
  std::int64_t value = 0;
  std::string caches;  // "inductor:cold", or "" without caches
  std::size_t row = 0;
  Candidate candidate;
  std::size_t failures = 0;
  std::size_t runs = 0;
  double seconds = 0.0;  // mean wall time of its runs (0 before any)
  stats::RateCall call = stats::RateCall::undecided;
};

std::string caches_of(const EnvState& state) {
  std::vector<std::string> parts;
  for (const auto& [name, cache] : state.caches) {
    parts.push_back(name + ":" + cache.state);
  }
  return join(parts, ",");
}

// Read the cell's runs again: failures, runs, mean wall time and the sequential test's call.
void reread(Cell& cell, const RateProbeContext& context) {
  const stats::SampleSet set = context.samples(cell.candidate);
  cell.runs = set.size();
  cell.failures = set.failure_count();
  const std::vector<RunResult>& attempts = context.evaluator.attempts(cell.candidate);
  double total = 0.0;
  for (std::size_t i = 0; i < std::min(attempts.size(), cell.runs); ++i) {
    total += attempts[i].wall_seconds;
  }
  cell.seconds = cell.runs == 0 ? 0.0 : total / static_cast<double>(cell.runs);
  const stats::RateHypotheses& h = context.hypotheses;
  cell.call = h.usable ? stats::sprt_rate(cell.failures, cell.runs, h.p_low, h.p_high, context.alpha, context.alpha)
                       : stats::RateCall::undecided;
}

std::string call_text(stats::RateCall call) {
  return call == stats::RateCall::high ? "bites" : call == stats::RateCall::low ? "clean" : "undecided";
}

// Return the index (within `row`) of the first count that bites where every lower count tested clean
// and every higher one biting; -1 where the evidence shows no such step.
int supported_step(const std::vector<const Cell*>& row) {
  for (std::size_t first = 1; first < row.size(); ++first) {
    bool step = true;
    for (std::size_t i = 0; i < row.size(); ++i) {
      step = step && row[i]->call == (i < first ? stats::RateCall::low : stats::RateCall::high);
    }
    if (step) {
      return static_cast<int>(first);
    }
  }
  return -1;
}

// Return the clean runs the sequential test needs to call a cell clean (at most 12).
std::size_t clean_runs_needed(const RateProbeContext& context) {
  const stats::RateHypotheses& h = context.hypotheses;
  for (std::size_t runs = 1; h.usable && runs <= 12; ++runs) {
    if (stats::sprt_rate(0, runs, h.p_low, h.p_high, context.alpha, context.alpha) == stats::RateCall::low) {
      return runs;
    }
  }
  return 0;
}

// Measure the cells round by round until each is decided or at its cap, or the budget says no. A cell
// that has not failed yet may run until the test can call it clean: without that no row could show a
// step (clean cells below biting ones), however deterministic the race.
void measure_cells(std::vector<Cell>& cells, const RateProbeContext& context) {
  const double fallback = context.evaluator.mean_run_seconds();
  const std::size_t cap = static_cast<std::size_t>(context.cell_runs);
  const std::size_t clean_cap = std::max(cap, clean_runs_needed(context));
  for (;;) {
    std::vector<Cell*> open;
    for (Cell& cell : cells) {
      if (cell.call == stats::RateCall::undecided && cell.runs < (cell.failures == 0 ? clean_cap : cap)) {
        open.push_back(&cell);
      }
    }
    if (open.empty()) {
      return;
    }
    // The fewest runs first, then the cheapest: what a GPU-second buys most of.
    std::stable_sort(open.begin(), open.end(), [&](const Cell* a, const Cell* b) {
      const double cost_a = a->seconds > 0 ? a->seconds : fallback;
      const double cost_b = b->seconds > 0 ? b->seconds : fallback;
      return a->runs != b->runs ? a->runs < b->runs : cost_a < cost_b;
    });
    for (Cell* cell : open) {
      if (!context.measure(cell->candidate, static_cast<int>(cell->runs) + 1)) {
        return;  // the budget is spent: the cells keep what they have
      }
      reread(*cell, context);
    }
  }
}

}  // namespace

json probe_rates(const RateProbeContext& context, const DeltaSet& cause, const EnvState& cause_state) {
  json probes = json::array();
  const std::vector<EnvState> variants = cache_variants(cause_state);
  std::vector<Cell> cells;
  std::vector<std::pair<std::string, std::string>> rows;  // knob, caches
  for (const auto& [knob, count] : cause_state.threads) {
    for (const EnvState& variant : variants) {
      rows.emplace_back(knob, caches_of(variant));
      for (std::int64_t value : probe_values(count)) {
        EnvState state = variant;
        state.threads[knob] = value;
        Cell cell{knob, value, rows.back().second, rows.size() - 1, context.evaluator.candidate_for(state, cause)};
        reread(cell, context);  // runs made earlier (anchors, the search, the verification) count
        cells.push_back(std::move(cell));
      }
    }
  }
  if (cells.empty()) {
    return probes;
  }
  std::cout << "when it bites: failure rates with the cause applied, " << cells.size() << " cells, up to "
            << context.cell_runs << " runs each (a cell stops once clearly clean or biting)\n"
            << std::flush;
  measure_cells(cells, context);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<const Cell*> row;
    for (const Cell& cell : cells) {
      if (cell.row == r) {
        row.push_back(&cell);
      }
    }
    const auto& [knob, caches] = rows[r];
    std::cout << "  threads/" << knob << (caches.empty() ? "" : ", " + caches) << ":\n";
    for (const Cell* cell : row) {
      const stats::RateInterval interval = stats::rate_interval(cell->failures, cell->runs);
      const std::string words = cell->runs == 0 ? "not measured" : stats::rate_words(interval);
      std::cout << "    " << cell->value << ": " << words << " (" << call_text(cell->call) << ")\n";
      json probe = {{"type", "probe"}, {"knob", "threads/" + knob}, {"value", cell->value}, {"cache", caches},
                    {"verdict", call_text(cell->call) + ": " + words}, {"call", call_text(cell->call)},
                    {"failures", cell->failures}, {"runs", cell->runs}, {"rate", interval.rate},
                    {"low", interval.low}, {"high", interval.high}, {"median", nullptr},
                    {"measured", cell->runs > 0}, {"candidate", cell->candidate.hash}};
      context.journal.append(probe);
      probes.push_back(probe);
    }
    const int step = supported_step(row);
    json bites = {{"type", "bites"}, {"knob", "threads/" + knob}, {"cache", caches}};
    if (step >= 0) {
      bites["first_bad"] = row[static_cast<std::size_t>(step)]->value;
      bites["why"] = "every lower count tested clean, every higher one biting";
      std::cout << "    first bad count " << row[static_cast<std::size_t>(step)]->value << " (last clean "
                << row[static_cast<std::size_t>(step) - 1]->value << ")\n";
    } else {
      bites["first_bad"] = nullptr;
      bites["why"] = "no step shown: the rates above are the answer";
      std::cout << "    no first bad count shown: the rates are the answer\n";
    }
    context.journal.append(bites);
  }
  std::cout << std::flush;
  return probes;
}

}  // namespace envbisect
