# A training run of the installed rxt with an out-of-tree plugin learns: the epoch loss falls
# below the first epoch's and below 1.0 (chance is ln 10 = 2.3), and the test accuracy ends at
# least at 90% (chance: 10%) on a tiny data set. Used by install.lion_trains (the Lion optimizer)
# and install.example_ops_train (a model with the example ops).
#   cmake -DRXT=<installed rxt> -DARGS="train|--plugin|lion.so|..." -DSAYS=<regex of stdout>
#         -DWORK_DIR=<scratch> -P learns.cmake
# ARGS must not name --metrics or --epochs (this script sets them: 3 epochs).
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(metrics ${WORK_DIR}/metrics.json)
string(REPLACE "|" ";" args "${ARGS}")
list(APPEND args --epochs 3 --seed 1 --metrics ${metrics})
execute_process(COMMAND ${RXT} ${args} RESULT_VARIABLE exit OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(report "rxt ${args}\n-- exit: ${exit}\n-- stdout:\n${out}\n-- stderr:\n${err}")
if(NOT exit EQUAL 0)
  message(FATAL_ERROR "rxt train failed\n${report}")
endif()
if(NOT out MATCHES "${SAYS}")
  message(FATAL_ERROR "rxt train does not say '${SAYS}'\n${report}")
endif()

file(READ ${metrics} json)
string(JSON epochs LENGTH "${json}" epochs)
if(NOT epochs EQUAL 3)
  message(FATAL_ERROR "expected 3 epochs in ${metrics}:\n${json}")
endif()
string(JSON first_loss GET "${json}" epochs 0 loss)
string(JSON last_loss GET "${json}" epochs 2 loss)
string(JSON last_accuracy GET "${json}" epochs 2 test_accuracy)
# if(LESS) compares decimal numbers.
if(NOT last_loss LESS first_loss OR NOT last_loss LESS 1.0)
  message(FATAL_ERROR "the loss did not fall below 1.0 (ln 10 = 2.3 is chance): ${first_loss} -> ${last_loss}\n${report}")
endif()
if(last_accuracy LESS 0.9)
  message(FATAL_ERROR "test accuracy after 3 epochs is ${last_accuracy}, expected at least 0.9\n${report}")
endif()
