#include "report/answer.hpp"
#include "report/render.hpp"
#include "report/report_flags.hpp"
#include "report/report_text.hpp"
#include "util/redact.hpp"

namespace envbisect::report {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json change_json(const Change& change) {
  json out = {{"dimension", change.dimension}, {"name", change.name},
              {"good", change.good ? json(*change.good) : json(nullptr)},
              {"bad", change.bad ? json(*change.bad) : json(nullptr)}};
  if (!change.good_ref.empty()) {
    out["good_ref"] = change.good_ref;
  }
  if (!change.bad_ref.empty()) {
    out["bad_ref"] = change.bad_ref;
  }
  return out;
}

json decision_json(const Decision& decision) {
  return {{"n", decision.n}, {"stage", decision.stage}, {"label", decision.label}, {"applied", decision.applied},
          {"candidate", decision.candidate}, {"verdict", decision.verdict}, {"runs", decision.runs},
          {"median", optional_number(decision.median)}, {"reason", decision.reason}, {"why", decision.why},
          {"p_vs_good", optional_number(decision.p_vs_good)}, {"p_vs_bad", optional_number(decision.p_vs_bad)},
          {"position", optional_number(decision.position)}, {"different_failure", decision.different_failure},
          {"checksum_mismatch", decision.checksum_mismatch}, {"cv", optional_number(decision.cv)},
          {"noisy", decision.noisy}};
}

json attempt_json(const ReportModel& model, const Attempt& attempt) {
  json doc = {{"attempt", attempt.index}, {"session", attempt.session}, {"status", attempt.status},
              {"exit_code", attempt.exit_code}, {"signal", attempt.signal}, {"metric", optional_number(attempt.metric)},
              {"checksum", attempt.checksum ? json(*attempt.checksum) : json(nullptr)},
              {"error_class", attempt.error_class},
              {"cause", attempt.cause}, {"diagnosis", attempt.diagnosis}, {"wall_s", attempt.wall_s}, {"t", attempt.t},
              {"stdout", display_path(model, attempt.stdout_path)}, {"stderr", display_path(model, attempt.stderr_path)}};
  if (!attempt.argv.empty()) {
    doc["argv"] = redact_argv(attempt.argv);
  }
  return doc;
}

}  // namespace

std::string render_json(const ReportModel& model) {
  VerdictSummary summary = summarize(model);
  json doc = {{"format", 1}, {"run_dir", model.run_dir}, {"versions", model.versions}, {"sessions", model.sessions},
              {"journal_sha256", model.journal_sha256}, {"t_first", model.t_first}, {"t_last", model.t_last},
              {"notes", model.notes}};

  json verdict = {{"finished", summary.have_result}, {"found", summary.found}, {"headline", headline(summary)},
                  {"cause", json::array()}, {"verified", {{"forward", summary.forward}, {"reverse", summary.reverse}}},
                  {"rereads_anchors", summary.rereads_anchors},
                  {"forward_decision", summary.forward_decision ? json(summary.forward_decision->n) : json(nullptr)},
                  {"reverse_decision", summary.reverse_decision ? json(summary.reverse_decision->n) : json(nullptr)},
                  {"modifiers", summary.modifiers}, {"note", summary.note}, {"evaluations", summary.evaluations},
                  {"attempts_run", summary.attempts_run}, {"attempts_reused", summary.attempts_reused},
                  {"seconds", summary.seconds}, {"metric", summary.metric}};
  for (std::size_t index : summary.cause) {
    verdict["cause"].push_back(change_json(model.deltas[index]));
  }
  if (model.preflight) {
    verdict["anchors"] = {{"anchor_runs", model.preflight->anchor_runs},
                          {"good_runs", model.preflight->good_runs}, {"bad_runs", model.preflight->bad_runs},
                          {"distinguishable", model.preflight->distinguishable},
                          {"good_median", optional_number(model.preflight->good_median)},
                          {"bad_median", optional_number(model.preflight->bad_median)},
                          {"effect", optional_number(model.preflight->effect)},
                          {"metric_p", optional_number(model.preflight->metric_p)},
                          {"message", model.preflight->message}};
  }
  verdict["noisy"] = noise_flags(model);
  verdict["changed_by_a_benchmark"] = damage_flags(model);
  doc["verdict"] = verdict;
  // The answer in the words the Markdown and HTML reports lead with, for tools that show it.
  const Answer answer = answer_of(model);
  doc["answer"] = {{"headline", answer.headline}, {"cause", answer.cause}, {"verification", answer.verification},
                   {"effect", answer.effect}, {"bites", answer.bites}, {"could_be", answer.could_be},
                   {"settle", answer.settle}, {"noise", answer.noise}, {"load", answer.load}};

  doc["inputs"] = json::array();
  for (const InputFile& input : model.inputs) {
    doc["inputs"].push_back({{"role", input.role}, {"path", input.path}, {"sha256", input.sha256}, {"now", input.now}});
  }
  doc["wheels"] = model.wheel_dirs;
  doc["deltas"] = json::array();
  for (const Change& change : model.deltas) {
    doc["deltas"].push_back(change_json(change));
  }
  doc["timeline"] = json::array();
  for (const Decision& decision : model.decisions) {
    doc["timeline"].push_back(decision_json(decision));
  }
  doc["candidates"] = json::array();
  for (const CandidateView& view : model.candidates) {
    json candidate = {{"hash", view.hash}, {"label", view.label}, {"role", view.role}, {"applied", view.applied},
                      {"changes", candidate_changes(model, view)}, {"env_hash", view.env_hash},
                      {"attempts", json::array()}, {"excerpts", json::array()}};
    json decisions = json::array();
    for (int index : view.decisions) {
      decisions.push_back(model.decisions[index].n);
    }
    candidate["decisions"] = decisions;
    for (int index : view.attempts) {
      candidate["attempts"].push_back(attempt_json(model, model.attempts[index]));
    }
    if (!view.attempts.empty()) {
      candidate["command"] = attempt_command(model, model.attempts[view.attempts.front()]);
    }
    for (int index : excerpt_attempts(model, view)) {
      auto it = model.excerpts.find(excerpt_key(model.attempts[index]));
      if (it != model.excerpts.end()) {
        candidate["excerpts"].push_back({{"attempt", model.attempts[index].index},
                                         {"stdout", tail_lines(it->second.stdout_tail, 4, 1200)},
                                         {"stderr", tail_lines(it->second.stderr_tail, 6, 1600)}});
      }
    }
    doc["candidates"].push_back(candidate);
  }
  doc["probes"] = json::array();
  for (const Probe& probe : model.probes) {
    doc["probes"].push_back({{"knob", probe.knob}, {"value", probe.value}, {"cache", probe.cache},
                             {"verdict", probe.verdict}, {"median", optional_number(probe.median)}});
  }
  doc["refinements"] = json::array();
  for (const Refinement& refinement : model.refinements) {
    doc["refinements"].push_back({{"delta", change_json(refinement.delta)}, {"kind", refinement.kind},
                                  {"points", refinement.points}, {"found", refinement.found},
                                  {"last_good", refinement.last_good}, {"first_bad", refinement.first_bad},
                                  {"evaluations", refinement.evaluations}, {"note", refinement.note}});
  }
  doc["builds"] = json::array();
  for (const Build& build : model.builds) {
    doc["builds"].push_back({{"env_hash", build.env_hash}, {"ok", build.ok}, {"reason", build.reason},
                             {"builder", build.builder}, {"python", build.python}, {"installed", build.installed},
                             {"seconds", build.seconds}});
  }
  doc["reproduce"] = json::array();
  for (const Command& command : reproduction_commands(model)) {
    doc["reproduce"].push_back({{"purpose", command.purpose}, {"command", command.line}});
  }
  doc["other_records"] = json::array();
  for (const OtherRecord& other : model.others) {
    doc["other_records"].push_back(other.record);
  }
  return doc.dump(2) + "\n";
}

}  // namespace envbisect::report
