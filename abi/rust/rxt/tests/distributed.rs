//! Gradient accumulation and data parallelism through the Rust binding (docs/distributed.md):
//! a trainer built with accumulation steps on one micro-batch exactly as update does; a
//! data-parallel trainer under a world of one rank ("mpi", when the plugin is built) trains as
//! the plain one; an unknown collective is NotFound. Under mpirun, tests/abi/distributed checks
//! several ranks from C.
#![cfg(feature = "compiler")]
mod common;

use common::{linear_data, linear_inputs, LINEAR_BACKBONE};
use rxt::{Code, Comm, Module, TensorKind, Trainer, TrainerOptions};

fn trainer(data_parallel: bool, accumulation: bool) -> Trainer {
    let module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    let mut options = TrainerOptions::new("mse", "adam");
    options.backend = Some("reference".to_string());
    options.optimizer_options = Some("lr=0.05".to_string());
    options.data_parallel = data_parallel;
    options.accumulation = accumulation;
    let mut t = Trainer::new(&module, &options).unwrap();
    t.init_xavier_uniform(3).unwrap();
    t
}

fn params(t: &Trainer) -> Vec<f32> {
    let mut all = t.get(TensorKind::Params, 0).unwrap().to_vec::<f32>().unwrap();
    all.extend(t.get(TensorKind::Params, 1).unwrap().to_vec::<f32>().unwrap());
    all
}

#[test]
fn one_accumulated_micro_batch_is_an_update() {
    let (x, y) = linear_data();
    let mut plain = trainer(false, false);
    let mut accumulating = trainer(false, true);
    for _ in 0..3 {
        let (xs, ys) = linear_inputs(&x, &y);
        let loss = plain.update(&[xs], &[ys]).unwrap();
        let (xs, ys) = linear_inputs(&x, &y);
        accumulating.accumulate(&[xs], &[ys]).unwrap();
        assert_eq!(accumulating.apply_accumulated().unwrap().to_bits(), loss.to_bits());
    }
    assert_eq!(params(&accumulating), params(&plain));
    let err = accumulating.apply_accumulated().unwrap_err();
    assert_eq!(err.code, Code::FailedPrecondition);
    let (xs, ys) = linear_inputs(&x, &y);
    assert!(plain.accumulate(&[xs], &[ys]).unwrap_err().message.contains("built without gradient accumulation"));
}

#[test]
fn a_world_of_one_rank_trains_as_alone() {
    let world = match Comm::world("mpi", None) {
        Ok(world) => world,
        Err(e) if e.code == Code::NotFound => {
            eprintln!("skipped: no \"mpi\" collective (built without OpenMPI): {}", e.message);
            return;
        }
        Err(e) => panic!("{}", e),
    };
    assert_eq!(world.rank().unwrap(), 0);
    assert_eq!(world.size().unwrap(), 1);
    let (x, y) = linear_data();
    let mut plain = trainer(false, false);
    let mut parallel = trainer(true, false);
    parallel.set_comm(Some(&world)).unwrap();
    drop(world); // the trainer keeps its communicator
    for _ in 0..3 {
        let (xs, ys) = linear_inputs(&x, &y);
        let loss = parallel.update(&[xs], &[ys]).unwrap();
        let (xs, ys) = linear_inputs(&x, &y);
        assert_eq!(loss.to_bits(), plain.update(&[xs], &[ys]).unwrap().to_bits());
    }
    assert_eq!(params(&parallel), params(&plain));
    parallel.set_comm(None).unwrap();
}

#[test]
fn an_unknown_collective_is_not_found() {
    let err = Comm::world("nccl9", None).err().expect("nccl9 was found");
    assert_eq!(err.code, Code::NotFound);
    assert!(err.message.contains("no collective named 'nccl9'"), "{}", err.message);
}
