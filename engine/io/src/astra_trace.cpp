// Chakra execution traces of a training iteration (astra_trace.hpp).
#include "libra/astra_trace.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "libra/collective_model.hpp"
#include "libra/error.hpp"
#include "text.hpp"

namespace libra {

namespace {

using Json = nlohmann::ordered_json;

// A phase's collective with the groups and strides in force for it.
struct PhaseGroups {
  const std::vector<int>& groups;
  const std::vector<int>& strides;
};

PhaseGroups groupsOf(const Workload& w, const Phase& p, PhaseKind kind) {
  if (p.groups.empty()) return {w.communicator.of(kind), w.communicator.stridesOf(kind)};
  return {p.groups, p.strides};
}

int strideAt(const std::vector<int>& strides, std::size_t d) {
  return d < strides.size() ? std::max(strides[d], 1) : 1;
}

std::string phaseWhere(const Workload& w, std::size_t layer, PhaseKind kind) {
  return "workload " + text::quotedName(w.name) + ", layer " + std::to_string(layer + 1) + " (" +
         text::quotedName(w.layers[layer].name) + ") " + std::string(toString(kind));
}

bool movesBytes(const Phase& p, const PhaseGroups& g) {
  return p.collective != CollectiveType::None && p.sizeBytes > 0 &&
         std::any_of(g.groups.begin(), g.groups.end(), [](int x) { return x > 1; });
}

// Where each (group size, stride) on a dimension was first seen, for messages.
using Uses = std::map<std::pair<int, int>, std::string>;  // (stride, size) -> where

// The parts of physical dimension d (sizes and strides, innermost first) that the
// uses fit in; throws when they overlap.
std::vector<AstraLogicalDim> partsOf(int d, const Dimension& dim, const Uses& uses) {
  const int n = dim.npus;
  const bool whole = std::all_of(uses.begin(), uses.end(), [&](const auto& u) {
    return u.first.first == 1 && u.first.second == n;
  });
  if (whole) return {{d, n, 1}};
  const std::string on = "dimension " + std::to_string(d) + " (" + text::quotedName(dim.name) +
                         ", " + std::to_string(n) + " NPUs)";
  std::vector<AstraLogicalDim> parts;
  int covered = 1;  // NPUs of the dimension the parts so far span
  std::string previous;
  for (const auto& [key, where] : uses) {
    const auto [stride, size] = key;
    if (stride % covered != 0 || stride < covered) {
      throw InputError(where + ": its group of " + std::to_string(size) + " NPUs " +
                       std::to_string(stride) + " apart on " + on + " overlaps the group of " +
                       previous +
                       "; ASTRA-sim's collectives run over whole dimensions (`involved_dim`), so "
                       "the trace can split a dimension only into parts every group uses whole");
    }
    if (stride > covered) parts.push_back({d, stride / covered, covered});
    parts.push_back({d, size, stride});
    covered = stride * size;
    previous = std::to_string(size) + " NPUs " + std::to_string(stride) + " apart (" + where + ")";
  }
  if (n % covered != 0) {
    throw InputError(previous + ": groups spanning " + std::to_string(covered) +
                     " NPUs do not tile the " + std::to_string(n) + " NPUs of " + on);
  }
  if (n > covered) parts.push_back({d, n / covered, covered});
  return parts;
}

// The part of `logical` that a group of `size` NPUs `stride` apart on physical
// dimension d uses; -1 when none is exactly that.
int partIndex(const AstraLogicalNetwork& logical, int d, int size, int stride) {
  for (std::size_t i = 0; i < logical.dims.size(); ++i) {
    const AstraLogicalDim& part = logical.dims[i];
    if (part.physical == d && part.npus == size && part.stride == stride) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// Compute so far, rounded with the running sum (astraIterationTrace).
class ComputeChain {
 public:
  explicit ComputeChain(std::vector<AstraTraceNode>& nodes) : nodes_(nodes) {}
  void add(double ns) { pendingNs_ += ns; }
  // Ends the pending compute as a node (unless it rounds to 0 us).
  void flush() {
    totalNs_ += pendingNs_;
    pendingNs_ = 0;
    const long long end = std::llround(totalNs_ / 1000.0);
    if (end > writtenMicros_) {
      AstraTraceNode node;
      node.kind = AstraTraceNode::Kind::Compute;
      node.name = "compute." + std::to_string(++count_);
      node.durationMicros = end - writtenMicros_;
      nodes_.push_back(std::move(node));
      writtenMicros_ = end;
    }
  }
  double totalNs() const { return totalNs_; }
  long long micros() const { return writtenMicros_; }

 private:
  std::vector<AstraTraceNode>& nodes_;
  double pendingNs_ = 0;
  double totalNs_ = 0;
  long long writtenMicros_ = 0;
  int count_ = 0;
};

const char* commTypeName(CollectiveType type) {
  switch (type) {
    case CollectiveType::AllReduce:
      return "ALL_REDUCE";
    case CollectiveType::ReduceScatter:
      return "REDUCE_SCATTER";
    case CollectiveType::AllGather:
      return "ALL_GATHER";
    case CollectiveType::AllToAll:
      return "ALL_TO_ALL";
    case CollectiveType::SendRecv:
    case CollectiveType::None:
      break;
  }
  return "INVALID";
}

// Builds the trace's nodes (astraIterationTrace) one phase at a time.
class TraceBuilder {
 public:
  TraceBuilder(const Workload& w, const Network& net, std::span<const double> bw,
               const ModelOptions& options, const AstraLogicalNetwork& logical)
      : w_(w), net_(net), bw_(bw), options_(options), logical_(logical), compute_(trace_.nodes) {
    trace_.workload = w.name;
  }

  void phase(std::size_t layer, PhaseKind kind, const char* suffix) {
    const Phase& p = w_.layers[layer].phase(kind);
    compute_.add(p.computeNs);
    const PhaseGroups g = groupsOf(w_, p, kind);
    if (!movesBytes(p, g)) return;
    const TimeTerm term =
        collectiveTerm(p.collective, p.sizeBytes, g.groups, net_, options_.collectives, g.strides);
    if (term.empty()) return;
    compute_.flush();
    AstraTraceNode node;
    node.kind = AstraTraceNode::Kind::Collective;
    node.name = w_.layers[layer].name + suffix;
    node.collective = p.collective;
    node.commSizeBytes = std::llround(p.sizeBytes);
    if (static_cast<double>(node.commSizeBytes) != p.sizeBytes) ++trace_.roundedSizes;
    node.involvedDims.assign(logical_.dims.size(), false);
    for (std::size_t d = 0; d < g.groups.size(); ++d) {
      if (g.groups[d] <= 1) continue;
      const int part =
          partIndex(logical_, static_cast<int>(d), g.groups[d], strideAt(g.strides, d));
      if (part < 0) {
        throw InputError(phaseWhere(w_, layer, kind) + ": its group on dimension " +
                         std::to_string(d) + " is not a dimension of the exported network");
      }
      node.involvedDims[static_cast<std::size_t>(part)] = true;
    }
    node.predictedNs = term.exact(bw_);
    trace_.communicationNs += node.predictedNs;
    trace_.nodes.push_back(std::move(node));
  }

  AstraTrace finish() {
    compute_.flush();
    trace_.computeNs = compute_.totalNs();
    trace_.computeMicros = compute_.micros();
    trace_.predictedNs = trace_.computeNs + trace_.communicationNs;
    return std::move(trace_);
  }

 private:
  const Workload& w_;
  const Network& net_;
  std::span<const double> bw_;
  const ModelOptions& options_;
  const AstraLogicalNetwork& logical_;
  AstraTrace trace_;
  ComputeChain compute_;
};

}  // namespace

AstraLogicalNetwork astraLogicalNetwork(const Network& network, std::span<const double> bw,
                                        std::span<const Workload> workloads) {
  std::vector<Uses> uses(network.dims.size());
  for (const Workload& w : workloads) {
    for (std::size_t i = 0; i < w.layers.size(); ++i) {
      for (PhaseKind kind : kPhaseKinds) {
        const Phase& p = w.layers[i].phase(kind);
        const PhaseGroups g = groupsOf(w, p, kind);
        if (!movesBytes(p, g)) continue;
        for (std::size_t d = 0; d < g.groups.size() && d < uses.size(); ++d) {
          if (g.groups[d] <= 1) continue;
          uses[d].try_emplace({strideAt(g.strides, d), g.groups[d]}, phaseWhere(w, i, kind));
        }
      }
    }
  }
  AstraLogicalNetwork out;
  out.network.endpointDelayNs = network.endpointDelayNs;
  for (std::size_t d = 0; d < network.dims.size(); ++d) {
    const Dimension& dim = network.dims[d];
    const std::vector<AstraLogicalDim> parts = partsOf(static_cast<int>(d), dim, uses[d]);
    out.split = out.split || parts.size() > 1;
    for (const AstraLogicalDim& part : parts) {
      Dimension logical = dim;
      logical.npus = part.npus;
      if (parts.size() > 1) {
        logical.name =
            dim.name + "/" + std::to_string(part.npus) + "@" + std::to_string(part.stride);
      }
      const CollectiveType any = CollectiveType::AllReduce;  // not SendRecv: same share for all
      logical.latencyNs = dim.latencyNs * placementHops(dim, any, part.npus, part.stride);
      out.bandwidthGbps.push_back(bw[d] * placementShare(dim, any, part.npus, part.stride));
      out.network.dims.push_back(std::move(logical));
      out.dims.push_back(part);
    }
  }
  return out;
}

std::optional<std::string> astraTraceLimitation(const Workload& workload,
                                                const ModelOptions& options) {
  if (options.trainingLoop == TrainingLoop::Overlap) {
    return "the `overlap` training loop runs weight-gradient collectives in a queue beside the "
           "compute, which this tool predicts as a maximum over ready points; the trace is written "
           "as one chain only for `no-overlap` and `recompute`";
  }
  for (std::size_t i = 0; i < workload.layers.size(); ++i) {
    for (PhaseKind kind : kPhaseKinds) {
      const Phase& p = workload.layers[i].phase(kind);
      if (p.collective == CollectiveType::SendRecv && p.sizeBytes > 0) {
        return phaseWhere(workload, i, kind) +
               " sends point to point (pipeline parallelism); the trace has collectives only";
      }
    }
  }
  return std::nullopt;
}

AstraTrace astraIterationTrace(const Workload& workload, const Network& network,
                               std::span<const double> bw, const ModelOptions& options,
                               const AstraLogicalNetwork& logical) {
  if (auto why = astraTraceLimitation(workload, options)) {
    throw InputError("workload " + text::quotedName(workload.name) +
                     " cannot be written as a Chakra trace: " + *why);
  }
  TraceBuilder b(workload, network, bw, options, logical);
  const std::size_t layers = workload.layers.size();
  const bool recompute = options.trainingLoop == TrainingLoop::Recompute;
  for (std::size_t i = 0; i < layers; ++i) b.phase(i, PhaseKind::Forward, ".fwd");
  for (std::size_t i = layers; i-- > 0;) {
    if (recompute) b.phase(i, PhaseKind::Forward, ".recompute");
    b.phase(i, PhaseKind::InputGrad, ".ig");
    b.phase(i, PhaseKind::WeightGrad, ".wg");
  }
  return b.finish();
}

std::string astraTraceJson(const AstraTrace& trace, const AstraLogicalNetwork& logical) {
  Json j;
  j["format"] = "libra-astra-iteration";
  j["version"] = 1;
  j["workload"] = trace.workload;
  j["npus"] = logical.network.npuCount();
  j["dimensions"] = logical.dims.size();
  j["predicted_iteration_ns"] = trace.predictedNs;
  j["compute_ns"] = trace.computeNs;
  j["compute_micros"] = trace.computeMicros;
  j["communication_ns"] = trace.communicationNs;
  Json nodes = Json::array();
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
    const AstraTraceNode& n = trace.nodes[i];
    Json node;
    node["id"] = i;
    node["name"] = n.name;
    node["deps"] = i == 0 ? Json::array() : Json::array({i - 1});
    if (n.kind == AstraTraceNode::Kind::Compute) {
      node["type"] = "COMP_NODE";
      node["duration_micros"] = n.durationMicros;
    } else {
      node["type"] = "COMM_COLL_NODE";
      node["comm_type"] = commTypeName(n.collective);
      node["comm_size"] = n.commSizeBytes;
      node["involved_dim"] = n.involvedDims;
      node["predicted_ns"] = n.predictedNs;
    }
    nodes.push_back(std::move(node));
  }
  j["nodes"] = std::move(nodes);
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int astraDivisibleSplits(int preferred, std::span<const AstraChunkedSize> sizes, long long npus) {
  auto fits = [&](int c) {
    return std::all_of(sizes.begin(), sizes.end(), [&](const AstraChunkedSize& s) {
      return s.bytes <= 0 || (s.bytes % c == 0 && (s.allGather || s.bytes / c >= npus));
    });
  };
  int best = -1;
  double bestDistance = 0;
  for (int c = 1; c <= kMaxChunks; ++c) {
    if (!fits(c)) continue;
    const double distance = std::abs(std::log(static_cast<double>(c) / preferred));
    if (best < 0 || distance < bestDistance - 1e-12) {
      best = c;
      bestDistance = distance;
    }
  }
  return best < 0 ? preferred : best;
}

}  // namespace libra

namespace libra {

const char* const kAstraChakraScript = R"PY(#!/usr/bin/env python3
"""Chakra execution traces of a training iteration exported by `libra export-astra-sim`.

usage: PYTHONPATH=/path/to/astra-sim python3 chakra_traces.py NODES.json PREFIX

NODES.json is a node list of the export (format "libra-astra-iteration"); the
traces are PREFIX.0.et ... PREFIX.<npus - 1>.et, the prefix ASTRA-sim's
--workload-configuration takes. Every NPU runs the same trace, so the other files
are hard links to PREFIX.0.et (copies where a link cannot be made). Needs
ASTRA-sim's Chakra submodule with schema/protobuf/et_def_pb2.py generated (its
build does that) and Python 3 with protobuf (Debian: python3-protobuf).
"""
import json
import os
import shutil
import sys

from extern.graph_frontend.chakra.schema.protobuf import et_def_pb2 as pb
from extern.graph_frontend.chakra.src.third_party.utils.protolib import encodeMessage


def node_message(n):
    node = pb.Node(id=n["id"], name=n["name"], type=getattr(pb, n["type"]))
    node.data_deps.extend(n["deps"])
    node.attr.append(pb.AttributeProto(name="is_cpu_op", bool_val=False))
    if n["type"] == "COMP_NODE":
        node.duration_micros = n["duration_micros"]
    else:
        node.attr.append(pb.AttributeProto(name="comm_type",
                                           int64_val=getattr(pb, n["comm_type"])))
        node.attr.append(pb.AttributeProto(name="comm_size", int64_val=n["comm_size"]))
        node.attr.append(pb.AttributeProto(
            name="involved_dim", bool_list=pb.BoolList(values=n["involved_dim"])))
    return node


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: chakra_traces.py NODES.json PREFIX")
    with open(argv[1]) as f:
        desc = json.load(f)
    if desc.get("format") != "libra-astra-iteration" or desc.get("version") != 1:
        sys.exit("%s: not a node list of libra export-astra-sim (format "
                 "libra-astra-iteration, version 1)" % argv[1])
    prefix = argv[2]
    if os.path.dirname(prefix):
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
    first = "%s.0.et" % prefix
    with open(first, "wb") as et:
        encodeMessage(et, pb.GlobalMetadata(version="0.0.4"))
        for n in desc["nodes"]:
            encodeMessage(et, node_message(n))
    for npu in range(1, desc["npus"]):
        path = "%s.%d.et" % (prefix, npu)
        if os.path.lexists(path):
            os.remove(path)
        try:
            os.link(first, path)
        except OSError:
            shutil.copyfile(first, path)
    print("%s: %d nodes for each of %d NPUs, predicted iteration %.1f ns"
          % (prefix, len(desc["nodes"]), desc["npus"], desc["predicted_iteration_ns"]))


if __name__ == "__main__":
    main(sys.argv)
)PY";

}  // namespace libra
