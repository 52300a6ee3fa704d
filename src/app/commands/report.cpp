#include "app/commands/report.hpp"

#include <filesystem>
#include <iostream>

#include "report/load.hpp"
#include "report/render.hpp"
#include "util/fs.hpp"

namespace envbisect {

ExitCode run_report(const ReportOptions& options) {
  // Validate the request before reading anything.
  const std::string& format = options.format;
  if (format != "md" && format != "html" && format != "json" && format != "all") {
    throw Error("--format: expected md, html, json or all, got '" + format + "'", ExitCode::bad_input);
  }
  report::ReportModel model = report::load_report_model(options.run_dir);
  std::string out_dir = options.out_dir.empty() ? model.run_dir : options.out_dir;
  // Another run's folder keeps its own report: writing this one there would mislabel it.
  if (!options.out_dir.empty() && path_exists(out_dir + "/journal.jsonl") &&
      std::filesystem::weakly_canonical(out_dir) != std::filesystem::weakly_canonical(model.run_dir)) {
    throw Error("--out " + out_dir + ": holds another run (its journal.jsonl); its report would be replaced by this "
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
      std::string path = out_dir + "/" + output.file;
      write_file_atomic(path, output.render(model));
      std::cout << "report: " << path << "\n";
    }
  }
  return ExitCode::ok;
}


}  // namespace envbisect
