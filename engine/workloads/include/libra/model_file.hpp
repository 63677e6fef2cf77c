// Models from files (`--model CONFIG.json`): a Hugging Face config.json as
// model cards publish it, or libra's own model file, which `libra presets
// --show ID --json` writes for every preset (so a preset is a starting point
// to edit). docs/workloads.md section 10 lists the keys read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libra/presets.hpp"

namespace libra {

inline constexpr std::string_view kModelFileFormat = "libra-model";
inline constexpr int kModelFileVersion = 1;

// The Hugging Face model types read (the "model_type" of config.json).
const std::vector<std::string>& huggingFaceModelTypes();

// libra's model file of `preset`: every hyperparameter, the batch, the
// recipe and the default parallelism, as JSON (indent < 0: one line).
std::string modelFileJson(const Preset& preset, int indent = 2);

// Reads either kind of model file. `source` names it in messages (a path, or
// "workloads[0].origin.model"). A Hugging Face config gives no training batch:
// its sequence length and global batch are 0 unless `sequenceLength` /
// `globalBatch` (> 0) are given, and the result is completed with
// completeModel. Throws InputError naming the file and the key: malformed
// JSON, an unknown model_type (listing the known ones), a missing or invalid
// key, an unknown key of a libra model file.
Preset parseModelFile(std::string_view text, const std::string& source);
Preset readModelFile(const std::string& path);

// Sets the sequence length and the global batch where given (> 0) and checks
// that the model has both: throws InputError naming `source` and the flag
// that gives the missing one (--sequence-length, --global-batch). Then
// validates the model.
void completeModel(Preset& model, const std::string& source, int sequenceLength,
                   std::int64_t globalBatch);

// Whether `preset` is a built-in preset, unchanged (then a project records its
// id only; any other model is stored in the project with the workload).
bool isBuiltInPreset(const Preset& preset);

}  // namespace libra
