/* Symbol visibility of the public API. The library is built with hidden visibility by default, so
 * only what is marked INVAR_API is exported from the shared object. */
#ifndef INVAR_EXPORT_H_
#define INVAR_EXPORT_H_

#if defined(_WIN32)
#if defined(INVAR_BUILDING_SHARED)
#define INVAR_API __declspec(dllexport)
#elif defined(INVAR_USING_SHARED)
#define INVAR_API __declspec(dllimport)
#else
#define INVAR_API
#endif
#else
#define INVAR_API __attribute__((visibility("default")))
#endif

#endif /* INVAR_EXPORT_H_ */
