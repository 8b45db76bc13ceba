#pragma once
// `ucudnn plan` on a machine without the device (planning for GPUs on a login node): the
// fingerprint is then the one in the database that has results for the network's kernels.
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ucudnn::cli {

// Fingerprint -> number of `backend` results for any of `kernel_keys` (micro-batch kernel
// texts), over the database files that can be read (the others are skipped).
std::map<std::string, std::size_t> fingerprints_with_results(
    const std::vector<std::string>& files, const std::set<std::string>& kernel_keys,
    const std::string& backend);

}  // namespace ucudnn::cli
