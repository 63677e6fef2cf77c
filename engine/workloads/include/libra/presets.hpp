// Workload presets: models described by their hyperparameters, devices described
// by their peak throughput, and the generators that turn a model, a
// parallelization and a device into a Workload (layers, collectives, compute
// times) for a given network.
//
// Every formula (FLOPs, parameter counts, collective sizes, where each collective
// sits) and the source of every preset's numbers is in docs/workloads.md.
//
// Units: sizes in bytes, times in ns, FLOP/s and bytes/s for devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "libra/cost.hpp"
#include "libra/mapping.hpp"
#include "libra/network.hpp"
#include "libra/problem.hpp"
#include "libra/workload.hpp"

namespace libra {

// ---------------------------------------------------------------------------------
// Devices

enum class ModelFamily { Transformer, MixtureOfExperts, Cnn, Dlrm };
std::string_view toString(ModelFamily family);  // "transformer", "moe", "cnn", "dlrm"

// How fast a device computes (docs/workloads.md section 2.8): compute_ns = FLOPs /
// (peak x efficiency x utilization of the workload's family) x 1e9. `efficiency`
// is a kernel-level figure of the device (the achieved fraction of the dense peak
// in large matrix multiplications, measured); the utilizations say how much of
// that matmul rate a training step's kernels sustain for each kind of model
// (calibrated against published runs, section 2.11, or stated by the user,
// GeneratorOptions::utilization). Communication, pipeline bubbles and
// recomputation are modelled separately and are not in either. FP8 GEMMs
// (Precision::Fp8, section 2.13) run at the FP8 peak times the FP8 efficiency.
struct Device {
  std::string id;              // e.g. "h100"
  std::string name;            // e.g. "NVIDIA H100 SXM5"
  double peakFlops = 0;        // FLOP/s at `precision`, dense (no structured sparsity)
  std::string precision;       // e.g. "BF16 dense"
  double memoryBandwidth = 0;  // HBM bytes/s; 0 = unknown (memory-bound lookups cost 0 ns)
  double memoryBytes = 0;      // HBM capacity in bytes; 0 = unknown (no memory check)
  double efficiency = 1.0;  // achieved fraction of the peak in large dense matmuls (kernel level)
  // Fraction of the matmul rate sustained by a training step's kernels, per family.
  double transformerUtilization = 1.0;  // dense and mixture-of-experts transformers
  double cnnUtilization = 1.0;
  double dlrmUtilization = 1.0;
  std::string source;            // where the peak and memory numbers come from (URL)
  std::string efficiencySource;  // where the efficiency and utilizations come from
  double listPriceUsd = 0;       // price of one device, $; 0 = unknown (cost scope "system")
  std::string priceSource;       // where the price comes from
  double peakFp8Flops = 0;       // dense FP8 FLOP/s; 0 = the device has no FP8 matmuls
  double fp8Efficiency = 0;      // achieved fraction of the FP8 peak; 0 = `efficiency`
  std::string fp8Source;         // where the FP8 peak and efficiency come from

  double utilization(ModelFamily family) const;
  bool hasFp8() const { return peakFp8Flops > 0; }
  // FLOP/s a training step of `family` sustains in GEMMs of `precision`: peak x
  // efficiency x utilization (FP8: the FP8 peak and efficiency).
  double achievedFlops(ModelFamily family, Precision precision = Precision::Bf16) const;
  // ns for `flops` floating-point operations of a `family` workload at the
  // sustained rate.
  double computeNs(double flops, ModelFamily family, Precision precision = Precision::Bf16) const {
    return flops / achievedFlops(family, precision) * 1e9;
  }
  // ns to move `bytes` to or from device memory at its bandwidth (0 when unknown).
  double memoryNs(double bytes) const {
    return memoryBandwidth > 0 ? bytes / memoryBandwidth * 1e9 : 0.0;
  }
  // The roofline of one kernel that computes `flops` and moves `bytes` through device
  // memory: max(computeNs, memoryNs) (docs/workloads.md section 2.8). The only place
  // the generator turns FLOPs and bytes into time.
  double kernelNs(double flops, double bytes, ModelFamily family,
                  Precision precision = Precision::Bf16) const {
    const double compute = computeNs(flops, family, precision);
    const double memory = memoryNs(bytes);
    return compute > memory ? compute : memory;
  }
  // The device with every family's utilization set to `utilization` (a stated
  // efficiency of the user's software stack, section 2.11).
  Device withUtilization(double utilization) const;
  // Throws InputError when the numbers are not positive and finite, an efficiency or
  // a utilization not in (0, 1], or the list price is negative or not finite.
  void validate() const;
  bool operator==(const Device&) const = default;
};

// H100, B200, MI300X, TPU v5p, A100, H200, H800, GB200, B300, MI325X, MI355X, TPU v4
// (published peaks, measured or assumed matmul efficiency,
// calibrated utilizations) and "libra-reference", the rate the reference workload
// files imply (efficiency and utilizations 1).
const std::vector<Device>& devices();
// Throws InputError listing the known ids when `id` is unknown (case-insensitive).
const Device& findDevice(std::string_view id);

// ---------------------------------------------------------------------------------
// Models

// The attention of one block (docs/workloads.md section 2.1): the weights of its
// four projection lines (whole model, before any split) and the widths its score
// products run at.
struct AttentionShape {
  double q = 0;  // query projection (with MLA: down- and up-projection)
  double k =
      0;  // key projection (MLA: the joint KV down-projection, rotary key, key up-projection)
  double v = 0;        // value projection (MLA: value up-projection)
  double out = 0;      // output projection
  double qkWidth = 0;  // heads x query/key head dim: Q K^T costs 2 T s qkWidth FLOP
  double vWidth = 0;   // heads x value head dim: the scores times V cost 2 T s vWidth FLOP
  // Keys and values per token as the attention kernel reads them: 2 x KV heads x head
  // dim (MLA: the expanded per-head keys and values, qkWidth + vWidth). What
  // context parallelism exchanges (section 2.15).
  double kvWidth = 0;
  double weights() const { return q + k + v + out; }
};

// The weights of one transformer block by kind (whole model, before any split;
// biases and normalization weights are not counted), section 2.2.
struct BlockWeights {
  double attention = 0;      // the four projections (split over TP)
  double mlp = 0;            // the dense MLP, or a MoE block's shared experts (split over TP)
  double router = 0;         // h x E of a MoE block (replicated over TP)
  double experts = 0;        // all E routed experts (split over EP and TP)
  double activeExperts = 0;  // the k routed experts one token passes through
  double total() const { return attention + mlp + router + experts; }
  double active() const { return attention + mlp + router + activeExperts; }
};

// A decoder-only transformer; with experts > 0 every block after the first
// `denseLayers` has a mixture-of-experts MLP.
struct TransformerConfig {
  int layers = 0;               // L, transformer blocks
  int hidden = 0;               // h
  int ffn = 0;                  // f, MLP inner size of a dense block
  int heads = 0;                // a, attention heads
  int kvHeads = 0;              // grouped-query attention: key/value heads; 0 = heads (multi-head)
  int headDim = 0;              // per-head query/key/value width; 0 = h / a
  int vocab = 0;                // V, 0 = no embedding / output layers
  bool gatedMlp = false;        // SwiGLU-style MLP: three h x f matrices instead of two
  bool tiedEmbeddings = false;  // output layer shares the input embedding's weights
  int experts = 0;              // E routed experts, 0 = dense
  int topK = 0;                 // k routed experts per token
  int expertFfn = 0;            // inner size of one expert; 0 = ffn
  int sharedExperts = 0;        // experts every token passes through, each of expertFfn
  int denseLayers = 0;  // the first blocks keep a dense MLP of ffn (DeepSeek's first_k_dense)
  // Node-limited routing: a token's k routed experts lie on at most this many nodes
  // (DeepSeek-V3: 4, arXiv:2412.19437 section 2.1.2); 0 = no limit.
  int nodeLimit = 0;
  // Multi-head latent attention (DeepSeek-V2/V3); kvLoraRank > 0 turns it on.
  int qLoraRank = 0;      // query compression; 0 = queries projected from h directly
  int kvLoraRank = 0;     // joint key/value compression
  int qkNopeHeadDim = 0;  // per-head query/key dim without rotary embedding
  int qkRopeHeadDim = 0;  // per-head dim of the decoupled rotary query/key
  int vHeadDim = 0;       // per-head value dim

  bool mla() const { return kvLoraRank > 0; }
  double headWidth() const { return headDim > 0 ? headDim : static_cast<double>(hidden) / heads; }
  double mlpMatrices() const { return gatedMlp ? 3.0 : 2.0; }
  double expertWidth() const { return expertFfn > 0 ? expertFfn : ffn; }
  // Whether block `block` (1-based, counted over the whole model) is a MoE block.
  bool moeBlock(int block) const { return experts > 0 && block > denseLayers; }
  bool moe() const { return experts > 0; }
  AttentionShape attention() const;
  BlockWeights weights(int block) const;

  bool operator==(const TransformerConfig&) const = default;
};

// One convolution (or fully connected layer: kernel 1, outputSize 1) of a CNN.
struct ConvLayer {
  std::string name;
  int inChannels = 0;
  int outChannels = 0;
  int kernel = 1;      // k x k
  int outputSize = 1;  // output feature map is outputSize x outputSize

  bool operator==(const ConvLayer&) const = default;
};

struct CnnConfig {
  std::vector<ConvLayer> layers;  // in forward order

  bool operator==(const CnnConfig&) const = default;
};

// Deep Learning Recommendation Model (Naumov et al. 2019): dense features through a
// bottom MLP, sparse features through embedding tables sharded over all NPUs
// (model parallel), pairwise dot-product interaction, top MLP (data parallel).
struct DlrmConfig {
  int denseFeatures = 0;       // input width of the bottom MLP
  std::vector<int> bottomMlp;  // output width of each bottom layer
  std::vector<int> topMlp;     // output width of each top layer
  int tables = 0;              // embedding tables (one lookup each per sample)
  int embeddingDim = 0;
  int interactionWidth = 0;  // top MLP input; 0 = bottom output + C(tables + 1, 2)
  // Rows of each embedding table, one entry per table; empty = not published (then
  // the tables' weights and memory are unknown).
  std::vector<std::int64_t> tableRows;

  // Pairwise dot products of the tables' vectors and the bottom MLP's output.
  double pairs() const { return (tables + 1.0) * tables / 2; }
  // The widths of the bottom (or top) MLP, its input first.
  std::vector<double> widths(bool bottom) const;
  double mlpWeights() const;
  double tableWeights() const;  // sum of rows x dim; 0 when the rows are unknown

  bool operator==(const DlrmConfig&) const = default;
};

// How many bytes of optimizer state a weight needs (memory, docs/workloads.md
// section 2.10): Adam keeps momentum and variance, SGD (without momentum) none;
// both keep an fp32 master copy of 16-bit weights.
enum class Optimizer { Adam, Sgd };
std::string_view toString(Optimizer optimizer);  // "adam", "sgd"

struct Preset {
  std::string id;      // e.g. "gpt3-175b"
  std::string name;    // e.g. "GPT-3 175B"
  std::string source;  // paper / model card the hyperparameters come from
  std::string notes;   // assumptions beyond the source
  std::variant<TransformerConfig, CnnConfig, DlrmConfig> model;
  int sequenceLength = 1;  // tokens per sample (transformers); 1 otherwise
  // Samples (sequences) per training iteration, the published global batch
  // (planBatch; docs/workloads.md section 2.4).
  std::int64_t globalBatch = 1;
  // Samples per micro-batch when none is given (Megatron-LM's 1 for large
  // transformers): the rest of a replica's share is gradient accumulation.
  int microBatch = 1;
  // The per-NPU micro-batch of the LIBRA reference workload files, used by the
  // Libra layout when no global batch is given (section 4).
  int referenceMicroBatch = 1;
  // Tokens (samples for CNN and DLRM) of a published training run, for the time
  // to train; 0 = none published.
  double trainTokens = 0;
  int bytesPerElement = 2;  // activations, weights and gradients on the wire (2 = BF16)
  Optimizer optimizer = Optimizer::Adam;  // of the published training recipe
  Parallelism defaults;                   // parallelism used when the caller gives none

  ModelFamily family() const;
  // Weights of the whole model (biases and normalization weights not counted;
  // DLRM: MLPs and, when their rows are known, the embedding tables).
  double parameterCount() const;
  // The weights one token (sample) uses: a transformer's blocks with k of their E
  // routed experts, and the embedding and output layers ("activated parameters");
  // parameterCount() for CNN and DLRM.
  double activeParameterCount() const;
  // Throws InputError naming the preset and the bad hyperparameter.
  void validate() const;
  bool operator==(const Preset&) const = default;
};

// The built-in presets: turing-nlg-17b, gpt3-175b, msft-1t, llama3-70b,
// llama3-405b, mixtral-8x22b, resnet50, dlrm-mlperf, dlrm-libra.
const std::vector<Preset>& presets();
// Throws InputError listing the known ids when `id` is unknown (case-insensitive).
const Preset& findPreset(std::string_view id);
// Hyperparameters as (key, value) text, for listings.
std::vector<std::pair<std::string, std::string>> describe(const Preset& preset);

// Where the k routed copies of one token land (docs/workloads.md section 2.5): the
// expected number of distinct NPUs and of distinct nodes among an expert-parallel
// group of `nodes` nodes of `npusPerNode` NPUs each (E / EP experts per NPU, placed in
// order: NPU r holds experts r E / EP .. (r + 1) E / EP - 1, node j the NPUs
// j npusPerNode ..).
struct ExpertSpread {
  double npus = 0;   // distinct NPUs a token is sent to (at most k)
  double nodes = 0;  // distinct nodes among them (at most k, and the preset's node limit)
};
// Random routing, k distinct experts uniformly at random: a set of K of the E
// experts is missed with probability C(E - K, k) / C(E, k), so the expected distinct
// units of K experts each are units x (1 - C(E - K, k) / C(E, k)); with a node limit M
// < nodes the token first picks M nodes (nodes = min(M, the unlimited expectation))
// and its experts among their M E / nodes. Contiguous routing: the exact average over
// the tokens i = 0 .. E / gcd(E, k) - 1 of experts i k + j mod E. Throws InputError
// when the experts do not split evenly (EP must divide E).
ExpertSpread expertSpread(const TransformerConfig& model, MoeRouting routing, int npusPerNode,
                          int nodes);

// ---------------------------------------------------------------------------------
// Generation

enum class WorkloadLayout {
  // Megatron-LM style: TP collectives only when tp > 1, one gradient collective per
  // transformer block (bucketed for CNN / DLRM), embedding and output layers.
  Megatron,
  // The reference LIBRA files' layout: the whole gradient collective on the first
  // layer's weight-gradient phase, TP collectives written even when tp = 1, the
  // reference's extra input-gradient AllGather on the attention output, no
  // embedding or output layers. With blocks = 2 and the reference tokens per
  // micro-batch it reproduces the reference files' collective sizes.
  Libra,
};
std::string_view toString(WorkloadLayout layout);  // "megatron", "libra"
std::optional<WorkloadLayout> parseWorkloadLayout(std::string_view text);

struct GeneratorOptions {
  WorkloadLayout layout = WorkloadLayout::Megatron;
  int blocks = 0;  // transformer blocks written; 0 = all of the pipeline stage's
  // The batch (planBatch): samples per iteration, per micro-batch of one
  // data-parallel replica, and micro-batches per iteration; 0 = the preset's
  // global batch, and micro-batch and count derived from it.
  std::int64_t globalBatch = 0;
  std::int64_t microBatch = 0;
  std::int64_t microBatches = 0;
  int sequenceLength = 0;  // overrides the preset's sequence length when > 0
  // Interleaved 1F1B (Narayanan et al., SC'21, section 2.2.2): each pipeline stage
  // holds v model chunks of blocks / v blocks; 0 or 1 = the plain 1F1B schedule.
  // v must divide the stage's blocks and needs PP > 1.
  int virtualStages = 0;
  // Tokens (samples) to train for, recorded with the workload for the time to
  // train; 0 = the preset's.
  double trainTokens = 0;
  // The share of the matmul rate a training step sustains, for every family (a
  // user's stated efficiency of their software stack, section 2.11); 0 = the
  // device's calibrated utilizations (fitted on Megatron-LM / NeMo runs).
  double utilization = 0;
  // Data-parallel gradient bucket of CNN and DLRM workloads in the Megatron layout
  // (PyTorch DDP's default bucket_cap_mb = 25).
  double bucketBytes = 25.0 * 1024 * 1024;

  bool operator==(const GeneratorOptions&) const = default;
};

// The work of one iteration (docs/workloads.md section 2.4): the global batch B
// is split over R data-parallel replicas (DP x EP for transformers, DP for
// CNN and DLRM) as B = b x m x R, b samples per micro-batch, m micro-batches.
struct BatchPlan {
  std::int64_t globalBatch = 0;   // B, samples (sequences) per iteration
  std::int64_t microBatch = 0;    // b, samples per micro-batch of one replica
  std::int64_t microBatches = 0;  // m, micro-batches per iteration (gradient accumulation)
  std::int64_t replicas = 1;      // R
  int sequenceLength = 1;         // tokens per sample (1 for CNN and DLRM)

  double tokensPerIteration() const { return static_cast<double>(globalBatch) * sequenceLength; }
  double tokensPerMicroBatch() const { return static_cast<double>(microBatch) * sequenceLength; }
  bool operator==(const BatchPlan&) const = default;
};
// R: the data-parallel replicas the batch is split over (`resolved` has dp > 0).
std::int64_t batchReplicas(const Preset& preset, const Parallelism& resolved);
// B from the options or the preset; b and m from the options, else derived:
// b = the largest divisor of B / R not above the preset's micro-batch and
// m = B / (R b). (Without pipeline parallelism the generator writes the m
// micro-batches as one pass of B / R samples: the same time, section 2.4.) The Libra layout without
// a global batch keeps the reference files' micro-batch per NPU (B = b x m x R). Throws InputError
// naming the numbers when they do not combine (B not a multiple of R, b not dividing B / R, b x m x
// R != B).
BatchPlan planBatch(const Preset& preset, const Parallelism& resolved,
                    const GeneratorOptions& options);

// Generates the workload of one NPU for one training iteration. Maps the
// parallelism onto the network (mapParallelism), writes Phase::groups where a
// collective runs over another group than the communicator's, and records the
// preset, device and parameters in Workload::origin. Throws InputError when the
// preset, device, options or parallelism are invalid or do not fit the network.
Workload generateWorkload(const Preset& preset, const Parallelism& parallelism,
                          const Device& device, const Network& network,
                          const GeneratorOptions& options = {});

// The tally of generateWorkload's workload (the same numbers, summed).
WorkloadTally tallyWorkload(const Preset& preset, const Parallelism& parallelism,
                            const Device& device, const Network& network,
                            const GeneratorOptions& options = {});

// A tally whose collectives name the parallel axes they run over (a set of
// axisBit values) instead of groups per dimension. Traffic depends on where the
// groups lie only through those groups, so one execution has one, and every
// placement of it on every network is placeTally of it (the execution search
// tallies an execution once, not once per placement and shape).
struct AxisTally {
  struct Collective {
    CollectiveType type = CollectiveType::None;
    double bytes = 0;
    unsigned axes = 0;
    double count = 0;
  };
  double computeNs = 0;
  std::vector<Collective> collectives;
};

// A network of one Switch per parallel axis of degree 2 or more (innermost
// first), each holding that axis's groups: where a workload of the degrees can be
// generated without a real network (its compute does not depend on one).
Network axesNetwork(const Parallelism& degrees);

// The axis tally of `parallelism`'s resolved degrees (dp > 0; groups ignored), or
// nullopt where the bytes themselves depend on the placement: DeepEP's dispatch
// (copies per node), hybrid sharding (the shard group's split), the Libra layout.
// Throws InputError as tallyWorkload does.
std::optional<AxisTally> tallyByAxes(const Preset& preset, const Parallelism& parallelism,
                                     const Device& device, const GeneratorOptions& options = {});

// The tally of the placement `placed` (its mapping on a network): equal to
// tallyWorkload with that placement.
WorkloadTally placeTally(const AxisTally& tally, const ParallelismMapping& placed);

// What a workload was generated from, read back from Workload::origin.
struct PresetChoice {
  std::string preset;
  std::string model;  // WorkloadOrigin::model: the model file of a model not built in
  std::string device;
  Parallelism parallelism;
  GeneratorOptions generator;
};
std::optional<PresetChoice> presetChoiceOf(const Workload& workload);
// The model a choice was generated from: its stored model file, else the
// built-in preset of its id. Throws InputError when neither can be read.
Preset modelOf(const PresetChoice& choice);
// Regenerates a preset workload for `network` (after the network changed), with the
// data-parallel degree derived again and its weight kept. Returns false and leaves
// it unchanged when the workload has no origin or its parallelization no longer
// fits (then `error`, when given, says why).
bool regenerateForNetwork(Workload& workload, const Network& network, std::string* error = nullptr);

}  // namespace libra
