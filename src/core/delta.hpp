#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/state.hpp"

namespace envbisect {

// The dimensions of a state, in the order diffs and reports list them.
enum class Dimension { python, packages, repos, caches, threads, env, data, gpus, container };

// One difference between the good and the bad state: an entry added, removed or changed.
struct Delta {
  Dimension dimension = Dimension::packages;
  std::string name;                 // package, repo, cache, knob or variable name ("interpreter" for python)
  std::optional<std::string> good;  // displayed value in good; nullopt when absent there
  std::optional<std::string> bad;   // displayed value in bad; nullopt when absent there
  std::string good_ref{};           // repos: the tag, branch or revision good gave for the commit, or empty
  std::string bad_ref{};            // repos: the tag, branch or revision bad gave for the commit, or empty
  bool operator==(const Delta&) const = default;
};

// Return the lower-case name of a dimension ("packages", "caches", ...).
std::string_view to_string(Dimension dimension);

// Return the deltas from good to bad, sorted by dimension then name. Identical states give none; a
// field either state lists as unknown gives none (the other state's value stands for both).
std::vector<Delta> diff_states(const EnvState& good, const EnvState& bad);

// Return the fields `state` lists as unknown that `other` knows, in k_unknowable_fields order: compared
// or run beside `other`, these take its values.
std::vector<std::string> taken_from_other(const EnvState& state, const EnvState& other);

// Return the good state with the deltas at `applied` (indices into `deltas`) taken from bad; a field
// good does not know is bad's, one neither knows stays unknown.
EnvState apply_deltas(const EnvState& good, const EnvState& bad, const std::vector<Delta>& deltas,
                      const std::vector<std::size_t>& applied);

// Return a short label such as "packages/fauxtorch 2.11.0+cu128 -> 2.11.0+cu130".
std::string describe(const Delta& delta);

// Return the names of the deltas at `set` (indices into `deltas`) as "{packages/torch, caches/inductor}".
std::string describe_set(const std::vector<Delta>& deltas, const std::vector<std::size_t>& set);

// Return the delta as {"dimension", "name", "good", "bad"} (null for absent).
nlohmann::json delta_to_json(const Delta& delta);

}  // namespace envbisect
