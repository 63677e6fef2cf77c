#include "shape_flags.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "libra/constraints.hpp"
#include "libra/error.hpp"
#include "preset_options.hpp"

namespace libra::cli {

std::atomic<bool> gInterrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

namespace {
void onInterrupt(int) {
  gInterrupted.store(true, std::memory_order_relaxed);
}
}  // namespace

InterruptHandler::InterruptHandler() {
  gInterrupted.store(false);
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  installed_ = sigaction(SIGINT, &action, &previous_) == 0;
}

InterruptHandler::~InterruptHandler() {
  if (installed_) sigaction(SIGINT, &previous_, nullptr);
}

DimRange parseDims(const std::string& text, int maxDims) {
  const std::size_t dots = text.find("..");
  const std::string usage = "; write MIN..MAX (e.g. 2..4) or one count (e.g. 3)";
  auto one = [&](const std::string& part) {
    if (part.empty()) throw InputError("--dims: '" + text + "' is not a range" + usage);
    std::int64_t value = 0;
    try {
      value = parseWholeNumber(part, "--dims", 0, std::numeric_limits<std::int64_t>::max());
    } catch (const InputError&) {
      throw InputError("--dims: '" + text + "' is not a range" + usage);
    }
    if (value < kMinDims || value > maxDims) {
      throw InputError("--dims: " + part + " dimensions are out of range; give " +
                       std::to_string(kMinDims) + " to " + std::to_string(maxDims) +
                       " (one cost level per dimension: InterChiplet, InterPackage, InterNode, "
                       "InterPod)");
    }
    return static_cast<int>(value);
  };
  DimRange range;
  if (dots == std::string::npos) {
    range.min = range.max = one(text);
  } else {
    range.min = one(text.substr(0, dots));
    range.max = one(text.substr(dots + 2));
    if (range.min > range.max) {
      throw InputError("--dims: '" + text + "': MIN " + std::to_string(range.min) +
                       " is greater than MAX " + std::to_string(range.max));
    }
  }
  return range;
}

std::vector<BuildingBlock> parseBlocks(const std::string& text) {
  std::vector<BuildingBlock> blocks;
  std::size_t start = 0;
  for (int position = 1;; ++position) {
    const std::size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty()) {
      throw InputError("--blocks: item " + std::to_string(position) +
                       " is empty; write e.g. Ring,FullyConnected,Switch");
    }
    const auto block = parseBuildingBlock(item);
    if (!block) {
      throw InputError("--blocks: '" + item +
                       "' is not a building block; use Ring, FullyConnected (or FC) and Switch");
    }
    if (std::find(blocks.begin(), blocks.end(), *block) != blocks.end()) {
      throw InputError("--blocks: " + std::string(toString(*block)) + " is listed twice");
    }
    blocks.push_back(*block);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return blocks;
}

namespace {
std::vector<std::int64_t> primeFactors(std::int64_t n) {
  std::vector<std::int64_t> factors;
  for (std::int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      factors.push_back(p);
      n /= p;
    }
  }
  if (n > 1) factors.push_back(n);
  return factors;
}

}  // namespace

// Refuses a range in which N has no shape at all; notes the counts without one.
void checkFactorizations(std::int64_t npus, const DimRange& dims, std::vector<std::string>& notes) {
  const std::vector<std::int64_t> primes = primeFactors(npus);
  const int most = static_cast<int>(primes.size());  // at most one factor per prime
  std::string product;
  for (std::int64_t p : primes) product += (product.empty() ? "" : " x ") + std::to_string(p);
  const std::string why = primes.size() == 1 ? std::to_string(npus) + " is prime"
                                             : std::to_string(npus) + " = " + product;
  if (most < dims.min) {
    throw InputError("--npus " + std::to_string(npus) + ": " + std::to_string(npus) +
                     " NPUs cannot be split into " + std::to_string(dims.min) +
                     (dims.min == dims.max ? "" : " or more") +
                     " dimensions of at least 2 NPUs each (" + why + ": at most " +
                     std::to_string(most) + (most == 1 ? " dimension" : " dimensions") +
                     "); change --npus or --dims");
  }
  if (most < dims.max) {
    notes.push_back(std::to_string(npus) + " NPUs split into at most " + std::to_string(most) +
                    " dimensions of at least 2 NPUs (" + why + "); no shapes with " +
                    std::to_string(most + 1) + ".." + std::to_string(dims.max) + " dimensions");
  }
}

// Every shape's dimensions are named after its cost levels, and a narrower shape
// has a subset of the widest one's names. A constraint that does not parse on the
// widest shape (bad syntax, or a dimension no shape has) would skip every shape.
void applyModelFlags(const ModelFlags& flags, SweepOptions& shapes) {
  const ModelOverrides model = parseModelFlags(flags);
  if (model.chunks) shapes.collectives.chunks = *model.chunks;
  if (model.costScope) shapes.costScope = *model.costScope;
  shapes.npuPriceUsd = model.npuPriceUsd;
  if (model.latencyNs.size() > 1) {
    throw InputError(
        "--latency: the shapes have different dimension counts; give one value for every "
        "dimension (each building block has its default otherwise)");
  }
  if (!model.latencyNs.empty()) shapes.latencyNs = model.latencyNs.front();
  if (model.endpointDelayNs) shapes.endpointDelayNs = *model.endpointDelayNs;
}

int parseJobs(const std::string& text) {
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return text.empty() ? hardware : static_cast<int>(parseWholeNumber(text, "--jobs", 1, kMaxJobs));
}

void checkConstraints(const SweepOptions& options) {
  std::vector<std::string> names;
  for (auto level = options.costLevels.end() - options.maxDims; level != options.costLevels.end();
       ++level) {
    names.push_back(dimensionNameFromLevel(*level));
  }
  const std::vector<double> unitPrices(names.size(), 1.0);
  for (const std::string& text : options.constraints) {
    try {
      (void)parseConstraint(text, names, unitPrices);
    } catch (const ConstraintError& e) {
      throw InputError(std::string("--constraint: ") + e.what());
    }
  }
}

std::string blockList(const std::vector<BuildingBlock>& blocks) {
  std::string out;
  for (BuildingBlock b : blocks) out += (out.empty() ? "" : ", ") + std::string(toString(b));
  return out;
}

std::string bandwidthText(const std::vector<double>& bw) {
  std::string out;
  for (double b : bw) out += (out.empty() ? "" : " / ") + formatFixed(b, 1);
  return out;
}

}  // namespace libra::cli
