#ifndef INVAR_PYTHON_FINGERPRINT_H_
#define INVAR_PYTHON_FINGERPRINT_H_

#include <string>

namespace invar::python {

// The bytes of every result `invar fingerprint` hashes, in its order.
std::string fingerprint_results();

}  // namespace invar::python

#endif  // INVAR_PYTHON_FINGERPRINT_H_
