# cmake -P script (tests/install/CMakeLists.txt passes the variables).
# 1. installs the build into WORK_DIR/prefix;
# 2. checks that the installed headers include only zarrgpu's own and the
#    standard library's headers (no third-party type in the public API);
# 3. configures, builds and runs examples/cpp/read_array against that prefix
#    alone, and checks what it printed.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
# The C++ package's components only (the build may also hold the Python extension).
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component development)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component runtime)

foreach(required include/zarrgpu/array.hpp lib/cmake/zarrgpu/zarrgpuConfig.cmake
                 lib/cmake/zarrgpu/zarrgpuConfigVersion.cmake lib/cmake/zarrgpu/zarrgpuTargets.cmake)
  if(NOT EXISTS ${prefix}/${required})
    message(FATAL_ERROR "cmake --install did not install ${required}")
  endif()
endforeach()

file(GLOB_RECURSE headers ${prefix}/include/*)
foreach(h ${headers})
  file(STRINGS ${h} includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${includes})
    # Standard headers have no extension; ours are "zarrgpu/...".
    if(NOT line MATCHES "#[ \t]*include[ \t]*[<\"](zarrgpu/[a-z_0-9]+\\.hpp|[a-z_]+)[>\"]")
      message(FATAL_ERROR "installed header ${h} includes a header that is neither zarrgpu's nor standard: ${line}")
    endif()
  endforeach()
endforeach()

# A sanitizer build installs an instrumented static library: its consumer links
# the same sanitizers' runtimes, as any program using such a build must.
set(sanitize_flags)
if(SANITIZE)
  set(sanitize_flags -DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE} -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE})
endif()
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON
    ${sanitize_flags})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/read_array ${STORE} "0:10,:,5")
message(STATUS "read_array printed:\n${run_output}")
# v2_zstd1_f4_s1.zarr: float32 (64, 45, 33) in zstd chunks of 16^3; the sum as
# zarr-python reads it: float(zarr.open(store)[0:10, :, 5].astype("f8").sum()) == 112977 (%.6g).
if(NOT run_output MATCHES "array \\(64, 45, 33\\) float32" OR NOT run_output MATCHES "selection \\(10, 45\\): 1800 bytes"
   OR NOT run_output MATCHES "sum 112977\n")
  message(FATAL_ERROR "read_array printed something else:\n${run_output}")
endif()
