// Throughput, model FLOPs, pipeline bubble and memory of preset workloads. The
// formulas and their sources are in docs/workloads.md (sections 2.4, 2.9, 2.10).
#include "libra/training.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <iterator>
#include <variant>
#include <vector>

#include "libra/display_text.hpp"
#include "libra/error.hpp"

namespace libra {

namespace {

bool finitePositive(double v) {
  return std::isfinite(v) && v > 0;
}

std::string gigabytes(double bytes) {
  return formatFixed(bytes / 1e9, 1);
}

}  // namespace

// --- model FLOPs -------------------------------------------------------------------

double modelFlopsPerSample(const Preset& preset, int sequenceLength) {
  const double s = sequenceLength;
  if (const auto* m = std::get_if<TransformerConfig>(&preset.model)) {
    // Per token: 6 x the GEMM weights it passes through (k of E routed experts, the
    // output layer), and per layer 6 s (qkWidth + vWidth) for the two score products
    // (12 s h for multi-head attention).
    const AttentionShape a = m->attention();
    double active = static_cast<double>(m->vocab) * m->hidden;
    for (int i = 1; i <= m->layers; ++i) active += m->weights(i).active();
    return (6 * active + 6.0 * m->layers * s * (a.qkWidth + a.vWidth)) * s;
  }
  if (const auto* c = std::get_if<CnnConfig>(&preset.model)) {
    double flops = 0;
    for (std::size_t i = 0; i < c->layers.size(); ++i) {
      const ConvLayer& l = c->layers[i];
      const double forward =
          2.0 * l.inChannels * l.outChannels * l.kernel * l.kernel * l.outputSize * l.outputSize;
      flops += forward * (i == 0 ? 2 : 3);  // the first layer has no input gradient
    }
    return flops;
  }
  const auto& d = std::get<DlrmConfig>(preset.model);
  double flops = 0;
  flops += 6 * d.mlpWeights();
  flops += 6 * d.pairs() * d.embeddingDim;  // interaction: forward 2 pairs dim, backward twice
  return flops;
}

// --- pipeline ----------------------------------------------------------------------

double pipelineBubble(int stages, std::int64_t microBatches, int virtualStages) {
  if (stages <= 1 || microBatches < 1 || virtualStages < 1) return 0;
  return (stages - 1.0) / (static_cast<double>(virtualStages) * static_cast<double>(microBatches));
}

// --- memory ------------------------------------------------------------------------

ModelStates modelStateBytes(double params, double replicas, int zeroStage, int bytesPerElement,
                            Optimizer optimizer) {
  const double r = replicas >= 1 ? replicas : 1;
  ModelStates s;
  s.weights = params * bytesPerElement;
  s.gradients = params * bytesPerElement;
  // Adam's momentum and variance in fp32 (SGD: none), plus an fp32 master copy when
  // the weights themselves are 16-bit.
  const double moments = optimizer == Optimizer::Adam ? 8.0 : 0.0;
  s.optimizer = params * (moments + (bytesPerElement < 4 ? 4.0 : 0.0));
  if (zeroStage >= 1) s.optimizer /= r;
  if (zeroStage >= 2) s.gradients /= r;
  if (zeroStage >= 3) s.weights /= r;
  return s;
}

double activationBytesPerLayer(const TransformerConfig& m, double sequenceLength, double microBatch,
                               const Parallelism& p, int block) {
  // With context parallelism (section 2.15) a rank keeps the activations of its
  // s / CP tokens of each sequence; its attention scores are those of its queries
  // against all s keys.
  const double cp = std::max(1, p.cp);
  const double s = sequenceLength, b = microBatch, h = m.hidden, t = p.tp;
  const double sb = s * b / cp;
  if (p.recompute) {
    // Only each layer's input is kept (2 bytes per element); with sequence
    // parallelism it is the sequence shard.
    return 2 * sb * h / (p.sequenceParallel ? t : 1.0);
  }
  // Korthikanti et al., section 4.1, term by term (16-bit values, 1-byte masks):
  // `replicated` is what tensor parallelism does not split (layer-norm inputs and
  // outputs, dropout masks), `split` what it does, `scores` the attention matrices.
  // Q, K and V are qkWidth, qkWidth and vWidth wide (h, h_kv, h_kv for grouped-query
  // attention); latent attention also keeps its compressed queries and keys.
  const AttentionShape a = m.attention();
  const double kWidth = m.mla() ? a.qkWidth : a.k / h;
  const double vWidth = m.mla() ? a.vWidth : a.v / h;
  double replicated = 4 * sb * h                         // two layer norms
                      + 2 * sb * h + sb * h;             // QKV input, attention dropout mask
  double split = 2 * sb * (a.qkWidth + kWidth + vWidth)  // Q, K and V
                 + 2 * sb * a.vWidth;                    // projection input
  if (m.mla()) replicated += 2 * sb * (m.qLoraRank + m.kvLoraRank + m.qkRopeHeadDim);
  // FP8 (section 2.13): the inputs the blocks' linear layers keep for their
  // weight gradients are stored as 1-byte values, so half of each 16-bit term.
  const bool fp8 = p.precision == Precision::Fp8;
  if (fp8) {
    replicated -= sb * h;    // QKV input
    split -= sb * a.vWidth;  // projection input
    if (m.mla()) replicated -= sb * (m.qLoraRank + m.kvLoraRank);
  }
  // The routed experts' inputs: after the dispatch's expert-TP AllGather a rank
  // keeps its expert-TP group's share ETP / TP of the k copies of the TP group's
  // tokens (section 2.5), sequence parallel or not.
  double expertInputs = 0;
  if (m.moeBlock(block)) {
    // Router input and dropout mask; every token's hidden state goes to k routed
    // experts (and the shared ones), each of which keeps what a dense MLP of width
    // f_e keeps.
    replicated += 2 * sb * h + sb * h;
    expertInputs = m.topK * (fp8 ? 1.0 : 2.0) * sb * h * p.etp() / t;
    split += (m.topK + m.sharedExperts) * 2 * sb * m.expertWidth() * m.mlpMatrices();
    if (fp8) split -= (m.topK + m.sharedExperts) * sb * m.expertWidth();  // down-proj. inputs
  } else {
    replicated += 2 * sb * h + sb * h;          // MLP input, dropout mask
    split += 2 * sb * m.ffn * m.mlpMatrices();  // up (and gate) outputs, down-projection input
    if (fp8) {
      replicated -= sb * h;  // MLP input
      split -= sb * m.ffn;   // down-projection input
    }
  }
  // Materialized scores keep the softmax, its mask and dropout (5 a s^2 b); a fused
  // kernel (FlashAttention) keeps only the softmax statistics, 4 a s b bytes (fp32).
  const double scores = p.attention == AttentionKernel::Fused
                            ? 4.0 * m.heads * sb
                            : (p.selectiveRecompute ? 0.0 : 5.0 * m.heads * sb * s);
  if (p.sequenceParallel) return (replicated + split + scores) / t + expertInputs;
  return replicated + (split + scores) / t + expertInputs;
}

std::string MemoryEstimate::describe() const {
  std::string out;
  if (!use) {
    out = "memory per NPU unknown";
  } else {
    out = gigabytes(use->total()) + " GB per NPU" +
          (use->where.empty() ? "" : " (" + use->where + ")") + ": weights " +
          gigabytes(use->weights) + ", gradients " + gigabytes(use->gradients) + ", optimizer " +
          gigabytes(use->optimizer) + ", activations " + gigabytes(use->activations) + " GB";
  }
  if (capacityBytes > 0) out += ", against " + gigabytes(capacityBytes) + " GB of device memory";
  return out;
}

double microBatchesInFlight(int stages, int stage, std::int64_t microBatches, int virtualStages) {
  const std::int64_t p = std::max(1, stages);
  const std::int64_t r = std::clamp<std::int64_t>(stage, 0, p - 1);
  const std::int64_t m = std::max<std::int64_t>(1, microBatches);
  const std::int64_t v = std::max(1, virtualStages);
  if (p == 1) return 1;
  if (v == 1) return static_cast<double>(std::min(p - r, m));  // 1F1B: p - r warm-up + 1
  // Interleaved: Megatron-LM's warm-up of 2 (p - r - 1) + (v - 1) p chunk forwards
  // (capped at the m v of the iteration), plus the one of the steady state; each
  // chunk holds 1 / v of the stage's layers.
  const std::int64_t chunks = std::min(2 * (p - r - 1) + (v - 1) * p + 1, m * v);
  return static_cast<double>(chunks) / static_cast<double>(v);
}

namespace {

// A transformer's most loaded NPU (section 2.10).
MemoryUse transformerMemory(const Preset& preset, const TransformerConfig* m, const Parallelism& p,
                            const BatchPlan& batch, int virtualStages) {
  const double b = static_cast<double>(batch.microBatch);
  const int zero = p.zero();
  const double h = m->hidden, t = p.tp;
  const int stages = std::max(1, p.pp);
  const int stageBlocks = (m->layers + stages - 1) / stages;
  const int ep = std::max(1, p.ep);
  const double et = p.etp();  // expert tensor parallel (section 2.5)
  const double vocab = static_cast<double>(m->vocab) * h / t;
  // ZeRO shards over the data-parallel group, or with hybrid sharding over its
  // shard group only (section 2.14; EP is 1 then).
  // The ranks of a context-parallel group hold the same weights (section 2.15).
  const double expertGroup = static_cast<double>(std::max(1, p.cp)) * static_cast<double>(p.dp);
  const double denseReplicas =
      p.shardGroup > 0 ? static_cast<double>(p.shardGroup)
                       : static_cast<double>(p.degree(ParallelAxis::Expert)) * expertGroup;
  const double expertReplicas = p.shardGroup > 0 ? static_cast<double>(p.shardGroup) : expertGroup;
  // The vocabulary-parallel cross entropy keeps its logits in fp32 (4 s b V / t),
  // of the rank's s / CP tokens.
  const double logits = 4.0 * batch.sequenceLength * b * m->vocab / t / std::max(1, p.cp);
  // The blocks first .. first + count - 1 (1-based, over the whole model) of a
  // stage that keeps `inFlight` micro-batches of their activations.
  auto stage = [&](int first, int count, double embeddingParams, double inFlight, double extra,
                   std::string where) {
    double denseParams = embeddingParams, expertParams = 0, activations = 0, fp8Dense = 0,
           fp8Experts = 0;
    for (int i = first; i < first + count; ++i) {
      const BlockWeights w = m->weights(i);
      denseParams += (w.attention + w.mlp) / t + w.router;
      // Each expert-parallel rank holds 1 / ETP of E / EP experts (EP divides E).
      expertParams += w.experts / ep / et;
      fp8Dense += (w.attention + w.mlp) / t;
      fp8Experts += w.experts / ep / et;
      activations += activationBytesPerLayer(*m, batch.sequenceLength, b, p, i);
    }
    MemoryUse u;
    const ModelStates d =
        modelStateBytes(denseParams, denseReplicas, zero, preset.bytesPerElement, preset.optimizer);
    const ModelStates x = modelStateBytes(expertParams, expertReplicas, zero,
                                          preset.bytesPerElement, preset.optimizer);
    u.weights = d.weights + x.weights;
    if (p.precision == Precision::Fp8) {
      // Transformer Engine keeps an FP8 copy of each linear layer's weights and of
      // their transpose across the micro-batches of a step (section 2.13): 2 bytes
      // per weight held, sharded as the weights are under ZeRO-3.
      const bool sharded = zero >= 3;
      u.weights += 2 * (fp8Dense / (sharded ? denseReplicas : 1.0) +
                        fp8Experts / (sharded ? expertReplicas : 1.0));
    }
    u.gradients = d.gradients + x.gradients;
    u.optimizer = d.optimizer + x.optimizer;
    u.activations = inFlight * activations + extra;
    u.where = std::move(where);
    return u;
  };
  if (stages == 1) {
    const double embeddings = m->vocab > 0 ? vocab * (m->tiedEmbeddings ? 1.0 : 2.0) : 0.0;
    return stage(1, m->layers, embeddings, 1, logits, "every NPU");
  } else {
    // Every stage is taken to hold ceil(L / PP) blocks (the most loaded one's): the
    // first stage the model's first blocks, the last stage its last ones.
    const std::int64_t micro = std::max<std::int64_t>(1, batch.microBatches);
    const MemoryUse first =
        stage(1, stageBlocks, vocab, microBatchesInFlight(stages, 0, micro, virtualStages), 0,
              "pipeline stage 1 of " + std::to_string(stages));
    const MemoryUse last =
        stage(std::max(1, m->layers - stageBlocks + 1), stageBlocks, vocab,
              microBatchesInFlight(stages, stages - 1, micro, virtualStages), logits,
              "pipeline stage " + std::to_string(stages) + " of " + std::to_string(stages));
    return first.total() >= last.total() ? first : last;
  }
}

MemoryUse cnnMemory(const Preset& preset, const CnnConfig* c, const Parallelism& p,
                    const BatchPlan& batch) {
  const double beta = preset.bytesPerElement;
  const double b = static_cast<double>(batch.microBatch);
  const int zero = p.zero();
  double params = 0, outputs = 0;
  for (const ConvLayer& l : c->layers) {
    params += static_cast<double>(l.inChannels) * l.outChannels * l.kernel * l.kernel;
    outputs += static_cast<double>(l.outChannels) * l.outputSize * l.outputSize;
  }
  const ModelStates st = modelStateBytes(params, static_cast<double>(p.dp), zero,
                                         preset.bytesPerElement, preset.optimizer);
  MemoryUse u;
  u.weights = st.weights;
  u.gradients = st.gradients;
  u.optimizer = st.optimizer;
  // Every convolution's output, kept for the backward pass (batch norm and ReLU
  // outputs are not counted: a lower bound).
  u.activations = outputs * b * beta;
  u.where = "every NPU";
  return u;
}

void dlrmMemory(const Preset& preset, const DlrmConfig& d, const Parallelism& p,
                const BatchPlan& batch, MemoryEstimate& e) {
  const double beta = preset.bytesPerElement;
  const double b = static_cast<double>(batch.microBatch);
  const int zero = p.zero();
  if (d.tableRows.empty()) {
    e.note = "preset '" + preset.id +
             "' does not give its embedding tables' rows, which hold most of a DLRM's memory, so "
             "its memory is not estimated";
    return;
  }
  // The MLPs are data parallel over every NPU (DP = N).
  const double npus = static_cast<double>(std::max<std::int64_t>(1, p.dp));
  const ModelStates mlp =
      modelStateBytes(d.mlpWeights(), npus, zero, preset.bytesPerElement, preset.optimizer);
  // The tables are model parallel, each held whole by one NPU (Naumov et al., section
  // 3): placed largest first on the least loaded NPU; the most loaded NPU is reported.
  std::vector<std::int64_t> rows = d.tableRows;
  std::sort(rows.begin(), rows.end(), std::greater<>());
  const std::size_t holders =
      static_cast<std::size_t>(std::min<double>(npus, static_cast<double>(rows.size())));
  std::vector<double> load(holders, 0.0);
  std::vector<std::vector<std::int64_t>> held(holders);
  for (std::int64_t r : rows) {
    const auto least = static_cast<std::size_t>(
        std::distance(load.begin(), std::min_element(load.begin(), load.end())));
    load[least] += static_cast<double>(r);
    held[least].push_back(r);
  }
  const auto most = static_cast<std::size_t>(
      std::distance(load.begin(), std::max_element(load.begin(), load.end())));
  // Every sample of the global batch looks up one row of each table: its gradient is
  // sparse, at most one row per lookup.
  const double lookups = b * npus;
  double touched = 0;
  for (std::int64_t r : held[most]) touched += std::min(static_cast<double>(r), lookups);
  const double tableWeights = load[most] * d.embeddingDim;
  const ModelStates tables =
      modelStateBytes(tableWeights, 1, 0, preset.bytesPerElement, preset.optimizer);
  MemoryUse u;
  u.weights = mlp.weights + tables.weights;
  u.gradients = mlp.gradients + touched * d.embeddingDim * beta;
  u.optimizer = mlp.optimizer + tables.optimizer;
  // Kept for the backward pass, per sample: every MLP layer's input, the looked-up
  // vectors and the bottom output, and the interaction's output.
  double kept = d.tables * static_cast<double>(d.embeddingDim);
  for (bool bottom : {true, false}) {
    const std::vector<double> w = d.widths(bottom);
    for (std::size_t i = 0; i + 1 < w.size(); ++i) kept += w[i];
  }
  u.activations = b * kept * beta;
  u.where = "the NPU with the most embedding rows (" + std::to_string(held[most].size()) +
            (held[most].size() == 1 ? " table" : " tables") + ")";
  e.use = u;
}

}  // namespace

MemoryEstimate estimateMemory(const Preset& preset, const Parallelism& p, const BatchPlan& batch,
                              const Device& device, int virtualStages) {
  MemoryEstimate e;
  e.capacityBytes = device.memoryBytes;
  if (!(device.memoryBytes > 0)) {
    e.note = "device '" + device.id + "' has no memory capacity, so none is checked";
  }
  if (const auto* m = std::get_if<TransformerConfig>(&preset.model)) {
    e.use = transformerMemory(preset, m, p, batch, virtualStages);
  } else if (const auto* c = std::get_if<CnnConfig>(&preset.model)) {
    e.use = cnnMemory(preset, c, p, batch);
  } else {
    dlrmMemory(preset, std::get<DlrmConfig>(preset.model), p, batch, e);
  }
  return e;
}

// --- facts of a project ------------------------------------------------------------

TrainingFacts trainingFacts(const Project& project) {
  TrainingFacts f;
  f.npus = project.network.npuCount();
  if (project.workloads.size() != 1) {
    f.note = "the project holds " + std::to_string(project.workloads.size()) +
             " workloads; tokens, throughput and memory are reported for one";
    f.memory.note = f.note;
    return f;
  }
  const Workload& w = project.workloads.front();
  const auto choice = presetChoiceOf(w);
  if (!choice) {
    f.note =
        "the workload was not generated from a preset (e.g. imported LIBRA input), so its "
        "tokens, model FLOPs and memory are unknown";
    f.memory.note = f.note;
    return f;
  }
  try {
    const Preset preset = modelOf(*choice);
    const Parallelism resolved = resolveDegrees(choice->parallelism, f.npus);
    const BatchPlan batch = planBatch(preset, resolved, choice->generator);
    const WorkloadOrigin& origin = *w.origin;
    auto parameter = [&](const char* key) {
      const auto it = origin.parameters.find(key);
      return it == origin.parameters.end() ? std::optional<double>() : it->second;
    };
    Device device;
    device.id = choice->device;
    try {
      device = findDevice(choice->device);
    } catch (const InputError&) {
      // A device of an older or newer program: its stored numbers still count.
    }
    if (const auto peak = parameter("device_peak_flops")) device.peakFlops = *peak;
    if (const auto bytes = parameter("device_memory_bytes")) device.memoryBytes = *bytes;
    f.peakFlops = finitePositive(device.peakFlops) ? device.peakFlops : 0;
    f.batch = batch;
    f.samplesPerIteration = static_cast<double>(batch.globalBatch);
    f.tokensPerIteration = batch.tokensPerIteration();
    f.pipelineBubble = pipelineBubble(resolved.pp, batch.microBatches,
                                      std::max(1, choice->generator.virtualStages));
    f.memory = estimateMemory(preset, resolved, batch, device,
                              std::max(1, choice->generator.virtualStages));
    const double trainTokens =
        choice->generator.trainTokens > 0 ? choice->generator.trainTokens : preset.trainTokens;
    if (trainTokens > 0) {
      f.trainTokens = trainTokens;
    } else {
      f.trainNote = "preset '" + preset.id +
                    "' has no published token budget; give one (libra new --train-tokens)";
    }
    if (const auto* m = std::get_if<TransformerConfig>(&preset.model)) {
      const int stageBlocks = (m->layers + resolved.pp - 1) / resolved.pp;
      if (choice->generator.blocks > 0 && choice->generator.blocks < stageBlocks) {
        f.note = "the workload models " + std::to_string(choice->generator.blocks) + " of the " +
                 std::to_string(stageBlocks) +
                 " blocks of its pipeline stage, so its time is not the model's";
        return f;
      }
    }
    if (!(w.weight > 0)) {
      f.note = "the workload has weight 0 in the objective";
      return f;
    }
    f.weight = w.weight;
    f.modelFlopsPerIteration =
        modelFlopsPerSample(preset, batch.sequenceLength) * static_cast<double>(batch.globalBatch);
  } catch (const std::exception& e) {
    f.note = std::string("the workload's origin does not fit the project: ") + e.what();
    if (!f.memory.use && f.memory.note.empty()) f.memory.note = f.note;
  }
  return f;
}

Throughput throughputAt(const TrainingFacts& facts, double iterationNs) {
  Throughput t;
  if (!facts.tokensPerIteration || !facts.modelFlopsPerIteration) return t;
  if (!finitePositive(iterationNs) || !finitePositive(facts.weight)) return t;
  const double seconds = iterationNs / facts.weight * 1e-9;
  auto finite = [](double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; };
  t.tokensPerSecond = finite(*facts.tokensPerIteration / seconds);
  if (facts.npus > 0) {
    const double perNpu = *facts.modelFlopsPerIteration / seconds / static_cast<double>(facts.npus);
    t.modelTflopsPerNpu = finite(perNpu / 1e12);
    if (facts.peakFlops > 0) t.mfu = finite(perNpu / facts.peakFlops);
  }
  if (facts.trainTokens && t.tokensPerSecond && *t.tokensPerSecond > 0) {
    t.timeToTrainS = finite(*facts.trainTokens / *t.tokensPerSecond);
  }
  return t;
}

}  // namespace libra
