#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/runner.hpp"
#include "store/journal.hpp"
#include "store/record_seal.hpp"

namespace envbisect {

// A Runner in front of a run's real one: it journals each local process into RUNDIR/processes.jsonl
// when it starts (process group, session, boot id, start time) and when it ends, so a later `resume`
// can end what a killed session left running, and it caps each log at `max_log_bytes`.
class RecordingRunner : public Runner {
public:
  // Wrap `inner` (which must outlive this) for the run in `run_dir`. Throw Error (environment) when
  // RUNDIR/processes.jsonl cannot be opened.
  RecordingRunner(Runner& inner, const std::string& run_dir, std::uint64_t max_log_bytes);

  // Run `spec` through the inner runner, journaling the process's start and end.
  ProcessResult run(const ProcessSpec& spec) override;

private:
  Runner& m_inner;
  RecordSeal m_seal;  // before m_processes: each record is sealed with the run's key
  Journal m_processes;
  std::uint64_t m_max_log_bytes;
};

// End every process group that RUNDIR/processes.jsonl says started and never ended (a session killed
// with SIGKILL, or a crash) and that still runs, checking boot id and start time so that a reused pid
// is never killed; say so on `err` for each, and journal them as ended. Return how many processes were
// killed. A damaged processes.jsonl is set aside with a warning, never blocking the run. A record
// whose seal (store/record_seal.hpp) does not verify is reported on `err` and never acted on.
std::size_t end_stale_processes(const std::string& run_dir, std::ostream& err);

// Whether reading a run's journal cuts its torn tail (resume) or leaves the file alone (replay).
enum class CutTornTail { yes, no };

// Return the whole records of RUNDIR/journal.jsonl. A torn tail (a crash mid-write) is reported on
// `err` and, when asked, cut so new records follow the last whole one. Throw Error (bad_input) naming
// the line when an unreadable line comes before a whole record.
std::vector<nlohmann::json> read_run_journal(const std::string& run_dir, CutTornTail cut, std::ostream& err);

}  // namespace envbisect
