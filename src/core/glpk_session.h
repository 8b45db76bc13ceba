#pragma once
// Running GLPK inside a library: one program at a time in the process, nothing printed on the
// application's standard output, the thread's GLPK environment freed when this use made it,
// and problems owned (RAII). Used by the choice knapsack (choice_knapsack.cc).
#include <glpk.h>

#include <memory>
#include <mutex>

namespace ucudnn::glpk {

using GlpkProblem = std::unique_ptr<glp_prob, decltype(&glp_delete_prob)>;

// GLPK keeps environment state whose thread safety depends on how it was built; one
// program at a time costs nothing measurable here.
inline std::mutex& glpk_mutex() {
  static std::mutex mutex;
  return mutex;
}

// GLPK prints some routines' progress (glp_scale_prob's, unasked) to the process's standard
// output, which belongs to the application; silenced while a program is solved and restored
// for a thread that uses GLPK itself.
class GlpkSilence {
 public:
  GlpkSilence() : previous_(glp_term_out(GLP_OFF)) {}
  ~GlpkSilence() { glp_term_out(previous_); }
  GlpkSilence(const GlpkSilence&) = delete;
  GlpkSilence& operator=(const GlpkSilence&) = delete;

 private:
  int previous_;
};

// GLPK's environment is per thread and outlives the thread unless freed: a division made on
// a short-lived thread (a framework's worker) would leak it. Freed when this solve made it;
// one the thread had before (its own use of GLPK) is left alone.
class GlpkEnvironment {
 public:
  GlpkEnvironment() : made_here_(glp_init_env() == 0) {}
  ~GlpkEnvironment() {
    if (made_here_) glp_free_env();
  }
  GlpkEnvironment(const GlpkEnvironment&) = delete;
  GlpkEnvironment& operator=(const GlpkEnvironment&) = delete;

 private:
  bool made_here_;
};

// Solves `lp`'s LP relaxation from its current basis: true when GLPK settled it (optimal or
// infeasible). At weights of millions of units the floating-point simplex occasionally gives
// up; GLPK's rational-arithmetic simplex then solves it exactly.
inline bool solve_relaxation(glp_prob* lp) {
  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  const auto settled = [&] {
    const int status = glp_get_status(lp);
    return status == GLP_OPT || status == GLP_NOFEAS;
  };
  if (glp_simplex(lp, &simplex) == 0 && settled()) return true;
  return glp_exact(lp, &simplex) == 0 && settled();
}

}  // namespace ucudnn::glpk
