// The built-in model presets. The hyperparameters and their sources are listed
// in docs/workloads.md section 6; keep both in step.
#include <cmath>

#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "text.hpp"

namespace libra {

std::string_view toString(ModelFamily family) {
  switch (family) {
    case ModelFamily::Transformer:
      return "transformer";
    case ModelFamily::MixtureOfExperts:
      return "moe";
    case ModelFamily::Cnn:
      return "cnn";
    case ModelFamily::Dlrm:
      return "dlrm";
  }
  return "transformer";
}

std::string_view toString(Optimizer optimizer) {
  return optimizer == Optimizer::Sgd ? "sgd" : "adam";
}

std::string_view toString(WorkloadLayout layout) {
  return layout == WorkloadLayout::Megatron ? "megatron" : "libra";
}

std::optional<WorkloadLayout> parseWorkloadLayout(std::string_view textIn) {
  const std::string t = text::lower(text::trim(textIn));
  if (t == "megatron") return WorkloadLayout::Megatron;
  if (t == "libra" || t == "reference") return WorkloadLayout::Libra;
  return std::nullopt;
}

ModelFamily Preset::family() const {
  if (const auto* t = std::get_if<TransformerConfig>(&model)) {
    return t->experts > 0 ? ModelFamily::MixtureOfExperts : ModelFamily::Transformer;
  }
  if (std::holds_alternative<CnnConfig>(model)) return ModelFamily::Cnn;
  return ModelFamily::Dlrm;
}

AttentionShape TransformerConfig::attention() const {
  const double h = hidden;
  const double a = heads;
  AttentionShape s;
  if (mla()) {
    // DeepSeek-V2/V3 (arXiv:2412.19437, section 2.1.1): queries through an optional
    // low-rank compression, keys and values through a joint compression of kvLoraRank
    // plus a shared rotary key of qkRopeHeadDim, expanded per head.
    const double qk = qkNopeHeadDim + qkRopeHeadDim;
    s.q = qLoraRank > 0 ? h * qLoraRank + qLoraRank * a * qk : h * a * qk;
    s.k = h * (kvLoraRank + qkRopeHeadDim) + kvLoraRank * a * qkNopeHeadDim;
    s.v = kvLoraRank * a * vHeadDim;
    s.out = a * vHeadDim * h;
    s.qkWidth = a * qk;
    s.vWidth = a * vHeadDim;
    s.kvWidth = s.qkWidth + s.vWidth;
    return s;
  }
  const double width = a * headWidth();  // h unless the head dim is given
  const double hkv = static_cast<double>(kvHeads > 0 ? kvHeads : heads) * headWidth();
  s.q = h * width;
  s.k = h * hkv;
  s.v = h * hkv;
  s.out = width * h;
  s.qkWidth = width;
  s.vWidth = width;
  s.kvWidth = 2 * hkv;
  return s;
}

BlockWeights TransformerConfig::weights(int block) const {
  BlockWeights w;
  const double h = hidden;
  w.attention = attention().weights();
  if (!moeBlock(block)) {
    w.mlp = mlpMatrices() * h * ffn;
    return w;
  }
  const double expert = mlpMatrices() * h * expertWidth();
  w.mlp = sharedExperts * expert;
  w.router = h * experts;
  w.experts = experts * expert;
  w.activeExperts = topK * expert;
  return w;
}

std::vector<double> DlrmConfig::widths(bool bottom) const {
  std::vector<double> w;
  if (bottom) {
    w.push_back(denseFeatures);
    for (int x : bottomMlp) w.push_back(x);
  } else {
    w.push_back(interactionWidth > 0 ? interactionWidth
                                     : (bottomMlp.empty() ? 0 : bottomMlp.back()) + pairs());
    for (int x : topMlp) w.push_back(x);
  }
  return w;
}

double DlrmConfig::mlpWeights() const {
  double n = 0;
  for (bool bottom : {true, false}) {
    const std::vector<double> w = widths(bottom);
    for (std::size_t i = 1; i < w.size(); ++i) n += w[i - 1] * w[i];
  }
  return n;
}

double DlrmConfig::tableWeights() const {
  double rows = 0;
  for (std::int64_t r : tableRows) rows += static_cast<double>(r);
  return rows * embeddingDim;
}

double Preset::parameterCount() const {
  if (const auto* t = std::get_if<TransformerConfig>(&model)) {
    double n = static_cast<double>(t->vocab) * t->hidden * (t->tiedEmbeddings ? 1.0 : 2.0);
    for (int i = 1; i <= t->layers; ++i) n += t->weights(i).total();
    return n;
  }
  if (const auto* c = std::get_if<CnnConfig>(&model)) {
    double n = 0;
    for (const ConvLayer& l : c->layers) {
      n += static_cast<double>(l.inChannels) * l.outChannels * l.kernel * l.kernel;
    }
    return n;
  }
  const auto& d = std::get<DlrmConfig>(model);
  return d.mlpWeights() + d.tableWeights();
}

double Preset::activeParameterCount() const {
  if (const auto* t = std::get_if<TransformerConfig>(&model)) {
    double n = 2.0 * t->vocab * t->hidden;  // the embedding row and the output layer
    for (int i = 1; i <= t->layers; ++i) n += t->weights(i).active();
    return n;
  }
  return parameterCount();
}

namespace {

void atLeastOne(const std::string& where, double value, const std::string& what) {
  if (!(value >= 1)) {
    throw InputError(where + ": " + what + " is " + text::formatNumber(value) +
                     "; it must be at least 1");
  }
}

void validateTransformer(const std::string& where, const TransformerConfig& t) {
  atLeastOne(where, t.layers, "the layer count");
  atLeastOne(where, t.hidden, "the hidden size");
  atLeastOne(where, t.ffn, "the FFN size");
  atLeastOne(where, t.heads, "the head count");
  if (t.headDim < 0) {
    throw InputError(where + ": the head dim " + std::to_string(t.headDim) +
                     " must be >= 0 (0 = hidden / heads)");
  }
  if (t.headDim == 0 && t.hidden % t.heads != 0) {
    throw InputError(where + ": the hidden size " + std::to_string(t.hidden) +
                     " is not a multiple of the " + std::to_string(t.heads) + " heads");
  }
  if (t.kvHeads < 0 || (t.kvHeads > 0 && t.heads % t.kvHeads != 0)) {
    throw InputError(where + ": " + std::to_string(t.kvHeads) +
                     " key/value heads must divide the " + std::to_string(t.heads) + " heads");
  }
  if (t.vocab < 0) throw InputError(where + ": the vocabulary size must be >= 0");
  if (t.experts < 0 || t.expertFfn < 0) {
    throw InputError(where + ": the expert count and expert FFN size must be >= 0");
  }
  if (t.experts > 0 && (t.topK < 1 || t.topK > t.experts)) {
    throw InputError(where + ": top-k " + std::to_string(t.topK) + " must be between 1 and the " +
                     std::to_string(t.experts) + " experts");
  }
  if (t.sharedExperts < 0 || t.denseLayers < 0 || t.denseLayers > t.layers) {
    throw InputError(where +
                     ": the shared experts must be >= 0 and the dense layers between 0 "
                     "and the " +
                     std::to_string(t.layers) + " layers");
  }
  if (t.nodeLimit < 0) {
    throw InputError(where + ": the node limit " + std::to_string(t.nodeLimit) +
                     " must be >= 0 (0 = none)");
  }
  if (t.qLoraRank < 0 || t.kvLoraRank < 0 || t.qkNopeHeadDim < 0 || t.qkRopeHeadDim < 0 ||
      t.vHeadDim < 0) {
    throw InputError(where + ": the latent-attention ranks and head dims must be >= 0");
  }
  if (t.mla() && (t.qkNopeHeadDim + t.qkRopeHeadDim < 1 || t.vHeadDim < 1)) {
    throw InputError(where + ": latent attention (KV rank " + std::to_string(t.kvLoraRank) +
                     ") needs a query/key head dim and a value head dim of at least 1");
  }
}

void validateCnn(const std::string& where, const CnnConfig& c) {
  if (c.layers.empty()) throw InputError(where + ": the CNN has no layers");
  for (const ConvLayer& l : c.layers) {
    if (l.inChannels < 1 || l.outChannels < 1 || l.kernel < 1 || l.outputSize < 1) {
      throw InputError(where + ": layer '" + l.name +
                       "': channels, kernel and output size must be at least 1");
    }
  }
}

void validateDlrm(const std::string& where, const DlrmConfig& d) {
  atLeastOne(where, d.denseFeatures, "the dense feature count");
  atLeastOne(where, d.tables, "the embedding table count");
  atLeastOne(where, d.embeddingDim, "the embedding dimension");
  if (d.bottomMlp.empty() || d.topMlp.empty()) {
    throw InputError(where + ": the bottom and top MLPs need at least one layer each");
  }
  for (int w : d.bottomMlp) atLeastOne(where, w, "a bottom MLP width");
  for (int w : d.topMlp) atLeastOne(where, w, "a top MLP width");
  if (d.interactionWidth < 0) throw InputError(where + ": the interaction width must be >= 0");
  if (!d.tableRows.empty() && d.tableRows.size() != static_cast<std::size_t>(d.tables)) {
    throw InputError(where + ": " + std::to_string(d.tableRows.size()) + " table row counts for " +
                     std::to_string(d.tables) + " tables");
  }
  for (std::int64_t r : d.tableRows) {
    if (r < 1)
      throw InputError(where + ": an embedding table has " + std::to_string(r) +
                       " rows; it needs at least 1");
  }
}

}  // namespace

void Preset::validate() const {
  const std::string where = "preset '" + id + "'";
  atLeastOne(where, sequenceLength, "the sequence length");
  atLeastOne(where, static_cast<double>(globalBatch), "the global batch");
  atLeastOne(where, microBatch, "the micro-batch");
  atLeastOne(where, referenceMicroBatch, "the reference micro-batch");
  if (!std::isfinite(trainTokens) || trainTokens < 0) {
    throw InputError(where + ": the training token budget " + text::formatNumber(trainTokens) +
                     " must be a finite number >= 0");
  }
  atLeastOne(where, bytesPerElement, "the bytes per element");
  if (const auto* t = std::get_if<TransformerConfig>(&model)) {
    validateTransformer(where, *t);
  } else if (const auto* c = std::get_if<CnnConfig>(&model)) {
    validateCnn(where, *c);
  } else {
    validateDlrm(where, std::get<DlrmConfig>(model));
  }
}

namespace {

// torchvision's ResNet-50 (v1.5: the stride sits on the 3x3 convolution) at 224 x 224.
// Within a bottleneck block the downsample (conv4) is listed first, as the
// reference workload file does.
CnnConfig resnet50() {
  CnnConfig c;
  c.layers.push_back({"conv1", 3, 64, 7, 112});
  struct Stage {
    int width, blocks, size;
  };
  int in = 64;
  for (const Stage& s :
       {Stage{64, 3, 56}, Stage{128, 4, 28}, Stage{256, 6, 14}, Stage{512, 3, 7}}) {
    const int out = 4 * s.width;
    for (int b = 1; b <= s.blocks; ++b) {
      const std::string name = "layer_" + std::to_string(s.width) + "_" + std::to_string(b) + "_";
      // The first block of stages 2-4 runs its first 1x1 at the previous resolution.
      const int firstSize = (b == 1 && s.width != 64) ? 2 * s.size : s.size;
      if (b == 1) c.layers.push_back({name + "conv4", in, out, 1, s.size});
      c.layers.push_back({name + "conv1", b == 1 ? in : out, s.width, 1, firstSize});
      c.layers.push_back({name + "conv2", s.width, s.width, 3, s.size});
      c.layers.push_back({name + "conv3", s.width, out, 1, s.size});
    }
    in = out;
  }
  c.layers.push_back({"fc1000", 2048, 1000, 1, 1});
  return c;
}

// What the catalog's entries share: the list, its two adders and the common
// parallelisms.
struct CatalogBuilder {
  std::vector<Preset> list;
  Parallelism tp1, tp8, tp8Fused, tp16, tp128, moe;

  CatalogBuilder() {
    tp8.tp = 8;
    // Runs after FlashAttention (Dao et al., arXiv:2205.14135, 2022) compute attention
    // in one fused kernel; the older ones (and Korthikanti et al.'s Megatron-LM, whose
    // activation accounting stores the score matrices) materialize the scores.
    tp8Fused = tp8;
    tp8Fused.attention = AttentionKernel::Fused;
    tp16.tp = 16;
    tp128.tp = 128;
    // Megatron-LM refuses a mixture of experts with TP > 1 without sequence parallelism.
    moe.tp = 8;
    moe.ep = 8;
    moe.sequenceParallel = true;
    moe.attention = AttentionKernel::Fused;
  }

  static TransformerConfig dense(int layers, int hidden, int ffn, int heads, int kvHeads, int vocab,
                                 bool gated, bool tied) {
    TransformerConfig t;
    t.layers = layers;
    t.hidden = hidden;
    t.ffn = ffn;
    t.heads = heads;
    t.kvHeads = kvHeads;
    t.vocab = vocab;
    t.gatedMlp = gated;
    t.tiedEmbeddings = tied;
    return t;
  }

  void add(std::string id, std::string name, std::string source, std::string notes,
           std::variant<TransformerConfig, CnnConfig, DlrmConfig> model, int seq,
           int referenceMicro, int bytes, Parallelism defaults) {
    Preset p;
    p.id = std::move(id);
    p.name = std::move(name);
    p.source = std::move(source);
    p.notes = std::move(notes);
    p.model = std::move(model);
    p.sequenceLength = seq;
    p.referenceMicroBatch = referenceMicro;
    p.bytesPerElement = bytes;
    p.defaults = std::move(defaults);
    list.push_back(std::move(p));
  }

  // The work per iteration and the training run (docs/workloads.md section 6):
  // global batch, micro-batch of a pipeline, token budget, and where they come from.
  void batch(std::int64_t global, int pipelineMicro, double trainTokens,
             const std::string& source) {
    Preset& p = list.back();
    p.globalBatch = global;
    p.microBatch = pipelineMicro;
    p.trainTokens = trainTokens;
    p.notes += ". Batch: " + source;
  }
};

// The transformers of LIBRA's reference inputs.
void libraModels(CatalogBuilder& c) {
  c.add("turing-nlg-17b", "Turing-NLG 17B",
        "Microsoft Research blog, 'Turing-NLG: A 17-billion-parameter language model by "
        "Microsoft' (2020-02-10), https://www.microsoft.com/en-us/research/blog/"
        "turing-nlg-a-17-billion-parameter-language-model-by-microsoft/: 78 layers, hidden 4256, "
        "28 heads",
        "FFN = 4 h; GPT-2 vocabulary (50257) and tied embeddings assumed. Libra layout: sequence "
        "1024 x micro-batch 8 = the 8192 tokens per micro-batch of the LIBRA reference file; LIBRA "
        "runs it "
        "data parallel only (TP 1)",
        CatalogBuilder::dense(78, 4256, 4 * 4256, 28, 0, 50257, false, true), 1024, 8, 2, c.tp1);
  c.batch(512, 1, 0,
          "512 sequences per iteration, assumed (not published; the batch of Megatron-LM's 8.3B "
          "model, Shoeybi et al., arXiv:1909.08053, section 5); no published token budget");
  c.add(
      "gpt3-175b", "GPT-3 175B",
      "Brown et al., 'Language Models are Few-Shot Learners', arXiv:2005.14165, Table 2.1: "
      "96 layers, d_model 12288, 96 heads of 128, context 2048, FFN 4 d_model",
      "BPE vocabulary 50257, tied embeddings (GPT-2 architecture). Libra layout: micro-batch 16 x "
      "2048 = the 32768 tokens per micro-batch of the LIBRA reference file; TP 16 as in LIBRA",
      CatalogBuilder::dense(96, 12288, 4 * 12288, 96, 0, 50257, false, true), 2048, 16, 2, c.tp16);
  c.batch(1536, 1, 300e9,
          "1536 sequences of 2048 = 3.1 M tokens per iteration (Brown et al., Table 2.1: 3.2 M; "
          "1536 as in Megatron-LM's examples/gpt3/train_gpt3_175b_distributed.sh, micro-batch 1); "
          "300 B training tokens (Brown et al., section 2.2)");
  c.add("msft-1t", "MSFT-1T",
        "the 1-trillion-parameter transformer of LIBRA (Won et al., ISPASS 2024, "
        "arXiv:2109.11762) and its reference inputs, https://github.com/astra-sim/libra: hidden "
        "24576 (from the collective sizes of inputs/workload/MSFT_1T.txt), TP 128 x DP 32 (from "
        "inputs/communicator/MSFT_1T_*.yml)",
        "128 layers (128 x 12 h^2 = 0.93 T parameters), 128 heads of 192 (TP 128 splits heads), "
        "FFN 4 h, vocabulary 51200 tied: assumed, no public model card. Libra layout: micro-batch "
        "8 x 2048 = the reference's 16384 tokens per micro-batch",
        CatalogBuilder::dense(128, 24576, 4 * 24576, 128, 0, 51200, false, true), 2048, 8, 2,
        c.tp128);
  c.batch(3072, 1, 0,
          "3072 sequences per iteration, assumed (the batch of the 1-trillion-parameter GPT of "
          "Narayanan et al., arXiv:2104.04473, Table 1); no published token budget");
}

// The GPT models of Korthikanti et al.'s and Narayanan et al.'s Megatron-LM runs.
void megatronModels(CatalogBuilder& c) {
  // The GPT models of Korthikanti et al., "Reducing Activation Recomputation in Large
  // Transformer Models", arXiv:2205.05198, Table 3 (with GPT-3 175B above), the
  // configurations of its Table 5 measurements on A100s.
  const std::string korthikanti =
      "Korthikanti et al., 'Reducing Activation Recomputation in Large Transformer Models', "
      "arXiv:2205.05198, Table 3 and section 6 (sequence 2048, vocabulary 51200)";
  c.add("megatron-gpt-22b", "GPT 22B (Megatron-LM)",
        korthikanti + ": 22B, 64 heads, hidden 6144, 48 layers, TP 8",
        "FFN 4 h and tied embeddings (Megatron-LM's GPT); a benchmark configuration, never "
        "trained to convergence",
        CatalogBuilder::dense(48, 6144, 4 * 6144, 64, 0, 51200, false, true), 2048, 4, 2, c.tp8);
  c.batch(4, 4, 0,
          "4 sequences per iteration in micro-batches of 4, the evaluation batch of Korthikanti et "
          "al. Table 3 (no data parallelism); no token budget");
  c.add("mt-nlg-530b", "MT-NLG 530B",
        korthikanti + ": 530B (MT-NLG), 128 heads, hidden 20480, 105 layers, TP 8 x PP 35",
        "FFN 4 h and tied embeddings (Megatron-LM's GPT); MT-NLG itself: Smith et al., "
        "arXiv:2201.11990. Default parallelism TP 8 (add --pp 35 for the paper's layout: 35 "
        "stages divide few networks)",
        CatalogBuilder::dense(105, 20480, 4 * 20480, 128, 0, 51200, false, true), 2048, 1, 2,
        c.tp8);
  c.batch(280, 1, 0,
          "280 sequences per iteration in micro-batches of 1, the evaluation batch of Korthikanti "
          "et al. Table 3 at TP 8 x PP 35 without data parallelism; no token budget");
  c.add("megatron-gpt-1t", "GPT 1T (Megatron-LM)",
        korthikanti + ": 1T, 160 heads, hidden 25600, 128 layers, TP 8 x PP 64",
        "FFN 4 h and tied embeddings (Megatron-LM's GPT); the 1T model of Narayanan et al., "
        "arXiv:2104.04473, Table 1; a benchmark configuration, never trained to convergence",
        CatalogBuilder::dense(128, 25600, 4 * 25600, 160, 0, 51200, false, true), 2048, 1, 2,
        c.tp8);
  c.list.back().defaults.pp = 64;
  c.batch(512, 1, 0,
          "512 sequences per iteration in micro-batches of 1, the evaluation batch of Korthikanti "
          "et al. Table 3 at TP 8 x PP 64 without data parallelism (Narayanan et al. Table 1 train "
          "it at 3072); no token budget");
}

// Meta's Llama 3 models.
void llamaModels(CatalogBuilder& c) {
  c.add("llama3-70b", "Llama 3 70B",
        "Llama Team, 'The Llama 3 Herd of Models', arXiv:2407.21783, Table 3: 80 layers, model "
        "dimension 8192, FFN 28672, 64 heads, 8 key/value heads, SwiGLU; vocabulary 128256 from "
        "https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json",
        "sequence 8192 (the pre-training context); untied embeddings; fused (FlashAttention) "
        "attention assumed: materialized scores would not fit (a s^2 x 5 bytes per layer)",
        CatalogBuilder::dense(80, 8192, 28672, 64, 8, 128256, true, false), 8192, 1, 2, c.tp8Fused);
  c.batch(2048, 1, 15e12,
          "2048 sequences of 8192 = 16 M tokens per iteration, assumed equal to the 405B's "
          "(arXiv:2407.21783 publishes it for the 405B only); 15 T training tokens (section 3.1: "
          "'about 15T multilingual tokens')");
  c.add("llama3-405b", "Llama 3 405B",
        "Llama Team, 'The Llama 3 Herd of Models', arXiv:2407.21783, Table 3: 126 layers, model "
        "dimension 16384, FFN 53248, 128 heads, 8 key/value heads, SwiGLU; vocabulary 128256 from "
        "https://huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json",
        "sequence 8192; TP 8 as in the paper's Table 4 (which adds PP 16); fused "
        "(FlashAttention) attention assumed: materialized scores would not fit (16 heads per GPU "
        "x 8192^2 x 5 bytes = 5.4 GB per layer)",
        CatalogBuilder::dense(126, 16384, 53248, 128, 8, 128256, true, false), 8192, 1, 2,
        c.tp8Fused);
  c.batch(2048, 1, 15.6e12,
          "2048 sequences of 8192 = 16 M tokens per iteration (arXiv:2407.21783, Table 4 and "
          "section 3.4.1, the batch of the main stage); 15.6 T training tokens (section 3.4)");
}

// Mixtures of experts.
void mixtureModels(CatalogBuilder& c) {
  {
    TransformerConfig m = CatalogBuilder::dense(56, 6144, 16384, 48, 8, 32000, true, false);
    m.experts = 8;
    m.topK = 2;
    c.add("mixtral-8x22b", "Mixtral 8x22B",
          "https://huggingface.co/mistralai/Mixtral-8x22B-v0.1/blob/main/config.json: 56 layers, "
          "hidden 6144, intermediate 16384, 48 heads, 8 key/value heads, 8 experts, 2 per token, "
          "vocabulary 32000; announcement https://mistral.ai/news/mixtral-8x22b",
          "every block is a mixture-of-experts block (SwiGLU experts); sequence 4096 (the model "
          "supports 65536) is our choice; TP 8 x EP 8 with sequence parallelism (Megatron-LM "
          "requires it for MoE with TP > 1); fused attention and Megatron-LM's AllToAll "
          "dispatcher assumed",
          m, 4096, 1, 2, c.moe);
    c.batch(1024, 1, 0,
            "1024 sequences of 4096 = 4 M tokens per iteration, assumed (not published); no "
            "published token budget");
  }
  {
    // DeepSeek-V3 (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437).
    TransformerConfig m = CatalogBuilder::dense(61, 7168, 18432, 128, 0, 129280, true, false);
    m.experts = 256;
    m.topK = 8;
    m.expertFfn = 2048;
    m.sharedExperts = 1;
    m.denseLayers = 3;
    m.qLoraRank = 1536;
    m.kvLoraRank = 512;
    m.qkNopeHeadDim = 128;
    m.qkRopeHeadDim = 64;
    m.vHeadDim = 128;
    m.nodeLimit = 4;
    Parallelism ds;
    ds.pp = 16;
    ds.ep = 64;
    ds.attention = AttentionKernel::Fused;
    ds.moeDispatcher = MoeDispatcher::DeepEp;
    c.add(
        "deepseek-v3", "DeepSeek-V3 (671B, 37B activated)",
        "DeepSeek-AI, 'DeepSeek-V3 Technical Report', arXiv:2412.19437, section 4.2 "
        "(Hyper-Parameters): 61 layers, hidden 7168, 128 heads of 128, KV compression 512, query "
        "compression 1536, rotary head dim 64; all FFNs but the first three are MoE with 1 shared "
        "and 256 routed experts of inner size 2048, 8 routed per token; 671B total, 37B "
        "activated. Dense FFN 18432, vocabulary 129280, value head dim 128 and untied embeddings "
        "from https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json",
        "SwiGLU experts; the multi-token-prediction module (1 extra block, section 2.2) is not "
        "modelled; balanced routing, node-limited to at most 4 nodes per token (section 2.1.2), "
        "dispatched as DeepSeek's own all-to-all (section 3.2.2, DeepEP: one copy per "
        "destination node); fused attention; BF16 (the report trains in FP8, section 3.3); all "
        "attention projections "
        "split over TP. Default parallelism PP 16 x EP 64 as in section 3.2 (DualPipe itself is "
        "modelled as interleaved 1F1B at best)",
        m, 4096, 1, 2, ds);
    c.batch(
        15360, 1, 14.8e12,
        "15360 sequences of 4096 = 62.9 M tokens per iteration, the batch after the first 469 B "
        "tokens (arXiv:2412.19437, section 4.2, Training Hyper-Parameters: 4K sequences, batch "
        "grown from 3072 to 15360); 14.8 T training tokens (section 4.1)");
  }
}

// The CNN and the recommendation models.
void cnnAndDlrmModels(CatalogBuilder& c) {
  c.add("resnet50", "ResNet-50",
        "He et al., 'Deep Residual Learning for Image Recognition', arXiv:1512.03385, Table 1 "
        "(torchvision v1.5 layout); Libra layout: 32 images per NPU, as in Goyal et al.",
        "224 x 224 inputs; weights of convolutions and the classifier only (25,502,912: the "
        "LIBRA reference's 51,005,824-byte gradient in FP16); data parallel only",
        resnet50(), 1, 32, 2, c.tp1);
  c.batch(8192, 32, 90.0 * 1281167,
          "8192 images per iteration (Goyal et al., arXiv:1706.02677: the 8k minibatch, 32 per GPU "
          "on 256 GPUs); 90 epochs of the 1,281,167 ImageNet-1k training images");
  {
    DlrmConfig d;
    d.denseFeatures = 13;
    d.bottomMlp = {512, 256, 128};
    d.topMlp = {1024, 1024, 512, 256, 1};
    d.tables = 26;
    d.embeddingDim = 128;
    d.tableRows = {39884406, 39043,    17289,    7420,     20263,  3,     7120, 1543, 63,
                   38532951, 2953546,  403346,   10,       2208,   11938, 155,  4,    976,
                   14,       39979771, 25641295, 39664984, 585935, 12972, 108,  36};
    c.add("dlrm-mlperf", "DLRM (MLPerf, Criteo Terabyte)",
          "Naumov et al., 'Deep Learning Recommendation Model for Personalization and "
          "Recommendation Systems', arXiv:1906.00091; MLPerf configuration from "
          "https://github.com/facebookresearch/dlrm bench/run_and_time.sh "
          "(--arch-sparse-feature-size=128 --arch-mlp-bot=13-512-256-128 "
          "--arch-mlp-top=1024-1024-512-256-1 --max-ind-range=40000000, mini-batch 2048, SGD); "
          "the rows of the 26 Criteo Terabyte tables at --max-ind-range=40000000 as listed in "
          "https://github.com/mlcommons/inference recommendation/dlrm/pytorch/python/main.py "
          "('Criteo Terabyte MLPerf training')",
          "26 embedding tables (187,767,399 rows of 128) sharded whole over all NPUs (model "
          "parallel), MLPs data parallel; FP32, plain SGD (dlrm_s_pytorch.py)",
          d, 1, 2048, 4, c.tp1);
    c.list.back().optimizer = Optimizer::Sgd;
    c.batch(65536, 2048, 4195197692.0,
            "65536 samples per iteration (the 'BS64k' of NVIDIA's DLRM on Criteo 1TB, "
            "https://catalog.ngc.nvidia.com/orgs/nvidia/teams/dle/models/"
            "dlrm_base_pyt_ckpt_ds-criteo-fl15); one epoch of the Criteo Terabyte training days, "
            "4,195,197,692 samples, as MLPerf Training trains it");
  }
  {
    DlrmConfig d;
    d.denseFeatures = 1600;
    d.bottomMlp = {1024, 1024, 1024, 1024, 1024, 1024, 64};
    d.topMlp = std::vector<int>(11, 2048);
    d.topMlp.push_back(1);
    d.tables = 64;
    d.embeddingDim = 64;
    d.interactionWidth = 4160;
    c.add("dlrm-libra", "DLRM (LIBRA reference)",
          "the DLRM of the LIBRA reference inputs, https://github.com/astra-sim/libra "
          "inputs/workload/DLRM.txt: MLP widths inferred from its per-layer compute times and its "
          "114,823,168-byte gradient AllReduce (57,411,584 FP16 weights)",
          "bottom MLP 1600-1024x6-64, top MLP 4160-2048x11-1; 64 tables of dimension 64 and "
          "micro-batch 512 reproduce its 4,194,304-byte AllToAll; the tables' rows are not "
          "given, so their weights and memory are unknown; SGD assumed",
          d, 1, 512, 2, c.tp1);
    c.list.back().optimizer = Optimizer::Sgd;
    c.batch(std::int64_t{512} * 4096, 512, 0,
            "2,097,152 samples per iteration: the reference file's 512 per NPU on the 4096 NPUs of "
            "the reference networks; no published token budget");
  }
}

std::vector<Preset> buildPresets() {
  CatalogBuilder c;
  libraModels(c);
  megatronModels(c);
  llamaModels(c);
  mixtureModels(c);
  cnnAndDlrmModels(c);
  std::vector<Preset> list = std::move(c.list);
  for (const Preset& p : list) p.validate();
  return list;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> list = buildPresets();
  return list;
}

const Preset& findPreset(std::string_view id) {
  const std::string key = text::lower(text::trim(id));
  std::string known;
  for (const Preset& p : presets()) {
    if (p.id == key) return p;
    known += (known.empty() ? "" : ", ") + p.id;
  }
  throw InputError("preset '" + std::string(id) + "' is unknown; known presets: " + known);
}

std::vector<std::pair<std::string, std::string>> describe(const Preset& preset) {
  std::vector<std::pair<std::string, std::string>> out;
  auto num = [](double v) { return text::formatNumber(v); };
  auto list = [](const std::vector<int>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "-" : "") + std::to_string(v[i]);
    return s;
  };
  out.emplace_back("family", std::string(toString(preset.family())));
  if (const auto* t = std::get_if<TransformerConfig>(&preset.model)) {
    out.emplace_back("layers", num(t->layers));
    out.emplace_back("hidden", num(t->hidden));
    out.emplace_back("ffn", num(t->ffn));
    out.emplace_back("heads", num(t->heads));
    out.emplace_back("kv_heads", num(t->kvHeads > 0 ? t->kvHeads : t->heads));
    if (t->headDim > 0) out.emplace_back("head_dim", num(t->headDim));
    out.emplace_back("vocab", num(t->vocab));
    out.emplace_back("mlp", t->gatedMlp ? "gated (SwiGLU)" : "plain (two matrices)");
    out.emplace_back("embeddings", t->tiedEmbeddings ? "tied" : "untied");
    if (t->mla()) {
      out.emplace_back("attention", "multi-head latent (q rank " + num(t->qLoraRank) +
                                        ", kv rank " + num(t->kvLoraRank) + ", head dims " +
                                        num(t->qkNopeHeadDim) + " + " + num(t->qkRopeHeadDim) +
                                        " rotary, value " + num(t->vHeadDim) + ")");
    }
    if (t->experts > 0) {
      out.emplace_back("experts", num(t->experts));
      out.emplace_back("top_k", num(t->topK));
      out.emplace_back("expert_ffn", num(t->expertWidth()));
      if (t->sharedExperts > 0) out.emplace_back("shared_experts", num(t->sharedExperts));
      if (t->denseLayers > 0) out.emplace_back("dense_layers", num(t->denseLayers));
      if (t->nodeLimit > 0) out.emplace_back("node_limit", num(t->nodeLimit));
      out.emplace_back("moe_dispatcher", std::string(toString(preset.defaults.moeDispatcher)));
      out.emplace_back("moe_routing", std::string(toString(preset.defaults.moeRouting)));
      out.emplace_back("active_parameters", num(preset.activeParameterCount()));
    }
    out.emplace_back("attention_kernel", std::string(toString(preset.defaults.attention)));
    out.emplace_back("sequence_length", num(preset.sequenceLength));
  } else if (const auto* c = std::get_if<CnnConfig>(&preset.model)) {
    out.emplace_back("layers", num(static_cast<double>(c->layers.size())));
  } else {
    const auto& d = std::get<DlrmConfig>(preset.model);
    out.emplace_back("dense_features", num(d.denseFeatures));
    out.emplace_back("bottom_mlp", list(d.bottomMlp));
    out.emplace_back("top_mlp", list(d.topMlp));
    out.emplace_back("tables", num(d.tables));
    out.emplace_back("embedding_dim", num(d.embeddingDim));
    out.emplace_back("table_rows",
                     d.tableRows.empty() ? "unknown" : num(d.tableWeights() / d.embeddingDim));
  }
  out.emplace_back("optimizer", std::string(toString(preset.optimizer)));
  out.emplace_back("global_batch", num(static_cast<double>(preset.globalBatch)));
  out.emplace_back("micro_batch", num(preset.microBatch));
  out.emplace_back("reference_micro_batch", num(preset.referenceMicroBatch));
  out.emplace_back("train_tokens", preset.trainTokens > 0 ? num(preset.trainTokens) : "-");
  out.emplace_back("bytes_per_element", num(preset.bytesPerElement));
  out.emplace_back("parameters", num(preset.parameterCount()));
  out.emplace_back("default_parallelism", preset.defaults.label());
  return out;
}

}  // namespace libra
