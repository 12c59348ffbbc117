//! Criterion micro-benchmarks of the embedded executor (`LocalExecutor`),
//! each against a baseline measured in the same run:
//!
//! - `local_launch/*`: a synchronous launch of an empty kernel, and of one
//!   taking and returning a `memref<256xf32>` (1 KiB), against calling the same
//!   JIT-compiled entry through a plain function pointer with the same
//!   arguments (`baseline_direct_call`);
//! - `launch_async_await`: `launch_async` + `await_launch` of an empty
//!   `void(void)` entry, against handing the same call to a parked thread
//!   through a pair of `std::sync::mpsc` channels and waiting for its answer
//!   (`baseline_mpsc_handoff`), and against starting and joining a thread per
//!   call (`baseline_thread_spawn_join`).
//!
//! The kernels are bench/kernels.mlir, compiled to an object file with
//! upstream mlir-opt, mlir-translate and llc (as bench/run.py does) and
//! JIT-linked by the executor. `make bench` runs this (bench/run.py), or:
//!
//!     cargo bench -p executor-runtime --bench local

use std::{
    hint::black_box,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::mpsc,
};

mod common;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use executor_runtime::{
    executor::{BinaryFormat, Executor},
    local::LocalExecutor,
    memref::{DenseBuffer, OwnedDescriptor},
};

/// bench/run.py's KERNEL_PIPELINE (test/Runtime's %kernel_pipeline).
const KERNEL_PIPELINE: &str = "builtin.module(convert-scf-to-cf,convert-cf-to-llvm,convert-arith-to-llvm,\
     finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)";

fn llvm_tool(name: &str) -> PathBuf {
    Path::new(env!("EXECUTOR_LLVM_PREFIX"))
        .join("bin")
        .join(name)
}

/// Runs `program` with `arguments`, feeding it `input`; returns its stdout.
fn pipe(program: &Path, arguments: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(program)
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", program.display()));
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let output = child.wait_with_output().expect("the tool runs");
    writer
        .join()
        .expect("the writer ends")
        .expect("the tool reads");
    assert!(output.status.success(), "{} failed", program.display());
    output.stdout
}

/// bench/kernels.mlir as an object file in `directory`.
fn compile_kernels(directory: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/kernels.mlir");
    let source = source.to_str().expect("a UTF-8 path");
    let pipeline = format!("--pass-pipeline={KERNEL_PIPELINE}");
    let lowered = pipe(&llvm_tool("mlir-opt"), &[source, &pipeline], &[]);
    let ir = pipe(
        &llvm_tool("mlir-translate"),
        &["--mlir-to-llvmir"],
        &lowered,
    );
    let object = directory.join("kernels.o");
    pipe(
        &llvm_tool("llc"),
        &[
            "-filetype=obj",
            "-relocation-model=pic",
            "-o",
            object.to_str().expect("a UTF-8 path"),
        ],
        &ir,
    );
    object
}

fn floats_1k() -> DenseBuffer {
    DenseBuffer {
        element_size: 4,
        sizes: vec![256],
        data: (0..256u32)
            .flat_map(|value| (value as f32).to_ne_bytes())
            .collect(),
    }
}

fn benches(criterion: &mut Criterion) {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let kernels = compile_kernels(scratch.path());
    let object = kernels.to_str().expect("a UTF-8 path");
    let executor = LocalExecutor::new().expect("an executor");
    executor
        .send_binary(object, BinaryFormat::RelocatableObject)
        .expect("the kernels load");

    let mut group = criterion.benchmark_group("local_launch");
    let nothing = executor
        .entry_address("_mlir_ciface_nothing", object)
        .expect("the empty kernel is there");
    // SAFETY: `_mlir_ciface_nothing` is `void(void)` (bench/kernels.mlir), and
    // the executor keeps it loaded for the whole benchmark.
    let nothing: extern "C" fn() = unsafe { std::mem::transmute(nothing) };
    group.bench_function(
        BenchmarkId::new("baseline_direct_call", "empty"),
        |bencher| bencher.iter(|| black_box(nothing)()),
    );
    group.bench_function(BenchmarkId::new("executor", "empty"), |bencher| {
        bencher.iter(|| {
            executor
                .launch(black_box("_mlir_ciface_nothing"), object, &[], &[])
                .expect("the launch succeeds")
        })
    });

    let mut input = OwnedDescriptor::from_dense(floats_1k());
    let input = input.descriptor();
    let mut output = OwnedDescriptor::empty(1, 4);
    let output = output.descriptor();
    let echo = executor
        .entry_address("_mlir_ciface_echo_1k", object)
        .expect("the echo kernel is there");
    // SAFETY: `_mlir_ciface_echo_1k` takes a pointer to its result descriptor
    // and one to its input's, both rank 1 and alive for the whole benchmark;
    // it copies the input descriptor into the result, allocating nothing.
    let echo: extern "C" fn(*mut u8, *mut u8) = unsafe { std::mem::transmute(echo) };
    group.bench_function(
        BenchmarkId::new("baseline_direct_call", "memref_1KiB"),
        |bencher| bencher.iter(|| black_box(echo)(output.as_ptr(), input.as_ptr())),
    );
    group.bench_function(BenchmarkId::new("executor", "memref_1KiB"), |bencher| {
        bencher.iter(|| {
            executor
                .launch(
                    black_box("_mlir_ciface_echo_1k"),
                    object,
                    &[input],
                    &[output],
                )
                .expect("the launch succeeds")
        })
    });
    group.finish();

    let mut group = criterion.benchmark_group("launch_async_await");
    group.bench_function("executor", |bencher| {
        bencher.iter(|| {
            let token = executor
                .launch_async(black_box("nothing"), object)
                .expect("the launch starts");
            executor.await_launch(token).expect("the launch ends");
        })
    });
    let (jobs, job_receiver) = mpsc::channel::<extern "C" fn()>();
    let (done_sender, done) = mpsc::channel::<()>();
    let parked = std::thread::spawn(move || {
        for job in job_receiver {
            job();
            if done_sender.send(()).is_err() {
                break;
            }
        }
    });
    group.bench_function("baseline_mpsc_handoff", |bencher| {
        bencher.iter(|| {
            jobs.send(black_box(nothing)).expect("the thread waits");
            done.recv().expect("the thread answers");
        })
    });
    drop(jobs);
    parked.join().expect("the parked thread ends");
    group.bench_function("baseline_thread_spawn_join", |bencher| {
        bencher.iter(|| {
            let entry = black_box(nothing);
            std::thread::spawn(move || entry())
                .join()
                .expect("the thread ends")
        })
    });
    group.finish();

    executor.close().expect("the session closes");
}

criterion_group! {
    name = local;
    config = common::short_runs();
    targets = benches
}
criterion_main!(local);
