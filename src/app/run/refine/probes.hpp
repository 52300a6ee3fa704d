#pragma once

#include <nlohmann/json.hpp>

#include "app/run/refine/stages.hpp"
#include "core/state.hpp"
#include "search/isolate.hpp"

namespace envbisect {

// How much of the threads x cache grid the probes measure.
enum class ProbeMode {
  boundary,  // bisect the thread counts for the first bad one, flipped caches only at the boundary
  full,      // every cell at full statistics
};

// Return the probe mode named `name` ("boundary" or "full"). Throw Error (bad_input) for another name.
ProbeMode probe_mode_from(const std::string& name);

// Return the thread counts probed for a knob whose state has `count`: 1..max(4, count), doublings past 8.
std::vector<std::int64_t> probe_values(std::int64_t count);

// Return the variants the probes compare: the cause's state, then each warm/cold cache flipped.
std::vector<EnvState> cache_variants(const EnvState& cause_state);

// Probe the modifiers with the cause applied: every thread knob from 1 to max(4, its count), with the
// caches as the cause has them and with each warm/cold cache flipped. With ProbeMode::boundary the
// counts are bisected for the first bad one (assumed monotone: good at 1, bad at the top; both ends
// are measured, and a variant whose ends or middle break that assumption gets every count measured),
// and each flipped-cache variant is decided only at the last good and first bad count. Journal and
// return one entry per cell in count order ({type, knob, value, cache, verdict, median, measured});
// a cell inferred from monotonicity has "measured": false, a null median and the verdict "inferred
// good" or "inferred bad"; cells neither measured nor inferred are left out.
nlohmann::json probe_modifiers(const StageContext& context, const DeltaSet& cause, const EnvState& cause_state,
                               ProbeMode mode);

}  // namespace envbisect
