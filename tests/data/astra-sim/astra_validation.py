#!/usr/bin/env python3
"""Regenerate and check tests/data/astra-sim/validation.json.

Runs an ALREADY BUILT ASTRA-sim 2 (analytical, congestion-unaware network
backend) on single collectives and records the simulated time.  It does not
build ASTRA-sim.  Python 3 standard library only.

Environment (for `generate` / `run`):
  ASTRA_SIM_BIN     path of AstraSim_Analytical_Congestion_Unaware
  ASTRA_SIM_SRC     ASTRA-sim source tree (checked out with its submodules);
                    its examples/workload/microbenchmarks/generator_scripts/*.py
                    write the Chakra execution traces, and need
                    extern/graph_frontend/chakra/schema/protobuf/et_def_pb2.py
                    (made by `protoc --python_out`)
  ASTRA_SIM_PYTHON  python3 that can `import google.protobuf` (default
                    /usr/bin/python3, Debian's python3-protobuf)
  ASTRA_SIM_WORK    scratch directory (default: a new temporary directory)

Commands:
  generate [-o FILE]   run every case, write the JSON data set (default:
                       validation.json next to this script)
  check [FILE]         recompute every case with the timing recipe below
                       (no simulator needed) and print the error statistics
  run NETWORK COLL SIZE C [--lat ..] [--endpoint-delay E]
                       run one case, e.g. run "Ring:8:100,Switch:4:50" AllReduce 67108864 4

Timing recipe (what `check` implements; see README.md for the derivation).
"""

import argparse
import heapq
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "validation.json")

COLLS = ["AllReduce", "ReduceScatter", "AllGather", "AllToAll"]
GEN_NAME = {"AllReduce": "all_reduce", "ReduceScatter": "reduce_scatter",
            "AllGather": "all_gather", "AllToAll": "all_to_all"}
MiB = 1 << 20

# ---------------------------------------------------------------- config ---
# Fixed system-configuration values (one active chunk per dimension, one
# queue per dimension, local memory cost off).
SYSTEM_FIXED = {
    "scheduling-policy": "LIFO",
    "active-chunks-per-dimension": 1,
    "collective-optimization": "localBWAware",
    "local-mem-bw": 1000000000000,   # GB/s (x1e9 in Sys.cc): reduction delay 0
    "boost-mode": 0,
}
NUM_QUEUES_PER_DIM = 1               # command-line --num-queues-per-dim
DEFAULT_ENDPOINT_DELAY = 1           # ns; 0 aborts the simulator (see README)

# Per-dimension algorithm for each building block and collective.
ALGO = {
    # All-to-All on a ring: `direct1` (one peer after another over the shortest
    # way round) moves S (n-1)/n per NPU as model.md section 4 says; ASTRA-sim's
    # `ring` algorithm would forward every message hop by hop (n/2 times more).
    "Ring": {"AllReduce": "ring", "ReduceScatter": "ring",
             "AllGather": "ring", "AllToAll": "direct1"},
    "FullyConnected": {"AllReduce": "direct", "ReduceScatter": "direct",
                       "AllGather": "direct", "AllToAll": "direct"},
    "Switch": {"AllReduce": "halvingDoubling", "ReduceScatter": "halvingDoubling",
               "AllGather": "halvingDoubling", "AllToAll": "direct1"},
}
IMPL_KEY = {"AllReduce": "all-reduce-implementation",
            "ReduceScatter": "reduce-scatter-implementation",
            "AllGather": "all-gather-implementation",
            "AllToAll": "all-to-all-implementation"}


def link_bw_bytes_per_s(block, n, bw_gbps):
    """Our per-NPU bandwidth (1e9 B/s) -> bytes/s of ONE uni-directional link."""
    if block == "FullyConnected":
        return bw_gbps * 1e9 / (n - 1)
    return bw_gbps * 1e9          # Ring (whole per-NPU bw on one link), Switch


def astra_bandwidth(block, n, bw_gbps):
    """Value written to the network yml: ASTRA-sim's GB is 2^30 bytes."""
    return link_bw_bytes_per_s(block, n, bw_gbps) / float(1 << 30)


def network_yml(net):
    def fmt(xs):
        return "[ " + ", ".join(xs) + " ]"
    return ("topology: " + fmt([d["block"] for d in net]) + "\n"
            "npus_count: " + fmt([str(d["npus"]) for d in net]) + "\n"
            "bandwidth: " + fmt([repr(astra_bandwidth(d["block"], d["npus"], d["bw_gbps"]))
                                  for d in net]) + "\n"
            "latency: " + fmt([repr(float(d["latency_ns"])) for d in net]) + "\n")


def system_json(net, coll, chunks, endpoint_delay):
    cfg = dict(SYSTEM_FIXED)
    cfg["endpoint-delay"] = endpoint_delay
    cfg["preferred-dataset-splits"] = chunks
    for c in COLLS:
        # every collective key must list one algorithm per dimension
        cfg[IMPL_KEY[c]] = [ALGO[d["block"]][c] for d in net]
    return cfg


# ---------------------------------------------------------------- recipe ---
HOPS = {"Ring": 1, "FullyConnected": 1, "Switch": 2}


def msg_time(dim, m, hops=None):
    """Analytical congestion-unaware backend: one message of m bytes."""
    bw_astra = astra_bandwidth(dim["block"], dim["npus"], dim["bw_gbps"])
    bpns = bw_astra * (1 << 30) / 1000000000          # NetworkFunction.cpp
    h = HOPS[dim["block"]] if hops is None else hops
    return int(h * float(dim["latency_ns"]) + m / bpns)  # truncation


def stage(dim, algo, kind, s, e):
    """(duration ns, output size) of one collective phase on one dimension,
    for one chunk whose input size at this phase is s bytes."""
    n = dim["npus"]
    if algo == "ring":
        if kind == "ReduceScatter":
            return (n - 1) * msg_time(dim, s // n) + n * e, s // n
        if kind == "AllGather":
            return (n - 1) * msg_time(dim, s) + n * e, s * n
        if kind == "AllReduce":
            return 2 * (n - 1) * msg_time(dim, s // n) + (2 * n - 1) * e, s
        k = n * (n - 1) // 2                                    # AllToAll
        return k * msg_time(dim, s // n) + (k + 1) * e, s
    if algo == "direct":                  # window n-1: all peers at once
        if kind == "ReduceScatter":
            return msg_time(dim, s // n) + 2 * e, s // n
        if kind == "AllGather":
            return msg_time(dim, s) + 2 * e, s * n
        if kind == "AllReduce":
            return 2 * msg_time(dim, s // n) + 3 * e, s
        return msg_time(dim, s // n) + 2 * e, s
    if algo == "direct1":                 # window 1: one peer after another
        if kind != "AllToAll":
            raise ValueError("direct1 only used for AllToAll here")
        if dim["block"] == "Ring":
            # peer j is min(j, n - j) hops away on the bidirectional ring
            return sum(msg_time(dim, s // n, min(j, n - j)) for j in range(1, n)) + n * e, s
        return (n - 1) * msg_time(dim, s // n) + n * e, s
    if algo == "halvingDoubling":
        k = int(math.log2(n))
        if kind == "ReduceScatter":
            msgs = [s >> (i + 1) for i in range(k)]
            out = s // n
        elif kind == "AllGather":
            msgs = [s << i for i in range(k)]
            out = s * n
        elif kind == "AllReduce":
            rs = [s >> (i + 1) for i in range(k)]
            msgs = rs + rs[::-1]
            out = s
        else:
            raise ValueError("halvingDoubling has no AllToAll")
        return sum(msg_time(dim, m) for m in msgs) + (len(msgs) + 1) * e, out
    raise ValueError(algo)


def phases(net, coll):
    """[(dim index, phase kind)] in the order ASTRA-sim runs them
    (Sys::generate_collective, localBWAware, ascending inter-dim order)."""
    D = len(net)
    if coll == "AllReduce":
        return ([(d, "ReduceScatter") for d in range(D - 1)] + [(D - 1, "AllReduce")] +
                [(d, "AllGather") for d in range(D - 2, -1, -1)])
    if coll == "AllGather":
        return [(d, "AllGather") for d in range(D - 1, -1, -1)]
    return [(d, coll) for d in range(D)]


def chunking(net, coll, size, chunks):
    """Sys::determine_chunk_size: chunk bytes and number of chunks."""
    total = 1
    for d in net:
        total *= d["npus"]
    chunk = size // chunks
    if coll != "AllGather" and total > chunk:
        chunk = total
        size = chunks * chunk
    return chunk, math.ceil(size / chunk)


def model_time(net, coll, size, chunks, endpoint_delay, return_detail=False):
    """Per-chunk per-stage schedule: one FIFO queue per dimension, one chunk
    active per queue; a chunk enters the next dimension's queue as soon as its
    phase there finishes.  Returns the finish time of the last chunk (ns)."""
    e = endpoint_delay
    chunk, nchunks = chunking(net, coll, size, chunks)
    plan = phases(net, coll)
    durs, s = [], chunk
    for d, kind in plan:
        p, s = stage(net[d], ALGO[net[d]["block"]][coll], kind, s, e)
        durs.append(p)
    # discrete-event schedule
    queue_free = {}                         # dim -> time it becomes free
    waiting = {d: [] for d, _ in plan}      # FIFO of (chunk, stage)
    busy = {d: False for d, _ in plan}
    events, seq = [], 0
    finish = 0

    def start(d, t):
        nonlocal seq
        if busy[d] or not waiting[d]:
            return
        c, k = waiting[d].pop(0)
        busy[d] = True
        heapq.heappush(events, (t + durs[k], seq, c, k))
        seq += 1

    for c in range(nchunks):
        waiting[plan[0][0]].append((c, 0))
    start(plan[0][0], 0)
    while events:
        t, _, c, k = heapq.heappop(events)
        d = plan[k][0]
        busy[d] = False
        if k + 1 < len(plan):
            waiting[plan[k + 1][0]].append((c, k + 1))
        else:
            finish = max(finish, t)
        start(d, t)
        if k + 1 < len(plan):
            start(plan[k + 1][0], t)
    if return_detail:
        return finish, durs, chunk, nchunks
    return finish


# ------------------------------------------------------------ LIBRA model ---
def libra_traffic(net, coll, size):
    """model.md section 4: V_d for every dimension (all dims used)."""
    V, s = [], float(size)
    if coll == "AllGather":
        V = [0.0] * len(net)
        for d in range(len(net) - 1, -1, -1):
            n = net[d]["npus"]
            V[d] = s * (n - 1)
            s *= n
        return V
    for d in net:
        n = d["npus"]
        if coll == "AllReduce":
            V.append(2 * s * (n - 1) / n)
            s /= n
        elif coll == "ReduceScatter":
            V.append(s * (n - 1) / n)
            s /= n
        else:
            V.append(size * (n - 1) / n)
    return V


def libra_time(net, coll, size):
    return max(v / d["bw_gbps"] for v, d in zip(libra_traffic(net, coll, size), net))


# ------------------------------------------------------------- data set ---
NETWORKS = [
    # (name, [(block, npus), ...]) innermost first
    ("R4-FC8", [("Ring", 4), ("FullyConnected", 8)]),
    ("FC8-S4", [("FullyConnected", 8), ("Switch", 4)]),
    ("S8-R4", [("Switch", 8), ("Ring", 4)]),
    ("R8-S16", [("Ring", 8), ("Switch", 16)]),
    ("FC6-R3", [("FullyConnected", 6), ("Ring", 3)]),
    ("S16-FC4", [("Switch", 16), ("FullyConnected", 4)]),
    ("R16-R4", [("Ring", 16), ("Ring", 4)]),
    ("R8-FC4-S8", [("Ring", 8), ("FullyConnected", 4), ("Switch", 8)]),
    ("FC4-S4-R4", [("FullyConnected", 4), ("Switch", 4), ("Ring", 4)]),
    ("S4-FC4-R8", [("Switch", 4), ("FullyConnected", 4), ("Ring", 8)]),
    ("R6-FC3-S4", [("Ring", 6), ("FullyConnected", 3), ("Switch", 4)]),
    ("S2-S4-S8", [("Switch", 2), ("Switch", 4), ("Switch", 8)]),
    ("R2-FC4-R4-S4", [("Ring", 2), ("FullyConnected", 4), ("Ring", 4), ("Switch", 4)]),
    ("FC4-R4-S4-S2", [("FullyConnected", 4), ("Ring", 4), ("Switch", 4), ("Switch", 2)]),
    ("R4-FC2-S8-R2", [("Ring", 4), ("FullyConnected", 2), ("Switch", 8), ("Ring", 2)]),
]
TOTAL_BW = 600.0                    # sum of per-NPU bw_d (GB/s, 1e9 B/s)
SIZES = [1 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, 1024 * MiB]
CHUNKS = [1, 4, 16, 64]
LATENCY_SETS = {2: [100, 700], 3: [20, 250, 700], 4: [20, 100, 400, 700]}


def split_bw(dims, coll, split, skew_dim):
    D = len(dims)
    if split == "equal":
        w = [1.0] * D
    elif split == "skewed":
        w = [10.0 if i == skew_dim else 1.0 for i in range(D)]
    else:  # optimized: proportional to the LIBRA traffic of this collective
        probe = [{"block": b, "npus": n, "bw_gbps": 1.0, "latency_ns": 0} for b, n in dims]
        w = libra_traffic(probe, coll, 1.0)
    tot = sum(w)
    return [round(TOTAL_BW * x / tot, 6) for x in w]


def make_net(dims, bws, lats):
    return [{"block": b, "npus": n, "bw_gbps": bw, "latency_ns": lat}
            for (b, n), bw, lat in zip(dims, bws, lats)]


def case_list(seed=2109):
    rng = random.Random(seed)
    cases = []
    for ni, (name, dims) in enumerate(NETWORKS):
        D = len(dims)
        skew = ni % D
        for coll in COLLS:
            for split in ("equal", "optimized", "skewed"):
                bws = split_bw(dims, coll, split, skew)
                combos = [(s, c) for s in SIZES for c in CHUNKS]
                # zero latency: 3 random (size, C) points plus two fixed ones
                keep = set(rng.sample(combos, 3))
                keep |= {(64 * MiB, 1), (1024 * MiB, 64)}
                for s, c in sorted(keep):
                    cases.append({"set": "zero-latency", "network_name": name,
                                  "network": make_net(dims, bws, [0] * D),
                                  "collective": coll, "size_bytes": s, "chunks": c,
                                  "endpoint_delay_ns": DEFAULT_ENDPOINT_DELAY})
            # realistic latencies (20-700 ns per dim): equal and optimized splits
            lats = LATENCY_SETS[D]
            for split in ("equal", "optimized"):
                bws = split_bw(dims, coll, split, skew)
                picks = [(1 * MiB, rng.choice(CHUNKS)), (16 * MiB, rng.choice(CHUNKS)),
                         (rng.choice([64 * MiB, 256 * MiB]), rng.choice(CHUNKS))]
                for s, c in picks:
                    cases.append({"set": "latency", "network_name": name,
                                  "network": make_net(dims, bws, lats),
                                  "collective": coll, "size_bytes": s, "chunks": c,
                                  "endpoint_delay_ns": DEFAULT_ENDPOINT_DELAY})
        # endpoint-delay 10 (ASTRA-sim's own default) on a few cases
        for coll in COLLS:
            bws = split_bw(dims, coll, "equal", skew)
            lats = LATENCY_SETS[D]
            for s, c in ((1 * MiB, 16), (64 * MiB, 4)):
                cases.append({"set": "endpoint-delay-10", "network_name": name,
                              "network": make_net(dims, bws, lats),
                              "collective": coll, "size_bytes": s, "chunks": c,
                              "endpoint_delay_ns": 10})
    # endpoint delays of 10 and 100 ns on every network and collective, at the
    # sizes where they matter (1 MiB in 16 and 64 chunks) and where they do not
    # (64 and 256 MiB), with the latency set: the check of the model's endpoint
    # delay (docs/collective-model.md section 3). No random draws, so the cases
    # above keep their order and values.
    for name, dims in NETWORKS:
        D = len(dims)
        for coll in COLLS:
            bws = split_bw(dims, coll, "optimized", 0)
            for e in (10, 100):
                for s, c in ((1 * MiB, 16), (1 * MiB, 64), (64 * MiB, 16), (256 * MiB, 64)):
                    cases.append({"set": "endpoint-delay-sweep", "network_name": name,
                                  "network": make_net(dims, bws, LATENCY_SETS[D]),
                                  "collective": coll, "size_bytes": s, "chunks": c,
                                  "endpoint_delay_ns": e})
    return cases


# -------------------------------------------------------------- running ---
class Runner:
    def __init__(self, work=None):
        self.bin = os.environ.get("ASTRA_SIM_BIN")
        self.src = os.environ.get("ASTRA_SIM_SRC")
        self.py = os.environ.get("ASTRA_SIM_PYTHON", "/usr/bin/python3")
        if not self.bin or not os.access(self.bin, os.X_OK):
            sys.exit("set ASTRA_SIM_BIN to the built AstraSim_Analytical_Congestion_Unaware")
        if not self.src or not os.path.isdir(self.src):
            sys.exit("set ASTRA_SIM_SRC to the ASTRA-sim source tree")
        self.work = work or os.environ.get("ASTRA_SIM_WORK") or tempfile.mkdtemp(prefix="astra-val-")
        os.makedirs(self.work, exist_ok=True)
        with open(os.path.join(self.work, "remote_memory.json"), "w") as f:
            json.dump({"memory-type": "NO_MEMORY_EXPANSION"}, f)

    def trace(self, coll, npus, size):
        """Chakra ET prefix made by ASTRA-sim's microbenchmark generator."""
        if size % MiB:
            raise ValueError("the generator takes whole MiB")
        mb = size // MiB
        name = GEN_NAME[coll]
        et_dir = os.path.join(self.work, "et")
        prefix = os.path.join(et_dir, name, "%dnpus_%dMB" % (npus, mb), name)
        if not os.path.exists(prefix + ".%d.et" % (npus - 1)):
            os.makedirs(et_dir, exist_ok=True)
            script = os.path.join(self.src, "examples", "workload", "microbenchmarks",
                                  "generator_scripts", name + ".py")
            env = dict(os.environ, PYTHONPATH=self.src)
            subprocess.run([self.py, script, "--npus-count", str(npus), "--coll-size", str(mb)],
                           cwd=et_dir, env=env, check=True, stdout=subprocess.DEVNULL)
        return prefix

    def run(self, case):
        net = case["network"]
        npus = 1
        for d in net:
            npus *= d["npus"]
        prefix = self.trace(case["collective"], npus, case["size_bytes"])
        net_path = os.path.join(self.work, "network.yml")
        sys_path = os.path.join(self.work, "system.json")
        with open(net_path, "w") as f:
            f.write(network_yml(net))
        with open(sys_path, "w") as f:
            json.dump(system_json(net, case["collective"], case["chunks"],
                                  case["endpoint_delay_ns"]), f, indent=1)
        cmd = [self.bin, "--workload-configuration=" + prefix,
               "--system-configuration=" + sys_path,
               "--remote-memory-configuration=" + os.path.join(self.work, "remote_memory.json"),
               "--network-configuration=" + net_path,
               "--num-queues-per-dim=%d" % NUM_QUEUES_PER_DIM,
               "--logging-folder=" + os.path.join(self.work, "log")]
        p = subprocess.run(cmd, cwd=self.work, capture_output=True, text=True)
        times = [int(x) for x in re.findall(r"sys\[\d+\] finished, (\d+) cycles", p.stdout)]
        if p.returncode != 0 or len(times) != npus:
            raise RuntimeError("simulator failed (rc %d): %s" % (p.returncode,
                                                                  (p.stdout + p.stderr)[-2000:]))
        return max(times), min(times)


def describe(case):
    net = ",".join("%s:%d:%g:%g" % (d["block"], d["npus"], d["bw_gbps"], d["latency_ns"])
                   for d in case["network"])
    return "%s %s %d C=%d e=%d" % (net, case["collective"], case["size_bytes"],
                                  case["chunks"], case["endpoint_delay_ns"])


def astra_commit():
    src = os.environ.get("ASTRA_SIM_SRC", "")
    info = os.environ.get("ASTRA_SIM_COMMITS")  # free text, recorded as given
    return info or src


def case_key(case):
    return json.dumps([case["network"], case["collective"], case["size_bytes"],
                       case["chunks"], case["endpoint_delay_ns"]], sort_keys=True)


def cmd_generate(args):
    r = Runner()
    cases = case_list()
    # --reuse FILE: a case that FILE holds (same network, collective, size, chunks
    # and endpoint delay) keeps its simulated time instead of running again (the
    # simulator is deterministic; only for a FILE made by the same build).
    known = {}
    if args.reuse:
        with open(args.reuse) as f:
            for c in json.load(f)["cases"]:
                known[case_key(c)] = c
    reused = 0
    t0 = time.time()
    out = []
    for i, case in enumerate(cases):
        c0 = time.time()
        old = known.get(case_key(case))
        if old is not None:
            row = dict(case)
            for k in ("astra_bandwidth", "sim_time_ns", "sim_time_ns_min_over_npus", "wall_s"):
                if k in old:
                    row[k] = old[k]
            out.append(row)
            reused += 1
            continue
        tmax, tmin = r.run(case)
        row = dict(case)
        row["astra_bandwidth"] = [astra_bandwidth(d["block"], d["npus"], d["bw_gbps"])
                                  for d in case["network"]]
        row["sim_time_ns"] = tmax
        if tmin != tmax:
            row["sim_time_ns_min_over_npus"] = tmin
        row["wall_s"] = round(time.time() - c0, 3)
        out.append(row)
        if (i + 1) % 50 == 0:
            print("%d/%d cases, %.0f s" % (i + 1, len(cases), time.time() - t0), file=sys.stderr)
    meta = metadata()
    meta["generation_wall_s"] = round(time.time() - t0, 1)
    meta["case_count"] = len(out)
    if args.reuse:
        meta["reused_cases"] = reused
    with open(args.output, "w") as f:
        json.dump({"metadata": meta, "cases": out}, f, separators=(",", ":"))
        f.write("\n")
    print("wrote %s: %d cases (%d reused) in %.0f s" % (args.output, len(out), reused,
                                                      time.time() - t0))


def metadata():
    return {
        "description": "ASTRA-sim 2 (analytical, congestion-unaware backend) simulated time of "
                       "single collectives; see README.md",
        "astra_sim": os.environ.get("ASTRA_SIM_COMMITS", ""),
        "units": {"bw_gbps": "our per-NPU bandwidth of the dimension, 1 GB = 1e9 B",
                  "latency_ns": "ASTRA-sim per-link latency of the dimension (ns)",
                  "size_bytes": "comm_size of the Chakra node: the full buffer for "
                                "AllReduce/ReduceScatter/AllToAll; for AllGather the per-NPU "
                                "shard entering the first processed (outermost) dimension, "
                                "the result is size_bytes * total NPUs",
                  "astra_bandwidth": "the bandwidth list written to the network yml "
                                     "(ASTRA-sim GB/s of one link, 1 GB = 2^30 B)",
                  "sim_time_ns": "max over NPUs of 'sys[i] finished, X cycles' (1 cycle = 1 ns)"},
        "system_configuration": dict(SYSTEM_FIXED, **{
            "endpoint-delay": "per case: endpoint_delay_ns",
            "preferred-dataset-splits": "per case: chunks",
            "*-implementation": "one per dimension, by block: %s" % json.dumps(ALGO)}),
        "command_line": {"num-queues-per-dim": NUM_QUEUES_PER_DIM,
                         "remote-memory-configuration": {"memory-type": "NO_MEMORY_EXPANSION"}},
        "network_file": "topology/npus_count/latency per dim; bandwidth = link bytes/s / 2^30 "
                        "with link bytes/s = bw_gbps*1e9 (Ring, Switch) or "
                        "bw_gbps*1e9/(npus-1) (FullyConnected)",
        "splits": {"total_bw_gbps": TOTAL_BW, "equal": "TOTAL/D each",
                   "optimized": "bw_d proportional to LIBRA V_d of the collective",
                   "skewed": "dimension (network index mod D) gets 10x the others"},
    }


def stats(xs):
    if not xs:
        return "none"
    xs = sorted(xs)
    return "n=%d median=%.4f%% p90=%.4f%% max=%.4f%%" % (
        len(xs), 100 * statistics.median(xs), 100 * xs[int(0.9 * (len(xs) - 1))], 100 * xs[-1])


def cmd_check(args):
    with open(args.file) as f:
        data = json.load(f)
    big, small, lib_big = [], [], []
    worst = []
    for c in data["cases"]:
        m = model_time(c["network"], c["collective"], c["size_bytes"], c["chunks"],
                       c["endpoint_delay_ns"])
        err = abs(m - c["sim_time_ns"]) / c["sim_time_ns"]
        (big if c["size_bytes"] >= 64 * MiB else small).append(err)
        worst.append((err, describe(c), c["sim_time_ns"], m))
        if c["size_bytes"] >= 64 * MiB and c["set"] == "zero-latency" and c["chunks"] >= 1:
            lib_big.append(abs(libra_time(c["network"], c["collective"], c["size_bytes"])
                               - c["sim_time_ns"]) / c["sim_time_ns"])
    print("recipe vs simulator, size >= 64 MiB:", stats(big))
    print("recipe vs simulator, size <  64 MiB:", stats(small))
    print("LIBRA max(V/bw) vs simulator, zero latency, >= 64 MiB:", stats(lib_big))
    worst.sort(reverse=True)
    for w in worst[:args.worst]:
        print("  %.5f%%  %s  sim=%d model=%d" % (100 * w[0], w[1], w[2], w[3]))
    exact = sum(1 for w in worst if w[2] == w[3])
    print("exact matches: %d of %d" % (exact, len(worst)))
    return 0 if (not big or max(big) < 0.01) else 1


def parse_net(text, lats):
    net = []
    for i, part in enumerate(text.split(",")):
        b, n, bw = part.split(":")[:3]
        net.append({"block": b, "npus": int(n), "bw_gbps": float(bw),
                    "latency_ns": float(lats[i]) if lats else 0.0})
    return net


def cmd_run(args):
    lats = args.lat.split(",") if args.lat else None
    case = {"network": parse_net(args.network, lats), "collective": args.collective,
            "size_bytes": args.size, "chunks": args.chunks,
            "endpoint_delay_ns": args.endpoint_delay}
    tmax, tmin = Runner().run(case)
    m, durs, chunk, nch = model_time(case["network"], case["collective"], case["size_bytes"],
                                     case["chunks"], case["endpoint_delay_ns"], True)
    print("sim %d ns (min over NPUs %d); recipe %d ns; stages %s; chunk %d x %d; LIBRA %.0f ns"
          % (tmax, tmin, m, durs, chunk, nch,
             libra_time(case["network"], case["collective"], case["size_bytes"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("-o", "--output", default=DEFAULT_OUT)
    g.add_argument("--reuse", help="an earlier data set of the same build: its cases are "
                   "not run again")
    c = sub.add_parser("check")
    c.add_argument("file", nargs="?", default=DEFAULT_OUT)
    c.add_argument("--worst", type=int, default=10)
    r = sub.add_parser("run")
    r.add_argument("network", help="block:npus:bw_gbps,... innermost first")
    r.add_argument("collective", choices=COLLS)
    r.add_argument("size", type=int)
    r.add_argument("chunks", type=int)
    r.add_argument("--lat", help="latency_ns per dim, comma separated")
    r.add_argument("--endpoint-delay", type=int, default=DEFAULT_ENDPOINT_DELAY)
    l = sub.add_parser("list")
    args = ap.parse_args()
    if args.cmd == "generate":
        cmd_generate(args)
    elif args.cmd == "check":
        sys.exit(cmd_check(args))
    elif args.cmd == "run":
        cmd_run(args)
    else:
        cs = case_list()
        print(len(cs), "cases")


if __name__ == "__main__":
    main()
