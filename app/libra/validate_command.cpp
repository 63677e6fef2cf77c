// `libra validate DATA.json`: the collective model against simulator runs.
#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "libra/error.hpp"
#include "libra/validation.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

constexpr const char* kValidateFooter =
    "Reads a data set of simulator runs (tests/data/astra-sim/validation.json: one collective\n"
    "each, simulated by ASTRA-sim 2's analytical backend, see its README) and prints, per\n"
    "case, the time of this engine's chunked schedule (the case's chunk count and link\n"
    "latencies), the simulator's, and the relative error; then the error by message size, and\n"
    "LIBRA's ideal model (max over dimensions of V/bw) beside it.\n"
    "\n"
    "Examples:\n"
    "  libra validate tests/data/astra-sim/validation.json --summary\n"
    "  libra validate validation.json --max-error 1 --min-size 67108864\n"
    "\n"
    "Exit codes: 0 done (and every case of at least --min-size within --max-error); 1 a case\n"
    "over --max-error; 2 bad usage or an unreadable data set.";

struct ValidateArgs {
  std::string data;
  bool json = false;
  bool summary = false;
  double maxErrorPercent = -1;  // < 0: no check
  double minSizeBytes = 64.0 * (1 << 20);
};

struct Row {
  const ValidationCase* c;
  double model = 0, ideal = 0, error = 0, idealError = 0;  // errors relative to the simulator
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(rank);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

std::string describe(const ValidationCase& c) {
  std::string net;
  for (std::size_t d = 0; d < c.network.dims.size(); ++d) {
    const Dimension& dim = c.network.dims[d];
    net += (d ? "," : "") + std::string(toString(dim.block)) + ":" + std::to_string(dim.npus) +
           ":" + formatExact(c.bandwidthGbps[d]) + ":" + formatExact(dim.latencyNs);
  }
  return net;
}

struct Summary {
  std::size_t n = 0;
  double median = 0, p90 = 0, max = 0;
};

Summary summarize(const std::vector<double>& errors) {
  Summary s;
  s.n = errors.size();
  if (errors.empty()) return s;
  s.median = percentile(errors, 0.5);
  s.p90 = percentile(errors, 0.9);
  s.max = *std::max_element(errors.begin(), errors.end());
  return s;
}

Json summaryJson(const Summary& s) {
  Json j;
  j["cases"] = s.n;
  j["median_error"] = s.median;
  j["p90_error"] = s.p90;
  j["max_error"] = s.max;
  return j;
}

// The data set's cases against the model, summarized.
struct Compared {
  std::vector<Row> rows;
  Summary large, small, idealLarge;
  std::vector<const Row*> over;  // at least min size, off by more than the limit
};

Compared compare(const ValidateArgs& args, const ValidationData& data) {
  Compared out;
  std::vector<Row>& rows = out.rows;
  rows.reserve(data.cases.size());
  std::vector<double> large, small, idealLarge;
  for (const ValidationCase& c : data.cases) {
    Row r{&c};
    r.model = modelTime(c);
    r.ideal = idealTime(c);
    r.error = c.simulatedNs > 0 ? std::abs(r.model - c.simulatedNs) / c.simulatedNs : 0;
    r.idealError = c.simulatedNs > 0 ? std::abs(r.ideal - c.simulatedNs) / c.simulatedNs : 0;
    (c.sizeBytes >= args.minSizeBytes ? large : small).push_back(r.error);
    const bool zeroLatency = std::all_of(c.network.dims.begin(), c.network.dims.end(),
                                         [](const Dimension& d) { return d.latencyNs == 0; });
    if (c.sizeBytes >= args.minSizeBytes && zeroLatency) idealLarge.push_back(r.idealError);
    rows.push_back(r);
  }
  out.large = summarize(large);
  out.small = summarize(small);
  out.idealLarge = summarize(idealLarge);
  const double limit = args.maxErrorPercent / 100;
  if (args.maxErrorPercent >= 0) {
    for (const Row& r : rows) {
      if (r.c->sizeBytes >= args.minSizeBytes && r.error > limit) out.over.push_back(&r);
    }
  }
  return out;
}

Json validationJson(const ValidateArgs& args, const ValidationData& data, const Compared& v) {
  Json j;
  j["data"] = args.data;
  j["simulator"] = data.simulator;
  j["min_size_bytes"] = args.minSizeBytes;
  j["large"] = summaryJson(v.large);
  j["small"] = summaryJson(v.small);
  j["ideal_zero_latency_large"] = summaryJson(v.idealLarge);
  if (args.maxErrorPercent >= 0) {
    j["max_error_percent"] = args.maxErrorPercent;
    j["cases_over"] = v.over.size();
  }
  if (!args.summary) {
    Json cases = Json::array();
    for (const Row& r : v.rows) {
      Json c;
      c["index"] = r.c->index;
      c["set"] = r.c->set;
      c["network"] = describe(*r.c);
      c["collective"] = std::string(toString(r.c->collective));
      c["size_bytes"] = r.c->sizeBytes;
      c["chunks"] = r.c->chunks;
      c["simulated_ns"] = r.c->simulatedNs;
      c["model_ns"] = r.model;
      c["error"] = r.error;
      c["ideal_ns"] = r.ideal;
      c["ideal_error"] = r.idealError;
      cases.push_back(std::move(c));
    }
    j["cases"] = std::move(cases);
  }
  return j;
}

void printCases(std::ostream& out, const Style& style, const std::vector<Row>& rows) {
  Table table;
  table.addColumn("#");
  table.addColumn("network (block:npus:GB/s:latency ns)", Table::Align::Left);
  table.addColumn("collective", Table::Align::Left);
  table.addColumn("size (B)");
  table.addColumn("C");
  table.addColumn("simulated (ns)");
  table.addColumn("model (ns)");
  table.addColumn("error");
  table.addColumn("LIBRA (ns)");
  table.addColumn("LIBRA error");
  for (const Row& r : rows) {
    table.addRow({std::to_string(r.c->index), describe(*r.c),
                  std::string(toString(r.c->collective)), formatExact(r.c->sizeBytes),
                  std::to_string(r.c->chunks), formatFixed(r.c->simulatedNs, 0),
                  formatFixed(r.model, 0), formatFixed(100 * r.error, 3) + " %",
                  formatFixed(r.ideal, 0), formatFixed(100 * r.idealError, 1) + " %"});
  }
  table.print(out, style);
  out << '\n';
}

void printValidation(const ValidateArgs& args, const ValidationData& data, const Compared& v,
                     Context& context) {
  const Style style{context.color};
  if (!args.summary) printCases(context.out, style, v.rows);
  auto line = [&](const std::string& what, const Summary& s) {
    return std::to_string(s.n) + " cases, median " + formatFixed(100 * s.median, 3) + " %, p90 " +
           formatFixed(100 * s.p90, 3) + " %, max " + formatFixed(100 * s.max, 3) + " %" +
           (what.empty() ? "" : " " + what);
  };
  const std::string mib = formatFixed(args.minSizeBytes / (1 << 20), 0) + " MiB";
  printFields(
      context.out, style,
      {{"Data set", args.data},
       {"Simulator", data.simulator.substr(0, 60) + (data.simulator.size() > 60 ? "..." : "")},
       {"Model vs simulator, >= " + mib, line("", v.large)},
       {"Model vs simulator, < " + mib, line("(latency and endpoint delays dominate)", v.small)},
       {"LIBRA vs simulator, >= " + mib, line("(zero latency)", v.idealLarge)}});
  if (args.maxErrorPercent < 0) return;
  context.out << '\n';
  if (v.over.empty()) {
    context.out << style.good("every case of at least " + mib + " is within " +
                              formatExact(args.maxErrorPercent) + " %")
                << '\n';
    return;
  }
  for (const Row* r : v.over) {
    context.err << "libra: case " << r->c->index << " (" << describe(*r->c) << " "
                << toString(r->c->collective) << " " << formatExact(r->c->sizeBytes)
                << " B, C = " << r->c->chunks << "): model " << formatFixed(r->model, 0)
                << " ns against simulated " << formatFixed(r->c->simulatedNs, 0) << " ns, "
                << formatFixed(100 * r->error, 3) << " %\n";
  }
}

int runValidate(const ValidateArgs& args, Context& context) {
  requireInputFile(args.data, "data set");
  const ValidationData data = readValidationData(args.data);
  const Compared v = compare(args, data);
  if (args.json) {
    context.out << validationJson(args, data, v)
                       .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                << std::endl;
  } else {
    printValidation(args, data, v, context);
  }
  if (!v.over.empty()) {
    context.err << "libra: " << v.over.size() << " case(s) of at least "
                << formatExact(args.minSizeBytes) << " bytes are off by more than "
                << formatExact(args.maxErrorPercent) << " %\n";
    return kExitNoSolution;
  }
  return kExitSuccess;
}

}  // namespace

void registerValidate(CLI::App& app, Context& context) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = addCommand(app, context, "validate",
                             "The collective model's times against a data set of simulator runs");
  if (cmd == nullptr) return;
  cmd->add_option("DATA", args->data, "Data set (JSON, e.g. tests/data/astra-sim/validation.json)")
      ->required()
      ->type_name("FILE");
  cmd->add_flag("--summary", args->summary, "Print only the error summary, not every case");
  cmd->add_option("--max-error", args->maxErrorPercent,
                  "Fail (exit 1) when a case of at least --min-size is off by more than PCT %")
      ->type_name("PCT")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--min-size", args->minSizeBytes,
                  "Size in bytes from which a case counts as large (default 67108864 = 64 MiB)")
      ->type_name("BYTES")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->footer(kValidateFooter);
  cmd->callback([args, &context] { context.exitCode = runValidate(*args, context); });
}

}  // namespace libra::cli
