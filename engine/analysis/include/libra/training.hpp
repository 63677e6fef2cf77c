// What a design means for training: the work of an iteration, throughput,
// model FLOPs utilization, time to train, the pipeline bubble and the memory
// one NPU needs. Everything here is computed from a preset workload's origin
// (presets.hpp); analyze() and the sweep report it for every design. Formulas and
// sources: docs/workloads.md sections 2.4, 2.9 and 2.10.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "libra/presets.hpp"
#include "libra/project.hpp"

namespace libra {

// --- model FLOPs ---------------------------------------------------------------
// Model FLOPs of one sample (sequence) in one training iteration: forward and
// backward, no recomputation (the "model FLOPs" of MFU). Transformers, per token
// (Korthikanti et al., arXiv:2205.05198, section 6.3, generalized to grouped-query
// attention, gated MLPs and experts): 6 N_active + 12 L s h, with N_active the
// weights of the GEMMs a token passes through (k experts of a mixture, the output
// layer; not the embedding lookup) and the attention scores uncausal (Megatron's
// convention). CNN and DLRM: the FLOPs the generator charges per sample.
double modelFlopsPerSample(const Preset& preset, int sequenceLength);

// --- pipeline ------------------------------------------------------------------
// Idle time of the 1F1B schedule as a fraction of the ideal time of m
// micro-batches: (p - 1) / m, and (p - 1) / (v m) interleaved with v model chunks
// per stage (Narayanan et al., arXiv:2104.04473, section 2.2). 0 without pipeline.
double pipelineBubble(int stages, std::int64_t microBatches, int virtualStages = 1);

// --- memory --------------------------------------------------------------------
// Bytes of the model states of `params` weights replicated over `replicas`
// data-parallel ranks, trained with Adam in mixed precision (Rajbhandari et al.,
// arXiv:1910.02054, section 3.1): 2 bytes of weights, 2 of gradients, 12 of
// optimizer state (fp32 master copy, momentum, variance) per weight; with 4-byte
// (fp32) training 4 + 4 + 8. SGD without momentum keeps no state but the fp32
// master copy of 16-bit weights (4 bytes; none in fp32). ZeRO stage 1 divides the
// optimizer state by `replicas`, stage 2 the gradients too, stage 3 the weights too.
struct ModelStates {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double total() const { return weights + gradients + optimizer; }
};
ModelStates modelStateBytes(double params, double replicas, int zeroStage, int bytesPerElement,
                            Optimizer optimizer = Optimizer::Adam);

// Activation bytes transformer block `block` (1-based, over the whole model: it
// says whether the block is dense or a mixture of experts) keeps for the backward
// pass, for one micro-batch of `microBatch` sequences (Korthikanti et al., Table 2,
// generalized to grouped-query and latent attention, gated MLPs and experts;
// docs/workloads.md 2.10).
double activationBytesPerLayer(const TransformerConfig& model, double sequenceLength,
                               double microBatch, const Parallelism& resolved, int block = 1);

struct MemoryUse {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  std::string where;  // which NPU: "every NPU", "pipeline stage 1 of 8", ...
  double total() const { return weights + gradients + optimizer + activations; }
};

struct MemoryEstimate {
  std::optional<MemoryUse> use;  // nullopt when it cannot be estimated (see note)
  double capacityBytes = 0;      // the device's; 0 = unknown
  std::string note;              // why there is no estimate or no capacity
  // True unless both are known and the use exceeds the capacity.
  bool fits() const { return !use || capacityBytes <= 0 || use->total() <= capacityBytes; }
  // "174.6 GB per NPU (weights 21.8, gradients 21.8, optimizer 131.0, activations
  // 0.4 GB) against 80 GB of HBM": the numbers a refusal names.
  std::string describe() const;
};

// Micro-batches of a whole stage's activations that pipeline stage `stage` (0 =
// the first) of `stages` keeps in flight with m micro-batches: min(p - stage, m)
// under 1F1B; with v > 1 virtual stages (interleaved 1F1B, Megatron-LM's schedule)
// min(2 (p - stage - 1) + (v - 1) p + 1, m v) chunks of 1 / v of the stage, so the
// first stage holds p + (p - 1) / v micro-batches of its layers, i.e. the L (1 +
// (p - 1) / (p v)) layers of Korthikanti et al., arXiv:2205.05198, section 4.2.3.
double microBatchesInFlight(int stages, int stage, std::int64_t microBatches,
                            int virtualStages = 1);

// The memory of the most loaded NPU. DLRM: the MLPs' states, data parallel, and the
// embedding tables placed whole (largest first, on the least loaded NPU) with the
// sparse gradient of their looked-up rows; unknown when the table rows are. With
// pipeline parallelism the first stage
// keeps microBatchesInFlight(p, 0, m, v) micro-batches of activations and the
// embedding, the last microBatchesInFlight(p, p - 1, m, v) (1 under 1F1B), the output
// layer and its fp32 logits; the larger wins.
MemoryEstimate estimateMemory(const Preset& preset, const Parallelism& resolved,
                              const BatchPlan& batch, const Device& device, int virtualStages = 1);

// --- what a project's workload means for training -------------------------------
struct TrainingFacts {
  // Tokens (sequences x sequence length; samples for CNN and DLRM) per iteration,
  // and model FLOPs per iteration; nullopt with `note` saying why.
  std::optional<double> tokensPerIteration;
  std::optional<double> samplesPerIteration;
  std::optional<double> modelFlopsPerIteration;
  std::optional<double> trainTokens;  // token budget; nullopt: none (trainNote says why)
  std::optional<BatchPlan> batch;
  std::optional<double> pipelineBubble;  // of the schedule written (pipelineBubble)
  std::int64_t npus = 0;
  double peakFlops = 0;  // dense peak of the device, FLOP/s; 0 = unknown
  double weight = 1;     // the workload's weight: its iteration is T / weight
  std::string note;      // why the throughput numbers are missing
  std::string trainNote;
  MemoryEstimate memory;
};

// Reads the (single) preset workload of `project`. Never throws: what cannot be
// known is nullopt with a note (an imported workload, several workloads, a
// workload of fewer blocks than its stage holds, an unknown preset).
TrainingFacts trainingFacts(const Project& project);

// The throughput of a design with iteration time `iterationNs` (of the project's
// workload): nullopt where a fact or the time is missing or not finite.
struct Throughput {
  std::optional<double> tokensPerSecond;
  std::optional<double> modelTflopsPerNpu;  // model FLOP/s per NPU / 10^12
  std::optional<double> mfu;                // model FLOP/s per NPU / dense peak
  std::optional<double> timeToTrainS;       // trainTokens / tokensPerSecond
};
Throughput throughputAt(const TrainingFacts& facts, double iterationNs);

}  // namespace libra
