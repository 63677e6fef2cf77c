// `libra export-astra-sim`: every file's content where it is deterministic. The
// network.yml numbers are checked against model.md section 9 computed here by
// hand, system.json against the configuration of tests/data/astra-sim/README.md,
// and the workload files by reading them back with the engine's reader
// (`libra import-libra`).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

constexpr double kAstraGigabyte = 1073741824.0;  // 2^30

// "key: [ a, b, c ]" lines of network.yml -> key -> items.
std::map<std::string, std::vector<std::string>> yamlLists(const std::string& text) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto colon = line.find(':');
    const auto open = line.find('[');
    const auto close = line.rfind(']');
    EXPECT_TRUE(colon != std::string::npos && open != std::string::npos &&
                close != std::string::npos)
        << "not a list line: " << line;
    if (colon == std::string::npos || open == std::string::npos || close == std::string::npos) {
      continue;
    }
    std::vector<std::string> items;
    std::string item;
    std::istringstream list(line.substr(open + 1, close - open - 1));
    while (std::getline(list, item, ',')) {
      const auto b = item.find_first_not_of(' ');
      const auto e = item.find_last_not_of(' ');
      items.push_back(b == std::string::npos ? "" : item.substr(b, e - b + 1));
    }
    out[line.substr(0, colon)] = items;
  }
  return out;
}

std::vector<double> numbers(const std::vector<std::string>& items) {
  std::vector<double> out;
  for (const std::string& s : items) {
    char* end = nullptr;
    out.push_back(std::strtod(s.c_str(), &end));
    EXPECT_EQ(*end, '\0') << "not a number: " << s;
  }
  return out;
}

// The names in a folder, sorted (hidden ones too).
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The layers of a project's first workload, with collectives spelled one way.
json layersOf(const json& project) {
  json layers = project["workloads"][0]["layers"];
  for (json& layer : layers) {
    for (const char* phase : {"forward", "input_grad", "weight_grad"}) {
      json& p = layer[phase];
      p["collective"] = upper(p["collective"].get<std::string>());
      p["size_bytes"] = p["size_bytes"].get<double>();
      p["compute_ns"] = p["compute_ns"].get<double>();
    }
    if (!layer.contains("update_ns")) layer["update_ns"] = 0;
    layer["update_ns"] = layer["update_ns"].get<double>();
  }
  return layers;
}

class ExportTest : public CliTest {
 protected:
  ProcessResult run(const std::vector<std::string>& args) {
    ProcessResult r = runLibra(args);
    last_ = describe(args, r);
    return r;
  }
  // Reads the workload file back through `libra import-libra` (the engine's
  // reader) on a network file with the same blocks and NPU counts.
  json importBack(const std::string& workload, const std::string& network) {
    const std::string out = tmp("back-" + std::to_string(++imports_) + ".json");
    const std::vector<std::string> args{"import-libra", "--network", network, "--workload",
                                        workload,       "-o",        out};
    const ProcessResult r = runLibra(args);
    EXPECT_EQ(r.exitCode, 0) << describe(args, r);
    return parseJson(readText(out));
  }
  std::string last_;
  int imports_ = 0;
};

// data/one_collective.json: chip Ring(4), node FullyConnected(2), pod Switch(8);
// one weight-gradient All-Reduce of 1e9 bytes over all 64 NPUs.
TEST_F(ExportTest, GivenDesignEveryFile) {
  const std::string dir = tmp("out");
  const std::vector<std::string> args{"export-astra-sim",
                                      dataFile("one_collective.json"),
                                      "--bandwidth",
                                      "100,50,200",
                                      "--chunks",
                                      "4",
                                      "--latency",
                                      "100,200.5,300",
                                      "-o",
                                      dir};
  const ProcessResult r = run(args);
  SCOPED_TRACE(last_);
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "wrote 7 files to " + dir));
  // The training iteration as a node list, and the script that makes Chakra traces.
  const json nodes = parseJson(readText(fs::path(dir) / "iteration/single_all-reduce.json"));
  EXPECT_EQ(nodes["format"], "libra-astra-iteration");
  EXPECT_EQ(nodes["npus"], 64);
  EXPECT_TRUE(fs::exists(fs::path(dir) / "iteration/chakra_traces.py"));

  // network.yml, model.md section 9 by hand: Ring bw, FullyConnected bw / (n - 1),
  // Switch bw, in units of 2^30 bytes per second.
  const auto net = yamlLists(readText(fs::path(dir) / "network.yml"));
  ASSERT_EQ(net.size(), 4u);
  EXPECT_EQ(net.at("topology"), (std::vector<std::string>{"Ring", "FullyConnected", "Switch"}));
  EXPECT_EQ(numbers(net.at("npus_count")), (std::vector<double>{4, 2, 8}));
  const std::vector<double> bw = numbers(net.at("bandwidth"));
  ASSERT_EQ(bw.size(), 3u);
  EXPECT_EQ(bw[0], 100 * 1e9 / kAstraGigabyte);
  EXPECT_EQ(bw[1], 50 * 1e9 / (2 - 1) / kAstraGigabyte);
  EXPECT_EQ(bw[2], 200 * 1e9 / kAstraGigabyte);
  EXPECT_EQ(numbers(net.at("latency")), (std::vector<double>{100, 200.5, 300}));

  // system.json: exactly the documented configuration.
  const json system = parseJson(readText(fs::path(dir) / "system.json"));
  const json expectedSystem = {
      {"scheduling-policy", "LIFO"},
      {"endpoint-delay", 1},
      {"active-chunks-per-dimension", 1},
      {"preferred-dataset-splits", 4},
      {"all-reduce-implementation", {"ring", "direct", "halvingDoubling"}},
      {"reduce-scatter-implementation", {"ring", "direct", "halvingDoubling"}},
      {"all-gather-implementation", {"ring", "direct", "halvingDoubling"}},
      {"all-to-all-implementation", {"direct1", "direct", "direct1"}},
      {"collective-optimization", "localBWAware"},
      {"local-mem-bw", 1000000000000LL},
      {"boost-mode", 0}};
  EXPECT_EQ(system, expectedSystem);
  EXPECT_EQ(parseJson(readText(fs::path(dir) / "remote_memory.json")),
            json({{"memory-type", "NO_MEMORY_EXPANSION"}}));

  // The workload: header lines, then the layer; back through the engine's reader.
  const fs::path workload = fs::path(dir) / "workload" / "single_all-reduce.txt";
  EXPECT_EQ(readText(workload),
            "DATA\n1\nlayer0 -1 1000 NONE 0 2000 NONE 0 3000 ALLREDUCE 1000000000 0\n");
  const json original = parseJson(readText(dataFile("one_collective.json")));
  const json back = importBack(workload.string(), dataFile("libra/tiny_network.yml"));
  EXPECT_EQ(layersOf(back), layersOf(original));
  EXPECT_EQ(back["workloads"][0]["communicator"], original["workloads"][0]["communicator"]);

  // README: the design and the commands.
  const std::string readme = readText(fs::path(dir) / "README.md");
  for (const std::string& part :
       {std::string("libra evaluate ") + dataFile("one_collective.json") +
            " --bandwidth 100,50,200 --chunks 4 --latency 100,200.5,300",
        std::string("AstraSim_Analytical_Congestion_Unaware"),
        std::string("--workload-configuration=traces/single_all-reduce/single_all-reduce"),
        std::string("--system-configuration=system.json"),
        std::string("--network-configuration=network.yml"),
        std::string("--remote-memory-configuration=remote_memory.json"),
        std::string("--num-queues-per-dim=1"), std::string("chakra.src.converter.converter Text"),
        std::string("--input workload/single_all-reduce.txt"),
        std::string("--num-npus 64 --num-passes 1"), std::string("evaluated, not optimized")}) {
    EXPECT_TRUE(contains(readme, part)) << "README lacks: " << part;
  }
}

TEST_F(ExportTest, OptimumIsTheSolvedDesign) {
  const std::string project = dataFile("one_collective.json");
  const ProcessResult solved = run({"solve", project, "--json"});
  ASSERT_EQ(solved.exitCode, 0) << last_;
  const auto optimum = parseJson(solved.out)["bandwidth_gbps"].get<std::vector<double>>();
  ASSERT_EQ(optimum.size(), 3u);

  const std::string dir = tmp("new/nested");  // created with its parents
  const ProcessResult r = run({"export-astra-sim", project, "-o", dir, "--json"});
  SCOPED_TRACE(last_);
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  EXPECT_EQ(j["status"], "written");
  EXPECT_EQ(j["design"], "optimal");
  EXPECT_EQ(j["files"], json({"network.yml", "system.json", "remote_memory.json",
                              "workload/single_all-reduce.txt", "iteration/single_all-reduce.json",
                              "iteration/chakra_traces.py", "README.md"}));
  EXPECT_EQ(j["chunks"], "ideal");
  EXPECT_EQ(j["preferred_dataset_splits"], 64);
  EXPECT_EQ(j["warnings"], json::array());
  const auto exported = j["bandwidth_gbps"].get<std::vector<double>>();
  for (int d = 0; d < 3; ++d) EXPECT_EQ(exported[d], optimum[d]) << "dim " << d;

  const auto net = yamlLists(readText(fs::path(dir) / "network.yml"));
  const std::vector<double> bw = numbers(net.at("bandwidth"));
  ASSERT_EQ(bw.size(), 3u);
  EXPECT_EQ(bw[0], optimum[0] * 1e9 / kAstraGigabyte);
  EXPECT_EQ(bw[1], optimum[1] * 1e9 / (2 - 1) / kAstraGigabyte);
  EXPECT_EQ(bw[2], optimum[2] * 1e9 / kAstraGigabyte);
  EXPECT_EQ(numbers(net.at("latency")), (std::vector<double>{0, 0, 0}));
  // LIBRA's ideal model is the limit of many chunks: 64 are written, and said so.
  EXPECT_EQ(parseJson(readText(fs::path(dir) / "system.json"))["preferred-dataset-splits"], 64);
  EXPECT_TRUE(contains(readText(fs::path(dir) / "README.md"), "limit of many chunks"));
}

TEST_F(ExportTest, HybridWorkloadHeaderRoundTrips) {
  // data/mixed_collectives.json: tensor parallel over the inner Ring(4), data
  // parallel over the outer Switch(4).
  const std::string dir = tmp("out");
  const ProcessResult r = run({"export-astra-sim", dataFile("mixed_collectives.json"),
                               "--bandwidth", "150,150", "-o", dir});
  SCOPED_TRACE(last_);
  ASSERT_EQ(r.exitCode, 0);
  // Chakra's text converter does not take the header: a warning says so.
  EXPECT_TRUE(contains(r.err, "warning: workload/two_layers.txt"));
  EXPECT_TRUE(contains(r.err, "Chakra"));
  const fs::path workload = fs::path(dir) / "workload" / "two_layers.txt";
  const std::string text = readText(workload);
  EXPECT_EQ(text.substr(0, text.find('\n')), "HYBRID_TRANSFORMER model_parallel_NPU_group: 4");
  const std::string network = tmp("ring4-switch4.yml");
  writeText(network,
            "Topology: [ Ring, Switch ]\nNpusCount: [ 4, 4 ]\nCostDimension: [ InterPackage, "
            "InterPod ]\n");
  const json original = parseJson(readText(dataFile("mixed_collectives.json")));
  const json back = importBack(workload.string(), network);
  EXPECT_EQ(layersOf(back), layersOf(original));
  EXPECT_EQ(back["workloads"][0]["communicator"], original["workloads"][0]["communicator"]);
}

TEST_F(ExportTest, PhaseGroupsAreNotWrittenButWarnedAbout) {
  const std::string project = variant("one_collective.json", "groups.json", [](json& p) {
    p["workloads"][0]["layers"][0]["weight_grad"]["groups"] = {4, 1, 1};
  });
  const std::string dir = tmp("out");
  // (Its optimum gives the unused dimensions nothing, which ASTRA-sim cannot take.)
  const ProcessResult r =
      run({"export-astra-sim", project, "--bandwidth", "100,50,200", "-o", dir});
  SCOPED_TRACE(last_);
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_TRUE(contains(r.err, "warning: workload 'single all-reduce' was not written"));
  EXPECT_TRUE(contains(r.err, "own group sizes"));
  EXPECT_FALSE(fs::exists(fs::path(dir) / "workload"));
  EXPECT_TRUE(contains(readText(fs::path(dir) / "README.md"), "was not written"));
}

TEST_F(ExportTest, OptimumWithoutBandwidthOnADimensionIsRefused) {
  const std::string project = variant("one_collective.json", "groups.json", [](json& p) {
    p["workloads"][0]["layers"][0]["weight_grad"]["groups"] = {4, 1, 1};
  });
  expectUsageError({"export-astra-sim", project, "-o", tmp("out")},
                   {"groups.json", "optimum", "'node'", "0 GB/s", "ASTRA-sim"});
  EXPECT_FALSE(fs::exists(tmp("out")));
}

// A folder that an earlier export did not write is never written into, not even
// with --force: the files in it are the user's.
TEST_F(ExportTest, NonEmptyDirectoryIsRefusedEvenWithForce) {
  const std::string dir = tmp("busy");
  fs::create_directories(dir);
  writeText(fs::path(dir) / "notes.txt", "mine\n");
  const std::vector<std::string> args{"export-astra-sim", dataFile("one_collective.json"), "-o",
                                      dir};
  expectUsageError(args, {"-o", dir, "not empty", "--force"});
  std::vector<std::string> forced = args;
  forced.push_back("--force");
  expectUsageError(forced, {"-o", dir, "not empty", "no earlier export"});
  EXPECT_EQ(entries(dir), std::vector<std::string>{"notes.txt"});
  EXPECT_EQ(readText(fs::path(dir) / "notes.txt"), "mine\n");
  // An empty directory needs no --force.
  const std::string empty = tmp("empty");
  fs::create_directories(empty);
  EXPECT_EQ(run({"export-astra-sim", dataFile("one_collective.json"), "-o", empty}).exitCode, 0)
      << last_;
  EXPECT_TRUE(fs::exists(fs::path(empty) / "README.md"));
}

// --force replaces an earlier export as a whole: files the new export does not
// write are gone, and nothing is left beside the folder.
TEST_F(ExportTest, ForceReplacesAnEarlierExport) {
  const std::string first = variant("one_collective.json", "first.json",
                                    [](json& p) { p["workloads"][0]["name"] = "first run"; });
  const std::string dir = tmp("astra");
  ASSERT_EQ(run({"export-astra-sim", first, "-o", dir}).exitCode, 0) << last_;
  ASSERT_TRUE(fs::exists(fs::path(dir) / "workload" / "first_run.txt"));
  expectUsageError({"export-astra-sim", dataFile("one_collective.json"), "-o", dir},
                   {"-o", dir, "earlier export", "--force"});

  const ProcessResult r =
      run({"export-astra-sim", dataFile("one_collective.json"), "-o", dir, "--force"});
  ASSERT_EQ(r.exitCode, 0) << last_;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "workload" / "first_run.txt"));
  EXPECT_TRUE(fs::exists(fs::path(dir) / "workload" / "single_all-reduce.txt"));
  EXPECT_TRUE(contains(readText(fs::path(dir) / "README.md"), "single all-reduce"));
  EXPECT_EQ(entries(tmp_), (std::vector<std::string>{"astra", "first.json"}));
  // And again: the replaced folder is itself an earlier export.
  EXPECT_EQ(run({"export-astra-sim", first, "-o", dir, "--force"}).exitCode, 0) << last_;
  EXPECT_TRUE(fs::exists(fs::path(dir) / "workload" / "first_run.txt"));
}

// A link is never written through: not as the folder, not inside it.
TEST_F(ExportTest, ForceNeverWritesThroughASymbolicLink) {
  const std::string p = dataFile("one_collective.json");
  const fs::path real = tmp("real");
  ASSERT_EQ(run({"export-astra-sim", p, "-o", real.string()}).exitCode, 0) << last_;
  const std::string before = readText(real / "network.yml");
  const fs::path link = tmp("link");
  fs::create_directory_symlink(real, link);
  expectUsageError({"export-astra-sim", p, "--bandwidth", "1,2,3", "-o", link.string(), "--force"},
                   {"-o", link.string(), "symbolic link"});
  EXPECT_EQ(readText(real / "network.yml"), before);
  EXPECT_TRUE(fs::is_symlink(link));

  // Links inside an earlier export point at files of the user's: replacing the
  // export leaves them alone.
  const fs::path victim = tmp("victim.md");
  writeText(victim, "my notes\n");
  fs::remove(real / "README.md");
  fs::create_symlink(victim, real / "README.md");
  fs::create_directory_symlink(tmp_, real / "workload-link");
  ASSERT_EQ(
      run({"export-astra-sim", p, "--bandwidth", "1,2,3", "-o", real.string(), "--force"}).exitCode,
      0)
      << last_;
  EXPECT_EQ(readText(victim), "my notes\n");
  EXPECT_FALSE(fs::is_symlink(real / "README.md"));
  EXPECT_FALSE(fs::exists(real / "workload-link"));
  EXPECT_EQ(entries(tmp_), (std::vector<std::string>{"link", "real", "victim.md"}));
}

// The failure of the issue: the file system refuses a file halfway (here the
// first file over a file size limit: the Chakra script or the README). Nothing is
// left, neither the folder nor a temporary one, and a rerun works.
TEST_F(ExportTest, FailureHalfwayLeavesNothing) {
  const std::string dir = tmp("new/out");  // "new" is made for it, and removed again
  const std::vector<std::string> args{"export-astra-sim", dataFile("one_collective.json"), "-o",
                                      dir};
  // The limit is in blocks of 512 or 1024 bytes (the shell's); the small files fit
  // and the larger ones do not. An ignored SIGXFSZ makes the write fail with EFBIG.
  std::vector<std::string> limited{"-c", "trap '' XFSZ; ulimit -f 2; exec \"$@\"", "sh",
                                   libraExe()};
  limited.insert(limited.end(), args.begin(), args.end());
  const ProcessResult r = runProcess("/bin/sh", limited);
  SCOPED_TRACE(describe(args, r));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "cannot write 'iteration/chakra_traces.py'") ||
              contains(r.err, "cannot write 'README.md'"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "File too large")) << r.err;
  EXPECT_TRUE(entries(tmp_).empty());

  EXPECT_EQ(run(args).exitCode, 0) << last_;
  EXPECT_TRUE(fs::exists(fs::path(dir) / "README.md"));
}

// A 300-character workload name makes a file name well under NAME_MAX.
TEST_F(ExportTest, LongWorkloadNameExports) {
  std::string name;
  while (name.size() < 300) name += "Transformer block \u00fcber ";
  const std::string project = variant("one_collective.json", "long.json",
                                      [&](json& p) { p["workloads"][0]["name"] = name; });
  const std::string dir = tmp("out");
  const ProcessResult r = run({"export-astra-sim", project, "-o", dir});
  ASSERT_EQ(r.exitCode, 0) << last_;
  const std::vector<std::string> files = entries(fs::path(dir) / "workload");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_LE(files[0].size(), 100u) << files[0];
  EXPECT_EQ(files[0].rfind("Transformer_block_", 0), 0u) << files[0];
  EXPECT_TRUE(contains(readText(fs::path(dir) / "README.md"), name));
}

// A name the file system cannot take is refused, quoted with at most 80 characters.
TEST_F(ExportTest, TooLongDirectoryNameIsQuotedShort) {
  const std::string dir = tmp(std::string(300, 'a'));
  const ProcessResult r = run({"export-astra-sim", dataFile("one_collective.json"), "-o", dir});
  SCOPED_TRACE(last_);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "File name too long"));
  EXPECT_FALSE(contains(r.err, std::string(81, 'a')));
  EXPECT_TRUE(entries(tmp_).empty());
}

TEST_F(ExportTest, BadInputExitsTwoAndWritesNothing) {
  const std::string p = dataFile("one_collective.json");
  const std::string dir = tmp("out");
  expectUsageError({"export-astra-sim", p, "--bandwidth", "1,x,3", "-o", dir},
                   {"bandwidth", "'x'", "position 2"});
  expectUsageError({"export-astra-sim", p, "--bandwidth", "1,2", "-o", dir},
                   {"bandwidth", "2 values", "3 dimensions"});
  expectUsageError({"export-astra-sim", p, "--bandwidth", "100,0,200", "-o", dir},
                   {"--bandwidth", "'node'", "ASTRA-sim"});
  expectUsageError({"export-astra-sim", p, "--chunks", "many", "-o", dir}, {"--chunks", "many"});
  expectUsageError({"export-astra-sim", p}, {"-o"});
  const std::string file = tmp("a-file");
  writeText(file, "x");
  expectUsageError({"export-astra-sim", p, "-o", file}, {file, "not a directory"});
  // The export replaces the folder named: never the current one.
  expectUsageError({"export-astra-sim", p, "-o", "."}, {"-o '.'", "by its name"});
  expectUsageError({"export-astra-sim", p, "-o", tmp("x/..")}, {"by its name"});
  EXPECT_FALSE(fs::exists(dir));
}

TEST_F(ExportTest, InfeasibleExitsOneAndWritesNothing) {
  const std::string dir = tmp("out");
  const ProcessResult r = run({"export-astra-sim", dataFile("one_collective.json"), "--constraint",
                               "total <= 100", "-o", dir});
  SCOPED_TRACE(last_);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(contains(r.err, "infeasible"));
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace libra::testing
