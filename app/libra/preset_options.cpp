#include "preset_options.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "common.hpp"
#include "libra/error.hpp"
#include "libra/libra_format.hpp"
#include "libra/model_file.hpp"

namespace libra::cli {

namespace {

constexpr int kMaxDegree = 1 << 30;
// Samples and micro-batches: 2^53, the largest count a double (the project
// file's numbers) holds exactly.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 53;

// A finite number > 0, with or without exponent ("300e9"), and nothing else.
double parsePositiveNumber(const std::string& text, const std::string& flag) {
  double value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  const auto [stop, ec] = std::from_chars(begin, end, value);
  if (text.empty() || stop != end || ec != std::errc()) {
    throw InputError(flag + ": '" + text + "' is not a number (e.g. 300e9)");
  }
  if (!std::isfinite(value) || !(value > 0) || value > 1e30) {
    throw InputError(flag + ": " + text + " is out of range; give a number > 0 and at most 1e30");
  }
  return value;
}

}  // namespace

void refuseMemory(const std::string& what, const MemoryEstimate& memory) {
  throw InputError(what + " does not fit the device's memory: " + memory.describe() +
                   "; ZeRO (--zero 1..3), --sequence-parallel, --selective-recompute or "
                   "--recompute, a smaller --micro-batch, or more --tp / --pp reduce it; "
                   "--ignore-memory proceeds anyway");
}

std::int64_t parseWholeNumber(const std::string& text, const std::string& flag, std::int64_t min,
                              std::int64_t max) {
  std::int64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  const auto [stop, ec] = std::from_chars(begin, end, value);
  if (text.empty() || stop != end || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    throw InputError(flag + ": '" + text + "' is not a whole number");
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    const std::string range = max == std::numeric_limits<std::int64_t>::max()
                                  ? "at least " + std::to_string(min)
                                  : std::to_string(min) + " to " + std::to_string(max);
    throw InputError(flag + ": " + text + " is out of range; give " + range);
  }
  return value;
}

namespace {

// The parallel degrees.
void addParallelismFlags(CLI::App* cmd, PresetFlags& flags, bool withDataParallel) {
  cmd->add_option("--tp", flags.tp, "Tensor-parallel degree (default: the preset's)")
      ->type_name("N");
  cmd->add_option("--cp", flags.cp,
                  "Context-parallel degree: each sequence split over N NPUs that exchange keys "
                  "and values in every attention layer (Megatron-LM's --context-parallel-size; "
                  "default 1)")
      ->type_name("N");
  cmd->add_option("--ep", flags.ep,
                  "Expert-parallel degree, MoE presets (Megatron-Core's "
                  "--expert-model-parallel-size; default: the preset's)")
      ->type_name("N");
  cmd->add_option("--expert-tp", flags.expertTp,
                  "Expert tensor-parallel degree, MoE presets (Megatron-Core's "
                  "--expert-tensor-parallel-size; a divisor of TP, default TP): each expert is "
                  "split over N NPUs and the EP group takes TP / N NPUs of each TP group")
      ->type_name("N");
  cmd->add_option("--pp", flags.pp, "Pipeline-parallel stages (default: the preset's)")
      ->type_name("N");
  if (withDataParallel) {
    cmd->add_option("--dp", flags.dp, "Data-parallel degree (default: NPUs / (TP x EP x PP))")
        ->type_name("N");
  }
}

// Sequence parallelism, ZeRO and recomputation.
void addMemoryFlags(CLI::App* cmd, PresetFlags& flags) {
  cmd->add_flag("--sequence-parallel", flags.sequenceParallel,
                "TP activations as ReduceScatter + AllGather (Megatron sequence parallelism)");
  cmd->add_flag("--zero3", flags.zero3,
                "ZeRO-3 / FSDP: parameter AllGathers, gradient ReduceScatters");
  cmd->add_option("--zero", flags.zero,
                  "ZeRO stage 0-3: 1 shards optimizer states, 2 also gradients (memory only), "
                  "3 = --zero3")
      ->type_name("STAGE");
  cmd->add_option("--shard-group", flags.shardGroup,
                  "Hybrid sharding (HSDP): ZeRO shards over groups of N data-parallel NPUs, "
                  "replicated across the rest (needs --zero 1-3; default: the whole group)")
      ->type_name("N");
  cmd->add_flag("--recompute", flags.recompute, "Full activation recomputation");
  cmd->add_flag("--selective-recompute", flags.selectiveRecompute,
                "Recompute the attention scores only (Korthikanti et al. 2022)");
}

// Attention, MoE dispatch and routing, precision.
void addKernelFlags(CLI::App* cmd, PresetFlags& flags) {
  cmd->add_option("--attention", flags.attention,
                  "Attention scores: materialized (written to memory, pre-FlashAttention) or "
                  "fused (default: the preset's published run)")
      ->type_name("KIND");
  cmd->add_option("--moe-dispatcher", flags.moeDispatcher,
                  "MoE token dispatch: alltoall (Megatron-LM, one copy per expert) or deepep "
                  "(one copy per destination node and NPU; default: the preset's)")
      ->type_name("NAME");
  cmd->add_option("--moe-routing", flags.moeRouting,
                  "Experts a token is routed to: random (k distinct, within the preset's node "
                  "limit) or contiguous (k consecutive ids, NeMo AutoModel's balanced gate; "
                  "default random)")
      ->type_name("NAME");
  cmd->add_option("--precision", flags.precision,
                  "Weight GEMMs of the blocks: bf16 or fp8 (Transformer Engine's recipe: the "
                  "linear layers at the device's FP8 rate; default: the preset's, bf16)")
      ->type_name("P");
}

// Utilization, batch, sequence, schedule, memory check, layout, loop, cost model.
void addRunFlags(CLI::App* cmd, PresetFlags& flags) {
  cmd->add_option("--utilization", flags.utilization,
                  "Share of the device's matmul rate a training step sustains, in (0, 1]: your "
                  "software stack's (default: fitted on Megatron-LM / NeMo runs, 0.77 for "
                  "transformers)")
      ->type_name("U");
  cmd->add_option("--global-batch", flags.globalBatch,
                  "Samples (sequences) per iteration (default: the preset's published batch)")
      ->type_name("N");
  cmd->add_option("--micro-batch", flags.microBatch,
                  "Samples per micro-batch of one data-parallel replica (default: derived)")
      ->type_name("N");
  cmd->add_option("--micro-batches", flags.microBatches,
                  "Micro-batches per iteration (gradient accumulation; default: derived)")
      ->type_name("N");
  cmd->add_option("--sequence-length", flags.sequenceLength,
                  "Tokens per sample, transformers (default: the preset's)")
      ->type_name("N");
  cmd->add_option("--virtual-stages", flags.virtualStages,
                  "Interleaved 1F1B: model chunks per pipeline stage (default 1, plain 1F1B)")
      ->type_name("V");
  cmd->add_option("--train-tokens", flags.trainTokens,
                  "Tokens (samples) to train for, for the time to train (default: the "
                  "preset's, e.g. 300e9 for GPT-3)")
      ->type_name("N");
  cmd->add_flag("--ignore-memory", flags.ignoreMemory,
                "Proceed when the design does not fit the device's memory");
  cmd->add_option("--layout", flags.layout,
                  "megatron (default) or libra (the reference files' layout)")
      ->type_name("NAME");
  cmd->add_option("--training-loop", flags.trainingLoop,
                  "no-overlap (default), recompute or overlap")
      ->type_name("L");
  cmd->add_option("--cost-model", flags.costModel,
                  "Cost model file (.yml or .json); default: the reference unit prices")
      ->type_name("FILE");
}

}  // namespace

void addPresetFlags(CLI::App* cmd, PresetFlags& flags, bool withDataParallel) {
  CLI::Option* preset = cmd->add_option("--preset", flags.preset,
                                        "Model preset, e.g. gpt3-175b (see 'libra presets')")
                            ->type_name("NAME");
  CLI::Option* model =
      cmd->add_option("--model", flags.model,
                      "Model file instead of --preset: a Hugging Face config.json (model_type "
                      "gpt2, gpt_neox, llama, mistral, mixtral, qwen2, qwen2_moe, deepseek_v2/v3, "
                      "nemotron) or libra's model file ('libra presets --show ID --json')")
          ->type_name("FILE");
  preset->excludes(model);
  model->excludes(preset);
  cmd->add_option("--device", flags.device,
                  std::string("Device for the compute times (default ") + kDefaultDevice +
                      "; see 'libra presets --devices')")
      ->type_name("NAME");
  addParallelismFlags(cmd, flags, withDataParallel);
  addMemoryFlags(cmd, flags);
  addKernelFlags(cmd, flags);
  addRunFlags(cmd, flags);
}

namespace {

// --preset or --model, and --device.
void resolveModel(const PresetFlags& flags, PresetChoice& choice) {
  if (flags.model.empty()) {
    if (flags.preset.empty()) {
      throw InputError("give the model: --preset ID (see 'libra presets') or --model CONFIG.json");
    }
    try {
      choice.preset =
          std::shared_ptr<const Preset>(&findPreset(flags.preset), [](const Preset*) {});
    } catch (const InputError& e) {
      throw InputError(std::string("--preset: ") + e.what());
    }
  } else {
    Preset model = readModelFile(flags.model);
    const int sequence = flags.sequenceLength.empty()
                             ? 0
                             : static_cast<int>(parseWholeNumber(
                                   flags.sequenceLength, "--sequence-length", 1, kMaxDegree));
    const std::int64_t global =
        flags.globalBatch.empty()
            ? 0
            : parseWholeNumber(flags.globalBatch, "--global-batch", 1, kMaxCount);
    completeModel(model, flags.model, sequence, global);
    choice.preset = std::make_shared<const Preset>(std::move(model));
  }
  try {
    choice.device = findDevice(flags.device);
  } catch (const InputError& e) {
    throw InputError(std::string("--device: ") + e.what());
  }
}

// The degrees, ZeRO, sharding and recomputation over the model's defaults.
void resolveParallelism(const PresetFlags& flags, PresetChoice& choice) {
  Parallelism& p = choice.parallelism;
  p = choice.preset->defaults;
  auto degree = [](const std::string& text, const std::string& flag, int& into) {
    if (!text.empty()) into = static_cast<int>(parseWholeNumber(text, flag, 1, kMaxDegree));
  };
  degree(flags.tp, "--tp", p.tp);
  degree(flags.cp, "--cp", p.cp);
  degree(flags.ep, "--ep", p.ep);
  degree(flags.expertTp, "--expert-tp", p.expertTp);
  degree(flags.pp, "--pp", p.pp);
  if (!flags.dp.empty()) p.dp = parseWholeNumber(flags.dp, "--dp", 1, kMaxNpus);
  p.sequenceParallel = p.sequenceParallel || flags.sequenceParallel;
  p.zero3 = p.zero3 || flags.zero3;
  if (!flags.zero.empty()) {
    const int stage = static_cast<int>(parseWholeNumber(flags.zero, "--zero", 0, 3));
    if (flags.zero3 && stage != 3) {
      throw InputError("--zero " + flags.zero + " contradicts --zero3 (ZeRO stage 3); give one");
    }
    if (stage == 3) {
      p.zero3 = true;
    } else {
      p.zeroStage = stage;
    }
  }
  if (!flags.shardGroup.empty()) {
    p.shardGroup =
        static_cast<int>(parseWholeNumber(flags.shardGroup, "--shard-group", 1, kMaxDegree));
  }
  p.recompute = p.recompute || flags.recompute;
  p.selectiveRecompute = p.selectiveRecompute || flags.selectiveRecompute;
  if (p.recompute && p.selectiveRecompute) {
    throw InputError(
        "--recompute and --selective-recompute exclude each other (full recomputation "
        "includes the attention scores); give one");
  }
}

// The attention kernel, the MoE dispatch and routing, and the precision.
void resolveKernels(const PresetFlags& flags, PresetChoice& choice) {
  Parallelism& p = choice.parallelism;
  const auto* transformer = std::get_if<TransformerConfig>(&choice.preset->model);
  if (!flags.attention.empty()) {
    const auto kernel = parseAttentionKernel(flags.attention);
    if (!kernel) {
      throw InputError("--attention: '" + flags.attention +
                       "' is not an attention kernel; use materialized or fused");
    }
    if (!transformer) {
      throw InputError("--attention applies to transformer presets; '" + choice.preset->id +
                       "' is not one");
    }
    p.attention = *kernel;
  }
  auto moeOnly = [&](const std::string& flag) {
    if (!transformer || !transformer->moe()) {
      throw InputError(flag + " applies to mixture-of-experts presets; '" + choice.preset->id +
                       "' has no experts");
    }
  };
  if (!flags.moeDispatcher.empty()) {
    const auto dispatcher = parseMoeDispatcher(flags.moeDispatcher);
    if (!dispatcher) {
      throw InputError("--moe-dispatcher: '" + flags.moeDispatcher +
                       "' is not a dispatcher; use alltoall or deepep");
    }
    moeOnly("--moe-dispatcher");
    p.moeDispatcher = *dispatcher;
  }
  if (!flags.moeRouting.empty()) {
    const auto routing = parseMoeRouting(flags.moeRouting);
    if (!routing) {
      throw InputError("--moe-routing: '" + flags.moeRouting +
                       "' is not a routing; use random or contiguous");
    }
    moeOnly("--moe-routing");
    p.moeRouting = *routing;
  }
  if (!flags.precision.empty()) {
    const auto precision = parsePrecision(flags.precision);
    if (!precision) {
      throw InputError("--precision: '" + flags.precision +
                       "' is not a precision; use bf16 or fp8");
    }
    if (*precision == Precision::Fp8 && !transformer) {
      throw InputError("--precision fp8 applies to transformer presets; '" + choice.preset->id +
                       "' is not one");
    }
    p.precision = *precision;
  }
  if (p.precision == Precision::Fp8 && !choice.device.hasFp8()) {
    std::string withFp8;
    for (const Device& d : devices()) {
      if (d.hasFp8()) withFp8 += (withFp8.empty() ? "" : ", ") + d.id;
    }
    throw InputError("--precision fp8: device '" + choice.device.id + "' (" + choice.device.name +
                     ") has no FP8 matrix units; use --precision bf16" +
                     (withFp8.empty() ? std::string() : " or a device with FP8 (" + withFp8 + ")"));
  }
}

// The batch, sequence, stages, tokens, utilization, layout and training loop.
void resolveGenerator(const PresetFlags& flags, PresetChoice& choice) {
  GeneratorOptions& g = choice.generator;
  auto degree = [](const std::string& text, const std::string& flag, int& into) {
    if (!text.empty()) into = static_cast<int>(parseWholeNumber(text, flag, 1, kMaxDegree));
  };
  auto count = [](const std::string& text, const std::string& flag, std::int64_t& into) {
    if (!text.empty()) into = parseWholeNumber(text, flag, 1, kMaxCount);
  };
  count(flags.globalBatch, "--global-batch", g.globalBatch);
  count(flags.microBatch, "--micro-batch", g.microBatch);
  count(flags.microBatches, "--micro-batches", g.microBatches);
  degree(flags.sequenceLength, "--sequence-length", g.sequenceLength);
  degree(flags.virtualStages, "--virtual-stages", g.virtualStages);
  if (!flags.trainTokens.empty())
    g.trainTokens = parsePositiveNumber(flags.trainTokens, "--train-tokens");
  if (!flags.utilization.empty()) {
    g.utilization = parsePositiveNumber(flags.utilization, "--utilization");
    if (g.utilization > 1) {
      throw InputError("--utilization: " + flags.utilization +
                       " is above 1; give the share of the matmul rate a step sustains, in "
                       "(0, 1] (e.g. 0.6)");
    }
  }
  choice.ignoreMemory = flags.ignoreMemory;
  if (!flags.layout.empty()) {
    const auto layout = parseWorkloadLayout(flags.layout);
    if (!layout) {
      throw InputError("--layout: '" + flags.layout + "' is not a layout; use megatron or libra");
    }
    g.layout = *layout;
  }
  if (!flags.trainingLoop.empty()) choice.trainingLoop = parseTrainingLoopFlag(flags.trainingLoop);
}

void resolveCostModel(const PresetFlags& flags, PresetChoice& choice) {
  if (flags.costModel.empty()) {
    choice.costModel = referenceCostModel();
  } else {
    requireInputFile(flags.costModel, "--cost-model");
    try {
      choice.costModel = readCostModelFile(flags.costModel);
    } catch (const InputError& e) {
      const std::string message = e.what();
      throw InputError(message.find(flags.costModel) != std::string::npos
                           ? message
                           : "--cost-model '" + flags.costModel + "': " + message);
    }
  }
}

}  // namespace

PresetChoice resolvePresetFlags(const PresetFlags& flags) {
  PresetChoice choice;
  resolveModel(flags, choice);
  resolveParallelism(flags, choice);
  resolveKernels(flags, choice);
  resolveGenerator(flags, choice);
  resolveCostModel(flags, choice);
  return choice;
}

void addExecutionFlags(CLI::App* cmd, PresetFlags& flags) {
  cmd->add_option("--execution", flags.execution,
                  "search (default): the fastest execution that fits the device's memory, with "
                  "what the flags fix; given: the flags and the preset's defaults as they are")
      ->type_name("MODE");
  cmd->add_option("--placements", flags.placements,
                  "With --execution search: auto (default) lays the groups as the automatic "
                  "mapping does; all tries every placement of the groups on the dimensions")
      ->type_name("WHICH");
}

bool searchesExecution(const PresetFlags& flags) {
  if (flags.execution != "search" && flags.execution != "given") {
    throw InputError("--execution: '" + flags.execution + "' is not a mode; use search or given");
  }
  if (flags.placements != "auto" && flags.placements != "all") {
    throw InputError("--placements: '" + flags.placements + "' is not one; use auto or all");
  }
  return flags.execution == "search" && flags.layout != "libra";
}

ExecutionChoices executionChoices(const PresetFlags& flags, const PresetChoice& choice) {
  if (!flags.microBatches.empty()) {
    throw InputError(
        "--micro-batches: the search chooses the micro-batch (and so their number) itself; give "
        "--micro-batch N to fix it, or --execution given");
  }
  const Parallelism& p = choice.parallelism;
  ExecutionChoices c;
  c.base = p;
  if (!flags.tp.empty()) c.tp = p.tp;
  if (!flags.cp.empty()) c.cp = p.cp;
  if (!flags.ep.empty()) c.ep = p.ep;
  if (!flags.expertTp.empty()) c.expertTp = p.expertTp;
  if (!flags.pp.empty()) c.pp = p.pp;
  if (!flags.dp.empty()) c.dp = p.dp;
  if (flags.zero3 || !flags.zero.empty()) c.zeroStage = p.zero();
  if (flags.recompute) c.recomputation = Recomputation::Full;
  if (flags.selectiveRecompute) c.recomputation = Recomputation::Selective;
  if (flags.sequenceParallel) c.sequenceParallel = true;
  if (!flags.microBatch.empty()) c.microBatch = choice.generator.microBatch;
  if (!flags.virtualStages.empty()) c.virtualStages = choice.generator.virtualStages;
  c.searchPlacements = flags.placements == "all";
  return c;
}

const char* const kPresetHelp =
    "Presets describe a model by its hyperparameters; the workload (layers, collective sizes\n"
    "in bytes, compute times in ns) is generated for the chosen network, device and\n"
    "parallelism (docs/workloads.md). Degrees not given come from the preset's default\n"
    "parallelism; the data-parallel degree is what remains: NPUs / (TP x CP x EP x PP). TP,\n"
    "CP and EP take dimensions from the inside out, DP from the outside in, PP what is left\n"
    "between.\n"
    "The work per iteration is the preset's published global batch (--global-batch B\n"
    "samples); B = micro-batch x micro-batches x replicas (DP x EP): without PP one\n"
    "micro-batch per replica, with PP micro-batches of the preset's size (1 for LLMs).\n"
    "Pipeline stages exchange activations point to point over the PP dimensions (1F1B,\n"
    "PP - 1 bubble slots; --virtual-stages V interleaves V chunks per stage, dividing the\n"
    "bubble by V). The memory per NPU (weights, gradients, Adam states, activations)\n"
    "is checked against the device's; a design that does not fit is refused unless\n"
    "--ignore-memory.\n"
    "Compute times: FLOPs / (device peak FLOP/s x matmul efficiency x utilization), or a\n"
    "kernel's bytes / memory bandwidth when that is longer (norms, activations, attention\n"
    "scores unless --attention fused): the efficiency is the device's measured matmul\n"
    "fraction of its peak, the utilization the calibrated share of it a training step\n"
    "sustains (transformers 0.77, CNNs 0.19, fitted on Megatron-LM / NeMo runs; docs/\n"
    "workloads.md sections 2.8 and 2.11; --utilization states your stack's). With\n"
    "--precision fp8 the blocks' linear layers run at the device's FP8 peak (section 2.13).\n"
    "Mixtures of experts dispatch with --moe-dispatcher alltoall (one copy per expert) or\n"
    "deepep (one copy per destination node and NPU; section 2.5).";

}  // namespace libra::cli
