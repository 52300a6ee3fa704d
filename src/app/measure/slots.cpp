#include "app/measure/evaluate.hpp"

#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "exec/runner.hpp"
#include "util/error.hpp"

namespace envbisect {

// Several candidates at once (--slots): the attempts are planned under the evaluator's lock, run by
// `slots` worker threads, and journaled in each candidate's attempt order.
void Evaluator::measure_all(const std::vector<Candidate>& candidates, int count, int slots) {
  if (slots <= 1) {
    for (const Candidate& candidate : candidates) {
      measure(candidate, count);
    }
    return;
  }
  // Plan the attempts serially: environments are built (or found unbuildable) before anything runs.
  struct Job {
    const Candidate* candidate;
    const Built* built;
    int attempt;
  };
  std::vector<Job> jobs;
  {
    const std::lock_guard<std::recursive_mutex> lock(m_mutex);
    std::vector<std::pair<const Candidate*, const Built*>> runnable;
    for (const Candidate& candidate : candidates) {
      bool seen = false;
      for (const auto& [other, built] : runnable) {
        seen = seen || other->hash == candidate.hash;
      }
      m_runs_asked[candidate.hash] = std::max(m_runs_asked[candidate.hash], count);
      if (seen || static_cast<int>(m_attempts[candidate.hash].size()) >= count) {
        continue;
      }
      if (m_setup.missing == MissingAttempt::refuse) {
        measure(candidate, count);  // a replay: throws, naming the attempt the journal lacks
        continue;
      }
      const Built& built = build(candidate);
      if (!built.venv.ok) {
        measure(candidate, count);  // one skip attempt carrying the reason
        continue;
      }
      runnable.emplace_back(&candidate, &built);
    }
    // Interleaved, attempt by attempt, so drift on a shared machine hits every candidate alike.
    for (int attempt = 0; attempt < count; ++attempt) {
      for (const auto& [candidate, built] : runnable) {
        if (attempt >= static_cast<int>(m_attempts[candidate->hash].size())) {
          jobs.push_back(Job{candidate, built, attempt});
        }
      }
    }
  }
  // At this point every job's environment exists; workers take jobs in order, `slots` at a time.
  std::mutex queue_mutex;
  std::size_t next = 0;
  std::exception_ptr failure;
  std::map<std::string, std::map<int, RunResult>> finished;  // by candidate hash, then attempt
  auto worker = [&](int slot) {
    for (;;) {
      Job job{};
      {
        const std::lock_guard<std::mutex> queue_lock(queue_mutex);
        if (failure || next >= jobs.size()) {
          return;
        }
        job = jobs[next++];
      }
      try {
        if (interrupt_requested()) {
          throw Error("interrupted; `envbisect resume " + m_setup.run_dir + "` continues this run",
                      ExitCode::interrupted);
        }
        RunResult result = run_attempt(*job.candidate, *job.built, job.attempt, slot);
        const std::lock_guard<std::recursive_mutex> lock(m_mutex);
        ++m_attempts_run;
        // Journal in attempt order: a resumed run reads a candidate's attempts back in that order.
        std::map<int, RunResult>& waiting = finished[job.candidate->hash];
        waiting.emplace(job.attempt, std::move(result));
        std::vector<RunResult>& done = m_attempts[job.candidate->hash];
        for (auto it = waiting.find(static_cast<int>(done.size())); it != waiting.end();
             it = waiting.find(static_cast<int>(done.size()))) {
          record(*job.candidate, it->second);
          waiting.erase(it);
        }
      } catch (...) {
        const std::lock_guard<std::mutex> queue_lock(queue_mutex);
        if (!failure) {
          failure = std::current_exception();
        }
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  const std::size_t width = std::min(jobs.size(), static_cast<std::size_t>(slots));
  for (std::size_t i = 0; i < width; ++i) {
    threads.emplace_back(worker, static_cast<int>(i));
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  if (failure) {
    std::rethrow_exception(failure);
  }
}

}  // namespace envbisect
