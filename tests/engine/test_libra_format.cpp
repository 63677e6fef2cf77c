// The reference input formats: every file the LIBRA authors publish parses, the
// derived communicators equal theirs, and malformed inputs give messages that
// name the file and the line or key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include "engine_test_support.hpp"
#include "libra/cost.hpp"
#include "libra/error.hpp"
#include "libra/libra_format.hpp"
#include "libra/project_io.hpp"
#include "libra/traffic.hpp"

namespace libra {
namespace {

namespace fs = std::filesystem;

using test::makePhase;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const fs::path kReference = LIBRA_REFERENCE_DIR;
const fs::path kLibra = kReference / "libra-inputs";
const fs::path kSc22 = kReference / "sc22-inputs";

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() /
            ("libra-format-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path write(const std::string& name, const std::string& contents) const {
    std::ofstream(path_ / name, std::ios::binary) << contents;
    return path_ / name;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<fs::path> filesIn(const fs::path& dir, const std::string& extension) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == extension) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Network network4d() {
  return readNetworkFile(kLibra / "network/4d_network.yml");
}

// ---------------------------------------------------------------------------
// Every reference file parses.

TEST(LibraFormatReference, EveryFileParses) {
  int files = 0;
  for (const auto& path : filesIn(kLibra / "network", ".yml")) {
    SCOPED_TRACE(path);
    EXPECT_NO_THROW(readNetworkFile(path));
    ++files;
  }
  for (const auto& path : filesIn(kSc22 / "network", ".json")) {
    SCOPED_TRACE(path);
    EXPECT_NO_THROW(readNetworkFile(path));
    ++files;
  }
  for (const auto& path : filesIn(kLibra / "cost_model", ".yml")) {
    SCOPED_TRACE(path);
    EXPECT_NO_THROW(readCostModelFile(path));
    ++files;
  }
  EXPECT_NO_THROW(readCostModelFile(kSc22 / "cost/cost.json"));
  ++files;
  for (const auto& dir : {kLibra / "workload", kSc22 / "workload"}) {
    for (const auto& path : filesIn(dir, ".txt")) {
      SCOPED_TRACE(path);
      EXPECT_NO_THROW(readWorkloadFile(path));
      ++files;
    }
  }
  const Network net3 = readNetworkFile(kLibra / "network/3d_network.yml");
  const Network net4 = network4d();
  for (const auto& path : filesIn(kLibra / "communicator", ".yml")) {
    SCOPED_TRACE(path);
    const std::string stem = path.stem().string();
    const bool is3d = stem.ends_with("3d") || stem.ends_with("3D");
    EXPECT_NO_THROW(readCommunicatorFile(path, is3d ? net3 : net4));
    ++files;
  }
  EXPECT_EQ(files, 24);  // all the inputs but the two LICENSE files
}

TEST(LibraFormatReference, LibraNetworks) {
  const Network n = network4d();
  ASSERT_EQ(n.size(), 4);
  EXPECT_EQ(n.names(), (std::vector<std::string>{"chiplet", "package", "node", "pod"}));
  EXPECT_EQ(n.dims[0].block, BuildingBlock::Ring);
  EXPECT_EQ(n.dims[1].block, BuildingBlock::FullyConnected);
  EXPECT_EQ(n.dims[2].block, BuildingBlock::Ring);
  EXPECT_EQ(n.dims[3].block, BuildingBlock::Switch);
  EXPECT_EQ(n.dims[3].npus, 32);
  EXPECT_EQ(n.dims[0].costLevel, "InterChiplet");
  EXPECT_EQ(n.npuCount(), 4096);
  EXPECT_FALSE(n.dims[0].minBandwidth || n.dims[0].maxBandwidth || n.dims[0].fixedBandwidth);

  const NetworkFile f = readNetworkFileWithBudget(kLibra / "network/3d_network.yml");
  EXPECT_EQ(f.network.names(), (std::vector<std::string>{"package", "node", "pod"}));
  EXPECT_EQ(f.network.npuCount(), 4096);
  EXPECT_FALSE(f.totalBandwidth);
}

TEST(LibraFormatReference, Sc22Networks) {
  const NetworkFile f = readNetworkFileWithBudget(kSc22 / "network/4d.json");
  EXPECT_EQ(f.network.names(), (std::vector<std::string>{"tile", "package", "node", "pod"}));
  EXPECT_EQ(f.network.dims[3].costLevel, "Pod");
  EXPECT_EQ(f.network.dims[1].block, BuildingBlock::FullyConnected);
  EXPECT_EQ(f.network.npuCount(), 1024);
  EXPECT_EQ(f.totalBandwidth, 100.0);
  EXPECT_EQ(readNetworkFile(kSc22 / "network/2d.json").npuCount(), 1024);
}

TEST(LibraFormatReference, CostModels) {
  const CostModel m = readCostModelFile(kLibra / "cost_model/4d_cost_model.yml");
  ASSERT_EQ(m.levels.size(), 4u);
  EXPECT_EQ(m.levels.at("InterChiplet"), (CostLevel{2.00001, std::nullopt, std::nullopt}));
  EXPECT_EQ(m.levels.at("InterPod"), (CostLevel{7.80004, 18.00004, 31.60004}));
  EXPECT_EQ(m.levels.at("InterNode").switchPrice, 13.00003);

  // The SC22 json holds the published prices under the short level names.
  const CostModel json = readCostModelFile(kSc22 / "cost/cost.json");
  const CostModel reference = referenceCostModel();
  ASSERT_EQ(json.levels.size(), 4u);
  for (const auto& [name, level] : json.levels) EXPECT_EQ(level, reference.levels.at(name)) << name;
}

TEST(LibraFormatReference, Workloads) {
  const WorkloadFile gpt = readWorkloadFile(kLibra / "workload/GPT_3.txt");
  EXPECT_EQ(gpt.workload.name, "GPT_3");
  EXPECT_FALSE(gpt.parallelism);
  EXPECT_FALSE(gpt.modelParallelGroup);
  ASSERT_EQ(gpt.workload.layers.size(), 18u);
  const Layer& q1 = gpt.workload.layers[0];
  EXPECT_EQ(q1.name, "Q1");
  EXPECT_EQ(q1.phase(PhaseKind::Forward), makePhase(9375000, CollectiveType::None, 0));
  EXPECT_EQ(q1.phase(PhaseKind::InputGrad),
            makePhase(9375000, CollectiveType::AllReduce, 805306368));
  EXPECT_EQ(q1.phase(PhaseKind::WeightGrad),
            makePhase(9375000, CollectiveType::AllReduce, 452984832));
  EXPECT_EQ(q1.updateNs, 10);
  EXPECT_EQ(gpt.workload.layers[5].phase(PhaseKind::InputGrad).collective,
            CollectiveType::AllGather);
  EXPECT_EQ(gpt.workload.layers[17].name, "layerNorm2");

  const WorkloadFile dlrm = readWorkloadFile(kLibra / "workload/DLRM.txt");
  EXPECT_EQ(dlrm.workload.layers[0].phase(PhaseKind::Forward),
            makePhase(419431, CollectiveType::AllToAll, 4194304));

  const WorkloadFile t175 = readWorkloadFile(kSc22 / "workload/transformer_175B.txt");
  EXPECT_EQ(t175.parallelism, "HYBRID_TRANSFORMER_FWD_IN_BCKWD");
  EXPECT_EQ(t175.modelParallelGroup, 16);
  ASSERT_EQ(t175.workload.layers.size(), 18u);
  EXPECT_EQ(t175.workload.layers[0].phase(PhaseKind::WeightGrad).sizeBytes, 18874368);
  EXPECT_EQ(t175.workload.layers[17].phase(PhaseKind::Forward),
            makePhase(12207, CollectiveType::None, 0));
  EXPECT_EQ(readWorkloadFile(kSc22 / "workload/transformer_1T.txt").modelParallelGroup, 128);
  EXPECT_EQ(readWorkloadFile(kSc22 / "workload/transformer_17B.txt").modelParallelGroup, 1);
}

// ---------------------------------------------------------------------------
// Communicators.

struct CommunicatorCase {
  std::string file;
  std::string network;
  int tensorParallel;
};

void PrintTo(const CommunicatorCase& c, std::ostream* os) {
  *os << c.file;
}

class LibraFormatDerivedCommunicator : public ::testing::TestWithParam<CommunicatorCase> {};

TEST_P(LibraFormatDerivedCommunicator, EqualsTheReferenceFile) {
  const auto& c = GetParam();
  const Network net = readNetworkFile(kLibra / "network" / c.network);
  const Communicator reference = readCommunicatorFile(kLibra / "communicator" / c.file, net);
  // The reference files give group sizes only; the derived communicator also
  // says where the data-parallel groups lie on a dimension they share with TP
  // (mapping.hpp), which only the chunked models charge.
  const Communicator derived = deriveCommunicator(net, c.tensorParallel);
  EXPECT_EQ(derived.groups, reference.groups);
  for (PhaseKind kind : kPhaseKinds) {
    const std::vector<int>& strides = derived.stridesOf(kind);
    for (std::size_t d = 0; d < strides.size(); ++d) {
      const int tp = derived.of(PhaseKind::Forward)[d];
      EXPECT_EQ(strides[d], kind == PhaseKind::WeightGrad && derived.of(kind)[d] > 1 ? tp : 1);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Reference, LibraFormatDerivedCommunicator,
    ::testing::Values(CommunicatorCase{"GPT_3_3d.yml", "3d_network.yml", 16},
                      CommunicatorCase{"GPT_3_4d.yml", "4d_network.yml", 16},
                      CommunicatorCase{"MSFT_1T_3d.yml", "3d_network.yml", 128},
                      CommunicatorCase{"MSFT_1T_4d.yml", "4d_network.yml", 128},
                      CommunicatorCase{"ResNet_50_3d.yml", "3d_network.yml", 1},
                      CommunicatorCase{"ResNet_50_4d.yml", "4d_network.yml", 1},
                      CommunicatorCase{"Turing_NLG_3D.yml", "3d_network.yml", 1},
                      CommunicatorCase{"Turing_NLG_4D.yml", "4d_network.yml", 1}),
    [](const auto& info) { return fs::path(info.param.file).stem().string(); });

TEST(LibraFormatDerive, GptOnTheFourDimensionalNetwork) {
  const Communicator c = deriveCommunicator(network4d(), 16);
  EXPECT_THAT(c.of(PhaseKind::Forward), ElementsAre(4, 4, 1, 1));
  EXPECT_THAT(c.of(PhaseKind::InputGrad), ElementsAre(4, 4, 1, 1));
  EXPECT_THAT(c.of(PhaseKind::WeightGrad), ElementsAre(1, 2, 4, 32));
  EXPECT_THAT(deriveCommunicator(network4d(), 4096).of(PhaseKind::WeightGrad),
              ElementsAre(1, 1, 1, 1));
}

TEST(LibraFormatDerive, DegreesThatDoNotFit) {
  try {
    (void)deriveCommunicator(network4d(), 12);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("tensor-parallel degree 12 does not fit network 4 x 8 x 4 x 32: "));
    // ... and says why: 12 does not divide the network's 4096 NPUs.
    EXPECT_THAT(e.what(), HasSubstr("12 does not divide the network's 4096 NPUs"));
  }
  EXPECT_THROW((void)deriveCommunicator(network4d(), 3), InputError);
  EXPECT_THROW((void)deriveCommunicator(network4d(), 8192), InputError);
  EXPECT_THROW((void)deriveCommunicator(network4d(), 0), InputError);
}

// ---------------------------------------------------------------------------
// Traffic of GPT-3 on the 4D network with the reference communicator.

TEST(LibraFormatReference, GptTrafficOnFourDimensions) {
  const Network net = network4d();
  const Communicator comm = readCommunicatorFile(kLibra / "communicator/GPT_3_4d.yml", net);
  const auto layers = readWorkloadFile(kLibra / "workload/GPT_3.txt").workload.layers;
  auto traffic = [&](std::size_t layer, PhaseKind kind) {
    const Phase& p = layers[layer].phase(kind);
    return collectiveTraffic(p.collective, p.sizeBytes, comm.of(kind));
  };
  // Q1 input gradient: AllReduce of 805306368 B over 4 x 4 (inner to outer):
  // 2 S 3/4 on dim 0, then 2 (S/4) 3/4 on dim 1.
  EXPECT_THAT(traffic(0, PhaseKind::InputGrad), ElementsAre(1207959552, 301989888, 0, 0));
  // Q1 weight gradient: AllReduce of 452984832 B over 2 x 4 x 32.
  EXPECT_THAT(traffic(0, PhaseKind::WeightGrad), ElementsAre(0, 452984832, 339738624, 109707264));
  // concat1 input gradient: AllGather of a 50331648 B shard, outer to inner:
  // S 3 on dim 1, then 4 S 3 on dim 0.
  EXPECT_THAT(traffic(5, PhaseKind::InputGrad), ElementsAre(603979776, 150994944, 0, 0));
  // X2W2b2 forward: the same AllReduce as Q1's input gradient.
  EXPECT_EQ(traffic(16, PhaseKind::Forward), traffic(0, PhaseKind::InputGrad));
  EXPECT_THAT(traffic(1, PhaseKind::WeightGrad), ElementsAre(0, 0, 0, 0));
}

// ---------------------------------------------------------------------------
// Import.

TEST(LibraFormatImport, WithEveryFileGiven) {
  ImportOptions o;
  o.network = kLibra / "network/4d_network.yml";
  o.workload = kLibra / "workload/GPT_3.txt";
  o.communicator = kLibra / "communicator/GPT_3_4d.yml";
  o.costModel = kLibra / "cost_model/4d_cost_model.yml";
  o.trainingLoop = TrainingLoop::Recompute;
  std::vector<std::string> notes;
  const Project p = importLibra(o, &notes);
  EXPECT_EQ(p.name, "GPT_3 on 4d_network");
  EXPECT_EQ(p.network, network4d());
  EXPECT_EQ(p.costModel, readCostModelFile(*o.costModel));
  ASSERT_EQ(p.workloads.size(), 1u);
  EXPECT_EQ(p.workloads[0].name, "GPT_3");
  EXPECT_EQ(p.workloads[0].communicator.groups, deriveCommunicator(p.network, 16).groups);
  EXPECT_EQ(p.model.trainingLoop, TrainingLoop::Recompute);
  EXPECT_EQ(p.constraints, std::vector<std::string>{"total == 500"});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "no bandwidth budget in the inputs: added 'total == 500' (the LIBRA paper's setting)");
  EXPECT_NO_THROW(buildProblem(p));
  EXPECT_EQ(projectFromJson(projectToJson(p)), p);
}

TEST(LibraFormatImport, DefaultsAreReported) {
  ImportOptions o;
  o.network = kLibra / "network/4d_network.yml";
  o.workload = kLibra / "workload/GPT_3.txt";
  o.name = "mine";
  std::vector<std::string> notes;
  const Project p = importLibra(o, &notes);
  EXPECT_EQ(p.name, "mine");
  EXPECT_EQ(p.workloads[0].communicator, deriveCommunicator(p.network, 1));
  // The reference prices, for the levels this network uses.
  ASSERT_EQ(p.costModel.levels.size(), 4u);
  EXPECT_EQ(p.costModel.levels.at("InterPod"), referenceCostModel().levels.at("InterPod"));
  EXPECT_THAT(notes, ::testing::Contains(HasSubstr("no cost model given")));
  EXPECT_THAT(notes, ::testing::Contains(HasSubstr(
                         "no communicator given and the workload has no header: assuming data "
                         "parallelism over all 4096 NPUs")));
  EXPECT_THAT(notes, ::testing::Contains(HasSubstr("added 'total == 500'")));
  EXPECT_NO_THROW(importLibra(o));  // notes are optional
}

TEST(LibraFormatImport, Sc22InputsUseTheHeaderAndTheBudget) {
  ImportOptions o;
  o.network = kSc22 / "network/4d.json";
  o.workload = kSc22 / "workload/transformer_175B.txt";
  o.costModel = kSc22 / "cost/cost.json";
  std::vector<std::string> notes;
  const Project p = importLibra(o, &notes);
  EXPECT_EQ(p.name, "transformer_175B on 4d");
  // Network 2 x 8 x 8 x 8, tensor parallel 16 from the inside out.
  EXPECT_THAT(p.workloads[0].communicator.of(PhaseKind::Forward), ElementsAre(2, 8, 1, 1));
  EXPECT_THAT(p.workloads[0].communicator.of(PhaseKind::WeightGrad), ElementsAre(1, 1, 8, 8));
  EXPECT_EQ(p.constraints, std::vector<std::string>{"total == 100"});
  EXPECT_THAT(notes, ::testing::Contains(HasSubstr("model_parallel_NPU_group 16")));
  EXPECT_THAT(notes, ::testing::Contains(HasSubstr("'total == 100'")));
  EXPECT_NO_THROW(buildProblem(p));
}

TEST(LibraFormatImport, HeaderDegreeThatDoesNotFitNamesTheWorkload) {
  ImportOptions o;
  o.network = kSc22 / "network/3d.json";  // 8 x 8 x 16
  TempDir dir;
  o.workload = dir.write("tp3.txt",
                         "HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\n"
                         "L -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 0\n");
  try {
    (void)importLibra(o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("tp3.txt: tensor-parallel degree 3 does not fit network 8 x 8 x 16"));
  }
}

TEST(LibraFormatImport, MissingNicForASwitchLevelNamesTheCostModel) {
  TempDir dir;
  ImportOptions o;
  o.network = kLibra / "network/3d_network.yml";
  o.workload = kLibra / "workload/ResNet_50.txt";
  o.costModel = dir.write("no_nic.yml",
                          "InterPackage: {Link: 4, Switch: 13}\nInterNode: {Link: 4}\n"
                          "InterPod:\n  Link: 7.8\n  Switch: 18\n");
  try {
    (void)importLibra(o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no_nic.yml: "));
    EXPECT_THAT(e.what(), HasSubstr("level 'InterPod' has no Nic price"));
  }
}

// ---------------------------------------------------------------------------
// Format details.

TEST(LibraFormatWorkload, TabsBlankLinesAndCrLf) {
  TempDir dir;
  const auto path = dir.write("mixed.txt",
                              "\r\nDATA\r\n\r\n2\r\n"
                              "a\t-1\t5\t\tNONE\t0\t6   ALLGATHER 7 8 REDUCESCATTER 9 10\r\n"
                              "\n   b -1 1.5 alltoall 2 0 AllReduce 1e3 0 none 0 0   \r\n\n");
  const WorkloadFile w = readWorkloadFile(path);
  EXPECT_EQ(w.parallelism, "DATA");
  EXPECT_FALSE(w.modelParallelGroup);
  ASSERT_EQ(w.workload.layers.size(), 2u);
  EXPECT_EQ(w.workload.layers[0].phase(PhaseKind::InputGrad),
            makePhase(6, CollectiveType::AllGather, 7));
  EXPECT_EQ(w.workload.layers[0].phase(PhaseKind::WeightGrad),
            makePhase(8, CollectiveType::ReduceScatter, 9));
  EXPECT_EQ(w.workload.layers[0].updateNs, 10);
  EXPECT_EQ(w.workload.layers[1].phase(PhaseKind::Forward),
            makePhase(1.5, CollectiveType::AllToAll, 2));
  EXPECT_EQ(w.workload.layers[1].phase(PhaseKind::InputGrad).sizeBytes, 1000);
}

TEST(LibraFormatNetwork, ChosenByContentNotByExtension) {
  TempDir dir;
  const auto json = dir.write("net.yml",
                              "  {\"npus-count\": [4, 2], \"topology\": [\"Ring\", \"FC\"],"
                              " \"network-type\": [\"Node\", \"Node\"]}");
  const Network n = readNetworkFile(json);
  EXPECT_EQ(n.names(), (std::vector<std::string>{"node", "node1"}));
  const auto yml =
      dir.write("net.json", "Topology: [Switch]\nNpusCount: [8]\nCostDimension: [InterPod]\n");
  EXPECT_EQ(readNetworkFile(yml).dims[0].block, BuildingBlock::Switch);
}

// ---------------------------------------------------------------------------
// Malformed inputs: each message names the file and the line or key.

enum class Reader { Network, CostModel, Communicator, Workload };

struct BadInput {
  std::string name;
  std::string file;
  std::string contents;
  Reader reader;
  std::vector<std::string> expected;  // substrings of the message
};

void PrintTo(const BadInput& c, std::ostream* os) {
  *os << c.name;
}

class LibraFormatMalformedInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(LibraFormatMalformedInput, NamesTheFileAndTheLineOrKey) {
  const BadInput& c = GetParam();
  TempDir dir;
  const fs::path path = dir.write(c.file, c.contents);
  std::string message;
  try {
    switch (c.reader) {
      case Reader::Network:
        (void)readNetworkFile(path);
        break;
      case Reader::CostModel:
        (void)readCostModelFile(path);
        break;
      case Reader::Communicator:
        (void)readCommunicatorFile(path, network4d());
        break;
      case Reader::Workload:
        (void)readWorkloadFile(path);
        break;
    }
    FAIL() << "no error";
  } catch (const InputError& e) {
    message = e.what();
  }
  EXPECT_THAT(message, HasSubstr(path.string()));
  for (const auto& part : c.expected) EXPECT_THAT(message, HasSubstr(part));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

const std::string kNet =
    "Topology: [ Ring, Switch ]\nNpusCount: [ 4, 8 ]\nCostDimension: [ InterChiplet, InterPod ]\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, LibraFormatMalformedInput,
    ::testing::Values(
        BadInput{"BadYaml",
                 "bad.yml",
                 "Topology: [ Ring, Switch\nNpusCount: [ 4, 8 ]\n",
                 Reader::Network,
                 {"bad.yml:", "malformed YAML"}},
        BadInput{"UnknownBlock",
                 "torus.yml",
                 "Topology: [ Ring, Torus ]\nNpusCount: [ 4, 8 ]\nCostDimension: [ A, B ]\n",
                 Reader::Network,
                 {"torus.yml:1:19: Topology[1]: ",
                  "unknown building block 'Torus' (expected Ring, FullyConnected or Switch)"}},
        BadInput{"OneNpu",
                 "one.yml",
                 "Topology: [ Ring, Switch ]\nNpusCount: [ 4, 1 ]\nCostDimension: [ A, B ]\n",
                 Reader::Network,
                 {"one.yml:2:17: NpusCount[1]: ", "expected an integer >= 2", "'1'"}},
        BadInput{"FractionalNpus",
                 "frac.yml",
                 "Topology: [ Ring ]\nNpusCount: [ 4.5 ]\nCostDimension: [ A ]\n",
                 Reader::Network,
                 {"frac.yml:2:", "NpusCount[0]: expected an integer >= 2", "'4.5'"}},
        BadInput{"LengthsDisagree",
                 "lengths.yml",
                 "Topology: [ Ring, FullyConnected, Switch ]\nNpusCount: [ 4, 8 ]\n"
                 "CostDimension: [ A, B, C ]\n",
                 Reader::Network,
                 {"lengths.yml:2:", "Topology has 3 entries but NpusCount has 2"}},
        BadInput{"MissingKey",
                 "missing.yml",
                 "Topology: [ Ring ]\nNpusCount: [ 4 ]\n",
                 Reader::Network,
                 {"missing.yml: ", "missing key 'CostDimension'"}},
        BadInput{"UnknownKey",
                 "extra.yml",
                 kNet + "Latency: [ 1, 2 ]\n",
                 Reader::Network,
                 {"extra.yml:4:1: Latency: ", "unknown key"}},
        BadInput{"DuplicateKey",
                 "twice.yml",
                 kNet + "NpusCount: [ 4, 8 ]\n",
                 Reader::Network,
                 {"twice.yml:4:1: ", "key 'NpusCount' appears twice (first on line 2)"}},
        BadInput{"NotAList",
                 "scalar.yml",
                 "Topology: Ring\nNpusCount: [ 4 ]\nCostDimension: [ A ]\n",
                 Reader::Network,
                 {"scalar.yml:1:11: Topology: expected a list"}},
        BadInput{"EmptyNetwork",
                 "empty.yml",
                 "# nothing here\n",
                 Reader::Network,
                 {"empty.yml: the file is empty"}},
        BadInput{"JsonUnknownBlock",
                 "net.json",
                 "{\"npus-count\": [4, 8], \"topology\": [\"Ring\", \"Mesh\"], \"network-type\": "
                 "[\"Tile\", \"Pod\"]}",
                 Reader::Network,
                 {"net.json: topology[1]: ", "unknown building block 'Mesh'"}},
        BadInput{"JsonUnknownKey",
                 "net2.json",
                 "{\"npus-count\": [4], \"topology\": [\"Ring\"], \"network-type\": [\"Tile\"], "
                 "\"latency\": 5}",
                 Reader::Network,
                 {"net2.json: latency: unknown key"}},
        BadInput{"JsonMalformed",
                 "broken.json",
                 "{\n  \"npus-count\": [4, 8],\n  \"topology\" [\n}",
                 Reader::Network,
                 {"broken.json:3:14: malformed JSON"}},
        BadInput{"JsonMissingKey",
                 "nokey.json",
                 "{\"npus-count\": [4], \"topology\": [\"Ring\"]}",
                 Reader::Network,
                 {"nokey.json: missing key 'network-type'"}},
        BadInput{"JsonBadBudget",
                 "budget.json",
                 "{\"npus-count\": [4], \"topology\": [\"Ring\"], \"network-type\": [\"Tile\"], "
                 "\"total-bandwidth\": -5}",
                 Reader::Network,
                 {"budget.json: total-bandwidth: expected a bandwidth > 0"}},
        BadInput{"NegativePrice",
                 "neg.yml",
                 "InterChiplet:\n  Link: 2\nInterPod:\n  Link: -7.8\n",
                 Reader::CostModel,
                 {"neg.yml:4:9: InterPod.Link: ", "expected a price >= 0", "'-7.8'"}},
        BadInput{"NonNumericPrice",
                 "abc.yml",
                 "InterPod:\n  Link: 7.8\n  Nic: cheap\n",
                 Reader::CostModel,
                 {"abc.yml:3:8: InterPod.Nic: ", "'cheap'"}},
        BadInput{"UnknownPriceKey",
                 "cable.yml",
                 "InterPod:\n  Link: 7.8\n  Cable: 3\n",
                 Reader::CostModel,
                 {"cable.yml:3:3: InterPod.Cable: ", "unknown key"}},
        BadInput{"LevelNotAMap",
                 "level.yml",
                 "InterPod: 7.8\n",
                 Reader::CostModel,
                 {"level.yml:1:1: InterPod: ", "expected a map with Link, Switch or Nic prices"}},
        BadInput{"JsonNegativePrice",
                 "cost.json",
                 "{\"Pod\": {\"Link\": 7.8, \"Nic\": -1}}",
                 Reader::CostModel,
                 {"cost.json: Pod.Nic: ", "expected a price >= 0"}},
        BadInput{"JsonUnknownPriceKey",
                 "cost2.json",
                 "{\"Pod\": {\"Wire\": 1}}",
                 Reader::CostModel,
                 {"cost2.json: Pod.Wire: ", "unknown key"}},
        BadInput{
            "GroupLargerThanDimension",
            "big.yml",
            "Forward: [ 8, 1, 1, 1 ]\nInputGrad: [ 4, 4, -1, -1 ]\nWeightGrad: [ -1, 2, 4, 32 ]\n",
            Reader::Communicator,
            {"big.yml:1:10: communicator forward: group size 8 on dimension 0 ('chiplet')",
             "between 1 (unused) and its 4 NPUs"}},
        BadInput{
            "CommunicatorWrongLength",
            "short.yml",
            "Forward: [ 4, 4, -1, -1 ]\nInputGrad: [ 4, 4, -1, -1 ]\nWeightGrad: [ 2, 4, 32 ]\n",
            Reader::Communicator,
            {"short.yml:3:13: communicator weight_grad",
             "lists 3 group sizes, but the network has 4 dimensions"}},
        BadInput{
            "CommunicatorNotAnInteger",
            "word.yml",
            "Forward: [ 4, 4, -1, -1 ]\nInputGrad: [ 4, x, -1, -1 ]\nWeightGrad: [ 1, 2, 4, 32 ]\n",
            Reader::Communicator,
            {"word.yml:2:17: InputGrad[1]: ", "'x'"}},
        BadInput{"CommunicatorMissingKey",
                 "two.yml",
                 "Forward: [ 4, 4, -1, -1 ]\nInputGrad: [ 4, 4, -1, -1 ]\n",
                 Reader::Communicator,
                 {"two.yml: missing key 'WeightGrad'"}},
        BadInput{"WorkloadFieldCount",
                 "GPT_3.txt",
                 "Q1 -1 1 NONE 0 1 NONE 0 1 NONE 0 10\nK1 -1 1 NONE 0 1 NONE 0 1\n",
                 Reader::Workload,
                 {"GPT_3.txt:2: expected 12 fields, found 9"}},
        BadInput{"UnknownCollective",
                 "coll.txt",
                 "\nQ1 -1 1 NONE 0 1 ALLREDUC 0 1 NONE 0 10\n",
                 Reader::Workload,
                 {"coll.txt:2: field 7 (IGtype): unknown collective type 'ALLREDUC'"}},
        BadInput{"NegativeNumber",
                 "neg.txt",
                 "Q1 -1 -5 NONE 0 1 NONE 0 1 NONE 0 10\n",
                 Reader::Workload,
                 {"neg.txt:1: field 3 (Fcompute): expected a number >= 0, got '-5'"}},
        BadInput{"NonNumericSize",
                 "size.txt",
                 "Q1 -1 5 NONE 0 1 NONE 0 1 ALLREDUCE lots 10\n",
                 Reader::Workload,
                 {"size.txt:1: field 11 (WGsize): ", "'lots'"}},
        BadInput{
            "HeaderCountMismatch",
            "count.txt",
            "DATA\n3\nQ1 -1 1 NONE 0 1 NONE 0 1 NONE 0 10\nK1 -1 1 NONE 0 1 NONE 0 1 NONE 0 10\n",
            Reader::Workload,
            {"count.txt:2: the header announces 3 layers, but the file has 2"}},
        BadInput{"HeaderBadGroup",
                 "group.txt",
                 "HYBRID_TRANSFORMER model_parallel_NPU_group: many\n1\n"
                 "Q1 -1 1 NONE 0 1 NONE 0 1 NONE 0 10\n",
                 Reader::Workload,
                 {"group.txt:1: model_parallel_NPU_group: expected a positive integer"}},
        BadInput{"HeaderBadCount",
                 "countword.txt",
                 "DATA\nten\nQ1 -1 1 NONE 0 1 NONE 0 1 NONE 0 10\n",
                 Reader::Workload,
                 {"countword.txt:2: expected the layer count"}},
        BadInput{"EmptyWorkload",
                 "nothing.txt",
                 "\n\n",
                 Reader::Workload,
                 {"nothing.txt: the file holds no layers"}}),
    [](const auto& info) { return info.param.name; });

TEST(LibraFormatErrors, UnreadableFile) {
  TempDir dir;
  try {
    (void)readWorkloadFile(dir.path() / "none.txt");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("none.txt"), HasSubstr("No such file or directory")));
  }
}

TEST(LibraFormatErrors, MissingNicViaUnitPrices) {
  TempDir dir;
  const Network net = readNetworkFile(dir.write("net.yml", kNet));
  const CostModel model = readCostModelFile(
      dir.write("cost.yml", "InterChiplet: {Link: 2}\nInterPod: {Link: 7.8, Switch: 18}\n"));
  try {
    (void)unitPrices(net, model);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(
        e.what(),
        HasSubstr("level 'InterPod' has no Nic price, but dimension 1 ('pod') is a Switch"));
  }
}

}  // namespace
}  // namespace libra
