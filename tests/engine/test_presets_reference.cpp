// Reference reproduction: the generators against the LIBRA reference inputs
// (registered with REFERENCE, so LIBRA_REFERENCE_DIR is defined).
#include <gtest/gtest.h>

#include "libra/presets.hpp"
#include "preset_test_support.hpp"

using namespace libra;
using namespace libra::testing;

// ---------------------------------------------------------------------------------
// Reference reproduction (LIBRA inputs): the Libra layout with 2 blocks and the
// reference tokens per micro-batch writes the reference files' collectives exactly.
namespace {

std::string referencePath(const std::string& path) {
  return std::string(LIBRA_REFERENCE_DIR) + "/" + path;
}

CollectiveType typeOf(const std::string& text) {
  return *parseCollectiveType(text);
}

struct Reproduction {
  Workload generated;
  std::vector<ReferenceLine> reference;
};

Reproduction reproduce(const std::string& file, const std::string& preset, int tp,
                       const std::string& network) {
  Parallelism par;
  par.tp = tp;
  GeneratorOptions options;
  options.layout = WorkloadLayout::Libra;
  options.blocks = 2;
  return {generateWorkload(findPreset(preset), par, findDevice("libra-reference"),
                           readReferenceNetwork(referencePath("libra-inputs/network/" + network)),
                           options),
          readReferenceWorkload(referencePath("libra-inputs/workload/" + file))};
}

void expectSameCollectives(const Reproduction& r) {
  ASSERT_EQ(r.generated.layers.size(), r.reference.size());
  for (std::size_t i = 0; i < r.reference.size(); ++i) {
    const ReferenceLine& want = r.reference[i];
    const Layer& got = r.generated.layers[i];
    EXPECT_EQ(got.name, want.name);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(got.phases[k].collective, typeOf(want.type[k])) << want.name << " phase " << k;
      EXPECT_EQ(got.phases[k].sizeBytes, want.size[k]) << want.name << " phase " << k;
    }
  }
}

double referenceCompute(const std::vector<ReferenceLine>& lines) {
  double t = 0;
  for (const ReferenceLine& l : lines) t += l.compute[0] + l.compute[1] + l.compute[2];
  return t;
}

}  // namespace

TEST(ReferenceReproduction, Gpt3) {
  const Reproduction r = reproduce("GPT_3.txt", "gpt3-175b", 16, "3d_network.yml");
  expectSameCollectives(r);
  // 805306368 = 12288 x 32768 tokens x 2 bytes; 452984832 = 12 h^2 x 2 blocks / 16 x 2.
  EXPECT_EQ(r.generated.layers[0].phase(PhaseKind::InputGrad).sizeBytes, 12288.0 * 32768 * 2);
  EXPECT_EQ(r.generated.layers[0].phase(PhaseKind::WeightGrad).sizeBytes,
            12 * 12288.0 * 12288 * 2 / 16 * 2);
  // GEMM lines at the reference rate reproduce the file's times exactly.
  EXPECT_DOUBLE_EQ(r.generated.layers[0].phase(PhaseKind::Forward).computeNs, 9375000);
  EXPECT_DOUBLE_EQ(r.generated.layers[6].phase(PhaseKind::Forward).computeNs, 37500000);
  // Attention scores use the full sequence of 2048 (the file's QK is half of that).
  EXPECT_NEAR(totalCompute(r.generated) / referenceCompute(r.reference), 1.0137, 0.001);
}

TEST(ReferenceReproduction, TuringNlg) {
  const Reproduction r = reproduce("Turing_NLG.txt", "turing-nlg-17b", 1, "3d_network.yml");
  expectSameCollectives(r);
  // 69730304 = 4256 x 8192 x 2; 869449728 = 12 h^2 x 2 blocks x 2 bytes (TP 1).
  EXPECT_EQ(r.generated.layers[0].phase(PhaseKind::InputGrad).sizeBytes, 4256.0 * 8192 * 2);
  EXPECT_EQ(r.generated.layers[0].phase(PhaseKind::WeightGrad).sizeBytes,
            12 * 4256.0 * 4256 * 2 * 2);
  EXPECT_NEAR(r.generated.layers[0].phase(PhaseKind::Forward).computeNs, 4498545, 4498545 * 1e-4);
  EXPECT_NEAR(totalCompute(r.generated) / referenceCompute(r.reference), 1.0, 0.035);
}

TEST(ReferenceReproduction, Msft1T) {
  const Reproduction r = reproduce("MSFT_1T.txt", "msft-1t", 128, "3d_network.yml");
  expectSameCollectives(r);
  // 226492416 = 12 x 24576^2 x 2 blocks / 128 x 2 bytes.
  EXPECT_EQ(r.generated.layers[0].phase(PhaseKind::WeightGrad).sizeBytes,
            12 * 24576.0 * 24576 * 2 / 128 * 2);
  EXPECT_DOUBLE_EQ(r.generated.layers[0].phase(PhaseKind::Forward).computeNs, 2343750);
  EXPECT_NEAR(totalCompute(r.generated) / referenceCompute(r.reference), 1.0, 0.01);
}

TEST(ReferenceReproduction, CommunicatorsOfTheTransformers) {
  struct Case {
    const char* workload;
    const char* preset;
    int tp;
    const char* network;
    const char* communicator;
  };
  for (const Case& c :
       {Case{"GPT_3.txt", "gpt3-175b", 16, "3d_network.yml", "GPT_3_3d.yml"},
        Case{"GPT_3.txt", "gpt3-175b", 16, "4d_network.yml", "GPT_3_4d.yml"},
        Case{"MSFT_1T.txt", "msft-1t", 128, "3d_network.yml", "MSFT_1T_3d.yml"},
        Case{"MSFT_1T.txt", "msft-1t", 128, "4d_network.yml", "MSFT_1T_4d.yml"},
        Case{"Turing_NLG.txt", "turing-nlg-17b", 1, "3d_network.yml", "Turing_NLG_3D.yml"},
        Case{"Turing_NLG.txt", "turing-nlg-17b", 1, "4d_network.yml", "Turing_NLG_4D.yml"}}) {
    const Reproduction r = reproduce(c.workload, c.preset, c.tp, c.network);
    const std::string file =
        referencePath(std::string("libra-inputs/communicator/") + c.communicator);
    EXPECT_EQ(r.generated.communicator.of(PhaseKind::Forward), readYamlList(file, "Forward"))
        << c.communicator;
    EXPECT_EQ(r.generated.communicator.of(PhaseKind::InputGrad), readYamlList(file, "InputGrad"))
        << c.communicator;
    EXPECT_EQ(r.generated.communicator.of(PhaseKind::WeightGrad), readYamlList(file, "WeightGrad"))
        << c.communicator;
  }
}

TEST(ReferenceReproduction, ResNet50) {
  GeneratorOptions options;
  options.layout = WorkloadLayout::Libra;
  const Network net = readReferenceNetwork(referencePath("libra-inputs/network/4d_network.yml"));
  const Workload w = generateWorkload(findPreset("resnet50"), Parallelism{},
                                      findDevice("libra-reference"), net, options);
  const auto reference =
      readReferenceWorkload(referencePath("libra-inputs/workload/ResNet_50.txt"));
  ASSERT_EQ(w.layers.size(), reference.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    EXPECT_EQ(w.layers[i].name, reference[i].name);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(w.layers[i].phases[k].collective, typeOf(reference[i].type[k]));
      EXPECT_EQ(w.layers[i].phases[k].sizeBytes, reference[i].size[k]);
    }
  }
  const std::string file = referencePath("libra-inputs/communicator/ResNet_50_4d.yml");
  EXPECT_EQ(w.communicator.of(PhaseKind::WeightGrad), readYamlList(file, "WeightGrad"));
  EXPECT_EQ(w.communicator.of(PhaseKind::Forward), readYamlList(file, "Forward"));
}

TEST(ReferenceReproduction, Dlrm) {
  GeneratorOptions options;
  options.layout = WorkloadLayout::Libra;
  const Network net = readReferenceNetwork(referencePath("libra-inputs/network/3d_network.yml"));
  const Workload w = generateWorkload(findPreset("dlrm-libra"), Parallelism{},
                                      findDevice("libra-reference"), net, options);
  const auto reference = readReferenceWorkload(referencePath("libra-inputs/workload/DLRM.txt"));
  ASSERT_EQ(w.layers.size(), reference.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    EXPECT_EQ(w.layers[i].name, reference[i].name);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(w.layers[i].phases[k].collective, typeOf(reference[i].type[k]));
      EXPECT_EQ(w.layers[i].phases[k].sizeBytes, reference[i].size[k]);
    }
  }
}
