//! What the crate offers without its `compiler` feature, linked with librxt_runtime.so alone
//! (`cargo test --no-default-features`; with the feature, the same against librxt.so): trainer
//! files and executables that the `rxt` command made, in a process of its own, are loaded,
//! trained, run and saved; each bad input is an error; and the process maps the runtime alone.
mod common;

use std::ffi::{c_void, CString, OsStr};
use std::path::PathBuf;
use std::sync::Once;

use common::{rxt_build, synthetic_batch, temp_path, test_plugin_dir};
use rxt::{sys, Code, Context, ContextOptions, Error, Executable, TensorKind, TensorRef, Trainer, Vm};

/// The seed MLP's trainer file, made once per test run: Adam, Xavier from seed 7, every kernel
/// generated (`--library none`: it needs no plugin to load).
fn seed_mlp_file() -> PathBuf {
    static MADE: Once = Once::new();
    let path = temp_path("runtime_mlp.rxtt");
    let model = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../examples/mlp.rxt");
    MADE.call_once(|| {
        rxt_build(&[
            model.as_os_str(),
            OsStr::new("--trainer"),
            OsStr::new("--library"),
            OsStr::new("none"),
            OsStr::new("--seed"),
            OsStr::new("7"),
            OsStr::new("-o"),
            path.as_os_str(),
        ])
    });
    path
}

fn update(trainer: &mut Trainer, (images, labels): &(Vec<f32>, Vec<i64>)) -> rxt::Result<f64> {
    trainer.update(&[TensorRef::new(images, &[64, 784])?], &[TensorRef::new(labels, &[64])?])
}

fn param_bits(trainer: &Trainer) -> Vec<Vec<u32>> {
    (0..trainer.count(TensorKind::Params).unwrap())
        .map(|i| {
            trainer.get(TensorKind::Params, i).unwrap().to_vec::<f32>().unwrap().iter().map(|v| v.to_bits()).collect()
        })
        .collect()
}

/// |result| is an error with |code| whose message contains |needle|.
fn assert_error<T: std::fmt::Debug>(result: rxt::Result<T>, code: Code, needle: &str) -> Error {
    let error = result.expect_err("expected an error");
    assert_eq!(error.code, code, "{}", error);
    assert!(error.message.contains(needle), "'{}' not in: {}", needle, error.message);
    error
}

#[test]
fn a_trainer_file_trains_and_its_saved_copy_goes_on_bit_for_bit() {
    let mut trainer = Trainer::load(seed_mlp_file(), None).unwrap();
    assert_eq!(trainer.step().unwrap(), 0);
    assert_eq!(trainer.names(TensorKind::Params).unwrap(), ["w0", "b0", "w1", "b1", "w2", "b2"]);
    assert_eq!(trainer.num_outputs().unwrap(), 1);
    let batches: Vec<_> = (0..4).map(synthetic_batch).collect();
    let mut losses = Vec::new();
    for _ in 0..3 {
        for batch in &batches {
            losses.push(update(&mut trainer, batch).unwrap());
        }
    }
    assert!(losses[11] < losses[0] * 0.5, "the loss does not go down: {:?}", losses);
    assert_eq!(trainer.step().unwrap(), 12);

    let saved = temp_path("runtime_mlp_saved.rxtt");
    trainer.save(&saved).unwrap();
    let mut loaded = Trainer::load(&saved, None).unwrap();
    assert_eq!(loaded.step().unwrap(), 12);
    for batch in &batches {
        let a = update(&mut trainer, batch).unwrap();
        assert_eq!(a.to_bits(), update(&mut loaded, batch).unwrap().to_bits());
    }
    assert_eq!(param_bits(&trainer), param_bits(&loaded));

    // Predictions: one (64, 10) tensor; evaluate changes nothing.
    let (images, labels) = &batches[0];
    let logits = trainer.predict(&[TensorRef::new(images, &[64, 784]).unwrap()]).unwrap();
    assert_eq!(logits[0].shape(), [64, 10]);
    let x = TensorRef::new(images, &[64, 784]).unwrap();
    let y = TensorRef::new(labels, &[64]).unwrap();
    let loss = trainer.evaluate(&[x], &[y]).unwrap();
    assert!(loss.is_finite() && loss < losses[0], "{} vs {}", loss, losses[0]);
    assert_eq!(trainer.step().unwrap(), 16);
}

#[test]
fn checkpoints_learning_rates_and_tensors() {
    let batch = synthetic_batch(3);
    let mut first = Trainer::load(seed_mlp_file(), None).unwrap();
    let mut second = Trainer::load(seed_mlp_file(), None).unwrap();
    update(&mut first, &batch).unwrap();
    let checkpoint = temp_path("runtime_mlp.safetensors");
    first.save_checkpoint(&checkpoint).unwrap();
    second.load_checkpoint(&checkpoint).unwrap();
    assert_eq!(second.step().unwrap(), 1);
    assert_eq!(update(&mut first, &batch).unwrap().to_bits(), update(&mut second, &batch).unwrap().to_bits());

    // A learning rate of 0 leaves the parameters as they are (rxt build's Adam: lr 0.001).
    assert!((first.learning_rate().unwrap() - 0.001).abs() < 1e-9);
    first.set_learning_rate(0.0).unwrap();
    let before = param_bits(&first);
    update(&mut first, &batch).unwrap();
    assert_eq!(param_bits(&first), before);
    first.set_schedule("warmup:steps=10", 0.01).unwrap();
    update(&mut first, &batch).unwrap();
    assert!(first.learning_rate().unwrap() > 0.0);

    // Tensors by name, in and out; a profile of one step changes nothing.
    let b2 = vec![0.25f32; 10];
    first.set_by_name(TensorKind::Params, "b2", &TensorRef::new(&b2, &[10]).unwrap()).unwrap();
    assert_eq!(first.get_by_name(TensorKind::Params, "b2").unwrap().to_vec::<f32>().unwrap(), b2);
    let step = first.step().unwrap();
    let (x, y) = (TensorRef::new(&batch.0, &[64, 784]).unwrap(), TensorRef::new(&batch.1, &[64]).unwrap());
    assert!(first.profile_step(&[x], &[y]).unwrap().contains("kernel"));
    assert_eq!(first.step().unwrap(), step);
}

// ---- An executable calling an extern function registered here (through rxt::sys).

const SCALED_MATMUL: &str =
    "def @main(%x: Tensor((2, 3), float32), %w: Tensor((3, 4), float32)) -> Tensor((2, 4), float32) {
  dataflow {
    %y: Tensor((2, 4), float32) = matmul(%x, %w)
    %z = call_extern(\"env.rust_runtime_triple\", (%y,), out_sinfo=Tensor((2, 4), float32))
    output %z
  }
  return %z
}
";

/// env.rust_runtime_triple(in, out): out = 3 in, for 8 floats.
unsafe extern "C" fn triple(_: *mut c_void, args: *const *mut sys::DLTensor, num_args: i32) -> sys::rxt_status_t {
    if num_args != 2 {
        return sys::rxt_status_create(sys::RXT_INVALID_ARGUMENT, b"takes 2 arguments\0".as_ptr() as _);
    }
    let (input, output) = (&**args, &**args.add(1));
    let x = std::slice::from_raw_parts((input.data as *const u8).add(input.byte_offset as usize) as *const f32, 8);
    let y = std::slice::from_raw_parts_mut((output.data as *mut u8).add(output.byte_offset as usize) as *mut f32, 8);
    for (y, x) in y.iter_mut().zip(x) {
        *y = 3.0 * x;
    }
    std::ptr::null_mut()
}

#[test]
fn an_executable_runs_with_an_extern_function_and_saves_again() {
    let (source, path) = (temp_path("runtime_scaled.rxt"), temp_path("runtime_scaled.rxtx"));
    std::fs::write(&source, SCALED_MATMUL).unwrap();
    // Its kernel compiled ahead of time (runtime_scaled.so beside it), generated: no plugin.
    rxt_build(&[source.as_os_str(), OsStr::new("--library"), OsStr::new("none"), OsStr::new("-o"), path.as_os_str()]);
    let executable = Executable::load(&path).unwrap();
    assert_eq!(executable.backend(), "cpu");
    // Extern functions are resolved when the VM is made.
    assert_error(Vm::new(&executable, None), Code::NotFound, "env.rust_runtime_triple");

    let name = CString::new("env.rust_runtime_triple").unwrap();
    let status = unsafe { sys::rxt_extern_register(name.as_ptr(), Some(triple), std::ptr::null_mut(), 1) };
    assert!(status.is_null());
    let (x, w) = (common::ramp(6, -1.0, 0.5), common::ramp(12, 0.25, -0.125));
    let expected: Vec<f32> =
        (0..8).map(|ij| 3.0 * (0..3).map(|k| x[ij / 4 * 3 + k] * w[k * 4 + ij % 4]).sum::<f32>()).collect();
    let saved = temp_path("runtime_scaled_saved.rxtx");
    executable.save(&saved).unwrap();
    let context = Context::new(&ContextOptions { num_threads: 1, search_path: false, ..Default::default() }).unwrap();
    let vms =
        [Vm::new(&executable, None).unwrap(), Vm::new_in(&context, &Executable::load(&saved).unwrap(), None).unwrap()];
    for mut vm in vms {
        let out =
            vm.invoke("main", &[TensorRef::new(&x, &[2, 3]).unwrap(), TensorRef::new(&w, &[3, 4]).unwrap()]).unwrap();
        assert_eq!(out[0].shape(), [2, 4]);
        for (got, want) in out[0].as_slice::<f32>().unwrap().iter().zip(&expected) {
            assert!((got - want).abs() < 1e-5, "{} vs {}", got, want);
        }
    }
    assert_eq!(context.num_threads().unwrap(), 1);
    unsafe { sys::rxt_status_free(sys::rxt_extern_remove(name.as_ptr())) };
}

#[test]
fn bad_files_inputs_and_plugins_are_errors() {
    assert_error(Trainer::load(temp_path("runtime_no_such.rxtt"), None), Code::NotFound, "runtime_no_such.rxtt");
    let corrupt = temp_path("runtime_corrupt.rxtt");
    std::fs::write(&corrupt, "not a trainer file").unwrap();
    assert_error(Trainer::load(&corrupt, None), Code::DataLoss, "not an rxt trainer file");
    assert_error(Executable::load(temp_path("runtime_no_such.rxtx")), Code::NotFound, "runtime_no_such.rxtx");

    let mut trainer = Trainer::load(seed_mlp_file(), None).unwrap();
    let (images, labels) = (vec![0f32; 32 * 784], vec![0i64; 32]);
    let x = TensorRef::new(&images, &[32, 784]).unwrap();
    let y = TensorRef::new(&labels, &[32]).unwrap();
    assert_error(trainer.update(&[x], &[y]), Code::InvalidArgument, "train_step: argument 0 (%x)");
    assert_error(trainer.load_checkpoint(temp_path("runtime_no_such.safetensors")), Code::NotFound, "no_such");
    assert_eq!(trainer.step().unwrap(), 0);

    let wrong_abi = test_plugin_dir().join("bad/test_wrong_abi.so");
    assert_error(rxt::load_plugin(&wrong_abi), Code::FailedPrecondition, "plugin ABI version 99");
    let context = Context::new(&ContextOptions { search_path: false, ..Default::default() }).unwrap();
    assert_error(context.load_plugin(&wrong_abi), Code::FailedPrecondition, "test_wrong_abi.so");
}

/// The library the `compiler` feature chose is the one in the process: without the feature,
/// librxt_runtime.so and nothing of the compiler (as train_from_file.c --no-compiler checks).
#[test]
fn the_process_maps_the_library_the_feature_chose() {
    let _trainer = Trainer::load(seed_mlp_file(), None).unwrap();
    assert_eq!(rxt::abi_version(), rxt::ABI_VERSION);
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    if cfg!(feature = "compiler") {
        assert!(maps.contains("/librxt.so"), "librxt.so is not mapped");
    } else {
        assert!(maps.contains("/librxt_runtime.so"), "librxt_runtime.so is not mapped");
        for compiler in ["libLLVM", "/librxt.so", "rxt_backend_"] {
            let line = maps.lines().find(|l| l.contains(compiler));
            assert!(line.is_none(), "the runtime alone maps {}: {}", compiler, line.unwrap());
        }
    }
}
