# The installed CMake package (docs/scenarios.md, "Linking a generated test"): a user's
# project links a test that `isrcheck export --format gtest` wrote in one line,
#
#   find_package(isrcheck REQUIRED)
#   target_link_libraries(my_test PRIVATE isrcheck::model_cluster GTest::gtest_main)
#
# isrcheck::model_cluster brings the model adapter (counterexamples/export/model_cluster.h,
# which defines make_cluster_under_test), the libraries below it and their dependencies
# (nlohmann_json, Boost.Graph, xxHash); isrcheck::cluster_under_test is the interface
# header alone, for a user's own adapter. `cmake --install build --prefix P` installs
# them, the headers and the isrcheck binary; tests/cmake_package/ builds a separate
# project against such a prefix (ctest cmake_package_links_a_generated_test).
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

# The libraries' headers are found in the source tree when building, in the prefix's
# include/ once installed.
foreach(target isrcheck_io isrcheck_model isrcheck_counterexamples)
  set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES
               $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/isrcheck>)
endforeach()
set_property(TARGET isrcheck_checker PROPERTY INTERFACE_INCLUDE_DIRECTORIES
             $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/isrcheck>)

add_library(isrcheck_model_cluster INTERFACE)
target_link_libraries(isrcheck_model_cluster INTERFACE isrcheck_counterexamples)
add_library(isrcheck_cluster_under_test INTERFACE)
target_include_directories(isrcheck_cluster_under_test INTERFACE
                           $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/isrcheck>)
set_target_properties(isrcheck_model_cluster PROPERTIES EXPORT_NAME model_cluster)
set_target_properties(isrcheck_cluster_under_test PROPERTIES EXPORT_NAME cluster_under_test)

# isrcheck_warnings is exported only because static libraries carry their private link
# items ($<LINK_ONLY:...>); it adds no flag to the user's code.
install(TARGETS isrcheck_model_cluster isrcheck_cluster_under_test isrcheck_counterexamples isrcheck_model
                isrcheck_io isrcheck_checker isrcheck_xxhash isrcheck_warnings
        EXPORT isrcheckTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS isrcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(room io checker spec counterexamples)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${room} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/isrcheck
          FILES_MATCHING PATTERN "*.h")
endforeach()
install(EXPORT isrcheckTargets NAMESPACE isrcheck:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/isrcheck)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/isrcheckConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/isrcheckConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/isrcheck)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/isrcheckConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/isrcheckConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/isrcheckConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/isrcheck)

# A separate project, configured and built against a fresh install of this build (with
# this build's sanitizer flags, which instrumented libraries need at the user's link).
string(JOIN " " ISRCHECK_PACKAGE_USER_FLAGS ${ISRCHECK_SANITIZER_FLAGS})
add_test(NAME cmake_package_links_a_generated_test
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cmake_package/run.sh ${CMAKE_BINARY_DIR}
                 ${ISRCHECK_SCENARIO_DIR}/acks1_leader_loss_test.cc ${CMAKE_CURRENT_BINARY_DIR}/cmake-package
                 "${ISRCHECK_PACKAGE_USER_FLAGS}")
set_tests_properties(cmake_package_links_a_generated_test PROPERTIES LABELS fast TIMEOUT 900)
