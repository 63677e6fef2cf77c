// A Libra Studio document: the engine's Project value, the file it lives in and the
// undo stack of its edits. Every change goes through edit(), which pushes a
// ProjectEditCommand; the modified mark follows the stack's clean state.
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <functional>
#include <libra/edits.hpp>
#include <libra/project.hpp>

#include "commands.hpp"

namespace libra::studio {

class Document : public QObject {
  Q_OBJECT

 public:
  // The parts of a project an edit can change; projectChanged() says which did,
  // so views re-read only what concerns them.
  enum Part : unsigned {
    Name = 1u << 0,
    Network = 1u << 1,
    CostModel = 1u << 2,
    Workloads = 1u << 3,
    Model = 1u << 4,  // training loop and collective model
    Constraints = 1u << 5,
    Objective = 1u << 6,
    ViewState = 1u << 7,  // Project::uiState
    // The list of scenarios: names, the inactive ones, which one is active.
    // Switching scenarios changes this and whatever differs between the two.
    Scenarios = 1u << 8,
    Everything = (1u << 9) - 1,
  };
  Q_DECLARE_FLAGS(Parts, Part)
  Q_FLAG(Parts)
  // What differs between two projects (field by field; workloads compare their
  // shared layer lists by pointer first, so this is cheap).
  static Parts differences(const Project& a, const Project& b);
  // Undo steps kept; older ones are dropped. A step holds two projects whose
  // workloads are shared with the document, so a step costs the network,
  // constraints and view state it holds, a few kilobytes.
  static constexpr int kUndoLimit = 500;

  explicit Document(Project project = {}, QObject* parent = nullptr);

  const Project& project() const { return project_; }
  QUndoStack* undoStack() { return &undoStack_; }

  // Empty for a document that was never saved.
  QString filePath() const { return filePath_; }
  void setFilePath(const QString& path);
  // The file name, or the project name with "(unsaved)" for a new document.
  QString displayName() const;
  bool isModified() const { return !undoStack_.isClean(); }

  // Applies `change` to a copy of the project and pushes the edit as one undoable
  // command named `text`; edits with the same non-empty key merge. A project
  // name nobody chose follows the edit (libra::followDescribedName). Returns false
  // (and pushes nothing) when the change leaves the project as it was.
  bool edit(const QString& text, const std::function<void(Project&)>& change,
            const MergeKey& key = {});
  // The same for the engine's edits that report what they did beyond the request
  // (libra/edits.hpp: constraints removed with a dimension). When the edit is
  // pushed and its report has notes, editReported() announces them.
  bool reportingEdit(const QString& text, const std::function<EditReport(Project&)>& change,
                     const MergeKey& key = {});
  // A fresh id for a merge session (one slider drag, one typing burst).
  quint64 newMergeSession() { return ++mergeSession_; }

  // Loads a project file. Throws libra::InputError (or std::exception) naming the
  // file and what is wrong.
  static Project loadFile(const QString& path);
  // Saves atomically through the engine's writer and marks the stack clean.
  // Throws on failure; the document is unchanged then.
  void saveTo(const QString& path);

  // Starts over with `project` (New, Open, Import): clears the undo history and
  // marks the document unmodified.
  void reset(Project project, const QString& filePath);

  // Used by the undo commands only.
  void replaceProject(const Project& project);

 Q_SIGNALS:
  // After every change: an edit, an undo or redo (the parts that differ), or a
  // reset (Everything).
  void projectChanged(libra::studio::Document::Parts parts);
  void filePathChanged();
  // After reset(): a different project, not an edit of this one.
  void documentReset();
  void modifiedChanged(bool modified);
  // What an edit did that the user did not ask for, in a sentence or more.
  void editReported(const QString& notes);
  // A value typed into a panel that was not applied, and why (the panel shows
  // the project's value again).
  void inputRefused(const QString& why);

 private:
  Project project_;
  QString filePath_;
  QUndoStack undoStack_;
  quint64 mergeSession_ = 0;
};

}  // namespace libra::studio

Q_DECLARE_OPERATORS_FOR_FLAGS(libra::studio::Document::Parts)
