// The project file: round trips, the exact layout, versioning, atomic saves and
// the messages of every kind of load error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "engine_test_support.hpp"
#include "libra/constraints.hpp"
#include "libra/error.hpp"
#include "libra/file_names.hpp"
#include "libra/project_io.hpp"
#include "text.hpp"

namespace libra {
namespace {

namespace fs = std::filesystem;

using test::makePhase;
using Json = nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;

// ---------------------------------------------------------------------------
// Fixtures.

// A small but complete project: two dimensions, bounds, a Switch level, two
// workloads (one with an origin), constraints and UI state.
Project sampleProject() {
  Project p;
  p.name = "GPT-3 175B on a 4D network";
  p.network.dims = {
      {"chiplet", BuildingBlock::Ring, 4, "InterChiplet", 10.0, 400.0, std::nullopt},
      {"package", BuildingBlock::FullyConnected, 8, "InterPackage", std::nullopt, std::nullopt,
       std::nullopt},
      {"node", BuildingBlock::Ring, 4, "InterNode", std::nullopt, std::nullopt, 100.0},
      {"pod", BuildingBlock::Switch, 32, "InterPod", std::nullopt, std::nullopt, std::nullopt},
  };
  p.costModel.levels["InterChiplet"] = {2.0, std::nullopt, std::nullopt};
  p.costModel.levels["InterPackage"] = {4.0, 13.0, std::nullopt};
  p.costModel.levels["InterNode"] = {4.0, 13.0, std::nullopt};
  p.costModel.levels["InterPod"] = {7.8, 18.0, 31.6};

  Workload gpt;
  gpt.name = "GPT-3";
  gpt.communicator.groups = {std::vector<int>{4, 4, 1, 1}, std::vector<int>{4, 4, 1, 1},
                             std::vector<int>{1, 2, 4, 32}};
  gpt.origin = WorkloadOrigin{"gpt3-175b", "h100", {{"dp", 256.0}, {"tp", 16.0}}, {}};
  for (int i = 0; i < 4; ++i) {
    Layer l;
    l.name = "Q" + std::to_string(i + 1);
    l.phase(PhaseKind::Forward) = makePhase(9375000, CollectiveType::None, 0);
    l.phase(PhaseKind::InputGrad) = makePhase(9375000, CollectiveType::AllReduce, 805306368);
    l.phase(PhaseKind::WeightGrad) = makePhase(9375000, CollectiveType::AllReduce, 452984832);
    l.updateNs = 10;
    gpt.layers.push_back(l);
  }
  Workload small;
  small.name = "ResNet";
  small.weight = 0.25;
  small.communicator.groups = {std::vector<int>{1, 1, 1, 1}, std::vector<int>{1, 1, 1, 1},
                               std::vector<int>{4, 8, 4, 32}};
  Layer conv;
  conv.name = "conv1";
  // An expert-parallel AllToAll with its own groups.
  conv.phase(PhaseKind::Forward) = makePhase(13003.5, CollectiveType::AllToAll, 0.1, {1, 8, 1, 1});
  conv.phase(PhaseKind::WeightGrad) = makePhase(32291, CollectiveType::AllGather, 51005824);
  small.layers.push_back(conv);
  p.workloads = {gpt, small};
  p.model.trainingLoop = TrainingLoop::Recompute;
  p.constraints = {"total == 500", "bw[0] >= bw[1]"};
  p.objective = Objective::PerfPerCost;
  p.uiState = R"({"zeta":1,"alpha":{"open":[1,2]}})";
  return p;
}

// A directory removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() /
            ("libra-project-io-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path path_;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string loadError(const std::string& text, const std::string& source = "proj.json") {
  try {
    (void)projectFromJson(text, source);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

// ---------------------------------------------------------------------------
// A generator of valid projects.

rc::Gen<double> genNonNegative() {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange(0, 100000000), [](int x) { return static_cast<double>(x); }),
      rc::gen::map(rc::gen::arbitrary<double>(),
                   [](double x) { return std::isfinite(x) ? std::abs(x) : 0.5; }),
      rc::gen::element(0.0, 0.1, 1e-300, 4.00001, 31.60004, 1e20, 1e300,
                       9007199254740994.0 /* 2^53 + 2: integral but past exact integers */));
}

// A price a valid project can hold: N * price <= kMaxCostPerBandwidth (1e100).
rc::Gen<double> genPrice() {
  return rc::gen::map(genNonNegative(), [](double x) { return std::min(x, 1e80); });
}

// A compute time, collective size or workload weight a valid project can hold:
// the weighted totals of an iteration stay under kMaxIterationTotal (1e100).
rc::Gen<double> genAmount() {
  return rc::gen::map(genNonNegative(), [](double x) { return std::min(x, 1e30); });
}

rc::Gen<double> genFinite() {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange(-1000, 1000), [](int x) { return static_cast<double>(x); }),
      rc::gen::map(rc::gen::arbitrary<double>(),
                   [](double x) { return std::isfinite(x) ? x : -0.5; }));
}

// Valid UTF-8 text with the characters JSON has to escape.
rc::Gen<std::string> genText() {
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
                          "a", "Z", "_", "0", " ", ".", "-", "\"", "\\", "\n", "\t", "/", "{", "]",
                          "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", std::string(1, '\x01'))),
                      [](const std::vector<std::string>& parts) {
                        std::string s;
                        for (const auto& p : parts) s += p;
                        return s;
                      });
}

rc::Gen<std::string> genUiState() {
  return rc::gen::oneOf(rc::gen::just(std::string()), rc::gen::exec([] {
                          Json ui = Json::object();
                          const int keys = *rc::gen::inRange(0, 4);
                          for (int i = 0; i < keys; ++i) {
                            const std::string key = *genText() + std::to_string(i);
                            switch (*rc::gen::inRange(0, 5)) {
                              case 0:
                                ui[key] = *rc::gen::arbitrary<int>();
                                break;
                              case 1:
                                ui[key] = *genText();
                                break;
                              case 2:
                                ui[key] = *rc::gen::arbitrary<bool>();
                                break;
                              case 3:
                                ui[key] = Json::array({nullptr, *genFinite(), Json::object()});
                                break;
                              default:
                                ui[key] = Json{{"z", 1}, {"a", Json::array()}};
                                break;
                            }
                          }
                          return ui.dump();
                        }));
}

rc::Gen<Project> genProject() {
  return rc::gen::exec([] {
    Project p;
    p.name = *genText();
    const std::vector<std::string> levels{"InterChiplet", "InterPod", "Rack level", "a.b"};
    const int dims = *rc::gen::inRange(1, 5);
    std::set<std::string> switchLevels;
    std::set<std::string> usedLevels;
    for (int d = 0; d < dims; ++d) {
      Dimension dim;
      // Any name that constraints can refer to as bw[name]: a letter or '_', then
      // letters, digits, '_', '-' and '.'.
      const std::string first = *rc::gen::elementOf(std::vector<std::string>{"d", "_", "Pod", "x"});
      const std::string rest =
          *rc::gen::container<std::string>(rc::gen::elementOf(std::string("abcXYZ019_-.")));
      dim.name = first + rest + "_" + std::to_string(d);
      dim.block = *rc::gen::element(BuildingBlock::Ring, BuildingBlock::FullyConnected,
                                    BuildingBlock::Switch);
      dim.npus = *rc::gen::inRange(2, 65);
      dim.costLevel = *rc::gen::elementOf(levels);
      usedLevels.insert(dim.costLevel);
      if (dim.block == BuildingBlock::Switch) switchLevels.insert(dim.costLevel);
      if (*rc::gen::arbitrary<bool>()) {
        const double a = *genNonNegative();
        const double b = *genNonNegative();
        dim.minBandwidth = std::min(a, b);
        if (*rc::gen::arbitrary<bool>()) dim.maxBandwidth = std::max(a, b);
      }
      if (*rc::gen::arbitrary<bool>()) dim.fixedBandwidth = *genNonNegative();
      p.network.dims.push_back(std::move(dim));
    }
    for (const auto& level : levels) {
      const bool used = usedLevels.count(level) > 0;
      if (!used && *rc::gen::arbitrary<bool>()) continue;
      const bool needsAll = switchLevels.count(level) > 0;
      CostLevel l;
      if (used || *rc::gen::arbitrary<bool>()) l.link = *genPrice();
      if (needsAll || *rc::gen::arbitrary<bool>()) l.switchPrice = *genPrice();
      if (needsAll || *rc::gen::arbitrary<bool>()) l.nic = *genPrice();
      p.costModel.levels[level] = l;
    }

    const int workloads = *rc::gen::inRange(1, 4);
    for (int w = 0; w < workloads; ++w) {
      Workload wl;
      wl.name = *genText();
      wl.weight = *genAmount();
      for (PhaseKind kind : kPhaseKinds) {
        for (const auto& dim : p.network.dims) {
          wl.communicator.of(kind).push_back(*rc::gen::inRange(1, dim.npus + 1));
        }
      }
      if (*rc::gen::arbitrary<bool>()) {
        WorkloadOrigin o;
        o.preset = *genText();
        o.device = *genText();
        const int params = *rc::gen::inRange(0, 4);
        for (int i = 0; i < params; ++i) o.parameters[*genText()] = *genFinite();
        wl.origin = std::move(o);
      }
      const int layers = *rc::gen::inRange(0, 5);
      for (int i = 0; i < layers; ++i) {
        Layer l;
        l.name = *genText();
        for (PhaseKind kind : kPhaseKinds) {
          Phase& ph = l.phase(kind);
          ph.computeNs = *genAmount();
          ph.collective = *rc::gen::element(CollectiveType::None, CollectiveType::AllReduce,
                                            CollectiveType::ReduceScatter,
                                            CollectiveType::AllGather, CollectiveType::AllToAll);
          ph.sizeBytes = *genAmount();
          if (*rc::gen::inRange(0, 4) == 0) {
            for (const auto& dim : p.network.dims)
              ph.groups.push_back(*rc::gen::inRange(1, dim.npus + 1));
          }
        }
        l.updateNs = *genNonNegative();
        wl.layers.push_back(std::move(l));
      }
      p.workloads.push_back(std::move(wl));
    }

    p.model.trainingLoop =
        *rc::gen::element(TrainingLoop::NoOverlap, TrainingLoop::Recompute, TrainingLoop::Overlap);
    const int constraints = *rc::gen::inRange(0, 4);
    for (int i = 0; i < constraints; ++i) {
      const std::string& last = p.network.dims.back().name;
      const bool byName = last.rfind("dim", 0) == 0;
      switch (*rc::gen::inRange(0, 4)) {
        case 0:
          p.constraints.push_back("total == " + text::formatNumber(*genNonNegative()));
          break;
        case 1:
          p.constraints.push_back(dims > 1 ? "bw[0] >= bw[" + std::to_string(dims - 1) + "]"
                                           : "bw[0] >= 0");
          break;
        case 2:
          p.constraints.push_back("cost + total <= 4.5e7");
          break;
        default:
          p.constraints.push_back(byName ? "bw[" + last + "] <= 50" : "2*bw[0] - total >= -1");
          break;
      }
    }
    p.objective = *rc::gen::element(Objective::Performance, Objective::PerfPerCost);
    p.uiState = *genUiState();
    return p;
  });
}

// ---------------------------------------------------------------------------
// Round trips.

RC_GTEST_PROP(ProjectIoProperty, LoadOfSaveIsIdentity, ()) {
  const Project p = *genProject();
  validateProject(p);  // the generator makes valid projects only
  const std::string json = projectToJson(p);
  RC_LOG() << json;
  const Project back = projectFromJson(json, "generated.json");
  RC_ASSERT(back == p);
  // Writing is deterministic: the reloaded project writes the same text.
  RC_ASSERT(projectToJson(back) == json);
}

TEST(ProjectIo, RoundTripThroughAFile) {
  TempDir dir;
  const Project p = sampleProject();
  saveProject(p, dir / "p.json");
  EXPECT_EQ(loadProject(dir / "p.json"), p);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.json"});
}

// The network's endpoint delay: written only when set, read back, and refused
// when negative with the JSON path.
TEST(ProjectIo, EndpointDelayRoundTripsAndIsChecked) {
  Project p = sampleProject();
  EXPECT_FALSE(Json::parse(projectToJson(p))["network"].contains("endpoint_delay_ns"));
  p.network.endpointDelayNs = 12.5;
  const std::string text = projectToJson(p);
  EXPECT_EQ(Json::parse(text)["network"]["endpoint_delay_ns"], 12.5);
  EXPECT_EQ(projectFromJson(text).network.endpointDelayNs, 12.5);
  Json doc = Json::parse(text);
  doc["network"]["endpoint_delay_ns"] = -1;
  try {
    (void)projectFromJson(doc.dump(), "p.json");
    ADD_FAILURE() << "a negative endpoint delay was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("network.endpoint_delay_ns"), std::string::npos)
        << e.what();
  }
}

TEST(ProjectIo, WritesTheSchemaLayout) {
  Project p = sampleProject();
  p.network.dims.resize(1);
  p.network.dims[0].fixedBandwidth = 100;
  p.costModel.levels = {{"InterChiplet", {2.0, std::nullopt, std::nullopt}}};
  p.workloads.resize(1);
  p.workloads[0].layers.mutate().resize(1);
  p.workloads[0].communicator.groups = {std::vector<int>{4}, std::vector<int>{4},
                                        std::vector<int>{1}};
  p.workloads[0].layers.mutate()[0].phase(PhaseKind::InputGrad).groups = {2};
  p.constraints = {"total == 500"};
  p.model.trainingLoop = TrainingLoop::NoOverlap;
  p.objective = Objective::Performance;
  p.uiState = R"({"zeta":1,"alpha":2})";
  const std::string expected = R"({
  "format": "libra-project",
  "schema_version": 2,
  "name": "GPT-3 175B on a 4D network",
  "network": {
    "dimensions": [
      {
        "name": "chiplet",
        "block": "Ring",
        "npus": 4,
        "cost_level": "InterChiplet",
        "min_bandwidth_gbps": 10,
        "max_bandwidth_gbps": 400,
        "fixed_bandwidth_gbps": 100
      }
    ]
  },
  "cost_model": {
    "InterChiplet": {
      "Link": 2
    }
  },
  "workloads": [
    {
      "name": "GPT-3",
      "weight": 1,
      "communicator": {
        "forward": [
          4
        ],
        "input_grad": [
          4
        ],
        "weight_grad": [
          1
        ]
      },
      "origin": {
        "preset": "gpt3-175b",
        "device": "h100",
        "parameters": {
          "dp": 256,
          "tp": 16
        }
      },
      "layers": [
        {
          "name": "Q1",
          "forward": {
            "compute_ns": 9375000,
            "collective": "None",
            "size_bytes": 0
          },
          "input_grad": {
            "compute_ns": 9375000,
            "collective": "AllReduce",
            "size_bytes": 805306368,
            "groups": [
              2
            ]
          },
          "weight_grad": {
            "compute_ns": 9375000,
            "collective": "AllReduce",
            "size_bytes": 452984832
          },
          "update_ns": 10
        }
      ]
    }
  ],
  "training_loop": "no-overlap",
  "constraints": [
    "total == 500"
  ],
  "objective": "performance",
  "ui": {
    "zeta": 1,
    "alpha": 2
  }
}
)";
  EXPECT_EQ(projectToJson(p), expected);
  EXPECT_EQ(projectFromJson(expected), p);
}

TEST(ProjectIo, NumbersAreTidyAndExact) {
  Project p = sampleProject();
  p.workloads[1].layers.mutate()[0].phase(PhaseKind::Forward).sizeBytes = 0.1;
  // Not counted in the iteration time, so not under kMaxIterationTotal.
  p.workloads[1].layers.mutate()[0].updateNs = 1e300;
  p.workloads[1].layers.mutate()[0].phase(PhaseKind::InputGrad).sizeBytes = 9007199254740994.0;
  p.costModel.levels["InterPod"].link = 7.80004;
  const std::string json = projectToJson(p);
  EXPECT_THAT(json, HasSubstr("\"compute_ns\": 9375000,"));
  EXPECT_THAT(json, Not(HasSubstr("9375000.0")));
  EXPECT_THAT(json, HasSubstr("\"npus\": 32,"));
  EXPECT_THAT(json, HasSubstr("\"size_bytes\": 0.1"));
  EXPECT_THAT(json, HasSubstr("\"Link\": 7.80004"));
  EXPECT_THAT(json, HasSubstr("\"update_ns\": 1e+300"));
  EXPECT_EQ(projectFromJson(json), p);
}

TEST(ProjectIo, UiStateIsKeptVerbatimAndOpaque) {
  Json doc = Json::parse(projectToJson(sampleProject()));
  doc["ui"] = Json::parse(R"({"zeta": 1, "unknown_key": {"b": [true, null], "a": "x"}})");
  const Project p = projectFromJson(doc.dump());
  EXPECT_EQ(p.uiState, R"({"zeta":1,"unknown_key":{"b":[true,null],"a":"x"}})");

  doc.erase("ui");
  EXPECT_EQ(projectFromJson(doc.dump()).uiState, "");
  EXPECT_THAT(projectToJson(projectFromJson(doc.dump())), Not(HasSubstr("\"ui\"")));
}

TEST(ProjectIo, OptionalKeysTakeTheirDefaults) {
  Json doc = Json::parse(projectToJson(sampleProject()));
  for (const char* key : {"training_loop", "constraints", "objective", "ui"}) doc.erase(key);
  doc["workloads"][0].erase("weight");
  doc["workloads"][0].erase("origin");
  doc["workloads"][0]["layers"][0].erase("update_ns");
  const Project p = projectFromJson(doc.dump());
  EXPECT_EQ(p.model.trainingLoop, TrainingLoop::NoOverlap);
  EXPECT_EQ(p.objective, Objective::Performance);
  EXPECT_TRUE(p.constraints.empty());
  EXPECT_EQ(p.workloads[0].weight, 1.0);
  EXPECT_FALSE(p.workloads[0].origin);
  EXPECT_EQ(p.workloads[0].layers[0].updateNs, 0.0);
}

// A file as version 1 wrote it, frozen: when the schema moves on, this must still
// load (through the migrations) to the same project.
TEST(ProjectIo, ReadsAFrozenVersion1File) {
  const std::string v1 = R"({
  "format": "libra-project", "schema_version": 1, "name": "frozen",
  "network": {"dimensions": [
    {"name": "package", "block": "FullyConnected", "npus": 8, "cost_level": "InterPackage"},
    {"name": "pod", "block": "Switch", "npus": 16, "cost_level": "InterPod", "max_bandwidth_gbps": 50}]},
  "cost_model": {"InterPackage": {"Link": 4, "Switch": 13}, "InterPod": {"Link": 7.8, "Switch": 18, "Nic": 31.6}},
  "workloads": [{"name": "w", "weight": 1,
    "communicator": {"forward": [8, 1], "input_grad": [8, 1], "weight_grad": [1, 16]},
    "layers": [{"name": "L", "forward": {"compute_ns": 5, "collective": "None", "size_bytes": 0},
                "input_grad": {"compute_ns": 5, "collective": "AllReduce", "size_bytes": 1024},
                "weight_grad": {"compute_ns": 5, "collective": "ReduceScatter", "size_bytes": 2048},
                "update_ns": 10}]}],
  "training_loop": "overlap", "constraints": ["total == 100"], "objective": "perf-per-cost"
})";
  const Project p = projectFromJson(v1, "frozen-v1.json");
  EXPECT_EQ(p.name, "frozen");
  ASSERT_EQ(p.network.size(), 2);
  EXPECT_EQ(p.network.dims[1].block, BuildingBlock::Switch);
  EXPECT_EQ(p.network.dims[1].maxBandwidth, 50.0);
  EXPECT_EQ(p.costModel.levels.at("InterPod").nic, 31.6);
  EXPECT_EQ(p.workloads[0].communicator.of(PhaseKind::WeightGrad), (std::vector<int>{1, 16}));
  EXPECT_EQ(p.workloads[0].layers[0].phase(PhaseKind::WeightGrad).collective,
            CollectiveType::ReduceScatter);
  EXPECT_EQ(p.model.trainingLoop, TrainingLoop::Overlap);
  EXPECT_EQ(p.objective, Objective::PerfPerCost);
  EXPECT_EQ(p.constraints, std::vector<std::string>{"total == 100"});

  // Each migration step says what it changed and what that means for the file.
  const LoadedProject loaded = readProject(v1, "frozen-v1.json");
  EXPECT_EQ(loaded.project, p);
  EXPECT_EQ(loaded.fileSchemaVersion, 1);
  ASSERT_EQ(loaded.upgrades.size(), 3u);
  EXPECT_THAT(loaded.upgrades[0], HasSubstr("schema 1 -> 2: "));
  EXPECT_THAT(loaded.upgrades[0], HasSubstr("LIBRA's ideal model, as it did"));
  EXPECT_THAT(loaded.upgrades[1], HasSubstr("schema 2 -> 3: "));
  EXPECT_THAT(loaded.upgrades[1], HasSubstr("one unnamed scenario"));
  EXPECT_THAT(loaded.upgrades[2], HasSubstr("schema 3 -> 4: "));
  EXPECT_THAT(loaded.upgrades[2], HasSubstr("consecutive groups"));
}

// A file as version 2 wrote it (the chunked model, before scenarios), frozen:
// a project of one unnamed scenario, which this version still writes byte for
// byte the same way.
TEST(ProjectIo, ReadsAFrozenVersion2File) {
  const std::string v2 = R"({
  "format": "libra-project",
  "schema_version": 2,
  "name": "frozen v2",
  "network": {
    "dimensions": [
      {
        "name": "package",
        "block": "FullyConnected",
        "npus": 8,
        "cost_level": "InterPackage",
        "latency_ns": 500
      },
      {
        "name": "pod",
        "block": "Switch",
        "npus": 16,
        "cost_level": "InterPod",
        "max_bandwidth_gbps": 50
      }
    ]
  },
  "cost_model": {
    "InterPackage": {
      "Link": 4,
      "Switch": 13
    },
    "InterPod": {
      "Link": 7.8,
      "Switch": 18,
      "Nic": 31.6
    }
  },
  "workloads": [
    {
      "name": "w",
      "weight": 1,
      "communicator": {
        "forward": [
          8,
          1
        ],
        "input_grad": [
          8,
          1
        ],
        "weight_grad": [
          1,
          16
        ]
      },
      "layers": [
        {
          "name": "L",
          "forward": {
            "compute_ns": 5,
            "collective": "None",
            "size_bytes": 0
          },
          "input_grad": {
            "compute_ns": 5,
            "collective": "AllReduce",
            "size_bytes": 1024
          },
          "weight_grad": {
            "compute_ns": 5,
            "collective": "ReduceScatter",
            "size_bytes": 2048
          },
          "update_ns": 10
        }
      ]
    }
  ],
  "training_loop": "overlap",
  "chunks": 16,
  "constraints": [
    "total == 100"
  ],
  "objective": "perf-per-cost",
  "cost_scope": "system",
  "npu_price_usd": 25000
}
)";
  const LoadedProject loaded = readProject(v2, "frozen-v2.json");
  const Project& p = loaded.project;
  EXPECT_EQ(loaded.fileSchemaVersion, 2);
  ASSERT_EQ(loaded.upgrades.size(), 2u);
  EXPECT_THAT(loaded.upgrades[0], HasSubstr("schema 2 -> 3: "));
  EXPECT_THAT(loaded.upgrades[1], HasSubstr("schema 3 -> 4: "));
  EXPECT_EQ(p.name, "frozen v2");
  EXPECT_EQ(scenarioCount(p), 1u);
  EXPECT_EQ(p.scenarioName, "");
  EXPECT_EQ(p.network.dims[0].latencyNs, 500);
  EXPECT_EQ(p.model.collectives.chunks, ChunkSetting::fixed(16));
  EXPECT_EQ(p.costScope, CostScope::System);
  EXPECT_EQ(p.npuPriceUsd, 25000.0);
  EXPECT_EQ(projectToJson(p), v2);
}

// ---------------------------------------------------------------------------
// Versions and formats.

TEST(ProjectIo, RefusesFilesFromANewerVersion) {
  Json doc = Json::parse(projectToJson(sampleProject()));
  doc["schema_version"] = 5;
  doc["a_key_from_the_future"] = 1;  // refused for its version, not for this key
  EXPECT_EQ(loadError(doc.dump(), "future.json"),
            "future.json was written by a newer Libra Studio (schema 5; this version reads up "
            "to 4): update Libra Studio");
}

// Schema 4 added strides (groups that take part of a dimension, interleaved):
// written only where some stride is not 1, read back as written, and refused
// in an older schema's file.
TEST(ProjectIo, StridesRoundTripAndNeedSchema4) {
  Project p = sampleProject();
  Workload& w = p.workloads.at(0);
  ASSERT_EQ(p.network.dims.at(0).npus % 2, 0);
  std::vector<int> groups(static_cast<std::size_t>(p.network.size()), 1);
  groups[0] = p.network.dims[0].npus / 2;
  std::vector<int> strides(groups.size(), 1);
  strides[0] = 2;
  w.communicator.of(PhaseKind::WeightGrad) = groups;
  w.communicator.stridesOf(PhaseKind::WeightGrad) = strides;
  const std::string text = projectToJson(p);
  EXPECT_NE(text.find("\"strides\""), std::string::npos);
  const LoadedProject loaded = readProject(text, "strided.json");
  EXPECT_EQ(loaded.project, p);
  EXPECT_EQ(Json::parse(text)["schema_version"], 4);
  Json old = Json::parse(text);
  old["schema_version"] = 3;
  EXPECT_THAT(loadError(old.dump(), "old.json"), HasSubstr("schema 3 has no strides"));
  // Without strides a project is written in the oldest schema that holds it.
  w.communicator.stridesOf(PhaseKind::WeightGrad).clear();
  EXPECT_EQ(Json::parse(projectToJson(p))["schema_version"], 2);
}

// Schema 1 (before the chunked model) had neither "chunks" nor "latency_ns":
// such a file means LIBRA's ideal model, and opens as it did.
TEST(ProjectIo, ReadsSchema1FilesAsLibrasIdealModel) {
  Json doc = Json::parse(projectToJson(sampleProject()));
  doc["schema_version"] = 1;
  ASSERT_FALSE(doc.contains("chunks"));
  const Project p = projectFromJson(doc.dump(), "old.json");
  EXPECT_TRUE(p.model.collectives.chunks.isIdeal());
  for (const Dimension& d : p.network.dims) EXPECT_EQ(d.latencyNs, 0);
  EXPECT_EQ(p, sampleProject());
}

TEST(ProjectIo, ChunksAndLatenciesRoundTrip) {
  for (const ChunkSetting& chunks :
       {ChunkSetting::ideal(), ChunkSetting::fixed(1), ChunkSetting::fixed(16),
        ChunkSetting::fixed(kMaxChunks), ChunkSetting::automatic()}) {
    Project p = sampleProject();
    p.model.collectives.chunks = chunks;
    p.network.dims[0].latencyNs = 500;
    p.network.dims.back().latencyNs = 936.25;
    const std::string text = projectToJson(p);
    EXPECT_EQ(projectFromJson(text, "p.json"), p) << chunks.toString();
    const Json doc = Json::parse(text);
    // Written only when not LIBRA's model, as the integer or "auto".
    EXPECT_EQ(doc.contains("chunks"), !chunks.isIdeal());
    if (chunks.kind == ChunkSetting::Kind::Fixed) {
      EXPECT_EQ(doc["chunks"], chunks.count);
    }
    if (chunks.kind == ChunkSetting::Kind::Auto) {
      EXPECT_EQ(doc["chunks"], "auto");
    }
    EXPECT_EQ(doc["network"]["dimensions"][0]["latency_ns"], 500);
    EXPECT_FALSE(doc["network"]["dimensions"][1].contains("latency_ns"));  // 0 is the default
  }
  Json doc = Json::parse(projectToJson(sampleProject()));
  doc["chunks"] = "ideal";
  EXPECT_TRUE(projectFromJson(doc.dump(), "p.json").model.collectives.chunks.isIdeal());
}

TEST(ProjectIo, RefusesBadChunksAndLatencies) {
  const Json base = Json::parse(projectToJson(sampleProject()));
  auto withChunks = [&](Json value) {
    Json doc = base;
    doc["chunks"] = std::move(value);
    return loadError(doc.dump());
  };
  const std::string expected = "expected an integer 1..1024, \"ideal\" or \"auto\"";
  EXPECT_EQ(withChunks(0), "proj.json: chunks: " + expected + ", got 0");
  EXPECT_EQ(withChunks(1025), "proj.json: chunks: " + expected + ", got 1025");
  EXPECT_EQ(withChunks(-4), "proj.json: chunks: " + expected + ", got -4");
  EXPECT_EQ(withChunks(2.5), "proj.json: chunks: " + expected + ", got 2.5");
  EXPECT_EQ(withChunks("many"), "proj.json: chunks: " + expected + ", got \"many\"");
  EXPECT_EQ(withChunks(Json::array()), "proj.json: chunks: " + expected + ", got a list");
  auto withLatency = [&](Json value) {
    Json doc = base;
    doc["network"]["dimensions"][1]["latency_ns"] = std::move(value);
    return loadError(doc.dump());
  };
  EXPECT_THAT(withLatency(-1), HasSubstr("proj.json: network.dimensions[1].latency_ns: "));
  EXPECT_THAT(withLatency(-1), HasSubstr("-1"));
  EXPECT_THAT(withLatency("fast"), HasSubstr("network.dimensions[1].latency_ns"));
}

TEST(ProjectIo, RefusesBadSchemaVersions) {
  Json doc = Json::parse(projectToJson(sampleProject()));
  doc["schema_version"] = 1.5;
  EXPECT_THAT(loadError(doc.dump()),
              HasSubstr("proj.json: schema_version: expected an integer, got 1.5"));
  doc["schema_version"] = "1";
  EXPECT_THAT(loadError(doc.dump()), HasSubstr("schema_version: expected an integer, got \"1\""));
  doc["schema_version"] = 0;
  EXPECT_THAT(loadError(doc.dump()), HasSubstr("schema_version: expected an integer >= 1, got 0"));
  doc["schema_version"] = -2;
  EXPECT_THAT(loadError(doc.dump()), HasSubstr("schema_version: expected an integer >= 1, got -2"));
  doc.erase("schema_version");
  EXPECT_THAT(loadError(doc.dump()), HasSubstr("proj.json: missing key 'schema_version'"));
}

TEST(ProjectIo, RefusesOtherFormats) {
  Json doc = Json::parse(projectToJson(sampleProject()));
  doc["format"] = "something-else";
  EXPECT_THAT(loadError(doc.dump()),
              HasSubstr("proj.json: format: expected \"libra-project\", got \"something-else\"; "
                        "this is not a Libra Studio project file"));
  doc.erase("format");
  EXPECT_THAT(loadError(doc.dump()), HasSubstr("proj.json: missing key 'format'"));
  EXPECT_THAT(loadError("[1, 2]"), HasSubstr("not a Libra Studio project file"));
  EXPECT_THAT(loadError("{\"Topology\": [\"Ring\"]}"), HasSubstr("missing key 'format'"));
}

// ---------------------------------------------------------------------------
// Load errors: one line naming the source, the JSON path and the problem.

struct ErrorCase {
  std::string name;
  std::function<void(Json&)> edit;
  std::string path;
  std::string problem;
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class ProjectIoLoadError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ProjectIoLoadError, NamesThePathAndTheProblem) {
  const ErrorCase& c = GetParam();
  Json doc = Json::parse(projectToJson(sampleProject()));
  c.edit(doc);
  const std::string message = loadError(doc.dump(2), "my project.json");
  EXPECT_THAT(message, HasSubstr("my project.json: "));
  EXPECT_THAT(message, HasSubstr(c.path));
  EXPECT_THAT(message, HasSubstr(c.problem));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

const ErrorCase kErrorCases[] = {
    {"SizeNotANumber",
     [](Json& d) { d["workloads"][0]["layers"][3]["forward"]["size_bytes"] = "abc"; },
     "workloads[0].layers[3].forward.size_bytes: ", "expected a number >= 0, got \"abc\""},
    {"NegativeCompute",
     [](Json& d) { d["workloads"][1]["layers"][0]["weight_grad"]["compute_ns"] = -1; },
     "workloads[1].layers[0].weight_grad.compute_ns: ", "expected a number >= 0, got -1"},
    {"UnknownKeyInDimension", [](Json& d) { d["network"]["dimensions"][0]["foo"] = 1; },
     "network.dimensions[0]: ", "unknown key 'foo'"},
    {"UnknownTopLevelKey", [](Json& d) { d["extra"] = true; }, "my project.json: unknown key",
     "unknown key 'extra'"},
    {"UnknownKeyInPhase",
     [](Json& d) { d["workloads"][0]["layers"][1]["input_grad"]["latency"] = 1; },
     "workloads[0].layers[1].input_grad: ", "unknown key 'latency'"},
    {"MissingNpus", [](Json& d) { d["network"]["dimensions"][1].erase("npus"); },
     "network.dimensions[1]: ", "missing key 'npus'"},
    {"MissingLayers", [](Json& d) { d["workloads"][0].erase("layers"); },
     "workloads[0]: ", "missing key 'layers'"},
    {"UnknownBlock", [](Json& d) { d["network"]["dimensions"][2]["block"] = "Torus"; },
     "network.dimensions[2].block: ",
     "unknown building block 'Torus' (expected Ring, FullyConnected or Switch)"},
    {"OneNpu", [](Json& d) { d["network"]["dimensions"][0]["npus"] = 1; },
     "network.dimensions[0].npus: ", "expected an integer >= 2, got 1"},
    {"FractionalNpus", [](Json& d) { d["network"]["dimensions"][0]["npus"] = 4.5; },
     "network.dimensions[0].npus: ", "expected an integer >= 2, got 4.5"},
    {"DuplicateDimensionName", [](Json& d) { d["network"]["dimensions"][3]["name"] = "chiplet"; },
     "network.dimensions[3].name: ", "the name 'chiplet' is already used by network.dimensions[0]"},
    {"NegativeBound", [](Json& d) { d["network"]["dimensions"][0]["max_bandwidth_gbps"] = -4; },
     "network.dimensions[0].max_bandwidth_gbps: ", "expected a number >= 0, got -4"},
    {"MinAboveMax", [](Json& d) { d["network"]["dimensions"][0]["min_bandwidth_gbps"] = 500; },
     "network.dimensions[0]: ", "min_bandwidth_gbps 500 exceeds max_bandwidth_gbps 400"},
    {"DimensionsNotAList", [](Json& d) { d["network"]["dimensions"] = "four"; },
     "network.dimensions: ", "expected a list, got \"four\""},
    {"PriceNotANumber", [](Json& d) { d["cost_model"]["InterPod"]["Nic"] = "cheap"; },
     "cost_model.InterPod.Nic: ", "expected a number >= 0, got \"cheap\""},
    {"QuotedLevelInPath",
     [](Json& d) {
       d["cost_model"]["Inter Pod"] = {{"Cable", 1}};
     },
     "cost_model[\"Inter Pod\"]: ", "unknown key 'Cable'"},
    {"MissingNicForSwitch", [](Json& d) { d["cost_model"]["InterPod"].erase("Nic"); },
     "cost model: level 'InterPod'", "has no Nic price"},
    {"UndefinedCostLevel", [](Json& d) { d["cost_model"].erase("InterNode"); }, "'InterNode'",
     "which the cost model does not define"},
    {"UnknownCollective",
     [](Json& d) { d["workloads"][0]["layers"][2]["weight_grad"]["collective"] = "Broadcast"; },
     "workloads[0].layers[2].weight_grad.collective: ", "unknown collective 'Broadcast'"},
    {"GroupTooLarge", [](Json& d) { d["workloads"][0]["communicator"]["forward"][1] = 9; },
     "workloads[0].communicator.forward[1]: ",
     "expected a group size from 1 (unused) to 8 for dimension 1 ('package'), got 9"},
    {"GroupListTooShort",
     [](Json& d) {
       d["workloads"][1]["communicator"]["weight_grad"] = Json::array({4, 8});
     },
     "workloads[1].communicator.weight_grad: ",
     "expected 4 group sizes (one per network dimension), got 2"},
    {"PhaseGroupTooLarge",
     [](Json& d) { d["workloads"][1]["layers"][0]["forward"]["groups"][3] = 33; },
     "workloads[1].layers[0].forward.groups[3]: ",
     "expected a group size from 1 (unused) to 32 for dimension 3 ('pod'), got 33"},
    {"PhaseGroupsWrongLength",
     [](Json& d) { d["workloads"][0]["layers"][2]["input_grad"]["groups"] = Json::array({4}); },
     "workloads[0].layers[2].input_grad.groups: ",
     "expected 4 group sizes (one per network dimension), got 1"},
    {"NegativeWeight", [](Json& d) { d["workloads"][1]["weight"] = -0.5; },
     "workloads[1].weight: ", "expected a number >= 0, got -0.5"},
    {"UnknownOriginKey", [](Json& d) { d["workloads"][0]["origin"]["seed"] = 4; },
     "workloads[0].origin: ", "unknown key 'seed'"},
    {"OriginParameterNotANumber",
     [](Json& d) { d["workloads"][0]["origin"]["parameters"]["tp"] = "16"; },
     "workloads[0].origin.parameters.tp: ", "expected a number, got \"16\""},
    {"UnknownTrainingLoop", [](Json& d) { d["training_loop"] = "sometimes"; }, "training_loop: ",
     "unknown training loop 'sometimes' (expected no-overlap, recompute or overlap)"},
    {"UnknownObjective", [](Json& d) { d["objective"] = "speed"; },
     "objective: ", "unknown objective 'speed'"},
    {"ConstraintNotAString", [](Json& d) { d["constraints"][1] = 5; },
     "constraints[1]: ", "expected a string, got 5"},
    {"BadConstraint", [](Json& d) { d["constraints"].push_back("bw[9] == 3"); },
     "constraints[2]: ", "no dimension 9"},
    {"BadConstraintName", [](Json& d) { d["constraints"][0] = "bw[rack] <= 3"; },
     "constraints[0]: ", "no dimension named 'rack'"},
    {"NameNotAString", [](Json& d) { d["name"] = Json::array(); },
     "name: ", "expected a string, got a list"},
};

INSTANTIATE_TEST_SUITE_P(Cases, ProjectIoLoadError, ::testing::ValuesIn(kErrorCases),
                         [](const auto& info) { return info.param.name; });

TEST(ProjectIo, MalformedJsonGivesLineAndColumn) {
  const std::string text = "{\n  \"format\": \"libra-project\",\n  \"name\" \"x\"\n}\n";
  const std::string message = loadError(text);
  EXPECT_THAT(message, HasSubstr("proj.json:3:12: malformed JSON: "));
  EXPECT_THAT(message, HasSubstr("syntax error"));
  EXPECT_THAT(message, Not(HasSubstr("json.exception")));

  EXPECT_THAT(loadError("{\n  \"a\": [1, 2,\n"), HasSubstr("proj.json:3:1: malformed JSON"));
  EXPECT_THAT(loadError(""), HasSubstr("proj.json: the file is empty"));
  EXPECT_THAT(loadError("  \n"), HasSubstr("proj.json: the file is empty"));
}

TEST(ProjectIo, NetworkErrorsFromValidationNameTheSource) {
  Json doc = Json::parse(projectToJson(sampleProject()));
  doc["network"]["dimensions"] = Json::array();
  doc["workloads"] = Json::array();
  EXPECT_THAT(loadError(doc.dump()), HasSubstr("proj.json: network: it has no dimensions"));
}

// ---------------------------------------------------------------------------
// Scenarios.

// sampleProject() as the middle of three scenarios: "base" (its content with
// total == 1000), "sample" (active) and "small" (one dimension, one workload).
Project sampleScenarios() {
  Project p = sampleProject();
  Scenario base = p;
  base.constraints = {"total == 1000"};
  Scenario small = p;
  small.network.dims.resize(1);
  small.network.dims[0].fixedBandwidth.reset();
  small.costModel.levels = {{"InterChiplet", {2.0, std::nullopt, std::nullopt}}};
  small.workloads.resize(1);
  small.workloads[0].communicator.groups = {std::vector<int>{4}, std::vector<int>{4},
                                            std::vector<int>{1}};
  small.constraints = {"total == 100"};
  small.objective = Objective::Performance;
  small.costScope = CostScope::System;
  small.npuPriceUsd = 30000;
  setScenarios(p, {{"base", base}, {"sample", p}, {"small", small}}, 1);
  return p;
}

TEST(ProjectIoScenarios, RoundTripAndLayout) {
  const Project p = sampleScenarios();
  validateProject(p);
  const std::string text = projectToJson(p);
  EXPECT_EQ(projectFromJson(text, "s.json"), p);
  EXPECT_EQ(projectToJson(projectFromJson(text)), text);

  const Json doc = Json::parse(text);
  std::vector<std::string> keys;
  for (const auto& item : doc.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"format", "schema_version", "name", "active_scenario",
                                            "scenarios", "ui"}));
  EXPECT_EQ(doc["schema_version"], 3);
  EXPECT_EQ(doc["active_scenario"], "sample");
  ASSERT_EQ(doc["scenarios"].size(), 3u);
  // Each scenario holds its own content, with the keys of a one-scenario file.
  const Json one = Json::parse(projectToJson(sampleProject()));
  for (std::size_t i = 0; i < 3; ++i) {
    const Json& s = doc["scenarios"][i];
    EXPECT_EQ(s["name"], (std::vector<std::string>{"base", "sample", "small"})[i]);
    for (const char* key : {"network", "cost_model", "workloads", "constraints", "objective"}) {
      EXPECT_TRUE(s.contains(key)) << i << " " << key;
    }
  }
  Json sample = doc["scenarios"][1];
  sample.erase("name");
  for (const auto& item : sample.items()) EXPECT_EQ(item.value(), one[item.key()]) << item.key();
  EXPECT_EQ(doc["scenarios"][2]["cost_scope"], "system");
  EXPECT_EQ(doc["scenarios"][2]["network"]["dimensions"].size(), 1u);
}

// A project of one unnamed scenario keeps the layout and version of schema 2
// (ProjectIo.WritesTheSchemaLayout has the text); naming the scenario, or
// adding one, moves it to the scenarios layout.
TEST(ProjectIoScenarios, OnlyScenariosMoveAFileToSchema3) {
  Project p = sampleProject();
  Json doc = Json::parse(projectToJson(p));
  EXPECT_EQ(doc["schema_version"], 2);
  EXPECT_FALSE(doc.contains("scenarios"));

  p.scenarioName = "only";
  doc = Json::parse(projectToJson(p));
  EXPECT_EQ(doc["schema_version"], 3);
  EXPECT_FALSE(doc.contains("network"));
  ASSERT_EQ(doc["scenarios"].size(), 1u);
  EXPECT_EQ(doc["scenarios"][0]["name"], "only");
  EXPECT_EQ(projectFromJson(doc.dump()), p);

  // A project left with one named scenario keeps its name.
  Project q = sampleScenarios();
  removeScenario(q, 0);
  removeScenario(q, 1);
  EXPECT_EQ(scenarioNames(q), std::vector<std::string>{"sample"});
  EXPECT_EQ(projectFromJson(projectToJson(q)), q);
}

TEST(ProjectIoScenarios, ActiveScenarioIsOptionalAndNamesOne) {
  Json doc = Json::parse(projectToJson(sampleScenarios()));
  doc.erase("active_scenario");
  const Project p = projectFromJson(doc.dump());
  EXPECT_EQ(p.activeScenario, 0u);
  EXPECT_EQ(p.scenarioName, "base");
  EXPECT_EQ(p.constraints, std::vector<std::string>{"total == 1000"});
  doc["active_scenario"] = "small";
  const Project q = projectFromJson(doc.dump());
  EXPECT_EQ(q.activeScenario, 2u);
  EXPECT_EQ(q.network.size(), 1);
  EXPECT_EQ(scenarioNames(q), (std::vector<std::string>{"base", "sample", "small"}));
}

// The reader refuses, in a file with scenarios, what the JSON parser lets
// through: a key given twice inside a scenario.
TEST(ProjectIoScenarios, DuplicateKeysInAScenarioAreRefused) {
  std::string text = projectToJson(sampleScenarios());
  const std::string first = "\"name\": \"small\",";
  const std::size_t at = text.find(first);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + first.size(), " \"objective\": \"performance\",");
  const std::string message = loadError(text, "dup.json");
  EXPECT_EQ(message,
            "dup.json: scenarios[2] has the key \"objective\" twice (a second one would "
            "silently replace the first)");
}

class ProjectIoScenarioError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ProjectIoScenarioError, NamesTheScenarioTheKeyAndTheProblem) {
  const ErrorCase& c = GetParam();
  Json doc = Json::parse(projectToJson(sampleScenarios()));
  c.edit(doc);
  const std::string message = loadError(doc.dump(2), "designs.json");
  EXPECT_THAT(message, HasSubstr("designs.json: " + c.path));
  EXPECT_THAT(message, HasSubstr(c.problem));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

const ErrorCase kScenarioErrorCases[] = {
    {"DuplicateName", [](Json& d) { d["scenarios"][2]["name"] = "base"; },
     "scenarios[2].name: ", "the name 'base' is already used by scenarios[0]"},
    {"EmptyName", [](Json& d) { d["scenarios"][1]["name"] = " "; },
     "scenarios[1].name: ", "expected a non-empty string, got \" \""},
    {"MissingName", [](Json& d) { d["scenarios"][1].erase("name"); },
     "scenarios[1]: ", "missing key 'name'"},
    {"UnknownKey", [](Json& d) { d["scenarios"][1]["netwrok"] = 1; },
     "scenarios[1]: ", "unknown key 'netwrok' (expected name, network, cost_model, workloads"},
    {"MissingNetwork", [](Json& d) { d["scenarios"][0].erase("network"); },
     "scenarios[0]: ", "missing key 'network'"},
    {"ScenarioKeyAtTheTop", [](Json& d) { d["constraints"] = Json::array(); }, "constraints: ",
     "a project with \"scenarios\" keeps this in each scenario, not at the top level"},
    {"UnknownTopLevelKey", [](Json& d) { d["scenario"] = "base"; }, "",
     "unknown key 'scenario' (expected format, schema_version, name, active_scenario, "
     "scenarios, ui)"},
    {"UnknownActive", [](Json& d) { d["active_scenario"] = "fast"; }, "active_scenario: ",
     "no scenario is named 'fast' (the scenarios are 'base', 'sample', 'small')"},
    {"ActiveNotAString", [](Json& d) { d["active_scenario"] = 1; },
     "active_scenario: ", "expected a string, got 1"},
    {"EmptyList", [](Json& d) { d["scenarios"] = Json::array(); },
     "scenarios: ", "expected at least one scenario, got an empty list"},
    {"NotAList", [](Json& d) { d["scenarios"] = Json::object(); },
     "scenarios: ", "expected a list, got an object"},
    {"ScenarioNotAnObject", [](Json& d) { d["scenarios"][1] = "sample"; },
     "scenarios[1]: ", "expected an object, got \"sample\""},
    {"BadValueInside", [](Json& d) { d["scenarios"][1]["network"]["dimensions"][0]["npus"] = 1; },
     "scenarios[1].network.dimensions[0].npus: ", "expected an integer >= 2, got 1"},
    {"BadChunksInside", [](Json& d) { d["scenarios"][2]["chunks"] = 0; },
     "scenarios[2].chunks: ", "expected an integer 1..1024"},
    {"BadObjectiveInside", [](Json& d) { d["scenarios"][0]["objective"] = "speed"; },
     "scenarios[0].objective: ", "unknown objective 'speed'"},
    {"BadConstraintInside", [](Json& d) { d["scenarios"][2]["constraints"][0] = "bw[pod] <= 3"; },
     "scenarios[2] ('small'): constraints[0]: ", "no dimension named 'pod'"},
    {"Schema2WithScenarios", [](Json& d) { d["schema_version"] = 2; }, "scenarios: ",
     "schema 2 has no scenarios (they came with schema 3); set \"schema_version\" to 3"},
    {"Schema1WithScenarios", [](Json& d) { d["schema_version"] = 1; },
     "scenarios: ", "schema 1 has no scenarios (they came with schema 3)"},
};

INSTANTIATE_TEST_SUITE_P(Cases, ProjectIoScenarioError, ::testing::ValuesIn(kScenarioErrorCases),
                         [](const auto& info) { return info.param.name; });

// Random projects of one to four scenarios (each a generated project's
// content) load back as they were saved.
RC_GTEST_PROP(ProjectIoProperty, ScenariosRoundTrip, ()) {
  Project p = *genProject();
  const int count = *rc::gen::inRange(1, 5);
  std::vector<NamedScenario> list;
  for (int i = 0; i < count; ++i) {
    const Project other = i == 0 ? p : *genProject();
    // Unique, non-blank names with the characters JSON escapes.
    list.push_back({*genText() + "#" + std::to_string(i), other});
  }
  setScenarios(p, std::move(list), *rc::gen::inRange<std::size_t>(0, count));
  const std::string json = projectToJson(p);
  RC_LOG() << json;
  const Project back = projectFromJson(json, "generated.json");
  RC_ASSERT(back == p);
  RC_ASSERT(projectToJson(back) == json);
}

// ---------------------------------------------------------------------------
// Files.

TEST(ProjectIo, ReadFileNamesTheFileAndTheReason) {
  TempDir dir;
  try {
    (void)readFile(dir / "x.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read '" + (dir / "x.json").string() + "': No such file or directory");
  }
  EXPECT_THROW((void)loadProject(dir / "x.json"), InputError);
  try {
    (void)readFile(dir.path());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("Is a directory"));
  }
}

TEST(ProjectIo, LoadErrorsNameTheFile) {
  TempDir dir;
  std::ofstream(dir / "bad.json") << "{\"format\": \"libra-project\", \"schema_version\": 1}";
  try {
    (void)loadProject(dir / "bad.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "bad.json").string() + ": missing key 'name'");
  }
}

TEST(ProjectIo, SaveReplacesTheFileAndKeepsItsPermissions) {
  TempDir dir;
  const fs::path path = dir / "p.json";
  std::ofstream(path) << "old";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  saveProject(sampleProject(), path);
  EXPECT_EQ(loadProject(path), sampleProject());
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.json"});
}

TEST(ProjectIo, SaveIntoAMissingDirectoryFails) {
  TempDir dir;
  const fs::path path = dir / "no-such-dir" / "p.json";
  try {
    saveProject(sampleProject(), path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write '" + path.string() + "': No such file or directory");
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProjectIo, FailedRenameLeavesNoTemporaryFile) {
  TempDir dir;
  // The target is a non-empty directory: everything succeeds up to the rename.
  fs::create_directories(dir / "p.json" / "inside");
  EXPECT_THROW(saveProject(sampleProject(), dir / "p.json"), InputError);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.json"});
  EXPECT_TRUE(fs::is_directory(dir / "p.json" / "inside"));
}

// A project larger than what a read accepts is refused before anything is
// written (`libra new` once wrote a 117 MB project no command could open).
TEST(ProjectIo, AProjectTooLargeToReadBackIsNotWritten) {
  TempDir dir;
  const fs::path path = dir / "p.json";
  EXPECT_NO_THROW(checkProjectReadable(kMaxInputFileBytes, path));
  try {
    checkProjectReadable(kMaxInputFileBytes + 1, path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("p.json"), std::string::npos) << m;
    EXPECT_NE(m.find("65 MiB, more than the 64 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("micro-batch"), std::string::npos) << m;
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(ProjectIo, FailedWriteLeavesTheOldFileIntact) {
  TempDir dir;
  const fs::path path = dir / "p.json";
  Project small = sampleProject();
  small.workloads.resize(1);
  small.workloads[0].layers.mutate().resize(1);
  saveProject(small, path);
  const std::string before = slurp(path);

  // Simulate a full disk: the process may not write files beyond the old size.
  Project big = sampleProject();
  for (int i = 0; i < 200; ++i) big.workloads[0].layers.push_back(big.workloads[0].layers[0]);
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  auto* oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = old;
  limited.rlim_cur = static_cast<rlim_t>(before.size());
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  std::string message;
  try {
    saveProject(big, path);
  } catch (const InputError& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, oldHandler);

  EXPECT_THAT(message, HasSubstr("cannot write '" + path.string() + "': File too large"));
  EXPECT_EQ(slurp(path), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.json"});
}

// A save that cannot be made says why and leaves nothing behind. (Under a
// file, not into a read-only directory: root may write into any directory, and
// CI runs as root.)
TEST(ProjectIo, SaveUnderAFileFailsAndLeavesNothing) {
  TempDir dir;
  const fs::path file = dir / "notes.txt";
  { std::ofstream(file) << "notes\n"; }
  try {
    saveProject(sampleProject(), file / "p.json");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("notes.txt/p.json"));
    EXPECT_THAT(e.what(), HasSubstr("Not a directory"));
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"notes.txt"});
  EXPECT_EQ(slurp(file), "notes\n");
}

// A read-only file is not replaced, even by root (who could).
TEST(ProjectIo, AReadOnlyFileIsRefused) {
  TempDir dir;
  const fs::path path = dir / "p.json";
  saveProject(sampleProject(), path);
  const std::string before = slurp(path);
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  Project changed = sampleProject();
  changed.name = "changed";
  try {
    saveProject(changed, path);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("p.json"));
    EXPECT_THAT(e.what(), HasSubstr("read-only (mode 0444)"));
  }
  EXPECT_EQ(slurp(path), before);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.json"});
}

// Saving through a symbolic link replaces the file it points to; the link stays.
TEST(ProjectIo, ASymlinkStaysALink) {
  TempDir dir;
  fs::create_directories(dir / "real");
  const fs::path target = dir / "real" / "p.json";
  saveProject(sampleProject(), target);
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink(fs::path("real") / "p.json", dir / "link.json");
  Project changed = sampleProject();
  changed.name = "through the link";
  saveProject(changed, dir / "link.json");
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(loadProject(target).name, "through the link");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);  // its mode is kept
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"link.json", "real"}));
  // A dangling link gets the file it points to.
  fs::create_symlink(fs::path("real") / "new.json", dir / "dangling.json");
  saveProject(changed, dir / "dangling.json");
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.json"));
  EXPECT_EQ(loadProject(dir / "real" / "new.json").name, "through the link");
}

// A device is written in place, never replaced by a regular file.
TEST(ProjectIo, ADeviceIsWrittenInPlace) {
  saveProject(sampleProject(), "/dev/null");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  if (fs::exists("/dev/full")) {
    try {
      saveProject(sampleProject(), "/dev/full");
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr("/dev/full"));
      EXPECT_THAT(e.what(), HasSubstr("No space left on device"));
    }
    EXPECT_TRUE(fs::is_character_file("/dev/full"));
  }
  TempDir dir;
  try {
    saveProject(sampleProject(), dir.path());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("directory"));
  }
}

// A writer killed in the middle (kill -9) leaves its temporary file; the next
// save next to it removes it. A temporary of a writer that still runs stays.
TEST(ProjectIo, TemporariesOfKilledWritersAreRemoved) {
  TempDir dir;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);  // a process id that no longer runs
  const std::string stale = ".p.json.tmp-" + std::to_string(child) + "-0";
  const std::string alive = ".p.json.tmp-1-0";  // init always runs
  const std::string other = ".q.json.tmp-" + std::to_string(child) + "-0";
  for (const std::string& name : {stale, alive, other}) std::ofstream(dir / name) << "partial";
  saveProject(sampleProject(), dir / "p.json");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{alive, other, "p.json"}));
}

TEST(ProjectIo, NonFiniteNumbersAreNotSaved) {
  Project p = sampleProject();
  p.workloads[0].layers.mutate()[1].phase(PhaseKind::InputGrad).sizeBytes = std::nan("");
  try {
    (void)projectToJson(p);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("workloads[0].layers[1].input_grad.size_bytes"));
  }
}

TEST(ProjectIo, InvalidUiStateIsNotSaved) {
  Project p = sampleProject();
  p.uiState = "{not json";
  EXPECT_THROW((void)projectToJson(p), InputError);
}

// ---------------------------------------------------------------------------
// Hostile documents (issue 12): every JSON input goes through one reader that
// refuses duplicate keys, nesting deeper than 64 levels and files over 64 MiB.

TEST(ProjectIoHostile, DuplicateKeysAreRefusedWithTheirPath) {
  const std::string good = projectToJson(sampleProject());
  // At the top level: a second "objective" (nlohmann would keep the last).
  std::string top = good;
  top.insert(top.rfind('}'), ", \"objective\": \"performance\"");
  EXPECT_THAT(loadError(top), HasSubstr("proj.json: the top-level object has the key "
                                        "\"objective\" twice"));
  // Inside an array element: the path names the element.
  std::string nested = good;
  const std::size_t npus = nested.find("\"npus\"", nested.find("\"package\""));
  ASSERT_NE(npus, std::string::npos);
  nested.insert(npus, "\"npus\": 9, ");
  EXPECT_THAT(loadError(nested), HasSubstr("network.dimensions[1] has the key \"npus\" twice"));
  // Keys that are not identifiers are quoted in the path.
  Json doc = Json::parse(good);
  doc["ui"] = Json::object();
  std::string ui = doc.dump();
  ui.replace(ui.rfind("{}"), 2, "{\"a b\": {\"k\": 1, \"k\": 2}}");
  EXPECT_THAT(loadError(ui), HasSubstr("ui[\"a b\"] has the key \"k\" twice"));
  // The same key in two different objects is fine.
  EXPECT_NO_THROW((void)projectFromJson(good));
}

TEST(ProjectIoHostile, NestingDeeperThanTheLimitIsRefusedBeforeParsing) {
  Json doc = Json::parse(projectToJson(sampleProject()));
  doc["ui"] = Json::object();
  const std::string prefix = doc.dump().substr(0, doc.dump().rfind("{}"));
  const auto nested = [&](int levels) {
    return prefix + std::string(levels, '[') + std::string(levels, ']') + "}";
  };
  // The top-level object is level 1: 63 arrays as the value of "ui" reach the
  // limit of 64 exactly; the 64th '[' is refused, by its column.
  EXPECT_NO_THROW((void)projectFromJson(nested(63)));
  const std::string error = loadError(nested(64));
  EXPECT_THAT(error, HasSubstr("nested deeper than 64 levels"));
  EXPECT_THAT(error, HasSubstr("proj.json:1:" + std::to_string(prefix.size() + 64)));
  // 100,000 levels: no stack overflow in the parser, the copy or the dump.
  EXPECT_THAT(loadError(nested(100000)), HasSubstr("deeper than 64"));
  // Brackets inside strings do not count.
  Json strings = Json::parse(projectToJson(sampleProject()));
  strings["name"] = std::string(1000, '[') + "\\\"{";
  EXPECT_NO_THROW((void)projectFromJson(strings.dump()));
}

TEST(ProjectIoHostile, FilesOverTheSizeLimitAreRefusedBeforeReading) {
  TempDir dir;
  const fs::path big = dir / "big.json";
  { std::ofstream out(big); }
  // Sparse: no disk space used; the content is never read.
  fs::resize_file(big, kMaxInputFileBytes + 1);
  try {
    (void)loadProject(big);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("big.json"));
    EXPECT_THAT(e.what(), HasSubstr(std::to_string(kMaxInputFileBytes + 1) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("64 MiB"));
  }
}

TEST(ProjectIoHostile, LongValuesAreEchoedShort) {
  Json doc = Json::parse(projectToJson(sampleProject()));
  doc["network"]["dimensions"][0]["block"] = std::string(1000000, 'x');
  const std::string error = loadError(doc.dump());
  EXPECT_LT(error.size(), 300u) << error.substr(0, 300);
  EXPECT_THAT(error, HasSubstr(std::string(77, 'x') + "… (1000000 characters)"));
  EXPECT_EQ(text::abbreviate(std::string(80, 'a')), std::string(80, 'a'));
  EXPECT_EQ(text::abbreviate(std::string(81, 'a')), std::string(77, 'a') + "… (81 characters)");
  // Control characters and bidirectional overrides are escaped, not echoed.
  EXPECT_EQ(text::abbreviate("a\x1b[31mb\n\xe2\x80\xae"), "a\\x1b[31mb\\n\\u202e");
}

TEST(ProjectIoHostile, APriceThatOverflowsTheCostIsRefused) {
  Project p = sampleProject();
  p.costModel.levels["InterPod"].link = 1e308;
  try {
    (void)buildProblem(p);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("InterPod"));
    EXPECT_THAT(e.what(), HasSubstr("'pod'"));
    EXPECT_THAT(e.what(), HasSubstr("overflow"));
  }
  p.costModel.levels["InterPod"].link = 1e50;
  EXPECT_NO_THROW((void)buildProblem(p));
}

// --- file names from user names (libra/file_names.hpp) -------------------------

TEST(FileStem, KeepsWhatAFileNameMayHoldAndSeparatesTheRest) {
  EXPECT_EQ(fileStem("GPT-3 175B (TP 16)"), "GPT-3_175B_TP_16");
  EXPECT_EQ(fileStem("GPT-3 175B (TP 16)", '-'), "GPT-3-175B-TP-16");
  EXPECT_EQ(fileStem("  Pod study A ", '-'), "Pod-study-A");
  // Never a hidden file, never a separator at either end, never a path.
  EXPECT_EQ(fileStem(".hidden", '-'), "hidden");
  EXPECT_EQ(fileStem("../../etc/passwd"), "etc_passwd");
  EXPECT_EQ(fileStem("v1.2 final"), "v1.2_final");
  // Nothing usable is left: the caller names the fallback.
  EXPECT_EQ(fileStem("  (*) "), "");
  EXPECT_EQ(fileStem(""), "");
}

}  // namespace
}  // namespace libra
