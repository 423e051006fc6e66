# In a ThreadSanitizer build: TSan itself must see stale-publish's data race (issue 3 asks that
# "TSan should see it on the release build with TSan"), independently of the model, which the
# catch table checks with TSan reports turned off. Runs the subject with reports on but not
# fatal, and passes only when stderr holds a ThreadSanitizer data race inside the subject.
#   -DSAFETUNE=<safetune binary> -DSEED=<seed>
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env "TSAN_OPTIONS=halt_on_error=0 exitcode=66"
          ${SAFETUNE} stress --subject stale-publish --seed ${SEED}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "WARNING: ThreadSanitizer: data race" race_at)
string(FIND "${err}" "stale_publish" subject_at)
if(race_at EQUAL -1 OR subject_at EQUAL -1)
  message(FATAL_ERROR "ThreadSanitizer reported no data race in stale-publish (exit ${status}):\n${err}")
endif()
if(NOT status EQUAL 66 AND NOT status EQUAL 1)
  message(FATAL_ERROR "expected TSan's exit code 66 or the model's 1, got ${status}")
endif()
message(STATUS "ThreadSanitizer saw stale-publish's data race (exit ${status})")
