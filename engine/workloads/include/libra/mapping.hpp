// Parallelization degrees and their mapping onto network dimensions.
//
// The NPUs of a network form a grid n_0 x n_1 x ... x n_{D-1} (innermost first).
// A parallelization splits them into tp x cp x ep x pp x dp: tensor parallel (TP),
// context parallel (CP), expert parallel (EP), pipeline parallel (PP) and data
// parallel (DP). The
// mapping says, for each of these axes, how many NPUs of each dimension one of
// its groups spans (g_d; 1 = the dimension is not used by that axis), exactly
// like the reference communicator files do.
//
// Automatic mapping (the reference convention, see docs/workloads.md section 3):
//   TP, then CP, then EP, from the inside out (Megatron-LM's rank order
//   tp-cp-ep-dp-pp); DP from the outside in; PP takes what is
//   left in between. Each axis takes whole dimensions while its remaining degree
//   is a multiple of the dimension's free NPUs, then a divisor of the next one,
//   so a dimension can be split between two or three axes (FC(8) = 4 TP x 2 DP).
//   A degree that cannot be formed that way is an InputError naming the degree
//   and the dimension.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libra/network.hpp"
#include "libra/workload.hpp"

namespace libra {

// The axes from the inside out; the value indexes ParallelismMapping::groups.
enum class ParallelAxis { Tensor = 0, Context = 1, Expert = 2, Pipeline = 3, Data = 4 };
inline constexpr std::array<ParallelAxis, 5> kParallelAxes{
    ParallelAxis::Tensor, ParallelAxis::Context, ParallelAxis::Expert, ParallelAxis::Pipeline,
    ParallelAxis::Data};
// A set of axes as bits: axisBit(Tensor) | axisBit(Data) is TP x DP.
constexpr unsigned axisBit(ParallelAxis axis) {
  return 1u << static_cast<unsigned>(axis);
}
// "tensor", "context", "expert", "pipeline", "data"
std::string_view toString(ParallelAxis axis);
std::string_view shortName(ParallelAxis axis);  // "TP", "CP", "EP", "PP", "DP"

// How a transformer computes its attention scores (docs/workloads.md section 2.1):
// materialized, as Megatron-LM did before FlashAttention (Q K^T, the softmax and its
// dropout written to and read from device memory: Korthikanti et al.,
// arXiv:2205.05198, section 4.1), or fused into one kernel that keeps the scores on
// chip (FlashAttention, Dao et al., arXiv:2205.14135).
enum class AttentionKernel { Materialized, Fused };
std::string_view toString(AttentionKernel kernel);  // "materialized", "fused"
std::optional<AttentionKernel> parseAttentionKernel(std::string_view text);

// How a mixture of experts sends tokens to their experts (section 2.5): Megatron-LM's
// AllToAll dispatcher (one copy per routed expert), or DeepEP's (a token crosses to
// each destination node once and is forwarded inside the node; DeepSeek-V3,
// arXiv:2412.19437, section 3.2.2; https://github.com/deepseek-ai/DeepEP).
enum class MoeDispatcher { AllToAll, DeepEp };
std::string_view toString(MoeDispatcher dispatcher);  // "alltoall", "deepep"
std::optional<MoeDispatcher> parseMoeDispatcher(std::string_view text);

// Which experts a token's k routed copies go to (section 2.5), balanced either way:
// `random`, k distinct experts uniformly at random (within the preset's node limit,
// when it has one), or `contiguous`, k consecutive expert ids (token i gets experts
// i k .. i k + k - 1 mod E), as the "fake balanced gate" of NVIDIA NeMo AutoModel's
// benchmarks routes.
enum class MoeRouting { Random, Contiguous };
std::string_view toString(MoeRouting routing);  // "random", "contiguous"
std::optional<MoeRouting> parseMoeRouting(std::string_view text);

// The number format of the weight GEMMs (docs/workloads.md section 2.13): BF16, or
// FP8 as Transformer Engine's recipes run it (the linear layers of the blocks in FP8
// at the device's FP8 rate; attention scores, router, embedding and output layer,
// communication and optimizer in BF16 / FP32).
enum class Precision { Bf16, Fp8 };
std::string_view toString(Precision precision);  // "bf16", "fp8"
std::optional<Precision> parsePrecision(std::string_view text);

struct Parallelism {
  int tp = 1;  // tensor parallel (Megatron style)
  // Context parallel (Megatron-LM's --context-parallel-size): each rank of a group
  // holds 1 / cp of every sequence's tokens and exchanges keys and values with the
  // others in every attention layer (docs/workloads.md section 2.15).
  int cp = 1;
  // Expert parallel (mixture-of-experts layers only; Megatron-Core's
  // --expert-model-parallel-size): the NPUs one layer's experts are spread over.
  int ep = 1;
  // Expert tensor parallel (Megatron-Core's --expert-tensor-parallel-size; 0 = TP):
  // each expert split over ETP NPUs. Megatron-Core's MoE layout ("parallel
  // folding", docs/workloads.md section 2.5) re-divides the TP x CP x DP NPUs of a
  // stage into ETP x EP x EDP for the expert layers; with ETP < TP the EP group
  // takes the TP group's outer TP / ETP NPUs and EP x ETP / TP NPUs outside it.
  int expertTp = 0;
  int pp = 1;                     // pipeline parallel stages
  std::int64_t dp = 0;            // data parallel; 0 = derived: N / (tp * ep * pp)
  bool sequenceParallel = false;  // TP activations as ReduceScatter + AllGather
  bool zero3 = false;             // ZeRO-3 / FSDP: parameter AllGather, gradient ReduceScatter
  // ZeRO stage 1 (optimizer states) or 2 (and gradients) sharded over the
  // data-parallel group: memory only, their traffic equals an AllReduce's
  // (Rajbhandari et al. 2020, section 7). 0 = none; zero3 means stage 3.
  int zeroStage = 0;
  // Hybrid sharding (HSDP; Megatron's distributed-optimizer instances): ZeRO
  // shards over groups of this many data-parallel NPUs (the inner ones), which
  // are replicated across the rest (docs/workloads.md section 2.14). 0 = over the
  // whole data-parallel group. Needs ZeRO 1-3 and EP 1.
  int shardGroup = 0;
  bool recompute = false;           // full activation recomputation
  bool selectiveRecompute = false;  // recompute the attention scores only (Korthikanti et al.)
  // How the run computes attention and dispatches experts (each preset's default is
  // what its published run used; a default-constructed Parallelism is the classic
  // Megatron-LM run: materialized scores, AllToAll dispatcher, random routing).
  AttentionKernel attention = AttentionKernel::Materialized;
  MoeDispatcher moeDispatcher = MoeDispatcher::AllToAll;
  MoeRouting moeRouting = MoeRouting::Random;
  Precision precision = Precision::Bf16;  // of the blocks' weight GEMMs
  // Optional hand-given group sizes per dimension (innermost first). Empty = automatic
  // mapping. When any is given, all axes with degree > 1 must be given; an empty
  // vector then means "not used" (all 1).
  std::vector<int> tpGroups, cpGroups, epGroups, ppGroups, dpGroups;
  const std::vector<int>& groupsOf(ParallelAxis axis) const;
  std::vector<int>& groupsOf(ParallelAxis axis);
  void clearGroups() {
    for (ParallelAxis axis : kParallelAxes) groupsOf(axis).clear();
  }

  // The degree of a mapping axis. For ParallelAxis::Expert that is the part of
  // the EP group outside the TP group: EP x ETP / TP (EP when ETP = TP).
  std::int64_t degree(ParallelAxis axis) const;
  int etp() const { return expertTp > 0 ? expertTp : tp; }
  // The ZeRO stage in force: 3 with zero3, else zeroStage.
  int zero() const { return zero3 ? 3 : zeroStage; }
  bool manual() const {
    return !tpGroups.empty() || !cpGroups.empty() || !epGroups.empty() || !ppGroups.empty() ||
           !dpGroups.empty();
  }
  // " (expert TP 1, EP 32 beyond TP)" when expert TP differs from TP, else empty.
  std::string expertLayoutText() const;
  // "TP 8 x PP 1 x DP 512" style label (CP, EP and PP only when > 1).
  std::string label() const;
  bool operator==(const Parallelism&) const = default;
};

// Fills in dp when it is 0 and checks tp * cp * ep * pp * dp == npus (in 64 bits,
// refusing products that overflow). Throws InputError naming the degrees and the
// NPU count.
Parallelism resolveDegrees(const Parallelism& parallelism, std::int64_t npus);

struct ParallelismMapping {
  // Group size per dimension for each axis, innermost first; indexed by ParallelAxis.
  std::array<std::vector<int>, kParallelAxes.size()> groups;

  const std::vector<int>& of(ParallelAxis axis) const { return groups[static_cast<int>(axis)]; }
  std::vector<int>& of(ParallelAxis axis) { return groups[static_cast<int>(axis)]; }
  const std::vector<int>& tensor() const { return of(ParallelAxis::Tensor); }
  const std::vector<int>& context() const { return of(ParallelAxis::Context); }
  const std::vector<int>& expert() const { return of(ParallelAxis::Expert); }
  const std::vector<int>& pipeline() const { return of(ParallelAxis::Pipeline); }
  const std::vector<int>& data() const { return of(ParallelAxis::Data); }
  // The NPUs that hold the same shard of a non-expert weight: context x expert x
  // data per dimension. Non-expert gradients are reduced over this group.
  std::vector<int> denseData() const;
  // The NPUs that hold the same shard of an expert's weights: context x data
  // (Megatron-LM's data-parallel group with CP). Expert gradients are reduced there.
  std::vector<int> expertData() const;
  // How far apart the NPUs of one group of `axis` are on each dimension: on a
  // dimension that several axes share, TP takes consecutive NPUs, then EP, PP
  // and DP each interleave over the ones inside it (stride = the product of
  // the inner axes' group sizes there). Empty when every stride is 1.
  std::vector<int> strides(ParallelAxis axis) const;
  // The same for the dense data-parallel group (CP x EP x DP): on each dimension
  // the stride of its innermost axis there. (Where PP lies between them on one
  // dimension the union is not evenly spaced; it is charged as groups of that
  // stride.)
  std::vector<int> denseDataStrides() const;
  std::vector<int> expertDataStrides() const;  // the same for CP x DP
  // The group of the union of `axes` (a set of axisBit values): per dimension the
  // product of their group sizes, and the stride of the innermost of them with a
  // group there (empty when every stride is 1). The groups above are such unions.
  std::vector<int> unionGroups(unsigned axes) const;
  std::vector<int> unionStrides(unsigned axes) const;
  // Megatron-Core's MoE layout with expert TP `etp` (a divisor of TP; section 2.5):
  // the expert-TP group is the TP group's inner `etp` NPUs, the expert-parallel
  // group its outer TP / etp NPUs together with the expert axis. With etp = TP
  // these are the TP group and the expert axis. Strides as strides(axis) gives
  // them (empty when all 1).
  struct ExpertGroups {
    std::vector<int> tensor, tensorStrides, expert, expertStrides;
  };
  ExpertGroups expertGroups(int etp) const;
  // The transformer communicator: forward and input gradient over the TP group,
  // weight gradient over the dense data-parallel group, with their strides.
  Communicator communicator() const;

  bool operator==(const ParallelismMapping&) const = default;
};

// A group (sizes and strides per dimension, innermost first; empty strides = 1)
// split for hybrid sharding: `inner` NPUs taken from the inside out (whole
// dimensions while the remaining count is a multiple of the group's size there,
// then a divisor of it), and the rest, which strides over them. Throws InputError
// when `inner` cannot be formed that way.
struct GroupSplit {
  std::vector<int> inner, innerStrides;
  std::vector<int> outer, outerStrides;
};
// `what` and `whole` name the two groups in the message ("a shard group", "the
// data-parallel group").
GroupSplit splitGroup(const std::vector<int>& groups, const std::vector<int>& strides, int inner,
                      std::string_view what = "a shard group",
                      std::string_view whole = "the data-parallel group");

// Maps the (resolved or unresolved) degrees onto the network, automatically or
// from the hand-given groups. Throws InputError naming the axis, its degree and
// the dimension when the degrees do not fit.
ParallelismMapping mapParallelism(const Network& network, const Parallelism& parallelism);

// "[16, 8, -1]"-style text of a group vector (1 printed as -1, as the reference files do).
std::string formatGroups(const std::vector<int>& groups);

}  // namespace libra
