# install.runtime_component: installs the component `runtime` alone, checks what is there and
# what is not, builds tests/install/runtime_check against it, and trains from a trainer file
# that the full installation's rxt made.
#   cmake -DBUILD_DIR=<rxt build> -DSOURCE_DIR=<rxt source> -DWORK_DIR=<install.setup's> -DGENERATOR=Ninja
#         -DC_COMPILER=<cc> -P runtime_component.cmake
cmake_minimum_required(VERSION 3.25)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}):\n${ARGN}\n-- stdout:\n${out}\n-- stderr:\n${err}")
  endif()
  set(run_output "${out}${err}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/runtime_prefix)
file(REMOVE_RECURSE ${prefix} ${WORK_DIR}/runtime_check ${WORK_DIR}/runtime_check_compiler)
run("cmake --install --component runtime" ${CMAKE_COMMAND} --install ${BUILD_DIR} --component runtime --prefix ${prefix})

foreach(present lib/librxt_runtime.so include/rxt/rxt.h lib/rxt/plugins/rxt_lib_dnnl.so lib/cmake/rxt/rxtConfig.cmake
                lib/cmake/rxt/rxtRuntimeTargets.cmake)
  if(NOT EXISTS ${prefix}/${present})
    message(FATAL_ERROR "the runtime component lacks ${present}")
  endif()
endforeach()
foreach(absent bin/rxt lib/librxt.so lib/rxt/plugins/rxt_backend_cpu.so lib/cmake/rxt/rxtTargets.cmake include/rxt/plugin.h)
  if(EXISTS ${prefix}/${absent})
    message(FATAL_ERROR "the runtime component installs ${absent}, which only the full installation needs")
  endif()
endforeach()

set(configure_args -G ${GENERATOR} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
    -DTRAIN_FROM_FILE_SOURCE=${SOURCE_DIR}/tests/abi/runtime/train_from_file.c)
run("configuring runtime_check" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/runtime_check -B ${WORK_DIR}/runtime_check
    ${configure_args})
run("building runtime_check" ${CMAKE_COMMAND} --build ${WORK_DIR}/runtime_check)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/runtime_check -B ${WORK_DIR}/runtime_check_compiler
                        ${configure_args} -DWANT_COMPILER=ON
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(result EQUAL 0 OR NOT "${out}${err}" MATCHES "runtime alone")
  message(FATAL_ERROR "find_package(rxt COMPONENTS compiler) did not fail on the runtime alone:\n${out}${err}")
endif()

# A trainer file made by the full installation, trained by the program of the runtime alone on
# install.setup's small IDX data set; the process must not map the compiler (--no-compiler).
run("rxt build --trainer" ${WORK_DIR}/prefix/bin/rxt build ${SOURCE_DIR}/examples/mlp.rxt --trainer --optimizer sgd
    --optimizer-options lr=0.05 -o ${WORK_DIR}/runtime_mlp.rxtt)
file(GLOB images ${WORK_DIR}/data/train-images*)
file(GLOB labels ${WORK_DIR}/data/train-labels*)
run("training with the runtime alone" ${WORK_DIR}/runtime_check/train_from_file ${WORK_DIR}/runtime_mlp.rxtt
    ${images} ${labels} 64 64 ${WORK_DIR}/runtime_params.safetensors --no-compiler)
if(NOT run_output MATCHES "steps 1, loss")
  message(FATAL_ERROR "unexpected output: ${run_output}")
endif()
file(GLOB_RECURSE installed ${prefix}/*)
set(bytes 0)
foreach(file IN LISTS installed)
  if(NOT IS_SYMLINK ${file})
    file(SIZE ${file} size)
    math(EXPR bytes "${bytes} + ${size}")
  endif()
endforeach()
message(STATUS "the runtime component: ${bytes} bytes installed; ${run_output}")
