# install.setup: installs the build tree, moves the installation, and builds against it.
#   cmake -DBUILD_DIR=<rxt build> -DSOURCE_DIR=<rxt source> -DWORK_DIR=<scratch> -DGENERATOR=Ninja
#         -DCXX_COMPILER=<c++> [-DCOMPILER_LAUNCHER=ccache] [-DSANITIZE=address,undefined]
#         -DIDX_FIXTURE=<rxt_idx_fixture>
#         -P install_and_build.cmake
# Leaves in WORK_DIR: prefix/ (the installation, moved there from stage/), lion/lion.so and
# example_ops/example_ops.so (the example plugins: an optimizer in C++, ops in C),
# user/lib/rxt/plugins/lion.so (its install rule's work), lion_check/lion_check and data/ (a tiny
# Fashion-MNIST look-alike).
cmake_minimum_required(VERSION 3.25)

# Runs a command; stops with its output if it fails.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}):\n${ARGN}\n-- stdout:\n${out}\n-- stderr:\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Installed under one name, used under another: nothing may depend on the install prefix.
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/stage)
file(RENAME ${WORK_DIR}/stage ${WORK_DIR}/prefix)

# Projects that know rxt only through its package. Warnings are errors: the example must stay
# clean with what users compile it with.
set(configure_args -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Debug
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_COMPILE_WARNING_AS_ERROR=ON)
if(COMPILER_LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${COMPILER_LAUNCHER}
       -DCMAKE_C_COMPILER_LAUNCHER=${COMPILER_LAUNCHER})
endif()
# A sanitized librxt.so needs its runtime loaded first: programs linking it are sanitized too.
if(SANITIZE)
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE} -fno-omit-frame-pointer"
       "-DCMAKE_C_FLAGS=-fsanitize=${SANITIZE} -fno-omit-frame-pointer"
       -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE} -DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=${SANITIZE})
endif()
set(names lion lion_check example_ops)
set(sources ${SOURCE_DIR}/examples/plugins/lion ${SOURCE_DIR}/tests/install/lion_check ${SOURCE_DIR}/examples/plugins/ops)
foreach(name source IN ZIP_LISTS names sources)
  run("configuring ${name}" ${CMAKE_COMMAND} -S ${source} -B ${WORK_DIR}/${name} ${configure_args})
  run("building ${name}" ${CMAKE_COMMAND} --build ${WORK_DIR}/${name})
endforeach()
run("installing lion" ${CMAKE_COMMAND} --install ${WORK_DIR}/lion --prefix ${WORK_DIR}/user)
if(NOT EXISTS ${WORK_DIR}/user/lib/rxt/plugins/lion.so)
  message(FATAL_ERROR "rxt_add_plugin's install rule did not put lion.so into ${WORK_DIR}/user/lib/rxt/plugins")
endif()

# The plugin exports its entry point and nothing else (rxt_add_plugin; the in-tree plugins get
# the same check from tests/plugins).
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/plugin_exports.cmake)
rxt_check_plugin_exports(${WORK_DIR}/lion/lion.so rxt_plugin_entry)
rxt_check_plugin_exports(${WORK_DIR}/example_ops/example_ops.so rxt_plugin_entry)

run("writing the data set" ${IDX_FIXTURE} dataset ${WORK_DIR}/data 64 24)
