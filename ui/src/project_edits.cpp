#include "project_edits.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QString>
#include <algorithm>
#include <cmath>
#include <exception>

#include "format.hpp"

namespace libra::studio {

namespace {

const QString kNumber = QStringLiteral(R"(([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))");

std::optional<double> matchBudget(const std::string& text, const QRegularExpression& re) {
  const auto m = re.match(toQString(text));
  if (!m.hasMatch()) return std::nullopt;
  bool ok = false;
  const double v = m.captured(1).toDouble(&ok);
  return ok ? std::optional<double>(v) : std::nullopt;
}

template <typename F>
void forEachGroupList(Project& project, F&& f) {
  for (Workload& w : project.workloads) {
    for (auto& groups : w.communicator.groups) f(groups);
    for (Layer& layer : w.layers) {
      for (Phase& phase : layer.phases) {
        if (!phase.groups.empty()) f(phase.groups);
      }
    }
  }
}

}  // namespace

BudgetConstraints splitConstraints(const std::vector<std::string>& constraints) {
  static const QRegularExpression totalPattern(QStringLiteral("^\\s*total\\s*==\\s*") + kNumber +
                                               QStringLiteral("\\s*$"));
  static const QRegularExpression costPattern(QStringLiteral("^\\s*cost\\s*<=\\s*") + kNumber +
                                              QStringLiteral("\\s*$"));
  BudgetConstraints b;
  for (const std::string& c : constraints) {
    if (!b.totalBandwidth) {
      if (auto v = matchBudget(c, totalPattern)) {
        b.totalBandwidth = v;
        continue;
      }
    }
    if (!b.costBudget) {
      if (auto v = matchBudget(c, costPattern)) {
        b.costBudget = v;
        continue;
      }
    }
    b.extra.push_back(c);
  }
  return b;
}

std::vector<std::string> joinConstraints(const BudgetConstraints& budget) {
  std::vector<std::string> out;
  if (budget.totalBandwidth) out.push_back("total == " + plainNumberStd(*budget.totalBandwidth));
  if (budget.costBudget) out.push_back("cost <= " + plainNumberStd(*budget.costBudget));
  out.insert(out.end(), budget.extra.begin(), budget.extra.end());
  return out;
}

std::vector<std::string> constraintsWithoutCostBudget(const std::vector<std::string>& constraints) {
  BudgetConstraints b = splitConstraints(constraints);
  b.costBudget.reset();
  return joinConstraints(b);
}

void setTotalBandwidth(Project& project, std::optional<double> gbps) {
  BudgetConstraints b = splitConstraints(project.constraints);
  b.totalBandwidth = gbps;
  project.constraints = joinConstraints(b);
}

void setCostBudget(Project& project, std::optional<double> usd) {
  BudgetConstraints b = splitConstraints(project.constraints);
  b.costBudget = usd;
  project.constraints = joinConstraints(b);
}

void setExtraConstraints(Project& project, std::vector<std::string> extra) {
  BudgetConstraints b = splitConstraints(project.constraints);
  b.extra = std::move(extra);
  project.constraints = joinConstraints(b);
}

namespace {

QJsonObject uiStateOf(const Project& project) {
  if (project.uiState.empty()) return {};
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(project.uiState));
  return doc.isObject() ? doc.object() : QJsonObject{};
}

}  // namespace

int paretoPointsOf(const Project& project) {
  const int points =
      uiStateOf(project).value(QStringLiteral("pareto_points")).toInt(kDefaultParetoPoints);
  return std::clamp(points, 2, 500);
}

void setParetoPoints(Project& project, int points) {
  QJsonObject state = uiStateOf(project);
  state[QStringLiteral("pareto_points")] = std::clamp(points, 2, 500);
  project.uiState = QJsonDocument(state).toJson(QJsonDocument::Compact).toStdString();
}

namespace {

int intParameter(const WorkloadOrigin& origin, const char* key, int fallback) {
  const auto it = origin.parameters.find(key);
  return it == origin.parameters.end() ? fallback : static_cast<int>(std::lround(it->second));
}

}  // namespace

std::optional<PresetChoice> presetChoiceOf(const Workload& workload) {
  if (!workload.origin || workload.origin->preset.empty()) return std::nullopt;
  const WorkloadOrigin& o = *workload.origin;
  PresetChoice c;
  c.preset = o.preset;
  c.device = o.device.empty() ? std::string("h100") : o.device;
  c.parallelism.tp = intParameter(o, "tp", 1);
  c.parallelism.ep = intParameter(o, "ep", 1);
  c.parallelism.pp = intParameter(o, "pp", 1);
  c.parallelism.dp = intParameter(o, "dp", 0);
  c.parallelism.sequenceParallel = intParameter(o, "sequence_parallel", 0) != 0;
  c.parallelism.zero3 = intParameter(o, "zero3", 0) != 0;
  c.parallelism.recompute = intParameter(o, "recompute", 0) != 0;
  c.generator.microBatch = intParameter(o, "micro_batch", 0);
  c.generator.sequenceLength = intParameter(o, "sequence_length", 0);
  c.generator.microBatches = std::max(1, intParameter(o, "micro_batches", 1));
  c.generator.blocks = intParameter(o, "blocks", 0);
  c.generator.layout =
      intParameter(o, "layout_libra", 0) ? WorkloadLayout::Libra : WorkloadLayout::Megatron;
  return c;
}

bool regenerateForNetwork(Workload& workload, const Network& network, std::string* error) {
  const auto choice = presetChoiceOf(workload);
  if (!choice) return false;
  try {
    Parallelism p = choice->parallelism;
    p.dp = 0;  // the data-parallel degree follows the NPU count
    Workload regenerated = generateWorkload(findPreset(choice->preset), p,
                                            findDevice(choice->device), network, choice->generator);
    regenerated.weight = workload.weight;
    workload = std::move(regenerated);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
}

namespace {

void regenerateAll(Project& project) {
  for (Workload& w : project.workloads) regenerateForNetwork(w, project.network);
}

}  // namespace

std::string freshDimensionName(const Network& network) {
  for (int k = network.size();; ++k) {
    std::string name = "dim" + std::to_string(k);
    if (!network.indexOf(name)) return name;
  }
}

void insertDimension(Project& project, int index) {
  Network& net = project.network;
  index = std::clamp(index, 0, net.size());
  Dimension dim;
  dim.name = freshDimensionName(net);
  dim.block = BuildingBlock::Ring;
  dim.npus = 2;
  // A neighbour's cost level is the likeliest right one; the cost model's first
  // level is the fallback for an empty network.
  if (!net.dims.empty()) {
    dim.costLevel = net.dims[std::min(index, net.size() - 1)].costLevel;
  } else if (!project.costModel.levels.empty()) {
    dim.costLevel = project.costModel.levels.begin()->first;
  }
  net.dims.insert(net.dims.begin() + index, dim);
  forEachGroupList(project, [index](std::vector<int>& g) {
    if (static_cast<int>(g.size()) >= index) g.insert(g.begin() + index, 1);
  });
  regenerateAll(project);
}

void removeDimension(Project& project, int index) {
  Network& net = project.network;
  if (index < 0 || index >= net.size()) return;
  net.dims.erase(net.dims.begin() + index);
  forEachGroupList(project, [index](std::vector<int>& g) {
    if (index < static_cast<int>(g.size())) g.erase(g.begin() + index);
  });
  regenerateAll(project);
}

void moveDimension(Project& project, int from, int to) {
  Network& net = project.network;
  if (from < 0 || from >= net.size() || to < 0 || to >= net.size() || from == to) return;
  auto move = [from, to](auto& v) {
    if (from >= static_cast<int>(v.size()) || to >= static_cast<int>(v.size())) return;
    auto item = v[from];
    v.erase(v.begin() + from);
    v.insert(v.begin() + to, item);
  };
  move(net.dims);
  forEachGroupList(project, move);
  regenerateAll(project);
}

void setDimensionCount(Project& project, int count) {
  count = std::max(count, 1);
  while (project.network.size() < count) insertDimension(project, project.network.size());
  while (project.network.size() > count) removeDimension(project, project.network.size() - 1);
}

void setDimensionNpus(Project& project, int index, int npus) {
  Network& net = project.network;
  if (index < 0 || index >= net.size()) return;
  const int old = net.dims[index].npus;
  net.dims[index].npus = npus;
  forEachGroupList(project, [&](std::vector<int>& g) {
    if (index >= static_cast<int>(g.size())) return;
    if (g[index] == old) {
      g[index] = g[index] > 1 ? npus : 1;
    } else {
      g[index] = std::clamp(g[index], 1, std::max(npus, 1));
    }
  });
  regenerateAll(project);
}

void renameDimension(Project& project, int index, const std::string& name) {
  Network& net = project.network;
  if (index < 0 || index >= net.size()) return;
  const QString old = toQString(net.dims[index].name);
  net.dims[index].name = name;
  if (old.isEmpty()) return;
  const QRegularExpression ref(QStringLiteral("bw\\s*\\[\\s*") + QRegularExpression::escape(old) +
                               QStringLiteral("\\s*\\]"));
  const QString replacement = QStringLiteral("bw[") + toQString(name) + QStringLiteral("]");
  for (std::string& c : project.constraints) {
    QString text = toQString(c);
    text.replace(ref, replacement);
    c = toStd(text);
  }
}

}  // namespace libra::studio
