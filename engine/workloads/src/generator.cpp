// Workload generators: transformer (dense and mixture of experts), CNN and DLRM.
// The formulas are documented in docs/workloads.md; section numbers below refer to it.
#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <utility>

#include "checked.hpp"
#include "libra/error.hpp"
#include "libra/model_file.hpp"
#include "libra/presets.hpp"
#include "text.hpp"

namespace libra {

namespace {

// The most copies of a model's blocks (or of a CNN / DLRM pass) one workload
// writes: micro-batches, pipeline bubble slots and blocks multiplied. Beyond it
// the project file and the solve grow without need; a larger micro-batch helps.
constexpr std::int64_t kMaxWrittenBlocks = 50000;

// One collective of a logical operation.
struct Coll {
  CollectiveType type = CollectiveType::None;
  double bytes = 0;
  std::vector<int> groups;       // group size per dimension
  std::string tag;               // names the extra line when it does not fit on the main one
  bool parameterGather = false;  // ZeRO-3 gather: not repeated by recomputation
  std::vector<int> strides;      // the group's strides per dimension (empty: consecutive)
};

// A logical operation: compute per phase and any number of collectives per phase.
// Lowered to one or more Layer lines (a Phase holds at most one collective).
struct Op {
  std::string name;
  std::array<double, 3> computeNs{0, 0, 0};
  std::array<std::vector<Coll>, 3> colls;

  std::vector<Coll>& at(PhaseKind k) { return colls[static_cast<int>(k)]; }
};

bool carries(const std::vector<int>& groups) {
  return std::any_of(groups.begin(), groups.end(), [](int g) { return g > 1; });
}

// Sums lines into a WorkloadTally instead of keeping them.
class Tally {
 public:
  explicit Tally(WorkloadTally& out) : out_(out) {}
  double weight = 1;  // how often the lines added now run

  void add(const Layer& layer, const Communicator& communicator) {
    for (PhaseKind kind : kPhaseKinds) {
      const Phase& p = layer.phase(kind);
      out_.computeNs += weight * p.computeNs;
      if (p.collective == CollectiveType::None || p.sizeBytes <= 0) continue;
      const std::vector<int>& groups = p.groups.empty() ? communicator.of(kind) : p.groups;
      const std::vector<int>& strides = p.groups.empty() ? communicator.stridesOf(kind) : p.strides;
      // Looked up without copying the groups (most lines repeat a collective).
      const int type = static_cast<int>(p.collective);
      const auto key = std::tie(type, p.sizeBytes, groups, strides);
      auto it = index_.find(key);
      if (it == index_.end()) {
        it = index_.emplace(key, out_.collectives.size()).first;
        out_.collectives.push_back({p.collective, p.sizeBytes, groups, strides, 0});
      }
      out_.collectives[it->second].count += weight;
    }
  }

 private:
  WorkloadTally& out_;
  std::map<std::tuple<int, double, std::vector<int>, std::vector<int>>, std::size_t, std::less<>>
      index_;
};

class Builder {
 public:
  explicit Builder(Communicator communicator, Tally* tally = nullptr)
      : communicator_(std::move(communicator)), tally_(tally) {}

  // Appends the op's lines: the first holds the compute times and the first
  // collective of each phase; further collectives go to extra lines named
  // "<op>.<tag>" with no compute. Forward and input-gradient collectives block in
  // every training loop, so their order within an op does not change the time.
  void lower(const Op& op, std::vector<Layer>& out) const {
    std::size_t lines = 1;
    for (const auto& c : op.colls) lines = std::max(lines, c.size());
    for (std::size_t j = 0; j < lines; ++j) {
      Layer layer;
      std::string tag;
      for (PhaseKind kind : kPhaseKinds) {
        const int k = static_cast<int>(kind);
        Phase& phase = layer.phase(kind);
        if (j == 0) phase.computeNs = op.computeNs[k];
        if (j < op.colls[k].size()) {
          const Coll& c = op.colls[k][j];
          phase.collective = c.type;
          phase.sizeBytes = c.bytes;
          if (c.groups != communicator_.of(kind) || c.strides != communicator_.stridesOf(kind)) {
            phase.groups = c.groups;
            phase.strides = c.strides;
          }
          if (tag.empty()) tag = c.tag;
        }
      }
      if (tally_) {
        tally_->add(layer, communicator_);
        continue;
      }
      layer.name = j == 0 ? op.name : op.name + "." + (tag.empty() ? std::to_string(j) : tag);
      out.push_back(std::move(layer));
    }
  }

  const Communicator& communicator() const { return communicator_; }
  Tally* tally() const { return tally_; }

 private:
  Communicator communicator_;
  Tally* tally_ = nullptr;
};

// The forward pass of `ops`, repeated inside the backward pass (section 5): one line
// per op, holding the op's forward compute and forward collectives (except ZeRO-3
// parameter gathers, which the backward gathers serve) in its input-gradient
// phase. Listed in reverse so that the backward pass meets them in forward order,
// before the block's own backward lines.
std::vector<Op> recomputeOps(const std::vector<Op>& ops, bool (*selected)(const Op&) = nullptr) {
  std::vector<Op> out;
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    if (selected && !selected(*it)) continue;
    Op r;
    r.name = "recompute." + it->name;
    r.computeNs[static_cast<int>(PhaseKind::InputGrad)] =
        it->computeNs[static_cast<int>(PhaseKind::Forward)];
    for (const Coll& c : it->colls[static_cast<int>(PhaseKind::Forward)]) {
      if (!c.parameterGather) r.at(PhaseKind::InputGrad).push_back(c);
    }
    if (r.computeNs[1] > 0 || !r.colls[1].empty()) out.push_back(std::move(r));
  }
  return out;
}

struct Context {
  const Preset& preset;
  Parallelism par;  // resolved
  Device device;    // with the stated utilization (GeneratorOptions::utilization)
  const Network& network;
  ParallelismMapping map;
  GeneratorOptions options;
  BatchPlan batch{};
  double microBatch = 1;  // samples per micro-batch (batch.microBatch)
  int sequence = 1;
  double bytes = 2;
  bool libra = false;
  Tally* tally = nullptr;  // set: sum the lines (tallyWorkload) instead of writing them

  double ns(double flops) const { return device.computeNs(flops, preset.family()); }
  double memoryNs(double bytesMoved) const { return device.memoryNs(bytesMoved); }
  // The roofline of one kernel (Device::kernelNs, section 2.8).
  double kernel(double flops, double bytesMoved) const {
    return device.kernelNs(flops, bytesMoved, preset.family());
  }
  // A weight GEMM of the blocks, in the run's precision (section 2.13).
  double gemmKernel(double flops, double bytesMoved) const {
    return device.kernelNs(flops, bytesMoved, preset.family(), par.precision);
  }
};

std::string slotSuffix(int slot, int slots) {
  return slots > 1 ? "_mb" + std::to_string(slot + 1) : std::string();
}

std::string numbered(const std::string& base, int block, int slot, int slots) {
  return base + std::to_string(block) + slotSuffix(slot, slots);
}

std::string mlpName(int block, int matrix, int slot, int slots) {
  const std::string m = std::to_string(matrix);
  return "X" + std::to_string(block) + "W" + m + "b" + m + slotSuffix(slot, slots);
}

// C(N - K, k) / C(N, k): the probability that k distinct items drawn uniformly from N
// miss a given K of them.
double missProbability(double n, double missed, int k) {
  double p = 1;
  for (int i = 0; i < k; ++i) {
    const double kept = n - missed - i;
    if (kept <= 0) return 0;
    p *= kept / (n - i);
  }
  return p;
}

}  // namespace

ExpertSpread expertSpread(const TransformerConfig& model, MoeRouting routing, int npusPerNode,
                          int nodes) {
  const int experts = model.experts;
  const int k = model.topK;
  if (experts < 1 || k < 1 || k > experts || npusPerNode < 1 || nodes < 1) {
    throw InputError(
        "expert spread: needs experts >= 1, 1 <= top-k <= experts and at least one "
        "NPU and node (experts " +
        std::to_string(experts) + ", top-k " + std::to_string(k) + ", " +
        std::to_string(npusPerNode) + " NPUs per node, " + std::to_string(nodes) + " nodes)");
  }
  const std::int64_t ep = static_cast<std::int64_t>(npusPerNode) * nodes;
  if (experts % ep != 0) {
    throw InputError("expert spread: the expert-parallel group of " + std::to_string(ep) +
                     " NPUs must divide the " + std::to_string(experts) + " experts");
  }
  const std::int64_t perNpu = experts / ep;
  const double perNode = static_cast<double>(perNpu) * npusPerNode;
  ExpertSpread spread;
  if (routing == MoeRouting::Contiguous) {
    // Token i is routed to experts i k .. i k + k - 1 (mod E); the pattern repeats
    // after E / gcd(E, k) tokens, so their average is exact.
    const std::int64_t period = experts / std::gcd(experts, k);
    double npuSum = 0, nodeSum = 0;
    std::vector<std::int64_t> npuIds, nodeIds;
    npuIds.reserve(static_cast<std::size_t>(k));
    nodeIds.reserve(static_cast<std::size_t>(k));
    for (std::int64_t i = 0; i < period; ++i) {
      npuIds.clear();
      nodeIds.clear();
      for (int j = 0; j < k; ++j) {
        const std::int64_t npu = ((i * k + j) % experts) / perNpu;
        npuIds.push_back(npu);
        nodeIds.push_back(npu / npusPerNode);
      }
      for (auto* ids : {&npuIds, &nodeIds}) {
        std::sort(ids->begin(), ids->end());
        ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
      }
      npuSum += static_cast<double>(npuIds.size());
      nodeSum += static_cast<double>(nodeIds.size());
    }
    spread.npus = npuSum / static_cast<double>(period);
    spread.nodes = nodeSum / static_cast<double>(period);
    return spread;
  }
  const double e = experts;
  const double unlimitedNodes = nodes * (1 - missProbability(e, perNode, k));
  if (model.nodeLimit > 0 && model.nodeLimit < nodes) {
    // Node-limited routing: M nodes first, then the k experts among their M E / nodes.
    const double m = model.nodeLimit;
    spread.nodes = std::min(m, unlimitedNodes);
    spread.npus =
        m * npusPerNode * (1 - missProbability(m * perNode, static_cast<double>(perNpu), k));
  } else {
    spread.nodes = unlimitedNodes;
    spread.npus =
        static_cast<double>(ep) * (1 - missProbability(e, static_cast<double>(perNpu), k));
  }
  return spread;
}

namespace {

// ---------------------------------------------------------------------------------
// Transformer (section 2.1 - 2.3)

// Writes one transformer workload (section 2.1 - 2.5): the checks and derived
// values in the constructor, one member per kind of line.
class TransformerWriter {
 public:
  explicit TransformerWriter(const Context& c)
      : c_(c),
        m_(std::get<TransformerConfig>(c.preset.model)),
        p_(c.par),
        moe_(m_.moe()),
        sp_(p_.sequenceParallel),
        tp_(p_.tp),
        h_(m_.hidden),
        s_(c.sequence),
        // Tokens of a micro-batch on one NPU: context parallelism splits every
        // sequence over its CP group (section 2.15); the keys they attend to stay s.
        T_(c.microBatch * c.sequence / p_.cp),
        b_(c.bytes),
        att_(m_.attention()),
        act_(T_ * h_ * b_),
        mlpMatrices_(m_.mlpMatrices()),
        fe_(m_.expertWidth()),
        tpG_(c.map.tensor()),
        etp_(p_.etp()),
        experts_(c.map.expertGroups(p_.etp())),
        epG_(experts_.expert),
        dpG_(c.map.expertData()),
        denseG_(c.map.denseData()),
        cpG_(c.map.context()),
        tpS_(c.map.strides(ParallelAxis::Tensor)),
        epS_(experts_.expertStrides),
        dpS_(c.map.expertDataStrides()),
        denseS_(c.map.denseDataStrides()),
        cpS_(c.map.strides(ParallelAxis::Context)),
        expertDegree_(static_cast<double>(p_.cp) * static_cast<double>(p_.dp)),
        denseDegree_(static_cast<double>(p_.degree(ParallelAxis::Expert)) * expertDegree_),
        tpColl_(p_.tp > 1 || c.libra),
        etpColl_(etp_ > 1 || c.libra),
        epColl_(p_.ep > 1 || c.libra),
        denseGrad_(denseDegree_ > 1 || c.libra),
        expertGrad_(expertDegree_ > 1 || c.libra),
        shard_(p_.shardGroup),
        fp8_(p_.precision == Precision::Fp8) {
    checkShape();
    if (shard_ > 0) hybrid_ = splitGroup(denseG_, denseS_, shard_);
    spreadExperts();
  }

  Workload write();

 private:
  void checkShape() const;
  void spreadExperts();
  std::vector<std::pair<int, double>> visits(int slots, int chunks, int blocks,
                                             int stageFirstBlock) const;
  void writeSlot(Builder& builder, Workload& w, int slot, int slots, int chunks, int blocks,
                 int stageFirstBlock) const;
  void writeBlock(Builder& builder, Workload& w, int i, int global, int slot, int slots,
                  bool gradients, bool firstInChunk, int blocks) const;
  void attention(std::vector<Op>& block, int i, int global, int slot, int slots, bool gradients,
                 bool firstInChunk, int blocks) const;
  void denseMlp(std::vector<Op>& block, int i, int slot, int slots) const;
  void moeMlp(std::vector<Op>& block, int i, int global, int slot, int slots, bool gradients) const;
  Op norm(int i, int global, int slot, int slots) const;

  // Weights per NPU of block `global` (1-based over the model; section 2.2): the
  // non-expert ones, replicated over EP x DP (the router over TP too), and 1 / ETP
  // of the E / EP routed experts of the rank (EP divides E), replicated over DP.
  double denseParams(int global) const {
    const BlockWeights w = m_.weights(global);
    return (w.attention + w.mlp) / tp_ + w.router;
  }
  double expertParams(int global) const { return m_.weights(global).experts / p_.ep / etp_; }

  // Collective helpers (section 2.3).
  Coll tpGather() const {
    return Coll{CollectiveType::AllGather, act_ / tp_, tpG_, "tp", false, tpS_};
  }
  Coll tpReduce() const {
    return sp_ ? Coll{CollectiveType::ReduceScatter, act_, tpG_, "tp", false, tpS_}
               : Coll{CollectiveType::AllReduce, act_, tpG_, "tp", false, tpS_};
  }
  std::vector<Coll> gradient(double params, const std::vector<int>& groups,
                             const std::vector<int>& strides) const;
  void addGradient(Op& op, double params, const std::vector<int>& groups,
                   const std::vector<int>& strides) const {
    for (Coll& coll : gradient(params, groups, strides))
      op.at(PhaseKind::WeightGrad).push_back(std::move(coll));
  }
  Coll paramGather(double params, const std::vector<int>& groups, double degree,
                   const std::vector<int>& strides) const;
  // ZeRO-3 gathers `params` before the op's forward and again before its backward.
  void addParamGathers(Op& op, double params, const std::vector<int>& groups, double degree,
                       const std::vector<int>& strides) const {
    const Coll g = paramGather(params, groups, degree, strides);
    op.at(PhaseKind::Forward).push_back(g);
    op.at(PhaseKind::InputGrad).push_back(g);
  }
  void addKeyValueExchange(Op& op) const;
  // Input of a column-parallel region (Megatron's f): SP gathers in forward and
  // reduce-scatters in backward; without SP it all-reduces in backward.
  void enterTp(Op& op) const {
    if (!tpColl_) return;
    if (sp_) op.at(PhaseKind::Forward).push_back(tpGather());
    op.at(PhaseKind::InputGrad).push_back(tpReduce());
  }
  // Output of a row-parallel region (Megatron's g): the mirror image.
  void leaveTp(Op& op) const {
    if (!tpColl_) return;
    op.at(PhaseKind::Forward).push_back(tpReduce());
    if (sp_) op.at(PhaseKind::InputGrad).push_back(tpGather());
  }
  Op gemm(const std::string& name, double flops, double tokens, double in, double out,
          double weights, bool blockLinear = true) const;

  const Context& c_;
  const TransformerConfig& m_;
  const Parallelism& p_;
  const bool moe_, sp_;
  const double tp_, h_, s_, T_, b_;
  const AttentionShape att_;
  const double act_;  // one activation tensor [T, h] in bytes
  const double mlpMatrices_, fe_;
  const std::vector<int>& tpG_;
  const double etp_;  // expert tensor parallel (section 2.5)
  const ParallelismMapping::ExpertGroups experts_;
  const std::vector<int>& epG_;  // the expert-parallel group (with ETP < TP: part of TP)
  const std::vector<int> dpG_;   // the experts' data-parallel group
  const std::vector<int> denseG_;
  const std::vector<int>& cpG_;
  // Where each group's NPUs lie on a dimension several axes share (mapping.hpp).
  const std::vector<int> tpS_, epS_, dpS_, denseS_, cpS_;
  const double expertDegree_, denseDegree_;
  const bool tpColl_, etpColl_, epColl_, denseGrad_, expertGrad_;
  const int shard_;
  const bool fp8_;
  GroupSplit hybrid_;
  // How the routed copies travel (spreadExperts).
  double copies_ = 0;
  double nodeCopies_ = 0;
  std::vector<int> epNode_;    // the node fabric part of the EP group
  std::vector<int> epAcross_;  // the part between nodes
};

void TransformerWriter::checkShape() const {
  const Context& c = c_;
  const Parallelism& p = p_;
  if (m_.hidden % p.tp != 0 || m_.heads % p.tp != 0) {
    throw InputError("preset '" + c.preset.id + "': tensor parallel degree TP " +
                     std::to_string(p.tp) + " must divide the hidden size " +
                     std::to_string(m_.hidden) + " and the " + std::to_string(m_.heads) + " heads");
  }
  if (moe_ && m_.experts % p.ep != 0) {
    throw InputError("preset '" + c.preset.id + "': expert parallel degree EP " +
                     std::to_string(p.ep) + " must divide the " + std::to_string(m_.experts) +
                     " experts");
  }
  if (!moe_ && p.expertTp > 0 && p.expertTp != p.tp) {
    throw InputError("preset '" + c.preset.id + "' is a dense model; expert tensor parallelism " +
                     std::to_string(p.expertTp) + " needs a mixture-of-experts preset");
  }
  if (!moe_ && p.ep != 1) {
    throw InputError("preset '" + c.preset.id + "' is a dense model; expert parallel degree EP " +
                     std::to_string(p.ep) + " needs a mixture-of-experts preset");
  }
  if (moe_ && p.tp > 1 && !sp_) {
    // Megatron-LM: MoELayer.forward raises "During training, performance may degrade
    // if MoE and tensor parallelism are enabled without also enabling sequence
    // parallelism" (megatron/core/transformer/moe/moe_layer.py).
    throw InputError("preset '" + c.preset.id + "': a mixture of experts with tensor parallelism " +
                     "TP " + std::to_string(p.tp) +
                     " needs sequence parallelism (--sequence-parallel), as Megatron-LM "
                     "requires: its token dispatcher sends each tensor-parallel rank's 1 / TP of "
                     "the tokens");
  }
}

// How the routed copies travel (section 2.5). Megatron's AllToAll dispatcher sends
// each token's k copies over the whole EP group. DeepEP sends a token once to each
// destination node (over the EP group's outer dimensions) and forwards it there to
// each destination NPU once (over its innermost dimension, the node's fabric):
// per token, `nodeCopies_` = the distinct nodes and `copies_` = the distinct NPUs
// among its k experts (expertSpread).
void TransformerWriter::spreadExperts() {
  copies_ = m_.topK;
  epNode_ = epG_;
  epAcross_.assign(epG_.size(), 1);
  if (!moe_ || p_.moeDispatcher != MoeDispatcher::DeepEp) return;
  const auto inner = std::find_if(epG_.begin(), epG_.end(), [](int g) { return g > 1; });
  if (inner == epG_.end()) return;
  const auto d = static_cast<std::size_t>(inner - epG_.begin());
  epAcross_ = epG_;
  epAcross_[d] = 1;
  epNode_.assign(epG_.size(), 1);
  epNode_[d] = epG_[d];
  int nodes = 1;
  for (int g : epAcross_) nodes *= g;
  const ExpertSpread spread = expertSpread(m_, p_.moeRouting, epG_[d], nodes);
  copies_ = spread.npus;
  nodeCopies_ = nodes > 1 ? spread.nodes : 0;
}

// Gradients of `params` weights per NPU: AllReduce, or ReduceScatter with ZeRO-3.
// Hybrid sharding (section 2.14; EP is 1, so the experts' data-parallel group is
// the dense one): ReduceScatter in the shard group, AllReduce of the shard across
// the replicas, and with ZeRO-1/2 the updated shard gathered back in the group.
std::vector<Coll> TransformerWriter::gradient(double params, const std::vector<int>& groups,
                                              const std::vector<int>& strides) const {
  const double b = b_;
  if (shard_ > 0) {
    std::vector<Coll> out{{CollectiveType::ReduceScatter, params * b, hybrid_.inner, "grad", false,
                           hybrid_.innerStrides},
                          {CollectiveType::AllReduce, params * b / shard_, hybrid_.outer, "grad",
                           false, hybrid_.outerStrides}};
    if (!p_.zero3) {
      out.push_back({CollectiveType::AllGather, params * b / shard_, hybrid_.inner, "params", false,
                     hybrid_.innerStrides});
    }
    return out;
  }
  return {p_.zero3 ? Coll{CollectiveType::ReduceScatter, params * b, groups, "grad", false, strides}
                   : Coll{CollectiveType::AllReduce, params * b, groups, "grad", false, strides}};
}

// ZeRO-3's gather of `params` weights per NPU sharded over `degree` NPUs (hybrid:
// over the shard group).
Coll TransformerWriter::paramGather(double params, const std::vector<int>& groups, double degree,
                                    const std::vector<int>& strides) const {
  if (shard_ > 0) {
    return Coll{CollectiveType::AllGather, params * b_ / shard_, hybrid_.inner, "params", true,
                hybrid_.innerStrides};
  }
  return Coll{CollectiveType::AllGather, params * b_ / degree, groups, "params", true, strides};
}

// Context parallelism (section 2.15): the attention of a CP rank's T tokens needs
// the keys and values of the whole sequence. Forward, the ranks gather them (the
// KV AllGather of Megatron-LM's "all_gather" CP, the same bytes as the ring
// exchange of its "p2p" CP); backward, they gather them again and reduce-scatter
// their gradients. kvWidth / TP values per token of each rank.
void TransformerWriter::addKeyValueExchange(Op& op) const {
  if (p_.cp <= 1) return;
  const double kv = T_ * att_.kvWidth / tp_ * b_;
  const Coll gather{CollectiveType::AllGather, kv, cpG_, "cp", false, cpS_};
  op.at(PhaseKind::Forward).push_back(gather);
  op.at(PhaseKind::InputGrad).push_back(gather);
  op.at(PhaseKind::InputGrad)
      .push_back(Coll{CollectiveType::ReduceScatter, kv * p_.cp, cpG_, "cp", false, cpS_});
}

// A weight GEMM line (section 2.8): `tokens` rows of width `in` times `weights` (per
// NPU) into width `out`. Its input-gradient and weight-gradient GEMMs have the same
// FLOPs and read and write the same three matrices, so every phase has one roofline.
// In FP8 (section 2.13) the blocks' linear layers read their input and weights as
// 1-byte values and write 16-bit outputs, at the device's FP8 rate; `blockLinear`
// false keeps a GEMM in BF16 (the router and the output layer, as Transformer
// Engine's recipes do).
Op TransformerWriter::gemm(const std::string& name, double flops, double tokens, double in,
                           double out, double weights, bool blockLinear) const {
  Op op;
  op.name = name;
  const double t = fp8_ && blockLinear
                       ? c_.gemmKernel(flops, tokens * in + weights + b_ * tokens * out)
                       : c_.kernel(flops, b_ * (tokens * (in + out) + weights));
  op.computeNs = {t, t, t};
  return op;
}

Workload TransformerWriter::write() {
  const Context& c = c_;
  const Parallelism& p = p_;
  // Blocks of the modelled pipeline stage (section 2.4).
  const int stageBlocks = (m_.layers + p.pp - 1) / p.pp;
  const int stageBlocksWritten = c.options.blocks > 0 ? c.options.blocks : stageBlocks;
  // Interleaved 1F1B: v chunks of blocks / v blocks per stage (section 2.4).
  const int chunks = std::max(1, c.options.virtualStages);
  if (stageBlocksWritten % chunks != 0) {
    throw InputError("preset '" + c.preset.id + "': " + std::to_string(chunks) +
                     " virtual pipeline stages must divide the " +
                     std::to_string(stageBlocksWritten) + " blocks of a pipeline stage");
  }
  const int blocks = stageBlocksWritten / chunks;  // blocks of one written slot
  // 1F1B: m micro-batches and PP - 1 slots of bubble (section 2.4); interleaved,
  // m x v chunk slots and PP - 1 bubble slots of one chunk each. Without a
  // pipeline the micro-batches of a replica are written as one slot of all its
  // samples (c.microBatch), which takes the same time.
  const std::int64_t slotCount = p.pp > 1 ? c.batch.microBatches * chunks + p.pp - 1 : 1;
  if (slotCount > kMaxWrittenBlocks / blocks) {
    throw InputError(
        "preset '" + c.preset.id + "': " + std::to_string(c.batch.microBatches) +
        " micro-batches of " + std::to_string(c.batch.microBatch) +
        (c.batch.microBatch == 1 ? " sample" : " samples") +
        (p.pp > 1 ? " (+ " + std::to_string(p.pp - 1) + " pipeline bubble slots)" : std::string()) +
        " of " + std::to_string(blocks) + " blocks each would write more than " +
        std::to_string(kMaxWrittenBlocks) +
        " block copies; choose a larger micro-batch (fewer micro-batches)");
  }
  const int slots = static_cast<int>(slotCount);
  // The written stage is the last: its blocks are the model's last stageBlocks ones
  // (which of them are dense in a model with dense first blocks).
  const int stageFirstBlock = p.pp > 1 ? std::max(1, m_.layers - stageBlocks + 1) : 1;

  Builder builder(c.map.communicator(), c.tally);
  Workload w;
  w.communicator = builder.communicator();
  for (const auto& [slot, weight] : visits(slots, chunks, blocks, stageFirstBlock)) {
    if (c.tally) c.tally->weight = weight;
    writeSlot(builder, w, slot, slots, chunks, blocks, stageFirstBlock);
  }
  return w;
}

// The slots written: all of them, or for a tally one of each kind (the first
// `chunks` carry the gradients; after them, slots of one chunk position are
// alike) with the count of its kind as the tally's weight.
std::vector<std::pair<int, double>> TransformerWriter::visits(int slots, int chunks, int blocks,
                                                              int stageFirstBlock) const {
  std::vector<std::pair<int, double>> out;
  for (int slot = 0; slot < slots; ++slot) {
    if (!c_.tally || slot < 2 * chunks) out.emplace_back(slot, 1.0);
  }
  if (!c_.tally) return out;
  for (auto& [slot, weight] : out) {
    if (slot < chunks) continue;
    weight = 0;
    for (int other = slot; other < slots; other += chunks) weight += 1;
  }
  if (c_.libra) return out;
  // In Megatron's layout a slot is told apart only by whether it carries the
  // gradients, whether the output layer follows it (chunk position 0) and which
  // of its blocks are dense or MoE: slots alike in these are visited once.
  const auto kind = [&](int slot) {
    std::vector<bool> k{slot < chunks, slot % chunks == 0};
    for (int inChunk = 1; inChunk <= blocks; ++inChunk) {
      k.push_back(m_.moeBlock(stageFirstBlock + (slot % chunks) * blocks + inChunk - 1));
    }
    return k;
  };
  std::vector<std::pair<int, double>> merged;
  std::vector<std::vector<bool>> kinds;
  for (const auto& [slot, weight] : out) {
    const std::vector<bool> k = kind(slot);
    const auto same = std::find(kinds.begin(), kinds.end(), k);
    if (same != kinds.end()) {
      merged[static_cast<std::size_t>(same - kinds.begin())].second += weight;
    } else {
      merged.emplace_back(slot, weight);
      kinds.push_back(k);
    }
  }
  return merged;
}

void TransformerWriter::writeSlot(Builder& builder, Workload& w, int slot, int slots, int chunks,
                                  int blocks, int stageFirstBlock) const {
  const Context& c = c_;
  const bool withEmbedding = !c.libra && m_.vocab > 0 && p_.pp == 1;
  const bool withOutput = !c.libra && m_.vocab > 0;
  // The first v slots listed hold the v chunks (all the stage's blocks) and are
  // the last in the backward pass: they carry the gradients.
  const bool lastToFinish = slot < chunks;
  const int firstBlock = (slot % chunks) * blocks;  // block numbering within the stage
  if (p_.pp > 1) {
    // The stage's input activation from the previous stage (forward) and its
    // gradient back (input gradient: the backward pass reaches this line last
    // in the slot). Each TP rank sends its 1 / TP of the activation (Narayanan
    // et al.'s scatter/gather; with sequence parallelism the activation is
    // split anyway); without SP an AllGather over the TP group rebuilds it.
    Op pipe;
    pipe.name = "pipeline" + slotSuffix(slot, slots);
    const Coll send{CollectiveType::SendRecv,
                    act_ / tp_,
                    c.map.pipeline(),
                    "p2p",
                    false,
                    c.map.strides(ParallelAxis::Pipeline)};
    for (PhaseKind kind : {PhaseKind::Forward, PhaseKind::InputGrad}) {
      pipe.at(kind).push_back(send);
      if (p_.tp > 1 && !sp_) pipe.at(kind).push_back(tpGather());
    }
    builder.lower(pipe, w.layers.mutate());
  }
  if (withEmbedding) {
    Op e;
    e.name = "embedding" + slotSuffix(slot, slots);
    const double lookup = c.memoryNs(act_);
    e.computeNs = {lookup, 0, lookup};
    leaveTp(e);  // vocabulary-parallel embedding: partial sums over the TP group
    if (lastToFinish && denseGrad_) addGradient(e, m_.vocab * h_ / tp_, denseG_, denseS_);
    if (p_.zero3 && denseGrad_) {
      addParamGathers(e, m_.vocab * h_ / tp_, denseG_, denseDegree_, denseS_);
    }
    builder.lower(e, w.layers.mutate());
  }
  // A tally writes one block of each run of alike blocks (dense or MoE: in
  // Megatron's layout nothing else tells them apart) with the run's length as
  // its weight; the Libra layout puts a slot's gradients on its first block.
  const bool runs = c.tally && !c.libra;
  for (int inChunk = 1; inChunk <= blocks;) {
    const int i = firstBlock + inChunk;
    const int global = stageFirstBlock + i - 1;
    int alike = 1;
    while (runs && inChunk + alike <= blocks &&
           m_.moeBlock(global + alike) == m_.moeBlock(global)) {
      ++alike;
    }
    const double weight = c.tally ? c.tally->weight : 1.0;
    if (c.tally) c.tally->weight = weight * alike;
    writeBlock(builder, w, i, global, slot, slots, lastToFinish, inChunk == 1, blocks);
    if (c.tally) c.tally->weight = weight;
    inChunk += alike;
  }
  if (withOutput && slot % chunks == 0) {
    // The output layer follows the stage's last chunk: once per micro-batch.
    Op out = gemm("output" + slotSuffix(slot, slots), 2 * T_ * h_ * m_.vocab / tp_, T_, h_,
                  m_.vocab / tp_, h_ * m_.vocab / tp_, false);
    enterTp(out);  // vocabulary-parallel output layer
    const bool ownWeights = !m_.tiedEmbeddings || !withEmbedding;
    if (lastToFinish && denseGrad_ && ownWeights) {
      addGradient(out, m_.vocab * h_ / tp_, denseG_, denseS_);
    }
    if (p_.zero3 && denseGrad_ && ownWeights) {
      addParamGathers(out, m_.vocab * h_ / tp_, denseG_, denseDegree_, denseS_);
    }
    // Like Megatron's full recomputation, only transformer blocks are recomputed.
    builder.lower(out, w.layers.mutate());
  }
}

// Block i of the stage (block `global` of the model): its ops, their
// recomputation, lowered into lines.
void TransformerWriter::writeBlock(Builder& builder, Workload& w, int i, int global, int slot,
                                   int slots, bool gradients, bool firstInChunk, int blocks) const {
  std::vector<Op> block;
  attention(block, i, global, slot, slots, gradients, firstInChunk, blocks);
  if (m_.moeBlock(global)) {
    moeMlp(block, i, global, slot, slots, gradients);
  } else {
    denseMlp(block, i, slot, slots);
  }
  block.push_back(norm(i, global, slot, slots));
  if (p_.recompute) {
    for (Op& r : recomputeOps(block)) block.push_back(std::move(r));
  } else if (p_.selectiveRecompute) {
    // Korthikanti et al.: only the attention scores (QK^T, softmax, their
    // product with V) are recomputed; they hold the 5 a s^2 b bytes.
    auto scores = [](const Op& op) {
      return op.name.rfind("QK", 0) == 0 || op.name.rfind("softmax", 0) == 0;
    };
    for (Op& r : recomputeOps(block, +scores)) block.push_back(std::move(r));
  }
  for (const Op& op : block) builder.lower(op, w.layers.mutate());
}

void TransformerWriter::attention(std::vector<Op>& block, int i, int global, int slot, int slots,
                                  bool gradients, bool firstInChunk, int blocks) const {
  const double T = T_, tp = tp_, h = h_, s = s_, b = b_;
  auto name = [&](const std::string& base) { return numbered(base, i, slot, slots); };
  Op q = gemm(name("Q"), 2 * T * att_.q / tp, T, h, att_.q / h / tp, att_.q / tp);
  enterTp(q);
  if (gradients && denseGrad_ && (!c_.libra || firstInChunk)) {
    // The Libra layout puts the gradients of all the slot's blocks on its first.
    double params = denseParams(global);
    if (c_.libra) {
      params = 0;
      for (int j = 0; j < blocks; ++j) params += denseParams(global + j);
    }
    addGradient(q, params, denseG_, denseS_);
  }
  if (p_.zero3 && denseGrad_)
    addParamGathers(q, denseParams(global), denseG_, denseDegree_, denseS_);
  block.push_back(q);
  block.push_back(gemm(name("K"), 2 * T * att_.k / tp, T, h, att_.k / h / tp, att_.k / tp));
  block.push_back(gemm(name("V"), 2 * T * att_.v / tp, T, h, att_.v / h / tp, att_.v / tp));
  // Scores Q K^T and their product with V: 2 T s qkWidth / tp and 2 T s vWidth /
  // tp (2 T s h / tp each for multi-head attention); no weights, so the backward
  // pass is all input gradient (twice the forward). Per sequence and head they
  // are [s, d] x [d, s] and [s, s] x [s, d] products: they read and write Q, K, V
  // and the output (width qkWidth or vWidth / tp per token), and, when the scores
  // are materialized, the score matrices (s^2 per sequence and head: T s a / tp
  // elements) with the softmax and its dropout between them, (4 beta + 1) bytes per
  // element forward and (5 beta + 1) backward (read and write, a 1-byte mask;
  // Korthikanti et al., section 4.1). A fused kernel keeps the scores on chip.
  const double elements =
      p_.attention == AttentionKernel::Materialized ? T * s * m_.heads / tp : 0.0;
  const std::array<std::pair<const char*, double>, 2> scores{
      {{"QK", att_.qkWidth}, {"softmax", att_.vWidth}}};
  for (const auto& [base, width] : scores) {
    Op a;
    a.name = name(base);
    const double f = 2 * T * s * width / tp;
    const double streams = T * width / tp;  // Q and K, or V and the output
    double forward = c_.kernel(f, b * (2 * streams + elements));
    double backward = c_.kernel(2 * f, b * (4 * streams + 2 * elements));
    if (std::string_view(base) == "QK") {
      forward += c_.memoryNs((4 * b + 1) * elements);
      backward += c_.memoryNs((5 * b + 1) * elements);
    }
    a.computeNs = {forward, backward, 0};
    if (std::string_view(base) == "QK") addKeyValueExchange(a);
    block.push_back(a);
  }
  Op o = gemm(name("concat"), 2 * T * att_.out / tp, T, att_.out / h / tp, h, att_.out / tp);
  leaveTp(o);
  if (c_.libra && !sp_) {
    // The reference files' extra input-gradient AllGather of one TP shard.
    o.at(PhaseKind::InputGrad).push_back(tpGather());
  }
  block.push_back(o);
}

// The reference files' names: X<i>W1b1 (up projection, gate included when gated)
// and X<i>W2b2 (down projection).
void TransformerWriter::denseMlp(std::vector<Op>& block, int i, int slot, int slots) const {
  const double T = T_, tp = tp_, h = h_;
  const double upWidth = m_.ffn * (mlpMatrices_ - 1) / tp;
  Op up = gemm(mlpName(i, 1, slot, slots), 2 * T * h * m_.ffn * (mlpMatrices_ - 1) / tp, T, h,
               upWidth, h * upWidth);
  enterTp(up);
  block.push_back(up);
  Op down =
      gemm(mlpName(i, 2, slot, slots), 2 * T * m_.ffn * h / tp, T, m_.ffn / tp, h, m_.ffn * h / tp);
  leaveTp(down);
  block.push_back(down);
}

// Megatron-LM's MoE layer with the AllToAll token dispatcher (section 2.5): the
// layer's input stays sequence parallel (TP > 1 needs SP), so the router sees the
// rank's T / TP tokens and sends their k copies to the experts.
void TransformerWriter::moeMlp(std::vector<Op>& block, int i, int global, int slot, int slots,
                               bool gradients) const {
  const double T = T_, tp = tp_, h = h_, b = b_, fe = fe_;
  auto name = [&](const std::string& base) { return numbered(base, i, slot, slots); };
  block.push_back(gemm(name("router"), 2 * T * h * m_.experts / tp, T / tp, h, m_.experts,
                       h * m_.experts, false));
  if (m_.sharedExperts > 0) {
    // Shared experts: a dense MLP of sharedExperts x f_e every token passes through.
    const double fs = m_.sharedExperts * fe;
    const double upWidth = fs * (mlpMatrices_ - 1) / tp;
    Op up = gemm(name("sharedW1_"), 2 * T * h * fs * (mlpMatrices_ - 1) / tp, T, h, upWidth,
                 h * upWidth);
    enterTp(up);
    block.push_back(up);
    Op down = gemm(name("sharedW2_"), 2 * T * fs * h / tp, T, fs / tp, h, fs * h / tp);
    leaveTp(down);
    block.push_back(down);
  }
  // The copies of the micro-batch's T tokens the NPUs send and receive, in bytes
  // (k per token with the AllToAll dispatcher); each TP rank holds 1 / TP of them.
  const double routed = T * copies_ * h * b;
  std::vector<Coll> a2a;
  if (p_.moeDispatcher == MoeDispatcher::DeepEp) {
    if (nodeCopies_ > 0) {
      a2a.push_back(
          {CollectiveType::AllToAll, T * nodeCopies_ * h * b / tp, epAcross_, "ep", false, epS_});
    }
    a2a.push_back({CollectiveType::AllToAll, routed / tp, epNode_, "node", false, epS_});
  } else {
    a2a.push_back({CollectiveType::AllToAll, routed / tp, epG_, "ep", false, epS_});
  }
  // The expert-TP group gathers what its ETP NPUs received: of each EP group's
  // tokens, ETP / TP of the copies (section 2.5).
  const double etpShare = etp_ / tp;
  const Coll tpGatherRouted{CollectiveType::AllGather, routed / tp, experts_.tensor, "tp", false,
                            experts_.tensorStrides};
  const Coll tpScatterRouted{
      CollectiveType::ReduceScatter, routed * etpShare, experts_.tensor, "tp", false,
      experts_.tensorStrides};
  // dispatch: permute -> AllToAll (EP) -> AllGather (expert TP); its backward is
  // the mirror image. combine: ReduceScatter (expert TP) -> AllToAll (EP) ->
  // unpermute (written AllToAll first, as dispatch: the order within an op does
  // not change the time).
  auto exchange = [&](const char* base, const Coll& forward, const Coll& backward) {
    Op op;
    op.name = name(base);
    if (epColl_) {
      for (const Coll& a : a2a) {
        op.at(PhaseKind::Forward).push_back(a);
        op.at(PhaseKind::InputGrad).push_back(a);
      }
    }
    if (etpColl_) {
      op.at(PhaseKind::Forward).push_back(forward);
      op.at(PhaseKind::InputGrad).push_back(backward);
    }
    return op;
  };
  block.push_back(exchange("dispatch", tpGatherRouted, tpScatterRouted));
  // The experts of the rank compute the T k ETP / TP routed token copies of their
  // expert-TP group with 1 / ETP of their weights (with ETP = TP: all T k copies of
  // the TP group with 1 / TP).
  const double localExperts = static_cast<double>(m_.experts) / p_.ep;
  const double expertUp = fe * (mlpMatrices_ - 1) / etp_;
  Op w1 = gemm(name("expertsW1_"), 2 * T * m_.topK * h * fe * (mlpMatrices_ - 1) / tp,
               T * m_.topK * etpShare, h, expertUp, localExperts * h * expertUp);
  if (p_.zero3 && expertGrad_) addParamGathers(w1, expertParams(global), dpG_, expertDegree_, dpS_);
  block.push_back(w1);
  Op w2 = gemm(name("expertsW2_"), 2 * T * m_.topK * fe * h / tp, T * m_.topK * etpShare, fe / etp_,
               h, localExperts * fe * h / etp_);
  if (gradients && expertGrad_) addGradient(w2, expertParams(global), dpG_, dpS_);
  block.push_back(w2);
  block.push_back(exchange("combine", tpScatterRouted, tpGatherRouted));
}

// The block's memory-bound kernels (section 2.8): two layer norms (read and write
// [T', h]) and two residual adds (read two, write one) on T' = T / TP tokens with
// sequence parallelism (T without), and the MLP's activation function (a gated one
// reads gate and up and writes their product: m_g tensors; GeLU two) on the rows
// the MLP computes; backward, each norm and residual gradient reads two tensors and
// writes one, the activation reads m_g and writes m_g - 1.
Op TransformerWriter::norm(int i, int global, int slot, int slots) const {
  const double T = T_, tp = tp_, h = h_, b = b_;
  Op norm;
  norm.name = numbered("layerNorm", i, slot, slots);
  const double rows = T / (sp_ ? tp : 1.0);
  const double activated =
      m_.moeBlock(global) ? T * (m_.topK + m_.sharedExperts) * fe_ / tp : T * m_.ffn / tp;
  const double nf = 2 * T * h / (sp_ ? tp : 1.0);
  norm.computeNs = {c_.kernel(nf, b * (10 * rows * h + mlpMatrices_ * activated)),
                    c_.kernel(nf, b * (12 * rows * h + (2 * mlpMatrices_ - 1) * activated)),
                    c_.ns(nf)};
  return norm;
}

Workload transformer(const Context& c) {
  return TransformerWriter(c).write();
}

// ---------------------------------------------------------------------------------
// Gradient placement of CNN and DLRM (section 2.5): all on `first` in the Libra
// layout, else DDP buckets filled in backward order.
void placeGradients(const Context& c, std::vector<Op>& ops, const std::vector<double>& params,
                    const std::vector<int>& groups, std::size_t first) {
  const bool any = carries(groups) || c.libra;
  if (!any) return;
  auto coll = [&](double bytes) {
    // Data parallel only (CNN, DLRM): the groups are consecutive.
    return c.par.zero3 ? Coll{CollectiveType::ReduceScatter, bytes, groups, "grad", false, {}}
                       : Coll{CollectiveType::AllReduce, bytes, groups, "grad", false, {}};
  };
  double total = 0;
  for (double x : params) total += x;
  if (c.libra) {
    ops[first].at(PhaseKind::WeightGrad).push_back(coll(total * c.bytes));
    return;
  }
  // The backward pass meets the layers in reverse; the bucket still open when the
  // first layer with weights is reached is reduced there.
  std::size_t firstWithWeights = 0;
  while (firstWithWeights < params.size() && params[firstWithWeights] <= 0) ++firstWithWeights;
  double bucket = 0;
  for (std::size_t i = ops.size(); i-- > 0;) {
    bucket += params[i] * c.bytes;
    if (bucket > 0 && (bucket >= c.options.bucketBytes || i == firstWithWeights)) {
      ops[i].at(PhaseKind::WeightGrad).push_back(coll(bucket));
      bucket = 0;
    }
  }
}

void zeroGathers(const Context& c, std::vector<Op>& ops, const std::vector<double>& params,
                 const std::vector<int>& groups, double degree) {
  if (!c.par.zero3 || degree <= 1) return;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (params[i] <= 0) continue;
    const Coll g{
        CollectiveType::AllGather, params[i] * c.bytes / degree, groups, "params", true, {}};
    ops[i].at(PhaseKind::Forward).push_back(g);
    ops[i].at(PhaseKind::InputGrad).push_back(g);
  }
}

void dataParallelOnly(const Context& c, const char* family) {
  if (c.par.tp != 1 || c.par.ep != 1 || c.par.pp != 1) {
    throw InputError("preset '" + c.preset.id + "' (" + family +
                     ") is data parallel only; it cannot use " + c.par.label());
  }
  if (c.options.blocks > 0) {
    throw InputError("preset '" + c.preset.id + "' (" + family +
                     "): 'blocks' applies to transformers only");
  }
  if (c.par.selectiveRecompute) {
    throw InputError("preset '" + c.preset.id + "' (" + family +
                     "): selective recomputation (of attention scores) applies to transformers "
                     "only");
  }
}

// The pass of a data-parallel model (CNN, DLRM): all micro-batches of the
// replica's share as one pass of c.microBatch samples (section 2.4: without a
// pipeline the time is linear in the samples), gradients reduced once.
void writePass(const Context& c, Workload& w, std::vector<Op> ops,
               const std::vector<double>& params, const std::vector<int>& groups, double degree) {
  zeroGathers(c, ops, params, groups, degree);
  placeGradients(c, ops, params, groups, 0);
  Builder builder(w.communicator, c.tally);
  for (const Op& op : ops) builder.lower(op, w.layers.mutate());
}

Workload cnn(const Context& c) {
  dataParallelOnly(c, "CNN");
  const auto& m = std::get<CnnConfig>(c.preset.model);
  const double b = c.microBatch;
  std::vector<Op> ops;
  std::vector<double> params;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const ConvLayer& l = m.layers[i];
    const double weights = static_cast<double>(l.inChannels) * l.outChannels * l.kernel * l.kernel;
    const double f = c.ns(2 * weights * l.outputSize * l.outputSize * b);
    Op op;
    op.name = l.name;
    // The first layer needs no input gradient (its input is the data).
    op.computeNs = {f, i == 0 ? 0.0 : f, f};
    ops.push_back(op);
    params.push_back(weights);
  }
  const std::vector<int>& dpG = c.map.data();
  Workload w;
  w.communicator.of(PhaseKind::Forward).assign(c.network.size(), 1);
  w.communicator.of(PhaseKind::InputGrad).assign(c.network.size(), 1);
  w.communicator.of(PhaseKind::WeightGrad) = dpG;
  writePass(c, w, std::move(ops), params, dpG, static_cast<double>(c.par.dp));
  return w;
}

Workload dlrm(const Context& c) {
  dataParallelOnly(c, "DLRM");
  const auto& m = std::get<DlrmConfig>(c.preset.model);
  const double b = c.microBatch;
  const std::vector<int>& allG = c.map.data();  // every NPU
  auto mlp = [&](const std::string& prefix, std::vector<int> outs, double in, std::vector<Op>& ops,
                 std::vector<double>& params) {
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const double weights = in * outs[i];
      const double f = c.ns(2 * b * weights);
      Op op;
      op.name = prefix + std::to_string(i);
      op.computeNs = {f, f, f};
      ops.push_back(op);
      params.push_back(weights);
      in = outs[i];
    }
  };
  // Embedding lookups (model parallel): each NPU serves the lookups of its tables for
  // the global batch, on average microBatch x tables vectors (b N samples x tables / N
  // tables), and exchanges them by AllToAll so that every NPU gets the vectors of its
  // own b samples (Naumov et al., arXiv:1906.00091, section 3, the "butterfly
  // shuffle"); the gradients go back the same way. The tables' weights are not
  // replicated, so they have no gradient AllReduce: the MLPs' gradients do.
  const double exchanged = b * m.tables * m.embeddingDim * c.bytes;
  Op embedding;
  embedding.name = "Embedding";
  embedding.computeNs = {c.memoryNs(exchanged), 0, c.memoryNs(exchanged)};
  embedding.at(PhaseKind::Forward)
      .push_back({CollectiveType::AllToAll, exchanged, allG, "a2a", false, {}});
  embedding.at(PhaseKind::InputGrad)
      .push_back({CollectiveType::AllToAll, exchanged, allG, "a2a", false, {}});
  const double pairs = m.pairs();
  const double interactionIn = m.widths(false).front();
  Op interaction;
  interaction.name = "Interaction";
  const double fi = c.ns(2 * b * pairs * m.embeddingDim);
  interaction.computeNs = {fi, 2 * fi, 0};

  std::vector<Op> ops;
  std::vector<double> params;
  if (c.libra) {
    // The reference order: embedding, bottom MLP, top MLP; gradients on the embedding.
    ops.push_back(embedding);
    params.push_back(0);
    mlp("MLP_Bottom_", m.bottomMlp, m.denseFeatures, ops, params);
    mlp("MLP_Top_", m.topMlp, interactionIn, ops, params);
  } else {
    mlp("MLP_Bottom_", m.bottomMlp, m.denseFeatures, ops, params);
    ops.push_back(embedding);
    params.push_back(0);
    ops.push_back(interaction);
    params.push_back(0);
    mlp("MLP_Top_", m.topMlp, interactionIn, ops, params);
  }
  Workload w;
  w.communicator.of(PhaseKind::Forward) = allG;
  w.communicator.of(PhaseKind::InputGrad) = allG;
  w.communicator.of(PhaseKind::WeightGrad) = allG;
  writePass(c, w, std::move(ops), params, allG, static_cast<double>(c.par.dp));
  return w;
}

}  // namespace

std::int64_t batchReplicas(const Preset& preset, const Parallelism& resolved) {
  // Dense weights are replicated EP x DP times (section 2.2; with expert TP < TP
  // the EP NPUs outside the TP group), and each replica takes its own samples;
  // CNN and DLRM are data parallel over every NPU.
  (void)preset;
  return resolved.degree(ParallelAxis::Expert) * resolved.dp;
}

namespace {

std::string samples(const Preset& preset, std::int64_t n) {
  const bool sequences = std::holds_alternative<TransformerConfig>(preset.model);
  return std::to_string(n) +
         (sequences ? (n == 1 ? " sequence" : " sequences") : (n == 1 ? " sample" : " samples"));
}

// The largest divisor of n not above `cap` (at least 1).
std::int64_t largestDivisorAtMost(std::int64_t n, std::int64_t cap) {
  for (std::int64_t d = std::min(n, cap); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

}  // namespace

BatchPlan planBatch(const Preset& preset, const Parallelism& resolved,
                    const GeneratorOptions& options) {
  if (options.globalBatch < 0 || options.microBatch < 0 || options.microBatches < 0) {
    throw InputError(
        "batch: the global batch, micro-batch and micro-batch count must be >= 0 "
        "(0 = the preset's, or derived)");
  }
  BatchPlan plan;
  plan.replicas = batchReplicas(preset, resolved);
  plan.sequenceLength = options.sequenceLength > 0 ? options.sequenceLength : preset.sequenceLength;
  const std::int64_t R = plan.replicas;
  const std::string replicas =
      std::to_string(R) + " data-parallel replica" + (R == 1 ? "" : "s") +
      (resolved.dp > 0 && R != resolved.dp ? " (DP " + std::to_string(resolved.dp) + " x EP " +
                                                 std::to_string(R / resolved.dp) + ")"
                                           : " (DP " + std::to_string(resolved.dp) + ")");
  if (options.layout == WorkloadLayout::Libra && options.globalBatch == 0) {
    // The reference files fix the micro-batch per NPU (section 4).
    plan.microBatch = options.microBatch > 0 ? options.microBatch : preset.referenceMicroBatch;
    plan.microBatches = options.microBatches > 0 ? options.microBatches : 1;
    const auto perReplica = checked::multiply(plan.microBatch, plan.microBatches);
    const auto global = perReplica ? checked::multiply(*perReplica, R) : std::nullopt;
    if (!global) {
      throw InputError("batch: " + std::to_string(plan.microBatch) + " x " +
                       std::to_string(plan.microBatches) + " samples on each of " + replicas +
                       " are more than 64 bits can count");
    }
    plan.globalBatch = *global;
    return plan;
  }
  const std::int64_t B = options.globalBatch > 0 ? options.globalBatch : preset.globalBatch;
  plan.globalBatch = B;
  if (B % R != 0) {
    throw InputError("batch: the global batch of " + samples(preset, B) + " cannot be split over " +
                     replicas + ": " + std::to_string(B) + " is not a multiple of " +
                     std::to_string(R) + "; choose a global batch that is, or another parallelism");
  }
  const std::int64_t perReplica = B / R;
  const std::string share = "the " + samples(preset, perReplica) + " of each replica (" +
                            std::to_string(B) + " / " + std::to_string(R) + ")";
  std::int64_t b = options.microBatch;
  std::int64_t m = options.microBatches;
  if (b > 0) {
    if (perReplica % b != 0) {
      throw InputError("batch: a micro-batch of " + samples(preset, b) + " does not divide " +
                       share + "; choose a micro-batch that does");
    }
    if (m > 0 && b * m != perReplica) {
      throw InputError("batch: " + std::to_string(m) + " micro-batches of " + samples(preset, b) +
                       " are " + std::to_string(b * m) + ", not " + share +
                       "; give the micro-batch or the count, not both");
    }
    m = perReplica / b;
  } else if (m > 0) {
    if (perReplica % m != 0) {
      throw InputError("batch: " + std::to_string(m) + " micro-batches do not divide " + share +
                       " evenly; choose a count that does");
    }
    b = perReplica / m;
  } else {
    // The preset's micro-batch (Megatron-LM's 1 for large transformers, 32 images
    // per GPU for ResNet-50) and gradient accumulation over the rest: the
    // activations in memory are those of one micro-batch (section 2.10).
    b = largestDivisorAtMost(perReplica, preset.microBatch);
    m = perReplica / b;
  }
  plan.microBatch = b;
  plan.microBatches = m;
  return plan;
}

namespace {

// Context parallelism (section 2.15) applies to transformers in the Megatron layout,
// and splits each sequence into 2 CP chunks per rank (Megatron-LM's load-balanced
// causal split: the sequence length must be a multiple of 2 x CP).
void checkContextParallel(const Preset& preset, const Parallelism& p,
                          const GeneratorOptions& options) {
  if (p.cp == 1) return;
  const bool transformer = preset.family() == ModelFamily::Transformer ||
                           preset.family() == ModelFamily::MixtureOfExperts;
  if (!transformer || options.layout == WorkloadLayout::Libra) {
    throw InputError("preset '" + preset.id + "': context parallelism (CP " + std::to_string(p.cp) +
                     ") is modelled for transformers in the Megatron layout only");
  }
  const std::int64_t sequence =
      options.sequenceLength > 0 ? options.sequenceLength : preset.sequenceLength;
  if (sequence % (2 * static_cast<std::int64_t>(p.cp)) != 0) {
    throw InputError("preset '" + preset.id + "': context parallelism CP " + std::to_string(p.cp) +
                     " needs a sequence length that is a multiple of 2 x CP = " +
                     std::to_string(2 * static_cast<std::int64_t>(p.cp)) +
                     " (Megatron-LM's "
                     "load-balanced split), but it is " +
                     std::to_string(sequence) + "; choose another --cp or --sequence-length");
  }
}

// The generator's context for these inputs, checked (generateWorkload).
Context makeContext(const Preset& preset, const Parallelism& parallelism, const Device& device,
                    const Network& network, const GeneratorOptions& options) {
  preset.validate();
  device.validate();
  if (options.blocks < 0 || options.sequenceLength < 0 || options.virtualStages < 0 ||
      !(options.bucketBytes > 0) || !std::isfinite(options.trainTokens) ||
      options.trainTokens < 0) {
    throw InputError(
        "workload generator: blocks, sequence length and virtual stages must be >= 0, the "
        "bucket size > 0 and the training tokens a finite number >= 0");
  }
  if (!std::isfinite(options.utilization) || options.utilization < 0 || options.utilization > 1) {
    throw InputError("utilization " + text::formatNumber(options.utilization) +
                     " must be in (0, 1]: the share of the device's matmul rate a training "
                     "step sustains (0: the device's calibrated value)");
  }
  if (parallelism.shardGroup > 0 && (options.layout == WorkloadLayout::Libra ||
                                     (preset.family() != ModelFamily::Transformer &&
                                      preset.family() != ModelFamily::MixtureOfExperts))) {
    throw InputError("preset '" + preset.id +
                     "': hybrid sharding (a shard group) is modelled for transformers in the "
                     "Megatron layout only");
  }
  checkContextParallel(preset, parallelism, options);
  if (parallelism.precision == Precision::Fp8) {
    if (!device.hasFp8()) {
      throw InputError("device '" + device.id + "' (" + device.name +
                       ") has no FP8 matrix units; run it in BF16 or choose a device with FP8");
    }
    if (preset.family() != ModelFamily::Transformer &&
        preset.family() != ModelFamily::MixtureOfExperts) {
      throw InputError("preset '" + preset.id +
                       "': FP8 applies to transformers only (Transformer Engine's recipes)");
    }
  }
  Context c{preset,
            resolveDegrees(parallelism, network.npuCount()),
            options.utilization > 0 ? device.withUtilization(options.utilization) : device,
            network,
            mapParallelism(network, parallelism),
            options};
  if (c.par.recompute && c.par.selectiveRecompute) {
    throw InputError(
        "parallelism: full and selective recomputation exclude each other; "
        "choose one");
  }
  c.batch = planBatch(preset, c.par, options);
  // Samples per written slot: a micro-batch in a pipeline, else the replica's
  // whole share (section 2.4).
  c.microBatch = static_cast<double>(c.batch.microBatch) *
                 (c.par.pp > 1 ? 1.0 : static_cast<double>(c.batch.microBatches));
  c.sequence = c.batch.sequenceLength;
  c.bytes = preset.bytesPerElement;
  c.libra = options.layout == WorkloadLayout::Libra;
  if (c.par.pp > 1 && preset.family() != ModelFamily::Transformer &&
      preset.family() != ModelFamily::MixtureOfExperts) {
    throw InputError("preset '" + preset.id +
                     "': pipeline parallelism applies to transformers only");
  }
  if (options.virtualStages > 1 && c.par.pp < 2) {
    throw InputError("preset '" + preset.id + "': " + std::to_string(options.virtualStages) +
                     " virtual pipeline stages need pipeline parallelism (PP > 1)");
  }

  return c;
}

Workload writeFamily(const Context& c) {
  switch (c.preset.family()) {
    case ModelFamily::Transformer:
    case ModelFamily::MixtureOfExperts:
      return transformer(c);
    case ModelFamily::Cnn:
      return cnn(c);
    case ModelFamily::Dlrm:
      return dlrm(c);
  }
  return {};
}

}  // namespace

WorkloadTally tallyWorkload(const Preset& preset, const Parallelism& parallelism,
                            const Device& device, const Network& network,
                            const GeneratorOptions& options) {
  Context c = makeContext(preset, parallelism, device, network, options);
  WorkloadTally out;
  Tally tally(out);
  c.tally = &tally;
  (void)writeFamily(c);
  return out;
}

Network axesNetwork(const Parallelism& degrees) {
  Network network;
  for (ParallelAxis axis : kParallelAxes) {
    const std::int64_t degree = degrees.degree(axis);
    if (degree < 2) continue;
    Dimension d;
    d.name = std::string(shortName(axis));
    d.block = BuildingBlock::Switch;
    d.npus = static_cast<int>(degree);
    d.costLevel = "InterPod";  // any name: a workload needs no price
    network.dims.push_back(d);
  }
  return network;
}

std::optional<AxisTally> tallyByAxes(const Preset& preset, const Parallelism& parallelism,
                                     const Device& device, const GeneratorOptions& options) {
  const bool deepEp = parallelism.moeDispatcher == MoeDispatcher::DeepEp && parallelism.ep > 1;
  if (options.layout == WorkloadLayout::Libra || parallelism.shardGroup > 0 || deepEp ||
      parallelism.dp < 1) {
    return std::nullopt;
  }
  // Each axis's group on its own Switch.
  Parallelism p = parallelism;
  const Network network = axesNetwork(p);
  std::vector<ParallelAxis> axisOf;
  for (ParallelAxis axis : kParallelAxes) {
    if (p.degree(axis) >= 2) axisOf.push_back(axis);
  }
  if (network.dims.empty()) return std::nullopt;
  for (ParallelAxis axis : kParallelAxes) {
    std::vector<int>& g = p.groupsOf(axis);
    g.assign(network.dims.size(), 1);
    for (std::size_t d = 0; d < axisOf.size(); ++d) {
      if (axisOf[d] == axis) g[d] = network.dims[d].npus;
    }
  }
  const WorkloadTally t = tallyWorkload(preset, p, device, network, options);
  AxisTally out;
  out.computeNs = t.computeNs;
  for (const WorkloadTally::Collective& c : t.collectives) {
    unsigned axes = 0;
    for (std::size_t d = 0; d < c.groups.size(); ++d) {
      if (c.groups[d] == 1) continue;
      if (c.groups[d] != network.dims[d].npus) return std::nullopt;  // part of an axis
      axes |= axisBit(axisOf[d]);
    }
    out.collectives.push_back({c.type, c.bytes, axes, c.count});
  }
  return out;
}

WorkloadTally placeTally(const AxisTally& tally, const ParallelismMapping& placed) {
  WorkloadTally out;
  out.computeNs = tally.computeNs;
  for (const AxisTally::Collective& c : tally.collectives) {
    WorkloadTally::Collective placedOne{c.type, c.bytes, placed.unionGroups(c.axes),
                                        placed.unionStrides(c.axes), c.count};
    const auto same = std::find_if(
        out.collectives.begin(), out.collectives.end(), [&](const WorkloadTally::Collective& o) {
          return o.type == placedOne.type && o.bytes == placedOne.bytes &&
                 o.groups == placedOne.groups && o.strides == placedOne.strides;
        });
    if (same != out.collectives.end()) {
      same->count += c.count;
    } else {
      out.collectives.push_back(std::move(placedOne));
    }
  }
  return out;
}

Workload generateWorkload(const Preset& preset, const Parallelism& parallelism,
                          const Device& device, const Network& network,
                          const GeneratorOptions& options) {
  const Context c = makeContext(preset, parallelism, device, network, options);
  Workload w = writeFamily(c);
  w.name = preset.name + " (" + c.par.label() + ")";
  WorkloadOrigin origin;
  origin.preset = preset.id;
  origin.device = device.id;
  if (!isBuiltInPreset(preset)) origin.model = modelFileJson(preset, -1);
  auto& q = origin.parameters;
  q["tp"] = c.par.tp;
  if (c.par.cp > 1) q["cp"] = c.par.cp;  // absent: 1
  q["ep"] = c.par.ep;
  if (c.par.expertTp > 0) q["expert_tp"] = c.par.expertTp;  // absent: TP
  q["pp"] = c.par.pp;
  q["dp"] = static_cast<double>(c.par.dp);
  q["sequence_parallel"] = c.par.sequenceParallel ? 1 : 0;
  q["zero3"] = c.par.zero3 ? 1 : 0;
  q["zero_stage"] = c.par.zero();
  if (c.par.shardGroup > 0) q["shard_group"] = c.par.shardGroup;
  q["recompute"] = c.par.recompute ? 1 : 0;
  q["selective_recompute"] = c.par.selectiveRecompute ? 1 : 0;
  q["fused_attention"] = c.par.attention == AttentionKernel::Fused ? 1 : 0;
  q["deepep_dispatch"] = c.par.moeDispatcher == MoeDispatcher::DeepEp ? 1 : 0;
  q["contiguous_routing"] = c.par.moeRouting == MoeRouting::Contiguous ? 1 : 0;
  if (c.par.precision == Precision::Fp8) q["fp8"] = 1;  // absent: BF16
  if (options.utilization > 0) q["utilization"] = options.utilization;
  q["global_batch"] = static_cast<double>(c.batch.globalBatch);
  q["micro_batch"] = static_cast<double>(c.batch.microBatch);
  q["micro_batches"] = static_cast<double>(c.batch.microBatches);
  q["micro_batch_given"] = options.microBatch > 0 ? 1 : 0;
  q["micro_batches_given"] = options.microBatches > 0 ? 1 : 0;
  q["sequence_length"] = c.sequence;
  q["train_tokens"] = options.trainTokens > 0 ? options.trainTokens : preset.trainTokens;
  q["blocks"] = options.blocks;
  q["virtual_stages"] = std::max(1, options.virtualStages);
  q["layout_libra"] = c.libra ? 1 : 0;
  q["device_peak_flops"] = device.peakFlops;
  q["device_efficiency"] = device.efficiency;
  q["device_utilization"] = device.utilization(preset.family());
  q["device_memory_bytes"] = device.memoryBytes;
  w.origin = std::move(origin);
  return w;
}

namespace {

std::int64_t countParameter(const WorkloadOrigin& origin, const char* key, std::int64_t fallback) {
  const auto it = origin.parameters.find(key);
  if (it == origin.parameters.end()) return fallback;
  // Counts are stored as doubles; anything beyond 2^53 is not a count we wrote.
  const double v = it->second;
  if (!(v >= -9007199254740992.0 && v <= 9007199254740992.0)) return fallback;
  return std::llround(v);
}

int intParameter(const WorkloadOrigin& origin, const char* key, int fallback) {
  const std::int64_t v = countParameter(origin, key, fallback);
  return v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()
             ? fallback
             : static_cast<int>(v);
}

}  // namespace

std::optional<PresetChoice> presetChoiceOf(const Workload& workload) {
  if (!workload.origin || workload.origin->preset.empty()) return std::nullopt;
  const WorkloadOrigin& o = *workload.origin;
  PresetChoice c;
  c.preset = o.preset;
  c.model = o.model;
  c.device = o.device.empty() ? std::string("h100") : o.device;
  c.parallelism.tp = intParameter(o, "tp", 1);
  c.parallelism.cp = std::max(1, intParameter(o, "cp", 1));
  c.parallelism.ep = intParameter(o, "ep", 1);
  c.parallelism.expertTp = std::max(0, intParameter(o, "expert_tp", 0));
  c.parallelism.pp = intParameter(o, "pp", 1);
  c.parallelism.dp = countParameter(o, "dp", 0);
  c.parallelism.sequenceParallel = intParameter(o, "sequence_parallel", 0) != 0;
  c.parallelism.zero3 = intParameter(o, "zero3", 0) != 0;
  c.parallelism.zeroStage = c.parallelism.zero3 ? 0 : intParameter(o, "zero_stage", 0);
  c.parallelism.shardGroup = std::max(0, intParameter(o, "shard_group", 0));
  c.parallelism.recompute = intParameter(o, "recompute", 0) != 0;
  c.parallelism.selectiveRecompute = intParameter(o, "selective_recompute", 0) != 0;
  // Written before these existed: the preset's own choices (the model had none).
  Parallelism defaults;
  try {
    defaults = modelOf(c).defaults;
  } catch (const InputError&) {
    // An unknown preset keeps the classic defaults; regenerating it fails anyway.
  }
  auto choice = [&](const char* key, bool fallback) {
    return o.parameters.count(key) ? intParameter(o, key, 0) != 0 : fallback;
  };
  c.parallelism.attention = choice("fused_attention", defaults.attention == AttentionKernel::Fused)
                                ? AttentionKernel::Fused
                                : AttentionKernel::Materialized;
  c.parallelism.moeDispatcher =
      choice("deepep_dispatch", defaults.moeDispatcher == MoeDispatcher::DeepEp)
          ? MoeDispatcher::DeepEp
          : MoeDispatcher::AllToAll;
  c.parallelism.moeRouting =
      choice("contiguous_routing", defaults.moeRouting == MoeRouting::Contiguous)
          ? MoeRouting::Contiguous
          : MoeRouting::Random;
  c.parallelism.precision = choice("fp8", false) ? Precision::Fp8 : Precision::Bf16;
  GeneratorOptions& g = c.generator;
  const auto utilization = o.parameters.find("utilization");
  if (utilization != o.parameters.end() && std::isfinite(utilization->second) &&
      utilization->second > 0 && utilization->second <= 1) {
    g.utilization = utilization->second;
  }
  g.sequenceLength = intParameter(o, "sequence_length", 0);
  g.blocks = intParameter(o, "blocks", 0);
  const int virtualStages = intParameter(o, "virtual_stages", 1);
  g.virtualStages = virtualStages > 1 ? virtualStages : 0;
  g.layout = intParameter(o, "layout_libra", 0) ? WorkloadLayout::Libra : WorkloadLayout::Megatron;
  const auto tokens = o.parameters.find("train_tokens");
  if (tokens != o.parameters.end() && std::isfinite(tokens->second) && tokens->second > 0) {
    g.trainTokens = tokens->second;
  }
  const std::int64_t micro = countParameter(o, "micro_batch", 0);
  const std::int64_t micros = std::max<std::int64_t>(1, countParameter(o, "micro_batches", 1));
  if (o.parameters.count("global_batch")) {
    // The batch as chosen: the global batch, and the micro-batch or count only when
    // they were given (otherwise they are derived again, e.g. for another DP).
    g.globalBatch = countParameter(o, "global_batch", 0);
    if (intParameter(o, "micro_batch_given", 0)) g.microBatch = micro;
    if (intParameter(o, "micro_batches_given", 0)) g.microBatches = micros;
  } else {
    // Written before the global batch existed: the micro-batch was per
    // data-parallel rank, so the iteration held micro x micro-batches x replicas.
    g.microBatch = micro;
    const std::int64_t replicas =
        std::max<std::int64_t>(1, c.parallelism.degree(ParallelAxis::Expert)) * c.parallelism.dp;
    if (micro > 0 && replicas > 0) {
      const auto perReplica = checked::multiply(micro, micros);
      const auto global = perReplica ? checked::multiply(*perReplica, replicas) : std::nullopt;
      if (global) g.globalBatch = *global;
    }
  }
  return c;
}

bool regenerateForNetwork(Workload& workload, const Network& network, std::string* error) {
  const auto choice = presetChoiceOf(workload);
  if (!choice) return false;
  try {
    Parallelism p = choice->parallelism;
    p.dp = 0;  // the data-parallel degree follows the NPU count
    Workload regenerated = generateWorkload(modelOf(*choice), p, findDevice(choice->device),
                                            network, choice->generator);
    regenerated.weight = workload.weight;
    workload = std::move(regenerated);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
}

}  // namespace libra
