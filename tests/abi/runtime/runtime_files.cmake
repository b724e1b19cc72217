# cmake -DRXT=rxt -DWORK=dir -DMODEL=mlp.rxt -P runtime_files.cmake: what runtime_test.c reads,
# made with the compiler (the rxt command).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
foreach(command
    "build;${MODEL};--trainer;--optimizer;sgd;--optimizer-options;lr=0.05;-o;${WORK}/mlp.rxtt"
    "build;${MODEL};--trainer;--backend;reference;-o;${WORK}/reference.rxtt"
    "build;${MODEL};--library;none;-o;${WORK}/mlp.rxtx"
    "build;${MODEL};-o;${WORK}/mlp_dnnl.rxtx"
    "build;${MODEL};--library;none;--no-emit-library;-o;${WORK}/plain.rxtx")
  execute_process(COMMAND ${RXT} ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rxt ${command} failed (${rc}): ${out}${err}")
  endif()
endforeach()
