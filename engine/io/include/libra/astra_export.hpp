// Export of a design to ASTRA-sim 2's analytical (congestion-unaware) backend:
// the network, system and remote-memory files, the workloads as ASTRA-sim 1.0
// text (for Chakra's text converter) and a README that says what was exported
// and how to run it. The contents come back as strings, so the command line and
// the GUI write the same files; model.md section 9 and
// tests/data/astra-sim/README.md ("Configuration") fix the values.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "libra/analysis.hpp"
#include "libra/atomic_write.hpp"
#include "libra/network.hpp"
#include "libra/project.hpp"

namespace libra {

// The chunk count written for LIBRA's ideal model (the limit of many chunks).
inline constexpr int kAstraIdealChunks = 64;

// GB/s of ONE uni-directional link as ASTRA-sim's network file takes it (1 GB =
// 2^30 bytes) for our per-NPU bandwidth bw (GB/s, 1 GB = 1e9 bytes) of a dimension:
// Ring bw (the ring algorithm sends one way round, so the whole bandwidth sits on
// that link), FullyConnected bw / (n - 1), Switch bw.
double astraLinkBandwidth(BuildingBlock block, int npus, double bandwidthGbps);

// network.yml: topology, npus_count, bandwidth (astraLinkBandwidth) and latency
// (ns per link, Dimension::latencyNs) per dimension, innermost first.
std::string astraNetworkYml(const Network& network, std::span<const double> bandwidthGbps);

// system.json: one queue's worth of the system layer's settings, one collective
// algorithm per dimension and building block (Ring: ring, FullyConnected: direct,
// Switch: halvingDoubling; All-to-All direct1 on Ring and Switch), and
// `datasetSplits` as preferred-dataset-splits.
std::string astraSystemJson(const Network& network, int datasetSplits);

// remote_memory.json: no memory expansion.
std::string astraRemoteMemoryJson();

// The preferred-dataset-splits for the analysis's model at its design: the count
// itself for a fixed count, kAstraIdealChunks for "ideal", and for "auto" the
// median of the counts chosen per collective at the design (each collective
// counted as often as it runs; the lower middle one for an even number).
int astraDatasetSplits(const Analysis& analysis);

// A file of the export: its path relative to the export folder, '/'-separated.
using AstraExportFile = OutputFile;

struct AstraExport {
  // network.yml, system.json, remote_memory.json, workload/<name>.txt for each
  // workload that the text format can hold, iteration/<name>.json (the training
  // iteration as a node list, astra_trace.hpp) for each workload a Chakra trace can
  // hold with iteration/chakra_traces.py (and iteration/network.yml and
  // iteration/system.json when a dimension is split into parts), README.md last.
  std::vector<AstraExportFile> files;
  // What the files cannot say or had to change, one sentence each (also in the
  // README): workloads left out and why, rounded values, headers Chakra's text
  // converter does not take.
  std::vector<std::string> warnings;
  // The chunk count written (preferred-dataset-splits): the one nearest to
  // `preferredSplits` (astraDatasetSplits) that divides every collective size
  // (astraDivisibleSplits of astra_trace.hpp).
  int datasetSplits = 1;
  int preferredSplits = 1;
};

// Exports the design of `analysis`, which must be an analysis of `project`
// (analyze(project, ...)): the latencies and the collective model in force are the
// analysis's. `projectFile` names the project in the README's commands. Throws
// InputError when the analysis has no design, or when a dimension's bandwidth is
// not > 0 (ASTRA-sim divides by it).
AstraExport exportAstraSim(const Project& project, const Analysis& analysis,
                           const std::string& projectFile = "PROJECT.json");

// The format line of the marker (atomic_write.hpp) in an export folder.
inline constexpr std::string_view kAstraExportFormat = "astra-sim";

// What is at the path an export is to go to (inspectExportDirectory of
// atomic_write.hpp for this export): the CLI replaces an earlier export with
// --force, the GUI asks; a folder that is not empty and holds no earlier export
// is refused by both.
ExportDirectory inspectExportDirectory(const std::filesystem::path& dir);
// checkExportDirectory of atomic_write.hpp for this export.
ExportDirectory checkExportDirectory(const std::filesystem::path& dir, bool replaceEarlierExport);

// Writes every file of `exported` and the marker as the folder `dir`, all or
// nothing (writeDirectoryAtomically): `dir` is missing or empty, or an earlier
// export when `replaceEarlierExport`. Throws InputError "'DIR': ..." naming the
// file that could not be written; `dir` is then as it was.
void writeAstraExport(const AstraExport& exported, const std::filesystem::path& dir,
                      bool replaceEarlierExport = false);

}  // namespace libra
