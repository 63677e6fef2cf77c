// The training workload: layers, each with forward, input-gradient and
// weight-gradient phases, and the communicator that maps collectives onto
// network dimensions.
#pragma once

#include <array>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libra {

// SendRecv is a point-to-point transfer to a neighbour, as between pipeline
// stages: its size S crosses every dimension the group spans (traffic.hpp).
enum class CollectiveType { None, AllReduce, ReduceScatter, AllGather, AllToAll, SendRecv };

std::string_view toString(CollectiveType type);
// Accepts NONE / ALLREDUCE / ... (the reference spelling) and AllReduce, case-insensitively;
// SendRecv also as P2P.
std::optional<CollectiveType> parseCollectiveType(std::string_view text);

enum class PhaseKind { Forward = 0, InputGrad = 1, WeightGrad = 2 };
inline constexpr std::array<PhaseKind, 3> kPhaseKinds{PhaseKind::Forward, PhaseKind::InputGrad,
                                                      PhaseKind::WeightGrad};
std::string_view toString(PhaseKind kind);

struct Phase {
  double computeNs = 0;
  CollectiveType collective = CollectiveType::None;
  double sizeBytes = 0;
  // Group size per dimension for this phase's collective when it differs from the
  // workload's communicator (e.g. an expert-parallel AllToAll in a layer whose
  // other forward collectives are tensor parallel). Empty: use the communicator.
  std::vector<int> groups;
  // With `groups`: how far apart a group's NPUs are on each dimension (1 =
  // consecutive; empty = 1 everywhere). Where axes share a dimension, the outer
  // one's groups are interleaved (docs/collective-model.md section 7).
  std::vector<int> strides;

  bool operator==(const Phase&) const = default;
};

struct Layer {
  std::string name;
  std::array<Phase, 3> phases;  // indexed by PhaseKind
  // The reference format's last field (local weight update time, ns). Kept for
  // round trips; the reference model does not add it to the iteration time.
  double updateNs = 0;

  const Phase& phase(PhaseKind kind) const { return phases[static_cast<int>(kind)]; }
  Phase& phase(PhaseKind kind) { return phases[static_cast<int>(kind)]; }
  bool operator==(const Layer&) const = default;
};

// The layers of a workload, shared between copies until one of them changes
// (copy on write): copying a project for an edit or a solve snapshot copies no
// layer, and comparing two copies of one list is a pointer comparison. Reads
// look like a const std::vector<Layer>; writes go through mutate().
class LayerList {
 public:
  using value_type = Layer;
  using const_iterator = std::vector<Layer>::const_iterator;
  using iterator = const_iterator;
  using size_type = std::size_t;

  LayerList() = default;
  LayerList(std::vector<Layer> layers)  // NOLINT(google-explicit-constructor): a list of layers
      : data_(std::make_shared<std::vector<Layer>>(std::move(layers))) {}
  LayerList(std::initializer_list<Layer> layers) : LayerList(std::vector<Layer>(layers)) {}

  const std::vector<Layer>& get() const { return data_ ? *data_ : empty_(); }
  // The list to change; copied first when another LayerList shares it.
  std::vector<Layer>& mutate() {
    if (!data_) {
      data_ = std::make_shared<std::vector<Layer>>();
    } else if (data_.use_count() > 1) {
      data_ = std::make_shared<std::vector<Layer>>(*data_);
    }
    return *data_;
  }
  void push_back(Layer layer) { mutate().push_back(std::move(layer)); }

  std::size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  const Layer& operator[](std::size_t i) const { return get()[i]; }
  const Layer& front() const { return get().front(); }
  const Layer& back() const { return get().back(); }
  // True when both read the same storage (no copy was made).
  bool sharesStorageWith(const LayerList& other) const { return data_ && data_ == other.data_; }

  bool operator==(const LayerList& other) const {
    return data_ == other.data_ || get() == other.get();
  }

 private:
  static const std::vector<Layer>& empty_() {
    static const std::vector<Layer> none;
    return none;
  }
  std::shared_ptr<std::vector<Layer>> data_;
};

// Group size per dimension for each phase kind; 1 means the dimension is unused.
// `strides`: how far apart a group's NPUs are on each dimension (1 = consecutive,
// an empty list = 1 everywhere), see Phase::strides.
struct Communicator {
  std::array<std::vector<int>, 3> groups;
  std::array<std::vector<int>, 3> strides;

  const std::vector<int>& of(PhaseKind kind) const { return groups[static_cast<int>(kind)]; }
  std::vector<int>& of(PhaseKind kind) { return groups[static_cast<int>(kind)]; }
  const std::vector<int>& stridesOf(PhaseKind kind) const {
    return strides[static_cast<int>(kind)];
  }
  std::vector<int>& stridesOf(PhaseKind kind) { return strides[static_cast<int>(kind)]; }
  bool operator==(const Communicator&) const = default;
};

// How a workload was generated when it came from a preset (see presets.hpp). The
// layers are always stored as well, so a project opens without the generator.
struct WorkloadOrigin {
  std::string preset;                        // preset id, e.g. "gpt3-175b"
  std::string device;                        // device id for compute times, may be empty
  std::map<std::string, double> parameters;  // e.g. tp, dp, ep, micro_batch, sequence_length
  // libra's model file (model_file.hpp, JSON) of a model that is not a built-in
  // preset, so the project regenerates it anywhere; empty: the preset `preset`.
  std::string model;

  bool operator==(const WorkloadOrigin&) const = default;
};

struct Workload {
  std::string name;
  double weight = 1.0;  // weight in the objective when a project holds several workloads
  LayerList layers;
  Communicator communicator;
  std::optional<WorkloadOrigin> origin;

  bool operator==(const Workload&) const = default;
};

// What one NPU does in one training iteration without the layer list: the
// compute time and how often each distinct collective runs, for a loop in which
// their order does not matter (no-overlap; presets realize recomputation in the
// generator). tallyWorkload (presets.hpp) makes one from a preset by visiting
// one slot of each kind and counting the rest, so it costs the blocks of a few
// micro-batches, not of all of them; the execution search evaluates designs
// from it (buildTimeModel of a tally, time_model.hpp).
struct WorkloadTally {
  struct Collective {
    CollectiveType type = CollectiveType::None;
    double bytes = 0;
    std::vector<int> groups;
    std::vector<int> strides;
    double count = 0;
  };
  double computeNs = 0;
  std::vector<Collective> collectives;
};

enum class TrainingLoop { NoOverlap, Recompute, Overlap };
std::string_view toString(TrainingLoop loop);  // "no-overlap", "recompute", "overlap"
std::optional<TrainingLoop> parseTrainingLoop(std::string_view text);

}  // namespace libra
