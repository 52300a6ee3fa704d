#include "app/run/plan/axes.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "env/git_history.hpp"
#include "search/dag_bisect.hpp"
#include "env/requirement.hpp"
#include "env/unzip.hpp"
#include "env/wheel_source.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <spdlog/spdlog.h>

namespace envbisect {

namespace {

// The wheel files of the folders by the package their name gives, each list sorted; read once, so
// looking up a package costs a hash probe, not a scan of every file.
using WheelFiles = std::unordered_map<std::string, std::vector<std::string>>;

WheelFiles wheel_files(const std::vector<std::string>& wheel_dirs) {
  WheelFiles files;
  for (const std::string& dir : wheel_dirs) {
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
      if (const auto parsed = parse_wheel_name(entry.path().filename().string())) {
        files[parsed->name].push_back(entry.path().string());
      }
    }
  }
  for (auto& [name, paths] : files) {
    std::sort(paths.begin(), paths.end());
  }
  return files;
}

// Of the builds of one public version, prefer the bad end's local label, then the good end's.
const Version* pick_variant(const std::vector<const Version*>& builds, const Version& good, const Version& bad) {
  for (const Version* preferred : {&bad, &good}) {
    for (const Version* build : builds) {
      if (build->local() == preferred->local()) {
        return build;
      }
    }
  }
  for (const Version* build : builds) {
    if (!build->has_local()) {
      return build;
    }
  }
  return builds.front();
}

std::vector<std::string> version_points(const std::string& name, const std::string& good_text,
                                        const std::string& bad_text, const WheelFiles& wheels) {
  std::optional<Version> good = Version::parse(good_text);
  std::optional<Version> bad = Version::parse(bad_text);
  if (!good || !bad || good->public_version() == bad->public_version()) {
    return {};  // a local-label change is a variant: a toggle, not an order
  }
  bool upgrade = *good < *bad;
  const Version& low = upgrade ? *good : *bad;
  const Version& high = upgrade ? *bad : *good;
  const auto files = wheels.find(normalize_package_name(name));
  if (files == wheels.end()) {
    return {};
  }
  WheelVersions available = list_wheel_versions(name, files->second);
  // Group the builds strictly between the ends by public version, in PEP 440 order.
  std::vector<std::pair<std::string, std::vector<const Version*>>> inner;
  for (const Version& version : available.versions) {
    if (version.public_version() == low.public_version() || version.public_version() == high.public_version() ||
        version < low || high < version) {
      continue;
    }
    if (inner.empty() || inner.back().first != version.public_version()) {
      inner.push_back({version.public_version(), {}});
    }
    inner.back().second.push_back(&version);
  }
  if (inner.empty()) {
    return {};
  }
  std::vector<std::string> points = {good_text};
  std::vector<std::string> middle;
  for (const auto& [public_version, builds] : inner) {
    middle.push_back(pick_variant(builds, *good, *bad)->to_string());
  }
  if (!upgrade) {
    std::reverse(middle.begin(), middle.end());
  }
  points.insert(points.end(), middle.begin(), middle.end());
  points.push_back(bad_text);
  return points;
}

}  // namespace

std::vector<Axis> plan_axes(const std::vector<Delta>& deltas, const EnvState& good, const EnvState& bad,
                            const std::vector<std::string>& wheel_dirs, FirstParent first_parent) {
  std::vector<Axis> axes;
  const WheelFiles files = wheel_files(wheel_dirs);
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    const Delta& delta = deltas[i];
    if (!delta.good || !delta.bad) {
      continue;  // added or removed: a toggle
    }
    if (delta.dimension == Dimension::packages) {
      std::vector<std::string> points = version_points(delta.name, *delta.good, *delta.bad, files);
      if (!points.empty()) {
        axes.push_back({i, "versions", points, std::nullopt, {}, {}, {}, {}});
      }
    } else if (delta.dimension == Dimension::repos && good.repos.at(delta.name).path == bad.repos.at(delta.name).path) {
      // `git rev-list bad ^good` (or its first-parent line); a good commit that is not an ancestor of
      // bad brings the merge bases to test first.
      CommitRange range;
      try {
        range = commits_between(good.repos.at(delta.name).path, *delta.good, *delta.bad, first_parent);
      } catch (const Error& e) {
        // Named by field and by the revisions as the states wrote them (the ids are resolved ones).
        const auto written = [](const RepoPin& pin) {
          return "'" + (pin.ref.empty() ? pin.commit : pin.ref) + "' (" + pin.commit.substr(0, 12) + ")";
        };
        throw Error("/repos/" + pointer_token(delta.name) + "/commit: good " + written(good.repos.at(delta.name)) +
                    ", bad " + written(bad.repos.at(delta.name)) + ": " + e.what(), e.code());
      }
      if (range.commits.size() >= 2) {
        Axis axis{i, "commits", {*delta.good}, std::nullopt, {}, {}, {}, {}};
        if (!range.good_is_ancestor) {
          axis.merge_bases = range.merge_bases;
        }
        bool merges = false;
        for (const RangeCommit& commit : range.commits) {
          axis.points.push_back(commit.id);
          std::vector<std::size_t> parents;
          for (std::size_t parent : commit.parents) {
            parents.push_back(parent + 1);
          }
          merges = merges || parents.size() > 1;
          axis.parents.push_back(parents);
          // Its last good is shown as the good end: say so where that is not its parent.
          const std::vector<std::string>& outside = commit.outside_parents;
          if (commit.root) {
            axis.parent_notes[axis.points.size() - 1] =
                "it is a root commit (no parent): the last good shown is the good end, not a parent of it";
          } else if (commit.parents.empty() && std::find(outside.begin(), outside.end(), range.good_id) == outside.end()) {
            std::vector<std::string> ids;
            bool all_bases = true;  // merge bases were measured good before the range was bisected
            for (const std::string& id : outside) {
              ids.push_back(id.substr(0, 12));
              all_bases = all_bases && std::find(axis.merge_bases.begin(), axis.merge_bases.end(), id) !=
                                           axis.merge_bases.end();
            }
            axis.parent_notes[axis.points.size() - 1] =
                "its parent" + std::string(ids.size() > 1 ? "s " : " ") + join(ids, ", ") +
                (all_bases ? (ids.size() > 1 ? " are merge bases, measured good first"
                                             : " is the merge base, measured good first")
                           : (ids.size() > 1 ? " lie" : " lies") +
                                 std::string(" outside the range (reachable from good, never measured: assumed "
                                             "good, as git bisect assumes)")) +
                ": the last good shown is the good end, not a parent of it";
          }
        }
        axis.points.back() = *delta.bad;
        if (!merges) {
          axis.parents.clear();  // a chain: plain bisection asks the same questions
        }
        axes.push_back(axis);
      }
    } else if (delta.dimension == Dimension::threads) {
      // A range, bisected by arithmetic: 1..10^7 threads is two numbers, not ten million strings.
      const std::int64_t from = std::stoll(*delta.good);
      const std::int64_t to = std::stoll(*delta.bad);
      if ((to > from ? to - from : from - to) >= 2) {  // both >= 0: the difference cannot overflow
        Axis axis{i, "numbers", {}, NumberRange{from, to}, {}, {}, {}, {}};
        axes.push_back(axis);
      }
    }
  }
  return axes;
}

std::size_t Axis::size() const {
  if (numbers) {
    const std::int64_t span = numbers->to > numbers->from ? numbers->to - numbers->from : numbers->from - numbers->to;
    return static_cast<std::size_t>(span) + 1;  // span <= 2^63-1: fits
  }
  return points.size();
}

std::string Axis::point(std::size_t index) const {
  if (!numbers) {
    return points.at(index);
  }
  if (index >= size()) {
    throw std::out_of_range("axis point " + std::to_string(index) + " of " + std::to_string(size()));
  }
  const auto step = static_cast<std::int64_t>(index);  // < size() <= 2^63: fits
  return std::to_string(numbers->to > numbers->from ? numbers->from + step : numbers->from - step);
}

std::string describe_axis_points(const Axis& axis, std::size_t max_shown) {
  const std::size_t count = axis.size();
  auto shown = [&](std::size_t index) {
    std::string point = axis.point(index);
    return axis.kind == "commits" ? point.substr(0, 12) : point;
  };
  std::vector<std::string> parts;
  if (count <= std::max<std::size_t>(max_shown, 4)) {
    for (std::size_t index = 0; index < count; ++index) {
      parts.push_back(shown(index));
    }
    return join(parts, " < ");
  }
  for (std::size_t index = 0; index < 2; ++index) {
    parts.push_back(shown(index));
  }
  parts.push_back("...");
  for (std::size_t index = count - 2; index < count; ++index) {
    parts.push_back(shown(index));
  }
  return join(parts, " < ") + " (" + std::to_string(count) + " points)";
}

nlohmann::json axis_points_json(const Axis& axis) {
  if (axis.numbers && axis.size() > 1000) {
    return {{"from", std::to_string(axis.numbers->from)},
            {"to", std::to_string(axis.numbers->to)},
            {"count", axis.size()}};
  }
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t index = 0; index < axis.size(); ++index) {
    out.push_back(axis.point(index));
  }
  return out;
}

EnvState with_axis_point(const EnvState& state, const std::vector<Delta>& deltas, const Axis& axis, std::size_t index) {
  EnvState out = state;
  const Delta& delta = deltas.at(axis.delta);
  const std::string value = axis.point(index);
  if (delta.dimension == Dimension::packages) {
    out.packages[delta.name] = PackagePin{value, std::nullopt, std::nullopt};
    if (index < axis.companions.size()) {
      for (const auto& [name, version] : axis.companions[index]) {
        out.packages[name] = PackagePin{version, std::nullopt, std::nullopt};
      }
    }
  } else if (delta.dimension == Dimension::threads) {
    out.threads[delta.name] = std::stoll(value);
  } else if (delta.dimension == Dimension::repos) {
    out.repos[delta.name].commit = value;
    out.repos[delta.name].ref.clear();  // a point of the axis is an id, whatever ref an end had
  }
  return out;
}

namespace {

// Return the DAG nodes of a commit axis with merges: points[1..] as nodes 0.., parents shifted alike.
std::vector<DagNode> axis_nodes(const Axis& axis) {
  std::vector<DagNode> nodes;
  for (const std::vector<std::size_t>& parents : axis.parents) {
    DagNode node;
    for (std::size_t parent : parents) {
      node.parents.push_back(parent - 1);
    }
    nodes.push_back(node);
  }
  return nodes;
}

// Return `bisection` with the axis's note on its first bad point's parents, when it has one.
Bisection with_parent_note(const Axis& axis, Bisection bisection) {
  const auto note = axis.parent_notes.find(bisection.first_bad);
  if (bisection.found && note != axis.parent_notes.end()) {
    bisection.note = bisection.note.empty() ? note->second : bisection.note + "; " + note->second;
  }
  return bisection;
}

// Return a DAG bisection in the axis's indices, the assumed ends first, as the chain's bisection reads.
Bisection axis_bisection(const Axis& axis, const DagBisection& dag) {
  Bisection out;
  out.found = dag.found;
  out.first_bad = dag.first_bad + 1;
  // The first bad commit's parents are all good; its first parent is the "last good" a reader expects.
  const std::vector<std::size_t>& parents = axis.parents.at(dag.first_bad);
  out.last_good = parents.empty() ? 0 : parents.front();
  out.note = dag.note;
  out.evaluations = dag.evaluations;
  out.steps.push_back(BisectStep{0, Verdict::good, "good end, measured by the caller", true});
  out.steps.push_back(BisectStep{axis.points.size() - 1, Verdict::bad, "bad end, measured by the caller", true});
  for (const DagStep& step : dag.steps) {
    out.steps.push_back(BisectStep{step.node + 1, step.verdict, step.why, false});
  }
  return out;
}

}  // namespace

Bisection bisect_axis(const Axis& axis, const IndexOracle& oracle) {
  // Notes and reasons name the points themselves (a version, a commit id), not their indices.
  if (axis.parents.empty()) {
    return with_parent_note(axis, first_bad(axis.size(), oracle, [&](std::size_t index) { return axis.point(index); }));
  }
  return with_parent_note(axis, axis_bisection(axis, dag_first_bad(
                                                         axis_nodes(axis), [&](std::size_t node) { return oracle(node + 1); },
                                                         [&](std::size_t node) { return axis.point(node + 1); })));
}

KaryBisection bisect_axis_k(const Axis& axis, std::size_t slots, const BatchIndexOracle& oracle) {
  KaryBisection out;
  if (slots <= 1) {
    // One point a round: exactly the serial questions, each asked as a batch of one.
    out.bisection = bisect_axis(axis, [&](std::size_t index) {
      const std::vector<Verdict> verdicts = oracle({index});
      return verdicts.empty() ? Verdict::skip : verdicts.front();
    });
    out.rounds = out.bisection.evaluations;
    return out;
  }
  if (axis.parents.empty()) {
    KaryBisection chain = kary_first_bad(axis.size(), slots, oracle, [&](std::size_t index) { return axis.point(index); });
    chain.bisection = with_parent_note(axis, chain.bisection);
    return chain;
  }
  const DagKaryBisection dag = dag_first_bad_k(axis_nodes(axis), slots, [&](const std::vector<std::size_t>& nodes) {
    std::vector<std::size_t> indices;
    for (std::size_t node : nodes) {
      indices.push_back(node + 1);
    }
    return oracle(indices);
  }, [&](std::size_t node) { return axis.point(node + 1); });
  out.bisection = with_parent_note(axis, axis_bisection(axis, dag.bisection));
  out.rounds = dag.rounds;
  return out;
}

int isolation_worst_case(std::size_t delta_count, std::size_t culprits) {
  if (delta_count <= 1 || culprits == 0) {
    return 0;  // one difference is the cause: both verifications are the anchors, measured already
  }
  // The plain prefix bisection's K*(depth+1), one question of room for the informed search to lean
  // toward likely causes (search/informed.cpp), and one to verify.
  int depth = static_cast<int>(std::ceil(std::log2(static_cast<double>(delta_count))));
  return static_cast<int>(culprits) * (depth + 1) + 2;
}

int bisection_worst_case(std::size_t points) {
  return points <= 2 ? 0 : static_cast<int>(std::ceil(std::log2(static_cast<double>(points - 1))));
}

namespace {

// Return, for one point of a pinned unit's lead, the version each partner of the unit takes there: the
// highest in the partner's good..bad range that the lead's Requires-Dist (`lead_metadata`) allows;
// nothing when some partner has no such version (the point is unresolvable).
using Companions = std::map<std::string, std::string>;
std::optional<Companions> partner_versions(const std::vector<std::size_t>& unit, std::size_t lead,
                                           const std::vector<Delta>& deltas, const DistMetadata& lead_metadata,
                                           const WheelFiles& files) {
  Companions partners;
  for (std::size_t member : unit) {
    const Delta& partner = deltas[member];
    if (member == lead || partner.dimension != Dimension::packages || !partner.good || !partner.bad) {
      continue;
    }
    std::vector<std::string> choices = version_points(partner.name, *partner.good, *partner.bad, files);
    if (choices.empty()) {
      choices = {*partner.good, *partner.bad};
    }
    std::optional<std::string> chosen;
    for (auto it = choices.rbegin(); it != choices.rend() && !chosen; ++it) {
      std::optional<Version> parsed = Version::parse(*it);
      bool ok = parsed.has_value();
      for (const Requirement& requirement : lead_metadata.requires_dist) {
        if (ok && requirement.name == partner.name && requirement.marker.empty()) {
          ok = satisfies(*parsed, requirement);
        }
      }
      if (ok) {
        chosen = *it;
      }
    }
    if (!chosen) {
      return std::nullopt;
    }
    partners[partner.name] = *chosen;
  }
  return partners;
}

}  // namespace

void pin_group_axes(std::vector<Axis>& axes, const std::vector<Delta>& deltas,
                    const std::vector<std::vector<std::size_t>>& units, const EnvState& bad,
                    const std::vector<std::string>& wheel_dirs, const std::vector<std::string>& uv_caches) {
  std::vector<std::size_t> dropped;  // axes of partners: they move with their lead
  std::optional<WheelSources> sources;  // read at the first pinned group: most plans have none
  std::optional<WheelFiles> files;
  for (const std::vector<std::size_t>& unit : units) {
    if (unit.size() < 2) {
      continue;
    }
    auto lead = std::find_if(axes.begin(), axes.end(), [&](const Axis& axis) {
      return axis.kind == "versions" && std::find(unit.begin(), unit.end(), axis.delta) != unit.end();
    });
    if (lead == axes.end()) {
      continue;
    }
    for (const Axis& axis : axes) {
      if (&axis != &*lead && std::find(unit.begin(), unit.end(), axis.delta) != unit.end()) {
        dropped.push_back(axis.delta);
      }
    }
    const std::string& lead_name = deltas[lead->delta].name;
    if (!sources) {
      sources = index_sources(WheelSources{wheel_dirs, uv_caches});
      files = wheel_files(wheel_dirs);
    }
    Axis pinned = *lead;
    pinned.points = {lead->points.front()};
    pinned.companions = {{}};
    for (std::size_t member : unit) {
      if (member != lead->delta && deltas[member].dimension == Dimension::packages && deltas[member].good) {
        pinned.companions.front()[deltas[member].name] = *deltas[member].good;
      }
    }
    for (std::size_t index = 1; index + 1 < lead->points.size(); ++index) {
      const std::string& version = lead->points[index];
      std::optional<DistMetadata> metadata;
      try {
        std::optional<Distribution> dist = find_distribution(*sources, lead_name, version, bad.python.version);
        if (dist) {
          metadata = read_distribution_metadata(*dist);
        }
      } catch (const Error& error) {
        spdlog::warn("{} {}: metadata not readable: {}", lead_name, version, error.what());
      }
      if (!metadata) {
        continue;  // cannot tell what it pins: leave the point out
      }
      if (auto partners = partner_versions(unit, lead->delta, deltas, *metadata, *files)) {
        pinned.points.push_back(version);
        pinned.companions.push_back(std::move(*partners));
      }
    }
    pinned.points.push_back(lead->points.back());
    std::map<std::string, std::string> bad_end;
    for (std::size_t member : unit) {
      if (member != lead->delta && deltas[member].dimension == Dimension::packages && deltas[member].bad) {
        bad_end[deltas[member].name] = *deltas[member].bad;
      }
    }
    pinned.companions.push_back(bad_end);
    *lead = pinned;
  }
  axes.erase(std::remove_if(axes.begin(), axes.end(), [&](const Axis& axis) {
               return std::find(dropped.begin(), dropped.end(), axis.delta) != dropped.end() ||
                      (axis.kind == "versions" && axis.points.size() < 3);
             }),
             axes.end());
}

}  // namespace envbisect
