//! Error paths of calls: tensors of the wrong shape, dtype or count; unknown names and indices;
//! bad options; and the binding's own checks (a slice that does not fill its shape, a NUL byte
//! in a string, reading a tensor as another type). After each, nothing has changed.
mod common;

use common::{linear_data, linear_inputs, linear_trainer, LINEAR_BACKBONE};
use rxt::{Code, Error, Module, TensorKind, TensorRef, Trainer, TrainerOptions};

fn assert_error<T: std::fmt::Debug>(result: rxt::Result<T>, code: Code, needle: &str) -> Error {
    let error = result.expect_err("expected an error");
    assert_eq!(error.code, code, "{}", error);
    assert!(error.message.contains(needle), "'{}' not in: {}", needle, error.message);
    error
}

#[test]
fn wrong_shape_dtype_or_count_at_update_changes_nothing() {
    let mut trainer = linear_trainer("reference", "sgd", "lr=0.05");
    trainer.init_xavier_uniform(3).unwrap();
    let before = trainer.get(TensorKind::Params, 0).unwrap().to_vec::<f32>().unwrap();
    let (x, y) = linear_data();
    let (xs, ys) = linear_inputs(&x, &y);
    let wide = vec![0f32; 16];
    let wrong_shape = TensorRef::new(&wide, &[4, 4]).unwrap();
    let error =
        assert_error(trainer.update(&[wrong_shape], &[ys]), Code::InvalidArgument, "train_step: argument 0 (%x)");
    assert!(error.message.contains("(4, 3)"), "names the expected shape: {}", error.message);
    let doubles = vec![0f64; 12];
    let wrong_dtype = TensorRef::new(&doubles, &[4, 3]).unwrap();
    let (_, ys) = linear_inputs(&x, &y);
    assert_error(trainer.update(&[wrong_dtype], &[ys]), Code::InvalidArgument, "train_step: argument 0 (%x)");
    let (xs2, ys) = linear_inputs(&x, &y);
    assert_error(
        trainer.update(&[xs, xs2], &[ys]),
        Code::InvalidArgument,
        "train_step: expected 1 input (x) and 1 target (targets), got 2 inputs and 1 target",
    );
    let (xs, ys) = linear_inputs(&x, &y);
    assert_error(trainer.evaluate(&[ys], &[xs]), Code::InvalidArgument, "argument 0 (%x)");
    let (_, ys) = linear_inputs(&x, &y);
    assert_error(trainer.predict(&[ys]), Code::InvalidArgument, "predict: argument 0 (%x)");
    assert_eq!(trainer.step().unwrap(), 0);
    assert_eq!(trainer.get(TensorKind::Params, 0).unwrap().to_vec::<f32>().unwrap(), before);
}

#[test]
fn wrong_tensors_names_and_indices() {
    let mut trainer = linear_trainer("reference", "sgd", "lr=0.05");
    let wrong = common::ramp(6, 0.0, 1.0);
    let wrong_w = TensorRef::new(&wrong, &[2, 3]).unwrap();
    assert_error(
        trainer.set(TensorKind::Params, 0, &wrong_w),
        Code::InvalidArgument,
        "parameter 'w': expected Tensor((3, 2), float32), got float32 (2, 3)",
    );
    assert_error(trainer.set(TensorKind::Params, 5, &wrong_w), Code::OutOfRange, "index 5");
    assert_error(
        trainer.set(TensorKind::OptimizerState, 0, &wrong_w),
        Code::InvalidArgument,
        "only parameters and states",
    );
    assert_error(trainer.set_by_name(TensorKind::Params, "v", &wrong_w), Code::NotFound, "'v'");
    assert_error(trainer.get(TensorKind::Inputs, 0), Code::InvalidArgument, "arguments");
    assert_error(trainer.get_by_name(TensorKind::Params, "zz"), Code::NotFound, "zz");
    assert_error(trainer.find(TensorKind::Params, "zz"), Code::NotFound, "no parameter named 'zz' (w, b)");
    assert_error(trainer.name(TensorKind::Params, 2), Code::OutOfRange, "index 2");
    assert_error(trainer.init_zero(TensorKind::Inputs), Code::InvalidArgument, "kind must be");
}

#[test]
fn bad_schedules_and_learning_rates() {
    let mut trainer = linear_trainer("reference", "sgd", "lr=0.05");
    assert_error(trainer.set_schedule("sawtooth", 0.1), Code::InvalidArgument, "unknown schedule 'sawtooth'");
    assert_error(trainer.set_schedule("cosine", 0.1), Code::InvalidArgument, "total_steps");
    assert_error(trainer.set_learning_rate(-1.0), Code::InvalidArgument, "learning rate");
    assert_eq!(trainer.learning_rate().unwrap(), 0.05f32 as f64);
}

#[test]
fn unknown_loss_optimizer_backend_and_bad_options() {
    let module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    assert_error(
        Trainer::new(&module, &TrainerOptions::default()),
        Code::InvalidArgument,
        "needs options->loss and options->optimizer",
    );
    let mut options = TrainerOptions::new("mse", "lion9");
    options.backend = Some("reference".to_string());
    assert_error(Trainer::new(&module, &options), Code::NotFound, "lion9");
    options.optimizer = Some("sgd".to_string());
    options.backend = Some("tpu".to_string());
    assert_error(Trainer::new(&module, &options), Code::NotFound, "tpu");
    options.backend = Some("reference".to_string());
    options.optimizer_options = Some("lr=".to_string());
    assert_error(Trainer::new(&module, &options), Code::InvalidArgument, "");
    options.optimizer_options = None;
    options.opt_level = Some(-1);
    assert_error(Trainer::new(&module, &options), Code::InvalidArgument, "opt_level");
}

#[test]
fn module_attributes_that_are_absent_or_of_another_kind() {
    let mut module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    assert_error(module.attr_int("no_such"), Code::NotFound, "no_such");
    assert_error(module.attr_kind("no_such"), Code::NotFound, "no_such");
    module.set_attr_string("name", "linear").unwrap();
    assert_error(module.attr_int("name"), Code::InvalidArgument, "");
    assert_error(module.function_params("nope"), Code::NotFound, "nope");
    assert_error(module.run_passes(&["NoSuchPass"]), Code::NotFound, "NoSuchPass");
}

#[test]
fn the_bindings_own_checks() {
    let data = vec![0f32; 5];
    assert_error(
        TensorRef::new(&data, &[2, 3]),
        Code::InvalidArgument,
        "shape [2, 3] holds 6 elements; the slice has 5",
    );
    assert_error(TensorRef::new(&data, &[-1, 5]), Code::InvalidArgument, "negative");
    assert_error(TensorRef::new(&data, &[i64::MAX, i64::MAX]), Code::InvalidArgument, "overflows");
    assert_error(Module::parse(LINEAR_BACKBONE, "nul\0name"), Code::InvalidArgument, "NUL");
    let module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    assert_error(
        Trainer::new(&module, &TrainerOptions::new("ms\0e", "sgd")),
        Code::InvalidArgument,
        "loss contains a NUL",
    );
    assert_error(rxt::load_plugin("a\0b.so"), Code::InvalidArgument, "NUL");

    let trainer = linear_trainer("reference", "sgd", "lr=0.05");
    let w = trainer.get(TensorKind::Params, 0).unwrap();
    assert_error(w.as_slice::<i64>(), Code::InvalidArgument, "the tensor holds float32, not int64");
    assert_error(w.to_vec::<f64>(), Code::InvalidArgument, "not float64");
}
