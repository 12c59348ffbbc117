//! Criterion micro-benchmarks of what the runtime does to data in process,
//! each against a plain copy of the same bytes measured in the same run:
//!
//! - `frame_encode/*`, `frame_decode/*`: a `Launch` request with one input of
//!   1 KiB, 64 KiB and 1 MiB encoded as a protocol frame, by postcard into one
//!   buffer (`encode_frame`) and as the client sends it (`LaunchFrame`: the
//!   bytes around the input encoded, then everything written to `io::sink()`
//!   with vectored writes, the input from where it is), and read back from
//!   memory, by `read_message` and as the worker reads it (`read_request`,
//!   into the input buffer of the previous iteration), against copying the
//!   frame's bytes into a new `Vec` (`baseline_memcpy`);
//! - `call_buffers/*`: `executor.call`'s `args_buf` of two 1 KiB buffers
//!   packed (`packed::encode_arguments`) and unpacked (`decode_arguments`),
//!   against a copy of the same bytes;
//! - `descriptor/*`: a memref's elements gathered into a dense buffer
//!   (`Descriptor::to_dense`) from a contiguous 1 KiB `memref<256xf32>` and
//!   from a strided 16x16 view of a 32x32 f32 buffer, and a result descriptor
//!   pointed at a `malloc`ed copy (`fill_from_dense`), against a copy of the
//!   same 1 KiB.
//!
//! `make bench` runs this (bench/run.py), or:
//!
//!     cargo bench -p executor-runtime --bench encoding

use std::{borrow::Cow, hint::black_box, io};

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use executor_runtime::{
    memref::{DenseBuffer, DenseView, Descriptor, OwnedDescriptor},
    packed::{self, CallArguments},
    protocol::{self, DEFAULT_MAX_MESSAGE_SIZE, LaunchFrame, OutputShape, Request},
};

fn bytes(len: usize) -> Vec<u8> {
    (0..len).map(|index| index as u8).collect()
}

fn dense(len: usize) -> DenseBuffer {
    DenseBuffer {
        element_size: 4,
        sizes: vec![len as i64 / 4],
        data: bytes(len),
    }
}

fn launch_request(len: usize) -> Request {
    Request::Launch {
        entry: "_mlir_ciface_sink".into(),
        object: "/tmp/kernels.o".into(),
        inputs: vec![dense(len)],
        outputs: vec![OutputShape {
            rank: 1,
            element_size: 4,
        }],
    }
}

fn frames(criterion: &mut Criterion) {
    for (label, len) in [("1KiB", 1 << 10), ("64KiB", 64 << 10), ("1MiB", 1 << 20)] {
        let request = launch_request(len);
        let frame = protocol::encode_frame(&request, DEFAULT_MAX_MESSAGE_SIZE).unwrap();
        let Request::Launch {
            entry,
            object,
            inputs,
            outputs,
        } = &request
        else {
            unreachable!()
        };
        let views: Vec<DenseView> = inputs
            .iter()
            .map(|input| DenseView {
                element_size: input.element_size,
                sizes: input.sizes.clone(),
                data: Cow::Borrowed(&input.data),
            })
            .collect();
        let mut group = criterion.benchmark_group("frame_encode");
        group.throughput(Throughput::Bytes(frame.len() as u64));
        group.bench_function(BenchmarkId::new("encode_frame", label), |bencher| {
            bencher.iter(|| protocol::encode_frame(black_box(&request), DEFAULT_MAX_MESSAGE_SIZE))
        });
        group.bench_function(BenchmarkId::new("launch_frame", label), |bencher| {
            bencher.iter(|| {
                LaunchFrame::new(
                    entry,
                    object,
                    black_box(&views),
                    outputs,
                    DEFAULT_MAX_MESSAGE_SIZE,
                )
                .unwrap()
                .write_to(&mut io::sink())
                .unwrap()
            })
        });
        group.bench_function(BenchmarkId::new("baseline_memcpy", label), |bencher| {
            bencher.iter(|| black_box(frame.as_slice()).to_vec())
        });
        group.finish();
        let mut group = criterion.benchmark_group("frame_decode");
        group.throughput(Throughput::Bytes(frame.len() as u64));
        group.bench_function(BenchmarkId::new("read_message", label), |bencher| {
            bencher.iter(|| {
                protocol::read_message::<Request>(
                    &mut black_box(frame.as_slice()),
                    DEFAULT_MAX_MESSAGE_SIZE,
                )
                .unwrap()
            })
        });
        let mut spare = Vec::new();
        group.bench_function(BenchmarkId::new("read_request", label), |bencher| {
            bencher.iter(|| {
                let request = protocol::read_request(
                    &mut black_box(frame.as_slice()),
                    DEFAULT_MAX_MESSAGE_SIZE,
                    &mut spare,
                )
                .unwrap();
                // As the worker does: the input buffers serve the next launch.
                if let Request::Launch { inputs, .. } = request {
                    spare = inputs.into_iter().map(|input| input.data).collect();
                }
            })
        });
        group.bench_function(BenchmarkId::new("baseline_memcpy", label), |bencher| {
            bencher.iter(|| black_box(frame.as_slice()).to_vec())
        });
        group.finish();
    }
}

fn call_buffers(criterion: &mut Criterion) {
    let arguments = CallArguments {
        buffers: vec![dense(1 << 10), dense(1 << 10)],
        num_inputs: 1,
    };
    let encoded = packed::encode_arguments(&arguments);
    let mut group = criterion.benchmark_group("call_buffers");
    group.throughput(Throughput::Bytes(encoded.len() as u64));
    group.bench_function(BenchmarkId::new("encode_arguments", "2x1KiB"), |bencher| {
        bencher.iter(|| packed::encode_arguments(black_box(&arguments)))
    });
    group.bench_function(BenchmarkId::new("decode_arguments", "2x1KiB"), |bencher| {
        bencher.iter(|| packed::decode_arguments(black_box(&encoded)).unwrap())
    });
    group.bench_function(BenchmarkId::new("baseline_memcpy", "2x1KiB"), |bencher| {
        bencher.iter(|| black_box(encoded.as_slice()).to_vec())
    });
    group.finish();
}

fn descriptors(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("descriptor");
    group.throughput(Throughput::Bytes(1 << 10));
    let mut contiguous = OwnedDescriptor::from_dense(dense(1 << 10));
    let contiguous = contiguous.descriptor();
    group.bench_function(BenchmarkId::new("to_dense_contiguous", "1KiB"), |bencher| {
        bencher.iter(|| black_box(contiguous).to_dense())
    });

    // A 16x16 view (rows of 32) of a 32x32 f32 buffer: 1 KiB of elements.
    let buffer = bytes(4 << 10);
    let base = buffer.as_ptr() as i64;
    let mut words = [base, base, 0, 16, 16, 32, 1];
    // SAFETY: the words describe a rank-2 view of 4-byte elements inside
    // `buffer`, which outlives every use of the descriptor.
    let strided = unsafe { Descriptor::from_raw(words.as_mut_ptr().cast(), 2, 4) };
    group.bench_function(BenchmarkId::new("to_dense_strided", "1KiB"), |bencher| {
        bencher.iter(|| black_box(strided).to_dense())
    });

    let result = dense(1 << 10);
    let mut output = OwnedDescriptor::empty(1, 4);
    let output = output.descriptor();
    group.bench_function(BenchmarkId::new("fill_from_dense", "1KiB"), |bencher| {
        bencher.iter(|| {
            output.fill_from_dense(black_box(&result));
            // SAFETY: fill_from_dense pointed the descriptor at a buffer it
            // allocated with malloc, which is ours to free.
            unsafe { libc::free(output.allocated().cast()) };
        })
    });
    group.bench_function(BenchmarkId::new("baseline_memcpy", "1KiB"), |bencher| {
        bencher.iter(|| black_box(result.data.as_slice()).to_vec())
    });
    group.finish();
}

criterion_group! {
    name = encoding;
    config = common::short_runs();
    targets = frames, call_buffers, descriptors
}
criterion_main!(encoding);
