#include "libra/collective_model.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <queue>

#include "libra/traffic.hpp"

namespace libra {

double DimTime::at(std::span<const double> bw) const {
  if (bytes <= 0) return constantNs;
  const double b = bw[dim];
  if (!(b > 0)) return std::numeric_limits<double>::infinity();
  return constantNs + bytes / b;
}

double TimeTerm::value(std::span<const double> bw) const {
  double t = 0;
  for (const DimTime& p : serial) t += p.at(bw);
  double worst = 0;
  for (const DimTime& p : pipelined) worst = std::max(worst, p.at(bw));
  return t + worst;
}

void TimeTerm::attribute(std::span<const double> bw, std::vector<double>& out) const {
  std::fill(out.begin(), out.end(), 0.0);
  if (!std::isfinite(value(bw))) return;
  for (const DimTime& p : serial) out[p.dim] += p.at(bw);
  double worst = 0;
  for (const DimTime& p : pipelined) worst = std::max(worst, p.at(bw));
  if (worst > 0) {
    int pacing = 0;
    for (const DimTime& p : pipelined) pacing += p.at(bw) >= worst * (1 - 1e-6) ? 1 : 0;
    for (const DimTime& p : pipelined) {
      if (p.at(bw) >= worst * (1 - 1e-6)) out[p.dim] += worst / pacing;
    }
  }
}

bool TimeTerm::uses(int dim) const {
  auto moves = [dim](const DimTime& p) { return p.dim == dim && p.bytes > 0; };
  return std::any_of(serial.begin(), serial.end(), moves) ||
         std::any_of(pipelined.begin(), pipelined.end(), moves);
}

double TimeTerm::exact(std::span<const double> bw) const {
  if (!schedule) return value(bw);
  return schedule->time(bw, schedule->automatic ? schedule->bestChunks(bw) : schedule->chunks);
}

TimeTerm TimeTerm::fixedAt(std::span<const double> bw) const {
  if (!automatic()) return *this;
  Schedule fixed = *schedule;
  fixed.chunks = schedule->bestChunks(bw);
  fixed.automatic = false;
  return chunkedTerm(fixed, fixed.chunks);
}

// --- chunked schedules --------------------------------------------------------

double Stage::duration(std::span<const double> bw, int chunks) const {
  if (bytes <= 0) return latencyNs;
  const double b = bw[dim];
  if (!(b > 0)) return std::numeric_limits<double>::infinity();
  return latencyNs + bytes / (chunks * b);
}

namespace {

// The stages' dimensions renumbered 0..m-1 in order of first use (a collective
// uses a handful of dimensions; vectors indexed by these beat maps by far).
struct LocalDims {
  std::array<int, 64> ofStage{};
  int count = 0;
  bool shared = false;  // some dimension serves two stages

  explicit LocalDims(const std::vector<Stage>& stages) {
    int dims[64];
    for (std::size_t k = 0; k < stages.size() && k < 64; ++k) {
      int local = -1;
      for (int j = 0; j < count; ++j) {
        if (dims[j] == stages[k].dim) local = j;
      }
      if (local < 0) {
        local = count;
        dims[count++] = stages[k].dim;
      } else {
        shared = true;
      }
      ofStage[k] = local;
    }
  }
};

}  // namespace

namespace {

// The finish time of the last of `chunks` chunks through S stages of times p,
// where some dimension serves two stages.
double simulateSharedDims(const std::array<double, 64>& p, int S, const LocalDims& local,
                          int chunks) {
  // A dimension serves its stages from one FIFO queue: simulate. Events are
  // stage ends, in time order (ties in the order they were scheduled). A
  // dimension serves one stage at a time, so the pending events are at most one
  // per dimension (a handful): the next is found by a scan, not a heap. The
  // buffers are reused between calls (this runs for every evaluation of a
  // chunked All-Reduce over several dimensions).
  struct Serving {
    double t = 0;  // when the stage it serves ends
    long long seq = 0;
    int chunk = 0, stage = 0;
    bool busy = false;
  };
  struct Scratch {
    // Per dimension, (chunk, stage) in arrival order; `head` is the next to serve.
    std::vector<std::vector<std::pair<int, int>>> queue;
    std::vector<std::size_t> head;
    std::vector<Serving> serving;
  };
  thread_local Scratch scratch;
  const auto dims = static_cast<std::size_t>(local.count);
  if (scratch.queue.size() < dims) scratch.queue.resize(dims);
  scratch.head.assign(dims, 0);
  scratch.serving.assign(dims, Serving{});
  for (std::size_t d = 0; d < dims; ++d) scratch.queue[d].clear();
  long long seq = 0;
  int busy = 0;
  auto start = [&](int dim, double t) {
    const auto d = static_cast<std::size_t>(dim);
    auto& q = scratch.queue[d];
    std::size_t& h = scratch.head[d];
    Serving& s = scratch.serving[d];
    if (s.busy || h == q.size()) return;
    const auto [c, k] = q[h++];
    s = {t + p[static_cast<std::size_t>(k)], seq++, c, k, true};
    ++busy;
  };
  const int first = local.ofStage[0];
  for (int c = 0; c < chunks; ++c)
    scratch.queue[static_cast<std::size_t>(first)].emplace_back(c, 0);
  start(first, 0);
  double finish = 0;
  while (busy > 0) {
    std::size_t next = dims;
    for (std::size_t d = 0; d < dims; ++d) {
      const Serving& s = scratch.serving[d];
      if (!s.busy) continue;
      if (next == dims || s.t < scratch.serving[next].t ||
          (s.t == scratch.serving[next].t && s.seq < scratch.serving[next].seq)) {
        next = d;
      }
    }
    Serving& e = scratch.serving[next];
    e.busy = false;
    --busy;
    const double t = e.t;
    const int chunk = e.chunk, stage = e.stage;
    const int dim = static_cast<int>(next);
    const bool last = stage + 1 == S;
    const int to = last ? -1 : local.ofStage[static_cast<std::size_t>(stage) + 1];
    if (!last) {
      scratch.queue[static_cast<std::size_t>(to)].emplace_back(chunk, stage + 1);
    } else {
      finish = std::max(finish, t);
    }
    start(dim, t);
    if (!last) start(to, t);
  }
  return finish;
}

}  // namespace

double Schedule::time(std::span<const double> bw, int chunks) const {
  const int S = static_cast<int>(stages.size());
  if (S == 0) return 0;
  chunks = std::max(chunks, 1);
  std::array<double, 64> p{};
  if (S > 64) return std::numeric_limits<double>::infinity();  // not a collective of ours
  for (int k = 0; k < S; ++k) {
    p[k] = stages[k].duration(bw, chunks);
    if (!std::isfinite(p[k])) return std::numeric_limits<double>::infinity();
  }
  const LocalDims local(stages);
  if (!local.shared) {
    // A flow shop of identical jobs: the first chunk passes every stage, the
    // others follow at the pace of the slowest stage.
    double sum = 0, worst = 0;
    for (int k = 0; k < S; ++k) sum += p[k], worst = std::max(worst, p[k]);
    return sum + (chunks - 1) * worst;
  }
  // The simulation below is a pure function of the chunk count and of each
  // stage's dimension, bytes, latency and bandwidth; a Pareto scan asks for the
  // same schedule at the same point several times (choosing the counts, then
  // evaluating at them), so the last few answers are kept, matched exactly.
  struct Memo {
    std::uint64_t hash = 0;
    std::vector<double> key;
    double value = 0;
  };
  thread_local std::array<Memo, 32> memo;
  thread_local std::size_t memoNext = 0;
  thread_local std::vector<double> key;
  key.clear();
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a over the key's bits
  auto add = [&](double x) {
    key.push_back(x);
    hash = (hash ^ std::bit_cast<std::uint64_t>(x)) * 1099511628211ULL;
  };
  add(chunks);
  for (int k = 0; k < S; ++k) {
    add(stages[k].dim);
    add(stages[k].bytes);
    add(stages[k].latencyNs);
    add(bw[stages[k].dim]);
  }
  for (const Memo& m : memo) {
    if (m.hash == hash && m.key == key) return m.value;
  }
  const double value = simulateSharedDims(p, S, local, chunks);
  Memo& slot = memo[memoNext++ % memo.size()];
  slot.hash = hash;
  slot.key = key;
  slot.value = value;
  return value;
}

int Schedule::bestChunks(std::span<const double> bw) const {
  const int S = static_cast<int>(stages.size());
  if (S == 0 || S > 64) return 1;
  // The surrogate f(C) = (one chunk's stages) + (C - 1) x (the busiest
  // dimension's occupancy per chunk)
  //      = L + B / C + (C - 1) max_d (l_d + b_d / C),
  // with L, l_d the latencies and B, b_d the transfer times of the whole
  // collective, is convex in C: f(C) = L + max_d h_d(C) with
  // h_d(C) = (B - b_d) / C + (C - 1) l_d + b_d, and each h_d is convex because
  // B >= b_d (B sums every stage, d's among them), so their maximum is too.
  // (Alone, (C - 1)(l_d + b_d / C) is concave; B / C is what makes the sum
  // convex.) Its integer minimum over
  // 1..kMaxChunks is found by ternary search; the exact schedule then picks the
  // best count within 1 of it (without a shared dimension the exact time is the
  // flow-shop formula, which the surrogate bounds from above).
  const LocalDims local(stages);
  std::array<double, 64> lat{}, byt{};
  double latency = 0, bytes = 0;
  for (int k = 0; k < S; ++k) {
    const Stage& st = stages[k];
    if (st.bytes > 0 && !(bw[st.dim] > 0)) return 1;
    const double b = st.bytes > 0 ? st.bytes / bw[st.dim] : 0.0;
    latency += st.latencyNs;
    bytes += b;
    lat[local.ofStage[k]] += st.latencyNs;
    byt[local.ofStage[k]] += b;
  }
  auto surrogate = [&](int c) {
    double busiest = 0;
    for (int d = 0; d < local.count; ++d) busiest = std::max(busiest, lat[d] + byt[d] / c);
    return latency + bytes / c + (c - 1) * busiest;
  };
  int lo = 1, hi = kMaxChunks;
  while (hi - lo > 2) {
    const int m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    const double f1 = surrogate(m1), f2 = surrogate(m2);
    if (f1 < f2) {
      hi = m2;
    } else if (f1 > f2) {
      lo = m1;
    } else {
      lo = m1, hi = m2;
    }
  }
  int best = lo;
  for (int c = lo + 1; c <= hi; ++c) {
    if (surrogate(c) < surrogate(best)) best = c;
  }
  int exactBest = best;
  double exactValue = std::numeric_limits<double>::infinity();
  for (int c = std::max(1, best - 1); c <= std::min(kMaxChunks, best + 1); ++c) {
    const double v = time(bw, c);
    if (v < exactValue) exactValue = v, exactBest = c;
  }
  return exactBest;
}

TimeTerm chunkedTerm(const Schedule& schedule, int chunks) {
  chunks = std::max(chunks, 1);
  // (schedule.chunks is the count the term was built for: `chunks`.)
  TimeTerm term;
  std::map<int, std::pair<double, double>> perDim;  // dim -> (latency, bytes) per chunk
  for (const Stage& st : schedule.stages) {
    term.serial.push_back({st.dim, st.latencyNs, st.bytes / chunks});
    perDim[st.dim].first += st.latencyNs;
    perDim[st.dim].second += st.bytes / chunks;
  }
  for (const auto& [dim, lb] : perDim) {
    if (chunks > 1)
      term.pipelined.push_back({dim, (chunks - 1) * lb.first, (chunks - 1) * lb.second});
    term.occupancy.push_back({dim, chunks * lb.first, chunks * lb.second});
  }
  term.schedule = schedule;
  term.schedule->chunks = chunks;
  return term;
}

double latencySteps(BuildingBlock block, CollectiveType stage, int n) {
  if (n <= 1) return 0;
  switch (block) {
    case BuildingBlock::Ring:
      // ring algorithm: n - 1 neighbour steps per half; All-to-All one peer after
      // another, each min(j, n - j) hops away on the bidirectional ring; a send to
      // a neighbour one hop.
      switch (stage) {
        case CollectiveType::SendRecv:
          return 1.0;
        case CollectiveType::AllReduce:
          return 2.0 * (n - 1);
        case CollectiveType::AllToAll: {
          double hops = 0;
          for (int j = 1; j < n; ++j) hops += std::min(j, n - j);
          return hops;
        }
        default:
          return n - 1.0;
      }
    case BuildingBlock::FullyConnected:
      // direct: every peer at once, one step per half; a send, one step.
      return stage == CollectiveType::AllReduce ? 2.0 : 1.0;
    case BuildingBlock::Switch: {
      // halving-doubling: log2(n) steps per half, two links (NPU-switch-NPU) each;
      // All-to-All one peer after another.
      const double k = std::ceil(std::log2(static_cast<double>(n)) - 1e-12);
      switch (stage) {
        case CollectiveType::SendRecv:
          return 2.0;  // NPU - switch - NPU
        case CollectiveType::AllReduce:
          return 2 * 2 * k;
        case CollectiveType::AllToAll:
          return 2.0 * (n - 1);
        default:
          return 2 * k;
      }
    }
  }
  return 0;
}

double endpointBundles(BuildingBlock block, CollectiveType stage, int n) {
  if (n <= 1) return 0;
  // One bundle at the phase's start and one after every receive (ASTRA-sim 2,
  // MemBus.cc): ring n - 1 receives per half; direct one per half; halving-doubling
  // log2(n) per half; All-to-All one peer after another (direct1) except on a
  // FullyConnected dimension (direct); a send to a peer one receive.
  switch (stage) {
    case CollectiveType::SendRecv:
      return 2.0;
    case CollectiveType::AllToAll:
      return block == BuildingBlock::FullyConnected ? 2.0 : static_cast<double>(n);
    default:
      break;
  }
  const bool allReduce = stage == CollectiveType::AllReduce;
  switch (block) {
    case BuildingBlock::Ring:
      return allReduce ? 2.0 * n - 1 : static_cast<double>(n);
    case BuildingBlock::FullyConnected:
      return allReduce ? 3.0 : 2.0;
    case BuildingBlock::Switch: {
      const double k = std::ceil(std::log2(static_cast<double>(n)) - 1e-12);
      return allReduce ? 2 * k + 1 : k + 1;
    }
  }
  return 0;
}

double placementShare(const Dimension& dim, CollectiveType type, int groupSize, int stride) {
  const int n = dim.npus, g = groupSize, s = std::max(stride, 1);
  if (g <= 1 || (g >= n && s == 1)) return 1.0;
  switch (dim.block) {
    case BuildingBlock::Switch:
      return 1.0;
    case BuildingBlock::FullyConnected:
      return type == CollectiveType::SendRecv ? 1.0 / (n - 1) : (g - 1.0) / (n - 1.0);
    case BuildingBlock::Ring:
      if (type == CollectiveType::SendRecv) return 1.0 / s;
      return static_cast<std::int64_t>(g) * s >= n ? 1.0 / s : 1.0 / (2.0 * s);
  }
  return 1.0;
}

double placementHops(const Dimension& dim, CollectiveType type, int groupSize, int stride) {
  const int n = dim.npus, g = groupSize, s = std::max(stride, 1);
  if (dim.block != BuildingBlock::Ring || g <= 1 || (g >= n && s == 1)) return 1.0;
  if (type == CollectiveType::SendRecv || static_cast<std::int64_t>(g) * s >= n) return s;
  // An arc: a step ends when the wrap-around has come back along it.
  return std::max<double>(s, static_cast<double>(g - 1) * s);
}

std::vector<Stage> collectiveStages(CollectiveType type, double sizeBytes,
                                    std::span<const int> groupSizes, const Network& network,
                                    std::span<const int> strides) {
  std::vector<int> used;
  for (int d = 0; d < static_cast<int>(groupSizes.size()); ++d) {
    if (groupSizes[d] > 1) used.push_back(d);
  }
  std::vector<Stage> stages;
  if (type == CollectiveType::None || sizeBytes <= 0 || used.empty()) return stages;
  auto stage = [&](int d, CollectiveType kind, double bytes) {
    const Dimension& dim = network.dims[d];
    const int stride = d < static_cast<int>(strides.size()) ? strides[d] : 1;
    const double hops = placementHops(dim, type, groupSizes[d], stride);
    stages.push_back({d,
                      latencySteps(dim.block, kind, groupSizes[d]) * hops * dim.latencyNs +
                          endpointBundles(dim.block, kind, groupSizes[d]) * network.endpointDelayNs,
                      bytes / placementShare(dim, type, groupSizes[d], stride)});
  };
  switch (type) {
    case CollectiveType::AllReduce: {
      double s = sizeBytes;
      std::vector<double> half(used.size());
      for (std::size_t i = 0; i + 1 < used.size(); ++i) {
        const int g = groupSizes[used[i]];
        half[i] = s * (g - 1) / g;
        stage(used[i], CollectiveType::ReduceScatter, half[i]);
        s /= g;
      }
      const int last = used.back();
      stage(last, CollectiveType::AllReduce, 2 * s * (groupSizes[last] - 1) / groupSizes[last]);
      for (std::size_t i = used.size() - 1; i-- > 0;) {
        stage(used[i], CollectiveType::AllGather, half[i]);
      }
      break;
    }
    case CollectiveType::ReduceScatter: {
      double s = sizeBytes;
      for (int d : used) {
        stage(d, CollectiveType::ReduceScatter, s * (groupSizes[d] - 1) / groupSizes[d]);
        s /= groupSizes[d];
      }
      break;
    }
    case CollectiveType::AllGather: {
      double s = sizeBytes;
      for (auto it = used.rbegin(); it != used.rend(); ++it) {
        stage(*it, CollectiveType::AllGather, s * (groupSizes[*it] - 1));
        s *= groupSizes[*it];
      }
      break;
    }
    case CollectiveType::AllToAll:
      for (int d : used) {
        stage(d, CollectiveType::AllToAll, sizeBytes * (groupSizes[d] - 1) / groupSizes[d]);
      }
      break;
    case CollectiveType::SendRecv:
      // The whole buffer, one hop on each used dimension, inner to outer.
      for (int d : used) stage(d, CollectiveType::SendRecv, sizeBytes);
      break;
    case CollectiveType::None:
      break;
  }
  return stages;
}

CollectiveModel defaultCollectiveModel() {
  CollectiveModel m;
  m.chunks = ChunkSetting::automatic();
  return m;
}

double defaultEndpointDelayNs() {
  return 10.0;
}

double defaultLinkLatencyNs(BuildingBlock block) {
  switch (block) {
    case BuildingBlock::Ring:
    case BuildingBlock::FullyConnected:
      return 500.0;
    case BuildingBlock::Switch:
      return 936.25;
  }
  return 500.0;
}

std::string ChunkSetting::toString() const {
  switch (kind) {
    case Kind::Ideal:
      return "ideal";
    case Kind::Auto:
      return "auto";
    case Kind::Fixed:
      return std::to_string(count);
  }
  return "ideal";
}

std::optional<ChunkSetting> parseChunkSetting(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text == "ideal") return ChunkSetting::ideal();
  if (text == "auto") return ChunkSetting::automatic();
  int count = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (count < 1 || count > kMaxChunks) return std::nullopt;
  return ChunkSetting::fixed(count);
}

TimeTerm collectiveTerm(CollectiveType type, double sizeBytes, std::span<const int> groupSizes,
                        const Network& network, const CollectiveModel& model,
                        std::span<const int> strides) {
  if (!model.chunks.isIdeal()) {
    // Chunks and latency: the exact schedule, minimized through its convex
    // surrogate. "auto" starts from 16 chunks; the solver fixes the count of
    // every collective at its answer and solves again until the counts settle.
    Schedule schedule;
    schedule.stages = collectiveStages(type, sizeBytes, groupSizes, network, strides);
    if (schedule.stages.empty()) return {};
    schedule.automatic = model.chunks.kind == ChunkSetting::Kind::Auto;
    schedule.chunks = schedule.automatic ? 16 : model.chunks.count;
    return chunkedTerm(schedule, schedule.chunks);
  }
  // LIBRA's model (model.md section 4): infinitely many chunks pipeline through
  // the dimensions, so the slowest dimension sets the pace, tau = max_d V_d / bw_d.
  const std::vector<double> traffic = collectiveTraffic(type, sizeBytes, groupSizes);
  TimeTerm term;
  for (int d = 0; d < static_cast<int>(traffic.size()); ++d) {
    if (traffic[d] <= 0) continue;
    term.pipelined.push_back({d, 0.0, traffic[d]});
    term.occupancy.push_back({d, 0.0, traffic[d]});
  }
  return term;
}

}  // namespace libra
