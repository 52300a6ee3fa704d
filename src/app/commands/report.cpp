#include "app/commands/report.hpp"

#include <filesystem>
#include <iostream>

#include "report/load.hpp"
#include "report/render.hpp"
#include "util/fs.hpp"

namespace envbisect {

namespace {

// Return the format a file name's suffix names ("md", "html", "json"), or "" for none of them.
std::string format_of_suffix(const std::string& path) {
  for (const char* format : {"md", "html", "json"}) {
    const std::string suffix = std::string(".") + format;
    if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return format;
    }
  }
  return "";
}

}  // namespace

ExitCode run_report(const ReportOptions& options) {
  // Validate the request before reading anything: the format, and whether -o names a file or a folder.
  const std::string& out = options.out_path;
  const std::string suffix_format = format_of_suffix(out);
  std::string format = options.format.empty() ? (suffix_format.empty() ? "all" : suffix_format) : options.format;
  if (format != "md" && format != "html" && format != "json" && format != "all") {
    throw Error("--format: expected md, html, json or all, got '" + format + "'", ExitCode::bad_input);
  }
  if (!suffix_format.empty() && format != suffix_format) {
    throw Error("-o " + out + ": a ." + suffix_format + " file, but --format is " + format +
                    " (several formats go to a folder: -o DIR)",
                ExitCode::bad_input);
  }
  std::error_code dir_error;
  const bool one_file = format != "all" && !out.empty() && out.back() != '/' && !std::filesystem::is_directory(out, dir_error);
  report::ReportModel model = report::load_report_model(options.run_dir);
  std::string out_dir = out.empty() ? model.run_dir : one_file ? parent_dir(out) : out;
  // Another run's folder keeps its own report: writing this one there would mislabel it.
  if (!one_file && !out.empty() && path_exists(out_dir + "/journal.jsonl") &&
      std::filesystem::weakly_canonical(out_dir) != std::filesystem::weakly_canonical(model.run_dir)) {
    throw Error("-o " + out_dir + ": holds another run (its journal.jsonl); its report would be replaced by this "
                "run's. Choose an empty folder",
                ExitCode::bad_input);
  }
  make_dirs(out_dir);

  // Render and write each requested format; each file is replaced atomically.
  struct Output {
    const char* format;
    const char* file;
    std::string (*render)(const report::ReportModel&);
  };
  for (const Output& output : {Output{"md", "report.md", report::render_markdown},
                               Output{"html", "report.html", report::render_html},
                               Output{"json", "report.json", report::render_json}}) {
    if (format == "all" || format == output.format) {
      std::string path = one_file ? out : out_dir + "/" + output.file;
      write_file_atomic(path, output.render(model));
      std::cout << "report: " << path << "\n";
    }
  }
  return ExitCode::ok;
}

}  // namespace envbisect
