# The trainer files of abi.distributed.*: the seed MLP (MODEL, batch 64) built for 32 samples
# per rank (2 ranks; --overlap in small buckets: under the test's MPI_Init, without threads, each
# start completes at once) and for 64 (one rank), data-parallel and accumulating, and plain for 64.
# The same seed: the same initial values.
#   cmake -DRXT=<rxt> -DWORK=<dir> -DMODEL=<examples/mlp.rxt> -P make_files.cmake
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY ${WORK})
file(READ ${MODEL} text)
string(REPLACE "(64," "(32," half "${text}")
file(WRITE ${WORK}/mlp32.rxt "${half}")
set(common --trainer --loss cross_entropy --loss-options "reduction=\"mean\"" --optimizer adam
    --optimizer-options "lr=0.01" --seed 4)
foreach(file "shard2.rxtt;${WORK}/mlp32.rxt;--data-parallel;--accumulate;--overlap;--bucket-mb;0.1" "shard1.rxtt;${MODEL};--data-parallel;--accumulate"
             "whole.rxtt;${MODEL}")
  list(POP_FRONT file out model)
  execute_process(COMMAND ${RXT} build ${model} ${common} ${file} -o ${WORK}/${out} RESULT_VARIABLE exit
                  OUTPUT_VARIABLE out_text ERROR_VARIABLE err_text)
  if(NOT exit EQUAL 0)
    message(FATAL_ERROR "rxt build ${model} ${file} failed (${exit}):\n${out_text}\n${err_text}")
  endif()
endforeach()
