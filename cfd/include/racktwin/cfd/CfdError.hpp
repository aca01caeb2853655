#pragma once
// Errors of the CFD module. Bad specs are core::InputError (file, line, key); everything that goes
// wrong while running OpenFOAM is a CfdError, whose message names the program, the case and the
// log.
#include "racktwin/core/Error.hpp"

namespace racktwin::cfd {

/// An OpenFOAM run failed: non-zero exit, a signal, a timeout, unreadable results.
class CfdError : public core::RuntimeError {
 public:
  using core::RuntimeError::RuntimeError;
};

/// OpenFOAM is not installed where we look (WM_PROJECT_DIR, PATH).
class OpenFoamMissing : public CfdError {
 public:
  using CfdError::CfdError;
};

/// A solver diverged (NaN or exploding residuals) or did not converge within its iteration cap.
class SolverDiverged : public CfdError {
 public:
  using CfdError::CfdError;
};

}  // namespace racktwin::cfd
