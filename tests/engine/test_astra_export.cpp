// The ASTRA-sim 2 export: the ASTRA-sim 1.0 text writer round-trips through the
// reader, and the network, system and remote-memory files hold the values of
// model.md section 9 and tests/data/astra-sim/README.md, computed here by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "engine_test_support.hpp"
#include "libra/analysis.hpp"
#include "libra/astra_export.hpp"
#include "libra/astra_trace.hpp"
#include "libra/collective_model.hpp"
#include "libra/file_names.hpp"
#include "libra/libra_format.hpp"

namespace libra {
namespace {

using test::makeCommunicator;
using test::makeDim;
using test::makeLayer;
using test::makePhase;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// chip Ring(4), node FullyConnected(2), pod Switch(8): 64 NPUs.
Network threeDims() {
  Network n;
  n.dims = {makeDim("chip", BuildingBlock::Ring, 4, "Package"),
            makeDim("node", BuildingBlock::FullyConnected, 2, "Node"),
            makeDim("pod", BuildingBlock::Switch, 8, "Pod")};
  return n;
}

CostModel threeLevels() {
  return test::makeCostModel(
      {{"Package", {2, 0, 0}}, {"Node", {4, 0, 0}}, {"Pod", {7.8, 18, 31.6}}});
}

Workload dataParallel() {
  Workload w;
  w.name = "dp";
  w.communicator = makeCommunicator({1, 1, 1}, {1, 1, 1}, {4, 2, 8});
  w.layers = {
      makeLayer("embed", makePhase(1000), makePhase(2000),
                makePhase(3000, CollectiveType::AllReduce, 1e9)),
      makeLayer("mlp", makePhase(40), makePhase(0, CollectiveType::None, 0),
                makePhase(7, CollectiveType::ReduceScatter, 65536)),
      makeLayer("head", makePhase(5), makePhase(6),
                makePhase(0, CollectiveType::AllGather, 1048576)),
  };
  std::vector<Layer> layers = w.layers.get();
  layers[2].updateNs = 12;
  w.layers = layers;
  return w;
}

AstraSim1Workload writeAndCheck(const Workload& w, const Network& n) {
  EXPECT_EQ(astraSim1Limitation(w, n), std::nullopt);
  return writeAstraSim1Workload(w, n);
}

// ---------------------------------------------------------------------------
// The text writer.

TEST(AstraSim1Writer, DataParallelRoundTripsThroughTheReader) {
  const Network n = threeDims();
  const Workload w = dataParallel();
  const AstraSim1Workload text = writeAndCheck(w, n);
  EXPECT_EQ(text.parallelism, "DATA");
  EXPECT_EQ(text.modelParallelGroup, std::nullopt);
  EXPECT_EQ(text.roundedValues, 0);
  EXPECT_EQ(text.text,
            "DATA\n3\n"
            "embed -1 1000 NONE 0 2000 NONE 0 3000 ALLREDUCE 1000000000 0\n"
            "mlp -1 40 NONE 0 0 NONE 0 7 REDUCESCATTER 65536 0\n"
            "head -1 5 NONE 0 6 NONE 0 0 ALLGATHER 1048576 12\n");

  const WorkloadFile back = readWorkloadText(text.text, "dp.txt", "dp");
  EXPECT_EQ(back.parallelism, "DATA");
  EXPECT_EQ(back.modelParallelGroup, std::nullopt);
  EXPECT_EQ(back.workload.layers, w.layers);
  // What the importer derives from a DATA header: data parallel over every NPU.
  EXPECT_EQ(deriveCommunicator(n, 1), w.communicator);
}

TEST(AstraSim1Writer, HybridHeaderCarriesTheTensorParallelDegree) {
  // FC(2) shared: tensor parallel over chip x node (8), data parallel over the pod.
  const Network n = threeDims();
  Workload w;
  w.name = "hybrid";
  w.communicator = deriveCommunicator(n, 8);
  w.layers = {makeLayer("a", makePhase(100, CollectiveType::AllGather, 4e6),
                        makePhase(200, CollectiveType::ReduceScatter, 8e6),
                        makePhase(300, CollectiveType::AllReduce, 1.6e7)),
              makeLayer("b", makePhase(400, CollectiveType::AllToAll, 2e6), makePhase(600),
                        makePhase(500, CollectiveType::AllReduce, 8e6))};
  const AstraSim1Workload text = writeAndCheck(w, n);
  EXPECT_EQ(text.parallelism, "HYBRID_TRANSFORMER");
  EXPECT_EQ(text.modelParallelGroup, 8);
  EXPECT_EQ(text.text.substr(0, text.text.find('\n')),
            "HYBRID_TRANSFORMER model_parallel_NPU_group: 8");

  const WorkloadFile back = readWorkloadText(text.text, "hybrid.txt", "hybrid");
  EXPECT_EQ(back.parallelism, "HYBRID_TRANSFORMER");
  EXPECT_EQ(back.modelParallelGroup, 8);
  EXPECT_EQ(back.workload.layers, w.layers);
  EXPECT_EQ(deriveCommunicator(n, *back.modelParallelGroup), w.communicator);
}

TEST(AstraSim1Writer, TensorParallelOverEveryNpuIsModel) {
  const Network n = threeDims();
  Workload w;
  w.name = "tp";
  w.communicator = makeCommunicator({4, 2, 8}, {4, 2, 8}, {1, 1, 1});
  w.layers = {makeLayer("x", makePhase(1, CollectiveType::AllReduce, 1024),
                        makePhase(2, CollectiveType::AllReduce, 1024), makePhase(3))};
  const AstraSim1Workload text = writeAndCheck(w, n);
  EXPECT_EQ(text.parallelism, "MODEL");
  const WorkloadFile back = readWorkloadText(text.text, "tp.txt", "tp");
  EXPECT_EQ(back.parallelism, "MODEL");
  EXPECT_EQ(back.workload.layers, w.layers);
  EXPECT_EQ(deriveCommunicator(n, static_cast<int>(n.npuCount())), w.communicator);
}

TEST(AstraSim1Writer, GroupsOfPhasesWithoutCollectivesDoNotMatter) {
  // The forward and input-gradient groups are odd, but those phases move nothing.
  const Network n = threeDims();
  Workload w = dataParallel();
  w.communicator = makeCommunicator({2, 1, 1}, {1, 2, 1}, {4, 2, 8});
  EXPECT_EQ(writeAndCheck(w, n).parallelism, "DATA");
}

TEST(AstraSim1Writer, WholeNumbersOnlyAndNamesWithoutBlanks) {
  const Network n = threeDims();
  Workload w = dataParallel();
  std::vector<Layer> layers = w.layers.get();
  layers[0].name = "first layer";
  layers[1].name = "";
  layers[0].phase(PhaseKind::Forward).computeNs = 1.5;
  layers[1].phase(PhaseKind::WeightGrad).sizeBytes = 100.25;
  w.layers = layers;
  const AstraSim1Workload text = writeAndCheck(w, n);
  EXPECT_EQ(text.roundedValues, 2);
  EXPECT_EQ(text.renamedLayers, 2);
  EXPECT_THAT(text.text, HasSubstr("\nfirst_layer -1 2 NONE 0 2000"));
  EXPECT_THAT(text.text, HasSubstr("\nlayer1 -1 40 NONE 0 0 NONE 0 7 REDUCESCATTER 100 0\n"));
  const WorkloadFile back = readWorkloadText(text.text, "dp.txt", "dp");
  EXPECT_EQ(back.workload.layers[0].phase(PhaseKind::Forward).computeNs, 2);
}

TEST(AstraSim1Writer, PhasesWithTheirOwnGroupsCannotBeWritten) {
  const Network n = threeDims();
  Workload w = dataParallel();
  std::vector<Layer> layers = w.layers.get();
  layers[1].phase(PhaseKind::WeightGrad).groups = {4, 1, 1};
  // Own groups equal to the communicator's change nothing.
  layers[0].phase(PhaseKind::WeightGrad).groups = {4, 2, 8};
  w.layers = layers;
  const auto why = astraSim1Limitation(w, n);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("1 phase(s) have their own group sizes"));
  EXPECT_THAT(*why, HasSubstr("'mlp' weight_grad"));
  EXPECT_THROW(writeAstraSim1Workload(w, n), InputError);
}

TEST(AstraSim1Writer, CommunicatorsNoHeaderDescribes) {
  // Data parallel over the inner dimensions only: no header says that.
  const Network n = threeDims();
  Workload w = dataParallel();
  w.communicator = makeCommunicator({1, 1, 1}, {1, 1, 1}, {4, 2, 1});
  const auto why = astraSim1Limitation(w, n);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("weight gradient [4, 2, 1]"));
  try {
    (void)writeAstraSim1Workload(w, n);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("workload 'dp'"));
  }
}

// ---------------------------------------------------------------------------
// Network, system and remote-memory files.

TEST(AstraExportFiles, LinkBandwidthPerBlock) {
  // model.md section 9: Ring bw_d, FullyConnected bw_d / (n_d - 1), Switch bw_d; GB = 2^30.
  EXPECT_EQ(astraLinkBandwidth(BuildingBlock::Ring, 8, 100), 100e9 / kGiB);
  EXPECT_EQ(astraLinkBandwidth(BuildingBlock::FullyConnected, 8, 140), 140e9 / 7 / kGiB);
  EXPECT_EQ(astraLinkBandwidth(BuildingBlock::Switch, 16, 50), 50e9 / kGiB);
}

TEST(AstraExportFiles, NetworkYml) {
  Network n = threeDims();
  n.dims[0].latencyNs = 100;
  n.dims[1].latencyNs = 250.5;
  n.dims[2].latencyNs = 0;
  const std::vector<double> bw{128, 64, 1.073741824};
  const std::string yml = astraNetworkYml(n, bw);
  EXPECT_THAT(yml, HasSubstr("\ntopology: [ Ring, FullyConnected, Switch ]\n"));
  EXPECT_THAT(yml, HasSubstr("\nnpus_count: [ 4, 2, 8 ]\n"));
  // 128e9 / 2^30 = 119.20928955078125; 64e9 / 1 / 2^30 = 59.604644775390625; 1.073741824e9 / 2^30
  // = 1.
  EXPECT_THAT(yml, HasSubstr("\nbandwidth: [ 119.20928955078125, 59.604644775390625, 1 ]\n"));
  EXPECT_THAT(yml, HasSubstr("\nlatency: [ 100, 250.5, 0 ]\n"));
  EXPECT_THROW(astraNetworkYml(n, std::vector<double>{1, 2}), InputError);
}

TEST(AstraExportFiles, SystemJsonHoldsTheDocumentedConfiguration) {
  const nlohmann::json j = nlohmann::json::parse(astraSystemJson(threeDims(), 16));
  const nlohmann::json expected = {
      {"scheduling-policy", "LIFO"},
      {"endpoint-delay", 1},
      {"active-chunks-per-dimension", 1},
      {"preferred-dataset-splits", 16},
      {"all-reduce-implementation", {"ring", "direct", "halvingDoubling"}},
      {"reduce-scatter-implementation", {"ring", "direct", "halvingDoubling"}},
      {"all-gather-implementation", {"ring", "direct", "halvingDoubling"}},
      {"all-to-all-implementation", {"direct1", "direct", "direct1"}},
      {"collective-optimization", "localBWAware"},
      {"local-mem-bw", 1000000000000LL},
      {"boost-mode", 0}};
  EXPECT_EQ(j, expected);
  EXPECT_EQ(nlohmann::json::parse(astraRemoteMemoryJson()),
            nlohmann::json({{"memory-type", "NO_MEMORY_EXPANSION"}}));
}

// ---------------------------------------------------------------------------
// The whole export.

Project oneCollective() {
  Workload w = dataParallel();
  w.name = "single all-reduce";
  return test::makeProject(threeDims(), threeLevels(), {w}, TrainingLoop::NoOverlap,
                           {"total == 500"});
}

const AstraExportFile* find(const AstraExport& e, const std::string& path) {
  for (const AstraExportFile& f : e.files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

TEST(AstraExport, FilesOfAnEvaluatedDesign) {
  const Project p = oneCollective();
  AnalysisOptions o;
  o.design = std::vector<double>{100, 50, 200};
  o.model.chunks = ChunkSetting::fixed(4);
  o.model.latencyNs = {10, 20, 30};
  const Analysis a = analyze(p, o);
  const AstraExport e = exportAstraSim(p, a, "one.json");
  std::vector<std::string> paths;
  for (const AstraExportFile& f : e.files) paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"network.yml", "system.json", "remote_memory.json",
                                             "workload/single_all-reduce.txt",
                                             "iteration/single_all-reduce.json",
                                             "iteration/chakra_traces.py", "README.md"}));
  EXPECT_TRUE(e.warnings.empty());
  EXPECT_EQ(e.datasetSplits, 4);
  Network withLatency = p.network;
  for (int d = 0; d < 3; ++d) withLatency.dims[d].latencyNs = 10.0 * (d + 1);
  EXPECT_EQ(find(e, "network.yml")->contents,
            astraNetworkYml(withLatency, std::vector<double>{100, 50, 200}));
  EXPECT_EQ(find(e, "system.json")->contents, astraSystemJson(p.network, 4));
  EXPECT_EQ(find(e, "workload/single_all-reduce.txt")->contents,
            writeAstraSim1Workload(p.workloads[0], p.network).text);
  const std::string& readme = find(e, "README.md")->contents;
  EXPECT_THAT(readme, HasSubstr("libra evaluate one.json --bandwidth 100,50,200 --chunks 4 "
                                "--latency 10,20,30"));
  EXPECT_THAT(readme, HasSubstr("they break `total == 500`"));  // 350 GB/s in all
  EXPECT_THAT(readme, HasSubstr("--num-queues-per-dim=1"));
  EXPECT_THAT(readme, HasSubstr("--num-npus 64 --num-passes 1"));
}

TEST(AstraExport, CommandsQuoteAProjectPathWithBlanks) {
  const Project p = oneCollective();
  AnalysisOptions o;
  o.design = std::vector<double>{100, 50, 200};
  const AstraExport e = exportAstraSim(p, analyze(p, o), "my projects/it's.json");
  EXPECT_THAT(find(e, "README.md")->contents,
              HasSubstr("libra evaluate 'my projects/it'\\''s.json' --bandwidth 100,50,200"));
}

TEST(AstraExport, ChunkCountsMoveToOnesThatDivideEverySize) {
  Project p = oneCollective();  // sizes 1e9 (All-Reduce), 65536, 1048576 (All-Gather)
  AnalysisOptions o;
  o.design = std::vector<double>{100, 50, 200};
  o.model.chunks = ChunkSetting::fixed(64);  // divides every size: nothing to say
  AstraExport e = exportAstraSim(p, analyze(p, o));
  EXPECT_TRUE(e.warnings.empty());
  EXPECT_EQ(e.datasetSplits, 64);

  // 3 divides none; 4 is the nearest count that divides all (2 is farther).
  o.model.chunks = ChunkSetting::fixed(3);
  e = exportAstraSim(p, analyze(p, o));
  EXPECT_TRUE(e.warnings.empty());
  EXPECT_EQ(e.datasetSplits, 4);
  EXPECT_EQ(e.preferredSplits, 3);
  EXPECT_THAT(find(e, "README.md")->contents, HasSubstr("writes 4 instead of 3"));

  // 32 bytes cannot hold a byte per NPU (64) in any count: the count stays, and
  // what ASTRA-sim then does differently is warned about.
  std::vector<Layer> layers = p.workloads[0].layers.get();
  layers[1].phase(PhaseKind::WeightGrad).sizeBytes = 32;
  p.workloads[0].layers = layers;
  e = exportAstraSim(p, analyze(p, o));
  EXPECT_EQ(e.datasetSplits, 3);
  ASSERT_EQ(e.warnings.size(), 2u);
  EXPECT_THAT(e.warnings[0], HasSubstr("2 collective size(s) (e.g. 1048576 bytes) are not a "
                                       "multiple of the 3 chunks"));
  EXPECT_THAT(e.warnings[1], HasSubstr("(e.g. 32 bytes) are under 3 chunks x 64 NPUs"));
}

TEST(AstraExport, IdealWritesManyChunksAndAutoTheMedian) {
  const Project p = oneCollective();
  AnalysisOptions o;
  o.design = std::vector<double>{100, 50, 200};
  EXPECT_EQ(exportAstraSim(p, analyze(p, o)).datasetSplits, kAstraIdealChunks);

  o.model.chunks = ChunkSetting::automatic();
  o.model.latencyNs = {500};
  const Analysis a = analyze(p, o);
  // Three collectives, one each: the median of their own best counts.
  std::vector<int> counts;
  for (const TimeTerm& t : a.problem->time.terms) {
    ASSERT_TRUE(t.automatic());
    counts.push_back(t.schedule->bestChunks(a.design.bandwidth));
  }
  ASSERT_EQ(counts.size(), 3u);
  std::sort(counts.begin(), counts.end());
  const AstraExport e = exportAstraSim(p, a);
  EXPECT_EQ(e.preferredSplits, counts[1]);
  EXPECT_EQ(1048576 % e.datasetSplits, 0);
  EXPECT_EQ(65536 % e.datasetSplits, 0);
  EXPECT_THAT(find(e, "README.md")->contents, HasSubstr("the median of the counts"));
}

// ---------------------------------------------------------------------------
// The training iteration as a Chakra node list (astra_trace.hpp).

// Tensor parallel over the chip ring (forward, input gradient), data parallel over
// node and pod (weight gradient); compute in fractions of a microsecond.
Project tensorAndDataParallel(TrainingLoop loop = TrainingLoop::NoOverlap) {
  Workload w;
  w.name = "tp dp";
  w.communicator = makeCommunicator({4, 1, 1}, {4, 1, 1}, {1, 2, 8});
  w.layers = {
      makeLayer("attn", makePhase(1234.5, CollectiveType::AllReduce, 3 * 1048576.0),
                makePhase(2000.25, CollectiveType::AllGather, 65536),
                makePhase(777.7, CollectiveType::AllReduce, 6 * 1048576.0)),
      makeLayer("mlp", makePhase(400.4), makePhase(0.3, CollectiveType::ReduceScatter, 1048576),
                makePhase(99.9, CollectiveType::AllReduce, 12 * 1048576.0)),
      makeLayer("head", makePhase(5000.5), makePhase(6.6), makePhase(0)),
  };
  return test::makeProject(threeDims(), threeLevels(), {w}, loop, {"total == 500"});
}

Analysis analyzedAt(const Project& p, ChunkSetting chunks) {
  AnalysisOptions o;
  o.design = std::vector<double>{100, 50, 200};
  o.model.chunks = chunks;
  o.model.latencyNs = {500, 500, 936.25};
  return analyze(p, o);
}

nlohmann::json nodeList(const AstraExport& e, const std::string& path) {
  const AstraExportFile* f = find(e, path);
  EXPECT_NE(f, nullptr) << path;
  return f == nullptr ? nlohmann::json() : nlohmann::json::parse(f->contents);
}

// The project's predicted iteration time with `chunks` fixed.
double predictedAt(const Project& p, const Analysis& a, int chunks) {
  Project at = p;
  at.model = a.model;
  at.model.collectives.chunks = ChunkSetting::fixed(chunks);
  for (std::size_t d = 0; d < at.network.dims.size(); ++d) {
    at.network.dims[d].latencyNs = a.latencyNs[d];
  }
  return buildProblem(at).evaluate(a.design.bandwidth).iterationNs;
}

TEST(AstraIteration, ComputeIsWholeMicrosecondsAndTheChainSumsToThePrediction) {
  for (TrainingLoop loop : {TrainingLoop::NoOverlap, TrainingLoop::Recompute}) {
    const Project p = tensorAndDataParallel(loop);
    const Analysis a = analyzedAt(p, ChunkSetting::fixed(4));
    const AstraExport e = exportAstraSim(p, a);
    const nlohmann::json j = nodeList(e, "iteration/tp_dp.json");
    ASSERT_TRUE(j.is_object());
    double computeUs = 0, collectivesNs = 0;
    int collectives = 0;
    for (std::size_t i = 0; i < j["nodes"].size(); ++i) {
      const nlohmann::json& n = j["nodes"][i];
      EXPECT_EQ(n["id"], i);
      EXPECT_EQ(n["deps"], i == 0 ? nlohmann::json::array() : nlohmann::json::array({i - 1}));
      if (n["type"] == "COMP_NODE") {
        ASSERT_TRUE(n["duration_micros"].is_number_integer()) << n.dump();
        EXPECT_GT(n["duration_micros"].get<long long>(), 0);
        computeUs += n["duration_micros"].get<double>();
      } else {
        collectivesNs += n["predicted_ns"].get<double>();
        ++collectives;
      }
    }
    // Forward collectives run twice with recomputation.
    EXPECT_EQ(collectives, loop == TrainingLoop::Recompute ? 6 : 5);
    const double exactCompute = j["compute_ns"].get<double>();
    EXPECT_NEAR(computeUs * 1000, exactCompute, 500.0);
    EXPECT_EQ(computeUs, j["compute_micros"].get<double>());
    const double predicted = predictedAt(p, a, 4);
    EXPECT_NEAR(exactCompute + collectivesNs, predicted, 1e-6 * predicted);
    EXPECT_NEAR(j["predicted_iteration_ns"].get<double>(), predicted, 1e-6 * predicted);
    EXPECT_NEAR(computeUs * 1000 + collectivesNs, predicted, 500.0 + 1e-6 * predicted);
  }
}

TEST(AstraIteration, InvolvedDimensionsAreTheGroupsDimensions) {
  const Project p = tensorAndDataParallel();
  const AstraExport e = exportAstraSim(p, analyzedAt(p, ChunkSetting::fixed(4)));
  const nlohmann::json j = nodeList(e, "iteration/tp_dp.json");
  std::map<std::string, nlohmann::json> dims;
  for (const nlohmann::json& n : j["nodes"]) {
    if (n["type"] == "COMM_COLL_NODE") dims[n["name"].get<std::string>()] = n["involved_dim"];
  }
  const nlohmann::json tp = {true, false, false}, dp = {false, true, true};
  EXPECT_EQ(
      dims,
      (std::map<std::string, nlohmann::json>{
          {"attn.fwd", tp}, {"attn.ig", tp}, {"attn.wg", dp}, {"mlp.ig", tp}, {"mlp.wg", dp}}));
  EXPECT_EQ(j["dimensions"], 3);
  EXPECT_EQ(j["npus"], 64);
}

TEST(AstraIteration, TheChunkCountDividesEveryCollectiveSize) {
  const Project p = tensorAndDataParallel();
  for (ChunkSetting chunks : {ChunkSetting::ideal(), ChunkSetting::automatic(),
                              ChunkSetting::fixed(5), ChunkSetting::fixed(48)}) {
    const AstraExport e = exportAstraSim(p, analyzedAt(p, chunks));
    const nlohmann::json j = nodeList(e, "iteration/tp_dp.json");
    for (const nlohmann::json& n : j["nodes"]) {
      if (n["type"] != "COMM_COLL_NODE") continue;
      EXPECT_EQ(n["comm_size"].get<long long>() % e.datasetSplits, 0)
          << chunks.toString() << ": " << n.dump();
    }
    EXPECT_EQ(nlohmann::json::parse(find(e, "system.json")->contents)["preferred-dataset-splits"],
              e.datasetSplits);
    // Nothing left to warn about: every count divides.
    EXPECT_THAT(e.warnings, Not(::testing::Contains(HasSubstr("not a multiple"))));
  }
  // 5 and 48 do not divide 65536: the nearest counts that do.
  EXPECT_EQ(exportAstraSim(p, analyzedAt(p, ChunkSetting::fixed(5))).datasetSplits, 4);
  const AstraExport e48 = exportAstraSim(p, analyzedAt(p, ChunkSetting::fixed(48)));
  EXPECT_EQ(e48.datasetSplits, 64);
  EXPECT_EQ(e48.preferredSplits, 48);
  const std::string& readme = find(e48, "README.md")->contents;
  EXPECT_THAT(readme, HasSubstr("writes 64 instead of 48"));
  EXPECT_THAT(readme, HasSubstr("--chunks 64"));
}

TEST(AstraIteration, DivisibleSplitsNearestByRatio) {
  const std::vector<AstraChunkedSize> sizes = {{3LL * 1048576, false}, {1048576, false}};
  EXPECT_EQ(astraDivisibleSplits(10, sizes, 64), 8);
  EXPECT_EQ(astraDivisibleSplits(12, sizes, 64), 16);  // 12/8 = 1.5 > 16/12
  EXPECT_EQ(astraDivisibleSplits(64, sizes, 64), 64);
  // A chunk must hold a byte per NPU, All-Gather aside.
  EXPECT_EQ(astraDivisibleSplits(64, std::vector<AstraChunkedSize>{{4096, false}}, 256), 16);
  EXPECT_EQ(astraDivisibleSplits(64, std::vector<AstraChunkedSize>{{4096, true}}, 256), 64);
  // Odd sizes leave only 1.
  EXPECT_EQ(astraDivisibleSplits(16, std::vector<AstraChunkedSize>{{1000003, false}}, 8), 1);
}

TEST(AstraIteration, ReadmeNamesTheCommands) {
  const Project p = tensorAndDataParallel();
  const AstraExport e = exportAstraSim(p, analyzedAt(p, ChunkSetting::fixed(4)), "p.json");
  const std::string& readme = find(e, "README.md")->contents;
  EXPECT_THAT(readme, HasSubstr("PYTHONPATH=$ASTRA_SIM python3 iteration/chakra_traces.py "
                                "iteration/tp_dp.json traces/tp_dp/tp_dp\n"));
  EXPECT_THAT(readme, HasSubstr("AstraSim_Analytical_Congestion_Unaware \\\n"
                                "    --workload-configuration=traces/tp_dp/tp_dp \\\n"
                                "    --system-configuration=system.json \\\n"
                                "    --network-configuration=network.yml"));
  EXPECT_THAT(readme, HasSubstr("libra evaluate p.json --bandwidth 100,50,200 --chunks 4 "
                                "--latency 500,500,936.25"));
  EXPECT_THAT(readme, HasSubstr("off by at most 0.5 us"));
  const AstraExportFile* script = find(e, "iteration/chakra_traces.py");
  ASSERT_NE(script, nullptr);
  EXPECT_THAT(script->contents, HasSubstr("GlobalMetadata(version=\"0.0.4\")"));
  EXPECT_THAT(script->contents, HasSubstr("involved_dim"));
}

TEST(AstraIteration, APartOfADimensionBecomesADimensionOfItsOwn) {
  // Ring(4) x FullyConnected(8) x Switch(4): tensor parallel 4 x 4 (half of the
  // fully connected NPUs), data parallel 2 (4 apart) x 4.
  Project p = tensorAndDataParallel();
  p.network.dims[1].npus = 8;
  p.network.dims[2].npus = 4;
  Workload& w = p.workloads[0];
  w.communicator = makeCommunicator({4, 4, 1}, {4, 4, 1}, {1, 2, 4});
  w.communicator.stridesOf(PhaseKind::WeightGrad) = {1, 4, 1};
  const Analysis a = analyzedAt(p, ChunkSetting::fixed(4));
  const AstraExport e = exportAstraSim(p, a);
  ASSERT_NE(find(e, "iteration/network.yml"), nullptr);
  Network physical = p.network;
  for (std::size_t d = 0; d < 3; ++d) physical.dims[d].latencyNs = a.latencyNs[d];
  const AstraLogicalNetwork logical =
      astraLogicalNetwork(physical, a.design.bandwidth, p.workloads);
  ASSERT_EQ(logical.dims.size(), 4u);
  EXPECT_EQ(logical.network.dims[1].npus, 4);
  EXPECT_EQ(logical.network.dims[2].npus, 2);
  EXPECT_EQ(logical.network.dims[2].name, "node/2@4");
  // Each FullyConnected part keeps the links of the whole: bw / 7 each.
  EXPECT_DOUBLE_EQ(astraLinkBandwidth(BuildingBlock::FullyConnected, 4, logical.bandwidthGbps[1]),
                   astraLinkBandwidth(BuildingBlock::FullyConnected, 8, 50));
  EXPECT_EQ(find(e, "iteration/network.yml")->contents,
            astraNetworkYml(logical.network, logical.bandwidthGbps));
  // On the split network, with whole groups, the model gives the same times.
  CollectiveModel at4;
  at4.chunks = ChunkSetting::fixed(4);
  const std::vector<int> tpGroups = {4, 4, 1}, tpSplitGroups = {4, 4, 1, 1};
  const std::vector<int> dpGroups = {1, 2, 4}, dpSplitGroups = {1, 1, 2, 4};
  const double tp =
      collectiveTerm(CollectiveType::AllReduce, 3 * 1048576.0, tpGroups, physical, at4)
          .exact(a.design.bandwidth);
  const double tpSplit =
      collectiveTerm(CollectiveType::AllReduce, 3 * 1048576.0, tpSplitGroups, logical.network, at4)
          .exact(logical.bandwidthGbps);
  EXPECT_NEAR(tp, tpSplit, 1e-9 * tp);
  const std::vector<int> dpStrides = {1, 4, 1};
  const double dp =
      collectiveTerm(CollectiveType::AllReduce, 6 * 1048576.0, dpGroups, physical, at4, dpStrides)
          .exact(a.design.bandwidth);
  const double dpSplit =
      collectiveTerm(CollectiveType::AllReduce, 6 * 1048576.0, dpSplitGroups, logical.network, at4)
          .exact(logical.bandwidthGbps);
  EXPECT_NEAR(dp, dpSplit, 1e-9 * dp);
  const nlohmann::json j = nodeList(e, "iteration/tp_dp.json");
  EXPECT_EQ(j["nodes"][1]["involved_dim"], nlohmann::json({true, true, false, false}));
  EXPECT_THAT(find(e, "README.md")->contents,
              HasSubstr("--network-configuration=iteration/network.yml"));
}

TEST(AstraIteration, GroupsThatOverlapOnADimensionGiveOneMessageAndNoTrace) {
  Project p = tensorAndDataParallel();
  // The weight gradient over the whole chip ring, the forward pass over half of it.
  p.workloads[0].communicator = makeCommunicator({2, 1, 1}, {2, 1, 1}, {4, 2, 8});
  const AstraExport e = exportAstraSim(p, analyzedAt(p, ChunkSetting::fixed(4)));
  EXPECT_EQ(find(e, "iteration/tp_dp.json"), nullptr);
  EXPECT_EQ(find(e, "iteration/chakra_traces.py"), nullptr);
  std::vector<std::string> messages;
  for (const std::string& w : e.warnings) {
    if (w.find("Chakra trace") != std::string::npos) messages.push_back(w);
  }
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_THAT(messages[0], HasSubstr("no Chakra trace was written: workload 'tp dp', layer 1 "
                                     "('attn') weight_grad: its group of 4 NPUs 1 apart on "
                                     "dimension 0 ('chip', 4 NPUs) overlaps the group of 2"));
  EXPECT_THAT(find(e, "README.md")->contents, Not(HasSubstr("chakra_traces.py")));
}

TEST(AstraIteration, TheOverlapLoopHasNoTrace) {
  const Project p = tensorAndDataParallel(TrainingLoop::Overlap);
  const AstraExport e = exportAstraSim(p, analyzedAt(p, ChunkSetting::fixed(4)));
  EXPECT_EQ(find(e, "iteration/tp_dp.json"), nullptr);
  EXPECT_THAT(e.warnings, ::testing::Contains(HasSubstr("workload 'tp dp' has no Chakra trace: "
                                                        "the `overlap` training loop")));
  EXPECT_THROW(astraIterationTrace(p.workloads[0], p.network, std::vector<double>{1, 1, 1},
                                   ModelOptions{TrainingLoop::Overlap, {}}, AstraLogicalNetwork{}),
               InputError);
}

// The export of oneCollective() with its workload named `name` and a phase with
// groups of its own, which the text format cannot hold.
AstraExport exportWithUnwritableWorkload(const std::string& name) {
  Project p = oneCollective();
  p.workloads[0].name = name;
  std::vector<Layer> layers = p.workloads[0].layers.get();
  layers[1].phase(PhaseKind::WeightGrad).groups = {4, 1, 1};
  p.workloads[0].layers = layers;
  AnalysisOptions o;
  o.design = std::vector<double>{100, 50, 200};
  return exportAstraSim(p, analyze(p, o));
}

TEST(AstraExport, WorkloadsTheFormatCannotHoldAreLeftOutWithAWarning) {
  const AstraExport e = exportWithUnwritableWorkload("single all-reduce");
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_THAT(e.warnings[0], HasSubstr("workload 'single all-reduce' was not written"));
  for (const AstraExportFile& f : e.files) EXPECT_NE(f.path.rfind("workload/", 0), 0u) << f.path;
  EXPECT_THAT(find(e, "README.md")->contents, HasSubstr("was not written"));
}

TEST(AstraExport, WarningsQuoteAtMostEightyCharactersOfAName) {
  const AstraExport e = exportWithUnwritableWorkload(std::string(300, 'w'));
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_THAT(e.warnings[0], HasSubstr("was not written"));
  EXPECT_THAT(e.warnings[0], Not(HasSubstr(std::string(81, 'w'))));
}

TEST(AstraExport, EveryDimensionNeedsBandwidth) {
  const Project p = oneCollective();
  AnalysisOptions o;
  o.design = std::vector<double>{100, 0, 200};
  const Analysis a = analyze(p, o);
  try {
    (void)exportAstraSim(p, a);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("dimension 1 ('node')"));
    EXPECT_THAT(e.what(), HasSubstr("ASTRA-sim"));
  }
}

// A name too long to quote whole is shortened, and the constraint suggested
// names the dimension by its index.
TEST(AstraExport, ALongDimensionNameIsQuotedShort) {
  Project p = oneCollective();
  p.network.dims[1].name = std::string(300, 'd');
  AnalysisOptions o;
  o.design = std::vector<double>{100, 0, 200};
  try {
    (void)exportAstraSim(p, analyze(p, o));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), Not(HasSubstr(std::string(81, 'd'))));
    EXPECT_THAT(e.what(), HasSubstr("'bw[1] >= 1'"));
  }
}

TEST(FileNames, StemsAreShortAndPrefixesWholeCharacters) {
  EXPECT_EQ(fileStem(std::string(300, 'x')), std::string(kMaxFileStemBytes, 'x'));
  // Cut where a run of dropped characters begins: no separator is left at the end.
  EXPECT_EQ(fileStem(std::string(kMaxFileStemBytes, 'x') + " y"),
            std::string(kMaxFileStemBytes, 'x'));
  EXPECT_EQ(fileStem("\u00fcber Modell \u00fc", '_', 8), "ber_Mode");
  const std::string umlauts = "\u00e4\u00f6\u00fc";  // two bytes each
  EXPECT_EQ(utf8Prefix(umlauts, 3), "\u00e4");
  EXPECT_EQ(utf8Prefix(umlauts, 4), "\u00e4\u00f6");
  EXPECT_EQ(utf8Prefix(umlauts, 10), umlauts);
}

// ---------------------------------------------------------------------------
// Writing the files: all or nothing.

namespace fs = std::filesystem;

// A scratch folder per test, where the export folders go.
class AstraExportFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("libra-astra-export-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  // The names in a folder, hidden ones too, sorted.
  static std::vector<std::string> entries(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  static AstraExport threeFiles(const std::string& middle) {
    AstraExport e;
    e.files = {{"network.yml", "net\n"}, {middle, "text\n"}, {"README.md", "readme\n"}};
    return e;
  }
  static std::string writeError(const AstraExport& e, const fs::path& dir) {
    try {
      writeAstraExport(e, dir);
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  }
  fs::path root_;
};

TEST_F(AstraExportFolder, LongWorkloadNamesMakeShortDistinctFileNames) {
  Project p = oneCollective();
  p.workloads.push_back(p.workloads[0]);
  p.workloads[0].name = std::string(300, 'w');
  p.workloads[1].name = std::string(299, 'w') + "v";
  AnalysisOptions o;
  o.design = std::vector<double>{100, 50, 200};
  const AstraExport e = exportAstraSim(p, analyze(p, o));
  std::vector<std::string> workloadFiles;
  for (const AstraExportFile& f : e.files) {
    if (f.path.rfind("workload/", 0) == 0) workloadFiles.push_back(f.path.substr(9));
  }
  ASSERT_EQ(workloadFiles.size(), 2u);
  EXPECT_NE(workloadFiles[0], workloadFiles[1]);
  for (const std::string& name : workloadFiles) EXPECT_LE(name.size(), 110u) << name;
  writeAstraExport(e, root_ / "out");
  EXPECT_EQ(entries(root_ / "out" / "workload").size(), 2u);
}

// A file that cannot be written (a name over NAME_MAX) after another that was:
// neither the folder nor a temporary one is left, the message quotes at most 80
// characters of the name, and writing again works.
TEST_F(AstraExportFolder, AFailureHalfwayLeavesNothingAndARerunWorks) {
  AstraExport e = threeFiles("workload/" + std::string(300, 'n') + ".txt");
  const std::string message = writeError(e, root_ / "out");
  EXPECT_THAT(message, HasSubstr("File name too long"));
  EXPECT_THAT(message, Not(HasSubstr(std::string(81, 'n'))));
  EXPECT_TRUE(entries(root_).empty());

  e.files.erase(e.files.begin() + 1);
  writeAstraExport(e, root_ / "out");
  EXPECT_EQ(entries(root_), std::vector<std::string>{"out"});
  EXPECT_EQ(entries(root_ / "out"),
            (std::vector<std::string>{".libra-export", "README.md", "network.yml"}));
}

// Files in a folder that no export wrote are the user's: never written over.
TEST_F(AstraExportFolder, AFolderNoExportWroteIsNotWritten) {
  const fs::path mine = root_ / "mine";
  fs::create_directories(mine);
  std::ofstream(mine / "README.md") << "mine\n";
  EXPECT_THAT(writeError(threeFiles("system.json"), mine), HasSubstr("not empty"));
  EXPECT_EQ(inspectExportDirectory(mine), ExportDirectory::NotEmpty);
  EXPECT_THROW(writeAstraExport(threeFiles("system.json"), mine, true), InputError);
  EXPECT_EQ(entries(mine), std::vector<std::string>{"README.md"});
}

TEST_F(AstraExportFolder, ReplacesOnlyAnEarlierExportAsAWhole) {
  const fs::path out = root_ / "out";
  EXPECT_EQ(inspectExportDirectory(out), ExportDirectory::Missing);
  fs::create_directories(out);
  EXPECT_EQ(inspectExportDirectory(out), ExportDirectory::Empty);
  writeAstraExport(threeFiles("workload/old.txt"), out);
  EXPECT_EQ(inspectExportDirectory(out), ExportDirectory::EarlierExport);
  // Not without being asked to.
  EXPECT_THAT(writeError(threeFiles("workload/new.txt"), out), HasSubstr("earlier export"));
  EXPECT_TRUE(fs::exists(out / "workload" / "old.txt"));

  writeAstraExport(threeFiles("workload/new.txt"), out, true);
  EXPECT_EQ(entries(out / "workload"), std::vector<std::string>{"new.txt"});
  EXPECT_EQ(entries(root_), std::vector<std::string>{"out"});
}

TEST_F(AstraExportFolder, SymbolicLinksAreNeverFollowed) {
  const fs::path real = root_ / "real";
  writeAstraExport(threeFiles("system.json"), real);
  const fs::path link = root_ / "link";
  fs::create_directory_symlink(real, link);
  EXPECT_THROW((void)inspectExportDirectory(link), InputError);
  EXPECT_THROW(writeAstraExport(threeFiles("other.json"), link, true), InputError);
  fs::create_directory_symlink(root_ / "missing", root_ / "dangling");
  EXPECT_THROW(writeAstraExport(threeFiles("other.json"), root_ / "dangling"), InputError);
  EXPECT_FALSE(fs::exists(root_ / "missing"));

  // A marker that is a link does not make a folder an earlier export.
  const fs::path fake = root_ / "fake";
  fs::create_directories(fake);
  fs::create_symlink(real / ".libra-export", fake / ".libra-export");
  EXPECT_EQ(inspectExportDirectory(fake), ExportDirectory::NotEmpty);

  // A link inside an earlier export goes with it; what it points to stays.
  fs::create_directory_symlink(root_ / "fake", real / "inside");
  writeAstraExport(threeFiles("other.json"), real, true);
  EXPECT_FALSE(fs::exists(real / "inside"));
  EXPECT_TRUE(fs::is_symlink(fake / ".libra-export"));
  EXPECT_EQ(entries(root_), (std::vector<std::string>{"dangling", "fake", "link", "real"}));
}

}  // namespace
}  // namespace libra
