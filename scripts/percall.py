#!/usr/bin/env python3
"""Instructions per small product, counted by callgrind (valgrind --tool=callgrind).

Runs build/<dir>/bench/invar_bench_percall (built with -DINVAR_BUILD_BENCH=ON) under callgrind
for square products, counting only its run_calls() (the first call, which sets the library up,
is not counted), and prints per call: every instruction of the call, those of the kernels
(functions in invar::kernels, the type-erasing wrappers excepted), and the rest, the call's fixed
cost (validation, dispatch, planning, the floating-point mode guard). With --detail, the split by
function. Instruction counts repeat from run to run, unlike times on a shared machine.

Valgrind runs the AVX2 path on AVX-512 machines (it does not emulate AVX-512), so the kernels
counted are the AVX2 ones; the fixed cost around them is the same code on every x86-64 path.

Sizes are squares (8: 8 x 8 x 8) or M x N x K (5x8x8). --api ct: the C API over a transposed B.

  scripts/percall.py [--build build/release] [--sizes 4,8,16,5x8x8] [--types f32,f64]
                     [--api c|cpp|ct|batch] [--calls 2000] [--detail]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def functions(outfile):
    """{function name: exclusive Ir} from callgrind_annotate."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", outfile],
                          capture_output=True, text=True, check=True).stdout
    result = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)$", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        name = m.group(2)
        name = re.sub(r"^[^:]*:", "", name, count=1)  # the source file, ??? when unknown
        name = re.sub(r"\s*\[[^\]]*\]$", "", name)  # the object file
        result[name] = result.get(name, 0) + int(m.group(1).replace(",", ""))
    return result


def is_kernel(name):
    """A function of invar::kernels (the signature's types aside), its type-erasing wrappers
    excepted."""
    qualified = name.replace("(anonymous namespace)", "").split("(")[0]
    return "invar::kernels::" in qualified and "erased" not in qualified


def short(name, width=100):
    name = re.sub(r"\(anonymous namespace\)::", "", name)
    name = re.sub(r"std::__cxx11::basic_string<char, std::char_traits<char>, "
                  r"std::allocator<char> >", "std::string", name)
    return name if len(name) <= width else name[:width - 3] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--sizes", default="4,8,16")
    ap.add_argument("--types", default="f32,f64")
    ap.add_argument("--api", default="c", choices=["c", "cpp", "ct", "batch"])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--detail", action="store_true")
    args = ap.parse_args()
    exe = os.path.join(args.build, "bench", "invar_bench_percall")
    if not os.access(exe, os.X_OK):
        sys.exit(f"{exe} not found: configure with -DINVAR_BUILD_BENCH=ON and build "
                 "invar_bench_percall")
    print(f"{'type':4} {'shape':>10} {'Ir/call':>9} {'kernel':>8} {'fixed cost':>10}   ({args.api} API,"
          f" {args.calls} calls)")
    # One thread: callgrind collects only in the thread that runs run_calls, so the entries of a
    # batch dealt to the pool's threads would go uncounted.
    env = dict(os.environ, INVAR_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        for t in args.types.split(","):
            for s in args.sizes.split(","):
                shape = s.split("x") if "x" in s else [s, s, s]
                if len(shape) != 3:
                    sys.exit(f"bad size {s}: N or MxNxK")
                label = s if "x" in s else s + "^3"
                out = os.path.join(tmp, f"cg.{t}.{s}")
                subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=*run_calls*",
                                f"--callgrind-out-file={out}", exe, t, args.api, *shape,
                                str(args.calls)], check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=env)
                fn = functions(out)
                # The loop of run_calls itself is the driver's, not the library's.
                total = sum(v for k, v in fn.items() if "run_calls" not in k) / args.calls
                kernel = sum(v for k, v in fn.items() if is_kernel(k)) / args.calls
                print(f"{t:4} {label:>10} {total:9.0f} {kernel:8.0f} {total - kernel:10.0f}")
                if args.detail:
                    for name, v in sorted(fn.items(), key=lambda kv: -kv[1]):
                        if "run_calls" in name or v / args.calls < 0.5:
                            continue
                        tag = "K" if is_kernel(name) else " "
                        print(f"      {v / args.calls:8.1f} {tag} {short(name)}")


if __name__ == "__main__":
    main()
