# docs/ops.md is what `rxt ops --markdown` prints: fails, saying how to regenerate it, when the
# registry changed and the page did not.
#   cmake -DRXT=<rxt> -DDOC=<docs/ops.md> -P ops_markdown.cmake
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${RXT} ops --markdown RESULT_VARIABLE exit OUTPUT_VARIABLE generated ERROR_VARIABLE err)
if(NOT exit EQUAL 0)
  message(FATAL_ERROR "rxt ops --markdown failed (${exit}):\n${err}")
endif()
file(READ "${DOC}" current)
if(NOT generated STREQUAL current)
  message(FATAL_ERROR "${DOC} is stale: regenerate it with\n  ${RXT} ops --markdown > ${DOC}")
endif()
