# Runs the rxt binary once and checks its exit code and output:
#   cmake -DRXT=<rxt> "-DARGS=show|file.rxt" -DEXIT=1 "-DSTDOUT=regex" "-DSTDERR=regex"
#         ["-DNO_STDOUT=regex"] [-DENV=NAME=VALUE] -P run_rxt.cmake
# ARGS are separated by | (a ; would be split by add_test). An exit code that is not a
# number (a crash: "Segmentation fault") never matches EXIT.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" args "${ARGS}")
if(DEFINED ENV_VAR)
  string(REGEX MATCH "^([^=]+)=(.*)$" _ "${ENV_VAR}")
  set(ENV{${CMAKE_MATCH_1}} "${CMAKE_MATCH_2}")
endif()
execute_process(COMMAND ${RXT} ${args} RESULT_VARIABLE exit OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(report "rxt ${args}\n-- exit: ${exit}\n-- stdout:\n${out}\n-- stderr:\n${err}")
if(NOT "${exit}" STREQUAL "${EXIT}")
  message(FATAL_ERROR "expected exit code ${EXIT}\n${report}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "stdout does not match '${STDOUT}'\n${report}")
endif()
if(DEFINED STDERR AND NOT err MATCHES "${STDERR}")
  message(FATAL_ERROR "stderr does not match '${STDERR}'\n${report}")
endif()
if(DEFINED NO_STDOUT AND out MATCHES "${NO_STDOUT}")
  message(FATAL_ERROR "stdout matches '${NO_STDOUT}' but should not\n${report}")
endif()
if("${EXIT}" STREQUAL "0" AND NOT "${err}" STREQUAL "" AND NOT ALLOW_STDERR)
  message(FATAL_ERROR "a successful run printed to stderr\n${report}")
endif()
