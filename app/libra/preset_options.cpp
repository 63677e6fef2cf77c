#include "preset_options.hpp"

#include <charconv>
#include <limits>

#include "common.hpp"
#include "libra/error.hpp"
#include "libra/libra_format.hpp"

namespace libra::cli {

namespace {

constexpr int kMaxDegree = 1 << 30;

}  // namespace

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

void addPresetFlags(CLI::App* cmd, PresetFlags& flags, bool withDataParallel) {
  cmd->add_option("--preset", flags.preset, "Model preset, e.g. gpt3-175b (see 'libra presets')")
      ->required()
      ->type_name("NAME");
  cmd->add_option("--device", flags.device,
                  std::string("Device for the compute times (default ") + kDefaultDevice +
                      "; see 'libra presets --devices')")
      ->type_name("NAME");
  cmd->add_option("--tp", flags.tp, "Tensor-parallel degree (default: the preset's)")
      ->type_name("N");
  cmd->add_option("--ep", flags.ep, "Expert-parallel degree, MoE presets (default: the preset's)")
      ->type_name("N");
  cmd->add_option("--pp", flags.pp, "Pipeline-parallel stages (default: the preset's)")
      ->type_name("N");
  if (withDataParallel) {
    cmd->add_option("--dp", flags.dp, "Data-parallel degree (default: NPUs / (TP x EP x PP))")
        ->type_name("N");
  }
  cmd->add_flag("--sequence-parallel", flags.sequenceParallel,
                "TP activations as ReduceScatter + AllGather (Megatron sequence parallelism)");
  cmd->add_flag("--zero3", flags.zero3,
                "ZeRO-3 / FSDP: parameter AllGathers, gradient ReduceScatters");
  cmd->add_flag("--recompute", flags.recompute, "Full activation recomputation");
  cmd->add_option("--micro-batch", flags.microBatch,
                  "Samples per NPU per micro-batch (default: the preset's)")
      ->type_name("N");
  cmd->add_option("--sequence-length", flags.sequenceLength,
                  "Tokens per sample, transformers (default: the preset's)")
      ->type_name("N");
  cmd->add_option("--micro-batches", flags.microBatches,
                  "Micro-batches per iteration (gradient accumulation; default 1)")
      ->type_name("N");
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

PresetChoice resolvePresetFlags(const PresetFlags& flags) {
  PresetChoice choice;
  try {
    choice.preset = &findPreset(flags.preset);
  } catch (const InputError& e) {
    throw InputError(std::string("--preset: ") + e.what());
  }
  try {
    choice.device = findDevice(flags.device);
  } catch (const InputError& e) {
    throw InputError(std::string("--device: ") + e.what());
  }

  Parallelism& p = choice.parallelism;
  p = choice.preset->defaults;
  auto degree = [](const std::string& text, const std::string& flag, int& into) {
    if (!text.empty()) into = static_cast<int>(parseWholeNumber(text, flag, 1, kMaxDegree));
  };
  degree(flags.tp, "--tp", p.tp);
  degree(flags.ep, "--ep", p.ep);
  degree(flags.pp, "--pp", p.pp);
  degree(flags.dp, "--dp", p.dp);
  p.sequenceParallel = p.sequenceParallel || flags.sequenceParallel;
  p.zero3 = p.zero3 || flags.zero3;
  p.recompute = p.recompute || flags.recompute;

  GeneratorOptions& g = choice.generator;
  degree(flags.microBatch, "--micro-batch", g.microBatch);
  degree(flags.sequenceLength, "--sequence-length", g.sequenceLength);
  degree(flags.microBatches, "--micro-batches", g.microBatches);
  if (!flags.layout.empty()) {
    const auto layout = parseWorkloadLayout(flags.layout);
    if (!layout) {
      throw InputError("--layout: '" + flags.layout + "' is not a layout; use megatron or libra");
    }
    g.layout = *layout;
  }
  if (!flags.trainingLoop.empty()) choice.trainingLoop = parseTrainingLoopFlag(flags.trainingLoop);
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
  return choice;
}

const char* const kPresetHelp =
    "Presets describe a model by its hyperparameters; the workload (layers, collective sizes\n"
    "in bytes, compute times in ns) is generated for the chosen network, device and\n"
    "parallelism (docs/workloads.md). Degrees not given come from the preset's default\n"
    "parallelism; the data-parallel degree is what remains: NPUs / (TP x EP x PP). TP and EP\n"
    "take dimensions from the inside out, DP from the outside in, PP what is left between.\n"
    "Compute times: FLOPs / (device peak FLOP/s x efficiency, 0.4 for every real device).";

}  // namespace libra::cli
