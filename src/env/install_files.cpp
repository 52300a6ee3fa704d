#include "env/install_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "env/store.hpp"
#include "env/wheel_record.hpp"
#include "util/error.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect::detail {

namespace {

// Files of a dist-info folder that belong to one installation, never shared through the store.
constexpr const char* k_per_install_files[] = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"};

}  // namespace

std::string script_name_problem(const std::string& bin_dir, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return "'" + name + "' is not a file name";
  }
  // python, python3, python3.11, ...: the venv's interpreter, whatever the wheel says.
  if (name.rfind("python", 0) == 0 && name.find_first_not_of("0123456789.", 6) == std::string::npos) {
    return "'" + name + "' would shadow the interpreter";
  }
  struct stat st {};
  if (::lstat((bin_dir + "/" + name).c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return "'" + name + "' would replace the link " + bin_dir + "/" + name;
  }
  return "";
}

std::string console_script(const std::string& python, const std::string& reference) {
  const std::size_t colon = reference.find(':');
  const std::string module = trim(reference.substr(0, colon));
  std::string attr = colon == std::string::npos ? "" : trim(reference.substr(colon + 1));
  if (const std::size_t extras = attr.find('['); extras != std::string::npos) {
    attr = trim(attr.substr(0, extras));
  }
  const std::string root = attr.substr(0, attr.find('.'));
  std::string body = "#!" + python + "\n# -*- coding: utf-8 -*-\nimport re\nimport sys\n";
  body += attr.empty() ? "import " + module + "\n" : "from " + module + " import " + root + "\n";
  body += "if __name__ == '__main__':\n";
  body += "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n";
  body += "    sys.exit(" + (attr.empty() ? module : attr) + "())\n";
  return body;
}

std::string installed_record_path(const std::string& path, const std::string& data_dir) {
  if (!data_dir.empty() && path.rfind(data_dir + "/", 0) == 0) {
    const std::string rest = path.substr(data_dir.size() + 1);
    for (const char* lib : {"purelib/", "platlib/"}) {
      if (rest.rfind(lib, 0) == 0) {
        return rest.substr(std::strlen(lib));
      }
    }
    if (rest.rfind("scripts/", 0) == 0) {
      return "../../../bin/" + rest.substr(8);
    }
    if (rest.rfind("data/", 0) == 0) {
      return "../../../" + rest.substr(5);
    }
  }
  return path;
}

namespace {

// One line of an entry's manifest: "<area><kind> <rel>" (area s site, x scripts, p data; kind d, f, l).
struct ManifestLine {
  char area = 's';
  char kind = 'f';
  std::string rel;
};

// Return the lines of the entry's manifest, in its order (folders before what they hold).
std::vector<ManifestLine> read_manifest(const StoreEntry& entry) {
  const std::string manifest = read_file(entry.dir + "/manifest");
  std::vector<ManifestLine> lines;
  std::size_t pos = 0;
  while (pos < manifest.size()) {
    std::size_t end = manifest.find('\n', pos);
    if (end == std::string::npos) {
      end = manifest.size();
    }
    if (end - pos >= 4) {
      lines.push_back({manifest[pos], manifest[pos + 1], manifest.substr(pos + 3, end - pos - 3)});
    }
    pos = end + 1;
  }
  return lines;
}

// Where one entry is being placed, and what placing it has learned so far.
struct Placement {
  const StoreEntry& entry;
  const std::string& env_dir;
  const std::string& site;
  const std::string& python;
  std::vector<std::string>& notes;
  bool try_links = true;                    // false from the first file that cannot be hard-linked
  std::vector<std::string> script_records{};  // bin/ files written, for the installed RECORD
  std::size_t placed = 0;

  // Return "NAME VERSION", the distribution for messages.
  std::string who() const { return entry.name + " " + entry.version; }
};

// Throw Error (bad_input) when the manifest line names a file no entry may place: a script taking
// the name of one of bin/'s interpreter links, or the environment's pyvenv.cfg.
void refuse_forbidden(const Placement& at, const ManifestLine& line) {
  if (line.area == 'x') {
    // bin/ holds the interpreter's links: no script or folder of a wheel may take their names.
    const std::string problem = script_name_problem(at.env_dir + "/bin", line.rel.substr(0, line.rel.find('/')));
    if (!problem.empty()) {
      throw Error(at.who() + ": refusing the script " + problem, ExitCode::bad_input);
    }
  }
  if (line.area == 'p' && line.rel == "pyvenv.cfg") {
    // It names the environment's interpreter and whether the host's packages show: a wheel's copy
    // would run another Python than the state's (pip would install it all the same).
    throw Error(at.who() + ": refusing the data file pyvenv.cfg (it would replace the environment's own, which names "
                "its interpreter)", ExitCode::bad_input);
  }
}

// Create the folder `target`, or enter the real folder already there.
void make_folder(const Placement& at, const std::string& target) {
  if (::mkdir(target.c_str(), 0755) == 0) {
    return;
  }
  if (errno == ENAMETOOLONG) {
    throw Error(at.who() + ": the path " + target + " is longer than the system allows", ExitCode::bad_input);
  }
  if (errno != EEXIST) {
    throw Error("cannot create directory " + target + ": " + std::strerror(errno), ExitCode::environment);
  }
  // Something is there: only a real folder may be entered (a link would lead writes elsewhere).
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw Error(at.who() + ": the folder " + target + " is already a file or a link in the environment",
                ExitCode::bad_input);
  }
}

// Return whether `rel` (of the site area) is a dist-info file of one installation, never shared.
bool is_per_install(const StoreEntry& entry, const std::string& rel) {
  const std::string dist_info_prefix = entry.dist_info + "/";
  if (rel.rfind(dist_info_prefix, 0) != 0) {
    return false;
  }
  const std::string file = rel.substr(dist_info_prefix.size());
  for (const char* name : k_per_install_files) {
    if (file == name) {
      return true;
    }
  }
  return false;
}

// Make room for `target`: what is there may be replaced only when it is a plain file (two
// distributions ship it: the later one wins, as with pip), never a link or a folder.
void make_room(Placement& at, const std::string& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      throw Error(at.who() + ": the file " + target + " is already " + (S_ISDIR(st.st_mode) ? "a folder" : "a link") +
                      " in the environment",
                  ExitCode::bad_input);
    }
    at.notes.push_back(at.who() + " overwrites " + target + ", a file another distribution ships");
    ::unlink(target.c_str());
  }
}

// Place the regular file `source` at `target`: a hard link while the file system allows, else a copy.
void place_file(Placement& at, const std::string& source, const std::string& target) {
  if (at.try_links) {
    // Room is made only when something is there (a link's EEXIST), not with a stat per file: most
    // environments have no overlaps.
    int linked = ::link(source.c_str(), target.c_str());
    if (linked != 0 && errno == EEXIST) {
      make_room(at, target);
      linked = ::link(source.c_str(), target.c_str());
    }
    if (linked == 0) {
      return;
    }
    if (errno == ENOTDIR) {
      throw Error(at.who() + ": a parent of " + target + " is a file", ExitCode::bad_input);
    }
    if (errno == ENAMETOOLONG) {
      throw Error(at.who() + ": the path " + target + " is longer than the system allows", ExitCode::bad_input);
    }
    if (errno != EXDEV && errno != EPERM && errno != EMLINK) {
      throw Error("cannot link " + source + " to " + target + ": " + std::strerror(errno), ExitCode::environment);
    }
    at.try_links = false;  // another filesystem: copy from now on
    at.notes.push_back("copying (no hard links from " + at.entry.dir + " to " + at.env_dir + ")");
  }
  make_room(at, target);
  copy_regular_file(source, target);
}

// Place every file, folder and link the entry's manifest names, per-install dist-info files left out;
// wheel scripts starting "#!python" are written with the environment's interpreter, as pip does.
void place_manifest(Placement& at) {
  for (const ManifestLine& line : read_manifest(at.entry)) {
    const char area = line.area;
    const std::string& rel = line.rel;
    const std::string source = at.entry.dir + (area == 's' ? "/site/" : area == 'x' ? "/scripts/" : "/data/") + rel;
    const std::string target = (area == 's' ? at.site : area == 'x' ? at.env_dir + "/bin" : at.env_dir) + "/" + rel;
    refuse_forbidden(at, line);
    if (line.kind == 'd') {
      make_folder(at, target);
      continue;
    }
    if (area == 's' && is_per_install(at.entry, rel)) {
      continue;
    }
    if (line.kind == 'l') {
      char link_target[4096];
      const ssize_t n = ::readlink(source.c_str(), link_target, sizeof link_target - 1);
      if (n >= 0) {
        link_target[n] = '\0';
        ::symlink(link_target, target.c_str());
      }
      continue;
    }
    ++at.placed;
    if (area == 'x') {
      at.script_records.push_back("../../../bin/" + rel);
      const std::string text = read_file(source);
      if (text.rfind("#!python", 0) == 0) {
        const std::size_t eol = text.find('\n');
        write_file_atomic(target, "#!" + at.python + (eol == std::string::npos ? "\n" : text.substr(eol)), 0755, Flush::no);
        continue;
      }
    }
    place_file(at, source, target);
  }
}

// Write the console and GUI scripts of the entry's entry_points.txt, with the environment's python in
// the shebang.
void write_entry_point_scripts(Placement& at) {
  const std::string entry_points = at.site + "/" + at.entry.dist_info + "/entry_points.txt";
  if (!path_is_file(entry_points)) {
    return;
  }
  std::string section;
  for (const std::string& raw : lines_of(read_file(entry_points))) {
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') {
      continue;
    }
    if (line.front() == '[' && line.back() == ']') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    const std::size_t eq = line.find('=');
    if ((section != "console_scripts" && section != "gui_scripts") || eq == std::string::npos) {
      continue;
    }
    const std::string name = trim(line.substr(0, eq));
    if (const std::string problem = script_name_problem(at.env_dir + "/bin", name); !problem.empty()) {
      throw Error(at.who() + ": refusing the " + section + " entry " + problem, ExitCode::bad_input);
    }
    write_file_atomic(at.env_dir + "/bin/" + name, console_script(at.python, line.substr(eq + 1)), 0755, Flush::no);
    at.script_records.push_back("../../../bin/" + name);
    ++at.placed;
  }
}

// Write INSTALLER, REQUESTED and RECORD as installed: the wheel's lines with .data paths moved, plus
// the scripts written.
void write_installed_record(const Placement& at) {
  const StoreEntry& entry = at.entry;
  const std::string dist_info_dir = at.site + "/" + entry.dist_info;
  std::string data_dir = entry.dist_info.substr(0, entry.dist_info.size() - std::strlen(".dist-info")) + ".data";
  std::string record;
  const std::string record_source = entry.dir + "/site/" + entry.dist_info + "/RECORD";
  std::set<std::string> recorded;
  if (path_is_file(record_source)) {
    for (const RecordRow& row : parse_record(read_file(record_source), at.who() + ": RECORD")) {
      if (row.path == entry.dist_info + "/RECORD" || row.path == entry.dist_info + "/INSTALLER" ||
          row.path == entry.dist_info + "/REQUESTED") {
        continue;
      }
      const std::string path = installed_record_path(row.path, data_dir);
      recorded.insert(path);
      record += record_line(path, row.hash, row.size);
    }
  }
  for (const std::string& script : at.script_records) {
    if (recorded.count(script) == 0) {
      record += record_line(script, "", "");
    }
  }
  write_file_atomic(dist_info_dir + "/INSTALLER", "envbisect\n", 0644, Flush::no);
  write_file_atomic(dist_info_dir + "/REQUESTED", "", 0644, Flush::no);
  record += entry.dist_info + "/INSTALLER,,\n" + entry.dist_info + "/REQUESTED,,\n" + entry.dist_info + "/RECORD,,\n";
  write_file_atomic(dist_info_dir + "/RECORD", record, 0644, Flush::no);
}

}  // namespace

std::size_t install_entry(const StoreEntry& entry, const std::string& env_dir, const std::string& site,
                          const std::string& python, std::vector<std::string>& notes) {
  Placement at{entry, env_dir, site, python, notes};
  place_manifest(at);
  write_entry_point_scripts(at);
  write_installed_record(at);
  return at.placed;
}

}  // namespace envbisect::detail
