// The results `invar fingerprint` hashes, in its order (testing/fingerprint_problems.h):
// invar.fingerprint() hashes these bytes with SHA-256 and so prints the command's string.
#include "python/src/fingerprint.h"

#include "testing/fingerprint_problems.h"

namespace invar::python {

std::string fingerprint_results() {
  std::string out;
  test::fingerprint_results([&](const std::string&, const auto& c) {
    out.append(reinterpret_cast<const char*>(c.data()), c.size() * sizeof(c[0]));
  });
  return out;
}

}  // namespace invar::python
