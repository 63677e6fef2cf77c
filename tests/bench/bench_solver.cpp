// Solver benchmarks. Compare rows of one run (same process, same machine state):
// BM_ReferenceSolve/native against BM_ReferenceSolve/ipopt gives the speed-up of
// the native solver, BM_ReferencePareto100 against one IPOPT solve says whether a
// whole 100-point front costs less than a single IPOPT solve, and the scaling
// families report their big-O fit (Complexity).
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "libra/analysis.hpp"
#include "libra/libra_format.hpp"
#include "libra/project.hpp"
#include "libra/project_io.hpp"
#include "libra/sensitivity.hpp"
#include "libra/solver.hpp"

namespace {

using namespace libra;

// A synthetic problem: D dimensions of 4 NPUs (Ring, the last a Switch), K
// distinct random collectives, Sum bw == 100 D and one ordering constraint.
Problem syntheticProblem(int dims, int collectives, unsigned seed = 42) {
  Project p;
  p.costModel = referenceCostModel();
  for (int d = 0; d < dims; ++d) {
    const bool last = d == dims - 1;
    Dimension dim;
    dim.name = "d" + std::to_string(d);
    dim.block = last ? BuildingBlock::Switch : BuildingBlock::Ring;
    dim.npus = 4;
    dim.costLevel = last ? "InterPod" : (d == 0 ? "InterChiplet" : "InterNode");
    p.network.dims.push_back(dim);
  }
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> group(1, 4), type(1, 4);
  std::uniform_real_distribution<double> size(1e6, 1e9);
  Workload w;
  w.name = "synthetic";
  w.communicator.groups = {std::vector<int>(dims, 4), std::vector<int>(dims, 4),
                           std::vector<int>(dims, 4)};
  for (int k = 0; k < collectives; ++k) {
    Layer l;
    l.name = "layer" + std::to_string(k);
    l.phases[0].computeNs = 1e5;
    l.phases[0].collective = static_cast<CollectiveType>(type(rng));
    l.phases[0].sizeBytes = size(rng);
    std::vector<int> g(dims);
    bool any = false;
    for (int& x : g) {
      x = group(rng);
      any = any || x > 1;
    }
    if (!any) g[0] = 2;
    l.phases[0].groups = g;
    w.layers.push_back(l);
  }
  p.workloads = {w};
  p.constraints = {"total == " + std::to_string(100 * dims)};
  if (dims > 1) p.constraints.push_back("bw[0] >= bw[1]");
  return buildProblem(p);
}

#ifdef LIBRA_REFERENCE_DIR
// The reference problems: 3D / 4D network with GPT-3 and its communicator, under
// the reference constraint sets (model.md section 7).
Problem referenceProblem(bool fourD, bool multiple) {
  const std::string ref = LIBRA_REFERENCE_DIR "/libra-inputs/";
  ImportOptions o;
  o.network = ref + (fourD ? "network/4d_network.yml" : "network/3d_network.yml");
  o.workload = ref + "workload/GPT_3.txt";
  o.communicator = ref + (fourD ? "communicator/GPT_3_4d.yml" : "communicator/GPT_3_3d.yml");
  o.costModel = ref + (fourD ? "cost_model/4d_cost_model.yml" : "cost_model/3d_cost_model.yml");
  Project p = importLibra(o);
  p.constraints = multiple
                      ? std::vector<std::string>{"total == 1000", "bw[0] == 500", "bw[0] >= bw[1]",
                                                 "bw[1] >= bw[2]", "bw[2] + bw[3] == 200"}
                      : std::vector<std::string>{"total == 500"};
  return buildProblem(p);
}

// Args: {4D?, multiple_constraints?, backend (0 native, 1 ipopt)}
void BM_ReferenceSolve(benchmark::State& state) {
  const Problem problem = referenceProblem(state.range(0), state.range(1));
  const SolveOptions options{state.range(2) ? Backend::Ipopt : Backend::Native, nullptr,
                             SolveLimits{}};
  int iterations = 0;
  for (auto _ : state) {
    Solution s = solve(problem, Objective::Performance, options);
    if (!s.ok()) state.SkipWithError(s.message.c_str());
    iterations = s.iterations;
    benchmark::DoNotOptimize(s);
  }
  state.counters["solver_iterations"] = iterations;
  state.SetLabel(std::string(state.range(0) ? "4D" : "3D") + " GPT-3 " +
                 (state.range(1) ? "multiple_constraints" : "total_bw_500gbps") +
                 (state.range(2) ? " ipopt" : " native"));
}
BENCHMARK(BM_ReferenceSolve)
    ->ArgNames({"4d", "multiple", "ipopt"})
    ->Args({0, 0, 0})
    ->Args({1, 0, 0})
    ->Args({1, 1, 0})
    ->Args({0, 0, 1})
    ->Args({1, 0, 1})
    ->Args({1, 1, 1})
    ->Unit(benchmark::kMicrosecond);

void BM_ReferencePareto100(benchmark::State& state) {
  const Problem problem = referenceProblem(true, state.range(0));
  for (auto _ : state) {
    ParetoFront f = paretoFront(problem, 100, {Backend::Native, nullptr, SolveLimits{}});
    if (f.status != SolveStatus::Optimal) state.SkipWithError(f.message.c_str());
    benchmark::DoNotOptimize(f);
  }
  state.SetLabel(std::string("4D GPT-3 ") +
                 (state.range(0) ? "multiple_constraints" : "total_bw_500gbps") + " native");
}
BENCHMARK(BM_ReferencePareto100)
    ->ArgName("multiple")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

void BM_ReferencePerfPerCost(benchmark::State& state) {
  const Problem problem = referenceProblem(true, false);
  for (auto _ : state) {
    Solution s = solve(problem, Objective::PerfPerCost, {Backend::Native, nullptr, SolveLimits{}});
    if (!s.ok()) state.SkipWithError(s.message.c_str());
    benchmark::DoNotOptimize(s);
  }
  state.SetLabel("4D GPT-3 total_bw_500gbps native");
}
BENCHMARK(BM_ReferencePerfPerCost)->Unit(benchmark::kMillisecond);
#endif

// Solve time against the number of dimensions (100 distinct collectives).
void BM_NativeScalingDims(benchmark::State& state) {
  const Problem problem = syntheticProblem(static_cast<int>(state.range(0)), 100);
  for (auto _ : state) {
    Solution s = solve(problem, Objective::Performance, {Backend::Native, nullptr, SolveLimits{}});
    if (!s.ok()) state.SkipWithError(s.message.c_str());
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_NativeScalingDims)->DenseRange(2, 8)->Unit(benchmark::kMicrosecond);

// Solve time against the number of distinct collectives (8 dimensions).
void BM_NativeScalingCollectives(benchmark::State& state) {
  const Problem problem = syntheticProblem(8, static_cast<int>(state.range(0)));
  int iterations = 0;
  for (auto _ : state) {
    Solution s = solve(problem, Objective::Performance, {Backend::Native, nullptr, SolveLimits{}});
    if (!s.ok()) state.SkipWithError(s.message.c_str());
    iterations = s.iterations;
    benchmark::DoNotOptimize(s);
  }
  state.counters["distinct_collectives"] = problem.time.collectiveCount();
  state.counters["solver_iterations"] = iterations;
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_NativeScalingCollectives)
    ->RangeMultiplier(10)
    ->Range(1, 10000)
    ->Complexity(benchmark::oN)
    ->Unit(benchmark::kMillisecond);

// IPOPT on the same family, as the baseline (up to 100 collectives: beyond that
// one IPOPT solve takes seconds).
void BM_IpoptScalingCollectives(benchmark::State& state) {
  const Problem problem = syntheticProblem(8, static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Solution s = solve(problem, Objective::Performance, {Backend::Ipopt, nullptr, SolveLimits{}});
    if (!s.ok()) state.SkipWithError(s.message.c_str());
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_IpoptScalingCollectives)
    ->RangeMultiplier(10)
    ->Range(1, 100)
    ->Unit(benchmark::kMillisecond);

// A large project of the kind fuzzing produced (issue 12: IPOPT took 21 s on a
// 210 KB one that the native solver answered far faster): 6 dimensions of
// random blocks and sizes, two weighted workloads of `layers` layers whose three
// phases carry random collectives (1 kB .. 10 GB) over random per-phase groups,
// `total == 1000` and ten random bounds. With the overlap loop every weight
// gradient's queue position is a piece whose sum runs over the collectives of
// the layers behind it: O(layers^2) terms in all.
Problem largeProject(int layers, TrainingLoop loop, unsigned seed = 7) {
  std::mt19937 rng(seed);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const BuildingBlock blocks[] = {BuildingBlock::Ring, BuildingBlock::FullyConnected,
                                  BuildingBlock::Switch};
  const int npus[] = {2, 4, 8, 16};
  const int dims = 6;
  Project p;
  for (int d = 0; d < dims; ++d) {
    Dimension dim;
    dim.name = "d" + std::to_string(d);
    dim.block = blocks[d % 3];
    dim.npus = npus[pick(4)];
    dim.costLevel = "L" + std::to_string(d);
    p.network.dims.push_back(dim);
    p.costModel.levels[dim.costLevel] = CostLevel{uniform(1, 10), uniform(1, 20), uniform(1, 30)};
  }
  const CollectiveType types[] = {CollectiveType::AllReduce, CollectiveType::AllGather,
                                  CollectiveType::ReduceScatter, CollectiveType::AllToAll};
  for (int w = 0; w < 2; ++w) {
    Workload workload;
    workload.name = "w" + std::to_string(w);
    workload.weight = uniform(0.5, 3);
    workload.communicator.groups = {std::vector<int>(dims, 1), std::vector<int>(dims, 1),
                                    std::vector<int>(dims, 1)};
    std::vector<Layer> list;
    for (int l = 0; l < layers; ++l) {
      Layer layer;
      layer.name = "l" + std::to_string(l);
      for (Phase& phase : layer.phases) {
        phase.computeNs = uniform(0, 1e6);
        if (uniform(0, 1) < 0.15) continue;
        phase.collective = types[pick(4)];
        phase.sizeBytes = std::pow(10.0, uniform(3, 10));
        const int at = pick(dims);
        for (int d = 0; d < dims; ++d) {
          const int choice = pick(4);
          phase.groups.push_back(choice < 2 ? 1 : choice == 2 ? 2 : p.network.dims[d].npus);
        }
        phase.groups[at] = p.network.dims[at].npus;  // at least one dimension
      }
      list.push_back(layer);
    }
    workload.layers = std::move(list);
    p.workloads.push_back(workload);
  }
  p.model.trainingLoop = loop;
  p.constraints = {"total == 1000"};
  for (int c = 0; c < 10; ++c) {
    const int i = pick(dims), j = (i + 1 + pick(dims - 1)) % dims;
    const std::string a = "bw[" + std::to_string(i) + "]", b = "bw[" + std::to_string(j) + "]";
    switch (pick(4)) {
      case 0:
        p.constraints.push_back(a + " >= " + std::to_string(uniform(1, 20)));
        break;
      case 1:
        p.constraints.push_back(a + " <= " + std::to_string(uniform(300, 900)));
        break;
      case 2:
        p.constraints.push_back(a + " + " + b + " <= " + std::to_string(uniform(500, 990)));
        break;
      default:
        p.constraints.push_back(a + " + " + b + " >= " + std::to_string(uniform(1, 50)));
    }
  }
  return buildProblem(p);
}

// Args: {layers per workload, overlap loop?, backend (0 native, 1 ipopt)}. Compare
// the IPOPT rows with the native ones of the same size (same process).
void BM_LargeProject(benchmark::State& state) {
  const Problem problem =
      largeProject(static_cast<int>(state.range(0)),
                   state.range(1) ? TrainingLoop::Overlap : TrainingLoop::NoOverlap);
  const SolveOptions options{state.range(2) ? Backend::Ipopt : Backend::Native, nullptr,
                             SolveLimits{}};
  int iterations = 0;
  for (auto _ : state) {
    Solution s = solve(problem, Objective::Performance, options);
    if (!s.ok()) state.SkipWithError(s.message.c_str());
    iterations = s.iterations;
    benchmark::DoNotOptimize(s);
  }
  state.counters["distinct_collectives"] = problem.time.collectiveCount();
  state.counters["solver_iterations"] = iterations;
  state.SetLabel(std::string(state.range(1) ? "overlap" : "no-overlap") +
                 (state.range(2) ? " ipopt" : " native"));
}
BENCHMARK(BM_LargeProject)
    ->ArgNames({"layers", "overlap", "ipopt"})
    ->Args({100, 0, 0})
    ->Args({100, 0, 1})
    ->Args({100, 1, 0})
    ->Args({100, 1, 1})
    ->Args({300, 1, 0})
    ->Args({300, 1, 1})
    ->Args({1000, 1, 0})
    ->Args({3000, 1, 0})
    ->Unit(benchmark::kMillisecond);

// Reading a cost model of N levels (the YAML reader checks every map for
// duplicate keys): linear in N. A check against every earlier key took about
// 50 s for 200,000 levels.
void BM_ReadCostModelOfManyLevels(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < state.range(0); ++i) text += "L" + std::to_string(i) + ": {Link: 1}\n";
  for (auto _ : state) {
    CostModel model = readCostModelText(text, "levels.yml");
    benchmark::DoNotOptimize(model);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_ReadCostModelOfManyLevels)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Complexity()
    ->Unit(benchmark::kMillisecond);

// `total == 500` on the bundled 3D example with N bounds that it implies
// (bw[d] <= 600 + i): the presolve drops them by their form in O(N log N),
// so the rows against N = 0 (the same solve without them) state the growth.
// One LP per bound took more than 400 s for 5,000 of them.
void BM_RedundantBounds(benchmark::State& state) {
  Project project = loadProject(LIBRA_SOURCE_DIR "/resources/examples/gpt3-3d.json");
  project.constraints = {"total == 500"};
  for (int i = 0; i < state.range(0); ++i) {
    project.constraints.push_back("bw[" + std::to_string(i % 3) +
                                  "] <= " + std::to_string(600 + i));
  }
  const Problem problem = buildProblem(project);
  for (auto _ : state) {
    Solution s = solve(problem, Objective::Performance);
    if (!s.ok()) state.SkipWithError(s.message.c_str());
    benchmark::DoNotOptimize(s);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_RedundantBounds)
    ->ArgName("bounds")
    ->Arg(0)
    ->Arg(300)
    ->Arg(3000)
    ->Arg(30000)
    ->Unit(benchmark::kMillisecond);

// The whole sensitivity of a bundled example's optimum (every constraint and
// every dimension re-solved one step up and one step down, native solver)
// against the solve it describes, in the same process. Arg: 3D (0) or 4D (1).
void BM_ExampleSensitivity(benchmark::State& state) {
  const Project project =
      loadProject(state.range(0) ? LIBRA_SOURCE_DIR "/resources/examples/gpt3-4d.json"
                                 : LIBRA_SOURCE_DIR "/resources/examples/gpt3-3d.json");
  const Problem problem = buildProblem(project);
  const Solution optimum = solve(problem, project.objective);
  if (!optimum.ok()) {
    state.SkipWithError(optimum.message.c_str());
    return;
  }
  int resolves = 0;
  for (auto _ : state) {
    Sensitivity s = sensitivityAt(problem, optimum);
    if (!s.computed) state.SkipWithError(s.note.c_str());
    resolves = s.resolves;
    benchmark::DoNotOptimize(s);
  }
  state.counters["resolves"] = resolves;
  state.SetLabel(state.range(0) ? "gpt3-4d.json sensitivity" : "gpt3-3d.json sensitivity");
}
BENCHMARK(BM_ExampleSensitivity)->ArgName("4d")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The solve that BM_ExampleSensitivity's optimum comes from, as its baseline.
void BM_ExampleSolve(benchmark::State& state) {
  const Project project =
      loadProject(state.range(0) ? LIBRA_SOURCE_DIR "/resources/examples/gpt3-4d.json"
                                 : LIBRA_SOURCE_DIR "/resources/examples/gpt3-3d.json");
  const Problem problem = buildProblem(project);
  for (auto _ : state) {
    Solution s = solve(problem, project.objective);
    if (!s.ok()) state.SkipWithError(s.message.c_str());
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_ExampleSolve)->ArgName("4d")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// What the GUI asks of the solver thread for each change of the bundled 4D
// example (chunks "auto"): the design, then a front of N points
// (studio::makeRequest). Arg 0: the design alone. The rows against each other
// say what a front point costs; the GUI's frame budget is 16 ms.
void BM_ExampleAnalysis(benchmark::State& state) {
  const Project project = loadProject(LIBRA_SOURCE_DIR "/resources/examples/gpt3-4d.json");
  AnalysisOptions options;
  options.paretoPoints = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Analysis a = analyze(project, options);
    if (!a.ok()) state.SkipWithError(a.message.c_str());
    benchmark::DoNotOptimize(a);
  }
  state.SetLabel("gpt3-4d.json, chunks auto");
}
BENCHMARK(BM_ExampleAnalysis)
    ->ArgName("front_points")
    ->Arg(0)
    ->Arg(8)
    ->Arg(16)
    ->Arg(24)
    ->Arg(50)
    ->Unit(benchmark::kMillisecond);

// What `libra pareto --points 10` asks of the engine for the bundled example:
// the front and the perf-per-cost optimum read off it, without its sensitivity
// (the command prints none) against with it (what the command computed before).
void BM_ParetoCommand(benchmark::State& state) {
  const Project project = loadProject(LIBRA_SOURCE_DIR "/resources/examples/gpt3-4d.json");
  AnalysisOptions options;
  options.paretoPoints = 10;
  options.objective = Objective::PerfPerCost;
  options.frontWithinCostBudget = true;
  options.sensitivity = state.range(0) != 0;
  options.backend = state.range(1) != 0 ? Backend::Ipopt : Backend::Native;
  for (auto _ : state) {
    Analysis a = analyze(project, options);
    if (!a.ok()) state.SkipWithError(a.message.c_str());
    benchmark::DoNotOptimize(a);
  }
  state.SetLabel(state.range(1) != 0 ? "ipopt" : "native");
}
BENCHMARK(BM_ParetoCommand)
    ->ArgNames({"sensitivity", "ipopt"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
