//! Modules: text round trips, attributes, function signatures, passes, and rxt's listings.
mod common;

use common::LINEAR_BACKBONE;
use rxt::{AttrKind, Module};

#[test]
fn text_round_trip() {
    let module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    module.verify().unwrap();
    let text = module.print().unwrap();
    assert!(text.contains("def @backbone"), "{}", text);
    let again = Module::parse(&text, "printed.rxt").unwrap();
    assert_eq!(again.print().unwrap(), text);
    assert_eq!(format!("{}", again), text);
}

#[test]
fn from_file_reads_the_seed_mlp() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/mlp.rxt");
    let module = Module::from_file(&path).unwrap();
    assert_eq!(module.attr_int("param_num").unwrap(), 6);
    assert_eq!(module.function_num_results("backbone").unwrap(), 1);
}

#[test]
fn attributes() {
    let mut module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    assert_eq!(module.attr_names().unwrap(), ["param_num", "state_num"]);
    assert_eq!(module.attr_kind("param_num").unwrap(), AttrKind::Int);
    assert_eq!(module.attr_int("param_num").unwrap(), 2);
    module.set_attr_float("lr", 0.25).unwrap();
    module.set_attr_string("name", "linear").unwrap();
    module.set_attr_int("state_num", 1).unwrap();
    assert_eq!(module.attr_float("lr").unwrap(), 0.25);
    assert_eq!(module.attr_string("name").unwrap(), "linear");
    assert_eq!(module.attr_kind("name").unwrap(), AttrKind::String);
    assert_eq!(module.attr_int("state_num").unwrap(), 1);
    assert!(module.print().unwrap().contains("name = \"linear\""));
}

#[test]
fn function_signature() {
    let module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    let params = module.function_params("backbone").unwrap();
    let names: Vec<&str> = params.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["x", "w", "b"]);
    assert_eq!(params[0].1, "Tensor((4, 3), float32)");
}

#[test]
fn passes_run_on_a_copy() {
    let text = "def @main(%x: Tensor((2, 3), float32), %w: Tensor((3, 4), float32)) -> Tensor((2, 4), float32) {
  dataflow {
    %y: Tensor((2, 4), float32) = matmul(%x, %w)
    %unused: Tensor((2, 4), float32) = nn.relu(%y)
    output %y
  }
  return %y
}
";
    let module = Module::parse(text, "small.rxt").unwrap();
    let simplified = module.run_passes(&["DeadCodeElimination"]).unwrap();
    assert!(!simplified.print().unwrap().contains("%unused"));
    assert!(module.print().unwrap().contains("%unused"), "the input is unchanged");
}

#[test]
fn listings() {
    let ops = rxt::ops().unwrap();
    assert!(ops.iter().any(|op| op.name == "matmul" && !op.summary.is_empty()));
    assert!(rxt::passes().unwrap().iter().any(|pass| pass.name == "DeadCodeElimination"));
    assert!(rxt::version().starts_with(&format!("{}.", rxt::sys::RXT_VERSION_MAJOR)));
    assert_eq!(rxt::abi_version(), rxt::ABI_VERSION);
}
