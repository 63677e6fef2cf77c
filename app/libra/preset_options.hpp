// Flags shared by the commands that generate workloads from a preset (`libra new`
// and `libra sweep`): the preset, the device, the parallelism degrees and the
// generator's options, parsed strictly into the engine's types.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libra/cost.hpp"
#include "libra/execution.hpp"
#include "libra/presets.hpp"
#include "libra/training.hpp"

namespace libra::cli {

inline constexpr const char* kDefaultDevice = "h100";

// As given on the command line; empty strings are flags that were not given.
struct PresetFlags {
  std::string preset;
  std::string model;  // --model CONFIG.json instead of --preset
  std::string device = kDefaultDevice;
  std::string tp, cp, ep, pp, dp;
  std::string expertTp;  // --expert-tp N (Megatron-Core's expert tensor parallelism)
  bool sequenceParallel = false;
  bool zero3 = false;
  bool recompute = false;
  std::string zero;        // --zero 0..3
  std::string shardGroup;  // --shard-group N (hybrid sharding)
  bool selectiveRecompute = false;
  std::string attention;      // --attention materialized|fused
  std::string moeDispatcher;  // --moe-dispatcher alltoall|deepep
  std::string moeRouting;     // --moe-routing random|contiguous
  std::string precision;      // --precision bf16|fp8
  std::string utilization;    // --utilization U (0, 1]
  std::string globalBatch;
  std::string microBatch;
  std::string sequenceLength;
  std::string virtualStages;
  std::string microBatches;
  std::string trainTokens;
  bool ignoreMemory = false;
  std::string layout;
  std::string trainingLoop;
  std::string costModel;
  std::string execution = "search";  // --execution search|given (libra new)
  std::string placements = "auto";   // --placements auto|all (libra new)
};

// What the flags mean, checked.
struct PresetChoice {
  // The preset, or the model read from --model (completed with
  // --sequence-length and --global-batch where the file gives none).
  std::shared_ptr<const Preset> preset;
  Device device;
  // The preset's default parallelism with the given degrees and switches applied;
  // dp = 0 (derived from the NPU count) unless --dp was given.
  Parallelism parallelism;
  GeneratorOptions generator;
  TrainingLoop trainingLoop = TrainingLoop::NoOverlap;
  CostModel costModel;  // the file's, or referenceCostModel()
  bool ignoreMemory = false;
};

// The InputError for a design that does not fit the device's memory: what it
// needs and has, what reduces it, and that --ignore-memory proceeds anyway.
[[noreturn]] void refuseMemory(const std::string& what, const MemoryEstimate& memory);

// Adds --preset or --model (one is required), --device, --tp, --cp, --ep, --pp, [--dp],
// --sequence-parallel,
// --zero3, --zero, --recompute, --selective-recompute, --attention, --moe-dispatcher,
// --moe-routing, --precision, --utilization, --global-batch, --micro-batch,
// --micro-batches, --sequence-length, --virtual-stages, --train-tokens, --ignore-memory, --layout,
// --training-loop and --cost-model to `cmd`.
void addPresetFlags(CLI::App* cmd, PresetFlags& flags, bool withDataParallel);

// Throws InputError naming the flag and the bad value.
PresetChoice resolvePresetFlags(const PresetFlags& flags);

// --execution and --placements (libra new).
void addExecutionFlags(CLI::App* cmd, PresetFlags& flags);
// Whether the execution is searched (--execution search, the default) rather
// than taken from the flags and the preset's defaults (--execution given).
bool searchesExecution(const PresetFlags& flags);
// What the flags fix of the execution; the rest is searched. `choice` is
// resolvePresetFlags's (its parallelism carries the attention kernel and the
// MoE dispatcher and routing, which are never searched).
ExecutionChoices executionChoices(const PresetFlags& flags, const PresetChoice& choice);

// A whole number in [min, max] given to `flag`, strictly (no trailing text).
std::int64_t parseWholeNumber(const std::string& text, const std::string& flag, std::int64_t min,
                              std::int64_t max);

// The help paragraph on presets, devices and parallelism, shared by the commands.
extern const char* const kPresetHelp;

}  // namespace libra::cli
