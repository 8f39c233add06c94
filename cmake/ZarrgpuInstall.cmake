# `cmake --install`: the public headers, the library, and a CMake package so
# that another project builds on it with
#     find_package(zarrgpu 0.1 REQUIRED)
#     target_link_libraries(app PRIVATE zarrgpu::zarrgpu)
# (examples/cpp/read_array; tests/install checks it end to end).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ZARRGPU_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/zarrgpu)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/zarrgpu
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development
        FILES_MATCHING PATTERN "*.hpp")
install(TARGETS zarrgpu EXPORT zarrgpuTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT zarrgpuTargets NAMESPACE zarrgpu:: DESTINATION ${ZARRGPU_INSTALL_CMAKEDIR}
        COMPONENT development)

# A static library carries its private dependencies into the consumer's link;
# the package config finds them again (find_dependency) before the targets load.
get_target_property(_zarrgpu_type zarrgpu TYPE)
if(_zarrgpu_type STREQUAL "STATIC_LIBRARY")
  set(ZARRGPU_STATIC ON)
else()
  set(ZARRGPU_STATIC OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/zarrgpuConfig.cmake.in
  ${PROJECT_BINARY_DIR}/zarrgpuConfig.cmake INSTALL_DESTINATION ${ZARRGPU_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/zarrgpuConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/zarrgpuConfig.cmake ${PROJECT_BINARY_DIR}/zarrgpuConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/ZarrgpuDependency.cmake
        DESTINATION ${ZARRGPU_INSTALL_CMAKEDIR} COMPONENT development)
