// The multi-dimensional network: dimensions listed innermost first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libra {

enum class BuildingBlock { Ring, FullyConnected, Switch };

std::string_view toString(BuildingBlock block);
// Accepts the reference spellings (Ring, FullyConnected, Switch), case-insensitively,
// and the short form "FC".
std::optional<BuildingBlock> parseBuildingBlock(std::string_view text);

struct Dimension {
  std::string name;  // unique; constraints may refer to it as bw[name]
  BuildingBlock block = BuildingBlock::Ring;
  int npus = 2;           // n_d >= 2
  std::string costLevel;  // key into the cost model
  // Optional bounds on this dimension's bandwidth, GB/s per NPU.
  std::optional<double> minBandwidth;
  std::optional<double> maxBandwidth;
  std::optional<double> fixedBandwidth;
  // Latency of one link of this dimension, ns (one hop; a Switch step is two).
  // Used by chunked collective models; LIBRA's ideal model ignores it.
  double latencyNs = 0;

  bool operator==(const Dimension&) const = default;
};

// The most NPUs a network may have: counts, degrees and products of them are
// 64-bit and checked, and a double holds every count up to this exactly.
inline constexpr std::int64_t kMaxNpus = std::int64_t{1} << 40;

struct Network {
  std::vector<Dimension> dims;
  // What an NPU spends on each message bundle it sends or receives before the
  // collective algorithm goes on, ns (ASTRA-sim 2's `endpoint-delay`; the per-message
  // overhead o of LogP). A phase of a collective pays it once at its start and once
  // per receive (docs/collective-model.md section 3). Used by chunked collective
  // models; LIBRA's ideal model ignores it.
  double endpointDelayNs = 0;

  int size() const { return static_cast<int>(dims.size()); }
  // N = n_0 * n_1 * ... * n_{D-1}.
  std::int64_t npuCount() const;
  std::optional<int> indexOf(std::string_view name) const;
  std::vector<std::string> names() const;
  // Throws InputError naming the dimension and the problem.
  void validate() const;

  bool operator==(const Network&) const = default;
};

// What the building blocks can physically be (docs/collective-model.md): a
// FullyConnected dimension of n NPUs needs n - 1 ports on every NPU, a Switch
// dimension of n NPUs switches of radix n (one per rail: the NPUs of the inner
// dimensions each reach their own). A Ring needs two ports at any size.
struct BlockLimits {
  int fullyConnectedPorts = 18;  // NVLink ports of an NVIDIA H100 SXM GPU
  int switchRadix = 64;          // ports of an NVIDIA Quantum-2 (QM9700) switch

  bool operator==(const BlockLimits&) const = default;
};
// One sentence per dimension beyond its block's limit, with the numbers; empty
// when the network is buildable.
std::vector<std::string> limitViolations(const Network& network, const BlockLimits& limits);

// A short dimension name derived from a cost level or network-type label:
// "InterPod" -> "pod", "Package" -> "package". Used when importing files that
// carry no names.
std::string dimensionNameFromLevel(std::string_view level);
// Makes names unique by appending the index where two collide.
void makeNamesUnique(Network& network);

// The network's shape, innermost first: "Ring 16 x FC 8 x Switch 32".
std::string shapeLabel(const Network& network);

}  // namespace libra
