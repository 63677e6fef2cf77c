#!/usr/bin/env python3
"""Simulated against predicted training-iteration time of `libra export-astra-sim`.

For each project: export it (`libra export-astra-sim PROJECT -o WORK/NAME --force`
plus any EXPORT_FLAGS), then for every iteration/NAME.json of the export run the
two commands its README gives (iteration/chakra_traces.py, then the
congestion-unaware simulator, from the export folder) and compare the largest
"sys[i] finished, X cycles" with the iteration time the export predicts
(`predicted_iteration_ns` of the node list, which the README states too).
It does not build ASTRA-sim (packaging/build-astra-sim.sh does).

Environment:
  LIBRA             the libra binary (default: build/app/libra/libra)
  ASTRA_SIM_SRC     the ASTRA-sim source tree, built (Chakra's et_def_pb2.py made)
  ASTRA_SIM_BIN     default: $ASTRA_SIM_SRC/build/astra_analytical/build/bin/
                    AstraSim_Analytical_Congestion_Unaware
  ASTRA_SIM_PYTHON  python with protobuf (default: python3)

usage: astra_iteration.py [--work DIR] PROJECT.json ... [-- EXPORT_FLAGS ...]
"""

import glob
import json
import os
import re
import subprocess
import sys
import time


def run(cmd, cwd=None, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:],
                                            p.stderr[-2000:]))
    return p.stdout


def main(argv):
    flags = []
    if "--" in argv:
        flags = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    work = "/tmp/libra-astra-iteration"
    if len(argv) > 1 and argv[0] == "--work":
        work, argv = argv[1], argv[2:]
    if not argv:
        sys.exit(__doc__)
    libra = os.environ.get("LIBRA", "build/app/libra/libra")
    src = os.environ["ASTRA_SIM_SRC"]
    sim = os.environ.get("ASTRA_SIM_BIN", os.path.join(
        src, "build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Unaware"))
    py = os.environ.get("ASTRA_SIM_PYTHON", "python3")
    env = dict(os.environ, PYTHONPATH=src)
    results = []
    for project in argv:
        name = os.path.splitext(os.path.basename(project))[0]
        out = os.path.join(work, name)
        os.makedirs(work, exist_ok=True)
        run([libra, "export-astra-sim", project, "-o", out, "--force"] + flags)
        split = os.path.exists(os.path.join(out, "iteration/network.yml"))
        net = "iteration/network.yml" if split else "network.yml"
        system = "iteration/system.json" if split else "system.json"
        for nodes in sorted(glob.glob(os.path.join(out, "iteration/*.json"))):
            stem = os.path.splitext(os.path.basename(nodes))[0]
            prefix = "traces/%s/%s" % (stem, stem)
            with open(nodes) as f:
                desc = json.load(f)
            if not isinstance(desc, dict) or desc.get("format") != "libra-astra-iteration":
                continue  # iteration/system.json of a split network
            run([py, "iteration/chakra_traces.py", "iteration/%s.json" % stem, prefix],
                cwd=out, env=env)
            start = time.time()
            log = run([sim, "--workload-configuration=" + prefix,
                       "--system-configuration=" + system, "--network-configuration=" + net,
                       "--remote-memory-configuration=remote_memory.json",
                       "--num-queues-per-dim=1"], cwd=out)
            wall = time.time() - start
            cycles = [int(x) for x in re.findall(r"sys\[\d+\] finished, (\d+) cycles", log)]
            if len(cycles) != desc["npus"]:
                sys.exit("%s: %d of %d NPUs finished" % (out, len(cycles), desc["npus"]))
            simulated = max(cycles)
            predicted = desc["predicted_iteration_ns"]
            with open(os.path.join(out, "system.json")) as f:
                chunks = json.load(f)["preferred-dataset-splits"]
            results.append({"project": project, "workload": desc["workload"],
                            "npus": desc["npus"], "chunks": chunks,
                            "nodes": len(desc["nodes"]), "predicted_ns": predicted,
                            "simulated_ns": simulated, "min_ns": min(cycles),
                            "error": (simulated - predicted) / predicted, "wall_s": wall})
            r = results[-1]
            print("%s: %d NPUs, %d chunks, %d nodes: predicted %.1f ns, simulated %d ns "
                  "(%+.4f %%), simulator %.0f s" % (project, r["npus"], chunks, r["nodes"],
                                                     predicted, simulated, 100 * r["error"],
                                                     wall), flush=True)
    print(json.dumps(results, indent=1))
    if any(abs(r["error"]) > 0.02 for r in results):
        sys.exit("simulated and predicted differ by more than 2 %")


if __name__ == "__main__":
    main(sys.argv[1:])
