// cblas.h compiled as C++: the same checks as the C program (cblas_header_test.c).
#include "cblas_header_test.c"
