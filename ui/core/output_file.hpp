// Files the GUI writes for the user (figures, tables, reports): the figure format a
// path asks for and the atomic write every export goes through.
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace libra::studio {

enum class FigureFormat { Png, Svg, Pdf };
// By the file's suffix: .png, .svg or .pdf; nullopt otherwise.
std::optional<FigureFormat> figureFormatFor(const QString& path);

// Writes atomically through the engine (libra::writeFileAtomically).
bool writeFileAtomic(const QString& path, const QByteArray& bytes, QString* error);

}  // namespace libra::studio
