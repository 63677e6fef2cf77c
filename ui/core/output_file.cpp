#include "output_file.hpp"

#include <QFileInfo>
#include <cstddef>
#include <exception>
#include <libra/atomic_write.hpp>
#include <string_view>

#include "format.hpp"

namespace libra::studio {

std::optional<FigureFormat> figureFormatFor(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QStringLiteral("png")) return FigureFormat::Png;
  if (suffix == QStringLiteral("svg")) return FigureFormat::Svg;
  if (suffix == QStringLiteral("pdf")) return FigureFormat::Pdf;
  return std::nullopt;
}

bool writeFileAtomic(const QString& path, const QByteArray& bytes, QString* error) {
  // The engine's writer: the same rules as project saves (links followed,
  // devices written in place, read-only files refused, nothing half-written).
  try {
    libra::writeFileAtomically(
        path.toStdString(),
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    return true;
  } catch (const std::exception& e) {
    if (error) *error = toQString(e.what());
    return false;
  }
}

}  // namespace libra::studio
