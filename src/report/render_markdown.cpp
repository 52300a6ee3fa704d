#include <algorithm>
#include <map>

#include "report/answer.hpp"
#include "report/render.hpp"
#include "report/report_flags.hpp"
#include "report/report_text.hpp"
#include "stats/quantity.hpp"
#include "util/strings.hpp"

namespace envbisect::report {

namespace {

std::string base_name(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') {
    trimmed.pop_back();
  }
  std::size_t slash = trimmed.rfind('/');
  return slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
}

// A fenced block whose fence is longer than any backtick run inside.
std::string fenced(const std::string& body, const std::string& info = "") {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  return fence + info + "\n" + body + (body.empty() || body.back() == '\n' ? "" : "\n") + fence + "\n";
}

std::string anchor_id(const std::string& hash) { return candidate_anchor(hash); }

std::string link_to(const std::string& hash, const std::string& label) {
  return "[" + label + "](#" + anchor_id(hash) + ")";
}

std::string decision_sentence(const Decision& decision, const std::string& unit) {
  std::string out = "decision #" + std::to_string(decision.n) + " " + md_code(decision.label) + ": **" +
                    md_cell(decision.verdict) + "** after " + std::to_string(decision.runs) + " runs";
  if (decision.median) {
    out += ", median " + stats::with_unit(*decision.median, unit);
  }
  if (decision.p_vs_good && decision.p_vs_bad) {
    out += " (rank test p vs good " + format_p(*decision.p_vs_good) + ", p vs bad " + format_p(*decision.p_vs_bad) + ")";
  }
  return out + "; " + link_to(decision.candidate, "evidence");
}

std::string answer_section(const ReportModel& model) {
  const Answer answer = answer_of(model);
  const VerdictSummary summary = summarize(model);
  std::string out = "## Answer\n\n**" + md_cell(answer.headline) + "**\n\n";
  if (!summary.cause.empty()) {
    out += "| difference | good | bad |\n|---|---|---|\n";
    for (std::size_t index : summary.cause) {
      const Change& change = model.deltas[index];
      out += "| " + md_code(change.dimension + "/" + change.name) + " | " + md_code(shown_side(change.good, change.good_ref)) +
             " | " + md_code(shown_side(change.bad, change.bad_ref)) + " |\n";
    }
    out += "\n";
  }
  const std::string details = " ([details](#verdict-details))";
  if (!answer.verification.empty()) {
    out += "- **verification**: " + md_cell(answer.verification) + "\n";
  }
  if (!answer.effect.empty()) {
    out += "- **effect**: " + md_cell(answer.effect) + "\n";
  }
  for (const std::string& bite : answer.bites) {
    out += "- **when it bites**: " + md_cell(bite) + "\n";
  }
  for (const std::string& set : answer.could_be) {
    out += "- could be: " + md_code(set) + "\n";
  }
  if (!answer.settle.empty()) {
    out += "- to settle it: " + md_cell(answer.settle) + "\n";
  }
  if (!answer.noise.empty()) {
    out += "- noise: " + md_cell(answer.noise) + details + "\n";
  }
  if (!answer.load.empty()) {
    out += "- load: " + md_cell(answer.load) + details + "\n";
  }
  if (!answer.effort.empty()) {
    out += "- effort: " + md_cell(answer.effort) + "\n";
  }
  if (!answer.note.empty()) {
    out += "- note: " + md_cell(answer.note) + "\n";
  }
  return out + "\n";
}

// The verdict's evidence line by line, for the appendix: the deciding decisions, the anchors' confidence,
// the host, each noisy or loaded decision, damage, the journal's extent and the loader's notes.
std::string verdict_details(const ReportModel& model) {
  VerdictSummary summary = summarize(model);
  std::string out = "<a id=\"verdict-details\"></a>\n## Appendix A: verdict details\n\n";
  if (summary.have_result && summary.found && summary.rereads_anchors) {
    out += "- good + cause -> bad: **the bad anchor itself**, re-read (not a separate check)\n";
    out += "- bad - cause -> good: **the good anchor itself**, re-read (not a separate check)\n";
  } else if (summary.have_result && summary.found) {
    out += "- good + cause -> bad: " + std::string(summary.forward ? "**verified**" : "**not verified**") +
           (summary.forward_decision ? "; " + decision_sentence(*summary.forward_decision, model.recipe.unit) : "") + "\n";
    out += "- bad - cause -> good: " + std::string(summary.reverse ? "**verified**" : "**not verified**") +
           (summary.reverse_decision ? "; " + decision_sentence(*summary.reverse_decision, model.recipe.unit) : "") + "\n";
  }
  if (!summary.effect.empty()) {
    out += "- effect, as the statistics state it: " + md_cell(summary.effect) + "\n";
  }
  if (model.preflight) {
    out += "- confidence, anchors (" + anchor_runs_words(*model.preflight) + " before the search): " + md_cell(model.preflight->message) + "\n";
  }
  const std::string host = host_sentence(model);
  if (!host.empty()) {
    out += "- host: " + md_cell(host) + "\n";
  }
  for (const std::string& flag : load_flags(model)) {
    out += "- higher load than the anchors: " + md_cell(flag) + "\n";
  }
  for (const std::string& flag : noise_flags(model)) {
    out += "- noisy: " + md_cell(flag) + "\n";
  }
  for (const std::string& flag : damage_flags(model)) {
    out += "- changed by a benchmark: " + md_cell(flag) + "\n";
  }
  out += "- journal: " + count_noun(model.sessions, "session") + ", " +
         count_noun(static_cast<long long>(model.attempts.size()), "attempt") + ", from " + format_utc(model.t_first) + " to " + format_utc(model.t_last) + "\n";
  for (const std::string& note : model.notes) {
    out += "- loader: " + md_cell(note) + "\n";
  }
  return out + "\n";
}

std::string differences_section(const ReportModel& model) {
  std::vector<std::size_t> cause = cause_indices(model);
  std::string out = "## Differences between good and bad (" + std::to_string(model.deltas.size()) + ")\n\n";
  out += "| # | difference | good | bad | in the cause |\n|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < model.deltas.size(); ++i) {
    const Change& change = model.deltas[i];
    bool culprit = std::find(cause.begin(), cause.end(), i) != cause.end();
    out += "| " + std::to_string(i) + " | " + md_code(change.dimension + "/" + change.name) + " | " +
           md_code(shown_side(change.good, change.good_ref)) + " | " + md_code(shown_side(change.bad, change.bad_ref)) + " | " +
           (culprit ? "**yes**" : "") + " |\n";
  }
  return out + "\n";
}

std::string timeline_section(const ReportModel& model) {
  const stats::Better better = better_of(model);
  const std::string unit = metric_unit(model);
  // The good anchor's median, 0 when unknown (a plain double: GCC misreads an optional here).
  const double good = model.preflight ? model.preflight->good_median.value_or(0.0) : 0.0;
  std::string out = "## Search timeline\n\nEach row is one decided candidate, in the order the search asked; why it "
                    "asked and how the verdict was reached are in its evidence (appendix B).\n\n";
  out += "| # | stage | candidate | runs | median" + unit_suffix(model) + " | against good | verdict |\n";
  out += "|---|---|---|---|---|---|---|\n";
  for (const Decision& decision : model.decisions) {
    out += "| " + std::to_string(decision.n) + " | " + md_cell(decision.stage) + " | " +
           link_to(decision.candidate, md_cell(decision.label)) + " | " + std::to_string(decision.runs) + " | " +
           (decision.median ? format_number(*decision.median) : "-") + " | " +
           (decision.median && good > 0 ? factor_of(good, *decision.median, better, unit) : "-") + " | **" +
           md_cell(decision.verdict) + "** |\n";
  }
  return out + "\n";
}

std::string attempts_table(const ReportModel& model, const CandidateView& view) {
  std::string out = "| run | session | status | exit | signal | metric | checksum | wall | stdout |\n";
  out += "|---|---|---|---|---|---|---|---|---|\n";
  for (int index : view.attempts) {
    const Attempt& attempt = model.attempts[index];
    out += "| " + std::to_string(attempt.index) + " | " + std::to_string(attempt.session) + " | " +
           md_cell(attempt_status(attempt)) + " | " + std::to_string(attempt.exit_code) + " | " +
           std::to_string(attempt.signal) + " | " + (attempt.metric ? format_number(*attempt.metric) : "-") + " | " +
           md_code(attempt.checksum.value_or("-")) + " | " + format_duration(attempt.wall_s) + " | " +
           md_code(display_path(model, attempt.stdout_path)) + " |\n";
  }
  return out;
}

std::string excerpt_block(const ReportModel& model, const Attempt& attempt) {
  std::string out;
  auto it = model.excerpts.find(excerpt_key(attempt));
  std::string title = "run " + std::to_string(attempt.index) + " (" + md_cell(attempt_status(attempt)) + ")";
  if (it == model.excerpts.end() || (!it->second.stdout_found && !it->second.stderr_found)) {
    return "Log excerpt of " + title + ": the log files are no longer in the run directory.\n\n";
  }
  if (it->second.stdout_found) {
    out += "stdout of " + title + ", last lines:\n\n" + fenced(tail_lines(it->second.stdout_tail, 4, 1200)) + "\n";
  }
  if (it->second.stderr_found && !trim(it->second.stderr_tail).empty()) {
    out += "stderr of " + title + ", last lines:\n\n" + fenced(tail_lines(it->second.stderr_tail, 6, 1600)) + "\n";
  }
  return out;
}

std::string candidates_section(const ReportModel& model) {
  std::string out = "## Appendix B: evidence per candidate\n\n";
  for (const CandidateView& view : model.candidates) {
    out += "<a id=\"" + anchor_id(view.hash) + "\"></a>\n### " + md_cell(view.label) + " (" +
           md_code(short_id(view.hash)) + ")\n\n";
    std::vector<std::string> applied;
    for (const std::string& change : candidate_changes(model, view)) {
      applied.push_back(md_code(change));
    }
    out += "- state: good" + (applied.empty() ? std::string(" as it is") : " with " + join(applied, ", ")) + "\n";
    out += "- candidate hash " + md_code(view.hash) + "; environment hash " + md_code(view.env_hash) + "\n";
    for (const Build& build : model.builds) {
      if (build.env_hash == view.env_hash) {
        out += "- environment built by " + md_code(build.builder) + " in " + format_duration(build.seconds) + ": " +
               (build.ok ? "ok" : "**failed**: " + md_cell(build.reason)) + "\n";
      }
    }
    for (int index : view.decisions) {
      const Decision& decision = model.decisions[index];
      out += "- decision #" + std::to_string(decision.n) + " (" + md_cell(decision.stage) + "): **" +
             md_cell(decision.verdict) + "**; " + (decision.why.empty() ? "" : "asked: " + md_cell(decision.why) + "; ") +
             md_cell(decision.reason) + (decision.checksum_mismatch ? "; **checksum differs from the anchors**" : "") +
             (decision.different_failure ? "; **fails differently from the anchors**" : "") + "\n";
    }
    if (!view.attempts.empty()) {
      std::string command = attempt_command(model, model.attempts[view.attempts.front()]);
      if (!command.empty()) {
        out += "- command (" + std::string(model.attempts[view.attempts.front()].argv.empty()
                                               ? "recipe template, placeholders the journal fixes filled in"
                                               : "exact argv") +
               "):\n\n" + fenced(command, "sh") + "\n";
      }
      out += "\n" + attempts_table(model, view) + "\n";
      for (int index : excerpt_attempts(model, view)) {
        out += excerpt_block(model, model.attempts[index]);
      }
    }
  }
  return out;
}

std::string probes_section(const ReportModel& model) {
  std::string out;
  if (!model.probes.empty()) {
    out += "## When it bites: probes with the cause applied\n\n| knob | value | cache | verdict | median |\n"
           "|---|---|---|---|---|\n";
    for (const Probe& probe : model.probes) {
      out += "| " + md_code(probe.knob) + " | " + std::to_string(probe.value) + " | " + md_cell(probe.cache) + " | **" +
             md_cell(probe.verdict) + "** | " + (probe.median ? format_number(*probe.median) : "-") + " |\n";
    }
    out += "\n";
  }
  if (!model.refinements.empty()) {
    out += "## Inside the culprits: refinement along ordered axes\n\n| difference | kind | last good | first bad | "
           "evaluations | note |\n|---|---|---|---|---|---|\n";
    for (const Refinement& refinement : model.refinements) {
      out += "| " + md_code(refinement.delta.dimension + "/" + refinement.delta.name) + " | " + md_cell(refinement.kind) +
             " | " + md_code(refinement.last_good) + " | " + md_code(refinement.first_bad) + " | " +
             std::to_string(refinement.evaluations) + " | " + md_cell(refinement.note) + " |\n";
    }
    out += "\n";
  }
  return out;
}

std::string builds_section(const ReportModel& model) {
  if (model.builds.empty()) {
    return "";
  }
  std::string out = "## Appendix C: environment builds\n\n| environment | builder | result | time | interpreter | installed |\n"
                    "|---|---|---|---|---|---|\n";
  for (const Build& build : model.builds) {
    std::vector<std::string> installed;
    for (const auto& [name, version] : build.installed) {
      installed.push_back(name + " " + version);
    }
    out += "| " + md_code(short_id(build.env_hash)) + " | " + md_cell(build.builder) + " | " +
           (build.ok ? "ok" : "failed: " + md_cell(build.reason)) + " | " + format_duration(build.seconds) + " | " +
           md_code(build.python) + " | " + md_cell(join(installed, ", ")) + " |\n";
  }
  return out + "\n";
}

std::string inputs_section(const ReportModel& model) {
  std::string out = "## Appendix D: inputs and their hashes\n\n| input | path | sha256 when the run started | now |\n|---|---|---|---|\n";
  for (const InputFile& input : model.inputs) {
    out += "| " + md_cell(input.role) + " | " + md_code(input.path) + " | " + md_code(input.sha256) + " | " +
           md_cell(input.now.empty() ? "not checked" : input.now) + " |\n";
  }
  for (const std::string& dir : model.wheel_dirs) {
    out += "| wheels | " + md_code(dir) + " | | |\n";
  }
  if (model.recipe.available) {
    out += "\nRecipe: metric " + md_code(model.recipe.metric) + " (" + md_cell((model.recipe.unit.empty() ? "" : model.recipe.unit + ", ") + model.recipe.direction) + " is better), seed " +
           std::to_string(model.recipe.seed) + ", timeout " + format_duration(model.recipe.timeout_s) + ".\n";
  } else if (!model.recipe.note.empty()) {
    out += "\nRecipe: " + md_cell(model.recipe.note) + "\n";
  }
  return out + "\n";
}

std::string reproduce_section(const ReportModel& model) {
  std::string body;
  for (const Command& command : reproduction_commands(model)) {
    body += "# " + command.purpose + "\n" + command.line + "\n";
  }
  return "## Reproduce\n\n" + fenced(body, "sh") + "\n";
}

std::string harness_section(const ReportModel& model) {
  std::map<std::string, int> counts;
  for (const OtherRecord& other : model.others) {
    ++counts[other.type];
  }
  std::string out = "## Appendix E: harness\n\n- envbisect version per session: " + md_cell(join(model.versions, ", ")) + "\n";
  out += "- rendered from " + md_code("journal.jsonl") + " with sha256 " + md_code(model.journal_sha256) + "\n";
  out += "- run directory: " + md_code(model.run_dir) + "\n";
  if (!model.others.empty()) {
    out += "\n### Other journal records\n\n| type | record |\n|---|---|\n";
    for (const OtherRecord& other : model.others) {
      std::string dump = other.record.dump();
      out += "| " + md_code(other.type) + " | " + md_code(dump.size() > 300 ? dump.substr(0, 300) + "..." : dump) + " |\n";
    }
  }
  return out;
}

}  // namespace

std::vector<int> excerpt_attempts(const ReportModel& model, const CandidateView& view) {
  std::vector<int> out;
  if (view.attempts.empty()) {
    return out;
  }
  out.push_back(view.attempts.front());
  for (int index : view.attempts) {
    if (model.attempts[index].status != "ok") {
      if (index != out.front()) {
        out.push_back(index);
      }
      break;
    }
  }
  return out;
}

std::string render_markdown(const ReportModel& model) {
  std::string out = "# envbisect report: " + md_cell(base_name(model.run_dir)) + "\n\n";
  out += "Every statement below is what the run's journal recorded, with the evidence next to it. "
         "The HTML version of this report has the plots.\n\n";
  // The answer first; then what a reader checks it against; the evidence in appendices.
  out += answer_section(model);
  out += differences_section(model);
  out += timeline_section(model);
  out += probes_section(model);
  out += reproduce_section(model);
  out += verdict_details(model);
  out += candidates_section(model);
  out += builds_section(model);
  out += inputs_section(model);
  out += harness_section(model);
  return out;
}

}  // namespace envbisect::report
