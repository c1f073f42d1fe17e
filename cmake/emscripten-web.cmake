# The web build's toolchain: Debian's emscripten (package emscripten, 3.1.6) compiling the same core/ and app/
# sources to WebAssembly. Used by `tools/dev.sh web`:
#   cmake -S . -B build-web -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/emscripten-web.cmake \
#         -DGELU_IMGUI_SOURCE_DIR=<Debian's imgui 1.86 source, unpacked>
# It gives two targets: gelulab-cli (build-web/gelulab-cli.js, the command line under node) and gelulab-site
# (build-web/site/: index.html, gelulab.js, gelulab.wasm, gelulab.data). What the browser cannot have is off:
# the OpenGL compute backend (WebGL2 has no compute shaders), threads (they need cross-origin-isolation headers
# that a static host cannot send), -march=native, and what only runs on the desktop (tests' executables,
# benchmarks, the Python module, the optional peers).
find_program(GELU_EMCC emcc PATHS /usr/bin /usr/lib/emscripten NO_CACHE)
if(NOT GELU_EMCC)
  message(FATAL_ERROR "emcc not found: apt install emscripten (tools/dev.sh web does)")
endif()
get_filename_component(_gelu_emcc_real ${GELU_EMCC} REALPATH)
get_filename_component(_gelu_em_root ${_gelu_emcc_real} DIRECTORY)
# Debian installs emcc as a link into /usr/share/emscripten, whose CMake platform file sets the compilers,
# the sysroot and the .js suffix.
set(_gelu_em_platform ${_gelu_em_root}/cmake/Modules/Platform/Emscripten.cmake)
if(NOT EXISTS ${_gelu_em_platform})
  message(FATAL_ERROR "emscripten's CMake platform file is not at ${_gelu_em_platform}")
endif()
include(${_gelu_em_platform})

set(GELU_WEB ON CACHE BOOL "the WebAssembly build (cmake/emscripten-web.cmake)" FORCE)
set(GELU_NATIVE OFF CACHE BOOL "" FORCE)
set(GELU_BUILD_GPU OFF CACHE BOOL "" FORCE)
set(GELU_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(GELU_BUILD_BENCH OFF CACHE BOOL "" FORCE)
set(GELU_BUILD_PYTHON OFF CACHE BOOL "" FORCE)
set(GELU_BUILD_TOOLS OFF CACHE BOOL "" FORCE)
set(GELU_FUZZ OFF CACHE BOOL "" FORCE)
# Header-only Eigen from Debian's libeigen3-dev: its CMake package lies outside emscripten's sysroot, to which
# the platform file confines find_package.
set(Eigen3_DIR /usr/share/eigen3/cmake CACHE PATH "" FORCE)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# C++ exceptions carry the usage errors and file problems (the platform's default aborts on a throw); SIMD128
# for the vectorized float paths.
set(CMAKE_CXX_FLAGS_INIT "-fexceptions -msimd128")
set(CMAKE_C_FLAGS_INIT "-msimd128")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fexceptions")
# emcc's JavaScript passes load Debian's node-acorn from /usr/share/nodejs, where Debian's nodejs looks by
# itself; a node from elsewhere on PATH (e.g. a nodesource build) needs NODE_PATH.
set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
