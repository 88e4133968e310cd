/* The installed headers and the library agree on the version: INVAR_VERSION_STRING is what
 * invar_version() returns, and the numeric macros spell the same version. Built as C, so it also
 * shows that invar.h (with invar_version.h) is valid C. */
#include <invar/invar.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  char numeric[64];
  snprintf(numeric, sizeof numeric, "%d.%d.%d", INVAR_VERSION_MAJOR, INVAR_VERSION_MINOR,
           INVAR_VERSION_PATCH);
  if (strcmp(invar_version(), INVAR_VERSION_STRING) != 0 ||
      strcmp(numeric, INVAR_VERSION_STRING) != 0) {
    fprintf(stderr, "library %s, header string %s, header numbers %s\n", invar_version(),
            INVAR_VERSION_STRING, numeric);
    return 1;
  }
#if INVAR_VERSION != INVAR_VERSION_MAJOR * 10000 + INVAR_VERSION_MINOR * 100 + INVAR_VERSION_PATCH
#error INVAR_VERSION does not encode the version
#endif
  printf("invar %s: header and library agree\n", invar_version());
  return 0;
}
