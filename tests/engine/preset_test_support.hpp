// Test helpers for the preset, mapping and sweep tests: minimal readers of the
// reference LIBRA inputs (kept independent of the engine's importer so that the
// generators are checked against the files themselves) and a tiny model.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "libra/presets.hpp"

namespace libra::testing {

struct ReferenceLine {
  std::string name;
  double compute[3] = {0, 0, 0};
  std::string type[3];
  double size[3] = {0, 0, 0};
};

// One layer per line: name -1 Fc Ft Fs IGc IGt IGs WGc WGt WGs update.
inline std::vector<ReferenceLine> readReferenceWorkload(const std::string& path) {
  std::ifstream in(path);
  std::vector<ReferenceLine> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    ReferenceLine r;
    std::string unused;
    if (!(fields >> r.name >> unused)) continue;
    for (int k = 0; k < 3; ++k) fields >> r.compute[k] >> r.type[k] >> r.size[k];
    out.push_back(r);
  }
  return out;
}

// "Forward: [ 16, -1, -1 ]" -> {16, 1, 1} (the reference's -1 is our 1).
inline std::vector<int> readYamlList(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    const auto open = line.find('['), close = line.find(']');
    std::string items = line.substr(open + 1, close - open - 1);
    for (char& c : items) {
      if (c == ',') c = ' ';
    }
    std::istringstream fields(items);
    std::vector<int> out;
    int v;
    while (fields >> v) out.push_back(v < 1 ? 1 : v);
    return out;
  }
  return {};
}

inline std::vector<std::string> readYamlWords(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    const auto open = line.find('['), close = line.find(']');
    std::string items = line.substr(open + 1, close - open - 1);
    for (char& c : items) {
      if (c == ',') c = ' ';
    }
    std::istringstream fields(items);
    std::vector<std::string> out;
    std::string w;
    while (fields >> w) out.push_back(w);
    return out;
  }
  return {};
}

inline Network readReferenceNetwork(const std::string& path) {
  const auto blocks = readYamlWords(path, "Topology");
  const auto npus = readYamlList(path, "NpusCount");
  const auto levels = readYamlWords(path, "CostDimension");
  Network n;
  for (std::size_t d = 0; d < blocks.size(); ++d) {
    Dimension dim;
    dim.name = dimensionNameFromLevel(levels[d]);
    dim.block = *parseBuildingBlock(blocks[d]);
    dim.npus = npus[d];
    dim.costLevel = levels[d];
    n.dims.push_back(dim);
  }
  return n;
}

inline Dimension dimension(std::string name, BuildingBlock block, int npus, std::string level) {
  Dimension d;
  d.name = std::move(name);
  d.block = block;
  d.npus = npus;
  d.costLevel = std::move(level);
  return d;
}

inline Network ringNetwork(const std::vector<int>& npus, const std::vector<std::string>& names) {
  Network n;
  const std::vector<std::string> levels{"InterChiplet", "InterPackage", "InterNode", "InterPod"};
  for (std::size_t d = 0; d < npus.size(); ++d) {
    Dimension dim;
    dim.name = names[d];
    dim.block = BuildingBlock::Ring;
    dim.npus = npus[d];
    dim.costLevel = levels[levels.size() - npus.size() + d];
    n.dims.push_back(dim);
  }
  return n;
}

// A device that runs 1000 FLOP per ns (1 TFLOP/s at efficiency 1), so compute
// times in ns are FLOPs / 1000.
inline Device teraflopDevice() {
  Device d;
  d.id = "test";
  d.name = "1 TFLOP/s test device";
  d.peakFlops = 1e12;
  d.efficiency = 1.0;
  d.memoryBandwidth = 1e12;  // 1000 bytes per ns
  return d;
}

// A 2-block transformer small enough to compute by hand: h 64, f 256, 4 heads,
// sequence 16, BF16, no embeddings. Global batch 4: on 2 data-parallel replicas
// (the 4-NPU tests at TP 2) one micro-batch of 2 sequences (T = 32 tokens).
inline Preset tinyTransformer() {
  Preset p;
  p.id = "tiny";
  p.name = "Tiny";
  TransformerConfig t;
  t.layers = 2;
  t.hidden = 64;
  t.ffn = 256;
  t.heads = 4;
  t.vocab = 0;
  p.model = t;
  p.sequenceLength = 16;
  p.globalBatch = 4;
  p.microBatch = 2;
  p.bytesPerElement = 2;
  return p;
}

// Generator options for `perReplica` samples on each of `replicas` data-parallel
// replicas in one micro-batch (the per-NPU micro-batch of the tests' sizes).
inline GeneratorOptions batchOf(std::int64_t perReplica, std::int64_t replicas) {
  GeneratorOptions options;
  options.globalBatch = perReplica * replicas;
  return options;
}

// The compute time of every phase of every layer (ns).
inline double totalCompute(const Workload& w) {
  double t = 0;
  for (const Layer& l : w.layers) {
    for (const Phase& p : l.phases) t += p.computeNs;
  }
  return t;
}

inline const Layer* findLayer(const Workload& w, const std::string& name) {
  for (const Layer& l : w.layers) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

}  // namespace libra::testing
