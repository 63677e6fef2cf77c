#include "codesign_mpi.hpp"

#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

// Every MPI call goes to its PMPI_ name, the standard's profiling entry point
// to the same function: IPOPT's sequential MUMPS (libdmumps_seq) exports stubs
// of MPI_Init, MPI_Finalize, MPI_Comm_rank and MPI_Wtime, and they come before
// Open MPI's in the link order, so MPI_Comm_rank said 0 on every rank and
// MPI_Finalize did nothing. IPOPT keeps its stubs; this file reaches Open MPI.

namespace libra::cli {

namespace {

// Messages: a worker rank says how many threads ask for work (kHello); each of
// its threads sends the result of its last unit (empty at first) as a request
// (kResult), answered with a unit and the best keys so far, or a stop (kWork).
constexpr int kHello = 1;
constexpr int kResult = 2;
constexpr int kWork = 3;
constexpr std::int64_t kStop = -1;

// Bytes in native layout: every rank runs the same binary.
class Writer {
 public:
  template <typename T>
  requires std::is_arithmetic_v<T>
  void put(T value) {
    const auto* p = reinterpret_cast<const char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof value);
  }
  void put(bool value) { put(static_cast<std::uint8_t>(value ? 1 : 0)); }
  void put(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    bytes_.insert(bytes_.end(), text.begin(), text.end());
  }
  template <typename T>
  void put(const std::vector<T>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    for (const T& v : values) put(v);
  }
  template <typename E>
  requires std::is_enum_v<E>
  void put(E value) { put(static_cast<std::int32_t>(value)); }
  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& bytes) : bytes_(bytes) {}
  template <typename T>
  requires std::is_arithmetic_v<T>
  void get(T& value) {
    need(sizeof value);
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
  }
  void get(bool& value) {
    std::uint8_t b = 0;
    get(b);
    value = b != 0;
  }
  void get(std::string& text) {
    const std::size_t n = count();
    need(n);
    text.assign(bytes_.data() + at_, n);
    at_ += n;
  }
  template <typename T>
  void get(std::vector<T>& values) {
    values.resize(count());
    for (T& v : values) get(v);
  }
  template <typename E>
  requires std::is_enum_v<E>
  void get(E& value) {
    std::int32_t v = 0;
    get(v);
    value = static_cast<E>(v);
  }
  std::size_t count() {
    std::uint64_t n = 0;
    get(n);
    if (n > bytes_.size()) throw std::runtime_error("codesign (MPI): a corrupt message");
    return static_cast<std::size_t>(n);
  }

 private:
  void need(std::size_t n) const {
    if (n > bytes_.size() - at_) throw std::runtime_error("codesign (MPI): a short message");
  }
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

// `fields` with a writer or a reader as the visitor.
struct Put {
  Writer& w;
  template <typename T>
  void operator()(const T& v) {
    w.put(v);
  }
};
struct Get {
  Reader& r;
  template <typename T>
  void operator()(T& v) {
    r.get(v);
  }
};

// Every field of a design that a unit computes (npus, network and label come
// from the shape's index; equivalent shapes and throughput from the merge).
template <typename Io, typename D>
void fields(Io& io, D& d) {
  auto& p = d.execution.parallelism;
  for (auto* v : {&p.tp, &p.cp, &p.ep, &p.pp, &p.zeroStage, &p.shardGroup}) io(*v);
  io(p.dp);
  for (auto* v : {&p.sequenceParallel, &p.zero3, &p.recompute, &p.selectiveRecompute}) io(*v);
  io(p.attention);
  io(p.moeDispatcher);
  io(p.moeRouting);
  io(p.precision);
  for (auto* v : {&p.tpGroups, &p.cpGroups, &p.epGroups, &p.ppGroups, &p.dpGroups}) io(*v);
  io(d.execution.virtualStages);
  io(d.execution.microBatch);
  auto& s = d.solution;
  io(s.status);
  io(s.message);
  io(s.objective);
  io(s.bandwidth);
  io(s.iterations);
  auto& e = s.eval;
  for (auto* v : {&e.iterationNs, &e.computeNs, &e.communicationNs, &e.surrogateIterationNs,
                  &e.costUsd, &e.networkCostUsd}) {
    io(*v);
  }
  io(e.busyNs);
  io(e.communicationByDimNs);
  io(e.finite);
  auto& m = d.memory;
  io(m.capacityBytes);
  io(m.note);
  for (auto* v : {&d.networkCostUsd, &d.systemCostUsd, &d.costUsd}) io(*v);
}

// A unit's result and the seconds its search took.
std::vector<char> encode(const CodesignUnitResult& r, double seconds) {
  Writer w;
  w.put(seconds);
  w.put(static_cast<std::uint64_t>(r.unit));
  for (std::int64_t v : {r.shapesSearched, r.evaluated, r.pruned, r.failed}) w.put(v);
  w.put(r.firstFailure);
  w.put(r.cancelled);
  w.put(static_cast<std::uint64_t>(r.skipReasons.size()));
  for (const auto& [reason, count] : r.skipReasons) {
    w.put(reason);
    w.put(count);
  }
  w.put(static_cast<std::uint64_t>(r.skipExample.size()));
  for (const auto& [reason, example] : r.skipExample) {
    w.put(reason);
    w.put(example);
  }
  w.put(static_cast<std::uint64_t>(r.candidates.size()));
  for (const CodesignCandidate& c : r.candidates) {
    w.put(static_cast<std::uint64_t>(c.shape));
    w.put(c.order);
    Put put{w};
    fields(put, c.design);
    const auto& use = c.design.memory.use;
    w.put(use.has_value());
    if (use) {
      for (double v : {use->weights, use->gradients, use->optimizer, use->activations}) w.put(v);
      w.put(use->where);
    }
  }
  return std::move(w.bytes());
}

CodesignUnitResult decode(const std::vector<char>& bytes, double& seconds) {
  Reader in(bytes);
  CodesignUnitResult r;
  in.get(seconds);
  std::uint64_t unit = 0;
  in.get(unit);
  r.unit = static_cast<std::size_t>(unit);
  for (std::int64_t* v : {&r.shapesSearched, &r.evaluated, &r.pruned, &r.failed}) in.get(*v);
  in.get(r.firstFailure);
  in.get(r.cancelled);
  for (std::size_t n = in.count(); n > 0; --n) {
    std::string reason;
    std::int64_t count = 0;
    in.get(reason);
    in.get(count);
    r.skipReasons[reason] = count;
  }
  for (std::size_t n = in.count(); n > 0; --n) {
    std::string reason, example;
    in.get(reason);
    in.get(example);
    r.skipExample[reason] = example;
  }
  r.candidates.resize(in.count());
  for (CodesignCandidate& c : r.candidates) {
    std::uint64_t shape = 0;
    in.get(shape);
    c.shape = static_cast<std::size_t>(shape);
    in.get(c.order);
    Get get{in};
    fields(get, c.design);
    bool hasUse = false;
    in.get(hasUse);
    if (hasUse) {
      MemoryUse use;
      for (double* v : {&use.weights, &use.gradients, &use.optimizer, &use.activations}) in.get(*v);
      in.get(use.where);
      c.design.memory.use = std::move(use);
    }
  }
  return r;
}

// CPU seconds of the calling thread.
double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What rank 0 measured of a run (LIBRA_MPI_STATS=1 prints it on stderr): the
// inputs of the speed-up projection in docs/workloads.md section 9.
struct Stats {
  std::mutex mutex;
  std::int64_t units = 0;
  double unitSeconds = 0;     // the units' searches, summed over every process
  double longestUnit = 0;     // seconds
  std::int64_t messages = 0;  // received by rank 0 (a result with a request each)
  double bytesIn = 0, bytesOut = 0;
  double serving = 0;     // rank 0's seconds receiving, merging and answering
  double servingCpu = 0;  // the CPU seconds of its thread in them
  void unit(double seconds) {
    const std::lock_guard lock(mutex);
    ++units;
    unitSeconds += seconds;
    longestUnit = std::max(longestUnit, seconds);
  }
};

// A failure on one process leaves the others waiting for it: it ends them
// all, after saying why (MPI_Abort; mpirun exits non-zero).
[[noreturn]] void abortAll(const char* why) {
  std::fprintf(stderr, "libra: error: codesign (MPI): %s\n", why);
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 2);
  std::abort();
}

// Runs `f`; an exception ends every process (after the inputs were read
// alike on every process, an error is one process's alone).
template <typename F>
void orAbort(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const std::exception& e) {
    abortAll(e.what());
  } catch (...) {
    abortAll("an unexpected error");
  }
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("codesign (MPI): ") + what);
}

void sendBytes(const std::vector<char>& bytes, int to, int tag) {
  check(PMPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD),
        "MPI_Send");
}

std::vector<char> receiveBytes(const MPI_Status& status) {
  int n = 0;
  check(PMPI_Get_count(&status, MPI_BYTE, &n), "MPI_Get_count");
  std::vector<char> bytes(static_cast<std::size_t>(n));
  check(PMPI_Recv(bytes.data(), n, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE),
        "MPI_Recv");
  return bytes;
}

// A unit to search and the keys of the best designs merged so far, or a stop.
std::vector<char> workMessage(std::int64_t unit, const std::vector<double>& keys) {
  Writer w;
  w.put(unit);
  w.put(keys);
  return std::move(w.bytes());
}

}  // namespace

bool launchedByMpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

int launcherRank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return 0;
}

MpiSession::MpiSession() {
  int provided = 0;
  check(PMPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
  threadsMayCallMpi_ = provided >= MPI_THREAD_SERIALIZED;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  PMPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  PMPI_Finalize();
}

namespace {

// A rank other than 0: its threads ask rank 0 for units, run them and send the
// results back, until rank 0 says stop.
void workForRankZero(CodesignWork& work, int threads) {
  std::vector<char> hello(sizeof threads);
  std::memcpy(hello.data(), &threads, sizeof threads);
  sendBytes(hello, 0, kHello);
  std::mutex mpi;  // one request and its answer at a time
  const auto worker = [&] {
    std::vector<char> result;  // of the last unit; empty at first
    for (;;) {
      std::vector<char> answer;
      {
        const std::lock_guard lock(mpi);
        sendBytes(result, 0, kResult);
        MPI_Status status;
        check(PMPI_Probe(0, kWork, MPI_COMM_WORLD, &status), "MPI_Probe");
        answer = receiveBytes(status);
      }
      Reader in(answer);
      std::int64_t unit = kStop;
      std::vector<double> keys;
      in.get(unit);
      in.get(keys);
      if (unit == kStop) return;
      const auto begun = std::chrono::steady_clock::now();
      CodesignUnitResult r = work.run(static_cast<std::size_t>(unit), [&keys] { return keys; });
      result = encode(r, secondsSince(begun));
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (int t = 1; t < threads; ++t) pool.emplace_back([&] { orAbort(worker); });
  orAbort(worker);
}

// Rank 0: its own threads and every other rank's take units from `next`.
struct RankZero {
  RankZero(CodesignWork& w, const std::atomic<bool>* c)
      : work(w), units(static_cast<std::int64_t>(w.units())), cancel(c) {}

  CodesignWork& work;
  std::int64_t units;
  const std::atomic<bool>* cancel;
  std::atomic<std::int64_t> next{0};
  std::atomic<std::int64_t> done{0};  // shapes
  Stats stats;

  bool stopped() const { return cancel && cancel->load(); }

  // `jobs` threads of rank 0 searching units; the caller joins them.
  void search(int jobs, std::vector<std::jthread>& pool) {
    pool.reserve(static_cast<std::size_t>(jobs));
    for (int t = 0; t < jobs; ++t) {
      pool.emplace_back([this] {
        orAbort([this] {
          for (std::int64_t unit = next++; unit < units && !stopped(); unit = next++) {
            const auto begun = std::chrono::steady_clock::now();
            CodesignUnitResult r = work.run(static_cast<std::size_t>(unit), {}, &done);
            stats.unit(secondsSince(begun));
            const bool cancelled = r.cancelled;
            work.merge(std::move(r));
            if (cancelled) break;
          }
        });
      });
    }
  }

  // A result of another rank (empty: its first request) merged.
  void mergeRemote(const std::vector<char>& bytes) {
    if (bytes.empty()) return;
    double seconds = 0;
    CodesignUnitResult r = decode(bytes, seconds);
    stats.unit(seconds);
    std::int64_t shapes = r.shapesSearched;
    for (const auto& [reason, count] : r.skipReasons) shapes += count;
    done += shapes;
    work.merge(std::move(r));
  }

  // Answers the other ranks' requests until each of their threads was told to stop.
  void serve(int otherRanks, const std::function<void(std::int64_t, std::int64_t)>& progress) {
    int hellos = 0;
    std::int64_t remoteThreads = 0, remoteStopped = 0;
    auto lastProgress = std::chrono::steady_clock::now();
    auto idle = std::chrono::microseconds(20);
    while (hellos < otherRanks || remoteStopped < remoteThreads) {
      int flag = 0;
      MPI_Status status;
      check(PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
      const auto now = std::chrono::steady_clock::now();
      if (progress && now - lastProgress >= std::chrono::milliseconds(100)) {
        progress(done.load(), work.shapes());
        lastProgress = now;
      }
      if (!flag) {
        // Polled, not blocked in MPI_Recv (which spins in Open MPI): this
        // thread shares the cores with the searching ones.
        std::this_thread::sleep_for(idle);
        idle = std::min(idle * 2, std::chrono::microseconds(1000));
        continue;
      }
      idle = std::chrono::microseconds(20);
      const auto serving = std::chrono::steady_clock::now();
      const double servingCpu = threadCpuSeconds();
      const std::vector<char> bytes = receiveBytes(status);
      ++stats.messages;
      stats.bytesIn += static_cast<double>(bytes.size());
      if (status.MPI_TAG == kHello) {
        int threads = 0;
        if (bytes.size() == sizeof threads) std::memcpy(&threads, bytes.data(), sizeof threads);
        remoteThreads += threads;
        ++hellos;
        continue;
      }
      mergeRemote(bytes);
      const std::int64_t unit = stopped() ? kStop : next++;
      const bool stop = unit == kStop || unit >= units;
      const std::vector<char> answer =
          workMessage(stop ? kStop : unit, stop ? std::vector<double>{} : work.bestKeys());
      sendBytes(answer, status.MPI_SOURCE, kWork);
      stats.bytesOut += static_cast<double>(answer.size());
      if (stop) ++remoteStopped;
      stats.serving += secondsSince(serving);
      stats.servingCpu += threadCpuSeconds() - servingCpu;
    }
  }
};

}  // namespace

std::optional<CodesignResult> MpiSession::runCodesign(
    const CodesignOptions& options, int jobs,
    const std::function<void(std::int64_t, std::int64_t)>& progress,
    const std::atomic<bool>* cancel) {
  // Every rank prepares the same units (an invalid input throws on each alike).
  const auto started = std::chrono::steady_clock::now();
  // Units enough for dynamic balancing: at least 32 per process (a
  // factorization's shapes in pieces where there are fewer factorizations;
  // LIBRA_MPI_UNITS_PER_PROCESS sets another number, every rank the same).
  std::size_t perProcess = 32;
  if (const char* v = std::getenv("LIBRA_MPI_UNITS_PER_PROCESS")) {
    perProcess = std::strtoull(v, nullptr, 10);
  }
  CodesignWork work(options, cancel, perProcess * static_cast<std::size_t>(size_));
  const double prepared = secondsSince(started);
  jobs = std::max(jobs, 1);

  if (rank_ != 0) {
    // Threads beyond the first ask for work only where MPI lets threads call it.
    workForRankZero(work, threadsMayCallMpi_ ? jobs : 1);
    return std::nullopt;
  }
  RankZero zero(work, cancel);
  std::vector<std::jthread> pool;
  zero.search(jobs, pool);
  orAbort([&] { zero.serve(size_ - 1, progress); });
  pool.clear();  // joins
  if (progress) progress(zero.done.load(), work.shapes());
  const auto finishing = std::chrono::steady_clock::now();
  CodesignResult result = work.finish(zero.stopped());
  if (std::getenv("LIBRA_MPI_STATS") != nullptr) {
    const Stats& stats = zero.stats;
    std::fprintf(stderr,
                 "libra codesign (MPI): %d processes x %d threads; prepare %.3f s, finish %.3f s, "
                 "wall %.3f s; %lld units, %.3f s searching (longest %.3f s); %lld messages to "
                 "rank 0 (%.0f bytes in, %.0f out), %.3f s serving them (%.3f s CPU)\n",
                 size_, jobs, prepared, secondsSince(finishing), secondsSince(started),
                 static_cast<long long>(stats.units), stats.unitSeconds, stats.longestUnit,
                 static_cast<long long>(stats.messages), stats.bytesIn, stats.bytesOut,
                 stats.serving, stats.servingCpu);
  }
  return result;
}

}  // namespace libra::cli
