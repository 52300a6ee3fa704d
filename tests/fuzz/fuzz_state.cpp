// Fuzz target: the state loader. Any input either loads or throws envbisect::Error; a loaded state
// survives a round trip through state_to_json unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "core/state.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  envbisect::EnvState state;
  try {
    state = envbisect::parse_state(text, "fuzz.json");
  } catch (const envbisect::Error&) {
    return 0;
  }
  // A valid state written back and read again is the same state.
  const std::string again = envbisect::state_to_json(state).dump();
  envbisect::EnvState reloaded = envbisect::parse_state(again, "fuzz-again.json");
  if (!(reloaded == state)) {
    std::abort();
  }
  return 0;
}
