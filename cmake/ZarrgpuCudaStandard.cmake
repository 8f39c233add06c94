# zarrgpu_cuda20_standard_flag()
# CMake before 3.26 does not know nvcc's C++20 flag (its CUDA20 compile option is
# empty, so CUDA_STANDARD 20 fails to configure with nvcc 13). Call it once after
# enable_language(CUDA) in the top directory: subdirectories inherit the variables,
# so every CUDA target (the Zstd, LZ4 and Blosc GPU decoders, the GPU tests) gets it.
# Newer CMake already knows the flag and the function leaves it alone.
function(zarrgpu_cuda20_standard_flag)
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20" PARENT_SCOPE)
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20" PARENT_SCOPE)
  endif()
endfunction()
