# Cross build for 64-bit ARM Linux with Debian's cross toolchain, run under qemu-user.
#
#   apt-get install g++-aarch64-linux-gnu qemu-user
#   dpkg --add-architecture arm64 && apt-get update && apt-get install libssl-dev:arm64  # tool
#   cmake -S . -B build/aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#   ctest --test-dir build/aarch64        # every test binary runs under qemu-aarch64
#
# Libraries, headers and CMake packages are looked up only under the target root, never in the
# host's own directories: a host (x86-64) libgtest or libcrypto must not be linked into an
# aarch64 binary. GoogleTest is therefore built from /usr/src/googletest (tests/CMakeLists.txt).
# Two host-side packages are named explicitly because Debian installs them outside that root:
#   CLI11   header-only and architecture-independent (libcli11-dev, /usr/share/cmake/CLI11);
#   OpenSSL libssl-dev:arm64, a Debian multiarch package (/usr/lib/aarch64-linux-gnu), whose
#           directories the cross compiler and linker already search.
# pkg-config, if FindOpenSSL asks it, describes the arm64 packages, not the host's.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(INVAR_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${INVAR_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${INVAR_CROSS_TRIPLE}-g++)

set(CMAKE_FIND_ROOT_PATH /usr/${INVAR_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)   # build tools run on the host
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${INVAR_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)

# Test executables (ctest, and any add_custom_command running a built target) go through qemu.
# -L makes the target's dynamic loader the cross toolchain's. That loader also searches the
# multiarch directories (/lib/aarch64-linux-gnu), where libc6:arm64, pulled in by libssl3:arm64,
# is a different build of glibc; LD_LIBRARY_PATH keeps libc, libstdc++ and libgcc_s from the
# same tree as the loader, and only libraries absent there (libcrypto) come from multiarch.
find_program(INVAR_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(INVAR_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${INVAR_QEMU_AARCH64} -L /usr/${INVAR_CROSS_TRIPLE}
      -E LD_LIBRARY_PATH=/usr/${INVAR_CROSS_TRIPLE}/lib)
endif()

# CLI11: the config file is plain CMake plus headers in /usr/include, which the cross compiler
# searches anyway (after its own target directories).
if(NOT DEFINED CLI11_DIR AND EXISTS /usr/share/cmake/CLI11/CLI11Config.cmake)
  set(CLI11_DIR /usr/share/cmake/CLI11 CACHE PATH "CLI11 package directory")
endif()

# OpenSSL (only when the arm64 library is installed; otherwise configure with
# -DINVAR_BUILD_TOOLS=OFF). The architecture-dependent headers live in
# /usr/include/aarch64-linux-gnu, which the cross compiler searches before /usr/include.
set(_invar_crypto /usr/lib/${INVAR_CROSS_TRIPLE}/libcrypto.so)
if(EXISTS ${_invar_crypto} AND EXISTS /usr/include/openssl/opensslv.h)
  set(OPENSSL_INCLUDE_DIR /usr/include CACHE PATH "OpenSSL headers")
  set(OPENSSL_CRYPTO_LIBRARY ${_invar_crypto} CACHE FILEPATH "OpenSSL libcrypto (arm64)")
  if(EXISTS /usr/lib/${INVAR_CROSS_TRIPLE}/libssl.so)
    set(OPENSSL_SSL_LIBRARY /usr/lib/${INVAR_CROSS_TRIPLE}/libssl.so
        CACHE FILEPATH "OpenSSL libssl (arm64)")
  endif()
endif()
unset(_invar_crypto)
