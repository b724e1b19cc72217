# cmake -DWORK=dir -P same_trainer_file.cmake: c.rxtt, rust.rxtt and go.rxtt are the same bytes.
# A binding whose run was skipped (no cargo, no go) left no file: skipped (77) saying which.
file(SHA256 ${WORK}/c.rxtt c)
foreach(binding rust go)
  if(NOT EXISTS ${WORK}/${binding}.rxtt)
    message("${binding}.rxtt is missing (its binding's run was skipped): nothing to compare it with")
    cmake_language(EXIT 77)
  endif()
  file(SHA256 ${WORK}/${binding}.rxtt hash)
  if(NOT hash STREQUAL c)
    message(FATAL_ERROR "${binding}.rxtt differs from c.rxtt (${hash} vs ${c})")
  endif()
endforeach()
message(STATUS "C, Rust and Go trained to the same trainer file: sha256 ${c}")
