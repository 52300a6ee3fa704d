#include "report/report_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "stats/quantity.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace envbisect::report {

using nlohmann::json;

std::string format_number(double value) { return stats::human_number(value); }

std::string count_noun(long long count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string host_sentence(const ReportModel& model) {
  const json& host = model.host;
  if (host.empty()) {
    return "";
  }
  std::vector<std::string> parts;
  for (const char* key : {"hostname", "kernel", "cpu"}) {
    if (host.contains(key) && host[key].is_string()) {
      parts.push_back(host[key].get<std::string>());
    }
  }
  if (host.contains("cores") && host["cores"].is_number()) {
    parts.push_back(std::to_string(host["cores"].get<int>()) + " cores");
  }
  if (host.contains("loadavg") && host["loadavg"].is_array() && host["loadavg"].size() == 3) {
    char text[64];
    std::snprintf(text, sizeof text, "load %.2f %.2f %.2f", host["loadavg"][0].get<double>(),
                  host["loadavg"][1].get<double>(), host["loadavg"][2].get<double>());
    parts.push_back(text);
  }
  if (host.contains("mem_available_mib") && host["mem_available_mib"].is_number()) {
    parts.push_back(stats::human_number(host["mem_available_mib"].get<double>()) + " MiB free");
  }
  if (host.contains("gpus") && host["gpus"].is_array()) {
    for (const json& gpu : host["gpus"]) {
      parts.push_back(gpu.value("name", std::string("GPU")) + " (driver " + gpu.value("driver", std::string("?")) +
                      ", SM clock " + gpu.value("sm_clock", std::string("?")) + " of " +
                      gpu.value("max_sm_clock", std::string("?")) + ", memory clock " +
                      gpu.value("mem_clock", std::string("?")) + ")");
    }
  }
  return join(parts, "; ");
}

std::vector<std::string> load_flags(const ReportModel& model) {
  std::vector<std::string> out;
  // The anchors' mean load is the baseline their verdicts are compared against.
  double anchor_sum = 0;
  int anchor_count = 0;
  for (const CandidateView& view : model.candidates) {
    if (view.role != "good-anchor" && view.role != "bad-anchor") {
      continue;
    }
    for (int index : view.attempts) {
      if (model.attempts[index].load1) {
        anchor_sum += *model.attempts[index].load1;
        ++anchor_count;
      }
    }
  }
  if (anchor_count == 0) {
    return out;
  }
  const double anchors = anchor_sum / anchor_count;
  for (const Decision& decision : model.decisions) {
    double sum = 0;
    int count = 0;
    for (const Attempt& attempt : model.attempts) {
      if (attempt.candidate == decision.candidate && attempt.load1) {
        sum += *attempt.load1;
        ++count;
      }
    }
    const double load = count == 0 ? 0.0 : sum / count;
    if (count > 0 && load > 1.5 * anchors && load > anchors + 0.5) {
      char text[160];
      std::snprintf(text, sizeof text, "decision %d (%s) ran at load %.2f, the anchors at %.2f", decision.n,
                    decision.verdict.c_str(), load, anchors);
      out.push_back(std::string(text) + ": " + decision.label);
    }
  }
  return out;
}

std::string unit_suffix(const ReportModel& model) {
  return model.recipe.unit.empty() ? "" : " (" + model.recipe.unit + ")";
}

std::string format_p(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

std::string format_duration(double seconds) {
  char buffer[64];
  if (seconds < 10) {
    std::snprintf(buffer, sizeof buffer, "%.2f s", seconds);
  } else if (seconds < 120) {
    std::snprintf(buffer, sizeof buffer, "%.0f s", seconds);
  } else {
    long long whole = std::llround(seconds);
    std::snprintf(buffer, sizeof buffer, "%lld min %02lld s", whole / 60, whole % 60);
  }
  return buffer;
}

std::string format_utc(double t) {
  if (t <= 0) {
    return "-";
  }
  std::time_t seconds = static_cast<std::time_t>(t);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S UTC", &parts);
  return buffer;
}

std::string short_id(const std::string& hash) { return hash.substr(0, 12); }

std::string candidate_anchor(const std::string& hash) {
  std::string id;
  for (char c : short_id(hash)) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      id += c;
    }
  }
  return "candidate-" + id;
}

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// One line of a table cell or code span: pipes escaped (GFM splits cells at them even inside code),
// line breaks as spaces, control characters as visible escapes.
std::string md_line(const std::string& text) {
  std::string out;
  for (char c : escape_control(text)) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string md_cell(const std::string& text) {
  std::string flat = text;
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  std::replace(flat.begin(), flat.end(), '\r', ' ');
  // HTML becomes text under any renderer (entities); no link, image or code span can start.
  std::string out;
  for (char c : escape_control(flat)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\\': out += "\\\\"; break;
      case '|': out += "\\|"; break;
      case '[': out += "\\["; break;
      case ']': out += "\\]"; break;
      case '`': out += "\\`"; break;
      default: out += c;
    }
  }
  return out;
}

std::string md_code(const std::string& text) {
  // The fence must be longer than the longest run of backticks inside.
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  std::string pad = !text.empty() && (text.front() == '`' || text.back() == '`') ? " " : "";
  // Inside a code span HTML and Markdown are literal text: only pipes and line breaks need care.
  std::string flat = text;
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  std::replace(flat.begin(), flat.end(), '\r', ' ');
  return fence + pad + md_line(flat) + pad + fence;
}

std::string tail_lines(const std::string& text, std::size_t max_lines, std::size_t max_bytes) {
  // Redact before cutting, so that no cut leaves half a token that no longer looks like one.
  std::string body = redact_text(text);
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) {
    body.pop_back();
  }
  bool cut = false;
  std::size_t start = body.size();
  std::size_t lines = 0;
  while (start > 0 && lines < max_lines) {
    std::size_t newline = body.rfind('\n', start - 1);
    start = newline == std::string::npos ? 0 : newline;
    ++lines;
    if (newline == std::string::npos) {
      break;
    }
  }
  if (start > 0) {
    cut = true;
    ++start;  // skip the newline itself
  }
  std::string tail = body.substr(start);
  if (tail.size() > max_bytes) {
    tail = tail.substr(tail.size() - max_bytes);
    // Do not start inside a UTF-8 sequence.
    while (!tail.empty() && (static_cast<unsigned char>(tail.front()) & 0xC0) == 0x80) {
      tail.erase(0, 1);
    }
    cut = true;
  }
  return cut ? "...\n" + tail : tail;
}

VerdictSummary summarize(const ReportModel& model) {
  VerdictSummary summary;
  if (!model.result) {
    // Without a result: stopped by its inputs, stopped because the anchors could not be told apart,
    // or interrupted (resumable).
    summary.stopped = model.stopped.value_or("");
    summary.indistinct = model.preflight && !model.preflight->distinguishable ? model.preflight->message : "";
    summary.run_dir = model.run_dir;
    return summary;
  }
  const json& result = *model.result;
  summary.have_result = true;
  summary.run_dir = model.run_dir;  // a run stopped at its budget resumes there
  if (result.contains("budget") && result["budget"].is_object()) {
    summary.resume = result["budget"].value("resume", "");
  }
  summary.found = result.value("found", false);
  summary.outcome = result.value("outcome", "");
  summary.cause = cause_indices(model);
  if (result.contains("verified") && result["verified"].is_object()) {
    summary.forward = result["verified"].value("forward", false);
    summary.reverse = result["verified"].value("reverse", false);
  }
  summary.rereads_anchors = result.value("rereads_anchors", false);
  summary.note = result.value("note", "");
  summary.evaluations = result.value("evaluations", 0);
  summary.attempts_run = result.value("attempts_run", 0);
  summary.attempts_reused = result.value("attempts_reused", 0);
  summary.seconds = result.value("seconds", 0.0);
  summary.metric = result.value("metric", "");
  if (result.contains("effect") && result["effect"].is_object()) {
    const json& effect = result["effect"];
    const double ratio = effect.value("ratio", 1.0);
    std::string interval = "no 95 % interval (too few runs)";
    if (effect.contains("low") && effect["low"].is_number() && effect.contains("high") && effect["high"].is_number()) {
      char text[96];
      std::snprintf(text, sizeof text, "95 %% CI %.3g to %.3g", effect["low"].get<double>(),
                    effect["high"].get<double>());
      interval = text;
    }
    std::string failures;
    if (effect.contains("failures") && effect["failures"].is_object()) {
      const json& f = effect["failures"];
      failures = "the " + effect.value("of", std::string("cause")) + " fails " + std::to_string(f.value("to", 0)) +
                 " of " + std::to_string(f.value("to_runs", 0)) + " runs (good: " + std::to_string(f.value("from", 0)) +
                 " of " + std::to_string(f.value("from_runs", 0)) + ")";
    }
    summary.effect = !effect.contains("ratio") ? failures : (failures.empty() ? "" : failures + "; of the runs that finished, ") +
                     "the " + effect.value("of", std::string("cause")) + " multiplies " + summary.metric + " by " +
                     stats::human_number(ratio) + " (" + interval + "; " + effect.value("method", std::string()) +
                     ", " + std::to_string(effect.value("from_runs", 0)) + " good vs " +
                     std::to_string(effect.value("to_runs", 0)) + " runs with it): " + effect.value("words", std::string());
  }
  // Journals before "decisions" counted only the isolating candidates.
  const int decided = result.value("decisions", summary.evaluations);
  summary.effort = std::to_string(decided) + (decided == 1 ? " candidate" : " candidates") + " decided (" +
                   std::to_string(summary.evaluations) + " while isolating), " + std::to_string(summary.attempts_run) +
                   (summary.attempts_run == 1 ? " benchmark run" : " benchmark runs") + " (" +
                   std::to_string(summary.attempts_reused) + " reused from an earlier session), " +
                   format_duration(summary.seconds) + " of search";
  // The decisions that verified the cause: exactly the cause on good, and bad without it.
  if (!summary.cause.empty()) {
    summary.forward_decision = find_isolate_decision(model, summary.cause);
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i < model.deltas.size(); ++i) {
      if (std::find(summary.cause.begin(), summary.cause.end(), i) == summary.cause.end()) {
        rest.push_back(i);
      }
    }
    summary.reverse_decision = find_isolate_decision(model, rest);
  }
  for (const Refinement& refinement : model.refinements) {
    summary.modifiers.push_back("inside " + refinement.delta.dimension + "/" + refinement.delta.name + " (" +
                                refinement.kind + "): " +
                                (refinement.found ? "first bad " + refinement.first_bad + ", last good " +
                                                        refinement.last_good +
                                                        (refinement.note.empty() ? "" : "; " + refinement.note)
                                                  : "unresolved; " + refinement.note));
  }
  std::map<std::string, std::vector<std::string>> bites;
  std::vector<std::string> order;
  for (const Probe& probe : model.probes) {
    std::string key = probe.knob + (probe.cache.empty() ? "" : " (" + probe.cache + ")");
    if (bites.find(key) == bites.end()) {
      order.push_back(key);
    }
    bites[key].push_back(std::to_string(probe.value) + ": " + probe.verdict);
  }
  for (const std::string& key : order) {
    summary.modifiers.push_back("with the cause applied, " + key + " " + join(bites[key], ", "));
  }
  return summary;
}

std::string headline(const VerdictSummary& summary) {
  if (!summary.have_result) {
    if (!summary.stopped.empty()) {
      return "stopped by an input error (fix it and start a new run; resuming repeats it): " + summary.stopped;
    }
    if (!summary.indistinct.empty()) {
      return "finished without a cause: the anchors could not be told apart (" + summary.indistinct + ")";
    }
    return "interrupted: the run did not finish (envbisect resume " + summary.run_dir + " continues it)";
  }
  if (summary.outcome == "ambiguous") {
    return "ambiguous: no cause verified (the result lists what it could be and what would settle it)";
  }
  if (summary.outcome == "retracted") {
    return "retracted: the anchors no longer differ on all their runs, so no cause is reported";
  }
  if (summary.outcome == "budget") {
    // The command the settle line gives (the folder as the run was given it, the budget it needs in
    // minutes), so the two lines of one report agree.
    const std::string resume =
        summary.resume.empty() ? "envbisect resume " + summary.run_dir + " --budget ..." : summary.resume;
    return "stopped at its --budget: no verified cause yet (" + resume + " continues it, reusing every run)";
  }
  if (!summary.found) {
    return "no minimal cause isolated";
  }
  std::string count = std::to_string(summary.cause.size()) +
                      (summary.cause.size() == 1 ? " difference" : " differences, together");
  if (summary.rereads_anchors) {
    // good + cause is the bad anchor and bad - cause the good one: nothing was verified apart from them.
    return "cause found: " + count + ", every difference between the anchors (its verification re-read the anchors)";
  }
  bool verified = summary.forward && summary.reverse;
  return "cause found: " + count + (verified ? ", verified both ways" : ", NOT verified both ways");
}

std::vector<Command> reproduction_commands(const ReportModel& model) {
  std::vector<Command> out;
  std::string good;
  std::string bad;
  std::string recipe;
  for (const InputFile& input : model.inputs) {
    (input.role == "good" ? good : input.role == "bad" ? bad : recipe) = input.path;
  }
  if (!good.empty() && !bad.empty() && !recipe.empty()) {
    std::vector<std::string> argv = {"envbisect", "run", good, bad, "--recipe", recipe};
    for (const std::string& dir : model.wheel_dirs) {
      argv.push_back("--wheels");
      argv.push_back(dir);
    }
    for (const char* key : {"repeats", "max_runs", "anchor_runs"}) {
      auto it = model.run_options.find(key);
      if (it != model.run_options.end() && it->is_number_integer() && it->get<long long>() > 0) {
        std::string flag = std::string("--") + key;
        std::replace(flag.begin(), flag.end(), '_', '-');
        argv.push_back(flag);
        argv.push_back(std::to_string(it->get<long long>()));
      }
    }
    if (model.run_options.value("no_probe", false)) {
      argv.push_back("--no-probe");
    }
    argv.push_back("--out");
    argv.push_back(model.run_dir + "-again");
    out.push_back({"run the whole bisection again, from scratch, into a new directory", display_argv(argv)});
  }
  out.push_back({"continue this run if it was interrupted (finished attempts are never rerun)",
                 display_argv({"envbisect", "resume", model.run_dir})});
  out.push_back({"recompute every decision from the journal, running nothing",
                 display_argv({"envbisect", "replay", model.run_dir})});
  out.push_back({"render this report again (byte-identical for the same journal)",
                 display_argv({"envbisect", "report", model.run_dir})});
  if (model.recipe.available) {
    out.push_back({"the benchmark each attempt ran (recipe command template; placeholders per candidate)",
                   display_argv(redact_argv(model.recipe.command))});
  }
  // One benchmark run each of the good anchor, the bad anchor and the culprit (good + cause).
  VerdictSummary summary = summarize(model);
  std::vector<std::pair<std::string, const CandidateView*>> picks;
  for (const CandidateView& view : model.candidates) {
    if (view.role == "good-anchor" || view.role == "bad-anchor") {
      picks.emplace_back(view.label, &view);
    }
  }
  if (summary.forward_decision != nullptr) {
    picks.emplace_back("culprit (good + cause)", find_candidate(model, summary.forward_decision->candidate));
  }
  for (const auto& [name, view] : picks) {
    if (view == nullptr || view->attempts.empty()) {
      continue;
    }
    std::string command = attempt_command(model, model.attempts[view->attempts.front()]);
    if (command.empty()) {
      continue;
    }
    std::vector<std::string> changes = candidate_changes(model, *view);
    const Attempt& first = model.attempts[view->attempts.front()];
    out.push_back({"benchmark of the " + name + ", candidate " + short_id(view->hash) + " = good" +
                       (changes.empty() ? "" : " with " + join(changes, ", ")) +
                       (first.env.empty() ? "; remaining placeholders come from that state"
                                          : "; exactly as its first run ran: every placeholder filled, every "
                                            "variable set"),
                   command});
  }
  return out;
}

namespace {

// Replace the {name} placeholders found in `values`; leave every other placeholder (and {{ }}) as is.
std::string fill_known(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "{{") == 0 || text.compare(i, 2, "}}") == 0) {
      out += text.substr(i, 2);
      i += 2;
      continue;
    }
    if (text[i] == '{') {
      std::size_t close = text.find('}', i);
      if (close != std::string::npos) {
        auto it = values.find(text.substr(i + 1, close - i - 1));
        if (it != values.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out += text[i++];
  }
  return out;
}

std::string folder_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

}  // namespace

std::string attempt_command(const ReportModel& model, const Attempt& attempt) {
  // Reports show commands without their secrets ("--api-key VALUE", URL passwords).
  if (!attempt.argv.empty() && !attempt.env.empty()) {
    // Exactly as it ran: its folder, no inherited variable, every variable it had, the filled argv.
    std::vector<std::string> line = {"env", "-i", "--"};  // "--": a name starting "-S" is no option
    for (const auto& [name, value] : attempt.env) {
      line.push_back(name + "=" + redact_env_value(name, value));
    }
    const std::vector<std::string> argv = redact_argv(attempt.argv);
    line.insert(line.end(), argv.begin(), argv.end());
    return (attempt.cwd.empty() ? "" : display_argv({"cd", attempt.cwd}) + " && ") + display_argv(line);
  }
  if (!attempt.argv.empty()) {
    return display_argv(redact_argv(attempt.argv));
  }
  if (!model.recipe.available) {
    return "";
  }
  std::map<std::string, std::string> values = {{"run_dir", model.run_dir},
                                               {"seed", std::to_string(model.recipe.seed)},
                                               {"attempt", std::to_string(attempt.index)}};
  for (const InputFile& input : model.inputs) {
    if (input.role == "recipe" && !input.path.empty()) {
      values["recipe_dir"] = folder_of(input.path);
    }
  }
  for (const Build& build : model.builds) {
    if (build.env_hash == attempt.env_hash && build.ok && !build.python.empty()) {
      values["python"] = build.python;
    }
  }
  const std::vector<std::string>& argv_template =
      attempt.index < 0 && !model.recipe.warmup.empty() ? model.recipe.warmup : model.recipe.command;
  std::vector<std::string> argv;
  for (const std::string& arg : argv_template) {
    argv.push_back(fill_known(arg, values));
  }
  return display_argv(redact_argv(argv));
}

std::string display_path(const ReportModel& model, const std::string& path) {
  // A run directory that was moved still shows its attempts' logs relative to itself.
  std::string prefix = model.run_dir + "/";
  if (starts_with(path, prefix)) {
    return path.substr(prefix.size());
  }
  std::size_t attempts = path.rfind("/attempts/");
  return attempts == std::string::npos ? path : path.substr(attempts + 1);
}

std::vector<std::string> candidate_changes(const ReportModel& model, const CandidateView& view) {
  std::vector<std::string> out;
  for (std::size_t index : view.applied) {
    if (index < model.deltas.size()) {
      out.push_back(delta_name(model, index) + " = " + model.deltas[index].bad.value_or("(absent)"));
    }
  }
  for (int index : view.decisions) {
    const Decision& decision = model.decisions[index];
    if (!decision.stage.empty() && decision.stage != "isolate" &&
        std::find(out.begin(), out.end(), decision.label) == out.end()) {
      out.push_back(decision.label + " (" + decision.stage + ")");
    }
  }
  return out;
}

std::string attempt_status(const Attempt& attempt) {
  std::string out = attempt.status.empty() ? "unknown" : attempt.status;
  if (attempt.signal != 0) {
    out += ": killed by signal " + std::to_string(attempt.signal);
  } else if (attempt.status != "ok" || attempt.exit_code != 0) {
    out += ": exit " + std::to_string(attempt.exit_code);
  }
  if (!attempt.diagnosis.empty()) {
    // The diagnosis already says how it exited and what it printed.
    return (attempt.status.empty() ? "unknown" : attempt.status) + ": " + attempt.diagnosis;
  }
  if (!attempt.error_class.empty()) {
    out += " (" + attempt.error_class + ")";
  }
  return out;
}

}  // namespace envbisect::report
