#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace envbisect {

class Runner;

// Return what the machine was when a run started, for the journal's start record: hostname, kernel,
// CPU model, cores, load average, free memory and, when `nvidia-smi` runs (through `runner`), each
// GPU's name, driver and clocks. Missing facts are left out; never throws for an unreadable file.
nlohmann::json host_context(Runner& runner, const std::string& scratch_dir);

// Return the 1-minute load average from /proc/loadavg, or nullopt when it cannot be read.
std::optional<double> load_average();

}  // namespace envbisect
