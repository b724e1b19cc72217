//! The trainer on tests/abi's linear backbone (x (4, 3) w (3, 2) + b, MSE with sum, on the
//! reference backend), checked against a plain Rust computation, as tests/abi/trainer_test.c
//! does from C: tensors by kind, predict / update / evaluate, learning rate and schedule,
//! checkpoints, trainer files (also for another machine), profiles.
mod common;

use common::{linear_data, linear_inputs, linear_trainer, ramp, temp_path, LINEAR_BACKBONE};
use rxt::{Code, Module, TensorKind, TensorRef, Trainer, TrainerOptions};

/// x w + b for x (4, 3), w (3, 2), b (2), in f64.
fn linear(x: &[f32], w: &[f32], b: &[f32]) -> Vec<f64> {
    let mut out = vec![0f64; 8];
    for i in 0..4 {
        for j in 0..2 {
            out[i * 2 + j] = b[j] as f64 + (0..3).map(|k| x[i * 3 + k] as f64 * w[k * 2 + j] as f64).sum::<f64>();
        }
    }
    out
}

fn params(trainer: &Trainer, index: usize) -> Vec<f32> {
    trainer.get(TensorKind::Params, index).unwrap().to_vec().unwrap()
}

#[test]
fn layout_and_names() {
    let trainer = linear_trainer("reference", "sgd", "lr=0.05");
    assert_eq!(trainer.count(TensorKind::Inputs).unwrap(), 1);
    assert_eq!(trainer.count(TensorKind::Targets).unwrap(), 1);
    assert_eq!(trainer.names(TensorKind::Params).unwrap(), ["w", "b"]);
    assert_eq!(trainer.count(TensorKind::States).unwrap(), 0);
    assert!(trainer.names(TensorKind::OptimizerState).unwrap().starts_with(&["lr".to_string()]));
    assert_eq!(trainer.num_outputs().unwrap(), 1);
    assert_eq!(trainer.name(TensorKind::Inputs, 0).unwrap(), "x");
    assert_eq!(trainer.find(TensorKind::Params, "b").unwrap(), 1);
}

#[test]
fn params_read_back_by_index_and_name() {
    let mut trainer = linear_trainer("reference", "sgd", "lr=0.05");
    let zero = trainer.get(TensorKind::Params, 0).unwrap();
    assert_eq!(zero.shape(), [3, 2]);
    assert_eq!(zero.as_slice::<f32>().unwrap(), [0f32; 6]); // zero before initialization
    trainer.init_xavier_uniform(7).unwrap();
    let w = params(&trainer, 0);
    let bound = (6.0f32 / 5.0).sqrt();
    assert!(w.iter().all(|v| v.abs() <= bound) && w.iter().any(|v| *v != 0.0), "{:?}", w);
    assert_eq!(zero.as_slice::<f32>().unwrap(), [0f32; 6]); // a snapshot: unchanged

    let mut b = vec![0.5f32, 1.5];
    trainer.set_by_name(TensorKind::Params, "b", &TensorRef::new(&b, &[2]).unwrap()).unwrap();
    b[0] = 9.0; // copied in: the trainer does not see this
    assert_eq!(trainer.get_by_name(TensorKind::Params, "b").unwrap().to_vec::<f32>().unwrap(), [0.5, 1.5]);
    // A tensor handed out goes back in as it is (a view of its memory).
    let got = trainer.get(TensorKind::Params, 0).unwrap();
    trainer.init_zero(TensorKind::Params).unwrap();
    assert_eq!(params(&trainer, 0), [0f32; 6]);
    trainer.set(TensorKind::Params, 0, &got.view()).unwrap();
    assert_eq!(params(&trainer, 0), w);
}

#[test]
fn predict_update_and_evaluate_match_a_plain_computation() {
    let mut trainer = linear_trainer("reference", "sgd", "lr=0.05");
    trainer.init_xavier_uniform(3).unwrap();
    let (w, b) = (params(&trainer, 0), params(&trainer, 1));
    let (x, y) = linear_data();
    let prediction = linear(&x, &w, &b);
    let (xs, ys) = linear_inputs(&x, &y);

    let outputs = trainer.predict(&[TensorRef::new(&x, &[4, 3]).unwrap()]).unwrap();
    assert_eq!(outputs.len(), 1);
    assert_eq!(outputs[0].shape(), [4, 2]);
    for (got, want) in outputs[0].as_slice::<f32>().unwrap().iter().zip(&prediction) {
        assert!((*got as f64 - want).abs() < 1e-5, "{} vs {}", got, want);
    }
    // loss = sum (p - y)^2; dw = x^T 2 (p - y)
    let error: Vec<f64> = prediction.iter().zip(&y).map(|(p, t)| p - *t as f64).collect();
    let loss: f64 = error.iter().map(|e| e * e).sum();
    let mut dw = vec![0f64; 6];
    for i in 0..4 {
        for j in 0..2 {
            for k in 0..3 {
                dw[k * 2 + j] += x[i * 3 + k] as f64 * 2.0 * error[i * 2 + j];
            }
        }
    }
    assert!(
        (trainer.evaluate(&[TensorRef::new(&x, &[4, 3]).unwrap()], &[TensorRef::new(&y, &[4, 2]).unwrap()]).unwrap()
            - loss)
            .abs()
            < 1e-4
    );
    assert!((trainer.update(&[xs], &[ys]).unwrap() - loss).abs() < 1e-4);
    assert_eq!(trainer.step().unwrap(), 1);
    for (got, (w, d)) in params(&trainer, 0).iter().zip(w.iter().zip(&dw)) {
        assert!((*got as f64 - (*w as f64 - 0.05 * d)).abs() < 1e-5);
    }
}

#[test]
fn learning_rate_and_schedule() {
    let mut trainer = linear_trainer("reference", "sgd", "lr=0.05");
    trainer.init_xavier_uniform(2).unwrap();
    let (x, y) = linear_data();
    assert!((trainer.learning_rate().unwrap() - 0.05).abs() < 1e-7);
    trainer.set_learning_rate(0.0).unwrap();
    let before = params(&trainer, 0);
    let (xs, ys) = linear_inputs(&x, &y);
    trainer.update(&[xs], &[ys]).unwrap();
    assert_eq!(params(&trainer, 0), before); // a learning rate of 0 changes nothing
    trainer.set_schedule("warmup:steps=4", 0.2).unwrap();
    let (xs, ys) = linear_inputs(&x, &y);
    trainer.update(&[xs], &[ys]).unwrap();
    assert!((trainer.learning_rate().unwrap() - 0.1).abs() < 1e-7); // update 2 of 4: 0.2 * 2 / 4
}

#[test]
fn checkpoint_resume_is_bit_identical() {
    let (x, y) = linear_data();
    let mut first = linear_trainer("reference", "adam", "lr=0.05");
    let mut second = linear_trainer("reference", "adam", "lr=0.05");
    first.init_xavier_uniform(5).unwrap();
    for _ in 0..2 {
        let (xs, ys) = linear_inputs(&x, &y);
        first.update(&[xs], &[ys]).unwrap();
    }
    let path = temp_path("trainer_linear_checkpoint.safetensors");
    first.save_checkpoint(&path).unwrap();
    second.load_checkpoint(&path).unwrap();
    assert_eq!(second.step().unwrap(), 2);
    for _ in 0..3 {
        let (xs, ys) = linear_inputs(&x, &y);
        let a = first.update(&[xs], &[ys]).unwrap();
        let (xs, ys) = linear_inputs(&x, &y);
        assert_eq!(a.to_bits(), second.update(&[xs], &[ys]).unwrap().to_bits());
    }
    for index in 0..first.count(TensorKind::OptimizerState).unwrap() {
        let a = first.get(TensorKind::OptimizerState, index).unwrap();
        let b = second.get(TensorKind::OptimizerState, index).unwrap();
        assert_eq!(a.shape(), b.shape());
        let bytes = |t: &rxt::Tensor| {
            unsafe { std::slice::from_raw_parts(t.data_ptr() as *const u8, t.len() * t.dtype().size()) }.to_vec()
        };
        assert_eq!(bytes(&a), bytes(&b), "optimizer state {}", first.name(TensorKind::OptimizerState, index).unwrap());
    }
}

/// A trainer file goes on bit for bit: on cpu (kernels compiled into the file) and reference.
#[test]
fn trainer_file_round_trip_gives_bit_identical_params() {
    let (x, y) = linear_data();
    for backend in ["cpu", "reference"] {
        let mut trainer = linear_trainer(backend, "adam", "lr=0.05");
        trainer.init_xavier_uniform(3).unwrap();
        let (xs, ys) = linear_inputs(&x, &y);
        trainer.update(&[xs], &[ys]).unwrap();
        let path = temp_path(&format!("trainer_linear_{}.rxtt", backend));
        trainer.save(&path).unwrap();
        let mut loaded = Trainer::load(&path, None).unwrap();
        assert_eq!(loaded.step().unwrap(), 1);
        assert_eq!(loaded.names(TensorKind::Params).unwrap(), ["w", "b"]);
        for _ in 0..3 {
            let (xs, ys) = linear_inputs(&x, &y);
            let a = trainer.update(&[xs], &[ys]).unwrap();
            let (xs, ys) = linear_inputs(&x, &y);
            assert_eq!(a.to_bits(), loaded.update(&[xs], &[ys]).unwrap().to_bits(), "{}", backend);
        }
        for index in 0..2 {
            let bits = |t: &Trainer| params(t, index).iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&trainer), bits(&loaded), "{}: param {}", backend, index);
        }
    }
}

/// save_for_target: a file whose kernels are compiled for this architecture's baseline CPU (one
/// any machine of it runs) goes on bit for bit, as trainer_test.c checks from C; a target LLVM
/// does not know is InvalidArgument naming it, and writes nothing.
#[test]
fn trainer_file_for_another_machine() {
    let baseline = if cfg!(target_arch = "aarch64") { "generic" } else { "x86-64" };
    let module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    let mut options = TrainerOptions::new("mse", "adam");
    options.backend = Some("cpu".to_string());
    options.libraries = Some("none".to_string());
    options.optimizer_options = Some("lr=0.05".to_string());
    let mut trainer = Trainer::new(&module, &options).unwrap();
    trainer.init_xavier_uniform(3).unwrap();
    let path = temp_path("trainer_linear_baseline.rxtt");
    trainer.save_for_target(&path, None, Some(baseline), None).unwrap();
    let mut loaded = Trainer::load(&path, None).unwrap();
    let (x, y) = linear_data();
    for _ in 0..3 {
        let (xs, ys) = linear_inputs(&x, &y);
        let a = trainer.update(&[xs], &[ys]).unwrap();
        let (xs, ys) = linear_inputs(&x, &y);
        assert_eq!(a.to_bits(), loaded.update(&[xs], &[ys]).unwrap().to_bits());
    }

    let unwritten = temp_path("trainer_linear_unwritten.rxtt");
    let _ = std::fs::remove_file(&unwritten);
    let error = trainer.save_for_target(&unwritten, Some("nonsense-arch-linux"), None, None).unwrap_err();
    assert_eq!(error.code, Code::InvalidArgument, "{}", error);
    assert!(error.message.contains("cannot compile for 'nonsense-arch-linux'"), "{}", error);
    let error = trainer.save_for_target(&unwritten, None, Some("pentium9000"), None).unwrap_err();
    assert_eq!(error.code, Code::InvalidArgument, "{}", error);
    assert!(error.message.contains("'pentium9000' is not a CPU LLVM knows"), "{}", error);
    assert!(!unwritten.exists(), "a failed save wrote {}", unwritten.display());
}

#[test]
fn profile_step_changes_nothing() {
    let mut trainer = linear_trainer("reference", "sgd", "lr=0.05");
    let (x, y) = (ramp(12, -0.5, 0.1), ramp(8, 0.3, -0.07));
    let (xs, ys) = linear_inputs(&x, &y);
    let text = trainer.profile_step(&[xs], &[ys]).unwrap();
    assert!(text.contains("kernel"), "{}", text);
    assert_eq!(trainer.step().unwrap(), 0);
}
