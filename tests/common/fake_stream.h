// A stream of no device, for tests of the autotuner alone: it has an id and nothing to wait for.
// It has no StreamKind, so a device's kernel refuses it (which tests of the refusal rely on).
#pragma once

#include "impl/kernel.h"

namespace safetune::testing {

class FakeStream : public Stream {
 public:
  explicit FakeStream(int id) : id_(id) {}
  void synchronize() override {}
  int id() const override { return id_; }

 private:
  int id_;
};

}  // namespace safetune::testing
