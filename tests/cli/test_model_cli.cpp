// `--model CONFIG.json`: a Hugging Face config.json or libra's model file
// instead of a preset, in `libra new`, `sweep` and `codesign`; `libra presets
// --show ID --json` writes the model file of a preset, which reads back as
// that preset.
#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

TEST_F(CliTest, NewReadsAHuggingFaceConfig) {
  const std::string out = tmp("llama.json");
  const std::vector<std::string> withFlag{"new",
                                          "--model",
                                          modelFile("llama3-8b.json"),
                                          "--network",
                                          dataFile("libra/tiny_network.yml"),
                                          "--sequence-length",
                                          "8192",
                                          "--global-batch",
                                          "512",
                                          "-o",
                                          out};
  const ProcessResult r = runLibra(withFlag);
  SCOPED_TRACE(describe(withFlag, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_TRUE(contains(r.out, "Meta-Llama-3-8B")) << r.out;
  EXPECT_TRUE(contains(r.out, "4,194,304 tokens per iteration (512 x 8192")) << r.out;
  // The project holds the model: it solves and reports its training anywhere.
  const json project = json::parse(readText(out));
  const json& origin = project["workloads"][0]["origin"];
  EXPECT_EQ(origin["model"]["format"], "libra-model");
  EXPECT_EQ(origin["model"]["transformer"]["kv_heads"], 8);
  EXPECT_EQ(origin["model"]["sequence_length"], 8192);
  const ProcessResult solved = runLibra({"solve", out, "--json"});
  ASSERT_EQ(solved.exitCode, 0) << solved.err;
  const json s = parseJson(solved.out);
  EXPECT_EQ(s["tokens_per_iteration"], 512.0 * 8192);
  // 6 x 8.03e9 parameters x tokens (plus attention): the model FLOPs per token
  // of an 8 B model, within the attention's share at 8192 tokens.
  const double flopsPerToken =
      s["model_tflops_per_npu"].get<double>() * 1e12 * 64 / s["tokens_per_second"].get<double>();
  EXPECT_GT(flopsPerToken, 6 * 8.03e9);
  EXPECT_LT(flopsPerToken, 6 * 8.03e9 * 1.4);
}

TEST_F(CliTest, APresetsModelFileGivesThePresetsProject) {
  const ProcessResult shown = runLibra({"presets", "--show", "llama3-70b", "--json"});
  ASSERT_EQ(shown.exitCode, 0) << shown.err;
  const json model = parseJson(shown.out);
  EXPECT_EQ(model["format"], "libra-model");
  EXPECT_EQ(model["transformer"]["hidden"], 8192);
  const std::string file = tmp("llama3-70b.model.json");
  writeText(file, shown.out);
  const std::string net = dataFile("libra/tiny_network.yml");
  const std::string fromPreset = tmp("preset.json"), fromModel = tmp("model.json");
  const std::vector<std::string> common{
      "--network", net, "--tp", "8", "--zero", "1", "--execution", "given", "--ignore-memory"};
  std::vector<std::string> a{"new", "--preset", "llama3-70b", "-o", fromPreset};
  std::vector<std::string> b{"new", "--model", file, "-o", fromModel};
  a.insert(a.end(), common.begin(), common.end());
  b.insert(b.end(), common.begin(), common.end());
  ASSERT_EQ(runLibra(a).exitCode, 0);
  const ProcessResult r = runLibra(b);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // The same model, unchanged: the same project, by the preset's id.
  EXPECT_EQ(readText(fromPreset), readText(fromModel));

  // Edited (four more layers), it is a model of its own, stored with the project.
  json edited = model;
  edited["transformer"]["layers"] = 84;
  edited["name"] = "Llama 3 70B + 4";
  writeText(file, edited.dump(2));
  const ProcessResult e = runLibra(b);
  ASSERT_EQ(e.exitCode, 0) << e.err;
  const json project = json::parse(readText(fromModel));
  EXPECT_EQ(project["workloads"][0]["origin"]["model"]["transformer"]["layers"], 84);
  EXPECT_TRUE(contains(project["name"].get<std::string>(), "Llama 3 70B + 4"));
}

TEST_F(CliTest, SweepAndCodesignTakeAModel) {
  const std::vector<std::string> sweep{"sweep",
                                       "--model",
                                       modelFile("mixtral-8x7b.json"),
                                       "--sequence-length",
                                       "4096",
                                       "--global-batch",
                                       "256",
                                       "--npus",
                                       "64",
                                       "--top",
                                       "2",
                                       "--json"};
  const ProcessResult s = runLibra(sweep);
  SCOPED_TRACE(describe(sweep, s));
  ASSERT_EQ(s.exitCode, 0);
  EXPECT_FALSE(parseJson(s.out)["best_performance"].empty()) << s.out;
  const std::vector<std::string> codesign{"codesign",
                                          "--model",
                                          modelFile("qwen2-72b.json"),
                                          "--sequence-length",
                                          "4096",
                                          "--global-batch",
                                          "512",
                                          "--npus",
                                          "256",
                                          "--dims",
                                          "2",
                                          "--top",
                                          "2",
                                          "--json"};
  const ProcessResult c = runLibra(codesign);
  SCOPED_TRACE(describe(codesign, c));
  ASSERT_EQ(c.exitCode, 0);
  const json j = parseJson(c.out);
  EXPECT_EQ(j["status"], "done");
  ASSERT_FALSE(j["designs"].empty());
  EXPECT_GT(j["designs"][0]["mfu"].get<double>(), 0);
}

TEST_F(CliTest, BadModelsAreRefusedInOneLine) {
  const std::string net = dataFile("libra/tiny_network.yml");
  const std::string out = tmp("never.json");
  expectUsageError({"new", "--model", modelFile("llama3-8b.json"), "--network", net, "-o", out},
                   {"llama3-8b.json", "--sequence-length"});
  expectUsageError({"new", "--model", modelFile("llama3-8b.json"), "--sequence-length", "8192",
                    "--network", net, "-o", out},
                   {"--global-batch"});
  const std::string t5 = tmp("t5.json");
  writeText(t5, R"({"model_type": "t5", "d_model": 512})");
  expectUsageError({"new", "--model", t5, "--network", net, "-o", out},
                   {"t5.json", "model_type \"t5\"", "llama"});
  const std::string broken = tmp("broken.json");
  writeText(broken, "{\"model_type\": \"llama\",\n \"hidden_size\": }");
  expectUsageError({"new", "--model", broken, "--network", net, "-o", out}, {"broken.json:2:"});
  expectUsageError({"new", "--model", tmp("missing.json"), "--network", net, "-o", out},
                   {"missing.json"});
  expectUsageError({"new", "--preset", "gpt3-175b", "--model", modelFile("gpt2.json"), "--network",
                    net, "-o", out},
                   {"--preset", "--model"});
  expectUsageError({"new", "--network", net, "-o", out}, {"--preset", "--model"});
  expectUsageError({"presets", "--show", "gpt-9"}, {"gpt-9", "gpt3-175b"});
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace libra::testing
