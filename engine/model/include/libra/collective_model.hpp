// How long one collective takes, as a function of the bandwidth vector: the one
// place where a collective model is defined. The evaluator and both solver
// backends read the TimeTerm it produces and nothing else, so a new collective
// model (chunks, latency, another algorithm) is a new way of filling a TimeTerm
// plus its tests; the solvers do not change.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "libra/network.hpp"
#include "libra/workload.hpp"

namespace libra {

// A time spent on one dimension: constantNs + bytes / bw_dim (bw in GB/s = bytes/ns).
struct DimTime {
  int dim = 0;
  double constantNs = 0;
  double bytes = 0;

  // +inf when bytes > 0 and the dimension has no bandwidth.
  double at(std::span<const double> bw) const;
  bool operator==(const DimTime&) const = default;
};

// One stage of a chunked collective: what one chunk does on one dimension.
// Its duration for C chunks is latencyNs + bytes / (C * bw_dim): `bytes` is the
// whole collective's traffic of the stage, `latencyNs` the steps of the
// stage's algorithm times the link latency (per chunk).
struct Stage {
  int dim = 0;
  double latencyNs = 0;
  double bytes = 0;

  double duration(std::span<const double> bw, int chunks) const;
  bool operator==(const Stage&) const = default;
};

// The schedule of a chunked collective (as ASTRA-sim 2 runs it): C chunks go
// through the stages in order; each dimension has one FIFO queue and serves one
// chunk at a time (a dimension's stages share its queue); a chunk joins the next
// stage's queue when its stage ends. With `automatic` the count is chosen per
// collective at the design point ("auto"; `chunks` is then only a start).
struct Schedule {
  std::vector<Stage> stages;
  int chunks = 1;
  bool automatic = false;

  // The exact finish time of the last chunk for `chunks` chunks (+inf when a
  // stage that moves bytes has no bandwidth).
  double time(std::span<const double> bw, int chunks) const;
  // The chunk count "auto" picks at `bw`: the surrogate's best count over
  // 1..kMaxChunks (a convex function of the count: ternary search), then the
  // exact time at it and its neighbours (+-1).
  int bestChunks(std::span<const double> bw) const;
  bool operator==(const Schedule&) const = default;
};
inline constexpr int kMaxChunks = 1024;

// The time of one collective, in the one convex form the solvers accept:
//
//   tau(bw) = sum over `serial` parts + max over `pipelined` parts
//
// Every part is constant + bytes / bw_d, convex and decreasing in bw_d, so tau
// is convex. LIBRA's model (infinitely many chunks, no latency) is one pipelined
// part per used dimension with its traffic V_d and no serial part.
// `occupancy` is how long each dimension is busy with the collective (what the
// per-dimension breakdown reports); it does not enter the objective.
//
// A chunked collective keeps its Schedule: the solvers minimize the convex form
// (a surrogate: the sum of one chunk's stage times plus C - 1 times the busiest
// dimension's occupancy per chunk), while every reported time is the exact
// schedule's (exact()).
struct TimeTerm {
  std::vector<DimTime> serial;
  std::vector<DimTime> pipelined;
  std::vector<DimTime> occupancy;
  std::optional<Schedule> schedule;  // empty: LIBRA's ideal model, value() is exact

  // The convex form (what the solvers minimize).
  double value(std::span<const double> bw) const;
  // The time reported: the schedule's exact time (with "auto", at the best chunk
  // count for `bw`), or value() without a schedule.
  double exact(std::span<const double> bw) const;
  // The same term with "auto" resolved to the best chunk count at `bw` (the
  // solver fixes the counts at a point, solves, and repeats); itself otherwise.
  TimeTerm fixedAt(std::span<const double> bw) const;
  bool automatic() const { return schedule && schedule->automatic; }
  // The value split over the dimensions: serial parts go to their dimension, the
  // max to the part(s) that set it (shared equally on ties within 1e-6). Adds up
  // to value(bw); zeros when the value is not finite. Written into `out`, one
  // entry per dimension (its size: the dimensions), so that a caller reuses it.
  void attribute(std::span<const double> bw, std::vector<double>& out) const;
  // True when a part moves bytes over `dim`.
  bool uses(int dim) const;
  bool empty() const { return serial.empty() && pipelined.empty(); }
  bool operator==(const TimeTerm&) const = default;
};

// How many chunks a collective is cut into: "ideal" (LIBRA's limit of infinitely
// many, no latency), a fixed count, or "auto" (per collective, the count that
// minimizes its time at the design point).
struct ChunkSetting {
  enum class Kind { Ideal, Fixed, Auto };
  Kind kind = Kind::Ideal;
  int count = 0;  // Fixed only, >= 1

  static ChunkSetting ideal() { return {}; }
  static ChunkSetting fixed(int count) { return {Kind::Fixed, count}; }
  static ChunkSetting automatic() { return {Kind::Auto, 0}; }
  bool isIdeal() const { return kind == Kind::Ideal; }
  std::string toString() const;  // "ideal", "16", "auto"
  bool operator==(const ChunkSetting&) const = default;
};
// "ideal", "auto" or an integer 1..kMaxChunks; nullopt otherwise.
std::optional<ChunkSetting> parseChunkSetting(std::string_view text);

// Which collective model turns traffic into time. Per-dimension link latencies
// are the network's (Dimension::latencyNs); the ideal model ignores them.
struct CollectiveModel {
  ChunkSetting chunks;

  bool operator==(const CollectiveModel&) const = default;
};

// What new projects start from (libra new, the presets, sweeps; sources in
// docs/collective-model.md): chunk counts chosen per collective ("auto"), and
// a link latency per building block, from ASTRA-sim 2's example networks:
// 500 ns for Ring and FullyConnected links, 936.25 ns for a Switch link (its
// HGX-H100-validated configuration; a Switch step crosses two links).
CollectiveModel defaultCollectiveModel();
double defaultLinkLatencyNs(BuildingBlock block);
// The endpoint delay new projects and sweeps start from: 10 ns per message bundle,
// ASTRA-sim 2's own default (Sys.cc: endpoint-delay when the system file gives
// none; docs/collective-model.md section 3).
double defaultEndpointDelayNs();

// The convex form of `schedule` with C chunks: serial = every stage of one chunk,
// pipelined = (C - 1) x each dimension's occupancy per chunk, occupancy = each
// dimension's busy time for the whole collective.
TimeTerm chunkedTerm(const Schedule& schedule, int chunks);

// The stages of a hierarchical collective over the used dimensions (g_d > 1), as
// ASTRA-sim 2 runs them with one algorithm per building block (Ring: ring,
// FullyConnected: direct, Switch: halving-doubling, All-to-All one peer after
// another; see docs/collective-model.md):
//   All-Reduce     reduce-scatter on the used dimensions inner to outer but the
//                  last, all-reduce on the outermost, all-gather back inwards;
//   Reduce-Scatter inner to outer;  All-Gather outer to inner;  All-to-All inner
//                  to outer, each with the whole buffer;  SendRecv one hop on
//                  each used dimension, inner to outer, with the whole buffer.
// Each stage carries the traffic of model.md section 4, and as its fixed cost per
// chunk steps x link latency plus bundles x the network's endpoint delay.
//
// A group that takes part of a dimension (g_d < n_d) gets the share of the
// dimension's bandwidth its links carry while every group of its kind on the
// dimension runs at once (placementShare): its stage's bytes are divided by
// that share, and its latency steps are multiplied by the hops of a step
// (placementHops). `strides[d]`: the group's NPUs are stride apart on
// dimension d (1: consecutive; empty: 1 on every dimension).
std::vector<Stage> collectiveStages(CollectiveType type, double sizeBytes,
                                    std::span<const int> groupSizes, const Network& network,
                                    std::span<const int> strides = {});
// Latency steps of one stage's algorithm on a block of n NPUs, in units of the
// link latency (a Switch step crosses two links).
double latencySteps(BuildingBlock block, CollectiveType stage, int n);
// Message bundles an NPU handles in one stage (each costs the endpoint delay):
// ring n (All-Reduce 2n - 1), direct 2 (3), halving-doubling log2(n) + 1
// (2 log2(n) + 1), All-to-All n one peer at a time (2 on FullyConnected, all
// peers at once), a send 2 (ASTRA-sim 2; docs/collective-model.md section 3).
double endpointBundles(BuildingBlock block, CollectiveType stage, int n);

// Groups on part of a dimension (docs/collective-model.md section 7): the share
// of the dimension's per-NPU bandwidth bw_d that one group of g NPUs, stride s
// apart, gets while the n / g groups of its kind on the dimension all run:
//   Switch           1 (a non-blocking switch: every NPU keeps its port);
//   FullyConnected   (g - 1) / (n - 1): a member reaches the others over g - 1
//                    of its n - 1 links (a SendRecv over 1 of them);
//   Ring             1 for the whole ring (g = n, s = 1); 1 / s for groups
//                    interleaved around the whole ring (g s = n): each logical
//                    hop spans s links, which the s groups share; 1 / (2 s) when
//                    the groups do not close the ring (g s < n): each arc is a
//                    line, and what the ring algorithm sends round the
//                    wrap-around comes back along it, so its busiest link
//                    carries twice a ring's; a SendRecv to the next stage 1 / s.
double placementShare(const Dimension& dim, CollectiveType type, int groupSize, int stride);
// The links one step of the group's algorithm crosses (its latency multiplies):
// Ring s per hop, and g - 1 for the wrap-around of an arc (g s < n); 1 otherwise.
double placementHops(const Dimension& dim, CollectiveType type, int groupSize, int stride);

// The TimeTerm of a collective of `sizeBytes` over group sizes g_d (1 = unused) on
// `network` (model.md section 4 for the traffic). Empty when it moves nothing.
// LIBRA's ideal model (chunks "ideal") charges every group the whole bw_d, as the
// reference does; the chunked models charge the placement (collectiveStages).
TimeTerm collectiveTerm(CollectiveType type, double sizeBytes, std::span<const int> groupSizes,
                        const Network& network, const CollectiveModel& model,
                        std::span<const int> strides = {});

}  // namespace libra
