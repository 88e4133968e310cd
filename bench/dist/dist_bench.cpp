// libinvar_scalapack's PxGEMM against ScaLAPACK's own on the same BLACS grid, the same
// descriptors and the same local data; with one process, invar_dgemm / invar_sgemm of the whole
// matrices too (invar's shared-memory rate on the same cores).
//   mpirun -n P dist_bench <s|d> <n> <nprow> <npcol> [block 256] [reps 3]
// Prints one line per implementation: the best of reps wall times (barrier to barrier), GFLOP/s,
// and the bytes each process sends in the product by the SUMMA model (panel broadcasts as a root
// to the rest of its row or column; the redistribution is local when A and B are aligned with C,
// as here).
#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "invar/invar.h"
#include "invar/invar_dist.h"

extern "C" {
void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
}

namespace {

template <class T>
using PxGemm = void (*)(const char *, const char *, const int *, const int *, const int *,
                        const T *, const T *, const int *, const int *, const int *, const T *,
                        const int *, const int *, const int *, const T *, T *, const int *,
                        const int *, const int *);

template <class T>
int bench(int n, int nprow, int npcol, int nb, int reps) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *sym = sizeof(T) == 4 ? "psgemm_" : "pdgemm_";
  void *sl = dlopen(INVAR_BENCH_SCALAPACK_LIB, RTLD_LAZY | RTLD_NOLOAD);
  auto theirs = sl ? reinterpret_cast<PxGemm<T>>(dlsym(sl, sym)) : nullptr;
  auto ours = reinterpret_cast<PxGemm<T>>(dlsym(RTLD_DEFAULT, sym));
  Dl_info info{};
  if (!theirs || !ours || theirs == ours || !dladdr(reinterpret_cast<void *>(ours), &info) ||
      std::string(info.dli_fname).find("invar_scalapack") == std::string::npos) {
    if (rank == 0) std::fprintf(stderr, "dist_bench: cannot tell the two %s apart\n", sym);
    return 1;
  }
  // The BLAS under ScaLAPACK's PxGEMM: whichever library the process resolves ?gemm_ to.
  const char *blas_sym = sizeof(T) == 4 ? "sgemm_" : "dgemm_";
  Dl_info blas{};
  void *blas_fn = dlsym(RTLD_DEFAULT, blas_sym);
  if (rank == 0)
    std::printf("# ScaLAPACK's local %s from %s\n", blas_sym,
                blas_fn && dladdr(blas_fn, &blas) && blas.dli_fname ? blas.dli_fname : "(none)");
  int ctxt = 0, myrow, mycol, pr, pc;
  Cblacs_get(0, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", nprow, npcol);
  Cblacs_gridinfo(ctxt, &pr, &pc, &myrow, &mycol);
  const int64_t mloc = invar_dist_numroc(n, nb, myrow, 0, nprow);
  const int64_t nloc = invar_dist_numroc(n, nb, mycol, 0, npcol);
  const int ld = static_cast<int>(std::max<int64_t>(1, mloc));
  std::vector<T> a(mloc * nloc), b(mloc * nloc), c0(mloc * nloc), c(mloc * nloc);
  uint64_t s = 88172645463325252ull + rank;
  for (auto *v : {&a, &b, &c0})
    for (auto &x : *v) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      x = static_cast<T>((s >> 11) * (1.0 / 9007199254740992.0) - 0.5);
    }
  int desc[9] = {1, ctxt, n, n, nb, nb, 0, 0, ld};
  const int one = 1;
  const T alpha = 1, beta = 1;
  const double flops = 2.0 * n * n * static_cast<double>(n);
  // One timed call, barrier to barrier, C reset first.
  auto time_once = [&](auto &&call) {
    c = c0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    call();
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
  };
  auto pxgemm = [&](PxGemm<T> f) {
    return [&, f] {
      f("N", "N", &n, &n, &n, &alpha, a.data(), &one, &one, desc, b.data(), &one, &one, desc, &beta,
        c.data(), &one, &one, desc);
    };
  };
  auto shared = [&] {
    if constexpr (sizeof(T) == 4)
      invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, n, n, n, 1.0f, a.data(), n, b.data(), n, 1.0f,
                  c.data(), n);
    else
      invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, n, n, n, 1.0, a.data(), n, b.data(), n, 1.0,
                  c.data(), n);
  };
  // Bytes a process sends by the SUMMA model: its A panels to npcol - 1 others, its B panels to
  // nprow - 1 others (a flat broadcast; a tree sends about the same in total, spread out).
  const double sent = (static_cast<double>(mloc) * nloc * (npcol - 1) +
                       static_cast<double>(mloc) * nloc * (nprow - 1)) *
                      sizeof(T);
  // The best of reps for each, the implementations taking turns so that a slow spell of a shared
  // machine falls on all of them.
  double t_ours = 1e300, t_theirs = 1e300, t_shared = 0;
  for (int r = 0; r < reps; ++r) {
    t_ours = std::min(t_ours, time_once(pxgemm(ours)));
    t_theirs = std::min(t_theirs, time_once(pxgemm(theirs)));
    if (size == 1) {
      const double t = time_once(shared);
      t_shared = r == 0 ? t : std::min(t_shared, t);
    }
  }
  if (rank == 0) {
    const char t = sizeof(T) == 4 ? 's' : 'd';
    std::printf(
        "%cgemm n=%d grid %dx%d nb=%d invar_pxgemm %.3f s %.1f GFLOP/s | scalapack %.3f s "
        "%.1f GFLOP/s | invar/scalapack %.3f | sent per process %.1f MiB",
        t, n, nprow, npcol, nb, t_ours, flops / t_ours * 1e-9, t_theirs, flops / t_theirs * 1e-9,
        t_theirs / t_ours, sent / 1048576.0);
    if (t_shared > 0)
      std::printf(" | invar_%cgemm one process %.3f s %.1f GFLOP/s, pxgemm/shared %.3f", t,
                  t_shared, flops / t_shared * 1e-9, t_shared / t_ours);
    std::printf("\n");
    std::fflush(stdout);
  }
  Cblacs_gridexit(ctxt);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 5) {
    std::fprintf(stderr, "usage: dist_bench <s|d> <n> <nprow> <npcol> [block] [reps]\n");
    MPI_Finalize();
    return 2;
  }
  const int n = std::atoi(argv[2]), nprow = std::atoi(argv[3]), npcol = std::atoi(argv[4]);
  const int nb = argc > 5 ? std::atoi(argv[5]) : 256, reps = argc > 6 ? std::atoi(argv[6]) : 3;
  const int rc = argv[1][0] == 's' ? bench<float>(n, nprow, npcol, nb, reps)
                                   : bench<double>(n, nprow, npcol, nb, reps);
  MPI_Finalize();
  return rc;
}
