#!/usr/bin/env python3
"""Whole-workload check of the bandwidth splits: tests/data/astra-sim/workloads.json.

For the LIBRA reference problems (3d and 4d network x GPT_3, MSFT_1T,
Turing_NLG, ResNet_50, with their communicators and cost models, Sum bw == 500,
objective performance) this script
  1. imports each problem with `libra import-libra`,
  2. takes the split LIBRA's ideal model optimizes (`solve --chunks ideal`), the
     split the chunked model optimizes at C (`solve --chunks C`) and the equal
     split (500 / D each), for C in 4, 16, 64,
  3. predicts the iteration time of every split at C (`evaluate --chunks C`),
  4. simulates it with an ALREADY BUILT ASTRA-sim 2 (analytical,
     congestion-unaware): every distinct collective of the workload once, on
     the sub-network of the dimensions it uses, with the configuration of
     astra_validation.py; the no-overlap training loop makes the iteration
     time compute + sum over collectives of count x time.
It does not build ASTRA-sim.  Python 3 standard library plus what
astra_validation.py uses (whose functions it imports).

Environment (for `generate`), as astra_validation.py:
  ASTRA_SIM_BIN, ASTRA_SIM_SRC, ASTRA_SIM_PYTHON, ASTRA_SIM_COMMITS (free text
  recorded in the metadata), ASTRA_SIM_WORK (scratch directory; traces and a
  cache of simulator runs are kept there, so a second `generate` resumes)

Commands:
  generate --libra PATH --reference DIR [-o FILE] [--chunks 4,16,64]
           [--latency NS] [--only NAME ...]
      run everything and write workloads.json (default: next to this script);
      --latency NS adds a second set with NS ns on every link (solved,
      evaluated and simulated with that latency)
      --cached-only runs no simulation (times from the cache in ASTRA_SIM_WORK;
      sets missing from it are recorded as not simulated)
  table [FILE]
      print the markdown tables of a workloads.json
  check [FILE]
      worst relative error of the model (libra evaluate) against the simulator
"""

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import astra_validation as av  # noqa: E402  (same configuration, same runner)

DEFAULT_OUT = os.path.join(HERE, "workloads.json")
TOTAL_BW = 500.0
CHUNKS = [4, 16, 64]
NETWORKS = ["3d", "4d"]
WORKLOADS = ["GPT_3", "MSFT_1T", "Turing_NLG", "ResNet_50"]
PHASES = ["forward", "input_grad", "weight_grad"]
COLL_NAME = {"AllReduce": "AllReduce", "ReduceScatter": "ReduceScatter",
             "AllGather": "AllGather", "AllToAll": "AllToAll"}

# Chakra trace of one collective with an exact byte size.  ASTRA-sim's
# microbenchmark generators take whole MiB; this writes the same messages
# (GlobalMetadata 0.0.4, one COMM_COLL_NODE per NPU with is_cpu_op, comm_type,
# comm_size; node id = NPU index, as the generators do) with any size.  Run
# by ASTRA_SIM_PYTHON with PYTHONPATH = ASTRA_SIM_SRC.
TRACE_WRITER = r"""
import os, sys
from extern.graph_frontend.chakra.schema.protobuf import et_def_pb2 as pb
from extern.graph_frontend.chakra.src.third_party.utils.protolib import encodeMessage
out, gen_name, comm_type, npus, size, node_name = sys.argv[1:7]
npus, size = int(npus), int(size)
os.makedirs(os.path.dirname(out), exist_ok=True)
for npu in range(npus):
    with open("%s.%d.et" % (out, npu), "wb") as et:
        encodeMessage(et, pb.GlobalMetadata(version="0.0.4"))
        node = pb.Node()
        node.id = npu
        node.name = node_name
        node.type = pb.COMM_COLL_NODE
        node.attr.append(pb.AttributeProto(name="is_cpu_op", bool_val=False))
        node.attr.append(pb.AttributeProto(name="comm_type", int64_val=getattr(pb, comm_type)))
        node.attr.append(pb.AttributeProto(name="comm_size", int64_val=size))
        encodeMessage(et, node)
"""
COMM_TYPE = {"AllReduce": "ALL_REDUCE", "ReduceScatter": "REDUCE_SCATTER",
             "AllGather": "ALL_GATHER", "AllToAll": "ALL_TO_ALL"}


class Runner(av.Runner):
    """astra_validation's runner; traces of any byte size (whole MiB: the
    simulator's own generator, as in validation.json)."""

    def trace(self, coll, npus, size):
        if size % av.MiB == 0:
            return super().trace(coll, npus, size)
        name = av.GEN_NAME[coll]
        prefix = os.path.join(self.work, "et", name, "%dnpus_%dB" % (npus, size), name)
        if not os.path.exists(prefix + ".%d.et" % (npus - 1)):
            self._write(prefix, coll, npus, size, "%s_%dnpus_%dB" % (name, npus, size))
        return prefix

    def _write(self, prefix, coll, npus, size, node_name):
        env = dict(os.environ, PYTHONPATH=self.src)
        subprocess.run([self.py, "-c", TRACE_WRITER, prefix, av.GEN_NAME[coll], COMM_TYPE[coll],
                        str(npus), str(size), node_name], env=env, check=True)

    def writer_matches_generator(self):
        """The writer's bytes equal the generator's for a whole-MiB size."""
        ok = True
        for coll in av.COLLS:
            gen = super().trace(coll, 4, av.MiB)
            name = av.GEN_NAME[coll]
            mine = os.path.join(self.work, "writer-check", name, name)
            self._write(mine, coll, 4, av.MiB, "%s_4npus_1MB" % name)
            for npu in range(4):
                with open("%s.%d.et" % (gen, npu), "rb") as a, open("%s.%d.et" % (mine, npu), "rb") as b:
                    ok = ok and a.read() == b.read()
        return ok


# ------------------------------------------------------------------ libra ---
class Libra:
    def __init__(self, exe, reference, work):
        self.exe, self.reference, self.work = exe, reference, work
        self.commands = []

    def portable(self, args):
        """The command with $LIBRA, $REF, $WORK for the machine's paths."""
        out = []
        for a in args:
            for path, var in ((self.exe, "$LIBRA"), (self.reference, "$REF"), (self.work, "$WORK")):
                if a.startswith(path):
                    a = var + a[len(path):]
                    break
            out.append(a)
        return " ".join(shlex.quote(a) if not a.startswith("$") else a for a in out)

    def run(self, args, record=True):
        p = subprocess.run([self.exe] + args, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("libra %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
        if record:
            self.commands.append(self.portable(["libra"] + args))
        return p.stdout

    def json(self, args, record=True):
        return json.loads(self.run(args + ["--json"], record))


def bw_arg(bws):
    return "--bandwidth=" + ",".join(repr(float(b)) for b in bws)


def lat_args(lat):
    return ["--latency", repr(float(lat))] if lat else []


def communicator_file(reference, workload, net):
    for n in (net, net.upper()):
        rel = "communicator/%s_%s.yml" % (workload, n)
        if os.path.exists(os.path.join(reference, rel)):
            return rel
    raise FileNotFoundError("no communicator for %s on %s" % (workload, net))


def distinct_collectives(project):
    """[(collective, size, groups, count, phases)] of the project's workload,
    counted per iteration of the no-overlap loop; collectives whose groups are
    all 1 move nothing and are dropped."""
    if project.get("training_loop", "no-overlap") != "no-overlap":
        raise ValueError("only the no-overlap training loop is summed here")
    (w,) = project["workloads"]
    seen = {}
    for layer in w["layers"]:
        for ph in PHASES:
            p = layer[ph]
            coll = p["collective"]
            if coll in ("None", "NONE") or p["size_bytes"] == 0:
                continue
            groups = tuple(p.get("groups", w["communicator"][ph]))
            if all(g == 1 for g in groups):
                continue
            key = (COLL_NAME[coll], int(p["size_bytes"]), groups)
            entry = seen.setdefault(key, {"count": 0, "phases": set()})
            entry["count"] += 1
            entry["phases"].add(ph)
    return [{"collective": k[0], "size_bytes": k[1], "groups": list(k[2]),
             "count": v["count"], "phases": sorted(v["phases"])} for k, v in seen.items()]


def one_collective_project(project, coll):
    """The project with one layer holding only this collective (compute 0):
    `evaluate` on it gives the model's time of that one collective."""
    p = json.loads(json.dumps(project))
    w = p["workloads"][0]
    none = {"compute_ns": 0, "collective": "None", "size_bytes": 0}
    w["communicator"] = {ph: list(coll["groups"]) for ph in PHASES}
    w["layers"] = [{"name": "one", "forward": {"compute_ns": 0, "collective": coll["collective"],
                                                "size_bytes": coll["size_bytes"]},
                    "input_grad": dict(none), "weight_grad": dict(none), "update_ns": 0}]
    return p


# -------------------------------------------------------------- generate ---
class SimCache:
    def __init__(self, path):
        self.path = path
        self.data = {}
        if os.path.exists(path):
            with open(path) as f:
                self.data = json.load(f)

        self.used = set()          # the runs this generation needed
        self.cached_only = False   # --cached-only: never run the simulator

    def get(self, key):
        if key in self.data:
            self.used.add(key)
        return self.data.get(key)

    def put(self, key, value):
        self.data[key] = value
        self.used.add(key)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f)
        os.replace(tmp, self.path)


def simulate(runner, cache, net, coll, chunks, log):
    """Simulated time (ns) of one collective on the sub-network `net`."""
    case = {"network": net, "collective": coll["collective"], "size_bytes": coll["size_bytes"],
            "chunks": chunks, "endpoint_delay_ns": av.DEFAULT_ENDPOINT_DELAY}
    key = json.dumps(case, sort_keys=True)
    hit = cache.get(key)
    if hit is None and cache.cached_only:
        return None, None
    if hit is None:
        t0 = time.time()
        tmax, tmin = runner.run(case)
        hit = {"sim_time_ns": tmax, "sim_time_ns_min_over_npus": tmin,
               "wall_s": round(time.time() - t0, 2)}
        cache.put(key, hit)
        log("    sim %s: %d ns, %.1f s" % (av.describe(case), tmax, hit["wall_s"]))
    recipe = av.model_time(net, coll["collective"], coll["size_bytes"], chunks,
                           av.DEFAULT_ENDPOINT_DELAY)
    return hit, recipe


def problem(libra, runner, cache, net_name, workload, chunk_list, latency, log):
    ref = libra.reference
    name = "%s %s" % (workload, net_name)
    inputs = {"network": "network/%s_network.yml" % net_name,
              "workload": "workload/%s.txt" % workload,
              "communicator": communicator_file(ref, workload, net_name),
              "cost_model": "cost_model/%s_cost_model.yml" % net_name}
    proj_path = os.path.join(libra.work, "%s_%s.json" % (workload, net_name))
    start = len(libra.commands)
    libra.run(["import-libra"] + sum([["--" + k.replace("_", "-"), os.path.join(ref, v)]
                                      for k, v in inputs.items()], []) +
              ["--constraint", "total == %g" % TOTAL_BW, "--objective", "performance",
               "-o", proj_path])
    with open(proj_path) as f:
        project = json.load(f)
    dims = project["network"]["dimensions"]
    D = len(dims)
    colls = distinct_collectives(project)
    reasons = []
    for c in colls:
        used = [d for d, g in enumerate(c["groups"]) if g > 1]
        c["dims"] = used
        for d in used:
            if c["groups"][d] != dims[d]["npus"]:
                reasons.append("%s of %d B uses %d of the %d NPUs of dimension %d (%s)"
                               % (c["collective"], c["size_bytes"], c["groups"][d],
                                  dims[d]["npus"], d, dims[d]["block"]))
    simulable = not reasons

    ideal = libra.json(["solve", proj_path, "--chunks", "ideal"])
    equal = [TOTAL_BW / D] * D
    out = {"name": name, "network": net_name, "workload": workload, "inputs": inputs,
           "dimensions": [{k: d[k] for k in ("name", "block", "npus")} for d in dims],
           "training_loop": project.get("training_loop", "no-overlap"),
           "collectives": [{k: c[k] for k in ("collective", "size_bytes", "groups", "dims",
                                              "count", "phases")} for c in colls],
           "simulated": simulable,
           "not_simulated_reason": ("partial groups, which whole-dimension microbenchmarks "
                                    "cannot simulate: " + "; ".join(reasons)) if reasons else None,
           "libra_ideal": {"bandwidth_gbps": ideal["bandwidth_gbps"],
                           "iteration_time_ns": ideal["iteration_time_ns"],
                           "equal_iteration_time_ns": ideal["equal_split"]["iteration_time_ns"],
                           "speedup": ideal["equal_split"]["iteration_time_ns"] /
                           ideal["iteration_time_ns"],
                           "communication_speedup":
                           ideal["equal_split"]["communication_time_ns"] /
                           ideal["communication_time_ns"]},
           "sets": []}
    log("%s: LIBRA speed-up %.4f, %d distinct collectives%s" % (
        name, out["libra_ideal"]["speedup"], len(colls), "" if simulable else " (not simulated)"))

    lats = [0.0] + ([float(latency)] if latency else [])
    for lat in lats:
        for C in chunk_list:
            opt = libra.json(["solve", proj_path, "--chunks", str(C)] + lat_args(lat))
            splits = {"libra": ideal["bandwidth_gbps"], "model": opt["bandwidth_gbps"],
                      "equal": equal}
            s_out = {"chunks": C, "latency_ns": lat, "splits": {}}
            set_simulated = simulable
            for sname, bws in splits.items():
                ev = libra.json(["evaluate", proj_path, bw_arg(bws), "--chunks", str(C)] +
                                lat_args(lat))
                entry = {"bandwidth_gbps": list(bws),
                         "predicted_iteration_time_ns": ev["iteration_time_ns"],
                         "compute_time_ns": ev["compute_time_ns"], "collectives": []}
                pred_sum = ev["compute_time_ns"]
                sim_sum = ev["compute_time_ns"] if simulable else None
                for i, c in enumerate(colls):
                    one_path = os.path.join(libra.work, "%s_%s_coll%d.json" % (workload, net_name, i))
                    with open(one_path, "w") as f:
                        json.dump(one_collective_project(project, c), f)
                    one = libra.json(["evaluate", one_path, bw_arg(bws), "--chunks", str(C)] +
                                     lat_args(lat), record=False)
                    ce = {"index": i, "count": c["count"],
                          "predicted_ns": one["iteration_time_ns"]}
                    pred_sum += c["count"] * one["iteration_time_ns"]
                    if simulable:
                        net = [{"block": dims[d]["block"], "npus": dims[d]["npus"],
                                "bw_gbps": float(bws[d]), "latency_ns": lat} for d in c["dims"]]
                        hit, recipe = simulate(runner, cache, net, c, C, log)
                        if hit is None:        # --cached-only and never simulated
                            set_simulated = False
                            entry["collectives"].append(ce)
                            continue
                        ce.update({"simulated_ns": hit["sim_time_ns"], "recipe_ns": recipe,
                                   "sim_wall_s": hit["wall_s"],
                                   "astra_bandwidth": [av.astra_bandwidth(n["block"], n["npus"],
                                                                          n["bw_gbps"]) for n in net]})
                        if hit["sim_time_ns_min_over_npus"] != hit["sim_time_ns"]:
                            ce["simulated_ns_min_over_npus"] = hit["sim_time_ns_min_over_npus"]
                        sim_sum += c["count"] * hit["sim_time_ns"]
                    entry["collectives"].append(ce)
                # the per-collective predictions add up to evaluate's time
                entry["sum_of_predicted_collectives_ns"] = pred_sum
                entry["simulated_iteration_time_ns"] = sim_sum
                s_out["splits"][sname] = entry
            s_out["simulated"] = set_simulated
            if simulable and not set_simulated:
                s_out["not_simulated_reason"] = ("not simulated in this generation (time "
                                                 "budget); `generate` without --cached-only "
                                                 "runs it")
                for entry in s_out["splits"].values():
                    entry["simulated_iteration_time_ns"] = None
            sp = s_out["splits"]
            s_out["predicted_speedup"] = {
                k: sp["equal"]["predicted_iteration_time_ns"] / sp[k]["predicted_iteration_time_ns"]
                for k in ("libra", "model")}
            s_out["predicted_communication_speedup"] = {
                k: comm(sp["equal"], "predicted") / comm(sp[k], "predicted")
                for k in ("libra", "model")}
            if set_simulated:
                s_out["simulated_speedup"] = {
                    k: sp["equal"]["simulated_iteration_time_ns"] / sp[k]["simulated_iteration_time_ns"]
                    for k in ("libra", "model")}
                s_out["simulated_communication_speedup"] = {
                    k: comm(sp["equal"], "simulated") / comm(sp[k], "simulated")
                    for k in ("libra", "model")}
            out["sets"].append(s_out)
            log("  C=%d latency=%g: predicted %s simulated %s" % (
                C, lat, fmt_sp(s_out["predicted_speedup"]), fmt_sp(s_out.get("simulated_speedup"))))
    out["commands"] = libra.commands[start:]
    return out


def comm(entry, kind):
    """Communication time (iteration time - compute) of a split entry."""
    return entry["%s_iteration_time_ns" % kind] - entry["compute_time_ns"]


def fmt_sp(d):
    if not d:
        return "-"
    return " ".join("%s %.4f" % (k, v) for k, v in d.items())


def cmd_generate(args):
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    work = os.environ.get("ASTRA_SIM_WORK") or tempfile.mkdtemp(prefix="astra-wl-")
    os.makedirs(work, exist_ok=True)
    runner = Runner(work)
    writer_ok = runner.writer_matches_generator()
    if not writer_ok:
        sys.exit("the trace writer's output differs from ASTRA-sim's generator")
    libra_exe = os.path.abspath(args.libra)
    reference = os.path.abspath(args.reference)
    libra = Libra(libra_exe, reference, work)
    cache = SimCache(os.path.join(work, "sim-cache.json"))
    cache.cached_only = args.cached_only
    chunk_list = [int(c) for c in args.chunks.split(",")]
    t0 = time.time()
    problems = []
    for net in NETWORKS:
        for wl in WORKLOADS:
            name = "%s %s" % (wl, net)
            if args.only and name not in args.only and wl not in args.only:
                continue
            problems.append(problem(libra, runner, cache, net, wl, chunk_list, args.latency, log))
    version = libra.run(["--version"], record=False).strip()
    meta = {
        "description": "Predicted and ASTRA-sim 2 simulated iteration times of the LIBRA reference "
                       "problems for LIBRA's optimized split, this model's optimized split at C "
                       "chunks and the equal split; see README.md",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "astra_sim": os.environ.get("ASTRA_SIM_COMMITS", ""),
        "libra_version": version,
        "total_bw_gbps": TOTAL_BW,
        "chunks": chunk_list,
        "latency_sets_ns": [0.0] + ([float(args.latency)] if args.latency else []),
        "endpoint_delay_ns": av.DEFAULT_ENDPOINT_DELAY,
        "simulator_configuration": "astra_validation.py: system file %s with "
                                   "preferred-dataset-splits = C and endpoint-delay %d, "
                                   "*-implementation by block %s, --num-queues-per-dim=%d, "
                                   "NO_MEMORY_EXPANSION; network yml bandwidth as in "
                                   "validation.json" % (json.dumps(av.SYSTEM_FIXED),
                                                        av.DEFAULT_ENDPOINT_DELAY,
                                                        json.dumps(av.ALGO),
                                                        av.NUM_QUEUES_PER_DIM),
        "traces": "ASTRA-sim's microbenchmark generator for whole-MiB sizes; otherwise this "
                  "script's writer of the same Chakra nodes (byte-identical to the generator "
                  "for whole MiB: checked at every generate)",
        "method": "simulated iteration time = compute_time_ns (libra evaluate) + sum over the "
                  "distinct collectives of count x the simulated time of that collective alone "
                  "on the sub-network of the dimensions it uses (group size > 1, each group the "
                  "whole dimension), with the split's bandwidths of those dimensions; the "
                  "no-overlap training loop runs collectives one after another",
        "splits": {"libra": "libra solve --chunks ideal (LIBRA's model)",
                   "model": "libra solve --chunks C [--latency L]: this model's optimum at C",
                   "equal": "total / D on every dimension"},
        "speedup": "equal split's time / the split's time, each at the same C and latency",
        "units": {"*_ns": "ns", "bandwidth_gbps": "GB/s per NPU per dimension, 1 GB = 1e9 B",
                  "astra_bandwidth": "bandwidth written to the network yml (GB/s of one link, "
                                     "1 GB = 2^30 B)"},
        "command": "python3 astra_workloads.py generate --libra $LIBRA --reference $REF "
                   "--chunks %s%s%s" % (args.chunks, " --latency %g" % args.latency
                                        if args.latency else "",
                                        " --cached-only" if args.cached_only else ""),
        "simulator_runs": len(cache.used),
        "simulator_wall_s_sum": round(sum(cache.data[k]["wall_s"] for k in cache.used), 1),
        "generation_wall_s": round(time.time() - t0, 1),
        "cached_only": args.cached_only,
        "not_simulated_sets": ["%s C=%d latency=%g" % (p["name"], s["chunks"], s["latency_ns"])
                               for p in problems if p["simulated"]
                               for s in p["sets"] if not s["simulated"]],
    }
    if args.note:
        meta["generation_note"] = args.note
    with open(args.output, "w") as f:
        json.dump({"metadata": meta, "problems": problems}, f, indent=1)
        f.write("\n")
    log("wrote %s in %.0f s" % (args.output, time.time() - t0))


# ----------------------------------------------------------------- table ---
def fmt_speedup(total, comm_sp):
    return "%.3f (%.2f)" % (total, comm_sp)


def speedup_table(data, lat):
    """Markdown rows: one per simulable problem and C."""
    hdr = ["problem", "C", "LIBRA predicts (ideal model)", "this model predicts (its split at C)",
           "simulator, LIBRA's split", "simulator, this model's split"]
    lines = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for p in data["problems"]:
        li = p["libra_ideal"]
        libra_cell = fmt_speedup(li["speedup"], li.get("communication_speedup", float("nan")))
        for s in p["sets"]:
            if s["latency_ns"] != lat:
                continue
            row = [p["name"], str(s["chunks"]), libra_cell,
                   fmt_speedup(s["predicted_speedup"]["model"],
                               s["predicted_communication_speedup"]["model"])]
            if s["simulated"]:
                row += [fmt_speedup(s["simulated_speedup"][k],
                                    s["simulated_communication_speedup"][k])
                        for k in ("libra", "model")]
            elif not p["simulated"]:
                row += ["not simulable (partial groups)"] * 2
            else:
                row += ["not run (time budget)"] * 2
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def cmd_table(args):
    with open(args.file) as f:
        data = json.load(f)
    for lat in data["metadata"]["latency_sets_ns"]:
        print("Speed-up of the optimized split over the equal split, %s "
              "(iteration time, communication time in parentheses):" % (
                  "zero link latency" if not lat else "%g ns on every link" % lat))
        print()
        print(speedup_table(data, lat))
        print()
    for p in data["problems"]:
        if not p["simulated"]:
            print("%s is not simulated: %s." % (p["name"], p["not_simulated_reason"]))
    for name in data["metadata"].get("not_simulated_sets", []):
        print("not simulated (time budget): %s" % name)


def cmd_check(args):
    """Model (libra evaluate) against the simulator: worst relative errors."""
    with open(args.file) as f:
        data = json.load(f)
    worst = {"iteration": (0.0, ""), "communication": (0.0, ""), "collective": (0.0, ""),
             "recipe": (0.0, "")}

    def note(kind, err, what):
        if err > worst[kind][0]:
            worst[kind] = (err, what)

    for p in data["problems"]:
        for s in p["sets"]:
            if not s["simulated"]:
                continue
            for sname, e in s["splits"].items():
                what = "%s C=%d latency=%g %s split" % (p["name"], s["chunks"], s["latency_ns"],
                                                       sname)
                sim, pred = e["simulated_iteration_time_ns"], e["predicted_iteration_time_ns"]
                note("iteration", abs(pred / sim - 1), what)
                note("communication", abs((pred - e["compute_time_ns"]) /
                                          (sim - e["compute_time_ns"]) - 1), what)
                for c in e["collectives"]:
                    note("collective", abs(c["predicted_ns"] / c["simulated_ns"] - 1),
                         what + " collective %d" % c["index"])
                    note("recipe", abs(c["recipe_ns"] / c["simulated_ns"] - 1),
                         what + " collective %d" % c["index"])
    for kind, (err, what) in worst.items():
        print("worst |%s/simulator - 1| %-13s %.3e  (%s)" % (
            "recipe" if kind == "recipe" else "model", kind, err, what or "every case exact"))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--libra", required=True, help="the built libra executable")
    g.add_argument("--reference", required=True, help="the LIBRA reference inputs directory")
    g.add_argument("-o", "--output", default=DEFAULT_OUT)
    g.add_argument("--chunks", default=",".join(str(c) for c in CHUNKS))
    g.add_argument("--latency", type=float, default=None,
                   help="add a set with this link latency (ns) on every dimension")
    g.add_argument("--only", nargs="*", help="problem names ('GPT_3 3d') or workloads")
    g.add_argument("--cached-only", action="store_true",
                   help="run no simulation: take every simulator time from the cache in "
                        "ASTRA_SIM_WORK and record the sets missing from it as not simulated")
    g.add_argument("--note", help="free text recorded in the metadata (generation_note)")
    k = sub.add_parser("check")
    k.add_argument("file", nargs="?", default=DEFAULT_OUT)
    t = sub.add_parser("table")
    t.add_argument("file", nargs="?", default=DEFAULT_OUT)
    args = ap.parse_args()
    if args.cmd == "generate":
        cmd_generate(args)
    elif args.cmd == "check":
        cmd_check(args)
    else:
        cmd_table(args)


if __name__ == "__main__":
    main()
