//! Threads and contexts: which types cross threads (docs/abi.md's rules), trainers training on
//! two threads at once, a context with its own plugins, threads and log that its trainer keeps
//! alive. (lib.rs's compile_fail examples check that trainers and VMs are not Sync.)
mod common;

use std::path::PathBuf;
use std::sync::Mutex;

use common::{linear_data, linear_inputs, linear_trainer, LINEAR_BACKBONE};
use rxt::{Context, ContextOptions, LogLevel, Module, TensorKind, Trainer, TrainerOptions};

fn send_and_sync<T: Send + Sync>() {}
fn send<T: Send>() {}

#[test]
fn thread_safety_of_the_types() {
    send_and_sync::<Module>();
    send_and_sync::<Context>();
    send_and_sync::<rxt::Executable>();
    send_and_sync::<rxt::Tensor>();
    send_and_sync::<rxt::TensorRef<'static>>();
    send_and_sync::<rxt::Error>();
    send::<Trainer>();
    send::<rxt::Vm>();
}

/// The params of a linear trainer after 5 updates, as bits.
fn train_linear(trainer: &mut Trainer) -> Vec<u32> {
    let (x, y) = linear_data();
    trainer.init_xavier_uniform(11).unwrap();
    for _ in 0..5 {
        let (xs, ys) = linear_inputs(&x, &y);
        trainer.update(&[xs], &[ys]).unwrap();
    }
    let w = trainer.get(TensorKind::Params, 0).unwrap();
    w.as_slice::<f32>().unwrap().iter().map(|v| v.to_bits()).collect()
}

#[test]
fn trainers_train_on_two_threads_at_once() {
    let module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    let alone = train_linear(&mut linear_trainer("reference", "adam", "lr=0.05"));
    // One module shared by reference (Sync), one trainer moved into each thread (Send).
    let results: Vec<Vec<u32>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let module = &module;
                scope.spawn(move || {
                    let mut options = TrainerOptions::new("mse", "adam");
                    options.backend = Some("reference".to_string());
                    options.loss_options = Some("reduction=\"sum\"".to_string());
                    options.optimizer_options = Some("lr=0.05".to_string());
                    train_linear(&mut Trainer::new(module, &options).unwrap())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(results[0], alone);
    assert_eq!(results[1], alone);
    // A result tensor is dropped (its deleter runs) on another thread.
    let w = linear_trainer("reference", "sgd", "lr=0.1").get(TensorKind::Params, 0).unwrap();
    std::thread::spawn(move || drop(w)).join().unwrap();
}

/// The files of the standard plugins this librxt loads from its search path.
fn standard_plugins(names: &[&str]) -> Vec<PathBuf> {
    let _ = rxt::load_plugin_search_path(); // errors of other plugins do not matter here
    let loaded = rxt::plugins().unwrap();
    names
        .iter()
        .map(|name| {
            loaded.iter().find(|p| p.name == *name).unwrap_or_else(|| panic!("no plugin {}", name)).path.clone()
        })
        .collect()
}

static LOG: Mutex<Vec<(LogLevel, String, String)>> = Mutex::new(Vec::new());

fn record(level: LogLevel, source: &str, message: &str) {
    LOG.lock().unwrap().push((level, source.to_string(), message.to_string()));
}

#[test]
fn a_context_with_its_own_plugins_threads_and_log() {
    let plugins = standard_plugins(&["rxt_grad_std", "rxt_loss_std", "rxt_optim_std", "rxt_backend_reference"]);
    assert!(plugins.iter().all(|p| p.exists()), "{:?}", plugins);
    let options = ContextOptions { num_threads: 2, search_path: false, plugins, log: Some(record) };
    let context = Context::new(&options).unwrap();
    assert_eq!(context.num_threads().unwrap(), 2);
    let names: Vec<String> = context.plugins().unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["rxt_grad_std", "rxt_loss_std", "rxt_optim_std", "rxt_backend_reference"]);

    let module = Module::parse(LINEAR_BACKBONE, "linear.rxt").unwrap();
    let mut trainer_options = TrainerOptions::new("mse", "sgd");
    trainer_options.optimizer_options = Some("lr=0.05".to_string());
    trainer_options.context = Some(context.clone());
    let mut trainer = Trainer::new(&module, &trainer_options).unwrap();
    // No cpu backend in the context: its build says so in its log, from "rxt".
    let notes =
        LOG.lock().unwrap().iter().filter(|(level, source, _)| *level == LogLevel::Info && source == "rxt").count();
    assert!(notes >= 1, "{:?}", LOG.lock().unwrap());
    // The trainer keeps its context alive.
    drop(trainer_options);
    drop(context);
    let (x, y) = linear_data();
    let (xs, ys) = linear_inputs(&x, &y);
    trainer.update(&[xs], &[ys]).unwrap();
    assert_eq!(trainer.step().unwrap(), 1);
}

#[test]
fn the_default_context() {
    let global = Context::global();
    assert!(global.num_threads().unwrap() >= 1);
    drop(global.clone()); // retain and release do nothing to it
    assert!(global.num_threads().unwrap() >= 1);
}
