#include "libra/mapping.hpp"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "checked.hpp"
#include "libra/error.hpp"
#include "text.hpp"

namespace libra {

std::string_view toString(ParallelAxis axis) {
  switch (axis) {
    case ParallelAxis::Tensor:
      return "tensor";
    case ParallelAxis::Context:
      return "context";
    case ParallelAxis::Expert:
      return "expert";
    case ParallelAxis::Pipeline:
      return "pipeline";
    case ParallelAxis::Data:
      return "data";
  }
  return "tensor";
}

std::string_view shortName(ParallelAxis axis) {
  switch (axis) {
    case ParallelAxis::Tensor:
      return "TP";
    case ParallelAxis::Context:
      return "CP";
    case ParallelAxis::Expert:
      return "EP";
    case ParallelAxis::Pipeline:
      return "PP";
    case ParallelAxis::Data:
      return "DP";
  }
  return "TP";
}

std::string_view toString(AttentionKernel kernel) {
  return kernel == AttentionKernel::Fused ? "fused" : "materialized";
}

std::optional<AttentionKernel> parseAttentionKernel(std::string_view text) {
  const std::string key = text::lower(text::trim(text));
  if (key == "materialized") return AttentionKernel::Materialized;
  if (key == "fused") return AttentionKernel::Fused;
  return std::nullopt;
}

std::string_view toString(MoeDispatcher dispatcher) {
  return dispatcher == MoeDispatcher::DeepEp ? "deepep" : "alltoall";
}

std::optional<MoeDispatcher> parseMoeDispatcher(std::string_view text) {
  const std::string key = text::lower(text::trim(text));
  if (key == "alltoall") return MoeDispatcher::AllToAll;
  if (key == "deepep") return MoeDispatcher::DeepEp;
  return std::nullopt;
}

std::string_view toString(MoeRouting routing) {
  return routing == MoeRouting::Contiguous ? "contiguous" : "random";
}

std::optional<MoeRouting> parseMoeRouting(std::string_view text) {
  const std::string key = text::lower(text::trim(text));
  if (key == "random") return MoeRouting::Random;
  if (key == "contiguous") return MoeRouting::Contiguous;
  return std::nullopt;
}

std::string_view toString(Precision precision) {
  return precision == Precision::Fp8 ? "fp8" : "bf16";
}

std::optional<Precision> parsePrecision(std::string_view text) {
  const std::string key = text::lower(text::trim(text));
  if (key == "bf16") return Precision::Bf16;
  if (key == "fp8") return Precision::Fp8;
  return std::nullopt;
}

std::int64_t Parallelism::degree(ParallelAxis axis) const {
  switch (axis) {
    case ParallelAxis::Tensor:
      return tp;
    case ParallelAxis::Context:
      return cp;
    case ParallelAxis::Expert:
      // resolveDegrees checks that ETP divides TP and TP / ETP divides EP.
      return etp() > 0 && tp % etp() == 0 && tp / etp() > 0 ? ep / (tp / etp()) : ep;
    case ParallelAxis::Pipeline:
      return pp;
    case ParallelAxis::Data:
      return dp;
  }
  return 1;
}

const std::vector<int>& Parallelism::groupsOf(ParallelAxis axis) const {
  switch (axis) {
    case ParallelAxis::Tensor:
      return tpGroups;
    case ParallelAxis::Context:
      return cpGroups;
    case ParallelAxis::Expert:
      return epGroups;
    case ParallelAxis::Pipeline:
      return ppGroups;
    case ParallelAxis::Data:
      return dpGroups;
  }
  return tpGroups;
}

std::vector<int>& Parallelism::groupsOf(ParallelAxis axis) {
  return const_cast<std::vector<int>&>(std::as_const(*this).groupsOf(axis));
}

std::string Parallelism::expertLayoutText() const {
  if (expertTp <= 0 || expertTp == tp) return {};
  return " (expert TP " + std::to_string(expertTp) + ", EP " +
         std::to_string(degree(ParallelAxis::Expert)) + " beyond TP)";
}

std::string Parallelism::label() const {
  std::string out = "TP " + std::to_string(tp);
  if (cp != 1) out += " x CP " + std::to_string(cp);
  if (ep != 1) out += " x EP " + std::to_string(ep);
  out += expertLayoutText();
  if (pp != 1) out += " x PP " + std::to_string(pp);
  out += " x DP " + (dp > 0 ? std::to_string(dp) : std::string("auto"));
  if (sequenceParallel) out += ", sequence parallel";
  if (zero3) {
    out += ", ZeRO-3";
  } else if (zeroStage > 0) {
    out += ", ZeRO-" + std::to_string(zeroStage);
  }
  if (recompute) {
    out += ", recompute";
  } else if (selectiveRecompute) {
    out += ", selective recompute";
  }
  if (shardGroup > 0) out += ", sharded over " + std::to_string(shardGroup);
  if (precision == Precision::Fp8) out += ", FP8";
  return out;
}

namespace {

std::string describeNetwork(const Network& network) {
  std::string out = "[";
  for (int d = 0; d < network.size(); ++d) {
    const Dimension& dim = network.dims[d];
    if (d > 0) out += ", ";
    out +=
        "'" + dim.name + "' " + std::string(toString(dim.block)) + " " + std::to_string(dim.npus);
  }
  return out + "]";
}

std::string axisText(ParallelAxis axis, std::int64_t degree) {
  return std::string(toString(axis)) + "-parallel degree " + std::string(shortName(axis)) + " " +
         std::to_string(degree);
}

std::string dimText(const Network& network, int d) {
  return "dimension " + std::to_string(d) + " ('" + network.dims[d].name + "', " +
         std::to_string(network.dims[d].npus) + " NPUs)";
}

// Takes `degree` NPUs for one axis from the free capacity, dimension by dimension in
// `order`: whole dimensions while the remaining degree is a multiple of the free
// NPUs, then a divisor of the next dimension's free NPUs.
std::vector<int> take(const Network& network, std::vector<int>& free, ParallelAxis axis,
                      std::int64_t degree, bool insideOut) {
  const int dims = network.size();
  std::vector<int> groups(dims, 1);
  std::int64_t need = degree;
  for (int i = 0; i < dims && need > 1; ++i) {
    const int d = insideOut ? i : dims - 1 - i;
    const int cap = free[d];
    if (cap <= 1) continue;
    if (need % cap == 0) {
      groups[d] = cap;
      free[d] = 1;
      need /= cap;
    } else if (cap % need == 0) {
      groups[d] = static_cast<int>(need);  // need divides cap, an int
      free[d] = static_cast<int>(cap / need);
      need = 1;
    } else {
      throw InputError(
          "parallelism: the " + axisText(axis, degree) +
          " cannot be formed from the dimensions of network " + describeNetwork(network) + " " +
          (insideOut ? "from the inside out" : "from the outside in") + ": " +
          std::to_string(need) + " NPUs are still needed when reaching " + dimText(network, d) +
          ", which has " + std::to_string(cap) + " free NPUs, and neither divides the other");
    }
  }
  if (need > 1) {
    throw InputError("parallelism: the " + axisText(axis, degree) +
                     " cannot be formed from the dimensions of network " +
                     describeNetwork(network) + ": " + std::to_string(need) +
                     " NPUs are missing after all dimensions were used");
  }
  return groups;
}

ParallelismMapping manualMapping(const Network& network, const Parallelism& p) {
  const int dims = network.size();
  ParallelismMapping m;
  for (ParallelAxis axis : kParallelAxes) {
    const std::vector<int>& g = p.groupsOf(axis);
    const std::int64_t degree = p.degree(axis);
    std::vector<int>& out = m.of(axis);
    if (g.empty()) {
      if (degree != 1) {
        throw InputError("parallelism: the " + axisText(axis, degree) +
                         " has no hand-given groups, but the groups of other axes are given; "
                         "give all of them or none for network " +
                         describeNetwork(network));
      }
      out.assign(dims, 1);
      continue;
    }
    if (static_cast<int>(g.size()) != dims) {
      throw InputError("parallelism: the " + std::string(toString(axis)) + "-parallel groups " +
                       formatGroups(g) + " list " + std::to_string(g.size()) +
                       " sizes, but network " + describeNetwork(network) + " has " +
                       std::to_string(dims) + " dimensions");
    }
    std::int64_t product = 1;
    for (int d = 0; d < dims; ++d) {
      if (g[d] < 1 || g[d] > network.dims[d].npus) {
        throw InputError("parallelism: the " + std::string(toString(axis)) +
                         "-parallel group size " + std::to_string(g[d]) + " on " +
                         dimText(network, d) + " must be between 1 and the dimension's NPUs");
      }
      product *= g[d];
    }
    if (product != degree) {
      throw InputError("parallelism: the " + std::string(toString(axis)) + "-parallel groups " +
                       formatGroups(g) + " span " + std::to_string(product) + " NPUs, but the " +
                       axisText(axis, degree));
    }
    out = g;
  }
  for (int d = 0; d < dims; ++d) {
    std::int64_t product = 1;
    for (ParallelAxis axis : kParallelAxes) product *= m.of(axis)[d];
    if (product != network.dims[d].npus) {
      std::string factors;
      for (ParallelAxis axis : kParallelAxes) {
        factors += (factors.empty() ? "" : " x ") + std::string(shortName(axis)) + " " +
                   std::to_string(m.of(axis)[d]);
      }
      throw InputError("parallelism: on " + dimText(network, d) +
                       " the hand-given groups multiply to " + std::to_string(product) + " (" +
                       factors + "); they must multiply to its NPU count");
    }
  }
  return m;
}

// Megatron-Core's MoE layout (docs/workloads.md section 2.5): ETP divides TP, and
// the EP group holds the TP group's outer TP / ETP NPUs whole.
void checkExpertTp(Parallelism& p) {
  if (p.expertTp < 0 || (p.expertTp > 0 && p.tp > 0 && p.tp % p.expertTp != 0)) {
    throw InputError("parallelism: the expert tensor-parallel degree " +
                     std::to_string(p.expertTp) + " must divide the tensor-parallel degree TP " +
                     std::to_string(p.tp) + " (Megatron-Core's expert layers split each TP group)");
  }
  if (p.expertTp == 0 || p.tp < 1) return;
  const int outer = p.tp / p.expertTp;
  if (p.ep < 1 || p.ep % outer != 0) {
    throw InputError(
        "parallelism: with expert TP " + std::to_string(p.expertTp) + " and TP " +
        std::to_string(p.tp) + ", the expert-parallel degree EP " + std::to_string(p.ep) +
        " must be a multiple of TP / expert TP = " + std::to_string(outer) +
        ": each EP group takes the " + std::to_string(outer) + " expert-TP groups of a TP group");
  }
  if (p.expertTp == p.tp) p.expertTp = 0;  // Megatron's default: ETP = TP
}

}  // namespace

Parallelism resolveDegrees(const Parallelism& parallelism, std::int64_t npus) {
  Parallelism p = parallelism;
  checkExpertTp(p);
  for (ParallelAxis axis : kParallelAxes) {
    if (axis == ParallelAxis::Data) continue;
    if (p.degree(axis) < 1) {
      throw InputError("parallelism: the " + std::string(toString(axis)) + "-parallel degree " +
                       std::string(shortName(axis)) + " " + std::to_string(p.degree(axis)) +
                       " must be at least 1");
    }
  }
  if (p.dp < 0) {
    throw InputError("parallelism: the data-parallel degree DP " + std::to_string(p.dp) +
                     " must be at least 1 (or 0 to derive it from the NPU count)");
  }
  if (p.zeroStage < 0 || p.zeroStage > 3) {
    throw InputError("parallelism: ZeRO stage " + std::to_string(p.zeroStage) +
                     " is not one of 0 (none), 1 (optimizer states), 2 (and gradients) or 3 "
                     "(and parameters)");
  }
  if (p.zeroStage == 3) {
    p.zero3 = true;
    p.zeroStage = 0;
  }
  const std::int64_t epOutside = p.degree(ParallelAxis::Expert);
  const std::string degrees =
      "TP " + std::to_string(p.tp) + (p.cp != 1 ? " x CP " + std::to_string(p.cp) : std::string()) +
      " x EP " + std::to_string(p.ep) +
      (p.expertTp > 0 ? " (" + std::to_string(epOutside) + " outside the TP group: expert TP " +
                            std::to_string(p.expertTp) + ")"
                      : std::string()) +
      " x PP " + std::to_string(p.pp);
  // tp, cp, ep and pp are ints below 2^31, so their product may overflow 64 bits.
  const auto inner = checked::multiply(static_cast<std::int64_t>(p.tp) * p.cp, epOutside * p.pp);
  if (!inner) {
    throw InputError("parallelism: " + degrees + " are more NPUs than 64 bits can count");
  }
  if (p.dp == 0) {
    if (npus % *inner != 0) {
      throw InputError("parallelism: " + degrees + " = " + std::to_string(*inner) +
                       " does not divide the network's " + std::to_string(npus) +
                       " NPUs, so no data-parallel degree fits");
    }
    p.dp = npus / *inner;
  }
  const auto product = checked::multiply(*inner, p.dp);
  if (!product || *product != npus) {
    throw InputError("parallelism: " + degrees + " x DP " + std::to_string(p.dp) + " = " +
                     (product ? std::to_string(*product) + " NPUs"
                              : std::string("more NPUs than 64 bits can count")) +
                     ", but the network has " + std::to_string(npus) + " NPUs");
  }
  if (p.shardGroup < 0) {
    throw InputError("parallelism: the shard group " + std::to_string(p.shardGroup) +
                     " must be at least 1 NPU (or 0: the whole data-parallel group)");
  }
  if (p.shardGroup > 0) {
    if (p.zero() == 0) {
      throw InputError("parallelism: a shard group of " + std::to_string(p.shardGroup) +
                       " shards ZeRO's states; give a ZeRO stage 1-3 with it");
    }
    if (p.ep > 1) {
      throw InputError("parallelism: hybrid sharding (shard group " + std::to_string(p.shardGroup) +
                       ") is modelled for EP 1 only; the experts' data-parallel group differs");
    }
    // With context parallelism the ranks of a CP group hold the same weights: ZeRO
    // shards over DP x CP (Megatron-LM's data-parallel group with CP).
    const std::int64_t group = p.dp * p.cp;
    if (group % p.shardGroup != 0) {
      throw InputError("parallelism: the shard group of " + std::to_string(p.shardGroup) +
                       " NPUs does not divide the data-parallel degree DP " + std::to_string(p.dp) +
                       (p.cp > 1 ? " x CP " + std::to_string(p.cp) : std::string()) +
                       "; give a divisor of it");
    }
    if (p.shardGroup == group) p.shardGroup = 0;  // the whole group: plain ZeRO
  }
  return p;
}

std::vector<int> ParallelismMapping::denseData() const {
  return unionGroups(axisBit(ParallelAxis::Context) | axisBit(ParallelAxis::Expert) |
                     axisBit(ParallelAxis::Data));
}

std::vector<int> ParallelismMapping::expertData() const {
  return unionGroups(axisBit(ParallelAxis::Context) | axisBit(ParallelAxis::Data));
}

std::vector<int> ParallelismMapping::unionGroups(unsigned axes) const {
  std::vector<int> out(tensor().size(), 1);
  for (ParallelAxis axis : kParallelAxes) {
    if ((axes & axisBit(axis)) == 0) continue;
    for (std::size_t d = 0; d < out.size(); ++d) out[d] *= of(axis)[d];
  }
  return out;
}

std::vector<int> ParallelismMapping::strides(ParallelAxis axis) const {
  const std::size_t dims = tensor().size();
  std::vector<int> out(dims, 1);
  bool any = false;
  for (std::size_t d = 0; d < dims; ++d) {
    if (of(axis)[d] <= 1) continue;
    for (ParallelAxis inner : kParallelAxes) {
      if (inner == axis) break;
      out[d] *= of(inner)[d];
    }
    any = any || out[d] > 1;
  }
  return any ? out : std::vector<int>{};
}

GroupSplit splitGroup(const std::vector<int>& groups, const std::vector<int>& strides, int inner,
                      std::string_view what, std::string_view whole) {
  GroupSplit out;
  const std::size_t dims = groups.size();
  out.inner.assign(dims, 1);
  out.outer = groups;
  out.innerStrides.assign(dims, 1);
  out.outerStrides.assign(dims, 1);
  for (std::size_t d = 0; d < dims; ++d) {
    const int s = d < strides.size() ? std::max(strides[d], 1) : 1;
    out.innerStrides[d] = s;
    out.outerStrides[d] = s;
  }
  std::int64_t need = std::max(inner, 1);
  for (std::size_t d = 0; d < dims && need > 1; ++d) {
    const int g = groups[d];
    if (g <= 1) continue;
    if (need % g == 0) {
      out.inner[d] = g;
      out.outer[d] = 1;
      need /= g;
    } else if (g % need == 0) {
      out.inner[d] = static_cast<int>(need);
      out.outer[d] = g / static_cast<int>(need);
      out.outerStrides[d] *= static_cast<int>(need);
      need = 1;
    } else {
      throw InputError("parallelism: " + std::string(what) + " of " + std::to_string(inner) +
                       " NPUs cannot be formed from " + std::string(whole) + " " +
                       formatGroups(groups) + " from the inside out: " + std::to_string(need) +
                       " NPUs are still needed at a dimension of " + std::to_string(g) +
                       " of the group's NPUs, and neither divides the other");
    }
  }
  if (need > 1) {
    throw InputError("parallelism: " + std::string(what) + " of " + std::to_string(inner) +
                     " NPUs is larger than " + std::string(whole) + " " + formatGroups(groups));
  }
  return out;
}

ParallelismMapping::ExpertGroups ParallelismMapping::expertGroups(int etp) const {
  ExpertGroups out;
  const std::vector<int> epStrides = strides(ParallelAxis::Expert);
  const GroupSplit split =
      splitGroup(tensor(), strides(ParallelAxis::Tensor), etp, "an expert tensor-parallel group",
                 "the tensor-parallel group");
  const std::size_t dims = tensor().size();
  out.tensor = split.inner;
  out.expert.assign(dims, 1);
  std::vector<int> tensorStrides(dims, 1), expertStrides(dims, 1);
  for (std::size_t d = 0; d < dims; ++d) {
    if (split.inner[d] > 1) tensorStrides[d] = split.innerStrides[d];
    out.expert[d] = split.outer[d] * expert()[d];
    // The TP group's outer part lies inside the expert axis on a dimension both use.
    if (split.outer[d] > 1) {
      expertStrides[d] = split.outerStrides[d];
    } else if (expert()[d] > 1 && !epStrides.empty()) {
      expertStrides[d] = epStrides[d];
    }
  }
  auto trivial = [](const std::vector<int>& v) {
    return std::all_of(v.begin(), v.end(), [](int x) { return x == 1; });
  };
  if (!trivial(tensorStrides)) out.tensorStrides = std::move(tensorStrides);
  if (!trivial(expertStrides)) out.expertStrides = std::move(expertStrides);
  return out;
}

std::vector<int> ParallelismMapping::unionStrides(unsigned axes) const {
  const std::size_t dims = tensor().size();
  std::vector<int> out(dims, 1);
  bool any = false;
  for (std::size_t d = 0; d < dims; ++d) {
    int inside = 1;  // the group sizes of the axes inside, as strides(axis) counts them
    for (ParallelAxis axis : kParallelAxes) {
      if ((axes & axisBit(axis)) != 0 && of(axis)[d] > 1) {
        out[d] = inside;
        break;
      }
      inside *= of(axis)[d];
    }
    any = any || out[d] > 1;
  }
  return any ? out : std::vector<int>{};
}

std::vector<int> ParallelismMapping::denseDataStrides() const {
  return unionStrides(axisBit(ParallelAxis::Context) | axisBit(ParallelAxis::Expert) |
                      axisBit(ParallelAxis::Data));
}

std::vector<int> ParallelismMapping::expertDataStrides() const {
  return unionStrides(axisBit(ParallelAxis::Context) | axisBit(ParallelAxis::Data));
}

Communicator ParallelismMapping::communicator() const {
  Communicator c;
  c.of(PhaseKind::Forward) = tensor();
  c.of(PhaseKind::InputGrad) = tensor();
  c.of(PhaseKind::WeightGrad) = denseData();
  c.stridesOf(PhaseKind::Forward) = strides(ParallelAxis::Tensor);
  c.stridesOf(PhaseKind::InputGrad) = strides(ParallelAxis::Tensor);
  c.stridesOf(PhaseKind::WeightGrad) = denseDataStrides();
  return c;
}

ParallelismMapping mapParallelism(const Network& network, const Parallelism& parallelism) {
  network.validate();
  const Parallelism p = resolveDegrees(parallelism, network.npuCount());
  if (p.manual()) return manualMapping(network, p);
  std::vector<int> free;
  for (const Dimension& d : network.dims) free.push_back(d.npus);
  ParallelismMapping m;
  m.of(ParallelAxis::Tensor) = take(network, free, ParallelAxis::Tensor, p.tp, true);
  m.of(ParallelAxis::Context) = take(network, free, ParallelAxis::Context, p.cp, true);
  m.of(ParallelAxis::Expert) =
      take(network, free, ParallelAxis::Expert, p.degree(ParallelAxis::Expert), true);
  m.of(ParallelAxis::Data) = take(network, free, ParallelAxis::Data, p.dp, false);
  // What is left is exactly pp NPUs (the degrees multiply to N), in between.
  m.of(ParallelAxis::Pipeline) = free;
  return m;
}

std::string formatGroups(const std::vector<int>& groups) {
  std::string out = "[";
  for (std::size_t d = 0; d < groups.size(); ++d) {
    if (d > 0) out += ", ";
    out += groups[d] <= 1 ? std::string("-1") : std::to_string(groups[d]);
  }
  return out + "]";
}

}  // namespace libra
