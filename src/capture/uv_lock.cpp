// uv.lock read as `uv sync` / `uv export` read it (docs/INPUTS.md, "uv.lock").
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "capture/lock_parts.hpp"
#include "capture/uv_entries.hpp"
#include "core/state.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect::lock_parts {

namespace {

// A (package, extra-or-group) pair; uv names them in conflict markers as `extra-N-PKG-X` / `group-N-PKG-G`.
using Activation = std::pair<std::string, std::string>;

std::string conflict_marker_value(const std::string& kind, const Activation& activation) {
  return kind + "-" + std::to_string(activation.first.size()) + "-" + activation.first + "-" + activation.second;
}

// The installed set a selection gives: which entries, which extras and groups were active.
class UvInstall {
public:
  UvInstall(const std::vector<UvEntry>& entries, const std::string& label, const MarkerEnvironment& target)
      : m_label(label), m_target(target) {
    for (const UvEntry& entry : entries) {
      m_by_name.emplace(entry.name, &entry);
    }
  }

  // Return the entry named `name` in the lock, nullptr when there is none.
  const UvEntry* find(const std::string& name) const {
    auto found = m_by_name.find(name);
    return found == m_by_name.end() ? nullptr : found->second;
  }

  // Walk from `roots` with the root extras and groups given: one pass that gathers the extras
  // dependencies switch on (when the lock declares conflicts), then the pass that takes entries with
  // every conflict marker evaluated against the full set, as uv does.
  void walk(const std::vector<const UvEntry*>& roots, bool prod, const std::set<Activation>& root_extras,
            const std::set<Activation>& groups, const toml::table* manifest_groups, bool gather) {
    m_extras = root_extras;
    m_groups = groups;
    if (gather) {
      run(roots, prod, root_extras, manifest_groups, true);
    }
    run(roots, prod, root_extras, manifest_groups, false);
  }

  const std::set<const UvEntry*>& included() const { return m_included; }
  const std::set<Activation>& extras() const { return m_extras; }

private:
  MarkerEnvironment environment(const std::set<Activation>& extras) const {
    MarkerEnvironment env = m_target;
    for (const Activation& extra : extras) {
      env.extras.insert(conflict_marker_value("extra", extra));
    }
    for (const Activation& group : m_groups) {
      env.extras.insert(conflict_marker_value("group", group));
    }
    return env;
  }

  // Return the entry a dependency table means: by name, and by version and source when it gives them
  // (a name the lock holds in several resolutions).
  const UvEntry* resolve(const toml::table& dependency, const std::string& where) const {
    const std::string name = normalize_package_name(get_string(dependency["name"]));
    const std::string version = get_string(dependency["version"]);
    const std::string source = source_text(dependency["source"].as_table());
    auto [first, last] = m_by_name.equal_range(name);
    for (auto it = first; it != last; ++it) {
      if (!version.empty() && it->second->version != version) {
        continue;
      }
      if (!source.empty() && source_text((*it->second->table)["source"].as_table()) != source) {
        continue;
      }
      return it->second;
    }
    fail(m_label, where, "depends on " + name + (version.empty() ? "" : " " + version) + ", which the lock does not hold");
  }

  struct Visit {
    const UvEntry* entry;
    std::string extra;  // "" = the entry's own dependencies
  };

  // Follow one dependency list.
  void follow(const toml::array* dependencies, const std::string& where, bool gather, std::vector<Visit>& queue,
              std::set<std::pair<const UvEntry*, std::string>>& seen) {
    if (dependencies == nullptr) {
      return;
    }
    for (std::size_t j = 0; j < dependencies->size(); ++j) {
      const std::string at = where + "/" + std::to_string(j);
      const toml::table* dependency = (*dependencies)[j].as_table();
      if (dependency == nullptr) {
        fail(m_label, at, "expected a table");
      }
      const UvEntry* entry = resolve(*dependency, at);
      const std::vector<std::string> extras = string_array((*dependency)["extra"].as_array());
      std::set<Activation> with = m_extras;
      if (gather) {
        for (const std::string& extra : extras) {
          with.insert({entry->name, normalize_package_name(extra)});
        }
      }
      if (!marker_holds(get_string((*dependency)["marker"]), environment(with), m_label, at + "/marker")) {
        continue;
      }
      if (gather) {
        m_extras = std::move(with);
      } else {
        m_included.insert(entry);
      }
      if (seen.insert({entry, ""}).second) {
        queue.push_back({entry, ""});
      }
      for (const std::string& extra : extras) {
        if (seen.insert({entry, extra}).second) {
          queue.push_back({entry, extra});
        }
      }
    }
  }

  void run(const std::vector<const UvEntry*>& roots, bool prod, const std::set<Activation>& root_extras,
           const toml::table* manifest_groups, bool gather) {
    std::vector<Visit> queue;
    std::set<std::pair<const UvEntry*, std::string>> seen;
    for (const UvEntry* root : roots) {
      if (prod) {
        if (!gather) {
          m_included.insert(root);  // --only-group installs the groups without the project itself
        }
        seen.insert({root, ""});
        queue.push_back({root, ""});
        for (const Activation& extra : root_extras) {
          if (extra.first == root->name && seen.insert({root, extra.second}).second) {
            queue.push_back({root, extra.second});
          }
        }
      }
      if (const toml::table* groups = (*root->table)["dev-dependencies"].as_table()) {
        for (const auto& [group, members] : *groups) {
          const std::string name = normalize_package_name(std::string(group.str()));
          if (m_groups.count({root->name, name}) > 0) {
            follow(members.as_array(), root->where + "/dev-dependencies/" + std::string(group.str()), gather, queue, seen);
          }
        }
      }
    }
    if (manifest_groups != nullptr) {
      // A workspace root that is no project keeps its groups in the manifest, as requirement strings
      // naming workspace members or locked packages.
      for (const auto& [group, members] : *manifest_groups) {
        if (m_groups.count({"", normalize_package_name(std::string(group.str()))}) == 0) {
          continue;
        }
        for (const std::string& requirement : string_array(members.as_array())) {
          std::size_t end = requirement.find_first_of(" ;[<>=!~@");
          const UvEntry* entry = find(normalize_package_name(requirement.substr(0, end)));
          if (entry != nullptr && seen.insert({entry, ""}).second) {
            if (!gather) {
              m_included.insert(entry);
            }
            queue.push_back({entry, ""});
          }
        }
      }
    }
    while (!queue.empty()) {
      Visit visit = queue.back();
      queue.pop_back();
      if (visit.extra.empty()) {
        follow((*visit.entry->table)["dependencies"].as_array(), visit.entry->where + "/dependencies", gather, queue, seen);
      } else if (const toml::table* optional = (*visit.entry->table)["optional-dependencies"].as_table()) {
        for (const auto& [extra, members] : *optional) {
          if (normalize_package_name(std::string(extra.str())) == normalize_package_name(visit.extra)) {
            follow(members.as_array(), visit.entry->where + "/optional-dependencies/" + std::string(extra.str()), gather,
                   queue, seen);
          }
        }
      }
    }
  }

  const std::string& m_label;
  const MarkerEnvironment& m_target;
  std::multimap<std::string, const UvEntry*> m_by_name;
  std::set<const UvEntry*> m_included;
  std::set<Activation> m_extras;
  std::set<Activation> m_groups;
};

// Return the dependency groups of the roots (uv.lock's dev-dependencies) and of the workspace manifest.
std::set<std::string> group_names(const std::vector<const UvEntry*>& roots, const toml::table* manifest_groups) {
  std::set<std::string> all_groups;
  for (const UvEntry* r : roots) {
    if (const toml::table* groups = (*r->table)["dev-dependencies"].as_table()) {
      for (const auto& [group, members] : *groups) {
        all_groups.insert(normalize_package_name(std::string(group.str())));
      }
    }
  }
  if (manifest_groups != nullptr) {
    for (const auto& [group, members] : *manifest_groups) {
      all_groups.insert(normalize_package_name(std::string(group.str())));
    }
  }
  return all_groups;
}

// Return the groups uv would install: the defaults of the project uv would run in (the --package
// member's, else the lock's folder), --group, --all-groups, less --no-group and --no-dev; --only-group
// and --only-dev name them alone. A named group the lock lacks is bad input.
std::set<std::string> chosen_groups(const LockOptions& options, const std::vector<const UvEntry*>& roots,
                                    const std::set<std::string>& all_groups, const std::string& label,
                                    std::vector<std::string>& notes) {
  const UvSelection& selection = options.uv;
  const std::vector<std::string> all_list(all_groups.begin(), all_groups.end());
  std::string project_folder = ".";
  if (!selection.packages.empty() && !selection.all_packages && !roots.empty()) {
    project_folder = roots.front()->source_value;
  }
  std::set<std::string> chosen;
  const bool only = !selection.only_groups.empty() || selection.only_dev;
  if (only) {
    for (const std::string& group : selection.only_groups) {
      chosen.insert(normalize_package_name(group));
    }
    if (selection.only_dev) {
      chosen.insert("dev");
    }
  } else {
    if (!selection.no_default_groups) {
      for (const std::string& group : default_groups(options, project_folder, all_list, label, notes)) {
        chosen.insert(group);
      }
    }
    for (const std::string& group : selection.groups) {
      chosen.insert(normalize_package_name(group));
    }
    if (selection.all_groups) {
      chosen.insert(all_groups.begin(), all_groups.end());
    }
  }
  for (const std::string& group : selection.no_groups) {
    chosen.erase(normalize_package_name(group));
  }
  if (selection.no_dev) {
    chosen.erase("dev");
  }
  std::vector<std::string> named_groups = selection.groups;
  named_groups.insert(named_groups.end(), selection.only_groups.begin(), selection.only_groups.end());
  for (const std::string& group : named_groups) {
    if (all_groups.count(normalize_package_name(group)) == 0) {
      fail(label, "--group " + group, "no dependency group '" + group + "' in the lock's " +
                                          (roots.size() == 1 ? "project " + roots.front()->name : "projects") +
                                          " (groups: " + join(all_list, ", ") + ")");
    }
  }
  return chosen;
}

// uv writes neither a version nor [package.metadata] for a project whose metadata is dynamic (a version
// from git tags, hatch-vcs), and then knows none of its groups or extras when it reads the lock: uv 0.11.15 refuses
// every --group, --only-group and --extra naming them ("Group `dev` is not defined in the project's
// `dependency-groups` table") while it reads the default groups, --all-groups and --all-extras. The
// same selection is refused here, with the reason, since uv could not install it.
void refuse_named_without_metadata(const std::vector<const UvEntry*>& roots, const UvSelection& selection,
                                   const std::string& label) {
  const UvEntry* project = nullptr;
  if (!selection.packages.empty() && !selection.all_packages) {
    project = roots.empty() ? nullptr : roots.front();
  } else {
    for (const UvEntry* r : roots) {
      if (r->source_value == ".") {
        project = r;
      }
    }
  }
  if (project == nullptr || !project->version.empty() || project->table->contains("metadata")) {
    return;
  }
  const std::string why = " of project " + project->name + ": the lock records no version and no metadata for it (as uv "
                          "writes a project whose metadata is dynamic, e.g. a version from git tags), so uv knows none of "
                          "its groups or extras and refuses to name one; its default groups, --all-groups and "
                          "--all-extras are read";
  std::vector<std::string> groups = selection.groups;
  groups.insert(groups.end(), selection.only_groups.begin(), selection.only_groups.end());
  if (!groups.empty()) {
    fail(label, "--group " + groups.front(), "uv refuses to name a dependency group" + why);
  }
  if (!selection.extras.empty()) {
    fail(label, "--extra " + selection.extras.front(), "uv refuses to name an extra" + why);
  }
}

// Refuse a selection that switches on two items of one declared conflict set (uv refuses the same way).
void check_conflicts(const toml::array& conflicts, const UvInstall& install, const std::set<Activation>& groups,
                     const std::string& label) {
  for (std::size_t c = 0; c < conflicts.size(); ++c) {
    const toml::array* set = conflicts[c].as_array();
    std::vector<std::string> active;
    for (std::size_t k = 0; set != nullptr && k < set->size(); ++k) {
      const toml::table* item = (*set)[k].as_table();
      if (item == nullptr) {
        continue;
      }
      const std::string package = normalize_package_name(get_string((*item)["package"]));
      const std::string extra = get_string((*item)["extra"]);
      const std::string group = get_string((*item)["group"]);
      if (!extra.empty() && install.extras().count({package, normalize_package_name(extra)}) > 0) {
        active.push_back("extra " + package + "[" + extra + "]");
      } else if (!group.empty() && groups.count({package, normalize_package_name(group)}) > 0) {
        active.push_back("group " + package + ":" + group);
      }
    }
    if (active.size() >= 2) {
      fail(label, "/conflicts/" + std::to_string(c), join(active, " and ") +
                                                         " are both chosen, but the lock declares them in conflict "
                                                         "(choose one: --extra, --group, --no-default-groups)");
    }
  }
}

// Put every entry the install takes into `read`: a build (registry, URL) as a package with its wheel
// chosen for `target`, a git commit or a local folder as a repo; note the entries left out.
void take_entries(const std::vector<UvEntry>& entries, const UvInstall& install, const std::vector<const UvEntry*>& roots,
                  const MarkerEnvironment& target, const std::string& label, LockRead& read) {
  std::vector<std::string> left_out;
  for (const UvEntry& entry : entries) {
    if (install.included().count(&entry) == 0) {
      left_out.push_back(entry.name + (entry.version.empty() ? "" : " " + entry.version));
      continue;
    }
    if (entry.source_kind == "git") {
      read.repos.push_back(git_repo(entry, label));
      continue;
    }
    if (entry.source_kind == "virtual") {
      continue;  // a virtual project is not installed (uv: no build system), only its dependencies are
    }
    if (is_local(entry)) {
      LockedRepo repo;
      repo.name = entry.name;
      const bool is_root = std::find(roots.begin(), roots.end(), &entry) != roots.end();
      repo.kind = is_root ? "project" : entry.source_kind;
      repo.path = entry.source_value;
      read.repos.push_back(repo);
      continue;
    }
    if (entry.version.empty()) {
      fail(label, entry.where + "/version", entry.name + " has no version and no git or local source: a state needs an exact build");
    }
    check_version(entry.version, label, entry.where + "/version");
    LockedPackage package{entry.name, entry.version, "", "", entry_hashes(entry, label)};
    choose_wheel(package, uv_wheels(entry, label), sdist_in(*entry.table), target, label, entry.where, read.notes);
    read.packages.push_back(package);
  }
  if (!left_out.empty()) {
    read.notes.push_back("left out (" + std::to_string(left_out.size()) + " lock entr" +
                         (left_out.size() == 1 ? "y" : "ies") +
                         " not installed for this target and selection: markers, other resolutions, extras and "
                         "groups not chosen): " + join(left_out, ", "));
  }
  std::sort(read.repos.begin(), read.repos.end(), [](const LockedRepo& a, const LockedRepo& b) { return a.name < b.name; });
}

}  // namespace

LockRead read_uv_lock(const toml::table& lock, const std::string& label, const MarkerEnvironment& target,
                      const LockOptions& options) {
  LockRead read;
  // uv writes `version = 1` and refuses a lock of a version it does not know; so does this reader,
  // whose meaning of the fields is version 1's.
  const std::optional<std::int64_t> version = lock["version"].value<std::int64_t>();
  if (!version || *version != 1) {
    fail(label, "/version", lock.contains("version") ? "uv.lock version " + (version ? std::to_string(*version) : "'?'") +
                                                           "; this envbisect reads version 1"
                                                     : "missing (uv writes version = 1)");
  }
  const std::vector<UvEntry> entries = uv_entries(lock, label);
  UvInstall install(entries, label, target);
  const UvSelection& selection = options.uv;

  // The workspace: its members (the manifest's, else the project at the lock's folder) and the root project.
  std::vector<std::string> member_names;
  for (const std::string& member : string_array(lock["manifest"]["members"].as_array())) {
    member_names.push_back(normalize_package_name(member));
  }
  const UvEntry* root = nullptr;
  for (const UvEntry& entry : entries) {
    if ((entry.source_kind == "editable" || entry.source_kind == "virtual") && entry.source_value == ".") {
      root = &entry;
    }
  }
  if (member_names.empty() && root != nullptr) {
    member_names.push_back(root->name);
  }
  const toml::table* manifest_groups = lock["manifest"]["dependency-groups"].as_table();

  // The roots: --package, --all-packages, else the project (every member when the root is no project).
  std::vector<const UvEntry*> roots;
  auto member = [&](const std::string& name, const std::string& flag) {
    const std::string normal = normalize_package_name(name);
    const UvEntry* entry = install.find(normal);
    // A local editable project the lock holds is one uv can run in too, listed as a member or not.
    const bool local = entry != nullptr && (entry->source_kind == "editable" || entry->source_kind == "virtual");
    if (entry == nullptr || (!local && std::find(member_names.begin(), member_names.end(), normal) == member_names.end())) {
      fail(label, flag + " " + name, "not a member of the lock's workspace (members: " + join(member_names, ", ") + ")");
    }
    return entry;
  };
  if (selection.all_packages) {
    for (const std::string& name : member_names) {
      roots.push_back(member(name, "--all-packages"));
    }
  } else if (!selection.packages.empty()) {
    for (const std::string& name : selection.packages) {
      roots.push_back(member(name, "--package"));
    }
  } else if (root != nullptr) {
    roots.push_back(root);
  } else {
    for (const std::string& name : member_names) {
      roots.push_back(member(name, "the workspace"));
    }
  }
  if (roots.empty() && manifest_groups == nullptr) {
    // A lock without a project (e.g. a script's): every package whose resolution markers hold.
    for (const UvEntry& entry : entries) {
      bool holds = true;
      if (const toml::array* markers = entry.table->get_as<toml::array>("resolution-markers")) {
        holds = markers->empty();
        for (const std::string& marker : string_array(markers)) {
          holds = holds || marker_holds(marker, target, label, entry.where + "/resolution-markers");
        }
      }
      if (holds && !entry.version.empty()) {
        LockedPackage package{entry.name, entry.version, "", "", entry_hashes(entry, label)};
        choose_wheel(package, uv_wheels(entry, label), sdist_in(*entry.table), target, label, entry.where, read.notes);
        read.packages.push_back(package);
      }
    }
    read.notes.push_back("no project in the lock: every package whose resolution markers hold is taken");
    read.selection = "no project: every package";
    return read;
  }

  // Groups: the defaults of the project uv would run in (the --package member's, else the lock's
  // folder), --group, --all-groups, less --no-group and --no-dev; --only-group drops the roots' own.
  refuse_named_without_metadata(roots, selection, label);
  const std::set<std::string> all_groups = group_names(roots, manifest_groups);
  const bool prod = selection.only_groups.empty() && !selection.only_dev;
  const std::set<std::string> chosen = chosen_groups(options, roots, all_groups, label, read.notes);
  std::set<Activation> groups;
  for (const UvEntry* r : roots) {
    for (const std::string& group : chosen) {
      groups.insert({r->name, group});
    }
  }
  for (const std::string& group : chosen) {
    groups.insert({"", group});
  }

  // Extras of the roots: --extra (each must be one of theirs), --all-extras less --no-extra.
  std::set<Activation> extras;
  std::set<std::string> known_extras;
  for (const UvEntry* r : roots) {
    if (const toml::table* optional = (*r->table)["optional-dependencies"].as_table()) {
      for (const auto& [extra, members] : *optional) {
        const std::string name = normalize_package_name(std::string(extra.str()));
        known_extras.insert(name);
        bool excluded = std::any_of(selection.no_extras.begin(), selection.no_extras.end(),
                                    [&](const std::string& no) { return normalize_package_name(no) == name; });
        bool named = std::any_of(selection.extras.begin(), selection.extras.end(),
                                 [&](const std::string& e) { return normalize_package_name(e) == name; });
        if (prod && ((selection.all_extras && !excluded) || named)) {
          extras.insert({r->name, name});
        }
      }
    }
  }
  for (const std::string& extra : selection.extras) {
    if (known_extras.count(normalize_package_name(extra)) == 0) {
      fail(label, "--extra " + extra, "no extra '" + extra + "' in the lock's " +
                                          (roots.size() == 1 ? "project " + roots.front()->name : "projects") +
                                          " (extras: " + join({known_extras.begin(), known_extras.end()}, ", ") + ")");
    }
  }

  // Walk the graph; with conflicts declared, the extras dependencies switch on are gathered first and
  // no two items of one conflict set may be active together (uv refuses the same way).
  const toml::array* conflicts = lock["conflicts"].as_array();
  const bool has_conflicts = conflicts != nullptr && !conflicts->empty();
  install.walk(roots, prod, extras, groups, manifest_groups, has_conflicts);
  if (has_conflicts) {
    check_conflicts(*conflicts, install, groups, label);
  }

  // What was taken, for the state's description.
  std::vector<std::string> root_names;
  for (const UvEntry* r : roots) {
    root_names.push_back(r->name);
  }
  std::vector<std::string> extra_names;
  for (const Activation& extra : extras) {
    extra_names.push_back(extra.first + "[" + extra.second + "]");
  }
  read.selection = "roots " + join(root_names, ", ") + (prod ? "" : " (their own dependencies left out: --only-group)") +
                   "; groups " + (chosen.empty() ? "none" : join({chosen.begin(), chosen.end()}, ", ")) + "; extras " +
                   (extra_names.empty() ? "none" : join(extra_names, ", "));

  take_entries(entries, install, roots, target, label, read);
  std::sort(read.repos.begin(), read.repos.end(), [](const LockedRepo& a, const LockedRepo& b) { return a.name < b.name; });
  return read;
}

}  // namespace envbisect::lock_parts
