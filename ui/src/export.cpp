#include "export.hpp"

#include <QApplication>
#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include "format.hpp"
#include "results_view.hpp"

namespace libra::studio {

std::optional<FigureFormat> figureFormatFor(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QStringLiteral("png")) return FigureFormat::Png;
  if (suffix == QStringLiteral("svg")) return FigureFormat::Svg;
  if (suffix == QStringLiteral("pdf")) return FigureFormat::Pdf;
  return std::nullopt;
}

bool writeFileAtomic(const QString& path, const QByteArray& bytes, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  file.write(bytes);
  if (!file.commit()) {
    if (error) *error = QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

QString figureHeading(const QString& projectName, const SolveResult& result) {
  QString heading = projectName.isEmpty() ? QObject::tr("Libra Studio") : projectName;
  heading +=
      QObject::tr(" — objective: %1")
          .arg(result.objective == Objective::Performance ? QObject::tr("performance")
                                                          : QObject::tr("performance per cost"));
  return heading;
}

bool exportFigure(const SolveResult& result, const QString& heading, const QString& path,
                  FigureFormat format, QString* error, QSize size) {
  ResultsView view;
  view.setAttribute(Qt::WA_DontShowOnScreen);
  view.setHeading(heading);
  view.setAutoFillBackground(true);
  view.setPalette(QPalette(Qt::white));
  view.resize(size);
  view.showResultNow(std::make_shared<const SolveResult>(result));
  view.show();  // not on screen: lays the charts out at `size`
  QApplication::sendPostedEvents();
  QApplication::processEvents();

  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  switch (format) {
    case FigureFormat::Png: {
      const qreal ratio = 1.5;  // crisp enough for slides without huge files
      QImage image(size * ratio, QImage::Format_ARGB32_Premultiplied);
      image.setDevicePixelRatio(ratio);
      image.fill(Qt::white);
      QPainter painter(&image);
      view.render(&painter);
      painter.end();
      if (!image.save(&buffer, "PNG")) {
        if (error) *error = QObject::tr("%1: the PNG encoder failed").arg(path);
        return false;
      }
      break;
    }
    case FigureFormat::Svg: {
      QSvgGenerator svg;
      svg.setOutputDevice(&buffer);
      svg.setSize(size);
      svg.setViewBox(QRect(QPoint(0, 0), size));
      svg.setTitle(heading);
      svg.setDescription(QObject::tr("Libra Studio results"));
      QPainter painter(&svg);
      view.render(&painter);
      painter.end();
      break;
    }
    case FigureFormat::Pdf: {
      QPdfWriter pdf(&buffer);
      pdf.setTitle(heading);
      pdf.setCreator(QStringLiteral("Libra Studio"));
      pdf.setPageSize(QPageSize(QPageSize::A4));
      pdf.setPageOrientation(QPageLayout::Landscape);
      pdf.setPageMargins(QMarginsF(10, 10, 10, 10), QPageLayout::Millimeter);
      pdf.setResolution(150);
      QPainter painter(&pdf);
      const QRect page = painter.viewport();
      const double scale = std::min(page.width() / static_cast<double>(size.width()),
                                    page.height() / static_cast<double>(size.height()));
      painter.scale(scale, scale);
      view.render(&painter);
      painter.end();
      break;
    }
  }
  buffer.close();
  view.hide();
  return writeFileAtomic(path, bytes, error);
}

namespace {

QJsonArray toJson(const std::vector<double>& values) {
  QJsonArray a;
  for (double v : values) a.append(v);
  return a;
}

QJsonObject solutionJson(const Solution& s, const QString& objective) {
  QJsonObject o;
  o[QStringLiteral("status")] = toQString(std::string(toString(s.status)));
  if (!s.ok()) o[QStringLiteral("message")] = toQString(s.message);
  if (!objective.isEmpty()) o[QStringLiteral("objective")] = objective;
  if (s.ok()) {
    o[QStringLiteral("bandwidth_gbps")] = toJson(s.bandwidth);
    o[QStringLiteral("iteration_time_ns")] = s.eval.iterationNs;
    o[QStringLiteral("compute_time_ns")] = s.eval.computeNs;
    o[QStringLiteral("communication_time_ns")] = s.eval.communicationNs;
    o[QStringLiteral("network_cost_usd")] = s.eval.costUsd;
  }
  return o;
}

QJsonObject pointJson(const Solution& s) {
  QJsonObject o;
  o[QStringLiteral("network_cost_usd")] = s.eval.costUsd;
  o[QStringLiteral("iteration_time_ns")] = s.eval.iterationNs;
  o[QStringLiteral("bandwidth_gbps")] = toJson(s.bandwidth);
  return o;
}

QString csvField(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"'))) return text;
  QString quoted = text;
  quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
  return QStringLiteral("\"") + quoted + QStringLiteral("\"");
}

}  // namespace

QByteArray resultsJson(const SolveResult& result, const QString& projectName) {
  QJsonObject root;
  root[QStringLiteral("project")] = projectName;
  QJsonArray dims;
  for (const auto& n : result.dimNames) dims.append(toQString(n));
  root[QStringLiteral("dimensions")] = dims;
  root[QStringLiteral("optimum")] =
      solutionJson(result.optimum, toQString(std::string(toString(result.objective))));
  if (result.costBudgetUsd) root[QStringLiteral("cost_budget_usd")] = *result.costBudgetUsd;
  if (result.hasFront) {
    QJsonObject pareto;
    QJsonArray points;
    for (const Solution& s : result.front.points) {
      if (s.ok()) points.append(pointJson(s));
    }
    pareto[QStringLiteral("points")] = points;
    if (result.front.perfPerCostOptimum.ok()) {
      pareto[QStringLiteral("perf_per_cost_optimum")] = pointJson(result.front.perfPerCostOptimum);
    }
    root[QStringLiteral("pareto")] = pareto;
  }
  if (!result.equalSplit.empty()) {
    QJsonObject eq;
    eq[QStringLiteral("bandwidth_gbps")] = toJson(result.equalSplit);
    eq[QStringLiteral("iteration_time_ns")] = result.equalSplitEval.iterationNs;
    eq[QStringLiteral("compute_time_ns")] = result.equalSplitEval.computeNs;
    eq[QStringLiteral("communication_time_ns")] = result.equalSplitEval.communicationNs;
    eq[QStringLiteral("network_cost_usd")] = result.equalSplitEval.costUsd;
    root[QStringLiteral("equal_split")] = eq;
  }
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QByteArray resultsCsv(const SolveResult& result) {
  QStringList header{QStringLiteral("kind"), QStringLiteral("network_cost_usd"),
                     QStringLiteral("iteration_time_ns"), QStringLiteral("compute_time_ns"),
                     QStringLiteral("communication_time_ns")};
  for (const auto& n : result.dimNames)
    header << csvField(QStringLiteral("bw_") + toQString(n) + QStringLiteral("_gbps"));
  QString out = header.join(QLatin1Char(',')) + QLatin1Char('\n');
  auto row = [&](const QString& kind, const std::vector<double>& bw, const Evaluation& e) {
    QStringList fields{
        kind, QString::number(e.costUsd, 'g', 12), QString::number(e.iterationNs, 'g', 12),
        QString::number(e.computeNs, 'g', 12), QString::number(e.communicationNs, 'g', 12)};
    for (double b : bw) fields << QString::number(b, 'g', 12);
    out += fields.join(QLatin1Char(',')) + QLatin1Char('\n');
  };
  if (result.optimum.ok())
    row(QStringLiteral("optimum"), result.optimum.bandwidth, result.optimum.eval);
  if (result.hasFront) {
    if (result.front.perfPerCostOptimum.ok()) {
      row(QStringLiteral("perf_per_cost_optimum"), result.front.perfPerCostOptimum.bandwidth,
          result.front.perfPerCostOptimum.eval);
    }
    for (const Solution& s : result.front.points) {
      if (s.ok()) row(QStringLiteral("pareto"), s.bandwidth, s.eval);
    }
  }
  if (!result.equalSplit.empty())
    row(QStringLiteral("equal_split"), result.equalSplit, result.equalSplitEval);
  return out.toUtf8();
}

}  // namespace libra::studio
