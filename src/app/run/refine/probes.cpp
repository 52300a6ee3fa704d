#include "app/run/refine/probes.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>

#include "store/journal.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

// One row of the grid: a thread knob's counts with the caches of one variant.
class ProbeRow {
public:
  ProbeRow(const StageContext& context, const DeltaSet& cause, const EnvState& variant, const std::string& knob,
           std::vector<std::int64_t> values)
      : m_context(context), m_cause(cause), m_variant(variant), m_knob(knob), m_values(std::move(values)) {
    std::vector<std::string> cache_states;
    for (const auto& [name, cache] : variant.caches) {
      cache_states.push_back(name + ":" + cache.state);
    }
    m_caches = join(cache_states, ",");
  }

  // Decide the cell at `index` (once; a second call returns the first verdict).
  Verdict decide(std::size_t index) {
    if (auto found = m_measured.find(index); found != m_measured.end()) {
      return found->second.first;
    }
    if (m_unanswered || (m_context.stopped && m_context.stopped())) {
      m_unanswered = true;  // the budget was spent, or the run left one-run mode: nothing more is asked
      return Verdict::skip;
    }
    EnvState state = m_variant;
    state.threads[m_knob] = m_values[index];
    const std::string label = "threads/" + m_knob + " = " + std::to_string(m_values[index]) +
                              (m_caches.empty() ? "" : ", " + m_caches);
    const std::size_t before = m_context.decisions.size();
    const Verdict verdict = m_context.decide(m_context.evaluator.candidate_for(state, m_cause), "probe", label);
    if (m_context.decisions.size() == before) {
      m_unanswered = true;  // the budget was spent: nothing was measured or decided
      return verdict;
    }
    // The median the decision saw (anchor runs added after it do not count).
    m_measured[index] = {verdict, m_context.decisions.back()["median"]};
    return verdict;
  }

  // Decide every cell not decided yet.
  void decide_all() {
    for (std::size_t index = 0; index < m_values.size() && !m_unanswered; ++index) {
      decide(index);
    }
  }

  // Mark the cells strictly between `from` and `to` as inferred `verdict` (not measured).
  void infer(std::size_t from, std::size_t to, Verdict verdict) {
    for (std::size_t index = from + 1; index < to; ++index) {
      if (m_measured.find(index) == m_measured.end()) {
        m_inferred[index] = verdict;
      }
    }
  }

  // Journal and append to `probes` one entry per measured or inferred cell, in count order.
  void record(json& probes) const {
    for (std::size_t index = 0; index < m_values.size(); ++index) {
      json probe = {{"type", "probe"}, {"knob", "threads/" + m_knob}, {"value", m_values[index]}, {"cache", m_caches}};
      if (auto found = m_measured.find(index); found != m_measured.end()) {
        probe["verdict"] = to_string(found->second.first);
        probe["median"] = found->second.second;
        probe["measured"] = true;
      } else if (auto inferred = m_inferred.find(index); inferred != m_inferred.end()) {
        probe["verdict"] = "inferred " + std::string(to_string(inferred->second));
        probe["median"] = nullptr;
        probe["measured"] = false;
      } else {
        continue;
      }
      m_context.journal.append(probe);
      probes.push_back(probe);
    }
  }

  // Return whether a cell went unanswered (the budget was spent): nothing more is asked of the row.
  bool unanswered() const { return m_unanswered; }

  const std::vector<std::int64_t>& values() const { return m_values; }
  const std::string& caches() const { return m_caches; }

private:
  const StageContext& m_context;
  const DeltaSet& m_cause;
  const EnvState& m_variant;
  std::string m_knob;
  std::vector<std::int64_t> m_values;
  std::string m_caches;
  std::map<std::size_t, std::pair<Verdict, json>> m_measured;
  std::map<std::size_t, Verdict> m_inferred;
  bool m_unanswered = false;
};

// The first bad index of a row, bisected between a good first and a bad last count; nullopt (and
// every cell measured) when an end or a middle cell is neither as assumed.
std::optional<std::size_t> bisect_row(ProbeRow& row) {
  const std::size_t last = row.values().size() - 1;
  const Verdict low = row.decide(0);
  const Verdict high = row.decide(last);
  if (row.unanswered()) {
    return std::nullopt;
  }
  if (low != Verdict::good || high != Verdict::bad) {
    std::cout << "  not good at " << row.values()[0] << " and bad at " << row.values()[last]
              << ": not the monotone shape assumed; every count is measured\n";
    row.decide_all();
    return std::nullopt;
  }
  std::size_t good = 0;
  std::size_t bad = last;
  while (bad - good > 1) {
    const std::size_t middle = good + (bad - good) / 2;
    const Verdict verdict = row.decide(middle);
    if (row.unanswered()) {
      return std::nullopt;
    }
    if (verdict == Verdict::good) {
      row.infer(good, middle, Verdict::good);
      good = middle;
    } else if (verdict == Verdict::bad) {
      row.infer(middle, bad, Verdict::bad);
      bad = middle;
    } else {
      std::cout << "  " << to_string(verdict) << " at " << row.values()[middle]
                << ": not the monotone shape assumed; every count is measured\n";
      row.decide_all();
      return std::nullopt;
    }
  }
  std::cout << "  first bad threads count: " << row.values()[bad] << " (last good " << row.values()[good] << ")\n";
  return bad;
}


std::string range_text(const std::vector<std::int64_t>& values) {
  const std::int64_t top = values.back();
  return top <= 8 ? "1.." + std::to_string(top) : "1..8, doublings, " + std::to_string(top);
}

}  // namespace

// The thread counts probed for a knob whose state has `count`: every count up to 8, then doublings
// and the top (max(4, count)): 10^7 threads is 30 probes, not 10^7.
std::vector<std::int64_t> probe_values(std::int64_t count) {
  const std::int64_t top = std::max<std::int64_t>(4, count);
  std::vector<std::int64_t> values;
  for (std::int64_t value = 1; value <= top; value = value < 8 ? value + 1 : (value > top / 2 ? top : value * 2)) {
    values.push_back(value);
    if (value == top) {
      break;
    }
  }
  return values;
}

// The variants the probes compare: the caches as the cause has them, then each warm/cold cache flipped.
std::vector<EnvState> cache_variants(const EnvState& cause_state) {
  std::vector<EnvState> variants = {cause_state};
  for (const auto& [name, cache] : cause_state.caches) {
    if (cache.state == "warm" || cache.state == "cold") {
      EnvState flipped = cause_state;
      flipped.caches[name].state = cache.state == "warm" ? "cold" : "warm";
      variants.push_back(flipped);
    }
  }
  return variants;
}

ProbeMode probe_mode_from(const std::string& name) {
  if (name == "boundary" || name.empty()) {
    return ProbeMode::boundary;
  }
  if (name == "full") {
    return ProbeMode::full;
  }
  throw Error("--probe: expected boundary or full, not '" + name + "'", ExitCode::bad_input);
}

nlohmann::json probe_modifiers(const StageContext& context, const DeltaSet& cause, const EnvState& cause_state,
                               ProbeMode mode) {
  json probes = json::array();
  const std::vector<EnvState> variants = cache_variants(cause_state);
  for (const auto& [knob, count] : cause_state.threads) {
    const std::vector<std::int64_t> values = probe_values(count);
    // The boundary of the caches as the cause has them; the flipped caches are decided only there.
    std::optional<std::size_t> first_bad;
    for (std::size_t v = 0; v < variants.size(); ++v) {
      ProbeRow row(context, cause, variants[v], knob, values);
      const std::string caches = row.caches().empty() ? "" : ", caches " + row.caches();
      if (mode == ProbeMode::full || (v > 0 && !first_bad)) {
        std::cout << "probe threads/" << knob << " " << range_text(values) << " with the cause applied" << caches
                  << ":\n";
        row.decide_all();
      } else if (v == 0) {
        std::cout << "probe threads/" << knob << " " << range_text(values) << " with the cause applied" << caches
                  << ": the first bad count by bisection (assumed monotone: good at 1, bad at " << values.back()
                  << ")\n";
        first_bad = bisect_row(row);
      } else {
        std::cout << "probe threads/" << knob << " at the boundary (" << values[*first_bad - 1] << ", "
                  << values[*first_bad] << ") with the cause applied" << caches << ":\n";
        row.decide(*first_bad - 1);
        row.decide(*first_bad);
      }
      row.record(probes);
      if (row.unanswered()) {
        return probes;  // the budget ran out, or the run left one-run mode: the rest would not count
      }
    }
  }
  return probes;
}

}  // namespace envbisect
