#pragma once
// The names of ucudnn's environment variables, and what is said about a name close to one of
// them: a misspelt setting is otherwise ignored without a word, and the job runs as if it had
// not been set (UCUDNN_WORKSPACE_LIMT=8MiB plans within 64 MiB).
#include <string>
#include <string_view>
#include <vector>

namespace ucudnn {

// Every variable a part of ucudnn reads (the shim, the tool, ucudnn-run, the benchmarks).
const std::vector<std::string_view>& setting_names();

// For each UCUDNN_* variable of `environment` (NAME=VALUE entries, null-terminated, as
// `environ`) that is no setting but lies within a few typing mistakes of one: "UCUDNN_LOGLEVEL
// is no setting of ucudnn (did you mean UCUDNN_LOG_LEVEL?); it is ignored"; also a setting's
// name with one of its words left out or taken for a synonym (UCUDNN_TOTAL_WORKSPACE,
// UCUDNN_TOTAL_WORKSPACE_LIMIT), one word of a setting's name alone (UCUDNN_WORKSPACE), and a
// setting's name in lower case. Other names, more than two
// mistakes (one, in a short name) from every setting or a setting's with a word added, are left
// alone: programs and sites may use the prefix for their own variables.
std::vector<std::string> misspelt_settings(const char* const* environment);

}  // namespace ucudnn
