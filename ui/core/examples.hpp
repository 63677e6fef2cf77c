// The example projects compiled into the program (resources/examples/*.json): a
// 3D and a 4D network of 4,096 NPUs training GPT-3. The default one opens on start.
#pragma once

#include <QList>
#include <QString>
#include <libra/project.hpp>

namespace libra::studio {

struct ExampleInfo {
  QString id;        // "gpt3-4d"
  QString title;     // "GPT-3 175B on a 4D network (4,096 NPUs)"
  QString resource;  // ":/examples/gpt3-4d.json"
};

const QList<ExampleInfo>& bundledExamples();
QString defaultExampleId();
// Throws libra::InputError when the id is unknown or the resource is unreadable.
Project loadExample(const QString& id);

}  // namespace libra::studio
