// Models from files: Hugging Face config.json files (tests/data/models, each
// as its model card publishes it) against the parameter counts their authors
// publish, libra's own model file written and read back for every preset, the
// refusals, and a model that is not a preset carried by a project file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "engine_test_support.hpp"
#include "libra/error.hpp"
#include "libra/model_file.hpp"
#include "libra/presets.hpp"
#include "libra/project_io.hpp"
#include "libra/training.hpp"
#include "preset_test_support.hpp"

namespace libra {
namespace {

const std::string kModels = LIBRA_SOURCE_DIR "/tests/data/models/";

Preset model(const std::string& file) {
  Preset p = readModelFile(kModels + file);
  completeModel(p, file, 4096, 1024);
  return p;
}

std::string refusal(std::string_view text, int sequence = 4096, std::int64_t batch = 1024) {
  try {
    Preset p = parseModelFile(text, "m.json");
    completeModel(p, "m.json", sequence, batch);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Within `tolerance` (relative) of the published figure.
::testing::AssertionResult near(double value, double published, double tolerance) {
  const double off = std::abs(value / published - 1);
  if (off <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << value / 1e9 << " B against " << published / 1e9
                                       << " B published: " << off * 100 << " % off";
}

// Published totals, within 1 %: the counts leave out biases, normalization and
// positional weights, and the figures are rounded.
TEST(ModelFile, HuggingFaceConfigsMatchThePublishedParameterCounts) {
  struct Case {
    const char* file;
    double total;
    double active;  // 0: dense
    const char* source;
    double activeTolerance = 0.01;
  };
  const Case cases[] = {
      // Model cards, "Model size" (huggingface.co/meta-llama/...): 8.03 B, 70.6 B, 405.9 B.
      {"llama3-8b.json", 8.03e9, 0, "meta-llama/Meta-Llama-3-8B"},
      {"llama3-70b.json", 70.6e9, 0, "meta-llama/Meta-Llama-3-70B"},
      {"llama3.1-405b.json", 405.9e9, 0, "meta-llama/Llama-3.1-405B"},
      // Mistral AI, "Mixtral of Experts", arXiv:2401.04088: 47 B (46.7 B) total, 13 B
      // (12.9 B) active; mistral.ai/news/mixtral-of-experts gives 46.7 / 12.9.
      {"mixtral-8x7b.json", 46.7e9, 12.9e9, "arXiv:2401.04088"},
      // DeepSeek-V3 Technical Report, arXiv:2412.19437: 671 B total, 37 B activated.
      // Active counts the embedding and the output layer (0.93 B each): 37.55 B;
      // without the embedding 36.62 B. "37" has two digits (36.5 to 37.5), so the
      // report's count leaves one of them out: 1.5 % (Mixtral's 12.9 B, to three
      // digits, counts both).
      {"deepseek-v3.json", 671e9, 37e9, "arXiv:2412.19437", 0.015},
      // Qwen2 Technical Report, arXiv:2407.10671, Table 1: 72.71 B (the 72B model).
      {"qwen2-72b.json", 72.71e9, 0, "arXiv:2407.10671"},
      // Qwen1.5-MoE model card: 14.3 B total, 2.7 B activated.
      {"qwen1.5-moe-a2.7b.json", 14.3e9, 2.7e9, "Qwen/Qwen1.5-MoE-A2.7B"},
      // Mistral 7B, arXiv:2310.06825 (the model card: 7.24 B).
      {"mistral-7b.json", 7.24e9, 0, "mistralai/Mistral-7B-v0.1"},
      // Pythia, arXiv:2304.01373, Table 1: 11,846,072,320 total parameters.
      {"pythia-12b.json", 11.846e9, 0, "arXiv:2304.01373"},
      // GPT-2 small: 124 M (the 124M model of openai-community/gpt2).
      {"gpt2.json", 124e6, 0, "openai-community/gpt2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " (" + c.source + ")");
    const Preset p = model(c.file);
    EXPECT_TRUE(near(p.parameterCount(), c.total, 0.01));
    if (c.active > 0) {
      EXPECT_TRUE(near(p.activeParameterCount(), c.active, c.activeTolerance));
    } else {
      // Dense: every weight is active, and the embedding is used twice when tied.
      const auto& t = std::get<TransformerConfig>(p.model);
      const double tiedOutput = t.tiedEmbeddings ? double(t.vocab) * t.hidden : 0.0;
      EXPECT_DOUBLE_EQ(p.activeParameterCount(), p.parameterCount() + tiedOutput);
    }
  }
}

// Nemotron-4 15B, arXiv:2402.16819, Table 1: 3.2 B embedding and 12.5 B
// non-embedding parameters. The embedding is 256,000 x 6,144 twice (untied):
// 3.146 B exactly, which the paper rounds to 3.2; the rest within 1 %.
TEST(ModelFile, NemotronSplitsIntoEmbeddingAndTheRest) {
  const Preset p = model("nemotron-4-15b.json");
  const auto& t = std::get<TransformerConfig>(p.model);
  EXPECT_FALSE(t.gatedMlp);  // squared ReLU: two matrices
  EXPECT_EQ(t.headWidth(), 128);
  const double embedding = 2.0 * t.vocab * t.hidden;
  EXPECT_EQ(embedding, 2.0 * 256000 * 6144);
  EXPECT_TRUE(near(embedding, 3.2e9, 0.02));
  EXPECT_TRUE(near(p.parameterCount() - embedding, 12.5e9, 0.01));
  EXPECT_TRUE(near(p.parameterCount(), 15.7e9, 0.01));
}

TEST(ModelFile, HuggingFaceKeysBecomeTheHyperparameters) {
  const Preset ds = model("deepseek-v3.json");
  const auto& d = std::get<TransformerConfig>(ds.model);
  EXPECT_EQ(d.layers, 61);
  EXPECT_EQ(d.experts, 256);
  EXPECT_EQ(d.topK, 8);
  EXPECT_EQ(d.sharedExperts, 1);
  EXPECT_EQ(d.denseLayers, 3);
  EXPECT_EQ(d.nodeLimit, 4);  // topk_group of n_group 8
  EXPECT_TRUE(d.mla());
  EXPECT_EQ(d.expertWidth(), 2048);
  EXPECT_EQ(d.ffn, 18432);
  EXPECT_EQ(ds.name, "deepseek-ai/DeepSeek-V3");
  EXPECT_EQ(ds.family(), ModelFamily::MixtureOfExperts);
  // The built-in DeepSeek-V3 preset has the same weights.
  EXPECT_EQ(ds.parameterCount(), findPreset("deepseek-v3").parameterCount());

  const Preset qwen = model("qwen1.5-moe-a2.7b.json");
  EXPECT_EQ(std::get<TransformerConfig>(qwen.model).sharedExperts, 4);  // 5632 / 1408
  const Preset gpt2 = model("gpt2.json");
  const auto& g = std::get<TransformerConfig>(gpt2.model);
  EXPECT_EQ(g.ffn, 4 * 768);  // n_inner null
  EXPECT_TRUE(g.tiedEmbeddings);
  EXPECT_FALSE(g.gatedMlp);
  const Preset llama70 = model("llama3-70b.json");
  const auto& llama = std::get<TransformerConfig>(llama70.model);
  EXPECT_TRUE(llama.gatedMlp);
  EXPECT_FALSE(llama.tiedEmbeddings);
  EXPECT_EQ(llama.kvHeads, 8);
  // The built-in Llama 3 70B preset has the same weights.
  EXPECT_EQ(llama70.parameterCount(), findPreset("llama3-70b").parameterCount());
}

// A head dim that is not hidden / heads (Mistral NeMo: 5120 / 32 = 160, heads
// of 128) sizes the attention by the heads.
TEST(ModelFile, AnExplicitHeadDimSizesTheAttention) {
  const std::string nemo = R"({"model_type": "mistral", "hidden_size": 5120,
      "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "num_hidden_layers": 40, "intermediate_size": 14336, "vocab_size": 131072})";
  Preset p = parseModelFile(nemo, "nemo.json");
  completeModel(p, "nemo.json", 4096, 512);
  const auto& t = std::get<TransformerConfig>(p.model);
  const AttentionShape a = t.attention();
  EXPECT_EQ(a.q, 5120.0 * 32 * 128);
  EXPECT_EQ(a.k, 5120.0 * 8 * 128);
  EXPECT_EQ(a.out, 32.0 * 128 * 5120);
  EXPECT_EQ(a.qkWidth, 32.0 * 128);
  // Mistral NeMo 12B (mistralai/Mistral-Nemo-Base-2407): 12.2 B.
  EXPECT_TRUE(near(p.parameterCount(), 12.2e9, 0.01));
}

TEST(ModelFile, EveryPresetIsWrittenAndReadBackUnchanged) {
  for (const Preset& preset : presets()) {
    SCOPED_TRACE(preset.id);
    const std::string text = modelFileJson(preset);
    const Preset back = parseModelFile(text, preset.id + ".json");
    EXPECT_TRUE(back == preset) << text;
    EXPECT_TRUE(isBuiltInPreset(back));
    Preset edited = back;
    edited.microBatch += 1;
    EXPECT_FALSE(isBuiltInPreset(edited));
  }
}

TEST(ModelFile, ConfigsWithoutABatchNeedTheFlags) {
  const Preset read = readModelFile(kModels + "llama3-8b.json");
  EXPECT_EQ(read.sequenceLength, 0);
  EXPECT_EQ(read.globalBatch, 0);
  Preset p = read;
  try {
    completeModel(p, "llama3-8b.json", 0, 512);
    FAIL() << "accepted without a sequence length";
  } catch (const InputError& e) {
    EXPECT_TRUE(test::contains(e.what(), "--sequence-length")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "llama3-8b.json")) << e.what();
  }
  p = read;
  try {
    completeModel(p, "llama3-8b.json", 8192, 0);
    FAIL() << "accepted without a global batch";
  } catch (const InputError& e) {
    EXPECT_TRUE(test::contains(e.what(), "--global-batch")) << e.what();
  }
  p = read;
  completeModel(p, "llama3-8b.json", 8192, 512);
  EXPECT_EQ(p.sequenceLength, 8192);
  EXPECT_EQ(p.globalBatch, 512);
}

TEST(ModelFile, BadFilesAreRefusedNamingTheKey) {
  const std::string unknown = refusal(R"({"model_type": "t5", "d_model": 512})");
  EXPECT_TRUE(test::contains(unknown, "model_type \"t5\"")) << unknown;
  EXPECT_TRUE(test::contains(unknown, "deepseek_v3")) << unknown;  // the known ones
  const std::string missing = refusal(R"({"model_type": "llama", "hidden_size": 4096,
      "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000})");
  EXPECT_TRUE(test::contains(missing, "num_hidden_layers")) << missing;
  EXPECT_TRUE(test::contains(missing, "m.json")) << missing;
  const std::string text = refusal(R"({"model_type": "llama", "num_hidden_layers": "32",
      "hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 1, "vocab_size": 1})");
  EXPECT_TRUE(test::contains(text, "num_hidden_layers must be a whole number")) << text;
  const std::string negative = refusal(R"({"model_type": "gpt2", "n_layer": -1, "n_embd": 768,
      "n_head": 12, "vocab_size": 50257})");
  EXPECT_TRUE(test::contains(negative, "n_layer is -1")) << negative;
  const std::string heads = refusal(R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 770,
      "n_head": 12, "vocab_size": 50257})");
  EXPECT_TRUE(test::contains(heads, "not a multiple of the 12 heads")) << heads;
  EXPECT_TRUE(test::contains(refusal("{\"model_type\": \"llama\",}"), "m.json:1:"));
  EXPECT_TRUE(test::contains(refusal("[1, 2]"), "a JSON object"));
  EXPECT_TRUE(test::contains(refusal("{\"name\": \"x\"}"), "neither a Hugging Face"));

  // libra's own file is strict: a misspelt key is an error.
  std::string own = modelFileJson(findPreset("gpt3-175b"));
  own.replace(own.find("\"hidden\""), 8, "\"hiden\"");
  const std::string misspelt = refusal(own);
  EXPECT_TRUE(test::contains(misspelt, "unknown key \"hiden\"")) << misspelt;
  EXPECT_TRUE(test::contains(misspelt, "transformer")) << misspelt;
  std::string future = modelFileJson(findPreset("gpt3-175b"));
  future.replace(future.find("\"schema_version\": 1"), 19, "\"schema_version\": 9");
  EXPECT_TRUE(test::contains(refusal(future), "a newer libra wrote it"));
}

// A project generated from a model that is not a preset keeps the model: read
// back, its training facts and a regeneration for another network use it.
TEST(ModelFile, AProjectCarriesItsModel) {
  const Preset p = model("mistral-7b.json");
  const Network network = testing::ringNetwork({8, 16}, {"node", "pod"});
  Parallelism par;
  par.tp = 8;
  const Project project = makeProject(p, par, findDevice("h100"), network);
  ASSERT_TRUE(project.workloads[0].origin);
  EXPECT_FALSE(project.workloads[0].origin->model.empty());
  EXPECT_EQ(describedName(project).find("mistralai/Mistral-7B-v0.1"), 0u) << describedName(project);

  const std::string path = (std::filesystem::temp_directory_path() /
                            ("libra-model-file-" + std::to_string(::getpid()) + ".json"))
                               .string();
  saveProject(project, path);
  const Project read = loadProject(path);
  std::filesystem::remove(path);
  EXPECT_TRUE(read == project);
  const TrainingFacts facts = trainingFacts(read);
  ASSERT_TRUE(facts.tokensPerIteration) << facts.note;
  EXPECT_DOUBLE_EQ(*facts.tokensPerIteration, 4096.0 * 1024);
  EXPECT_TRUE(facts.memory.use) << facts.memory.note;

  Workload w = read.workloads[0];
  std::string error;
  ASSERT_TRUE(regenerateForNetwork(w, testing::ringNetwork({8, 32}, {"node", "pod"}), &error))
      << error;
  EXPECT_EQ(presetChoiceOf(w)->parallelism.tp, 8);
  EXPECT_EQ(modelOf(*presetChoiceOf(w)), p);

  // A built-in preset is stored by its id only.
  const Project gpt =
      makeProject(findPreset("gpt3-175b"), findPreset("gpt3-175b").defaults, findDevice("h100"),
                  testing::ringNetwork({16, 256}, {"node", "pod"}));
  EXPECT_TRUE(gpt.workloads[0].origin->model.empty());
}

}  // namespace
}  // namespace libra
