#include "env/bytecode_compiler.hpp"

#include <chrono>
#include <exception>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "exec/runner.hpp"

namespace envbisect::detail {

namespace {

namespace fs = std::filesystem;

constexpr std::chrono::minutes k_compile_timeout{20};  // torch's 5,500 modules take about a minute on 2 cores

// Return the number of .py files below `dir`.
std::size_t count_sources(const std::string& dir) {
  std::size_t sources = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    sources += it->path().extension() == ".py" ? 1 : 0;
  }
  return sources;
}

}  // namespace

BytecodeCompiler::BytecodeCompiler(Runner& runner, std::string interpreter, std::map<std::string, std::string> env,
                                   std::string log_stem)
    : m_runner(runner), m_interpreter(std::move(interpreter)), m_env(std::move(env)), m_log_stem(std::move(log_stem)) {}

void BytecodeCompiler::compile(const std::string& site_dir) {
  if (count_sources(site_dir) == 0) {
    return;
  }
  std::unique_lock<std::mutex> lock(m_mutex);
  m_queued.push_back(site_dir);
  while (m_done.count(site_dir) == 0) {
    if (m_running) {
      m_changed.wait(lock);
      continue;
    }
    // This caller compiles every folder queued so far; the others wait for it.
    m_running = true;
    std::vector<std::string> batch;
    batch.swap(m_queued);
    lock.unlock();
    run(batch);
    lock.lock();
    m_done.insert(batch.begin(), batch.end());
    m_running = false;
    m_changed.notify_all();
  }
}

void BytecodeCompiler::run(const std::vector<std::string>& dirs) noexcept {
  std::vector<std::string> small;
  for (const std::string& dir : dirs) {
    if (count_sources(dir) > 512) {
      run_compileall({dir}, "0");
    } else {
      small.push_back(dir);
    }
  }
  if (!small.empty()) {
    run_compileall(small, "1");
  }
}

void BytecodeCompiler::run_compileall(const std::vector<std::string>& dirs, const std::string& workers) noexcept {
  try {
    ProcessSpec spec;
    spec.argv = {m_interpreter, "-I", "-m", "compileall", "-q", "-j", workers, "--invalidation-mode", "unchecked-hash"};
    spec.argv.insert(spec.argv.end(), dirs.begin(), dirs.end());
    spec.env = m_env;
    spec.stdout_path = m_log_stem + std::to_string(m_runs) + ".out.log";
    spec.stderr_path = m_log_stem + std::to_string(m_runs) + ".err.log";
    ++m_runs;
    spec.timeout = k_compile_timeout;
    const ProcessResult r = m_runner.run(spec);
    if (!r.spawned || r.timed_out) {
      spdlog::warn("compiling bytecode failed ({}); first imports compile it", r.spawned ? "timed out" : r.spawn_error);
    }
  } catch (const std::exception& e) {
    spdlog::warn("compiling bytecode failed ({}); first imports compile it", e.what());
  }
}

}  // namespace envbisect::detail
