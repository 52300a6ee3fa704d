// The one translation unit that includes Boost (Process v2 and the Asio it rests on): every other file
// sees only process_launch.hpp, so the heavy headers are compiled once per build.
// std::filesystem paths instead of Boost.Filesystem's, so no Boost library is linked. v2's own code is
// compiled here too (src.hpp at the end): 1.81's header-only mode leaves process_environment::on_setup
// undefined.
#define BOOST_PROCESS_USE_STD_FS 1
#define BOOST_PROCESS_V2_SEPARATE_COMPILATION 1

#include "exec/process_launch.hpp"

// Boost 1.81's v2 headers with BOOST_PROCESS_USE_STD_FS name boost::optional and Boost type traits
// that only Boost.Filesystem's headers would have brought in: included first here.
#include <boost/optional.hpp>
#include <boost/type_traits/remove_pointer.hpp>
#include <type_traits>

#include <boost/asio/io_context.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>
#include <boost/process/v2/src.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/fd.hpp"

namespace envbisect {

namespace {

namespace asio = boost::asio;
namespace v2 = boost::process::v2;
using Process = v2::basic_process<asio::io_context::executor_type>;

// Boost 1.81's default_launcher (fork; the inits' hooks; execve; errno back over a close-on-exec pipe)
// without Asio's fork notifications. notify_fork(fork_child) copies the io_context's services into a
// std::vector inside the child: an allocation after fork() in a threaded parent. glibc's malloc
// survives that; ASan's allocator (GCC 12) does not, and a lock another thread held at fork() stays
// held in the child, which spins before execve while envbisect waits for the exec forever. The
// io_context is fresh per child and watches nothing until the child has exec'd, so neither side needs
// the notification. Nor the launcher's own close_all (its Linux walk of /proc/self/fd allocates):
// CloseInherited closes every descriptor but the kept ones.
struct Launcher : v2::posix::default_launcher {
  template <typename Executor, typename... Inits>
  v2::basic_process<Executor> operator()(Executor exec, v2::error_code& ec, const std::filesystem::path& executable,
                                         const char** args, Inits&&... inits) {
    namespace hooks = v2::posix::detail;
    const char* const* argv = args;
    int error_pipe[2] = {-1, -1};
    if (::pipe2(error_pipe, O_CLOEXEC) != 0) {
      ec.assign(errno, v2::system_category());
      return v2::basic_process<Executor>{exec};
    }
    const UniqueFd read_end(error_pipe[0]);
    UniqueFd write_end(error_pipe[1]);
    ec = hooks::on_setup(*this, executable, argv, inits...);
    if (ec) {
      hooks::on_error(*this, executable, argv, ec, inits...);
      return v2::basic_process<Executor>{exec};
    }
    fd_whitelist.push_back(write_end.get());
    pid = ::fork();
    if (pid == -1) {
      ec.assign(errno, v2::system_category());
      hooks::on_fork_error(*this, executable, argv, ec, inits...);
      hooks::on_error(*this, executable, argv, ec, inits...);
      return v2::basic_process<Executor>{exec};
    }
    if (pid == 0) {
      // The child: system calls only, up to execve or _exit.
      ec = hooks::on_exec_setup(*this, executable, argv, inits...);
      if (!ec) {
        ::execve(executable.c_str(), const_cast<char* const*>(argv), const_cast<char* const*>(env));
      }
      const int failed = ec ? ec.value() : errno;
      (void)!::write(write_end.get(), &failed, sizeof failed);
      ec.assign(failed, v2::system_category());
      hooks::on_exec_error(*this, executable, argv, ec, inits...);
      ::_exit(127);
    }
    write_end.reset();
    int child_error = 0;
    ssize_t count = -1;
    while ((count = ::read(read_end.get(), &child_error, sizeof child_error)) == -1) {
      if (errno != EAGAIN && errno != EINTR) {
        ec.assign(errno, v2::system_category());
        break;
      }
    }
    if (count > 0) {
      ec.assign(child_error, v2::system_category());
    }
    if (ec) {
      hooks::on_error(*this, executable, argv, ec, inits...);
      return v2::basic_process<Executor>{exec};
    }
    v2::basic_process<Executor> process(exec, pid);
    hooks::on_success(*this, executable, argv, ec, inits...);
    return process;
  }
};

v2::error_code errno_code(int error) {
  errno = error;  // the launcher reports errno, not the returned code, to the parent
  return {error, v2::system_category()};
}

// Runs first in the child, between fork() and execve(). A threaded parent's child may only make
// async-signal-safe calls: nothing here allocates.
struct ChildSetup {
  pid_t parent = 0;
  DieWithParent die_with_parent = DieWithParent::yes;
  int cgroup_procs_fd = -1;

  v2::error_code on_exec_setup(Launcher& /*launcher*/, const std::filesystem::path& /*program*/,
                               const char* const* /*argv*/) const {
    // Die with envbisect: SIGKILL when the spawning thread ends, which run() makes the same as the
    // process dying. A parent that died before this line would never send it, hence the check after.
    if (die_with_parent == DieWithParent::yes) {
      if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
        return errno_code(errno);
      }
      if (::getppid() != parent) {
        return errno_code(ESRCH);
      }
    }
    // Into the attempt's cgroup before anything runs: all it starts stays there, whatever group or
    // session it moves to. "0" names the writing process; a failure fails the start, never a silent
    // run outside the cgroup the journal names.
    if (cgroup_procs_fd >= 0 && ::write(cgroup_procs_fd, "0", 1) != 1) {
      return errno_code(errno);
    }
    // Own process group (its id is the child's pid), so a timeout or Ctrl-C can kill the whole group.
    if (::setpgid(0, 0) != 0) {
      return errno_code(errno);
    }
    // Default signal dispositions and an empty mask, whatever the parent set up.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
      ::sigaction(sig, &default_action, nullptr);  // SIGKILL, SIGSTOP and libc's own refuse: harmless
    }
    sigset_t no_signals;
    sigemptyset(&no_signals);
    ::sigprocmask(SIG_SETMASK, &no_signals, nullptr);
    return {};
  }

  // Boost 1.81's launcher ends a child whose setup or execve failed with exit(), which would run the
  // parent's atexit handlers and static destructors inside the child (flushing its stdio buffers a
  // second time, taking locks another thread held at fork). The errno is already reported by then:
  // end the child at once. 1.81 detects this hook with five arguments and calls it with four, so
  // only a variadic member is both found and callable.
  template <typename... Args>
  void on_exec_error(Args&&... /*args*/) const {
    ::_exit(127);
  }
};

// Runs last in the child: close every descriptor but 0, 1, 2 and the launcher's own (its close-on-exec
// error pipe). Boost 1.81's close_all only closes above the highest kept descriptor, so without this a
// descriptor below the error pipe that is not close-on-exec (another run's log pipe, a journal) would
// reach the benchmark, and a pipe held open by a stranger never ends.
struct CloseInherited {
  v2::error_code on_exec_setup(Launcher& launcher, const std::filesystem::path& /*program*/,
                               const char* const* /*argv*/) const {
    std::vector<int>& keep = launcher.fd_whitelist;
    std::sort(keep.begin(), keep.end());  // in place: no allocation
    unsigned next = 3;
    for (const int fd : keep) {
      if (fd >= 0 && static_cast<unsigned>(fd) >= next) {
        if (static_cast<unsigned>(fd) > next) {
          ::syscall(SYS_close_range, next, static_cast<unsigned>(fd) - 1, 0u);
        }
        next = static_cast<unsigned>(fd) + 1;
      }
    }
    ::syscall(SYS_close_range, next, ~0u, 0u);
    return {};
  }
};

}  // namespace

struct LaunchedChild::State {
  // One context per child: it watches only this child's pidfd, and a fresh one has nothing to
  // re-register in the forked child.
  asio::io_context context;
  std::optional<Process> process;  // after `context`: destroyed first
  // Our own pidfd for the child: 1.81's pidfd handle keeps its descriptor private (it declares
  // native_handle_type but no native_handle()).
  UniqueFd pidfd;
};

LaunchedChild::LaunchedChild(const LaunchPlan& plan) : m_state(std::make_unique<State>()) {
  std::vector<std::string> env_strings;
  env_strings.reserve(plan.env.size());
  for (const auto& [name, value] : plan.env) {
    env_strings.push_back(name + "=" + value);
  }
  std::vector<const char*> argv;
  argv.reserve(plan.argv.size() + 1);
  for (const std::string& arg : plan.argv) {
    argv.push_back(arg.c_str());
  }
  argv.push_back(nullptr);
  // A plain `const char**` makes the launcher pass argv verbatim; any other range would replace
  // argv[0] by the program's path.
  const char** argv_data = argv.data();
  const std::filesystem::path program(plan.program);

  Launcher launcher;
  v2::error_code error;
  const pid_t parent = ::getpid();
  try {
    v2::process_environment environment(env_strings);  // an empty map gives an empty environment
    v2::process_stdio stdio{plan.stdin_fd, plan.stdout_fd, plan.stderr_fd};
    const ChildSetup setup{parent, plan.die_with_parent, plan.cgroup_procs_fd};
    const CloseInherited close_inherited;
    // The error-code overload with an executor: 1.81's io_context overload drops the error code.
    if (plan.cwd.empty()) {
      m_state->process.emplace(launcher(m_state->context.get_executor(), error, program, argv_data, setup,
                                        environment, stdio, close_inherited));
    } else {
      v2::process_start_dir start_dir(plan.cwd);
      m_state->process.emplace(launcher(m_state->context.get_executor(), error, program, argv_data, setup,
                                        environment, stdio, start_dir, close_inherited));
    }
  } catch (const std::exception& failure) {
    // Nothing between fork() and execve() throws (Launcher's child makes system calls only); should a
    // hook ever throw there, it must not return into envbisect's code: a second envbisect would run on.
    if (::getpid() != parent) {
      ::_exit(127);
    }
    // Thrown after the fork only when the child's pidfd cannot be opened or watched: a child we
    // cannot wait for properly is ended rather than left running.
    m_state->process.reset();
    if (launcher.pid > 0) {
      ::kill(launcher.pid, SIGKILL);
      while (::waitpid(launcher.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    m_error = failure.what();
    return;
  }
  if (error) {
    // The child reported errno from a failed step (or fork failed) and has exited: reap it here, the
    // caller never saw its pid.
    m_state->process.reset();
    if (launcher.pid > 0) {
      while (::waitpid(launcher.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    m_error = error.message();
    return;
  }
  // At this point the child runs the program, in process group `pid`.
  m_pid = static_cast<pid_t>(m_state->process->id());
  m_state->pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0)));  // close-on-exec always
}

LaunchedChild::~LaunchedChild() = default;  // v2's process SIGKILLs and reaps a child never reaped

int LaunchedChild::pidfd() const {
  return m_state->pidfd.get();
}

std::optional<int> LaunchedChild::reap(std::string& error) {
  if (!m_state->process) {
    error = "no child to reap";
    return std::nullopt;
  }
  v2::error_code failure;
  m_state->process->wait(failure);
  // The raw status: v2's exit_code() folds a signal into the exit code (exit 9 would read as SIGKILL).
  const int status = m_state->process->native_exit_code();
  // Forget the pid before the process object goes: its destructor would signal and wait for that pid,
  // which may by then belong to another child.
  m_state->process->detach();
  m_state->process.reset();
  if (failure) {
    error = failure.message();
    return std::nullopt;
  }
  if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
    error = "no exit status";
    return std::nullopt;
  }
  return status;
}

}  // namespace envbisect
