#pragma once
// oneDNN (Debian's build) runs on OpenMP, whose idle threads spin for a while after each
// parallel region by default and so take a core from the next thing we run (measured here:
// oneDNN 17 ms instead of 9 ms, and our own solvers slowed alike). libgomp reads
// OMP_WAIT_POLICY only when it is loaded, so a program that wants passive waiting must have
// it in its environment from the start.

namespace ucudnn::cpu {

// For main(): when OMP_WAIT_POLICY is unset, sets it to passive and re-executes the
// program (argv[0] through /proc/self/exe) with the same arguments. Returns only when no
// re-execution was needed or it failed.
void relaunch_with_passive_openmp(char** argv);

}  // namespace ucudnn::cpu
