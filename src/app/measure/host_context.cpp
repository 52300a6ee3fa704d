#include "app/measure/host_context.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "exec/runner.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

// Return the value of the first "key : value" line of a /proc file whose key is `key`.
std::string proc_field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos && trim(line.substr(0, colon)) == key) {
      return trim(line.substr(colon + 1));
    }
  }
  return "";
}

}  // namespace

std::optional<double> load_average() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  if (in >> load) {
    return load;
  }
  return std::nullopt;
}

json host_context(Runner& runner, const std::string& scratch_dir) {
  json host = json::object();
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) {
    host["hostname"] = name;
  }
  utsname uts{};
  if (::uname(&uts) == 0) {
    host["kernel"] = std::string(uts.sysname) + " " + uts.release + " " + uts.machine;
  }
  const std::string cpu = proc_field("/proc/cpuinfo", "model name");
  if (!cpu.empty()) {
    host["cpu"] = cpu;
  }
  host["cores"] = std::thread::hardware_concurrency();
  std::ifstream loadavg("/proc/loadavg");
  double one = 0;
  double five = 0;
  double fifteen = 0;
  if (loadavg >> one >> five >> fifteen) {
    host["loadavg"] = {one, five, fifteen};
  }
  const std::string available = proc_field("/proc/meminfo", "MemAvailable");
  if (!available.empty()) {
    host["mem_available_mib"] = std::stoll(available) / 1024;  // "123456 kB"
  }
  // GPUs: only when nvidia-smi exists on the PATH; its failure is not the run's.
  ProcessSpec spec;
  spec.argv = {"nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem",
               "--format=csv,noheader"};
  spec.env = allowed_parent_env(InheritCudaDevices::yes);
  spec.stdout_path = scratch_dir + "/nvidia-smi.txt";
  spec.timeout = std::chrono::seconds(10);
  const ProcessResult result = runner.run(spec);
  if (result.spawned && result.exit_code == 0) {
    std::istringstream lines(read_file(spec.stdout_path));
    std::string line;
    json gpus = json::array();
    while (std::getline(lines, line)) {
      std::vector<std::string> fields;
      std::istringstream parts(line);
      std::string field;
      while (std::getline(parts, field, ',')) {
        fields.push_back(trim(field));
      }
      if (fields.size() >= 5) {
        gpus.push_back({{"name", fields[0]}, {"driver", fields[1]}, {"sm_clock", fields[2]},
                        {"max_sm_clock", fields[3]}, {"mem_clock", fields[4]}});
      }
    }
    host["gpus"] = gpus;
  }
  remove_tree(spec.stdout_path);
  return host;
}

}  // namespace envbisect
