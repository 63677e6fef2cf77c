// Execution-search benchmarks: how many executions of one workload the engine
// models per second, the quantity Calculon (github.com/calculon-ai/calculon)
// reports as its "calculation rate" for `llm-optimal-execution` (issue 25, item
// 4). The case is Calculon's own: the 530B Megatron-Turing NLG on about 5,000
// A100 GPUs in 8-GPU NVLink nodes, global batch about 2,500 (here MT-NLG 530B on
// 5,120 A100s = Switch 8 x Switch 640, batch 2,560: Calculon's 5,128 and 2,520
// have divisors no Megatron execution uses). packaging/bench-calculon.sh runs
// Calculon and these rows on the same machine and prints the ratios.
//
// Counters: executions/s counts every execution of the enumeration (every
// micro-batch, interleaving, ZeRO stage, recomputation and sequence
// parallelism), checked/s those modelled at all: refused by the memory check
// (as Calculon counts its "bad" ones, which fail in its model's compile or
// run) or timed, without the ZeRO and recomputation variants skipped because a
// cheaper one fits; evaluated/s those whose iteration time was computed.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "libra/execution.hpp"
#include "libra/presets.hpp"

namespace {

using namespace libra;

Network a100Cluster() {
  Network n;
  Dimension node;
  node.name = "node";
  node.block = BuildingBlock::Switch;
  node.npus = 8;
  node.costLevel = "InterPod";
  Dimension pod = node;
  pod.name = "pod";
  pod.npus = 640;
  n.dims = {node, pod};
  return n;
}

ExecutionSearchOptions turingOptions() {
  ExecutionSearchOptions o;
  const Preset& preset = findPreset("mt-nlg-530b");
  o.device = findDevice("a100");
  o.choices.base = preset.defaults;
  o.choices.searchPlacements = false;  // the automatic mapping, as Calculon's fixed system
  o.generator.globalBatch = 2560;
  o.project.constraints = {"total == 325"};
  o.prune = false;  // every execution, as Calculon evaluates every one
  o.keep = 1;
  return o;
}

void report(benchmark::State& state, const ExecutionSearch& last, std::int64_t considered) {
  state.counters["executions/s"] =
      benchmark::Counter(static_cast<double>(considered) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["evaluated/s"] = benchmark::Counter(
      static_cast<double>(last.evaluated) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  const double checked = static_cast<double>(last.overMemory + last.evaluated + last.failed);
  state.counters["checked/s"] = benchmark::Counter(
      checked * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["executions"] = static_cast<double>(considered);
  state.counters["evaluated"] = static_cast<double>(last.evaluated);
}

// (a) Calculon's question: every execution on one network at fixed bandwidths
// (NVLink 300 GB/s and InfiniBand HDR 25 GB/s per GPU and direction).
void BM_ExecutionsAtFixedBandwidth(benchmark::State& state) {
  const Preset& preset = findPreset("mt-nlg-530b");
  const Network net = a100Cluster();
  ExecutionSearchOptions o = turingOptions();
  o.bandwidth = std::vector<double>{300, 25};
  const auto considered = static_cast<std::int64_t>(
      enumerateExecutions(preset, net.npuCount(), o.generator, o.choices).size());
  ExecutionSearch last;
  for (auto _ : state) {
    last = searchExecutions(preset, net, o);
    benchmark::DoNotOptimize(last.designs);
  }
  report(state, last, considered);
}
BENCHMARK(BM_ExecutionsAtFixedBandwidth)->Unit(benchmark::kMillisecond);

// (b) LIBRA's question inside each: the same executions, each with its
// performance-optimal split of 325 GB/s per NPU over the two dimensions.
void BM_ExecutionsWithOptimizedBandwidth(benchmark::State& state) {
  const Preset& preset = findPreset("mt-nlg-530b");
  const Network net = a100Cluster();
  const ExecutionSearchOptions o = turingOptions();
  const auto considered = static_cast<std::int64_t>(
      enumerateExecutions(preset, net.npuCount(), o.generator, o.choices).size());
  ExecutionSearch last;
  for (auto _ : state) {
    last = searchExecutions(preset, net, o);
    benchmark::DoNotOptimize(last.designs);
  }
  report(state, last, considered);
}
BENCHMARK(BM_ExecutionsWithOptimizedBandwidth)->Unit(benchmark::kMillisecond);

}  // namespace
