#pragma once

#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace envbisect {

class Runner;

namespace detail {

// Compiles the .py files of new store entries to __pycache__/*.cpython-XY.pyc, as pip does at
// install time but once per entry. Unchecked-hash pycs: valid whatever the source's mtime, so every
// hard-linked copy stays valid, and not re-hashed at each import (the store is read-only and its
// identity check redoes an entry whose sources or pycs changed). Starting the interpreter costs
// more than compiling a small package, so concurrent unpacks hand their folders over and one
// caller compiles every folder queued meanwhile in one run (group commit). A file that does not
// compile (Python 2 syntax) keeps no .pyc, as with pip; the rest still do.
class BytecodeCompiler {
public:
  // Compile with `interpreter` under `env`; each compileall run logs to `log_stem`N.{out,err}.log.
  BytecodeCompiler(Runner& runner, std::string interpreter, std::map<std::string, std::string> env,
                   std::string log_stem);

  // Return once the .py files under `site_dir` are compiled (or compiling them failed: then first
  // imports compile them, as without this step). Safe to call from several threads at once.
  void compile(const std::string& site_dir);

private:
  // Compile `dirs`: small packages together on one process (compileall starts a process pool per
  // folder with -j 0: 60 small folders would start 60 pools), each large one on every core.
  void run(const std::vector<std::string>& dirs) noexcept;

  // Run compileall over `dirs` with `workers` processes; log a warning (never throw) when it fails.
  void run_compileall(const std::vector<std::string>& dirs, const std::string& workers) noexcept;

  Runner& m_runner;
  std::string m_interpreter;
  std::map<std::string, std::string> m_env;
  std::string m_log_stem;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<std::string> m_queued;
  std::set<std::string> m_done;
  bool m_running = false;
  std::size_t m_runs = 0;  // only the running caller touches it
};

}  // namespace detail

}  // namespace envbisect
