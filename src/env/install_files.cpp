#include "env/install_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

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

void write_plain(const std::string& path, const std::string& content, mode_t mode) {
  // A new file renamed over `path`: never written through a symlink (the venv's bin/python3 points
  // at the base interpreter) nor through a hard link into the store.
  const std::string temp = path + ".envbisect-new";
  ::unlink(temp.c_str());
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd.valid()) {
    throw Error(path + ": cannot write: " + std::strerror(errno), ExitCode::environment);
  }
  const bool ok = ::write(fd.get(), content.data(), content.size()) == static_cast<ssize_t>(content.size()) &&
                  ((mode & 0111) == 0 || ::fchmod(fd.get(), mode) == 0);  // past the umask: scripts must be executable
  fd.reset();
  if (!ok) {
    ::unlink(temp.c_str());
    throw Error(path + ": write failed", ExitCode::environment);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw Error(path + ": cannot write: " + std::strerror(error),
                error == EISDIR || error == ENOTDIR || error == ENOTEMPTY ? ExitCode::bad_input : ExitCode::environment);
  }
}

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

std::size_t install_entry(const StoreEntry& entry, const std::string& env_dir, const std::string& site,
                          const std::string& python, std::vector<std::string>& notes) {
  const std::string manifest = read_file(entry.dir + "/manifest");
  const std::string dist_info_prefix = entry.dist_info + "/";
  std::size_t placed = 0;
  bool try_links = true;
  std::vector<std::string> script_records;
  std::size_t pos = 0;
  while (pos < manifest.size()) {
    std::size_t end = manifest.find('\n', pos);
    if (end == std::string::npos) {
      end = manifest.size();
    }
    if (end - pos < 4) {
      pos = end + 1;
      continue;
    }
    const char area = manifest[pos];
    const char kind = manifest[pos + 1];
    const std::string rel = manifest.substr(pos + 3, end - pos - 3);
    pos = end + 1;
    const std::string source = entry.dir + (area == 's' ? "/site/" : area == 'x' ? "/scripts/" : "/data/") + rel;
    const std::string target = (area == 's' ? site : area == 'x' ? env_dir + "/bin" : env_dir) + "/" + rel;
    if (area == 'x') {
      // bin/ holds the interpreter's links: no script or folder of a wheel may take their names.
      if (const std::string problem = script_name_problem(env_dir + "/bin", rel.substr(0, rel.find('/'))); !problem.empty()) {
        throw Error(entry.name + " " + entry.version + ": refusing the script " + problem, ExitCode::bad_input);
      }
    }
    if (area == 'p' && rel == "pyvenv.cfg") {
      // It names the environment's interpreter and whether the host's packages show: a wheel's copy
      // would run another Python than the state's (pip would install it all the same).
      throw Error(entry.name + " " + entry.version + ": refusing the data file pyvenv.cfg (it would replace the "
                  "environment's own, which names its interpreter)", ExitCode::bad_input);
    }
    if (kind == 'd') {
      if (::mkdir(target.c_str(), 0755) != 0) {
        if (errno == ENAMETOOLONG) {
          throw Error(entry.name + " " + entry.version + ": the path " + target + " is longer than the system allows",
                      ExitCode::bad_input);
        }
        if (errno != EEXIST) {
          throw Error("cannot create directory " + target + ": " + std::strerror(errno), ExitCode::environment);
        }
        // Something is there: only a real folder may be entered (a link would lead writes elsewhere).
        struct stat st {};
        if (::lstat(target.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
          throw Error(entry.name + " " + entry.version + ": the folder " + target +
                          " is already a file or a link in the environment", ExitCode::bad_input);
        }
      }
      continue;
    }
    if (area == 's' && rel.rfind(dist_info_prefix, 0) == 0) {
      const std::string file = rel.substr(dist_info_prefix.size());
      bool per_install = false;
      for (const char* name : k_per_install_files) {
        per_install = per_install || file == name;
      }
      if (per_install) {
        continue;
      }
    }
    if (kind == 'l') {
      char link_target[4096];
      const ssize_t n = ::readlink(source.c_str(), link_target, sizeof link_target - 1);
      if (n >= 0) {
        link_target[n] = '\0';
        ::symlink(link_target, target.c_str());
      }
      continue;
    }
    ++placed;
    if (area == 'x') {
      // Wheel scripts starting "#!python" get the environment's interpreter, as pip does.
      script_records.push_back("../../../bin/" + rel);
      const std::string text = read_file(source);
      if (text.rfind("#!python", 0) == 0) {
        const std::size_t eol = text.find('\n');
        write_plain(target, "#!" + python + (eol == std::string::npos ? "\n" : text.substr(eol)), 0755);
        continue;
      }
    }
    // What is there already may be replaced only when it is a plain file (two distributions ship it:
    // the later one wins, as with pip), never a link or a folder. Asked only when something is there
    // (a link's EEXIST), not with a stat per file: most environments have no overlaps.
    auto make_room = [&] {
      struct stat st {};
      if (::lstat(target.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
          throw Error(entry.name + " " + entry.version + ": the file " + target + " is already " +
                          (S_ISDIR(st.st_mode) ? "a folder" : "a link") + " in the environment", ExitCode::bad_input);
        }
        notes.push_back(entry.name + " " + entry.version + " overwrites " + target + ", a file another distribution ships");
        ::unlink(target.c_str());
      }
    };
    if (try_links) {
      int linked = ::link(source.c_str(), target.c_str());
      if (linked != 0 && errno == EEXIST) {
        make_room();
        linked = ::link(source.c_str(), target.c_str());
      }
      if (linked == 0) {
        continue;
      }
      if (errno == ENOTDIR) {
        throw Error(entry.name + " " + entry.version + ": a parent of " + target + " is a file", ExitCode::bad_input);
      }
      if (errno == ENAMETOOLONG) {
        throw Error(entry.name + " " + entry.version + ": the path " + target + " is longer than the system allows",
                    ExitCode::bad_input);
      }
      if (errno != EXDEV && errno != EPERM && errno != EMLINK) {
        throw Error("cannot link " + source + " to " + target + ": " + std::strerror(errno), ExitCode::environment);
      }
      try_links = false;  // another filesystem: copy from now on
      notes.push_back("copying (no hard links from " + entry.dir + " to " + env_dir + ")");
    }
    make_room();
    copy_regular_file(source, target);
  }

  // Console and GUI scripts from entry_points.txt, with the environment's python in the shebang.
  const std::string dist_info_dir = site + "/" + entry.dist_info;
  const std::string entry_points = dist_info_dir + "/entry_points.txt";
  if (path_is_file(entry_points)) {
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
      if (const std::string problem = script_name_problem(env_dir + "/bin", name); !problem.empty()) {
        throw Error(entry.name + " " + entry.version + ": refusing the " + section + " entry " + problem,
                    ExitCode::bad_input);
      }
      write_plain(env_dir + "/bin/" + name, console_script(python, line.substr(eq + 1)), 0755);
      script_records.push_back("../../../bin/" + name);
      ++placed;
    }
  }

  // RECORD as installed: the wheel's lines with .data paths moved, plus what we wrote.
  std::string data_dir = entry.dist_info.substr(0, entry.dist_info.size() - std::strlen(".dist-info")) + ".data";
  std::string record;
  const std::string record_source = entry.dir + "/site/" + entry.dist_info + "/RECORD";
  std::set<std::string> recorded;
  if (path_is_file(record_source)) {
    for (const RecordRow& row : parse_record(read_file(record_source), entry.name + " " + entry.version + ": RECORD")) {
      if (row.path == entry.dist_info + "/RECORD" || row.path == entry.dist_info + "/INSTALLER" ||
          row.path == entry.dist_info + "/REQUESTED") {
        continue;
      }
      const std::string path = installed_record_path(row.path, data_dir);
      recorded.insert(path);
      record += record_line(path, row.hash, row.size);
    }
  }
  for (const std::string& script : script_records) {
    if (recorded.count(script) == 0) {
      record += record_line(script, "", "");
    }
  }
  write_plain(dist_info_dir + "/INSTALLER", "envbisect\n", 0644);
  write_plain(dist_info_dir + "/REQUESTED", "", 0644);
  record += entry.dist_info + "/INSTALLER,,\n" + entry.dist_info + "/REQUESTED,,\n" + entry.dist_info + "/RECORD,,\n";
  write_plain(dist_info_dir + "/RECORD", record, 0644);
  return placed;
}

}  // namespace envbisect::detail
