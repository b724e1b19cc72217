//! Error paths of what comes from outside the program: module text and files, trainer files,
//! executables, checkpoints and plugins. Each is an `rxt::Error` with rxt's code and message.
mod common;

use common::{linear_data, linear_inputs, linear_trainer, temp_path, test_plugin_dir};
use rxt::{Code, Context, ContextOptions, Error, Executable, Module, Trainer};

/// |result| is an error with |code| whose message contains |needle|.
fn assert_error<T: std::fmt::Debug>(result: rxt::Result<T>, code: Code, needle: &str) -> Error {
    let error = result.expect_err("expected an error");
    assert_eq!(error.code, code, "{}", error);
    assert!(error.message.contains(needle), "'{}' not in: {}", needle, error.message);
    error
}

#[test]
fn malformed_module_text_names_file_line_and_column() {
    let text = "attributes {param_num = 1}\ndef @main(%x: Tensor((2, 3), float32)) -> {\n";
    let error = assert_error(Module::parse(text, "bad.rxt"), Code::InvalidArgument, "bad.rxt:2:");
    assert!(error.message.contains("error:"), "{}", error.message);
    assert!(error.to_string().starts_with("invalid argument: bad.rxt:2:"), "{}", error);
}

#[test]
fn ill_formed_module_fails_verify() {
    let text = "def @main(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {
  dataflow {
    %p: Tuple() = print(%x, format=\"\")
    %y: Tensor((2, 3), float32) = nn.relu(%x)
    output %y
  }
  return %y
}
";
    let module = Module::parse(text, "ill.rxt").unwrap();
    assert_error(
        module.verify(),
        Code::InvalidArgument,
        "ill.rxt:3:19: @main: impure call to print inside a dataflow block",
    );
}

#[test]
fn missing_module_file_is_not_found() {
    let path = temp_path("no_such_module.rxt");
    assert_error(Module::from_file(&path), Code::NotFound, "no_such_module.rxt");
}

#[test]
fn missing_and_corrupt_trainer_files() {
    assert_error(Trainer::load(temp_path("no_such_trainer.rxtt"), None), Code::NotFound, "no_such_trainer.rxtt");
    let corrupt = temp_path("errors_corrupt.rxtt");
    std::fs::write(&corrupt, "not a trainer file").unwrap();
    assert_error(Trainer::load(&corrupt, None), Code::DataLoss, "not an rxt trainer file");
}

#[test]
fn missing_and_corrupt_executables() {
    assert_error(Executable::load(temp_path("no_such.rxtx")), Code::NotFound, "no_such.rxtx");
    let corrupt = temp_path("errors_corrupt.rxtx");
    std::fs::write(&corrupt, "not an executable").unwrap();
    assert_error(Executable::load(&corrupt), Code::DataLoss, "errors_corrupt.rxtx");
}

#[test]
fn checkpoints_that_do_not_fit_change_nothing() {
    let (x, y) = linear_data();
    let mut adam = linear_trainer("reference", "adam", "lr=0.05");
    let mut sgd = linear_trainer("reference", "sgd", "lr=0.05");
    let (xs, ys) = linear_inputs(&x, &y);
    adam.init_xavier_uniform(1).unwrap();
    adam.update(&[xs], &[ys]).unwrap();
    let path = temp_path("errors_adam.safetensors");
    adam.save_checkpoint(&path).unwrap();
    assert_error(sgd.load_checkpoint(&path), Code::DataLoss, "another optimizer");
    assert_error(sgd.load_checkpoint(temp_path("no_such.safetensors")), Code::NotFound, "no_such.safetensors");
    let corrupt = temp_path("errors_corrupt.safetensors");
    std::fs::write(&corrupt, "not a checkpoint").unwrap();
    assert_error(sgd.load_checkpoint(&corrupt), Code::DataLoss, "errors_corrupt.safetensors");
    assert_eq!(sgd.step().unwrap(), 0);
}

#[test]
fn plugin_of_the_wrong_abi_is_refused() {
    let plugin = test_plugin_dir().join("bad/test_wrong_abi.so");
    assert_error(rxt::load_plugin(&plugin), Code::FailedPrecondition, "speaks plugin ABI version 99");
    // Nothing of it stays registered: the process's plugins do not list it.
    assert!(rxt::plugins().unwrap().iter().all(|p| p.path != plugin));
    // The same into a context, and at a context's creation (which then makes nothing).
    let context = Context::new(&ContextOptions { search_path: false, ..Default::default() }).unwrap();
    assert_error(context.load_plugin(&plugin), Code::FailedPrecondition, "ABI version 99");
    let options = ContextOptions { plugins: vec![plugin], ..Default::default() };
    assert_error(Context::new(&options), Code::FailedPrecondition, "test_wrong_abi.so");
}

#[test]
fn other_bad_plugins() {
    let dir = test_plugin_dir();
    assert_error(rxt::load_plugin(dir.join("missing.so")), Code::NotFound, "missing.so: no such file");
    assert_error(rxt::load_plugin(dir.join("bad/not_a_library.so")), Code::InvalidArgument, "not a shared library");
    assert_error(rxt::load_plugin(dir.join("bad/test_no_entry.so")), Code::NotFound, "has no entry point");
    assert_error(rxt::load_plugin(dir.join("bad/test_declining.so")), Code::FailedPrecondition, "declined");
}
