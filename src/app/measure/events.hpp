#pragma once

#include <string>

#include "core/outcome.hpp"

namespace envbisect {

// How an environment's build ended.
enum class BuildEnd {
  built,   // built now
  reused,  // built earlier (this session or one before it)
  failed,  // cannot be built
};

// What measuring tells as it goes: environments built, attempts started and finished. The measuring
// code calls it and knows nothing of how it is shown; the run's status line (Progress) implements it.
class MeasureEvents {
public:
  virtual ~MeasureEvents() = default;
  // An environment is being built.
  virtual void building(const std::string& env_hash) = 0;
  // An environment's build ended as `end`, after `seconds` (0 when reused).
  virtual void built(const std::string& env_hash, BuildEnd end, double seconds) = 0;
  // Attempt `index` (0-based) of `of` of a candidate started.
  virtual void attempt_started(const std::string& candidate_hash, int index, int of) = 0;
  // Attempt `index` of `of` of a candidate ended with `result`.
  virtual void attempt_finished(const std::string& candidate_hash, int index, int of, const RunResult& result) = 0;
};

}  // namespace envbisect
