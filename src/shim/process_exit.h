#pragma once
// Work for the end of the process that asked for it. A child made by fork() inherits what was
// registered with atexit, but not the work behind it: were it to run there, every child that
// ends with exit() would print its parent's accounts again, write the parent's unsaved results
// through a SQLite connection that must not be used after fork(), and wait forever for a lock
// that one of the parent's other threads held at the fork.

namespace ucudnn::shim {

// Runs `work` at the exit of this process only (not of a child forked from it), after the work
// registered later, as atexit does.
void at_exit_of_this_process(void (*work)());

}  // namespace ucudnn::shim
