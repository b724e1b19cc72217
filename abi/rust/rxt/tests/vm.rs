//! Executables and the VM: build, save and load, invoke against a plain computation, results of
//! any count, errors naming the function and argument, and inputs read in place (no copy).
mod common;

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::temp_path;
use rxt::{sys, Code, Executable, Module, TensorRef, Vm};

const MATMUL: &str = "def @main(%x: Tensor((2, 3), float32), %w: Tensor((3, 4), float32)) -> Tensor((2, 4), float32) {
  dataflow {
    %y: Tensor((2, 4), float32) = matmul(%x, %w)
    output %y
  }
  return %y
}
";

/// A module whose @many returns a tuple of |count| copies of its input.
fn many_results(count: usize) -> String {
    let field = "Tensor((2,), float32)";
    let fields = vec![field; count].join(", ");
    let values = vec!["%x"; count].join(", ");
    format!(
        "def @many(%x: {f}) -> Tuple({t}) {{\n  %t: Tuple({t}) = ({v})\n  return %t\n}}\n",
        f = field,
        t = fields,
        v = values
    )
}

fn matmul(x: &[f32], w: &[f32]) -> Vec<f32> {
    (0..8).map(|ij| (0..3).map(|k| x[ij / 4 * 3 + k] * w[k * 4 + ij % 4]).sum()).collect()
}

#[test]
fn build_save_load_and_invoke() {
    let module = Module::parse(MATMUL, "matmul.rxt").unwrap();
    let built = Executable::build(&module, Some("reference")).unwrap();
    assert_eq!(built.backend(), "reference");
    let path = temp_path("vm_matmul.rxtx");
    built.save(&path).unwrap();
    let loaded = Executable::load(&path).unwrap();
    let x = common::ramp(6, -1.0, 0.5);
    let w = common::ramp(12, 0.25, -0.125);
    for executable in [&built, &loaded] {
        let mut vm = Vm::new(executable, None).unwrap();
        let out =
            vm.invoke("main", &[TensorRef::new(&x, &[2, 3]).unwrap(), TensorRef::new(&w, &[3, 4]).unwrap()]).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].shape(), [2, 4]);
        for (got, want) in out[0].as_slice::<f32>().unwrap().iter().zip(matmul(&x, &w)) {
            assert!((got - want).abs() < 1e-6, "{} vs {}", got, want);
        }
    }
}

/// Results of any count: 20 is more than the first room the binding makes (16), which then
/// grows to what rxt says it needs.
#[test]
fn results_of_any_count() {
    for count in [2, 16, 20] {
        let module = Module::parse(&many_results(count), "many.rxt").unwrap();
        let mut vm = Vm::new(&Executable::build(&module, Some("reference")).unwrap(), None).unwrap();
        let x = [1.5f32, -2.0];
        let out = vm.invoke("many", &[TensorRef::new(&x, &[2]).unwrap()]).unwrap();
        assert_eq!(out.len(), count);
        for tensor in &out {
            assert_eq!(tensor.as_slice::<f32>().unwrap(), x);
            assert_ne!(tensor.data_ptr(), x.as_ptr() as *const c_void, "results never alias inputs");
        }
    }
}

#[test]
fn invoke_errors_name_the_function_and_argument() {
    let module = Module::parse(MATMUL, "matmul.rxt").unwrap();
    let mut vm = Vm::new(&Executable::build(&module, Some("reference")).unwrap(), None).unwrap();
    let (x, w) = (vec![0f32; 6], vec![0f32; 12]);
    let error = vm.invoke("nope", &[]).unwrap_err();
    assert_eq!((error.code, error.message.contains("no function named 'nope'")), (Code::NotFound, true), "{}", error);
    let error = vm.invoke("main", &[TensorRef::new(&x, &[2, 3]).unwrap()]).unwrap_err();
    assert_eq!(error.code, Code::InvalidArgument);
    assert!(error.message.contains("main: expected 2 arguments"), "{}", error);
    let error =
        vm.invoke("main", &[TensorRef::new(&x, &[2, 3]).unwrap(), TensorRef::new(&w, &[4, 3]).unwrap()]).unwrap_err();
    assert!(
        error.message.contains("main: argument 1 (%w): expected Tensor((3, 4), float32), got float32 (4, 3)"),
        "{}",
        error
    );
    let error = Vm::new(&Executable::build(&module, Some("reference")).unwrap(), Some("no_such_backend")).unwrap_err();
    assert_eq!((error.code, error.message.contains("no_such_backend")), (Code::NotFound, true), "{}", error);
}

// ---- Inputs are read in place: an extern function (registered through rxt-sys) records the
// address it is given.

static RECORDED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn record(_: *mut c_void, args: *const *mut sys::DLTensor, num_args: i32) -> sys::rxt_status_t {
    // (No panic may unwind into C: a wrong call is an error status.)
    if num_args != 2 {
        return sys::rxt_status_create(sys::RXT_INVALID_ARGUMENT, b"env.rust_record takes 2 arguments\0".as_ptr() as _);
    }
    let (input, output) = (&**args, &**args.add(1));
    let data = (input.data as *const u8).add(input.byte_offset as usize);
    RECORDED.store(data as usize, Ordering::SeqCst);
    std::ptr::copy_nonoverlapping(data, output.data as *mut u8, 4 * 4);
    std::ptr::null_mut()
}

#[repr(C, align(64))]
struct Aligned([f32; 8]);

#[test]
fn aligned_inputs_are_read_in_place() {
    let name = std::ffi::CString::new("env.rust_record").unwrap();
    let status = unsafe { sys::rxt_extern_register(name.as_ptr(), Some(record), std::ptr::null_mut(), 1) };
    assert!(status.is_null());
    let text = "def @main(%x: Tensor((4,), float32)) -> Tensor((4,), float32) {
  dataflow {
    %y = call_extern(\"env.rust_record\", (%x,), out_sinfo=Tensor((4,), float32))
    output %y
  }
  return %y
}
";
    let module = Module::parse(text, "record.rxt").unwrap();
    let mut vm = Vm::new(&Executable::build(&module, Some("reference")).unwrap(), None).unwrap();
    let data = Aligned([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    let x = TensorRef::new(&data.0[..4], &[4]).unwrap();
    assert_eq!(x.data_ptr(), data.0.as_ptr() as *const c_void, "the TensorRef is the slice");
    let out = vm.invoke("main", &[x]).unwrap();
    assert_eq!(RECORDED.load(Ordering::SeqCst), data.0.as_ptr() as usize, "rxt read the caller's memory");
    assert_eq!(out[0].as_slice::<f32>().unwrap(), [0.0, 1.0, 2.0, 3.0]);
    // Off the 64-byte alignment rxt copies (its rule, docs/abi.md), with the same values.
    let out = vm.invoke("main", &[TensorRef::new(&data.0[1..5], &[4]).unwrap()]).unwrap();
    assert_ne!(RECORDED.load(Ordering::SeqCst), data.0[1..].as_ptr() as usize);
    assert_eq!(out[0].as_slice::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    unsafe { sys::rxt_status_free(sys::rxt_extern_remove(name.as_ptr())) };
}
