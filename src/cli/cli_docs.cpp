#include "cli/cli_docs.hpp"

#include <functional>
#include <vector>

#include <CLI/CLI.hpp>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

// A subcommand as the manual and the completions see it: its path of names and the app itself.
struct Command {
  std::string path;  // "store gc"
  const CLI::App* app;
};

bool visible(const CLI::App* app) { return !app->get_group().empty(); }
bool visible(const CLI::Option* option) { return !option->get_group().empty(); }

// Collect every visible subcommand, depth first, in the order they were declared.
void collect(const CLI::App& app, const std::string& prefix, std::vector<Command>& out) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!visible(sub)) {
      continue;
    }
    std::string path = prefix.empty() ? sub->get_name() : prefix + " " + sub->get_name();
    out.push_back({path, sub});
    collect(*sub, path, out);
  }
}

// Escape text for roff: backslashes, and a leading dot or quote that roff would read as a request.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) {
    out.insert(0, "\\&");
  }
  return out;
}

std::vector<const CLI::Option*> options_of(const CLI::App* app) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* option : app->get_options([](const CLI::Option*) { return true; })) {
    // Every subcommand has -h/--help; the manual says so once, at the top.
    if (visible(option) && (app->get_parent() == nullptr || option->get_name() != "--help")) {
      out.push_back(option);
    }
  }
  return out;
}

std::string option_names(const CLI::Option* option) {
  std::string names;
  for (const std::string& name : option->get_snames()) {
    names += (names.empty() ? "-" : ", -") + name;
  }
  for (const std::string& name : option->get_lnames()) {
    names += (names.empty() ? "--" : ", --") + name;
  }
  return names;
}

std::vector<std::string> long_flags(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::Option* option : options_of(app)) {
    for (const std::string& name : option->get_snames()) {
      out.push_back("-" + name);
    }
    for (const std::string& name : option->get_lnames()) {
      out.push_back("--" + name);
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

std::vector<std::string> child_names(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    if (visible(sub)) {
      out.push_back(sub->get_name());
    }
  }
  return out;
}

// The values an option takes from its type name ("FORMAT:{md,html,json,all}" -> md html json all).
std::vector<std::string> choices_of(const CLI::Option* option) {
  const std::string type = option->get_type_name();
  const auto open = type.find('{');
  const auto close = type.find('}', open);
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos) {
    return out;
  }
  std::string item;
  for (char c : type.substr(open + 1, close - open - 1)) {
    if (c == ',') {
      out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  out.push_back(item);
  return out;
}

// The bash words completing a value of `option`: a compgen call (choices, folders, run folders, files),
// or "" for free text (a duration, a host).
std::string bash_values(const CLI::Option* option, const CLI::App& root) {
  const std::vector<std::string> choices = choices_of(option);
  if (!choices.empty()) {
    return "COMPREPLY=($(compgen -W \"" + join(choices) + "\" -- \"$cur\"))";
  }
  std::string type = option->get_type_name();
  type = type.substr(0, type.find(':'));
  if (type == "RUNDIR") {
    return "_envbisect_rundirs";
  }
  if (type == "CANDIDATE") {
    return "COMPREPLY=($(compgen -W \"good bad\" -- \"$cur\"))";
  }
  if (option->get_name(true) == "command") {
    return "COMPREPLY=($(compgen -W \"" + join(child_names(&root)) + "\" -- \"$cur\"))";
  }
  if (type == "DIR" || type == "DIR|URL" || type == "DIR|IMAGE") {
    return "COMPREPLY=($(compgen -d -- \"$cur\"))";
  }
  if (type == "PATH" || type == "FILE" || type == "LOCKFILE" || type.find(".json") != std::string::npos) {
    return "COMPREPLY=($(compgen -f -- \"$cur\"))";
  }
  return "";
}

// Return the case labels ("PATH:-s", "PATH:--long", quoted) of an option that takes a value, for the
// completion scripts' `case "$path:$prev"`; none for a positional or a flag.
std::vector<std::string> value_option_labels(const std::string& path, const CLI::Option& option) {
  std::vector<std::string> labels;
  if (option.get_positional() || option.get_type_name().empty()) {
    return labels;
  }
  for (const std::string& name : option.get_snames()) {
    labels.push_back("\"" + path + ":-" + name + "\"");
  }
  for (const std::string& name : option.get_lnames()) {
    labels.push_back("\"" + path + ":--" + name + "\"");
  }
  return labels;
}

// Return each command's path with its CLI11 app, the top level ("") first.
std::vector<std::pair<std::string, const CLI::App*>> scopes_of(const CLI::App& app,
                                                               const std::vector<Command>& commands) {
  std::vector<std::pair<std::string, const CLI::App*>> scopes = {{"", &app}};
  for (const Command& command : commands) {
    scopes.emplace_back(command.path, command.app);
  }
  return scopes;
}

void write_bash(const CLI::App& app, const std::vector<Command>& commands, std::ostream& out) {
  out << "# bash completion for envbisect (generated by `envbisect completion bash`)\n"
         "# Run folders: the folders under the cursor's prefix that hold a journal, else every folder.\n"
         "_envbisect_rundirs() {\n"
         "  local d\n"
         "  COMPREPLY=()\n"
         "  for d in $(compgen -d -- \"$cur\"); do\n"
         "    [[ -f \"$d/journal.jsonl\" ]] && COMPREPLY+=(\"$d\")\n"
         "  done\n"
         "  [[ ${#COMPREPLY[@]} -gt 0 ]] || COMPREPLY=($(compgen -d -- \"$cur\"))\n"
         "}\n"
         "_envbisect() {\n"
         "  local cur prev path word i start npos\n"
         "  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
         "  prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
         "  path=\"\"\n"
         "  start=1\n"
         "  # The subcommand path typed so far: words before the cursor that name subcommands.\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    word=\"${COMP_WORDS[i]}\"\n"
         "    case \"${path:+$path }$word\" in\n";
  for (const Command& command : commands) {
    out << "      \"" << command.path << "\") path=\"" << command.path << "\"; start=$((i + 1)) ;;\n";
  }
  out << "    esac\n"
         "  done\n"
         "  # The value of the option before the cursor.\n"
         "  case \"$path:$prev\" in\n";
  const auto scopes = scopes_of(app, commands);
  for (const auto& [path, scope] : scopes) {
    for (const CLI::Option* option : options_of(scope)) {
      const std::vector<std::string> labels = value_option_labels(path, *option);
      if (labels.empty()) {
        continue;
      }
      const std::string values = bash_values(option, app);
      out << "    " << envbisect::join(labels, "|") << ") "
          << (values.empty() ? "" : values + "; ") << "return ;;\n";
    }
  }
  out << "  esac\n"
         "  # Which argument the cursor is at: words after the subcommand that are neither options nor their values.\n"
         "  npos=0\n"
         "  for ((i = start; i < COMP_CWORD; i++)); do\n"
         "    word=\"${COMP_WORDS[i]}\"\n"
         "    if [[ $word == -* ]]; then\n"
         "      case \"$path:$word\" in\n";
  for (const auto& [path, scope] : scopes) {
    std::vector<std::string> labels;
    for (const CLI::Option* option : options_of(scope)) {
      const std::vector<std::string> own = value_option_labels(path, *option);
      labels.insert(labels.end(), own.begin(), own.end());
    }
    if (!labels.empty()) {
      out << "        " << envbisect::join(labels, "|") << ") ((i++)) ;;\n";
    }
  }
  out << "      esac\n"
         "    else\n"
         "      ((npos++))\n"
         "    fi\n"
         "  done\n"
         "  local words\n"
         "  case \"$path\" in\n";
  out << "    \"\") words=\"" << join(child_names(&app)) << " " << join(long_flags(&app)) << "\" ;;\n";
  for (const Command& command : commands) {
    out << "    \"" << command.path << "\") words=\"" << join(child_names(command.app))
        << (child_names(command.app).empty() ? "" : " ") << join(long_flags(command.app)) << "\" ;;\n";
  }
  out << "  esac\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  # Arguments by position: run folders, candidates, shells, commands; files otherwise.\n"
         "  case \"$path:$npos\" in\n";
  for (const Command& command : commands) {
    int index = 0;
    for (const CLI::Option* option : options_of(command.app)) {
      if (!option->get_positional()) {
        continue;
      }
      const std::string values = bash_values(option, app);
      if (!values.empty()) {
        // A repeatable positional (help's command words) completes at every position from its own on.
        out << "    \"" << command.path << ":" << (option->get_expected_max() > 1 ? "\"*" : std::to_string(index) + "\"")
            << ") " << values << "; return ;;\n";
      }
      ++index;
    }
  }
  out << "  esac\n"
         "  # Before any argument: the subcommands of the path, if it has any.\n"
         "  if [[ $npos -eq 0 ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\" | grep -v '^-'))\n"
         "    [[ ${#COMPREPLY[@]} -gt 0 ]] && return\n"
         "  fi\n"
         "  # Other arguments are files and folders (states, recipes, specs).\n"
         "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "}\n"
         "complete -o filenames -F _envbisect envbisect\n";
}

std::string zsh_quote(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else if (c == '[' || c == ']' || c == ':') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// The zsh call completing a value of `option`, as bash_values: choices, folders, files, or "" (free text).
std::string zsh_values(const CLI::Option* option, const CLI::App& root) {
  const std::vector<std::string> choices = choices_of(option);
  if (!choices.empty()) {
    return "compadd -- " + join(choices);
  }
  std::string type = option->get_type_name();
  type = type.substr(0, type.find(':'));
  if (type == "CANDIDATE") {
    return "compadd -- good bad";
  }
  if (option->get_name(true) == "command") {
    return "compadd -- " + join(child_names(&root));
  }
  if (type == "RUNDIR" || type == "DIR" || type == "DIR|URL" || type == "DIR|IMAGE") {
    return "_files -/";
  }
  if (type == "PATH" || type == "FILE" || type == "LOCKFILE" || type.find(".json") != std::string::npos) {
    return "_files";
  }
  return "";
}

void write_zsh(const CLI::App& app, const std::vector<Command>& commands, std::ostream& out) {
  // `path` is zsh's array tied to PATH: the subcommand path is `cmdpath`.
  out << "#compdef envbisect\n"
         "# zsh completion for envbisect (generated by `envbisect completion zsh`)\n"
         "_envbisect() {\n"
         "  local cmdpath=\"\" word prev=\"${words[CURRENT-1]}\"\n"
         "  for word in \"${words[@]:1:$((CURRENT-2))}\"; do\n"
         "    case \"${cmdpath:+$cmdpath }$word\" in\n";
  for (const Command& command : commands) {
    out << "      \"" << command.path << "\") cmdpath=\"" << command.path << "\" ;;\n";
  }
  out << "    esac\n"
         "  done\n"
         "  # The value of the option before the cursor: its choices, folders or files; nothing for free text.\n"
         "  case \"$cmdpath:$prev\" in\n";
  for (const auto& [path, scope] : scopes_of(app, commands)) {
    for (const CLI::Option* option : options_of(scope)) {
      const std::vector<std::string> labels = value_option_labels(path, *option);
      if (labels.empty()) {
        continue;
      }
      const std::string values = zsh_values(option, app);
      out << "    " << envbisect::join(labels, "|") << ") " << (values.empty() ? "" : values + "; ") << "return ;;\n";
    }
  }
  out << "  esac\n"
         "  local -a choices\n"
         "  case \"$cmdpath\" in\n";
  auto emit = [&](const std::string& path, const CLI::App* sub) {
    out << "    \"" << path << "\") choices=(";
    for (const CLI::App* child : sub->get_subcommands([](const CLI::App*) { return true; })) {
      if (visible(child)) {
        out << " '" << child->get_name() << ":" << zsh_quote(child->get_description()) << "'";
      }
    }
    for (const CLI::Option* option : options_of(sub)) {
      for (const std::string& name : option->get_lnames()) {
        out << " '--" << name << ":" << zsh_quote(option->get_description()) << "'";
      }
    }
    out << " ) ;;\n";
  };
  emit("", &app);
  for (const Command& command : commands) {
    emit(command.path, command.app);
  }
  out << "  esac\n"
         "  _describe -t commands 'envbisect' choices\n"
         "  _files\n"
         "}\n"
         "_envbisect \"$@\"\n";
}

}  // namespace

void write_man_page(const CLI::App& app, const std::string& version, std::ostream& out) {
  std::vector<Command> commands;
  collect(app, "", commands);
  out << ".TH ENVBISECT 1 \"\" \"" << roff(version) << "\" \"User Commands\"\n"
      << ".SH NAME\nenvbisect \\- " << roff("find out why an ML training environment got slower or started crashing")
      << "\n.SH SYNOPSIS\n.B envbisect\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n"
      << ".SH DESCRIPTION\n"
      << roff("Given a known-good and a known-bad environment state (packages with local build labels, git "
              "commits, compile-cache state, thread counts, variables, data, GPU split), envbisect lists every "
              "difference, builds real candidate environments that mix them, runs a fixed-seed benchmark in "
              "each, and searches for the minimal cause, verified both ways.")
      << "\n.SH OPTIONS\n";
  for (const CLI::Option* option : options_of(&app)) {
    out << ".TP\n.B " << roff(option_names(option)) << "\n" << roff(option->get_description()) << "\n";
  }
  out << ".SH COMMANDS\n";
  for (const Command& command : commands) {
    out << ".SS envbisect " << roff(command.path);
    for (const CLI::Option* option : options_of(command.app)) {
      if (option->get_positional()) {
        out << " " << (option->get_required() ? "" : "[") << roff(option->get_name(true)) << (option->get_required() ? "" : "]");
      }
    }
    out << "\n" << roff(command.app->get_description()) << "\n";
    for (const CLI::Option* option : options_of(command.app)) {
      std::string names = option->get_positional() ? option->get_name(true) : option_names(option);
      if (names.empty()) {
        continue;
      }
      out << ".TP\n.B " << roff(names) << "\n" << roff(option->get_description()) << "\n";
    }
  }
  out << ".SH EXIT STATUS\n"
         ".TP\n.B 0\n" << roff("success (run: a cause was found and verified both ways)") << "\n"
         ".TP\n.B 1\n" << roff("run: finished without a verified minimal cause; diff --exit-code: the states differ; matrix: new red cells") << "\n"
         ".TP\n.B 2\n" << roff("bad input: arguments, state files, recipes (nothing written)") << "\n"
         ".TP\n.B 3\n" << roff("the good and bad anchors cannot be told apart") << "\n"
         ".TP\n.B 4\n" << roff("the harness itself could not work") << "\n"
         ".TP\n.B 130\n" << roff("interrupted; envbisect resume RUNDIR continues") << "\n"
         ".SH ENVIRONMENT\n"
         ".TP\n.B UV_CACHE_DIR\n" << roff("uv cache that run, locate and timeline restore exact builds from (default ~/.cache/uv)") << "\n"
         ".TP\n.B XDG_CACHE_HOME\n" << roff("where the shared store lies: $XDG_CACHE_HOME/envbisect/store (default ~/.cache/envbisect/store)") << "\n"
         ".TP\n.B NO_COLOR\n" << roff("any non-empty value turns colours off in log lines") << "\n"
         ".TP\n.B ENVBISECT_MAX_UNPACKED\n" << roff("largest size a wheel may unpack to, in bytes or with K, M, G (default 64G)") << "\n"
         ".TP\n.B TMPDIR\n" << roff("folder for temporary files") << "\n"
         ".PP\n" << roff("Benchmarks never inherit the environment: each run gets an allow-list, the recipe's variables and the candidate's.") << "\n"
         ".SH FILES\n"
         ".TP\n.I RUNDIR/result.json\n" << roff("the answer: cause, verification, effect, when it bites") << "\n"
         ".TP\n.I RUNDIR/journal.jsonl\n" << roff("one line per event; resume, replay and report read it") << "\n"
         ".TP\n.I RUNDIR/report.md, RUNDIR/report.html, RUNDIR/report.json\n" << roff("the postmortem") << "\n"
         ".TP\n.I RUNDIR/attempts/CANDIDATE/N/stdout.txt, stderr.txt\n" << roff("each benchmark run's logs") << "\n"
         ".TP\n.I ~/.cache/envbisect/store\n" << roff("unpacked wheels and shared environments (envbisect store gc, verify)") << "\n"
         ".TP\n.I /usr/share/doc/envbisect/examples\n" << roff("example states and a recipe that runs as shipped") << "\n"
         ".SH EXAMPLES\n"
         << roff("What differs between two states:") << "\n.PP\n.RS\n.nf\n"
         << roff("envbisect diff good.json bad.json") << "\n.fi\n.RE\n.PP\n"
         << roff("Find the minimal cause with the shipped example (stdlib Python only; about a minute):") << "\n.PP\n.RS\n.nf\n"
         << roff("d=/usr/share/doc/envbisect/examples/flags") << "\n"
         << roff("envbisect run $d/good.json $d/bad.json --recipe $d/recipe.json -o /tmp/flags-run") << "\n.fi\n.RE\n.PP\n"
         << roff("Continue it after Ctrl-C, then write the postmortem as one HTML file:") << "\n.PP\n.RS\n.nf\n"
         << roff("envbisect resume /tmp/flags-run") << "\n"
         << roff("envbisect report /tmp/flags-run -o flags.html") << "\n.fi\n.RE\n"
         ".SH SEE ALSO\n" << roff("git-bisect(1); the README and docs/ under /usr/share/doc/envbisect.") << "\n";
}

void write_completion(const CLI::App& app, const std::string& shell, std::ostream& out) {
  std::vector<Command> commands;
  collect(app, "", commands);
  if (shell == "bash") {
    write_bash(app, commands, out);
  } else if (shell == "zsh") {
    write_zsh(app, commands, out);
  } else {
    throw Error("completion: unknown shell '" + shell + "' (expected bash or zsh)", ExitCode::bad_input);
  }
}

}  // namespace envbisect
