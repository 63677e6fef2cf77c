#include "examples.hpp"

#include <QFile>
#include <QObject>
#include <libra/error.hpp>
#include <libra/project_io.hpp>

namespace libra::studio {

const QList<ExampleInfo>& bundledExamples() {
  static const QList<ExampleInfo> examples{
      {QStringLiteral("gpt3-4d"), QObject::tr("GPT-3 175B on a 4D network (4 × 8 × 4 × 32 NPUs)"),
       QStringLiteral(":/examples/gpt3-4d.json")},
      {QStringLiteral("gpt3-3d"), QObject::tr("GPT-3 175B on a 3D network (16 × 8 × 32 NPUs)"),
       QStringLiteral(":/examples/gpt3-3d.json")},
  };
  return examples;
}

QString defaultExampleId() {
  return QStringLiteral("gpt3-4d");
}

Project loadExample(const QString& id) {
  for (const ExampleInfo& e : bundledExamples()) {
    if (e.id != id) continue;
    QFile file(e.resource);
    if (!file.open(QIODevice::ReadOnly)) {
      throw InputError("example '" + id.toStdString() + "': the bundled file " +
                       e.resource.toStdString() + " is missing from this build");
    }
    const QByteArray bytes = file.readAll();
    return projectFromJson(
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
        e.resource.toStdString());
  }
  throw InputError("example '" + id.toStdString() + "': there is no such bundled example");
}

}  // namespace libra::studio
