# rxt train end to end on a tiny data set: the metrics and plot files, the same seed giving the
# same run, a resumed run continuing exactly as an uninterrupted one, and a resume with other
# settings refused.
#   cmake -DRXT=<rxt> -DWORK_DIR=<dir> -DDATA=<dir> -DMODEL=<file.rxt> -P train_resume.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(common train --model ${MODEL} --data ${DATA} --batch-size 8 --backend reference --seed 5 --optimizer adam
    --lr 0.01 --schedule cosine:total_steps=24)

function(run_rxt expected_exit out_var)
  execute_process(COMMAND ${RXT} ${ARGN} RESULT_VARIABLE exit OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT "${exit}" STREQUAL "${expected_exit}")
    message(FATAL_ERROR "rxt ${ARGN}\n-- exit ${exit} (expected ${expected_exit})\n-- stdout:\n${out}\n-- stderr:\n${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

# Uninterrupted: 3 epochs.
run_rxt(0 out ${common} --epochs 3 --checkpoint-dir ${WORK_DIR}/a --metrics ${WORK_DIR}/a.json --plot ${WORK_DIR}/a.svg)
if(NOT out MATCHES "epoch 3/3: loss [0-9.]+, test accuracy [0-9.]+%")
  message(FATAL_ERROR "no epoch line:\n${out}")
endif()
foreach(epoch 1 2 3)
  if(NOT EXISTS ${WORK_DIR}/a/epoch-${epoch}.safetensors)
    message(FATAL_ERROR "no checkpoint for epoch ${epoch}")
  endif()
endforeach()
file(READ ${WORK_DIR}/a.svg svg)
if(NOT svg MATCHES "^<svg " OR NOT svg MATCHES "</svg>")
  message(FATAL_ERROR "a.svg is not an SVG image")
endif()
file(READ ${WORK_DIR}/a.json a)
string(JSON count LENGTH "${a}" epochs)
if(NOT count EQUAL 3)
  message(FATAL_ERROR "a.json has ${count} epochs:\n${a}")
endif()
foreach(field epoch loss test_accuracy seconds steps_per_second)
  string(JSON value GET "${a}" epochs 2 ${field})
  if(NOT value GREATER 0)
    message(FATAL_ERROR "epoch 3's ${field} is ${value}:\n${a}")
  endif()
endforeach()

# Interrupted after 2 epochs, then resumed for the third.
run_rxt(0 out ${common} --epochs 2 --checkpoint-dir ${WORK_DIR}/b --metrics ${WORK_DIR}/b.json)
run_rxt(0 out ${common} --epochs 3 --checkpoint-dir ${WORK_DIR}/b --metrics ${WORK_DIR}/b.json --resume)
if(NOT out MATCHES "resumed from [^\n]*epoch-2.safetensors .epoch 2, step 16.")
  message(FATAL_ERROR "no resume line:\n${out}")
endif()
file(READ ${WORK_DIR}/b.json b)
foreach(index 0 1 2)
  foreach(field loss test_accuracy)
    string(JSON va GET "${a}" epochs ${index} ${field})
    string(JSON vb GET "${b}" epochs ${index} ${field})
    if(NOT va STREQUAL vb)
      message(FATAL_ERROR "epoch ${index}'s ${field}: ${va} uninterrupted, ${vb} resumed\n${a}\n${b}")
    endif()
  endforeach()
endforeach()

# Nothing left to train: the reports are written again, nothing else happens.
run_rxt(0 out ${common} --epochs 2 --checkpoint-dir ${WORK_DIR}/a --metrics ${WORK_DIR}/again.json --resume)
if(NOT out MATCHES "nothing to train: the checkpoint has 3 epochs .--epochs 2.")
  message(FATAL_ERROR "no 'nothing to train' line:\n${out}")
endif()
file(READ ${WORK_DIR}/again.json again)
string(JSON count LENGTH "${again}" epochs)
if(NOT count EQUAL 3)
  message(FATAL_ERROR "again.json has ${count} epochs:\n${again}")
endif()

# A finished run is extended (docs/cli.md's example): the default cosine schedule, whose length
# comes from --epochs, stretches over the longer run and continues from the step reached.
set(default_schedule train --model ${MODEL} --data ${DATA} --batch-size 8 --backend reference --seed 5)
run_rxt(0 out ${default_schedule} --epochs 1 --checkpoint-dir ${WORK_DIR}/c)
run_rxt(0 out ${default_schedule} --epochs 2 --checkpoint-dir ${WORK_DIR}/c --resume)
if(NOT out MATCHES "resumed from [^\n]*epoch-1.safetensors .epoch 1, step 8.[^\n]*\n.*epoch 2/2: loss")
  message(FATAL_ERROR "the run was not extended:\n${out}")
endif()
# A length given explicitly is a setting like the others.
run_rxt(1 out ${common} --epochs 4 --checkpoint-dir ${WORK_DIR}/b --resume --schedule cosine:total_steps=40)
if(NOT out MATCHES "--schedule: cosine:total_steps=24 in the checkpoint, cosine:total_steps=40 now")
  message(FATAL_ERROR "no schedule error:\n${out}")
endif()

# Other settings cannot resume.
run_rxt(1 out ${common} --epochs 4 --checkpoint-dir ${WORK_DIR}/b --resume --lr 0.02)
if(NOT out MATCHES "was made with other settings[^\n]*: optimizer options: lr=0.01 in the checkpoint, lr=0.02 now")
  message(FATAL_ERROR "no settings error:\n${out}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
