// How the GUI's PDF report draws its charts: QTextDocument lays out the
// report's HTML, and each <img src="libra-chart:N"> is drawn by QSvgRenderer
// from that chart's SVG, as vector graphics (QTextDocument's own image handler
// would ask for a raster image).
#pragma once

#include <QObject>
#include <QSvgRenderer>
#include <QTextObjectInterface>
#include <libra/report/report.hpp>
#include <map>
#include <memory>

namespace libra::studio {

// Registered for QTextFormat::ImageObject on the document's layout.
class SvgChartHandler : public QObject, public QTextObjectInterface {
  Q_OBJECT
  Q_INTERFACES(QTextObjectInterface)

 public:
  explicit SvgChartHandler(const report::Report& report, QObject* parent) : QObject(parent) {
    for (const report::ReportChart& c : report.charts) {
      charts_.emplace(QString::fromStdString(c.id),
                      std::make_unique<QSvgRenderer>(QByteArray::fromStdString(c.svg)));
    }
  }
  bool allValid() const {
    for (const auto& [id, renderer] : charts_) {
      if (!renderer->isValid()) return false;
    }
    return true;
  }
  QSizeF intrinsicSize(QTextDocument*, int, const QTextFormat& format) override {
    const QTextImageFormat image = format.toImageFormat();
    return {image.width(), image.height()};
  }
  void drawObject(QPainter* painter, const QRectF& rect, QTextDocument*, int,
                  const QTextFormat& format) override {
    const auto it = charts_.find(format.toImageFormat().name());
    if (it != charts_.end()) it->second->render(painter, rect);
  }

 private:
  std::map<QString, std::unique_ptr<QSvgRenderer>> charts_;
};

}  // namespace libra::studio
