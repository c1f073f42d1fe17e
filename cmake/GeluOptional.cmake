# Optional peers and tools. None of them can fail the configure: each is probed here, and when it is missing
# or broken its feature is turned off with one status line. The targets they define:
#   gelu::dnnl        oneDNN (libdnnl-dev) with OpenMP: benchmark peer and live peer of the precision lab.
#                     Found by header + library + a test link, not by oneDNN's CMake config, which fails the
#                     whole configure when its recommended OpenCL headers are missing (Debian installs
#                     libdnnl-dev without them under --no-install-recommends).
#   GELU_TORCH_PYTHON the Python that can `import torch` (python3-torch): numerics and speed peer in tests and
#                     benchmarks only, never a product dependency. Empty when absent.
#   GELU_MPMATH_PYTHON the Python that can `import mpmath` (python3-mpmath): reference tables' generators.
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

# [SECTION] oneDNN
set(GELU_HAVE_DNNL OFF)
find_package(OpenMP QUIET)
find_path(GELU_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(GELU_DNNL_LIBRARY dnnl)
if(NOT GELU_DNNL_INCLUDE_DIR OR NOT GELU_DNNL_LIBRARY)
  message(STATUS "oneDNN peer: off (libdnnl-dev not found; apt install libdnnl-dev)")
elseif(NOT OpenMP_CXX_FOUND)
  message(STATUS "oneDNN peer: off (OpenMP, which oneDNN runs on, not found)")
else()
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_INCLUDES ${GELU_DNNL_INCLUDE_DIR})
  set(CMAKE_REQUIRED_LIBRARIES ${GELU_DNNL_LIBRARY} OpenMP::OpenMP_CXX)
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles("#include <oneapi/dnnl/dnnl.hpp>
    int main() { dnnl::engine e(dnnl::engine::kind::cpu, 0); return dnnl_version()->major > 0 ? 0 : 1; }"
    GELU_DNNL_LINKS)
  cmake_pop_check_state()
  if(GELU_DNNL_LINKS)
    set(GELU_HAVE_DNNL ON)
    add_library(gelu_dnnl INTERFACE)
    add_library(gelu::dnnl ALIAS gelu_dnnl)
    target_include_directories(gelu_dnnl SYSTEM INTERFACE ${GELU_DNNL_INCLUDE_DIR})
    target_link_libraries(gelu_dnnl INTERFACE ${GELU_DNNL_LIBRARY} OpenMP::OpenMP_CXX)
    target_compile_definitions(gelu_dnnl INTERFACE GELU_HAVE_DNNL=1)
    message(STATUS "oneDNN peer: on (${GELU_DNNL_LIBRARY})")
  else()
    message(STATUS "oneDNN peer: off (${GELU_DNNL_LIBRARY} is there but a test program does not build or link)")
  endif()
endif()

# [SECTION] Python peers (tests and benchmarks only)
function(gelu_find_python_with module out)
  set(${out} "" PARENT_SCOPE)
  foreach(py /usr/bin/python3 python3)
    find_program(_py NAMES ${py} NO_CACHE)
    if(_py)
      execute_process(COMMAND ${_py} -c "import ${module}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET
                      TIMEOUT 60)
      if(rc EQUAL 0)
        set(${out} ${_py} PARENT_SCOPE)
        return()
      endif()
    endif()
    unset(_py)
  endforeach()
endfunction()
gelu_find_python_with(torch GELU_TORCH_PYTHON)
if(GELU_TORCH_PYTHON)
  message(STATUS "PyTorch peer: on (${GELU_TORCH_PYTHON})")
else()
  message(STATUS "PyTorch peer: off (no python3 that imports torch; apt install python3-torch)")
endif()
gelu_find_python_with(mpmath GELU_MPMATH_PYTHON)
if(NOT GELU_MPMATH_PYTHON)
  message(STATUS "mpmath: off (reference generators cannot be re-run; apt install python3-mpmath)")
endif()

# [SECTION] Sollya (libsollya-dev): certified error bounds for the approximation designer (gelu::fit_sollya,
# core/sollya). Found by header + library + a test link; gelu::core never needs it.
set(GELU_HAVE_SOLLYA OFF)
find_path(GELU_SOLLYA_INCLUDE_DIR sollya.h)
find_library(GELU_SOLLYA_LIBRARY sollya)
find_library(GELU_MPFR_LIBRARY mpfr)
find_library(GELU_GMP_LIBRARY gmp)
if(NOT GELU_SOLLYA_INCLUDE_DIR OR NOT GELU_SOLLYA_LIBRARY OR NOT GELU_MPFR_LIBRARY OR NOT GELU_GMP_LIBRARY)
  message(STATUS "Sollya certifier: off (libsollya-dev not found; apt install libsollya-dev): "
                 "gelulab fit reports sampled maximum errors")
else()
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_INCLUDES ${GELU_SOLLYA_INCLUDE_DIR})
  set(CMAKE_REQUIRED_LIBRARIES ${GELU_SOLLYA_LIBRARY} ${GELU_MPFR_LIBRARY} ${GELU_GMP_LIBRARY})
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles("#include <sollya.h>
    int main() { sollya_obj_t (*f)(sollya_obj_t, sollya_obj_t, sollya_obj_t, sollya_obj_t, sollya_obj_t) =
      sollya_lib_supnorm; return f && sollya_lib_init() == 0 ? sollya_lib_close() : 1; }" GELU_SOLLYA_LINKS)
  cmake_pop_check_state()
  if(GELU_SOLLYA_LINKS)
    set(GELU_HAVE_SOLLYA ON)
    add_library(gelu_sollya INTERFACE)
    add_library(gelu::sollya ALIAS gelu_sollya)
    target_include_directories(gelu_sollya SYSTEM INTERFACE ${GELU_SOLLYA_INCLUDE_DIR})
    target_link_libraries(gelu_sollya INTERFACE ${GELU_SOLLYA_LIBRARY} ${GELU_MPFR_LIBRARY} ${GELU_GMP_LIBRARY})
    message(STATUS "Sollya certifier: on (${GELU_SOLLYA_LIBRARY}): gelulab fit certifies polynomial candidates' "
                   "maximum errors with supnorm; tests/fit adds fit_sollya_tests")
  else()
    message(STATUS "Sollya certifier: off (${GELU_SOLLYA_LIBRARY} is there but a test program does not build or "
                   "link): gelulab fit reports sampled maximum errors")
  endif()
endif()

# [SECTION] Correctly rounded fits (libglpk-dev + libmpfr-dev): the designer's correctly rounded target
# (gelu::fit_cr, core/cr): an MPFR reference proven correct at rounding boundaries and GLPK's simplex over the
# rounding intervals. Found by headers + libraries + a test link; gelu::core never needs them.
set(GELU_HAVE_FIT_CR OFF)
find_path(GELU_GLPK_INCLUDE_DIR glpk.h)
find_library(GELU_GLPK_LIBRARY glpk)
find_path(GELU_MPFR_INCLUDE_DIR mpfr.h)
find_library(GELU_CR_MPFR_LIBRARY mpfr)
find_library(GELU_CR_GMP_LIBRARY gmp)
if(NOT GELU_GLPK_INCLUDE_DIR OR NOT GELU_GLPK_LIBRARY OR NOT GELU_MPFR_INCLUDE_DIR OR NOT GELU_CR_MPFR_LIBRARY
   OR NOT GELU_CR_GMP_LIBRARY)
  message(STATUS "Correctly rounded fits: off (libglpk-dev or libmpfr-dev not found; apt install libglpk-dev "
                 "libmpfr-dev): gelulab fit --correctly-rounded is unavailable")
else()
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_INCLUDES ${GELU_GLPK_INCLUDE_DIR} ${GELU_MPFR_INCLUDE_DIR})
  set(CMAKE_REQUIRED_LIBRARIES ${GELU_GLPK_LIBRARY} ${GELU_CR_MPFR_LIBRARY} ${GELU_CR_GMP_LIBRARY})
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles("#include <glpk.h>
    #include <mpfr.h>
    int main() { glp_prob* p = glp_create_prob(); glp_delete_prob(p); mpfr_t v; mpfr_init2(v, 64);
      mpfr_erfc(v, v, MPFR_RNDN); mpfr_clear(v); return 0; }" GELU_FIT_CR_LINKS)
  cmake_pop_check_state()
  if(GELU_FIT_CR_LINKS)
    set(GELU_HAVE_FIT_CR ON)
    add_library(gelu_glpk_mpfr INTERFACE)
    add_library(gelu::glpk_mpfr ALIAS gelu_glpk_mpfr)
    target_include_directories(gelu_glpk_mpfr SYSTEM INTERFACE ${GELU_GLPK_INCLUDE_DIR} ${GELU_MPFR_INCLUDE_DIR})
    target_link_libraries(gelu_glpk_mpfr INTERFACE ${GELU_GLPK_LIBRARY} ${GELU_CR_MPFR_LIBRARY} ${GELU_CR_GMP_LIBRARY})
    message(STATUS "Correctly rounded fits: on (${GELU_GLPK_LIBRARY}, ${GELU_CR_MPFR_LIBRARY}): gelulab fit "
                   "--correctly-rounded; tests/fit adds fit_cr_tests")
  else()
    message(STATUS "Correctly rounded fits: off (GLPK and MPFR are there but a test program does not build or "
                   "link): gelulab fit --correctly-rounded is unavailable")
  endif()
endif()
