// ASTRA-sim 2 export (astra_export.hpp). The values follow model.md section 9
// and the configuration that reproduces ASTRA-sim's timing exactly
// (tests/data/astra-sim/README.md); the README written here says what the files
// are, what this tool predicts for them and how to run them.
#include "libra/astra_export.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <tuple>

#include "libra/astra_trace.hpp"
#include "libra/collective_model.hpp"
#include "libra/display_text.hpp"
#include "libra/error.hpp"
#include "libra/file_names.hpp"
#include "libra/libra_format.hpp"
#include "libra/project_io.hpp"
#include "text.hpp"

namespace libra {

namespace {

// ASTRA-sim's endpoint delay is whole cycles (ns) and at least 1 (0 aborts it).
long long astraEndpointDelay(const Network& network) {
  return std::max(1LL, std::llround(network.endpointDelayNs));
}

using Json = nlohmann::ordered_json;

constexpr double kAstraGigabyte = 1073741824.0;  // 2^30 bytes: ASTRA-sim's GB

struct Algorithms {
  const char* allReduce;
  const char* reduceScatter;
  const char* allGather;
  const char* allToAll;
};

// One algorithm per building block and collective (tests/data/astra-sim/README.md).
Algorithms algorithmsFor(BuildingBlock block) {
  switch (block) {
    case BuildingBlock::Ring:
      return {"ring", "ring", "ring", "direct1"};
    case BuildingBlock::FullyConnected:
      return {"direct", "direct", "direct", "direct"};
    case BuildingBlock::Switch:
      return {"halvingDoubling", "halvingDoubling", "halvingDoubling", "direct1"};
  }
  return {"ring", "ring", "ring", "direct1"};
}

std::string list(const std::vector<std::string>& items) {
  std::string out = "[ ";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + " ]";
}

std::string joined(std::span<const double> values, const char* separator = ",") {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += (i ? separator : "") + text::formatNumber(values[i]);
  }
  return out;
}

std::string groupsText(const std::vector<int>& groups) {
  std::string out;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    out += (i ? " x " : "") + std::to_string(groups[i]);
  }
  return out;
}

// "4000097.3 ns (4.000 ms)"; "infinite" when not finite.
std::string duration(double ns) {
  if (!std::isfinite(ns)) return "infinite";
  std::string out = text::formatNumber(std::round(ns * 10) / 10) + " ns";
  const double a = std::abs(ns);
  const char* unit = nullptr;
  double scaled = ns;
  if (a >= 1e9) {
    unit = "s";
    scaled = ns / 1e9;
  } else if (a >= 1e6) {
    unit = "ms";
    scaled = ns / 1e6;
  } else if (a >= 1e3) {
    unit = "us";
    scaled = ns / 1e3;
  }
  if (unit != nullptr) {
    out += " (" + formatFixed(scaled, 3) + " " + unit + ")";
  }
  return out;
}

// Text for a Markdown table cell or heading: one line, no column separators.
std::string cell(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// A file name from a workload name (libra/file_names.hpp): "GPT-3 175B (TP 16)"
// -> "GPT-3_175B_TP_16".
std::string workloadStem(const std::string& name) {
  std::string stem = fileStem(name);
  return stem.empty() ? "workload" : stem;
}

// The project as the analysis posed it: its latencies and collective model.
Project posedProject(const Project& project, const Analysis& analysis) {
  Project posed = project;
  posed.model = analysis.model;
  if (analysis.latencyNs.size() == posed.network.dims.size()) {
    for (std::size_t d = 0; d < posed.network.dims.size(); ++d) {
      posed.network.dims[d].latencyNs = analysis.latencyNs[d];
    }
  }
  posed.constraints.clear();
  return posed;
}

// The distinct collectives of a workload (same type, size and groups), in order
// of first appearance, with how often each runs per iteration.
struct CollectiveRow {
  std::string workload;
  CollectiveType type = CollectiveType::None;
  double sizeBytes = 0;
  std::vector<int> groups;
  int count = 0;
  double timeNs = 0;
  double timeAtSplitsNs = 0;
};

std::vector<CollectiveRow> collectiveRows(const Project& posed, std::span<const double> bw,
                                          int splits) {
  CollectiveModel atSplits = posed.model.collectives;
  atSplits.chunks = ChunkSetting::fixed(splits);
  std::vector<CollectiveRow> rows;
  for (const Workload& w : posed.workloads) {
    std::map<std::tuple<CollectiveType, double, std::vector<int>>, std::size_t> seen;
    for (const Layer& layer : w.layers) {
      for (PhaseKind kind : kPhaseKinds) {
        const Phase& p = layer.phase(kind);
        if (p.collective == CollectiveType::None || p.sizeBytes <= 0) continue;
        const std::vector<int>& groups = p.groups.empty() ? w.communicator.of(kind) : p.groups;
        if (std::all_of(groups.begin(), groups.end(), [](int g) { return g <= 1; })) continue;
        const auto key = std::make_tuple(p.collective, p.sizeBytes, groups);
        auto it = seen.find(key);
        if (it != seen.end()) {
          ++rows[it->second].count;
          continue;
        }
        CollectiveRow row;
        row.workload = w.name;
        row.type = p.collective;
        row.sizeBytes = p.sizeBytes;
        row.groups = groups;
        row.count = 1;
        row.timeNs = collectiveTerm(p.collective, p.sizeBytes, groups, posed.network,
                                    posed.model.collectives)
                         .exact(bw);
        row.timeAtSplitsNs =
            collectiveTerm(p.collective, p.sizeBytes, groups, posed.network, atSplits).exact(bw);
        seen.emplace(key, rows.size());
        rows.push_back(std::move(row));
      }
    }
  }
  return rows;
}

// A size in bytes as a whole number where it is one ("268435456"), else shortest.
std::string bytesText(double bytes) {
  if (bytes >= 0 && bytes < 9e15 && std::floor(bytes) == bytes) {
    return std::to_string(static_cast<long long>(bytes));
  }
  return text::formatNumber(bytes);
}

// What ASTRA-sim does with a collective of S bytes in C chunks
// (Sys::determine_chunk_size, tests/data/astra-sim/README.md, timing recipe step
// 5) where that is not C chunks of S / C bytes each, as this tool's model counts:
// chunks of floor(S / C) bytes, at least N bytes except for All-Gather, and as many
// of them as it takes to cover S, each of full size.
std::vector<std::string> chunkingWarnings(const std::vector<CollectiveRow>& rows, int splits,
                                          std::int64_t npus) {
  std::set<long long> extraChunk, minimumChunk;
  for (const CollectiveRow& row : rows) {
    const long long size = std::llround(row.sizeBytes);
    if (size <= 0) continue;
    if (row.type != CollectiveType::AllGather && size / splits < npus) {
      minimumChunk.insert(size);
    } else if (size % splits != 0) {
      extraChunk.insert(size);
    }
  }
  std::vector<std::string> out;
  if (!extraChunk.empty()) {
    out.push_back(std::to_string(extraChunk.size()) + " collective size(s) (e.g. " +
                  std::to_string(*extraChunk.begin()) + " bytes) are not a multiple of the " +
                  std::to_string(splits) +
                  " chunks: ASTRA-sim cuts a collective of S bytes into chunks of floor(S / " +
                  std::to_string(splits) +
                  ") bytes and runs as many full chunks as cover S, one more than this tool's "
                  "model counts, so it simulates them slower than predicted here");
  }
  if (!minimumChunk.empty()) {
    out.push_back(std::to_string(minimumChunk.size()) + " collective size(s) (e.g. " +
                  std::to_string(*minimumChunk.begin()) + " bytes) are under " +
                  std::to_string(splits) + " chunks x " + std::to_string(npus) +
                  " NPUs: ASTRA-sim makes every chunk at least one byte per NPU (All-Gather "
                  "aside), so it simulates them with more bytes than they have");
  }
  return out;
}

std::string chunkExplanation(const ChunkSetting& chunks, int splits) {
  switch (chunks.kind) {
    case ChunkSetting::Kind::Ideal:
      return "The project uses LIBRA's ideal model (`chunks`: `ideal`), which is the limit of "
             "many chunks with no latency; ASTRA-sim needs a count, so the export takes " +
             std::to_string(splits) +
             ". With that many chunks the pipeline fill and the per-chunk latencies are small "
             "next to the transfer for large collectives; for small ones the simulator's time "
             "is longer than the ideal time.";
    case ChunkSetting::Kind::Auto:
      return "The project picks the chunk count per collective (`chunks`: `auto`); ASTRA-sim "
             "has one count for every collective, so the export takes " +
             std::to_string(splits) +
             ", the median of the counts chosen at this design (each collective counted as often "
             "as it runs). Collectives whose own best count differs simulate somewhat slower "
             "than predicted here.";
    case ChunkSetting::Kind::Fixed:
      break;
  }
  return "Every collective is cut into " + std::to_string(splits) +
         " chunks (`chunks`: " + std::to_string(splits) + ").";
}

// A word for a POSIX shell: as it is when it is safe, else in single quotes.
std::string shellWord(const std::string& word) {
  const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("/._-+,:=@").find(c) != std::string_view::npos;
  });
  if (safe) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string designSentence(const Analysis& analysis) {
  if (analysis.evaluated) {
    std::string s = "the bandwidths given with `--bandwidth` (evaluated, not optimized)";
    if (!analysis.violated.empty()) {
      s += "; they break ";
      for (std::size_t i = 0; i < analysis.violated.size(); ++i) {
        s += (i ? ", " : "") + std::string("`") + analysis.violated[i] + "`";
      }
    }
    return s;
  }
  std::string s = "the " + std::string(toString(analysis.objective)) + " optimum";
  if (analysis.constraints.empty()) return s + " without constraints";
  s += " under ";
  for (std::size_t i = 0; i < analysis.constraints.size(); ++i) {
    s += (i ? ", " : "") + std::string("`") + analysis.constraints[i] + "`";
  }
  return s;
}

struct WrittenWorkload {
  std::string name;
  std::string path;  // relative; empty when not written
  std::string stem;  // the file name without .txt
  std::string header;
  std::size_t layers = 0;
  std::string trace;  // iteration/<stem>.json; empty when not written
  std::size_t traceNodes = 0;
  std::size_t collectives = 0;
  double computeNs = 0;
  long long computeMicros = 0;
  double predictedNs = 0;  // at the export's chunk count
};

// The README's Notes: what Chakra's converter and ASTRA-sim do differently from
// the project, and the export's warnings. `runnable`: some workload file goes
// through the converter as it is (or none was written).
std::string readmeNotes(const Project& posed, bool runnable,
                        const std::vector<std::string>& warnings) {
  std::string r = "## Notes\n\n";
  r += "- Chakra's text converter runs every collective over all dimensions (its traces carry "
       "no `involved_dim`), which is what a `DATA` (weight-gradient collectives over every NPU) "
       "or `MODEL` (forward and input-gradient collectives over every NPU) file says. It takes "
       "the parallelism words `DATA`, `MODEL`, `HYBRID_DATA_MODEL`, `HYBRID_MODEL_DATA`, "
       "`HYBRID_DLRM` and `MICRO`, not `HYBRID_TRANSFORMER`: a hybrid tensor / data parallel "
       "workload cannot go through it without running its tensor-parallel collectives over "
       "every NPU.\n";
  r += "- Compute times: the converter stores a layer's compute time as the node's "
       "`duration_micros`, and ASTRA-sim 2 multiplies that by 1000 (microseconds to ns), so "
       "compute written here in ns simulates 1000 times longer, and a compute time of 0 "
       "takes 1 ns. Collective times are not affected.\n";
  r += "- The converter's dependencies are not the project's training loop: with `DATA` a "
       "weight-gradient collective overlaps the backward compute that follows it, and layer "
       "0's input-gradient compute is left out; with `MODEL` layer 0's input-gradient "
       "collective is left out and an input-gradient collective overlaps the weight-gradient "
       "compute.\n";
  if (static_cast<double>(astraEndpointDelay(posed.network)) != posed.network.endpointDelayNs) {
    r += "- The project's endpoint delay of " + text::formatNumber(posed.network.endpointDelayNs) +
         " ns is written as " + std::to_string(astraEndpointDelay(posed.network)) +
         " ns: ASTRA-sim takes whole ns and at least 1.\n";
  }
  r += "- ASTRA-sim truncates every message's time to whole ns, which this tool's model does "
       "not; it matters only for messages of a few ns.\n";
  if (posed.workloads.size() > 1) {
    r += "- The project weights " + std::to_string(posed.workloads.size()) +
         " workloads into one objective; each file is simulated on its own.\n";
  }
  if (!runnable) {
    r += "- No workload file here goes through Chakra's text converter as it is.\n";
  }
  for (const std::string& w : warnings) r += "- " + w + ".\n";
  return r;
}

// What the README is written from.
struct ReadmeInput {
  const Project& posed;
  const Analysis& analysis;
  const std::string& projectFile;
  int preferredSplits;
  int splits;
  const std::vector<WrittenWorkload>& workloads;
  std::string traceNetwork;  // the files the traces run with; empty: no trace
  std::string traceSystem;
};

std::string readmeFiles(const ReadmeInput& in) {
  const Network& net = in.posed.network;
  std::string r = "## Files\n\n| file | what |\n|---|---|\n";
  r += "| `network.yml` | the network, one entry per dimension (innermost first): `topology`, "
       "`npus_count`, `bandwidth` (GB/s of ONE uni-directional link, ASTRA-sim's GB = 2^30 "
       "bytes) and `latency` (ns per link) |\n";
  r += "| `system.json` | the system layer: " + std::to_string(in.splits) +
       " chunks per collective (`preferred-dataset-splits`), one chunk active per dimension, "
       "one collective algorithm per dimension (Ring: ring, FullyConnected: direct, Switch: "
       "halvingDoubling; All-to-All: direct1 on Ring and Switch), endpoint delay " +
       std::to_string(astraEndpointDelay(net)) +
       " ns (the project's, in whole ns and at least 1), local reduction free "
       "(`local-mem-bw`) |\n";
  r += "| `remote_memory.json` | no remote memory (`NO_MEMORY_EXPANSION`) |\n";
  for (const WrittenWorkload& w : in.workloads) {
    if (!w.trace.empty()) {
      r += "| `" + w.trace + "` | workload '" + cell(w.name) + "': its training iteration as " +
           std::to_string(w.traceNodes) + " nodes (" + std::to_string(w.collectives) +
           " collectives with `involved_dim`, compute in whole us) for "
           "`iteration/chakra_traces.py` |\n";
    }
  }
  if (!in.traceNetwork.empty()) {
    r += "| `iteration/chakra_traces.py` | turns a node list into Chakra execution traces, one "
         "`.et` per NPU, with Chakra's protobuf bindings |\n";
  }
  if (in.traceNetwork == "iteration/network.yml") {
    r += "| `iteration/network.yml`, `iteration/system.json` | the network and system as the "
         "traces see them: dimensions that groups use in parts are split (see below) |\n";
  }
  for (const WrittenWorkload& w : in.workloads) {
    if (w.path.empty()) continue;
    r += "| `" + w.path + "` | workload '" + cell(w.name) +
         "' in the ASTRA-sim 1.0 text format: " + "header `" + w.header + "`, " +
         std::to_string(w.layers) + " layer(s); compute in ns, " + "sizes in bytes |\n";
  }
  return r + "| `README.md` | this file |\n\n";
}

std::string readmeDesign(const ReadmeInput& in) {
  const Network& net = in.posed.network;
  const std::vector<double>& bw = in.analysis.design.bandwidth;
  std::string r = "## The design\n\n";
  r += "| dim | name | block | NPUs | bandwidth (GB/s per NPU, 1 GB = 1e9 B) | `bandwidth` in "
       "network.yml | `latency` (ns) |\n|---|---|---|---|---|---|---|\n";
  for (std::size_t d = 0; d < net.dims.size(); ++d) {
    const Dimension& dim = net.dims[d];
    r += "| " + std::to_string(d) + " | " + cell(dim.name) + " | " +
         std::string(toString(dim.block)) + " | " + std::to_string(dim.npus) + " | " +
         text::formatNumber(bw[d]) + " | " +
         text::formatNumber(astraLinkBandwidth(dim.block, dim.npus, bw[d])) + " | " +
         text::formatNumber(dim.latencyNs) + " |\n";
  }
  r += "\n" + std::to_string(net.npuCount()) + " NPUs; network cost $" +
       text::formatNumber(std::round(in.analysis.design.eval.costUsd)) + ".\n\n";
  r += chunkExplanation(in.posed.model.collectives.chunks, in.preferredSplits) + "\n\n";
  if (in.splits != in.preferredSplits) {
    r += "ASTRA-sim cuts a collective of S bytes into chunks of floor(S / C) bytes and runs as "
         "many as cover S, so a count that does not divide S runs one chunk more than C. The "
         "export therefore writes " +
         std::to_string(in.splits) + " instead of " + std::to_string(in.preferredSplits) +
         ": the count nearest to it that divides every collective size (and leaves chunks of at "
         "least one byte per NPU).\n\n";
  }
  return r;
}

std::string readmePrediction(const ReadmeInput& in) {
  const Project& posed = in.posed;
  const std::vector<double>& bw = in.analysis.design.bandwidth;
  const ChunkSetting& chunks = posed.model.collectives.chunks;
  std::vector<double> latency;
  for (const Dimension& d : posed.network.dims) latency.push_back(d.latencyNs);
  const Evaluation& eval = in.analysis.design.eval;
  std::string r = "What this tool predicts (chunks `" + chunks.toString() + "`, training loop `" +
                  std::string(toString(posed.model.trainingLoop)) + "`" +
                  (posed.workloads.size() > 1 ? ", the workloads weighted" : "") + "):\n\n";
  r += "- iteration time " + duration(eval.iterationNs) + ": compute " + duration(eval.computeNs) +
       ", exposed communication " + duration(eval.communicationNs) + "\n";
  if (!(chunks.kind == ChunkSetting::Kind::Fixed && chunks.count == in.splits)) {
    Project atSplits = posed;
    atSplits.model.collectives.chunks = ChunkSetting::fixed(in.splits);
    const Evaluation e = buildProblem(atSplits).evaluate(bw);
    r += "- with " + std::to_string(in.splits) + " chunks, as `system.json` sets: iteration time " +
         duration(e.iterationNs) + ", exposed communication " + duration(e.communicationNs) + "\n";
  }
  r += "\nThis tool's prediction for the simulator's settings (chunks and latencies as in "
       "`system.json` and `network.yml`), the time to compare the simulated one with: `libra "
       "evaluate " +
       shellWord(in.projectFile) + " --bandwidth " + joined(bw) + " --chunks " +
       std::to_string(in.splits) + " --latency " + joined(latency) + "`.\n\n";
  return r;
}

std::string readmeCollectives(const ReadmeInput& in) {
  const ChunkSetting& chunks = in.posed.model.collectives.chunks;
  const std::vector<CollectiveRow> rows =
      collectiveRows(in.posed, in.analysis.design.bandwidth, in.splits);
  if (rows.empty()) return "";
  const bool twoColumns = !(chunks.kind == ChunkSetting::Kind::Fixed && chunks.count == in.splits);
  const std::string atSplits = "time at " + std::to_string(in.splits) + " chunks";
  std::string r =
      "Collectives (identical ones merged; the time of one, alone on the network; "
      "group sizes per dimension, innermost first):\n\n";
  r += std::string("| workload | collective | size (bytes) | groups | count | time |") +
       (twoColumns ? " " + atSplits + " |" : "") + "\n";
  r += std::string("|---|---|---|---|---|---|") + (twoColumns ? "---|" : "") + "\n";
  constexpr std::size_t kMaxRows = 40;
  for (std::size_t i = 0; i < rows.size() && i < kMaxRows; ++i) {
    const CollectiveRow& row = rows[i];
    r += "| " + cell(row.workload) + " | " + std::string(toString(row.type)) + " | " +
         bytesText(row.sizeBytes) + " | " + groupsText(row.groups) + " | " +
         std::to_string(row.count) + " | " + duration(row.timeNs) + " |" +
         (twoColumns ? " " + duration(row.timeAtSplitsNs) + " |" : "") + "\n";
  }
  if (rows.size() > kMaxRows) {
    r += "\n(" + std::to_string(rows.size() - kMaxRows) + " more distinct collectives.)\n";
  }
  return r + "\n";
}

constexpr const char* kSimulator =
    "$ASTRA_SIM/build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Unaware";

std::string simulatorCommand(const std::string& prefix, const std::string& network,
                             const std::string& system) {
  return std::string(kSimulator) + " \\\n    --workload-configuration=" + prefix +
         " \\\n    --system-configuration=" + system +
         " \\\n    --network-configuration=" + network +
         " \\\n    --remote-memory-configuration=remote_memory.json \\\n"
         "    --num-queues-per-dim=1\n";
}

// The training iteration as Chakra traces: how to make and run them.
std::string readmeIteration(const ReadmeInput& in) {
  if (in.traceNetwork.empty()) return "";
  std::string r = "## Running the training iteration\n\n";
  r += "Each `iteration/NAME.json` is one training iteration of a workload as this tool "
       "predicts it: the `" +
       std::string(toString(in.posed.model.trainingLoop)) +
       "` loop runs compute and collectives one after another, so the nodes form one chain "
       "(each depends on the one before). Every collective carries `involved_dim`, the "
       "dimensions its group uses (tensor-parallel collectives on the tensor-parallel "
       "dimensions, data-parallel ones on the others), `comm_size` in bytes (for All-Gather "
       "the per-NPU shard) and the time this tool predicts for it alone (`predicted_ns`). "
       "The compute between two collectives is one node with `duration_micros` in whole "
       "microseconds (ASTRA-sim multiplies it by 1000): each node holds round(end) - "
       "round(start) of the running compute sum in us, so the compute of the whole iteration is "
       "off by at most 0.5 us.\n\n";
  if (in.traceNetwork == "iteration/network.yml") {
    r += "Some groups use a part of a dimension (a group of g of its n NPUs, s apart). "
         "ASTRA-sim's collectives run over whole dimensions, so `iteration/network.yml` "
         "splits such a dimension into one dimension per part (named `NAME/g@s`, innermost "
         "first, which keeps the NPU numbering), each with the bandwidth share and hop "
         "latency this tool's model gives that group; `iteration/system.json` matches it.\n\n";
  }
  r += "| workload | nodes | collectives | compute (exact) | compute (nodes) | predicted "
       "iteration at " +
       std::to_string(in.splits) + " chunks |\n|---|---|---|---|---|---|\n";
  for (const WrittenWorkload& w : in.workloads) {
    if (w.trace.empty()) continue;
    r += "| " + cell(w.name) + " | " + std::to_string(w.traceNodes) + " | " +
         std::to_string(w.collectives) + " | " + duration(w.computeNs) + " | " +
         std::to_string(w.computeMicros) + " us | " + duration(w.predictedNs) + " |\n";
  }
  r += "\nNeeds ASTRA-sim 2 built with its analytical backend and its Chakra submodule "
       "(`packaging/build-astra-sim.sh` of Libra Studio builds both at the commits this "
       "export was checked with) and Python 3 with protobuf. From this directory:\n\n";
  for (const WrittenWorkload& w : in.workloads) {
    if (w.trace.empty()) continue;
    const std::string prefix = "traces/" + w.stem + "/" + w.stem;
    r += "```sh\nASTRA_SIM=/path/to/astra-sim   # the source tree, built\n";
    r +=
        "PYTHONPATH=$ASTRA_SIM python3 iteration/chakra_traces.py " + w.trace + " " + prefix + "\n";
    r += simulatorCommand(prefix, in.traceNetwork, in.traceSystem) + "```\n\n";
  }
  r += "The simulator prints `sys[<npu>] finished, <X> cycles` for every NPU; 1 cycle = 1 ns, "
       "and the largest X is the simulated iteration time, to compare with the predicted one "
       "above.\n\n";
  return r;
}

// Chakra's text converter on the ASTRA-sim 1.0 text files.
std::string readmeTextRun(const ReadmeInput& in, bool& anyRunnable) {
  std::string r = "## Running the ASTRA-sim 1.0 text workloads\n\n";
  r += "Chakra's text converter turns these into traces too, but without the groups "
       "(see the notes). It needs the same ASTRA-sim build. From this directory:\n\n";
  anyRunnable = false;
  bool any = false;
  for (const WrittenWorkload& w : in.workloads) {
    if (w.path.empty()) continue;
    any = true;
    const bool chakraTakesIt = w.header == "DATA" || w.header == "MODEL";
    r += "```sh\nASTRA_SIM=/path/to/astra-sim   # the source tree, built\n";
    if (!chakraTakesIt) {
      r += "# Chakra's text converter does not take this header (see the notes below)\n";
    }
    anyRunnable = anyRunnable || chakraTakesIt;
    r += "mkdir -p text-traces/" + w.stem + "\n";
    r += "PYTHONPATH=$ASTRA_SIM/extern/graph_frontend python3 -m chakra.src.converter.converter "
         "Text \\\n    --input " +
         w.path + " --output text-traces/" + w.stem + "/" + w.stem + " --num-npus " +
         std::to_string(in.posed.network.npuCount()) + " --num-passes 1\n";
    r += simulatorCommand("text-traces/" + w.stem + "/" + w.stem, "network.yml", "system.json") +
         "```\n\n";
  }
  if (!any) {
    if (in.traceNetwork.empty()) {
      r += "No workload could be written (see the notes below): the network and system files "
           "can still be run with traces made otherwise, e.g. ASTRA-sim's microbenchmark "
           "generators (`examples/workload/microbenchmarks/generator_scripts`).\n\n";
    } else {
      r += "No workload could be written as ASTRA-sim 1.0 text (see the notes below).\n\n";
    }
    anyRunnable = true;  // nothing to warn about
    return r;
  }
  r += "The converter (the same as `chakra_converter Text ...` where Chakra is installed as a "
       "package) writes one Chakra execution trace per NPU, `text-traces/NAME/NAME.<npu>.et`, "
       "into a folder that must exist; `--workload-configuration` takes that prefix.\n\n";
  return r;
}

std::string readme(const ReadmeInput& in, const std::vector<std::string>& warnings) {
  std::string r;
  r += "# ASTRA-sim 2 input: " + cell(in.posed.name.empty() ? "project" : in.posed.name) + "\n\n";
  r += "Written by `libra export-astra-sim` from `" + cell(in.projectFile) +
       "` for ASTRA-sim 2's analytical network backend (congestion-unaware). The design is " +
       designSentence(in.analysis) + ".\n\n";
  r += readmeFiles(in);
  r += readmeDesign(in);
  r += readmePrediction(in);
  r += readmeCollectives(in);
  r += readmeIteration(in);
  bool anyRunnable = false;
  r += readmeTextRun(in, anyRunnable);
  r += readmeNotes(in.posed, anyRunnable, warnings);
  return r;
}

}  // namespace

double astraLinkBandwidth(BuildingBlock block, int npus, double bandwidthGbps) {
  double bytesPerSecond = bandwidthGbps * 1e9;
  if (block == BuildingBlock::FullyConnected) bytesPerSecond /= (npus - 1);
  return bytesPerSecond / kAstraGigabyte;
}

std::string astraNetworkYml(const Network& network, std::span<const double> bandwidthGbps) {
  if (bandwidthGbps.size() != network.dims.size()) {
    throw InputError("bandwidth: " + std::to_string(bandwidthGbps.size()) +
                     " values given, but the network has " + std::to_string(network.dims.size()) +
                     " dimensions");
  }
  std::vector<std::string> topology, npus, bandwidth, latency;
  for (std::size_t d = 0; d < network.dims.size(); ++d) {
    const Dimension& dim = network.dims[d];
    topology.emplace_back(toString(dim.block));
    npus.push_back(std::to_string(dim.npus));
    bandwidth.push_back(
        text::formatNumber(astraLinkBandwidth(dim.block, dim.npus, bandwidthGbps[d])));
    latency.push_back(text::formatNumber(dim.latencyNs));
  }
  return "# ASTRA-sim 2 analytical network, innermost dimension first (libra export-astra-sim).\n"
         "# bandwidth: GB/s of one uni-directional link, 1 GB = 2^30 bytes; latency: ns per "
         "link.\n"
         "topology: " +
         list(topology) + "\nnpus_count: " + list(npus) + "\nbandwidth: " + list(bandwidth) +
         "\nlatency: " + list(latency) + "\n";
}

std::string astraSystemJson(const Network& network, int datasetSplits) {
  Json impl[4] = {Json::array(), Json::array(), Json::array(), Json::array()};
  for (const Dimension& d : network.dims) {
    const Algorithms a = algorithmsFor(d.block);
    impl[0].push_back(a.allReduce);
    impl[1].push_back(a.reduceScatter);
    impl[2].push_back(a.allGather);
    impl[3].push_back(a.allToAll);
  }
  Json j;
  j["scheduling-policy"] = "LIFO";
  j["endpoint-delay"] = astraEndpointDelay(network);
  j["active-chunks-per-dimension"] = 1;
  j["preferred-dataset-splits"] = datasetSplits;
  j["all-reduce-implementation"] = impl[0];
  j["reduce-scatter-implementation"] = impl[1];
  j["all-gather-implementation"] = impl[2];
  j["all-to-all-implementation"] = impl[3];
  j["collective-optimization"] = "localBWAware";
  j["local-mem-bw"] = 1000000000000LL;
  j["boost-mode"] = 0;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string astraRemoteMemoryJson() {
  return "{\n  \"memory-type\": \"NO_MEMORY_EXPANSION\"\n}\n";
}

int astraDatasetSplits(const Analysis& analysis) {
  const ChunkSetting& chunks = analysis.model.collectives.chunks;
  if (chunks.kind == ChunkSetting::Kind::Fixed) return chunks.count;
  if (chunks.kind == ChunkSetting::Kind::Ideal || !analysis.problem) return kAstraIdealChunks;
  const TimeModel& time = analysis.problem->time;
  const std::vector<double>& bw = analysis.design.bandwidth;
  std::map<int, double> weightOfCount;  // chosen count -> how often it runs
  for (const TimeModel::Group& g : time.groups) {
    for (const auto& [k, count] : g.occurrences) {
      const TimeTerm& term = time.terms[k];
      if (!term.schedule) continue;
      weightOfCount[term.automatic() ? term.schedule->bestChunks(bw) : term.schedule->chunks] +=
          count;
    }
  }
  double total = 0;
  for (const auto& [c, w] : weightOfCount) total += w;
  if (total <= 0) return 1;
  // The lower median: the first count at which half of the weight is reached.
  double seen = 0;
  for (const auto& [c, w] : weightOfCount) {
    seen += w;
    if (seen >= total / 2) return c;
  }
  return weightOfCount.rbegin()->first;
}

namespace {

// Throws InputError when the analysis has no design or a dimension no bandwidth.
void checkExportable(const Analysis& analysis, const Network& net) {
  if (!analysis.ok()) {
    throw InputError("there is no design to export: " +
                     (analysis.message.empty() ? statusWord(analysis) : analysis.message));
  }
  const std::vector<double>& bw = analysis.design.bandwidth;
  if (bw.size() != net.dims.size()) {
    throw InputError("bandwidth: " + std::to_string(bw.size()) + " values, but the network has " +
                     std::to_string(net.dims.size()) + " dimensions");
  }
  for (std::size_t d = 0; d < bw.size(); ++d) {
    if (!(bw[d] > 0) || !std::isfinite(bw[d])) {
      const std::string& name = net.dims[d].name;
      // The constraint names the dimension as the user would type it; a name too
      // long to quote whole by its index.
      const std::string ref = text::abbreviate(name) == name ? name : std::to_string(d);
      throw InputError("bandwidth: dimension " + std::to_string(d) + " (" + text::quotedName(name) +
                       ") has " + text::formatNumber(bw[d]) +
                       " GB/s; ASTRA-sim needs a bandwidth > 0 on every dimension (give one "
                       "with --bandwidth, or a constraint such as 'bw[" +
                       ref + "] >= 1')");
    }
  }
}

// The chunk count of the export: astraDatasetSplits, moved to the nearest count
// that divides every collective size (astraDivisibleSplits).
int exportSplits(const Project& posed, const Analysis& analysis, int preferred) {
  std::vector<AstraChunkedSize> sizes;
  for (const CollectiveRow& row : collectiveRows(posed, analysis.design.bandwidth, preferred)) {
    sizes.push_back({std::llround(row.sizeBytes), row.type == CollectiveType::AllGather});
  }
  return astraDivisibleSplits(preferred, sizes, posed.network.npuCount());
}

// The workload as ASTRA-sim 1.0 text into out.files when the format holds it.
void addTextWorkload(const Workload& w, const Network& net, WrittenWorkload& entry,
                     AstraExport& out) {
  if (auto why = astraSim1Limitation(w, net)) {
    out.warnings.push_back("workload " + text::quotedName(w.name) +
                           " was not written as ASTRA-sim 1.0 text: " + *why);
    return;
  }
  const AstraSim1Workload text = writeAstraSim1Workload(w, net);
  entry.path = "workload/" + entry.stem + ".txt";
  entry.header = text.text.substr(0, text.text.find('\n'));
  if (text.parallelism != "DATA" && text.parallelism != "MODEL") {
    out.warnings.push_back(entry.path + ": the header `" + entry.header +
                           "` (tensor parallel over the inner NPUs, data parallel over the "
                           "rest) is ASTRA-sim 1.0's; Chakra's text converter does not take it "
                           "(the Chakra trace of the iteration carries the groups)");
  }
  if (text.roundedValues > 0) {
    out.warnings.push_back(entry.path + ": " + std::to_string(text.roundedValues) +
                           " compute time(s) or size(s) rounded to whole ns or bytes (the "
                           "format holds integers)");
  }
  if (text.renamedLayers > 0) {
    out.warnings.push_back(entry.path + ": " + std::to_string(text.renamedLayers) +
                           " layer name(s) had blanks or were empty; written with '_' or as "
                           "layer<i>");
  }
  out.files.push_back({entry.path, text.text});
}

// The iteration of every workload that can be one as iteration/<stem>.json, the
// script that makes Chakra traces of it and, when a dimension had to be split, the
// network and system files the traces run on. Returns the network and system
// files to run the traces with (empty when no trace was written).
std::pair<std::string, std::string> addTraces(const Project& posed, std::span<const double> bw,
                                              int splits, std::vector<WrittenWorkload>& written,
                                              AstraExport& out) {
  ModelOptions options = posed.model;
  options.collectives.chunks = ChunkSetting::fixed(splits);
  std::vector<Workload> traceable;
  for (const Workload& w : posed.workloads) {
    if (auto why = astraTraceLimitation(w, options)) {
      out.warnings.push_back("workload " + text::quotedName(w.name) +
                             " has no Chakra trace: " + *why);
    } else {
      traceable.push_back(w);
    }
  }
  if (traceable.empty()) return {};
  AstraLogicalNetwork logical;
  try {
    logical = astraLogicalNetwork(posed.network, bw, traceable);
  } catch (const InputError& e) {
    out.warnings.push_back(std::string("no Chakra trace was written: ") + e.what());
    return {};
  }
  for (std::size_t i = 0; i < posed.workloads.size(); ++i) {
    const Workload& w = posed.workloads[i];
    if (astraTraceLimitation(w, options)) continue;
    const AstraTrace trace = astraIterationTrace(w, posed.network, bw, options, logical);
    WrittenWorkload& entry = written[i];
    entry.trace = "iteration/" + entry.stem + ".json";
    entry.traceNodes = trace.nodes.size();
    entry.collectives = static_cast<std::size_t>(std::count_if(
        trace.nodes.begin(), trace.nodes.end(),
        [](const AstraTraceNode& n) { return n.kind == AstraTraceNode::Kind::Collective; }));
    entry.computeNs = trace.computeNs;
    entry.computeMicros = trace.computeMicros;
    entry.predictedNs = trace.predictedNs;
    if (trace.roundedSizes > 0) {
      out.warnings.push_back(entry.trace + ": " + std::to_string(trace.roundedSizes) +
                             " collective size(s) rounded to whole bytes");
    }
    out.files.push_back({entry.trace, astraTraceJson(trace, logical)});
  }
  out.files.push_back({"iteration/chakra_traces.py", kAstraChakraScript});
  if (!logical.split) return {"network.yml", "system.json"};
  out.files.push_back(
      {"iteration/network.yml", astraNetworkYml(logical.network, logical.bandwidthGbps)});
  out.files.push_back({"iteration/system.json", astraSystemJson(logical.network, splits)});
  return {"iteration/network.yml", "iteration/system.json"};
}

}  // namespace

AstraExport exportAstraSim(const Project& project, const Analysis& analysis,
                           const std::string& projectFile) {
  const Project posed = posedProject(project, analysis);
  const Network& net = posed.network;
  checkExportable(analysis, net);
  const std::vector<double>& bw = analysis.design.bandwidth;

  AstraExport out;
  out.preferredSplits = astraDatasetSplits(analysis);
  out.datasetSplits = exportSplits(posed, analysis, out.preferredSplits);
  out.files.push_back({"network.yml", astraNetworkYml(net, bw)});
  out.files.push_back({"system.json", astraSystemJson(net, out.datasetSplits)});
  out.files.push_back({"remote_memory.json", astraRemoteMemoryJson()});

  if (net.dims.size() > 4) {
    out.warnings.push_back(
        "the network has " + std::to_string(net.dims.size()) +
        " dimensions; traces from Chakra's text converter carry no `involved_dim`, and "
        "ASTRA-sim's workload layer then uses 4 dimensions (Workload.cc), so the text "
        "workloads do not run on this network as they are (the Chakra traces of the "
        "iteration do)");
  }

  std::vector<WrittenWorkload> written;
  std::set<std::string> stems;
  for (const Workload& w : posed.workloads) {
    WrittenWorkload entry;
    entry.name = w.name;
    entry.layers = w.layers.size();
    std::string stem = workloadStem(w.name);
    for (int i = 2; stems.count(stem) != 0; ++i) {
      stem = workloadStem(w.name) + "-" + std::to_string(i);
    }
    stems.insert(stem);
    entry.stem = stem;
    addTextWorkload(w, net, entry, out);
    written.push_back(std::move(entry));
  }
  const auto [traceNetwork, traceSystem] = addTraces(posed, bw, out.datasetSplits, written, out);

  const std::vector<std::string> chunking = chunkingWarnings(
      collectiveRows(posed, bw, out.datasetSplits), out.datasetSplits, net.npuCount());
  out.warnings.insert(out.warnings.end(), chunking.begin(), chunking.end());

  const ReadmeInput in{posed,   analysis,     projectFile, out.preferredSplits, out.datasetSplits,
                       written, traceNetwork, traceSystem};
  out.files.push_back({"README.md", readme(in, out.warnings)});
  return out;
}

ExportDirectory inspectExportDirectory(const std::filesystem::path& dir) {
  return inspectExportDirectory(dir, kAstraExportFormat);
}

ExportDirectory checkExportDirectory(const std::filesystem::path& dir, bool replaceEarlierExport) {
  return checkExportDirectory(dir, kAstraExportFormat, replaceEarlierExport);
}

void writeAstraExport(const AstraExport& exported, const std::filesystem::path& dir,
                      bool replaceEarlierExport) {
  writeDirectoryAtomically(dir, exported.files, kAstraExportFormat, replaceEarlierExport);
}

}  // namespace libra
