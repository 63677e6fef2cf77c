#include "libra/network.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "libra/error.hpp"
#include "text.hpp"

namespace libra {

namespace text {
std::string formatNumber(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return std::to_string(value);
  return std::string(buffer, end);
}
}  // namespace text

std::string_view toString(BuildingBlock block) {
  switch (block) {
    case BuildingBlock::Ring:
      return "Ring";
    case BuildingBlock::FullyConnected:
      return "FullyConnected";
    case BuildingBlock::Switch:
      return "Switch";
  }
  return "Ring";
}

std::optional<BuildingBlock> parseBuildingBlock(std::string_view text) {
  const std::string t = text::lower(text::trim(text));
  if (t == "ring") return BuildingBlock::Ring;
  if (t == "fullyconnected" || t == "fc" || t == "fully-connected") {
    return BuildingBlock::FullyConnected;
  }
  if (t == "switch") return BuildingBlock::Switch;
  return std::nullopt;
}

std::int64_t Network::npuCount() const {
  std::int64_t n = 1;
  for (const auto& d : dims) n *= d.npus;
  return n;
}

std::optional<int> Network::indexOf(std::string_view name) const {
  for (int i = 0; i < size(); ++i) {
    if (dims[i].name == name) return i;
  }
  return std::nullopt;
}

std::vector<std::string> Network::names() const {
  std::vector<std::string> out;
  out.reserve(dims.size());
  for (const auto& d : dims) out.push_back(d.name);
  return out;
}

void Network::validate() const {
  if (dims.empty()) throw InputError("network: it has no dimensions; add at least one");
  std::set<std::string> seen;
  double product = 1;
  for (int i = 0; i < size(); ++i) {
    const Dimension& d = dims[i];
    const std::string where = "network: dimension " + std::to_string(i) +
                              (d.name.empty() ? std::string() : " ('" + d.name + "')");
    if (d.name.empty()) throw InputError(where + ": the name is empty");
    // Constraints refer to a dimension as bw[name], so a name must read as one
    // word that cannot be taken for an index.
    const bool wordStart = std::isalpha(static_cast<unsigned char>(d.name[0])) || d.name[0] == '_';
    const bool wordRest = std::all_of(d.name.begin(), d.name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
    if (!wordStart || !wordRest) {
      throw InputError(where + ": the name '" + d.name +
                       "' must start with a letter or '_' and hold only letters, digits, '_', "
                       "'-' and '.' (constraints refer to it as bw[name])");
    }
    if (!seen.insert(d.name).second) {
      throw InputError(where + ": the name '" + d.name + "' is used by another dimension");
    }
    if (d.npus < 2) {
      throw InputError(where + ": NPU count " + std::to_string(d.npus) +
                       " is invalid; each dimension needs at least 2 NPUs");
    }
    product *= d.npus;
    if (product > kMaxNpus) {
      throw InputError(where + ": the network has more than 2^40 = " + std::to_string(kMaxNpus) +
                       " NPUs (" + text::formatNumber(product) + " up to this dimension)");
    }
    if (d.costLevel.empty()) throw InputError(where + ": the cost level is empty");
    auto checkBound = [&](const std::optional<double>& v, const char* what) {
      if (v && (!std::isfinite(*v) || *v < 0)) {
        throw InputError(where + ": " + what + " bandwidth " + text::formatNumber(*v) +
                         " is invalid; it must be a finite number >= 0 GB/s");
      }
    };
    checkBound(d.minBandwidth, "minimum");
    checkBound(d.maxBandwidth, "maximum");
    checkBound(d.fixedBandwidth, "fixed");
    if (!std::isfinite(d.latencyNs) || d.latencyNs < 0) {
      throw InputError(where + ": latency " + text::formatNumber(d.latencyNs) +
                       " ns is invalid; it must be a finite number >= 0");
    }
    if (d.minBandwidth && d.maxBandwidth && *d.minBandwidth > *d.maxBandwidth) {
      throw InputError(where + ": minimum bandwidth " + text::formatNumber(*d.minBandwidth) +
                       " exceeds maximum " + text::formatNumber(*d.maxBandwidth));
    }
  }
  if (!std::isfinite(endpointDelayNs) || endpointDelayNs < 0) {
    throw InputError("network: endpoint delay " + text::formatNumber(endpointDelayNs) +
                     " ns is invalid; it must be a finite number >= 0");
  }
}

std::string dimensionNameFromLevel(std::string_view level) {
  std::string name = text::lower(text::trim(level));
  if (name.rfind("inter", 0) == 0 && name.size() > 5) name = name.substr(5);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  }
  if (name.empty()) return "dim";
  if (std::isdigit(static_cast<unsigned char>(name[0]))) name = "d" + name;
  return name;
}

void makeNamesUnique(Network& network) {
  std::set<std::string> used;
  for (int i = 0; i < network.size(); ++i) {
    std::string& name = network.dims[i].name;
    if (name.empty()) name = "dim" + std::to_string(i);
    if (!used.insert(name).second) {
      name += std::to_string(i);
      used.insert(name);
    }
  }
}

std::vector<std::string> limitViolations(const Network& network, const BlockLimits& limits) {
  std::vector<std::string> out;
  for (const Dimension& d : network.dims) {
    if (d.block == BuildingBlock::FullyConnected && d.npus - 1 > limits.fullyConnectedPorts) {
      out.push_back("dimension '" + d.name + "' (FullyConnected " + std::to_string(d.npus) +
                    ") needs " + std::to_string(d.npus - 1) + " ports on every NPU; the limit is " +
                    std::to_string(limits.fullyConnectedPorts));
    } else if (d.block == BuildingBlock::Switch && d.npus > limits.switchRadix) {
      out.push_back("dimension '" + d.name + "' (Switch " + std::to_string(d.npus) +
                    ") needs switches of radix " + std::to_string(d.npus) + "; the limit is " +
                    std::to_string(limits.switchRadix));
    }
  }
  return out;
}

std::string shapeLabel(const Network& network) {
  std::string out;
  for (const Dimension& d : network.dims) {
    if (!out.empty()) out += " x ";
    out += (d.block == BuildingBlock::FullyConnected ? std::string("FC")
                                                     : std::string(toString(d.block))) +
           " " + std::to_string(d.npus);
  }
  return out;
}

}  // namespace libra
