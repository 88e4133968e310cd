/* OpenBLAS's thread controls in libinvar_blas act on invar's default context: what
 * openblas_set_num_threads sets, invar_get_num_threads and openblas_get_num_threads read; below 1
 * restores the default, above 1024 is clamped; the self-description names invar. */
#include <cblas.h>
#include <invar/invar.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect_count(const char *what, int expected) {
  const int openblas = openblas_get_num_threads(), invar = invar_get_num_threads();
  if (openblas != expected || invar != expected) {
    fprintf(stderr, "%s: openblas_get_num_threads %d, invar_get_num_threads %d, expected %d\n",
            what, openblas, invar, expected);
    ++failures;
  }
}

int main(void) {
  const int default_count = invar_set_num_threads(0);
  if (default_count < 1) {
    fprintf(stderr, "no default context: %s\n", invar_last_error());
    return 1;
  }
  openblas_set_num_threads(1);
  expect_count("openblas_set_num_threads(1)", 1);
  openblas_set_num_threads(3);
  expect_count("openblas_set_num_threads(3)", 3);
  goto_set_num_threads(2);
  expect_count("goto_set_num_threads(2)", 2);
  openblas_set_num_threads(0);
  expect_count("openblas_set_num_threads(0)", default_count);
  openblas_set_num_threads(5);
  openblas_set_num_threads(-4);
  expect_count("openblas_set_num_threads(-4)", default_count);
  openblas_set_num_threads(1 << 20);
  expect_count("openblas_set_num_threads(1 << 20)", 1024);
  openblas_set_num_threads(0);

  if (openblas_get_parallel() != OPENBLAS_THREAD) {
    fprintf(stderr, "openblas_get_parallel() = %d\n", openblas_get_parallel());
    ++failures;
  }
  if (strncmp(openblas_get_config(), "invar ", 6) != 0 ||
      strstr(openblas_get_config(), invar_version()) == NULL) {
    fprintf(stderr, "openblas_get_config() = \"%s\"\n", openblas_get_config());
    ++failures;
  }
  if (strcmp(openblas_get_corename(), invar_isa()) != 0) {
    fprintf(stderr, "openblas_get_corename() = \"%s\", invar_isa() = \"%s\"\n",
            openblas_get_corename(), invar_isa());
    ++failures;
  }
  if (failures == 0)
    printf("OpenBLAS thread controls drive invar's default context (%s)\n", openblas_get_config());
  return failures == 0 ? 0 : 1;
}
