"""threadpoolctl in a process with libinvar_blas preloaded: it lists the library as an
OpenBLAS-style BLAS whose thread count is invar's, and threadpool_limits changes invar's count.

threadpoolctl recognises BLAS libraries by file name (libopenblas*, libblis*, libmkl_rt*; a
libblas.so.3 is skipped on Linux), so libinvar_blas.so is registered here under its own name with
threadpoolctl's OpenBLAS controller, which drives it through the openblas_* functions it exports.
Without that registration threadpoolctl does not see it; that is checked too, so this script
fails if the registration becomes unnecessary or the preload is missing.

    LD_PRELOAD=<libdir>/libinvar_blas.so python3 scripts/threadpoolctl_through_invar.py <libdir>
"""
import ctypes
import os
import sys

import threadpoolctl


def register_invar_blas():
    prefix = "libinvar_blas"
    if hasattr(threadpoolctl, "register"):  # threadpoolctl >= 3.5: controller classes
        class InvarBlasController(threadpoolctl.OpenBLASController):
            filename_prefixes = (prefix,)
            check_symbols = ("openblas_get_num_threads",)

        threadpoolctl.register(InvarBlasController)
    else:  # threadpoolctl 3.0 - 3.4: a table of file name prefixes per controller
        entry = threadpoolctl._SUPPORTED_LIBRARIES["OpenBLASController"]
        entry["filename_prefixes"] = tuple(entry["filename_prefixes"]) + (prefix,)
        threadpoolctl._ALL_PREFIXES.append(prefix)


def main():
    libdir = sys.argv[1]
    blas_path = os.path.realpath(os.path.join(libdir, "libinvar_blas.so"))
    invar = ctypes.CDLL(os.path.join(libdir, "libinvar.so"))
    invar.invar_isa.restype = ctypes.c_char_p

    def ours(info):
        return [lib for lib in info if lib.get("filepath") == blas_path]

    failures = []
    if ours(threadpoolctl.threadpool_info()):
        failures.append("threadpoolctl lists libinvar_blas without registration")
    register_invar_blas()
    found = ours(threadpoolctl.threadpool_info())
    if len(found) != 1:
        print(f"FAILED threadpoolctl {threadpoolctl.__version__}: libinvar_blas ({blas_path}) not "
              f"listed: {threadpoolctl.threadpool_info()}")
        return 1
    lib = found[0]
    before = invar.invar_get_num_threads()
    expected = {"user_api": "blas", "internal_api": "openblas", "num_threads": before,
                "threading_layer": "pthreads", "architecture": invar.invar_isa().decode()}
    for key, value in expected.items():
        if lib.get(key) != value:
            failures.append(f"{key} is {lib.get(key)!r}, expected {value!r}")

    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        inside = invar.invar_get_num_threads()
    after = invar.invar_get_num_threads()
    if inside != 1:
        failures.append(f"threadpool_limits(1) left invar at {inside} threads")
    if after != before:
        failures.append(f"leaving threadpool_limits restored {after}, expected {before}")

    if failures:
        print(f"FAILED threadpoolctl {threadpoolctl.__version__}: " + "; ".join(failures))
        return 1
    print(f"ok     threadpoolctl {threadpoolctl.__version__} lists libinvar_blas "
          f"({lib['internal_api']}, {lib['num_threads']} threads, {lib['architecture']}); "
          f"threadpool_limits(1) set invar to {inside}, then back to {after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
