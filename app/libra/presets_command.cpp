// `libra presets`: the built-in model presets and devices that `libra new` and
// `libra sweep` generate workloads from.
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "cli.hpp"
#include "libra/model_file.hpp"
#include "libra/presets.hpp"
#include "output.hpp"
#include "preset_options.hpp"

namespace libra::cli {

namespace {

constexpr std::size_t kSourceWidth = 40;

constexpr const char* kPresetsFooter =
    "Lists the model presets (hyperparameters, parameter count in billions of weights, default\n"
    "parallelism, where the numbers come from) and the devices (dense peak FLOP/s at the given\n"
    "precision, HBM bandwidth, the achieved fraction of the peak used for compute times).\n"
    "The tables cite the sources briefly; --json prints them in full with every hyperparameter "
    "and\n"
    "the assumptions beyond the source (notes). Formulas and sources: docs/workloads.md.\n"
    "\n"
    "Examples:\n"
    "  libra presets\n"
    "  libra presets --devices\n"
    "  libra presets --json | jq '.presets[] | {id, parameters}'\n"
    "  libra presets --show llama3-70b --json > my-model.json   # a model file to edit,\n"
    "  libra new --model my-model.json --network ...            # then read with --model\n"
    "\n"
    "Exit codes: 0 listed; 2 bad usage or an unknown preset.";

struct PresetsArgs {
  bool json = false;
  bool devicesOnly = false;
  std::string show;  // --show ID
};

std::string printfNumber(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string billions(double count) {
  const double b = count / 1e9;
  if (b >= 100) return printfNumber("%.1f", b);
  if (b >= 1) return printfNumber("%.2f", b);
  return printfNumber("%.4f", b);
}

// The first words of a long text, cut at a word boundary.
std::string shortened(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  std::size_t cut = text.rfind(' ', width - 3);
  if (cut == std::string::npos || cut < width / 2) cut = width - 3;
  std::string head = text.substr(0, cut);
  while (!head.empty() && (head.back() == ',' || head.back() == ' ' || head.back() == ':')) {
    head.pop_back();
  }
  return head + "...";
}

// A short citation of a source text for the tables: its arXiv id, else where its
// first link points (the host; owner/name on GitHub and Hugging Face), else its
// first words. --json prints the whole text.
std::string citation(const std::string& source) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const std::size_t arxiv = source.find("arXiv:");
  if (arxiv != std::string::npos) {
    std::size_t end = arxiv + 6;
    while (end < source.size() && (digit(source[end]) || source[end] == '.')) ++end;
    while (end > arxiv + 6 && source[end - 1] == '.') --end;
    if (end > arxiv + 6) return source.substr(arxiv, end - arxiv);
  }
  const std::size_t url = source.find("https://");
  if (url != std::string::npos) {
    std::size_t end = source.find_first_of(" )", url);
    std::string link = source.substr(url + 8, end == std::string::npos ? end : end - url - 8);
    if (link.rfind("www.", 0) == 0) link.erase(0, 4);
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
      const std::size_t slash = link.find('/', start);
      parts.push_back(link.substr(start, slash == std::string::npos ? slash : slash - start));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    const bool repository = parts[0] == "github.com" || parts[0] == "huggingface.co";
    if (repository && parts.size() >= 3) return parts[0] + "/" + parts[1] + "/" + parts[2];
    return parts[0];
  }
  return shortened(source, kSourceWidth);
}

std::string described(const Preset& preset, const std::string& key) {
  for (const auto& [k, v] : describe(preset)) {
    if (k == key) return v;
  }
  return "-";
}

std::string layersOf(const Preset& preset) {
  if (const auto* d = std::get_if<DlrmConfig>(&preset.model)) {
    return std::to_string(d->bottomMlp.size() + d->topMlp.size()) + " MLP";
  }
  return described(preset, "layers");
}

Json parallelismJson(const Parallelism& p) {
  Json j;
  j["tp"] = p.tp;
  j["cp"] = p.cp;
  j["ep"] = p.ep;
  j["expert_tp"] = p.etp();
  j["pp"] = p.pp;
  j["dp"] = p.dp;  // 0: NPUs / (TP x CP x EP x PP)
  j["sequence_parallel"] = p.sequenceParallel;
  j["zero3"] = p.zero3;
  j["zero_stage"] = p.zero();
  j["recompute"] = p.recompute;
  j["selective_recompute"] = p.selectiveRecompute;
  j["attention"] = std::string(toString(p.attention));
  j["moe_dispatcher"] = std::string(toString(p.moeDispatcher));
  j["moe_routing"] = std::string(toString(p.moeRouting));
  j["label"] = p.label();
  return j;
}

Json hyperparametersJson(const Preset& preset) {
  Json j;
  if (const auto* t = std::get_if<TransformerConfig>(&preset.model)) {
    j["layers"] = t->layers;
    j["hidden"] = t->hidden;
    j["ffn"] = t->ffn;
    j["heads"] = t->heads;
    j["kv_heads"] = t->kvHeads > 0 ? t->kvHeads : t->heads;
    j["vocab"] = t->vocab;
    j["gated_mlp"] = t->gatedMlp;
    j["tied_embeddings"] = t->tiedEmbeddings;
    j["experts"] = t->experts;
    j["top_k"] = t->topK;
    j["expert_ffn"] = t->experts > 0 ? t->expertWidth() : 0;
    j["shared_experts"] = t->sharedExperts;
    j["dense_layers"] = t->experts > 0 ? t->denseLayers : t->layers;
    j["active_parameters"] = preset.activeParameterCount();
    j["node_limit"] = t->nodeLimit;  // 0: none
    if (t->mla()) {
      j["attention"] = {
          {"type", "multi-head latent"},          {"q_lora_rank", t->qLoraRank},
          {"kv_lora_rank", t->kvLoraRank},        {"qk_nope_head_dim", t->qkNopeHeadDim},
          {"qk_rope_head_dim", t->qkRopeHeadDim}, {"v_head_dim", t->vHeadDim}};
    }
  } else if (const auto* c = std::get_if<CnnConfig>(&preset.model)) {
    Json layers = Json::array();
    for (const ConvLayer& l : c->layers) {
      layers.push_back({{"name", l.name},
                        {"in_channels", l.inChannels},
                        {"out_channels", l.outChannels},
                        {"kernel", l.kernel},
                        {"output_size", l.outputSize}});
    }
    j["layers"] = std::move(layers);
  } else {
    const auto& d = std::get<DlrmConfig>(preset.model);
    j["dense_features"] = d.denseFeatures;
    j["bottom_mlp"] = d.bottomMlp;
    j["top_mlp"] = d.topMlp;
    j["tables"] = d.tables;
    j["embedding_dim"] = d.embeddingDim;
    j["interaction_width"] = d.interactionWidth;  // 0: bottom output + C(tables + 1, 2)
    j["table_rows"] = d.tableRows.empty() ? Json(nullptr) : Json(d.tableRows);
    j["table_weights"] = d.tableRows.empty() ? Json(nullptr) : Json(d.tableWeights());
  }
  return j;
}

Json presetJson(const Preset& preset) {
  Json j;
  j["id"] = preset.id;
  j["name"] = preset.name;
  j["family"] = std::string(toString(preset.family()));
  j["parameters"] = preset.parameterCount();
  j["sequence_length"] = preset.sequenceLength;
  j["global_batch"] = preset.globalBatch;
  j["tokens_per_iteration"] = static_cast<double>(preset.globalBatch) * preset.sequenceLength;
  j["micro_batch"] = preset.microBatch;  // with pipeline parallelism, when none is given
  j["reference_micro_batch"] = preset.referenceMicroBatch;  // the Libra layout's, per NPU
  j["train_tokens"] = preset.trainTokens > 0 ? Json(preset.trainTokens) : Json(nullptr);
  j["bytes_per_element"] = preset.bytesPerElement;
  j["optimizer"] = std::string(toString(preset.optimizer));
  j["default_parallelism"] = parallelismJson(preset.defaults);
  j["hyperparameters"] = hyperparametersJson(preset);
  j["source"] = preset.source;
  j["notes"] = preset.notes;
  return j;
}

Json deviceJson(const Device& device) {
  Json j;
  j["id"] = device.id;
  j["name"] = device.name;
  j["peak_flops"] = device.peakFlops;
  j["precision"] = device.precision;
  j["memory_bandwidth_bytes_per_s"] = device.memoryBandwidth;  // 0: unknown
  j["memory_bytes"] = device.memoryBytes;                      // 0: unknown
  j["efficiency"] = device.efficiency;
  j["peak_fp8_flops"] = device.peakFp8Flops;  // 0: no FP8
  j["fp8_efficiency"] =
      device.hasFp8() && device.fp8Efficiency > 0 ? device.fp8Efficiency : device.efficiency;
  j["fp8_source"] = device.fp8Source;
  j["utilization"] = {{"transformer", device.transformerUtilization},
                      {"cnn", device.cnnUtilization},
                      {"dlrm", device.dlrmUtilization}};
  j["source"] = device.source;
  j["efficiency_source"] = device.efficiencySource;
  return j;
}

void printPresets(std::ostream& out, const Style& style) {
  Table table;
  table.addColumn("id", Table::Align::Left);
  table.addColumn("name", Table::Align::Left);
  table.addColumn("family", Table::Align::Left);
  table.addColumn("params (B)");
  table.addColumn("layers");
  table.addColumn("hidden");
  table.addColumn("global batch");
  table.addColumn("default parallelism", Table::Align::Left);
  table.addColumn("source", Table::Align::Left);
  for (const Preset& p : presets()) {
    table.addRow({p.id, p.name, std::string(toString(p.family())), billions(p.parameterCount()),
                  layersOf(p), described(p, "hidden"), std::to_string(p.globalBatch),
                  p.defaults.label(), citation(p.source)});
  }
  out << style.bold("Presets") << " (libra new --preset ID; DP auto = NPUs / (TP x EP x PP))\n";
  table.print(out, style);
}

void printDevices(std::ostream& out, const Style& style) {
  Table table;
  table.addColumn("id", Table::Align::Left);
  table.addColumn("name", Table::Align::Left);
  table.addColumn("peak (TFLOP/s)");
  table.addColumn("precision", Table::Align::Left);
  table.addColumn("FP8 (TFLOP/s)");
  table.addColumn("HBM (TB/s)");
  table.addColumn("HBM (GB)");
  table.addColumn("matmul eff.");
  table.addColumn("transformer");
  table.addColumn("cnn");
  table.addColumn("source", Table::Align::Left);
  for (const Device& d : devices()) {
    table.addRow({d.id, d.name, formatFixed(d.peakFlops / 1e12, 1), d.precision,
                  d.hasFp8() ? formatFixed(d.peakFp8Flops / 1e12, 1) : "-",
                  d.memoryBandwidth > 0 ? formatFixed(d.memoryBandwidth / 1e12, 2) : "-",
                  d.memoryBytes > 0 ? formatFixed(d.memoryBytes / 1e9, 0) : "-",
                  formatFixed(d.efficiency, 3), formatFixed(d.transformerUtilization, 2),
                  formatFixed(d.cnnUtilization, 2), citation(d.source)});
  }
  out << style.bold("Devices") << " (libra new --device ID; default " << kDefaultDevice
      << "; compute time = FLOPs / (peak x matmul efficiency x the model family's "
         "utilization), docs/workloads.md 2.8)\n";
  table.print(out, style);
}

// One preset: its hyperparameters, or (--json) libra's model file of it, which
// --model reads back.
int showPreset(const PresetsArgs& args, Context& context) {
  const Preset& preset = findPreset(args.show);
  if (args.json) {
    context.out << modelFileJson(preset) << std::endl;
    return kExitSuccess;
  }
  const Style style{context.color};
  context.out << style.bold(preset.name) << " (" << preset.id << ")\n";
  Table table;
  table.addColumn("hyperparameter", Table::Align::Left);
  table.addColumn("value", Table::Align::Left);
  for (const auto& [key, value] : describe(preset)) table.addRow({key, value});
  table.print(context.out, style);
  context.out << "source: " << preset.source << "\n";
  if (!preset.notes.empty()) context.out << "notes: " << preset.notes << "\n";
  return kExitSuccess;
}

int runPresetsCommand(const PresetsArgs& args, Context& context) {
  if (!args.show.empty()) return showPreset(args, context);
  if (args.json) {
    Json j;
    if (!args.devicesOnly) {
      Json list = Json::array();
      for (const Preset& p : presets()) list.push_back(presetJson(p));
      j["presets"] = std::move(list);
    }
    Json list = Json::array();
    for (const Device& d : devices()) list.push_back(deviceJson(d));
    j["devices"] = std::move(list);
    context.out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    return kExitSuccess;
  }
  const Style style{context.color};
  if (!args.devicesOnly) {
    printPresets(context.out, style);
    context.out << '\n';
  }
  printDevices(context.out, style);
  return kExitSuccess;
}

}  // namespace

void registerPresets(CLI::App& app, Context& context) {
  auto args = std::make_shared<PresetsArgs>();
  CLI::App* cmd =
      addCommand(app, context, "presets", "List the model presets and devices for new and sweep");
  if (cmd == nullptr) return;
  cmd->add_flag("--devices", args->devicesOnly, "List the devices only");
  cmd->add_option("--show", args->show,
                  "One preset's hyperparameters; with --json libra's model file of it, which "
                  "--model reads (a starting point to edit)")
      ->type_name("ID");
  cmd->add_flag("--json", args->json,
                "Print one JSON object with every hyperparameter, full sources and notes");
  cmd->footer(kPresetsFooter);
  cmd->callback([args, &context] { context.exitCode = runPresetsCommand(*args, context); });
}

}  // namespace libra::cli
