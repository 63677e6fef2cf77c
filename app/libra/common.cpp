#include "common.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "libra/constraints.hpp"
#include "libra/cost.hpp"
#include "libra/display_text.hpp"
#include "libra/error.hpp"
#include "libra/project_io.hpp"
#include "preset_options.hpp"

namespace libra::cli {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool mentions(const std::string& message, const std::string& what) {
  return !what.empty() && message.find(what) != std::string::npos;
}

// Prefixes `source: ` unless the message already names it.
std::string from(const std::string& source, const std::string& message) {
  return mentions(message, source) ? message : source + ": " + message;
}

}  // namespace

void requireInputFile(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  const std::string what = flag + " '" + path + "'";
  if (path.empty()) throw InputError(flag + ": the file name is empty");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    if (ec && ec != std::errc::no_such_file_or_directory) {
      throw InputError(what + ": cannot be read (" + ec.message() + ")");
    }
    throw InputError(what + ": no such file");
  }
  if (fs::is_directory(st)) throw InputError(what + ": is a directory, not a file");
  std::ifstream probe(path, std::ios::binary);
  if (!probe) {
    throw InputError(what + ": cannot be read (" + std::strerror(errno) + ")");
  }
}

void requireWritableTarget(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError(flag + ": the file name is empty");
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw InputError(flag + " '" + path + "': is a directory; give a file name" +
                     (flag == "-o" ? " such as project.json" : ""));
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw InputError(flag + " '" + path + "': the directory '" + parent.string() +
                     "' does not exist");
  }
}

void saveProjectFile(const Project& project, const std::string& path) {
  try {
    saveProject(project, path);
  } catch (const std::exception& e) {
    const std::string message = e.what();
    throw InputError(mentions(message, path) ? message : "-o '" + path + "': " + message);
  }
}

Project loadProjectFile(const std::string& path) {
  requireInputFile(path, "project file");
  try {
    return loadProject(path);
  } catch (const InputError& e) {
    throw InputError(from(path, e.what()));
  } catch (const std::exception& e) {
    // Anything else the reader lets through (filesystem, JSON library) still
    // becomes one line that names the file.
    throw InputError(from(path, e.what()));
  }
}

Project loadProjectFile(const std::string& path, const std::string& scenario) {
  Project project = loadProjectFile(path);
  if (scenario.empty()) return project;
  const std::optional<std::size_t> index = findScenario(project, scenario);
  if (!index) {
    const std::vector<std::string> all = scenarioNames(project);
    constexpr std::size_t kListed = 10;
    std::string names;
    for (std::size_t i = 0; i < all.size() && i < kListed; ++i) {
      names += (names.empty() ? "" : ", ") + quotedText(all[i]);
    }
    if (all.size() > kListed) names += " and " + std::to_string(all.size() - kListed) + " more";
    throw InputError("--scenario: " + path + " has no scenario named " + quotedText(scenario) +
                     (scenarioCount(project) == 1 && project.scenarioName.empty()
                          ? std::string(" (it has one unnamed scenario)")
                          : " (its scenarios are " + names + ")"));
  }
  activateScenario(project, *index);
  return project;
}

void addScenarioFlag(CLI::App* command, std::string& scenario) {
  command
      ->add_option("--scenario", scenario,
                   "Scenario of the project to use (see 'libra compare'); default: its active one")
      ->type_name("NAME");
}

Problem buildProblemFor(const Project& project, const std::string& source,
                        std::span<const std::string> extraConstraints) {
  try {
    validateProject(project);
  } catch (const InputError& e) {
    throw InputError(from(source, e.what()));
  }
  // The project is valid, so anything wrong now is in an extra constraint.
  try {
    return buildProblem(project, extraConstraints);
  } catch (const InputError& e) {
    throw InputError(std::string("--constraint: ") + e.what());
  }
}

void checkProblemFor(const Project& project, const std::string& source,
                     const AnalysisOptions& options) {
  Project posed = project;
  if (!options.projectConstraints) posed.constraints.clear();
  applyModelOverrides(posed, options.model);
  (void)buildProblemFor(posed, source, options.extraConstraints);
}

Objective parseObjectiveFlag(const std::string& text, const std::string& flag) {
  if (auto o = parseObjective(text)) return *o;
  throw InputError(flag + ": '" + text + "' is not an objective; use performance or perf-per-cost");
}

Backend parseBackendFlag(const std::string& text) {
  if (auto b = parseBackend(text)) return *b;
  throw InputError("--solver: '" + text + "' is not a solver; use native or ipopt");
}

TrainingLoop parseTrainingLoopFlag(const std::string& text) {
  if (auto l = parseTrainingLoop(text)) return *l;
  throw InputError("--training-loop: '" + text +
                   "' is not a training loop; use no-overlap, recompute or overlap");
}

const char* const kModelHelp =
    "Collective model (overrides the project's \"chunks\", \"latency_ns\" and\n"
    "\"endpoint_delay_ns\"):\n"
    "  --chunks ideal   LIBRA's model: infinitely many chunks, no latency (the default)\n"
    "  --chunks N       every collective in N chunks (1..1024) that pipeline through its\n"
    "                   stages, one chunk at a time per dimension, as ASTRA-sim 2 runs them\n"
    "  --chunks auto    per collective, the count that minimizes its time at the design\n"
    "  --latency NS     link latency of every dimension in ns, or NS0,NS1,... one per\n"
    "                   dimension (innermost first); a step of a Switch crosses two links\n"
    "  --endpoint-delay NS  per-message overhead of an NPU (ASTRA-sim's endpoint-delay):\n"
    "                   once at each phase's start and after each receive, per chunk\n"
    "Cost (overrides the project's \"cost_scope\" and \"npu_price_usd\"):\n"
    "  --cost-scope network  cost is the network's alone (LIBRA's model; the default)\n"
    "  --cost-scope system   cost is the NPUs' plus the network's: perf-per-cost, the\n"
    "                   Pareto front and `cost` constraints count N x the NPU price too\n"
    "  --npu-price USD  price of one NPU (default: the list price of the preset's device;\n"
    "                   `libra presets` lists them with their sources)";

void addModelFlags(CLI::App* command, ModelFlags& flags) {
  command
      ->add_option("--chunks", flags.chunks,
                   "Chunks per collective: N (1..1024), ideal (LIBRA's model) or auto; "
                   "default: the project's")
      ->type_name("N|ideal|auto");
  command
      ->add_option("--latency", flags.latency,
                   "Link latency in ns: one value for every dimension or one per dimension; "
                   "default: the project's")
      ->type_name("NS[,NS...]");
  command
      ->add_option("--endpoint-delay", flags.endpointDelay,
                   "Per-message overhead of an NPU in ns (ASTRA-sim's endpoint-delay), paid at "
                   "each phase's start and after each receive; default: the project's")
      ->type_name("NS");
  command
      ->add_option("--cost-scope", flags.costScope,
                   "What cost counts: network (the default) or system (NPUs + network); "
                   "default: the project's")
      ->type_name("network|system");
  command
      ->add_option("--npu-price", flags.npuPrice,
                   "Price of one NPU in $ for --cost-scope system; default: the project's "
                   "npu_price_usd, else the device's list price")
      ->type_name("USD");
}

namespace {

// "A,B,..." -> finite numbers; `flag` and `unit` name them in messages.
std::vector<double> parseNumberList(const std::string& text, const std::string& flag,
                                    const std::string& letter, const std::string& unit);

}  // namespace

ModelOverrides parseModelFlags(const ModelFlags& flags) {
  ModelOverrides o;
  if (!flags.chunks.empty()) {
    o.chunks = parseChunkSetting(flags.chunks);
    if (!o.chunks) {
      throw InputError("--chunks: '" + flags.chunks +
                       "' is not a chunk count; use a whole number 1.." +
                       std::to_string(kMaxChunks) + ", ideal or auto");
    }
  }
  if (!flags.costScope.empty()) {
    o.costScope = parseCostScope(flags.costScope);
    if (!o.costScope) {
      throw InputError("--cost-scope: '" + flags.costScope +
                       "' is not a cost scope; use network or system");
    }
  }
  o.npuPriceUsd = flags.npuPrice;  // applyModelOverrides checks the value
  if (!flags.endpointDelay.empty()) {
    const std::vector<double> ns =
        parseNumberList(flags.endpointDelay, "--endpoint-delay", "NS", "ns");
    if (ns.size() != 1 || !std::isfinite(ns[0]) || ns[0] < 0) {
      throw InputError("--endpoint-delay: '" + flags.endpointDelay +
                       "' is not one number >= 0 (ns per message bundle, every NPU)");
    }
    o.endpointDelayNs = ns[0];
  }
  if (!flags.latency.empty()) {
    o.latencyNs = parseNumberList(flags.latency, "--latency", "NS", "ns");
    for (std::size_t i = 0; i < o.latencyNs.size(); ++i) {
      if (!std::isfinite(o.latencyNs[i]) || o.latencyNs[i] < 0) {
        throw InputError("--latency: value " + std::to_string(i + 1) +
                         " is negative; a latency is a finite number >= 0 ns");
      }
    }
  }
  return o;
}

namespace {

std::vector<double> parseNumberList(const std::string& text, const std::string& flag,
                                    const std::string& letter, const std::string& unit) {
  std::vector<double> values;
  const std::string hint = "write " + letter + "0," + letter + "1,... in " + unit;
  if (trim(text).empty()) throw InputError(flag + ": no values given; " + hint);
  std::size_t start = 0;
  for (int position = 1;; ++position) {
    const std::size_t comma = text.find(',', start);
    std::string_view item = trim(std::string_view(text).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) {
      throw InputError(flag + ": value at position " + std::to_string(position) + " is empty; " +
                       hint);
    }
    std::string_view digits = item;
    if (digits.front() == '+') digits.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range) {
      throw InputError(flag + ": '" + std::string(item) + "' at position " +
                       std::to_string(position) + " is out of range");
    }
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      throw InputError(flag + ": '" + std::string(item) + "' at position " +
                       std::to_string(position) + " is not a number");
    }
    values.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

}  // namespace

void addLimitFlags(CLI::App* command, LimitFlags& flags) {
  command
      ->add_option("--time-limit", flags.timeLimit,
                   "Stop each solver run after S seconds of wall-clock time (default 60)")
      ->type_name("S");
  command
      ->add_option("--max-iterations", flags.maxIterations,
                   "Stop each solver run after N iterations (default: native 150 per attempt, "
                   "IPOPT 3000)")
      ->type_name("N");
}

SolveLimits parseLimitFlags(const LimitFlags& flags) {
  SolveLimits limits;
  if (!flags.timeLimit.empty()) {
    const std::string& text = flags.timeLimit;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
      throw InputError("--time-limit: '" + text + "' is not a number of seconds");
    }
    if (!(value > 0) || value > 1e6) {
      throw InputError("--time-limit: " + text + " is out of range; give seconds > 0, at most 1e6");
    }
    limits.seconds = value;
  }
  if (!flags.maxIterations.empty()) {
    limits.iterations =
        static_cast<int>(parseWholeNumber(flags.maxIterations, "--max-iterations", 1, 1000000));
  }
  return limits;
}

std::vector<double> parseBandwidthList(const std::string& text) {
  return parseNumberList(text, "bandwidth", "B", "GB/s");
}

namespace {

std::string timeLeft(double seconds) {
  char buffer[48];
  const long s = std::lround(seconds);
  if (s < 60) {
    std::snprintf(buffer, sizeof buffer, "%ld s left", s);
  } else if (s < 3600) {
    std::snprintf(buffer, sizeof buffer, "%ld min %02ld s left", s / 60, s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%ld h %02ld min left", s / 3600, (s % 3600) / 60);
  }
  return buffer;
}

}  // namespace

ProgressBar::ProgressBar(std::ostream& err, bool enabled, std::string unit)
    : err_(err),
      enabled_(enabled),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(std::int64_t done, std::int64_t total) {
  if (!enabled_ || total <= 0) return;
  constexpr int kWidth = 30;
  const auto filled = static_cast<int>(kWidth * done / total);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string eta = "estimating the time left";
  if (done >= total) {
    eta = "done";
  } else if (done > 0 && elapsed > 0.5) {
    eta = timeLeft(elapsed / static_cast<double>(done) * static_cast<double>(total - done));
  }
  err_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '-') << "] " << done
       << '/' << total << ' ' << unit_ << ", " << eta << "\x1b[K" << std::flush;
  drawn_ = true;
}

void ProgressBar::clear() {
  if (!drawn_) return;
  err_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace libra::cli
