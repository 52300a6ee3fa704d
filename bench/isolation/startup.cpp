// Start-up cost of one benchmark run per isolation backend, against the same run in a bare venv.
// Usage: bench_isolation_startup VENV WORK_DIR [runs]. Each round runs `VENV/bin/python -c pass` once
// per backend, round-robin, so machine noise hits every backend alike; prints the median wall time per
// backend and its ratio to the bare run. A backend whose tool is missing or fails is reported as n/a.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "exec/isolation.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

using namespace envbisect;

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s VENV WORK_DIR [runs]\n", argv[0]);
    return 2;
  }
  spdlog::set_level(spdlog::level::warn);
  std::string venv = absolute_path(argv[1], ".");
  std::string work = absolute_path(argv[2], ".");
  int runs = argc > 3 ? std::stoi(argv[3]) : 20;
  make_dirs(work + "/attempt");

  ProcessSpec spec;
  spec.argv = {venv + "/bin/python", "-c", "pass"};
  spec.env = allowed_parent_env();
  spec.cwd = work + "/attempt";
  spec.read_paths = {venv};
  spec.write_paths = {work + "/attempt"};
  spec.timeout = std::chrono::seconds(60);

  std::vector<std::pair<std::string, std::unique_ptr<Runner>>> backends;
  backends.emplace_back("bare venv", std::make_unique<LocalRunner>());
  for (const char* name : {"bwrap", "podman", "lxc"}) {
    try {
      IsolationOptions options;
      options.kind = parse_isolation(name);
      backends.emplace_back(name, std::make_unique<IsolatedRunner>(std::make_unique<LocalRunner>(), options));
    } catch (const Error& error) {
      std::printf("%-10s n/a (%s)\n", name, error.what());
    }
  }
  std::map<std::string, std::vector<double>> times;
  std::map<std::string, bool> failed;
  // One unmeasured round: podman imports its base and commits the venv as a layer here.
  for (int round = -1; round < runs; ++round) {
    for (auto& [name, runner] : backends) {
      ProcessResult result = runner->run(spec);
      if (!result.spawned || result.exit_code != 0) {
        failed[name] = true;
      } else if (round >= 0) {
        times[name].push_back(result.wall_seconds);
      }
    }
  }
  double bare = times["bare venv"].empty() ? 0.0 : median(times["bare venv"]);
  std::printf("%-10s %12s %12s %8s\n", "backend", "median_ms", "extra_ms", "ratio");
  for (auto& [name, runner] : backends) {
    if (failed[name] || times[name].empty()) {
      std::printf("%-10s n/a (a run failed)\n", name.c_str());
      continue;
    }
    double m = median(times[name]);
    std::printf("%-10s %12.1f %12.1f %8.2f\n", name.c_str(), m * 1000, (m - bare) * 1000, bare > 0 ? m / bare : 0.0);
  }
  return 0;
}
