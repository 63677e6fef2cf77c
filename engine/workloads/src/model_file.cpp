#include "libra/model_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>

#include "json_text.hpp"
#include "libra/atomic_write.hpp"
#include "libra/error.hpp"
#include "text.hpp"

namespace libra {

namespace {

using Json = nlohmann::ordered_json;

// ---------------------------------------------------------------------------
// Reading JSON members with messages that name the file, the key and why.

class Reader {
 public:
  Reader(const Json& object, std::string source, std::string path)
      : object_(object), source_(std::move(source)), path_(std::move(path)) {}

  const Json* find(const std::string& key) const {
    const auto it = object_.find(key);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }
  bool has(const std::string& key) const { return find(key) != nullptr; }
  std::string at(const std::string& key) const { return json_text::pathStep(path_, key); }

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw InputError(source_ + ": " + at(key) + " " + why);
  }
  [[noreturn]] void missing(const std::string& key, const std::string& needs) const {
    throw InputError(source_ + ": the key \"" + at(key) + "\" is missing" +
                     (needs.empty() ? "" : " (" + needs + ")"));
  }

  // A whole number in [min, max]; nullopt when absent (or null).
  std::optional<std::int64_t> count(const std::string& key, std::int64_t min = 0,
                                    std::int64_t max = std::numeric_limits<int>::max()) const {
    const Json* v = find(key);
    if (!v) return std::nullopt;
    const bool whole = v->is_number_integer() || v->is_number_unsigned() ||
                       (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>());
    if (!whole) fail(key, "must be a whole number, not " + shown(*v));
    const double x = v->get<double>();
    if (!(x >= static_cast<double>(min) && x <= static_cast<double>(max))) {
      fail(key, "is " + text::formatNumber(x) + "; it must be between " + std::to_string(min) +
                    " and " + std::to_string(max));
    }
    return static_cast<std::int64_t>(x);
  }
  int integer(const std::string& key, int fallback, int min = 0) const {
    const auto v = count(key, min);
    return v ? static_cast<int>(*v) : fallback;
  }
  int required(const std::string& key, const std::string& needs, int min = 1) const {
    const auto v = count(key, min);
    if (!v) missing(key, needs);
    return static_cast<int>(*v);
  }
  std::optional<double> number(const std::string& key) const {
    const Json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(key, "must be a number, not " + shown(*v));
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < 0) fail(key, "must be a finite number >= 0");
    return x;
  }
  bool boolean(const std::string& key, bool fallback) const {
    const Json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key, "must be true or false, not " + shown(*v));
    return v->get<bool>();
  }
  std::optional<std::string> string(const std::string& key) const {
    const Json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(key, "must be a string, not " + shown(*v));
    return v->get<std::string>();
  }
  // Refuses keys outside `known` (libra's own file: a misspelt key is an error).
  void onlyKeys(const std::set<std::string>& known) const {
    for (const auto& item : object_.items()) {
      if (!known.count(item.key())) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        throw InputError(source_ + ": unknown key \"" + text::abbreviate(item.key()) + "\" in " +
                         (path_.empty() ? "the model file" : path_) + " (known: " + list + ")");
      }
    }
  }
  const Json& object() const { return object_; }
  const std::string& source() const { return source_; }

 private:
  static std::string shown(const Json& v) {
    return text::abbreviate(v.dump(-1, ' ', false, Json::error_handler_t::replace));
  }

  const Json& object_;
  std::string source_;
  std::string path_;
};

// An id from a name: lower case, runs of other characters as one '-'.
std::string idOf(const std::string& name) {
  std::string id;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '.') {
      id += static_cast<char>(std::tolower(u));
    } else if (!id.empty() && id.back() != '-') {
      id += '-';
    }
  }
  while (!id.empty() && id.back() == '-') id.pop_back();
  return id.empty() ? "model" : id.substr(0, 64);
}

// ---------------------------------------------------------------------------
// Hugging Face config.json

struct HfKeys {
  const char* layers;
  const char* hidden;
  const char* heads;
  const char* ffn;  // nullptr: 4 x hidden unless "n_inner" says otherwise (gpt2)
  bool gated;
  bool tiedByDefault;
};

const std::map<std::string, HfKeys>& hfTypes() {
  static const std::map<std::string, HfKeys> types{
      {"gpt2", {"n_layer", "n_embd", "n_head", nullptr, false, true}},
      {"gpt_neox",
       {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", false,
        false}},
      {"llama",
       {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", true,
        false}},
      {"mistral",
       {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", true,
        false}},
      {"mixtral",
       {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", true,
        false}},
      {"qwen2",
       {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", true,
        false}},
      {"qwen2_moe",
       {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", true,
        false}},
      {"deepseek_v2",
       {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", true,
        false}},
      {"deepseek_v3",
       {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", true,
        false}},
      {"nemotron",
       {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", false,
        false}},
  };
  return types;
}

// The experts of the mixture-of-experts types (nothing for dense ones).
void readExperts(const Reader& r, const std::string& type, const std::string& needs,
                 TransformerConfig& m) {
  if (type == "mixtral") {
    m.experts = r.required("num_local_experts", needs);
    m.topK = r.required("num_experts_per_tok", needs);
    m.expertFfn = m.ffn;
  } else if (type == "qwen2_moe") {
    m.experts = r.required("num_experts", needs);
    m.topK = r.required("num_experts_per_tok", needs);
    m.expertFfn = r.required("moe_intermediate_size", needs);
    const int shared = r.integer("shared_expert_intermediate_size", 0, 0);
    if (shared % m.expertFfn != 0) {
      r.fail("shared_expert_intermediate_size",
             "is " + std::to_string(shared) + ", not a whole number of experts of " +
                 std::to_string(m.expertFfn) + " (moe_intermediate_size)");
    }
    m.sharedExperts = shared / m.expertFfn;
    if (r.integer("decoder_sparse_step", 1, 1) != 1) {
      r.fail("decoder_sparse_step", "is not 1: only models whose every block has experts are read");
    }
    if (const Json* dense = r.find("mlp_only_layers");
        dense && !(dense->is_array() && dense->empty())) {
      r.fail("mlp_only_layers", "is not empty: only models whose every block has experts are read");
    }
  } else if (type == "deepseek_v2" || type == "deepseek_v3") {
    m.experts = r.required("n_routed_experts", needs);
    m.topK = r.required("num_experts_per_tok", needs);
    m.expertFfn = r.required("moe_intermediate_size", needs);
    m.sharedExperts = r.integer("n_shared_experts", 0, 0);
    m.denseLayers = r.integer("first_k_dense_replace", 0, 0);
    if (r.integer("moe_layer_freq", 1, 1) != 1) {
      r.fail("moe_layer_freq",
             "is not 1: only models with experts in every block after the "
             "first_k_dense_replace dense ones are read");
    }
    if (r.integer("n_group", 1, 1) > 1) m.nodeLimit = r.integer("topk_group", 0, 0);
    m.qLoraRank = r.integer("q_lora_rank", 0, 0);
    m.kvLoraRank = r.required("kv_lora_rank", needs);
    m.qkNopeHeadDim = r.required("qk_nope_head_dim", needs);
    m.qkRopeHeadDim = r.required("qk_rope_head_dim", needs);
    m.vHeadDim = r.required("v_head_dim", needs);
    m.kvHeads = 0;
    m.headDim = 0;
  }
}

// The preset of a config.json's model: its name, where it came from, and the
// defaults a config does not give (sequence and batch are the user's).
Preset presetOf(const Reader& r, const std::string& type, const TransformerConfig& m) {
  Preset p;
  const std::string name = r.string("_name_or_path").value_or("");
  p.name = name.empty() ? type + " model" : name;
  p.id = idOf(name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1));
  p.source = "Hugging Face config.json (model_type " + type + ")";
  p.notes =
      "read from a Hugging Face config.json: biases, normalization and positional weights are "
      "not counted";
  if (type == "deepseek_v3") p.notes += "; the multi-token prediction module is left out";
  p.model = m;
  p.sequenceLength = 0;  // the config's max_position_embeddings is the context window
  p.globalBatch = 0;
  p.microBatch = 1;
  p.referenceMicroBatch = 1;
  p.defaults.attention = AttentionKernel::Fused;
  if (m.experts > 0) p.defaults.sequenceParallel = false;
  return p;
}

Preset fromHuggingFace(const Reader& r, const std::string& type) {
  const auto known = hfTypes().find(type);
  if (known == hfTypes().end()) {
    std::string list;
    for (const auto& [name, keys] : hfTypes()) list += (list.empty() ? "" : ", ") + name;
    throw InputError(r.source() + ": model_type \"" + text::abbreviate(type) +
                     "\" is not one libra reads (known: " + list +
                     "); write libra's model file instead (libra presets --show ID --json "
                     "gives one to edit)");
  }
  const HfKeys& k = known->second;
  const std::string needs = "model_type " + type + " needs it";
  TransformerConfig m;
  m.layers = r.required(k.layers, needs);
  m.hidden = r.required(k.hidden, needs);
  m.heads = r.required(k.heads, needs);
  m.ffn = k.ffn ? r.required(k.ffn, needs) : r.integer("n_inner", 4 * m.hidden, 1);
  m.kvHeads = r.integer("num_key_value_heads", 0, 1);
  if (m.kvHeads == m.heads) m.kvHeads = 0;
  m.headDim = r.integer("head_dim", 0, 1);
  if (m.headDim > 0 && m.headDim * m.heads == m.hidden) m.headDim = 0;
  m.vocab = r.required("vocab_size", needs);
  m.gatedMlp = k.gated;
  m.tiedEmbeddings = r.boolean("tie_word_embeddings", k.tiedByDefault);
  if (type == "nemotron") {
    const std::string act = r.string("hidden_act").value_or("relu2");
    if (act.find("glu") != std::string::npos) m.gatedMlp = true;
  }
  readExperts(r, type, needs, m);
  if (m.experts > 0 && m.denseLayers >= m.layers) {
    r.fail("first_k_dense_replace", "leaves no block with experts");
  }
  return presetOf(r, type, m);
}

// ---------------------------------------------------------------------------
// libra's model file

Json transformerJson(const TransformerConfig& t) {
  Json j;
  j["layers"] = t.layers;
  j["hidden"] = t.hidden;
  j["ffn"] = t.ffn;
  j["heads"] = t.heads;
  j["kv_heads"] = t.kvHeads > 0 ? t.kvHeads : t.heads;
  if (t.headDim > 0) j["head_dim"] = t.headDim;
  j["vocab"] = t.vocab;
  j["gated_mlp"] = t.gatedMlp;
  j["tied_embeddings"] = t.tiedEmbeddings;
  if (t.experts > 0) {
    j["experts"] = t.experts;
    j["top_k"] = t.topK;
    j["expert_ffn"] = static_cast<int>(t.expertWidth());
    j["shared_experts"] = t.sharedExperts;
    j["dense_layers"] = t.denseLayers;
    j["node_limit"] = t.nodeLimit;
  }
  if (t.mla()) {
    j["q_lora_rank"] = t.qLoraRank;
    j["kv_lora_rank"] = t.kvLoraRank;
    j["qk_nope_head_dim"] = t.qkNopeHeadDim;
    j["qk_rope_head_dim"] = t.qkRopeHeadDim;
    j["v_head_dim"] = t.vHeadDim;
  }
  return j;
}

TransformerConfig transformerOf(const Reader& r) {
  r.onlyKeys({"layers",
              "hidden",
              "ffn",
              "heads",
              "kv_heads",
              "head_dim",
              "vocab",
              "gated_mlp",
              "tied_embeddings",
              "experts",
              "top_k",
              "expert_ffn",
              "shared_experts",
              "dense_layers",
              "node_limit",
              "q_lora_rank",
              "kv_lora_rank",
              "qk_nope_head_dim",
              "qk_rope_head_dim",
              "v_head_dim"});
  TransformerConfig t;
  t.layers = r.required("layers", "");
  t.hidden = r.required("hidden", "");
  t.ffn = r.required("ffn", "");
  t.heads = r.required("heads", "");
  t.kvHeads = r.integer("kv_heads", 0, 1);
  if (t.kvHeads == t.heads) t.kvHeads = 0;
  t.headDim = r.integer("head_dim", 0, 1);
  t.vocab = r.integer("vocab", 0, 0);
  t.gatedMlp = r.boolean("gated_mlp", false);
  t.tiedEmbeddings = r.boolean("tied_embeddings", false);
  t.experts = r.integer("experts", 0, 0);
  t.topK = r.integer("top_k", 0, 0);
  t.expertFfn = r.integer("expert_ffn", 0, 0);
  if (t.expertFfn == t.ffn) t.expertFfn = 0;
  t.sharedExperts = r.integer("shared_experts", 0, 0);
  t.denseLayers = r.integer("dense_layers", 0, 0);
  t.nodeLimit = r.integer("node_limit", 0, 0);
  t.qLoraRank = r.integer("q_lora_rank", 0, 0);
  t.kvLoraRank = r.integer("kv_lora_rank", 0, 0);
  t.qkNopeHeadDim = r.integer("qk_nope_head_dim", 0, 0);
  t.qkRopeHeadDim = r.integer("qk_rope_head_dim", 0, 0);
  t.vHeadDim = r.integer("v_head_dim", 0, 0);
  return t;
}

Json cnnJson(const CnnConfig& c) {
  Json layers = Json::array();
  for (const ConvLayer& l : c.layers) {
    layers.push_back({{"name", l.name},
                      {"in_channels", l.inChannels},
                      {"out_channels", l.outChannels},
                      {"kernel", l.kernel},
                      {"output_size", l.outputSize}});
  }
  return Json{{"layers", std::move(layers)}};
}

std::vector<int> intList(const Reader& r, const std::string& key) {
  const Json* v = r.find(key);
  if (!v) r.missing(key, "");
  if (!v->is_array()) r.fail(key, "must be a list of whole numbers");
  std::vector<int> out;
  for (const Json& x : *v) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 1 ||
        x.get<std::int64_t>() > std::numeric_limits<int>::max())
      r.fail(key, "must hold whole numbers of at least 1");
    out.push_back(x.get<int>());
  }
  return out;
}

CnnConfig cnnOf(const Reader& r, const std::string& source) {
  r.onlyKeys({"layers"});
  const Json* layers = r.find("layers");
  if (!layers || !layers->is_array() || layers->empty())
    r.fail("layers", "must be a non-empty list of layers");
  CnnConfig c;
  for (std::size_t i = 0; i < layers->size(); ++i) {
    if (!(*layers)[i].is_object()) r.fail("layers", "must hold objects");
    const Reader l((*layers)[i], source, r.at("layers") + "[" + std::to_string(i) + "]");
    l.onlyKeys({"name", "in_channels", "out_channels", "kernel", "output_size"});
    ConvLayer layer;
    layer.name = l.string("name").value_or("layer " + std::to_string(i + 1));
    layer.inChannels = l.required("in_channels", "");
    layer.outChannels = l.required("out_channels", "");
    layer.kernel = l.required("kernel", "");
    layer.outputSize = l.required("output_size", "");
    c.layers.push_back(std::move(layer));
  }
  return c;
}

Json dlrmJson(const DlrmConfig& d) {
  Json j;
  j["dense_features"] = d.denseFeatures;
  j["bottom_mlp"] = d.bottomMlp;
  j["top_mlp"] = d.topMlp;
  j["tables"] = d.tables;
  j["embedding_dim"] = d.embeddingDim;
  j["interaction_width"] = d.interactionWidth;
  j["table_rows"] = d.tableRows;
  return j;
}

DlrmConfig dlrmOf(const Reader& r) {
  r.onlyKeys({"dense_features", "bottom_mlp", "top_mlp", "tables", "embedding_dim",
              "interaction_width", "table_rows"});
  DlrmConfig d;
  d.denseFeatures = r.required("dense_features", "");
  d.bottomMlp = intList(r, "bottom_mlp");
  d.topMlp = intList(r, "top_mlp");
  d.tables = r.required("tables", "");
  d.embeddingDim = r.required("embedding_dim", "");
  d.interactionWidth = r.integer("interaction_width", 0, 0);
  if (const Json* rows = r.find("table_rows")) {
    if (!rows->is_array()) r.fail("table_rows", "must be a list of row counts");
    for (const Json& x : *rows) {
      if (!x.is_number_integer() || x.get<std::int64_t>() < 1)
        r.fail("table_rows", "must hold whole numbers of at least 1");
      d.tableRows.push_back(x.get<std::int64_t>());
    }
    if (!d.tableRows.empty() && static_cast<int>(d.tableRows.size()) != d.tables) {
      r.fail("table_rows", "has " + std::to_string(d.tableRows.size()) + " entries for " +
                               std::to_string(d.tables) + " tables");
    }
  }
  return d;
}

std::string recomputeName(const Parallelism& p) {
  return p.recompute ? "full" : p.selectiveRecompute ? "selective" : "none";
}

Json parallelismJson(const Parallelism& p) {
  Json j;
  j["tp"] = p.tp;
  j["cp"] = p.cp;
  j["pp"] = p.pp;
  j["ep"] = p.ep;
  if (p.expertTp > 0) j["expert_tp"] = p.expertTp;  // absent: TP
  j["sequence_parallel"] = p.sequenceParallel;
  j["zero"] = p.zero();
  j["recompute"] = recomputeName(p);
  j["attention"] = std::string(toString(p.attention));
  j["moe_dispatcher"] = std::string(toString(p.moeDispatcher));
  j["moe_routing"] = std::string(toString(p.moeRouting));
  j["precision"] = std::string(toString(p.precision));
  return j;
}

Parallelism parallelismOf(const Reader& r) {
  r.onlyKeys({"tp", "cp", "pp", "ep", "expert_tp", "sequence_parallel", "zero", "recompute",
              "attention", "moe_dispatcher", "moe_routing", "precision"});
  Parallelism p;
  p.tp = r.integer("tp", 1, 1);
  p.cp = r.integer("cp", 1, 1);
  p.pp = r.integer("pp", 1, 1);
  p.ep = r.integer("ep", 1, 1);
  p.expertTp = r.integer("expert_tp", 0, 1);
  p.sequenceParallel = r.boolean("sequence_parallel", false);
  const auto zero = r.count("zero", 0, 3).value_or(0);
  p.zero3 = zero == 3;
  p.zeroStage = zero == 3 ? 0 : static_cast<int>(zero);
  const std::string recompute = r.string("recompute").value_or("none");
  if (recompute == "full") {
    p.recompute = true;
  } else if (recompute == "selective") {
    p.selectiveRecompute = true;
  } else if (recompute != "none") {
    r.fail("recompute", "is \"" + text::abbreviate(recompute) + "\"; use none, selective or full");
  }
  if (const auto a = r.string("attention")) {
    const auto kernel = parseAttentionKernel(*a);
    if (!kernel) r.fail("attention", "is not materialized or fused");
    p.attention = *kernel;
  }
  if (const auto d = r.string("moe_dispatcher")) {
    const auto dispatcher = parseMoeDispatcher(*d);
    if (!dispatcher) r.fail("moe_dispatcher", "is not alltoall or deepep");
    p.moeDispatcher = *dispatcher;
  }
  if (const auto m = r.string("moe_routing")) {
    const auto routing = parseMoeRouting(*m);
    if (!routing) r.fail("moe_routing", "is not random or contiguous");
    p.moeRouting = *routing;
  }
  if (const auto m = r.string("precision")) {
    const auto precision = parsePrecision(*m);
    if (!precision) r.fail("precision", "is not bf16 or fp8");
    p.precision = *precision;
  }
  return p;
}

Reader member(const Reader& r, const std::string& key) {
  const Json* v = r.find(key);
  if (!v) r.missing(key, "");
  if (!v->is_object()) r.fail(key, "must be an object");
  return Reader(*v, r.source(), r.at(key));
}

Preset fromLibraModel(const Reader& r) {
  r.onlyKeys({"format",
              "schema_version",
              "id",
              "name",
              "source",
              "notes",
              "family",
              "transformer",
              "cnn",
              "dlrm",
              "sequence_length",
              "global_batch",
              "micro_batch",
              "reference_micro_batch",
              "train_tokens",
              "bytes_per_element",
              "optimizer",
              "defaults",
              "parameters",
              "active_parameters"});
  const auto version = r.count("schema_version", 1);
  if (version && *version > kModelFileVersion) {
    r.fail("schema_version", "is " + std::to_string(*version) + "; this libra reads version " +
                                 std::to_string(kModelFileVersion) + " (a newer libra wrote it)");
  }
  Preset p;
  p.name = r.string("name").value_or("");
  if (p.name.empty()) r.missing("name", "");
  p.id = r.string("id").value_or(idOf(p.name));
  p.source = r.string("source").value_or("");
  p.notes = r.string("notes").value_or("");
  const std::string family = r.string("family").value_or("");
  const std::set<std::string> families{"transformer", "moe", "cnn", "dlrm"};
  if (!families.count(family)) {
    if (family.empty()) r.missing("family", "transformer, moe, cnn or dlrm");
    r.fail("family", "is \"" + text::abbreviate(family) + "\"; use transformer, moe, cnn or dlrm");
  }
  for (const char* other : {"transformer", "cnn", "dlrm"}) {
    const std::string wanted = family == "moe" ? "transformer" : family;
    if (other != wanted && r.has(other))
      r.fail(other, "does not belong to a model of family " + family);
  }
  if (family == "cnn") {
    p.model = cnnOf(member(r, "cnn"), r.source());
  } else if (family == "dlrm") {
    p.model = dlrmOf(member(r, "dlrm"));
  } else {
    const TransformerConfig t = transformerOf(member(r, "transformer"));
    if ((family == "moe") != t.moe()) {
      r.fail("family", family == "moe" ? "is moe but the transformer has no experts"
                                       : "is transformer but the transformer has experts; use moe");
    }
    p.model = t;
  }
  p.sequenceLength = r.integer(
      "sequence_length",
      p.family() == ModelFamily::Transformer || p.family() == ModelFamily::MixtureOfExperts ? 0 : 1,
      1);
  p.globalBatch = r.count("global_batch", 1, std::int64_t{1} << 53).value_or(0);
  p.microBatch = r.integer("micro_batch", 1, 1);
  p.referenceMicroBatch = r.integer("reference_micro_batch", 1, 1);
  p.trainTokens = r.number("train_tokens").value_or(0);
  p.bytesPerElement = r.integer("bytes_per_element", 2, 1);
  const std::string optimizer = r.string("optimizer").value_or("adam");
  if (optimizer == "adam") {
    p.optimizer = Optimizer::Adam;
  } else if (optimizer == "sgd") {
    p.optimizer = Optimizer::Sgd;
  } else {
    r.fail("optimizer", "is \"" + text::abbreviate(optimizer) + "\"; use adam or sgd");
  }
  if (r.has("defaults")) p.defaults = parallelismOf(member(r, "defaults"));
  return p;
}

}  // namespace

const std::vector<std::string>& huggingFaceModelTypes() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, keys] : hfTypes()) out.push_back(name);
    return out;
  }();
  return names;
}

std::string modelFileJson(const Preset& preset, int indent) {
  Json j;
  j["format"] = std::string(kModelFileFormat);
  j["schema_version"] = kModelFileVersion;
  j["id"] = preset.id;
  j["name"] = preset.name;
  j["source"] = preset.source;
  j["notes"] = preset.notes;
  j["family"] = std::string(toString(preset.family()));
  if (const auto* t = std::get_if<TransformerConfig>(&preset.model)) {
    j["transformer"] = transformerJson(*t);
  } else if (const auto* c = std::get_if<CnnConfig>(&preset.model)) {
    j["cnn"] = cnnJson(*c);
  } else {
    j["dlrm"] = dlrmJson(std::get<DlrmConfig>(preset.model));
  }
  j["sequence_length"] = preset.sequenceLength;
  j["global_batch"] = preset.globalBatch;
  j["micro_batch"] = preset.microBatch;
  j["reference_micro_batch"] = preset.referenceMicroBatch;
  j["train_tokens"] = preset.trainTokens;
  j["bytes_per_element"] = preset.bytesPerElement;
  j["optimizer"] = std::string(toString(preset.optimizer));
  j["defaults"] = parallelismJson(preset.defaults);
  // For the reader: what the hyperparameters add up to (ignored when read).
  j["parameters"] = preset.parameterCount();
  j["active_parameters"] = preset.activeParameterCount();
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

Preset parseModelFile(std::string_view text, const std::string& source) {
  const Json doc = json_text::parse<Json>(text, source);
  if (!doc.is_object()) throw InputError(source + ": a model file is a JSON object");
  const Reader r(doc, source, "");
  if (const auto format = r.string("format")) {
    if (*format != kModelFileFormat) {
      r.fail("format", "is \"" + text::abbreviate(*format) + "\"; a model file says \"" +
                           std::string(kModelFileFormat) + "\"");
    }
    Preset p = fromLibraModel(r);
    if (p.sequenceLength > 0 && p.globalBatch > 0) p.validate();
    return p;
  }
  const auto type = r.string("model_type");
  if (!type) {
    throw InputError(source +
                     ": neither a Hugging Face config.json (no \"model_type\") nor libra's "
                     "model file (no \"format\": \"libra-model\")");
  }
  return fromHuggingFace(r, *type);
}

Preset readModelFile(const std::string& path) {
  return parseModelFile(readFile(path), path);
}

void completeModel(Preset& model, const std::string& source, int sequenceLength,
                   std::int64_t globalBatch) {
  if (sequenceLength > 0) model.sequenceLength = sequenceLength;
  if (globalBatch > 0) model.globalBatch = globalBatch;
  if (model.sequenceLength < 1) {
    throw InputError(source +
                     " gives no training sequence length; give --sequence-length N (a Hugging "
                     "Face config's max_position_embeddings is the context window, not the "
                     "length trained at)");
  }
  if (model.globalBatch < 1) {
    throw InputError(source +
                     " gives no global batch; give --global-batch N (sequences per iteration)");
  }
  try {
    model.validate();
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
}

Preset modelOf(const PresetChoice& choice) {
  if (choice.model.empty()) return findPreset(choice.preset);
  Preset model = parseModelFile(choice.model, "the model stored with the workload");
  completeModel(model, "the model stored with the workload", 0, 0);
  return model;
}

bool isBuiltInPreset(const Preset& preset) {
  for (const Preset& p : presets()) {
    if (p.id == preset.id) return p == preset;
  }
  return false;
}

}  // namespace libra
