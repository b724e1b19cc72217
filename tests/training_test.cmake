# rxt_add_training_test(<name> <sources>...): a test binary that builds trainer modules with
# the standard training plugins (grad_std, loss_std, optim_std: test_util/training_plugins.h)
# and runs them on the reference interpreter, against golden values in tests/data/golden.
include_guard(DIRECTORY)
find_package(nlohmann_json 3 REQUIRED)  # the golden files
function(rxt_add_training_test name)
  add_executable(${name} ${ARGN} ${PROJECT_SOURCE_DIR}/tests/test_util/reference_provider.cc)
  target_link_libraries(${name} PRIVATE rxt_compiler rxt_reference_interpreter nlohmann_json::nlohmann_json
    GTest::gtest_main rxt_build_options)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE
    RXT_SOURCE_DIR="${PROJECT_SOURCE_DIR}" RXT_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
    RXT_GRAD_STD_PLUGIN="$<TARGET_FILE:rxt_grad_std>" RXT_LOSS_STD_PLUGIN="$<TARGET_FILE:rxt_loss_std>"
    RXT_OPTIM_STD_PLUGIN="$<TARGET_FILE:rxt_optim_std>")
  add_dependencies(${name} rxt_grad_std rxt_loss_std rxt_optim_std)
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST)
endfunction()
