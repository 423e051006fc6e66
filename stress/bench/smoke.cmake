# Runs safetune-bench briefly and feeds its JSON to overhead.py; fails if either fails.
execute_process(COMMAND ${BENCH} --benchmark_min_time=0.01 --benchmark_format=json
                        --benchmark_out=${OUT}
                RESULT_VARIABLE bench_result OUTPUT_QUIET)
if(NOT bench_result EQUAL 0)
  message(FATAL_ERROR "safetune-bench failed: ${bench_result}")
endif()
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${OUT} RESULT_VARIABLE script_result)
if(NOT script_result EQUAL 0)
  message(FATAL_ERROR "overhead.py failed on ${OUT}: ${script_result}")
endif()
