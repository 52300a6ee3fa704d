#include "report/answer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/report_flags.hpp"
#include "report/report_text.hpp"
#include "stats/effect.hpp"
#include "stats/quantity.hpp"
#include "util/strings.hpp"
#include "util/words.hpp"

namespace envbisect::report {

using nlohmann::json;

namespace {

// Return "good -> bad" for a change as text ("2.11.0+cu128 -> 2.11.0+cu130", "(absent) -> 0.5.0").
std::string change_values(const Change& change) {
  return shown_side(change.good, change.good_ref) + " -> " + shown_side(change.bad, change.bad_ref);
}

// Three significant digits, as a factor is quoted ("5.76", "10.4", "1.3").
std::string sig3(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// The word for a change of `ratio` (bad/good) away from 1: "slower", "faster", "worse" or "better".
std::string direction_word(double ratio, stats::Better better, const std::string& unit) {
  const std::string words = stats::comparison_words(1.0, ratio, better, unit);  // "3.33x slower"
  return words.substr(words.rfind(' ') + 1);
}

std::string percent_range(double low, double high) {
  char text[64];
  if (std::lround(low * 100) == std::lround(high * 100)) {
    std::snprintf(text, sizeof text, "CV %.0f %%", low * 100);
  } else {
    std::snprintf(text, sizeof text, "CV %.0f–%.0f %%", low * 100, high * 100);
  }
  return text;
}

std::string effect_sentence(const ReportModel& model, const json& effect) {
  std::string out;
  const std::string of =
      effect.value("of", std::string("cause")) == "cause" ? "" : " (the anchors: the bad state against the good)";
  if (effect.contains("failures") && effect["failures"].is_object()) {
    const json& f = effect["failures"];
    out = "fails " + std::to_string(f.value("to", 0)) + " of " + std::to_string(f.value("to_runs", 0)) +
          " runs (good: " + std::to_string(f.value("from", 0)) + " of " + std::to_string(f.value("from_runs", 0)) + ")";
  }
  if (effect.contains("ratio") && effect["ratio"].is_number()) {
    std::optional<double> low;
    std::optional<double> high;
    if (effect.contains("low") && effect["low"].is_number() && effect.contains("high") && effect["high"].is_number()) {
      low = effect["low"].get<double>();
      high = effect["high"].get<double>();
    }
    const std::string unit = metric_unit(model);
    const std::string metric = model.result ? model.result->value("metric", std::string()) : std::string();
    out += (out.empty() ? "" : "; the runs that finished: ") +
           factor_words(effect["ratio"].get<double>(), low, high, better_of(model), unit) + " in " +
           (unit.empty() ? metric : unit) + ", " + std::to_string(effect.value("from_runs", 0)) + " good runs vs " +
           std::to_string(effect.value("to_runs", 0)) + (of.empty() ? " with the cause" : " bad runs");
  }
  return out + of;
}

std::string verification_of(const ReportModel& model, const VerdictSummary& summary) {
  if (summary.have_result && !summary.found && !summary.cause.empty()) {
    return "none yet: the differences above are what the search isolated so far, not verified";
  }
  if (!summary.have_result || !summary.found) {
    return "";
  }
  if (summary.rereads_anchors) {
    return "the cause is every difference: good + cause is the bad anchor and bad − cause the good one, so the "
           "verification re-read the anchors";
  }
  auto side = [&](const char* what, bool ok, const Decision* decision) {
    std::string out = std::string(what) + (ok ? " verified" : " NOT verified");
    if (decision != nullptr) {
      out += " (decision #" + std::to_string(decision->n) + ", " + counted(decision->runs, "run") +
             (decision->median ? ", median " + stats::with_unit(*decision->median, model.recipe.unit) : "") + ")";
    }
    return out;
  };
  return side("good + cause → bad", summary.forward, summary.forward_decision) + "; " +
         side("bad − cause → good", summary.reverse, summary.reverse_decision);
}

// "threads/drafter_threads (inductor:cold): good at 1; bad at 2, 4; inferred bad at 3", one per knob and cache.
std::vector<std::string> bites_of(const ReportModel& model) {
  std::vector<std::string> out;
  for (const Refinement& refinement : model.refinements) {
    out.push_back("inside " + refinement.delta.dimension + "/" + refinement.delta.name + " (" + refinement.kind + "): " +
                  (refinement.found ? "first bad " + refinement.first_bad + ", last good " + refinement.last_good +
                                          (refinement.note.empty() ? "" : "; " + refinement.note)
                                    : "unresolved; " + refinement.note));
  }
  std::vector<std::string> keys;
  std::map<std::string, std::vector<std::pair<long long, std::string>>> cells;
  for (const Probe& probe : model.probes) {
    const std::string key = probe.knob + (probe.cache.empty() ? "" : " (" + probe.cache + ")");
    if (cells.find(key) == cells.end()) {
      keys.push_back(key);
    }
    cells[key].emplace_back(probe.value, probe.verdict);
  }
  for (const std::string& key : keys) {
    std::vector<std::pair<long long, std::string>> row = cells[key];
    std::sort(row.begin(), row.end());
    // Verdicts in the order their first value comes, each with its values.
    std::vector<std::string> verdicts;
    std::map<std::string, std::vector<std::string>> values;
    for (const auto& [value, verdict] : row) {
      if (values.find(verdict) == values.end()) {
        verdicts.push_back(verdict);
      }
      values[verdict].push_back(std::to_string(value));
    }
    std::vector<std::string> parts;
    for (const std::string& verdict : verdicts) {
      parts.push_back(verdict + " at " + join(values[verdict], ", "));
    }
    out.push_back(key + ": " + join(parts, "; "));
  }
  return out;
}

std::string noise_of(const ReportModel& model) {
  int noisy = 0;
  double low = 0;
  double high = 0;
  for (const Decision& decision : model.decisions) {
    if (decision.noisy && decision.cv) {
      low = noisy == 0 ? *decision.cv : std::min(low, *decision.cv);
      high = noisy == 0 ? *decision.cv : std::max(high, *decision.cv);
      ++noisy;
    }
  }
  std::vector<std::string> anchors;
  if (model.preflight) {
    for (const auto& [name, cv] : {std::pair{"good", model.preflight->good_cv}, std::pair{"bad", model.preflight->bad_cv}}) {
      if (cv && std::isfinite(*cv) && *cv > stats::k_noisy_cv) {
        anchors.push_back(std::string(name) + " " + percent_range(*cv, *cv));
      }
    }
  }
  if (noisy == 0 && anchors.empty()) {
    return "";
  }
  std::string out;
  if (noisy > 0) {
    out = std::to_string(noisy) + " of " + counted(static_cast<long long>(model.decisions.size()), "decision") +
          " noisy, " + percent_range(low, high);
  }
  if (!anchors.empty()) {
    out += (out.empty() ? "noisy anchors: " : "; noisy anchors: ") + join(anchors, ", ");
  }
  return out + " (verdicts took more runs; a quieter machine or a longer benchmark helps)";
}

std::string load_of(const ReportModel& model) {
  const std::size_t flagged = load_flags(model).size();
  if (flagged == 0) {
    return "";
  }
  return std::to_string(flagged) + " of " + counted(static_cast<long long>(model.decisions.size()), "decision") +
         " ran at a higher load than the anchors (other work on the machine)";
}

}  // namespace

stats::Better better_of(const ReportModel& model) {
  if (model.recipe.available) {
    return model.recipe.direction != "lower" ? stats::Better::higher : stats::Better::lower;
  }
  if (model.result && model.result->contains("effect") && (*model.result)["effect"].is_object()) {
    const json& effect = (*model.result)["effect"];
    const std::string words = effect.value("words", std::string());
    const bool worse = words.find("slower") != std::string::npos || words.find("worse") != std::string::npos;
    return (effect.value("ratio", 1.0) < 1.0) == worse ? stats::Better::higher : stats::Better::lower;
  }
  return stats::Better::higher;
}

std::string metric_unit(const ReportModel& model) {
  if (!model.recipe.unit.empty()) {
    return model.recipe.unit;
  }
  return model.result ? model.result->value("unit", std::string()) : std::string();
}

std::string factor_words(double ratio, std::optional<double> low, std::optional<double> high, stats::Better better,
                         const std::string& unit) {
  if (!(ratio > 0)) {
    return "not comparable as a ratio";
  }
  const auto factor = [](double r) { return r >= 1.0 ? r : 1.0 / r; };
  if (low && high && *low <= 1.0 && *high >= 1.0) {
    return "no change shown (95 % CI " + sig3(factor(*low)) + "× " + direction_word(*low, better, unit) +
           " to " + sig3(factor(*high)) + "× " + direction_word(*high, better, unit) + ")";
  }
  std::string out = sig3(factor(ratio)) + "× " + direction_word(ratio, better, unit);
  if (low && high) {
    const double a = factor(*low);
    const double b = factor(*high);
    out += " (95 % CI " + sig3(std::min(a, b)) + "–" + sig3(std::max(a, b)) + "×)";
  } else {
    out += " (no 95 % interval: too few runs)";
  }
  return out;
}

std::string factor_of(double baseline, double value, stats::Better better, const std::string& unit) {
  if (!(baseline > 0) || !(value > 0)) {
    return "-";
  }
  const double ratio = value / baseline;
  if (std::fabs(ratio - 1.0) < 0.01) {
    return "same";
  }
  return sig3(ratio >= 1.0 ? ratio : 1.0 / ratio) + "× " + direction_word(ratio, better, unit);
}

Answer answer_of(const ReportModel& model) {
  const VerdictSummary summary = summarize(model);
  Answer answer;
  answer.headline = headline(summary);
  for (std::size_t index : summary.cause) {
    const Change& change = model.deltas[index];
    answer.cause.push_back(change.dimension + "/" + change.name + ": " + change_values(change));
  }
  answer.verification = verification_of(model, summary);
  if (model.result && model.result->contains("effect") && (*model.result)["effect"].is_object()) {
    answer.effect = effect_sentence(model, (*model.result)["effect"]);
  }
  answer.bites = bites_of(model);
  if (model.result && model.result->contains("could_be") && (*model.result)["could_be"].is_array() && !summary.found) {
    for (const json& set : (*model.result)["could_be"]) {
      std::vector<std::string> names;
      for (const json& delta : set) {
        if (delta.is_object()) {
          names.push_back(delta.value("dimension", std::string()) + "/" + delta.value("name", std::string()));
        }
      }
      answer.could_be.push_back("{" + join(names, ", ") + "}");
    }
    answer.settle = model.result->value("settle", std::string());
  }
  answer.noise = noise_of(model);
  answer.load = load_of(model);
  answer.effort = summary.have_result ? summary.effort : "";
  answer.note = summary.note;
  return answer;
}

}  // namespace envbisect::report
