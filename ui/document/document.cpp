#include "document.hpp"

#include <QFileInfo>
#include <QStringList>
#include <libra/display_text.hpp>
#include <libra/project_io.hpp>

#include "format.hpp"

namespace libra::studio {

Document::Parts Document::differences(const Project& a, const Project& b) {
  Parts parts;
  if (a.name != b.name) parts |= Name;
  if (!(a.network == b.network)) parts |= Network;
  if (!(a.costModel == b.costModel) || a.costScope != b.costScope || a.npuPriceUsd != b.npuPriceUsd)
    parts |= CostModel;
  if (!(a.workloads == b.workloads)) parts |= Workloads;
  if (!(a.model == b.model)) parts |= Model;
  if (a.constraints != b.constraints) parts |= Constraints;
  if (a.objective != b.objective) parts |= Objective;
  if (a.uiState != b.uiState) parts |= ViewState;
  if (a.scenarioName != b.scenarioName || a.activeScenario != b.activeScenario ||
      !(a.otherScenarios == b.otherScenarios))
    parts |= Scenarios;
  return parts;
}

Document::Document(Project project, QObject* parent)
    : QObject(parent), project_(std::move(project)) {
  undoStack_.setUndoLimit(kUndoLimit);
  connect(&undoStack_, &QUndoStack::cleanChanged, this,
          [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
}

void Document::setFilePath(const QString& path) {
  if (path == filePath_) return;
  filePath_ = path;
  Q_EMIT filePathChanged();
}

QString Document::displayName() const {
  if (!filePath_.isEmpty()) return QFileInfo(filePath_).fileName();
  const QString name = shownText(project_.name, kDisplayTitleLimit);
  return name.isEmpty() ? tr("Untitled") : name + tr(" (unsaved)");
}

bool Document::edit(const QString& text, const std::function<void(Project&)>& change,
                    const MergeKey& key) {
  Project after = project_;
  change(after);
  followDescribedName(project_, after);  // a name nobody chose follows the content
  if (after == project_) return false;
  undoStack_.push(new ProjectEditCommand(this, text, project_, std::move(after), key));
  return true;
}

bool Document::reportingEdit(const QString& text, const std::function<EditReport(Project&)>& change,
                             const MergeKey& key) {
  EditReport report;
  const bool changed = edit(
      text, [&](Project& p) { report = change(p); }, key);
  if (changed && !report.empty()) {
    QStringList notes;
    for (const std::string& note : report.notes) {
      QString n = toQString(note);
      if (!n.isEmpty()) n[0] = n[0].toUpper();
      notes << n + QLatin1Char('.');
    }
    Q_EMIT editReported(notes.join(QLatin1Char(' ')));
  }
  return changed;
}

void Document::replaceProject(const Project& project) {
  const Parts parts = differences(project_, project);
  project_ = project;
  Q_EMIT projectChanged(parts);
}

void Document::reset(Project project, const QString& filePath) {
  undoStack_.clear();
  project_ = std::move(project);
  undoStack_.setClean();
  filePath_ = filePath;
  Q_EMIT filePathChanged();
  Q_EMIT documentReset();
  Q_EMIT projectChanged(Everything);
  Q_EMIT modifiedChanged(false);
}

Project Document::loadFile(const QString& path) {
  return libra::loadProject(path.toStdString());
}

void Document::saveTo(const QString& path) {
  libra::saveProject(project_, path.toStdString());
  setFilePath(path);
  undoStack_.setClean();
}

}  // namespace libra::studio
