#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#include "sortbench/report/build_info.hpp"
#include "sortbench/report/report.hpp"

namespace sb {

HostInfo query_host() {
  HostInfo h;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      h.cpu_model = line.substr(line.find(':') + 2);
      break;
    }
  }
  h.cpu_threads = static_cast<int>(std::thread::hardware_concurrency());
  return h;
}

std::string utc_now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

RunContext make_context() {
  RunContext c;
  c.sortbench_version = build_version();
  c.git_commit = build_git_commit();
  c.date_utc = utc_now_iso8601();
  c.host = query_host();
  return c;
}

}  // namespace sb
