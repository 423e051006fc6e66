# Configures the project in a scratch folder as if rapidcheck were not installed
# (CMAKE_DISABLE_FIND_PACKAGE_rapidcheck), once as the CI presets do (SAFETUNE_REQUIRE_ALL_SUITES
# ON: configure must fail and name rapidcheck) and once as the GPU runner does (OFF: configure
# succeeds, and its STATUS line says the property tests are left out).
# Usage: cmake -DSOURCE=DIR -DWORK=DIR -DGENERATOR=NAME -DCXX=COMPILER -P missing_suite.cmake
function(configure require out_result out_log)
  set(build "${WORK}/require-${require}")
  file(REMOVE_RECURSE "${build}")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${build}" -G "${GENERATOR}"
            -DCMAKE_CXX_COMPILER=${CXX} -DSAFETUNE_REQUIRE_ALL_SUITES=${require}
            -DCMAKE_DISABLE_FIND_PACKAGE_rapidcheck=ON
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(${out_result} "${result}" PARENT_SCOPE)
  set(${out_log} "${output}" PARENT_SCOPE)
endfunction()

configure(ON result log)
if(result EQUAL 0)
  message(FATAL_ERROR "configure with SAFETUNE_REQUIRE_ALL_SUITES=ON and no rapidcheck succeeded:\n${log}")
endif()
if(NOT log MATCHES "rapidcheck")
  message(FATAL_ERROR "configure failed without naming rapidcheck:\n${log}")
endif()
message(STATUS "required and missing: configure failed, naming rapidcheck")

configure(OFF result log)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "configure with SAFETUNE_REQUIRE_ALL_SUITES=OFF and no rapidcheck failed:\n${log}")
endif()
if(NOT log MATCHES "rapidcheck[^\n]*not found: the property tests")
  message(FATAL_ERROR "configure left the property tests out without saying so:\n${log}")
endif()
message(STATUS "optional and missing: configure succeeded and said the property tests are not built")
file(REMOVE_RECURSE "${WORK}")
