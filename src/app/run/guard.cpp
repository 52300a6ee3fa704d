#include "app/run/guard.hpp"

#include <cstdio>
#include <map>
#include <ostream>
#include <utility>

#include <nlohmann/json.hpp>

#include "exec/attempt_cgroup.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/redact.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

std::string processes_path(const std::string& run_dir) {
  return run_dir + "/processes.jsonl";
}

json identity_to_json(const ProcessIdentity& identity) {
  json record = {{"pgid", identity.pid}, {"session", identity.session}, {"start_ticks", identity.start_ticks},
                 {"boot_id", identity.boot_id}};
  // What holds everything it starts: its own cgroup, or (the fallback) only its process group.
  record["containment"] = identity.cgroup.empty() ? "process-group" : "cgroup";
  if (!identity.cgroup.empty()) {
    record["cgroup"] = identity.cgroup;
  }
  return record;
}

}  // namespace

RecordingRunner::RecordingRunner(Runner& inner, const std::string& run_dir, std::uint64_t max_log_bytes)
    : m_inner(inner), m_seal(run_dir, CreateKey::yes), m_processes(processes_path(run_dir)),
      m_max_log_bytes(max_log_bytes) {}

ProcessResult RecordingRunner::run(const ProcessSpec& spec) {
  ProcessSpec recorded = spec;
  recorded.max_log_bytes = m_max_log_bytes;
  std::optional<ProcessIdentity> started;
  recorded.on_spawn = [&](const ProcessIdentity& identity) {
    // Journaled before the process is waited for: a kill -9 from here on leaves its trace.
    started = identity;
    json record = identity_to_json(identity);
    record["type"] = "started";
    record["program"] = spec.argv.empty() ? std::string() : spec.argv[0];
    m_processes.append(m_seal.seal(redact_json(record)));
    if (spec.on_spawn) {
      spec.on_spawn(identity);
    }
  };
  ProcessResult result = m_inner.run(recorded);
  if (started) {
    json record = identity_to_json(*started);
    record["type"] = "ended";
    m_processes.append(m_seal.seal(redact_json(record)));
  }
  return result;
}

std::size_t end_stale_processes(const std::string& run_dir, std::ostream& err) {
  const std::string path = processes_path(run_dir);
  JournalContents contents;
  try {
    contents = read_journal(path);
  } catch (const Error& error) {
    err << "envbisect: warning: " << error.what() << "; set aside as " << path << ".damaged\n";
    std::rename(path.c_str(), (path + ".damaged").c_str());
    return 0;
  }
  // Started and never ended, in journal order; keyed by group and start time. Only records this run
  // wrote count: a line anyone could add to the folder must not choose what gets killed.
  const RecordSeal seal(run_dir, CreateKey::no);
  std::map<std::pair<long long, unsigned long long>, json> open;
  std::size_t line = 0;
  for (const json& record : contents.records) {
    ++line;
    if (!seal.verify(record)) {
      err << "envbisect: warning: " << path << ": record " << line << " is not sealed by this run (key "
          << seal.key_path() << (seal.has_key() ? "" : ", missing") << "); ignored, nothing it names is killed\n";
      continue;
    }
    const auto key = std::make_pair(record.value("pgid", 0LL), record.value("start_ticks", 0ULL));
    if (record.value("type", "") == "started") {
      open[key] = record;
    } else if (record.value("type", "") == "ended") {
      open.erase(key);
    }
  }
  if (open.empty()) {
    return 0;
  }
  std::size_t killed_total = 0;
  Journal journal(path);
  for (const auto& [key, record] : open) {
    ProcessIdentity leader;
    leader.pid = static_cast<pid_t>(key.first);
    leader.session = static_cast<pid_t>(record.value("session", 0));
    leader.start_ticks = key.second;
    leader.boot_id = record.value("boot_id", "");
    std::vector<pid_t> killed = end_stale_group(leader);
    // Its cgroup holds what left the group and the session too.
    killed.resize(killed.size() + end_stale_cgroup(record.value("cgroup", "")));
    if (!killed.empty()) {
      err << "envbisect: killed " << killed.size() << " process" << (killed.size() == 1 ? "" : "es")
          << " of process group " << leader.pid << " (" << record.value("program", "?")
          << ") left running by an earlier session of this run, before starting new attempts\n";
      killed_total += killed.size();
    }
    json ended = record;
    ended["type"] = "ended";
    ended["by"] = "resume";
    ended["killed"] = killed.size();
    journal.append(seal.seal(redact_json(ended)));
  }
  return killed_total;
}

std::vector<json> read_run_journal(const std::string& run_dir, CutTornTail cut, std::ostream& err) {
  const std::string path = run_dir + "/journal.jsonl";
  JournalContents journal = read_journal(path);
  if (journal.torn_tail) {
    err << "envbisect: " << path << ": " << journal.tail_bytes << " bytes from line " << journal.tail_line
        << " on are not whole records (the run was killed mid-write); "
        << (cut == CutTornTail::yes ? "cut them, resuming after record " : "ignored, replaying up to record ")
        << journal.records.size() << "\n";
  }
  if (cut == CutTornTail::yes) {
    cut_torn_tail(path, journal);
  }
  return std::move(journal.records);
}

}  // namespace envbisect
