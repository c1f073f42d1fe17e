# ffn_bench: one training step of the tiny MLP (Adam + BCE, batch 256, 2 -> H -> H -> 1 GELU), float32, one
# thread; runs tests/bench/torch_ffn.py in the same run when /usr/bin/python3 can import torch and prints
# the ratios. Included from tests/bench/CMakeLists.txt (which finds benchmark).
if(NOT TARGET benchmark::benchmark)
  find_package(benchmark REQUIRED)
endif()
add_executable(ffn_bench ${CMAKE_CURRENT_LIST_DIR}/ffn_bench.cpp)
target_link_libraries(ffn_bench PRIVATE gelu::core benchmark::benchmark gelu_warnings gelu_arch)
target_compile_definitions(ffn_bench PRIVATE GELU_TORCH_FFN_SCRIPT="${CMAKE_CURRENT_LIST_DIR}/torch_ffn.py")
