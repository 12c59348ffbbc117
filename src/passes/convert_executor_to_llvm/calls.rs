//! The lowering of `executor.call`: its buffers packed into one heap buffer
//! for the runtime, and the output buffers copied back from its reply.

use executor_abi::{EntryConvention, call_buffer, descriptor, functions};
use melior::ir::{Type, Value, ValueLike};

use super::{
    lowering::{Lowering, generated},
    memrefs::{memref_element_size, memref_rank, static_shape, static_size_in_bytes},
};
use crate::{
    dialect::executor,
    passes::{executor_ops::Borrowed, llvm_builder::Emitter},
};

impl<'c, 'a> Lowering<'c, 'a> {
    //===------------------------------------------------------------------===//
    // executor.call -> __catalyst__executor__call_wrapper and
    //                  __catalyst__executor__free_result
    //===------------------------------------------------------------------===//

    /// Every buffer operand is packed into one heap buffer, the runtime
    /// returns the filled output buffers packed the same way, and their data
    /// is copied into the output operands. The layout is this project's
    /// (`executor_abi::call_buffer::GRAMMAR`), or Catalyst's under Catalyst's
    /// entry convention when the call has only statically shaped operands
    /// and no results, as Catalyst's lowering emits it.
    pub(super) fn lower_call(
        &mut self,
        at: &Emitter<'c, 'a>,
        call: &Borrowed<'c, 'a, executor::CallOperation<'c>>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let session = call.anchor(generated(call.session())?);
        let symbol = self.string_of(at, generated(call.symbol())?);
        let buffers: Vec<Value> = call.inputs().map(|buffer| call.anchor(buffer)).collect();
        let num_inputs = num_call_inputs(call);
        if self.convention == EntryConvention::CatalystPyface
            && call.results().next().is_none()
            && let Some(sizes) = static_sizes_in_bytes(&buffers)
        {
            let call_site = CallSite {
                session,
                symbol,
                buffers,
                num_inputs,
            };
            self.lower_call_in_catalyst_layout(at, &call_site, &sizes)?;
            return Ok(vec![]);
        }

        let mut packed: Vec<PackedBuffer> = buffers
            .iter()
            .map(|buffer| {
                let descriptor = at.cast(*buffer, self.descriptor_type(buffer.r#type()));
                self.packed_buffer(at, descriptor, buffer.r#type())
            })
            .collect();
        let mut results = Vec::new();
        for result in call.results() {
            let (buffer, descriptor) = self.allocate_static(at, result.r#type())?;
            packed.push(self.packed_buffer(at, descriptor, result.r#type()));
            results.push(buffer);
        }

        let header = self.constant(at, self.types.i64, call_buffer::ARGS_RECORDS as i64);
        let total = packed
            .iter()
            .fold(header, |sum, buffer| at.add(sum, buffer.record_size));
        let args = self.call_with_result(at, &functions::MALLOC, &[total])?;
        let magic = self.constant(at, self.types.i64, call_buffer::MAGIC as i64);
        at.store(magic, self.offset(at, args, call_buffer::ARGS_MAGIC));
        let count = self.constant(at, self.types.i64, packed.len() as i64);
        at.store(count, self.offset(at, args, call_buffer::ARGS_NUM_BUFFERS));
        let inputs = self.constant(at, self.types.i64, num_inputs as i64);
        at.store(inputs, self.offset(at, args, call_buffer::ARGS_NUM_INPUTS));
        let mut cursor = self.offset(at, args, call_buffer::ARGS_RECORDS);
        for buffer in &packed {
            cursor = self.pack_record(at, cursor, buffer);
        }

        // The flag in args_size tells the runtime the layout is this one.
        let flag = self.constant(at, self.types.i64, call_buffer::THIS_LAYOUT as i64);
        let args_size = at.or(total, flag);
        let out = self.call_and_free(at, session, symbol, args, args_size)?;
        let mut cursor = self.offset(at, out, call_buffer::OUT_RECORDS);
        for buffer in &packed[num_inputs..] {
            let data = at.gep_bytes(cursor, buffer.header_size);
            at.memcpy(buffer.data, data, buffer.data_size);
            cursor = at.gep_bytes(cursor, buffer.record_size);
        }
        self.call(at, &functions::FREE_RESULT, &[out])?;
        Ok(results)
    }

    /// Catalyst's layout (`executor_abi::call_buffer::CATALYST_GRAMMAR`): the
    /// inputs' bytes one after the other, `args_size` their total; the
    /// outputs' bytes come back one after the other. `sizes` holds each
    /// buffer's static size in bytes.
    fn lower_call_in_catalyst_layout(
        &mut self,
        at: &Emitter<'c, 'a>,
        call: &CallSite<'c, 'a>,
        sizes: &[i64],
    ) -> Result<(), String> {
        let i64_type = self.types.i64;
        let data: Vec<Value> = call
            .buffers
            .iter()
            .map(|buffer| {
                let descriptor = at.cast(*buffer, self.descriptor_type(buffer.r#type()));
                self.buffer_data(at, descriptor, buffer.r#type())
            })
            .collect();
        let (inputs, outputs) = data.split_at(call.num_inputs);
        let (input_sizes, output_sizes) = sizes.split_at(call.num_inputs);
        let input_total: i64 = input_sizes.iter().sum();
        // malloc(0) may return null; a one-byte buffer keeps the pointer valid.
        let allocation = self.constant(at, i64_type, input_total.max(1));
        let args = self.call_with_result(at, &functions::MALLOC, &[allocation])?;
        let mut offset = 0;
        for (input, size) in inputs.iter().zip(input_sizes) {
            let destination = self.offset(at, args, offset as u64);
            let bytes = self.constant(at, i64_type, *size);
            at.memcpy(destination, *input, bytes);
            offset += size;
        }
        let args_size = self.constant(at, i64_type, input_total);
        let out = self.call_and_free(at, call.session, call.symbol, args, args_size)?;
        let mut offset = 0;
        for (output, size) in outputs.iter().zip(output_sizes) {
            let source = self.offset(at, out, offset as u64);
            let bytes = self.constant(at, i64_type, *size);
            at.memcpy(*output, source, bytes);
            offset += size;
        }
        self.call(at, &functions::FREE_RESULT, &[out])?;
        Ok(())
    }

    /// Calls `call_wrapper` with `args` (then freed); returns `out_buf`.
    fn call_and_free(
        &mut self,
        at: &Emitter<'c, 'a>,
        session: Value<'c, 'a>,
        symbol: Value<'c, 'a>,
        args: Value<'c, 'a>,
        args_size: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, String> {
        let (out_buffer_slot, out_size_slot) = self.call_frame(at);
        self.call(
            at,
            &functions::CALL_WRAPPER,
            &[
                session,
                symbol,
                args,
                args_size,
                out_buffer_slot,
                out_size_slot,
            ],
        )?;
        self.call(at, &functions::FREE, &[args])?;
        Ok(at.load(out_buffer_slot, self.types.ptr))
    }

    /// Sizes and addresses of one buffer operand, read from its descriptor.
    fn packed_buffer(
        &mut self,
        at: &Emitter<'c, 'a>,
        descriptor: Value<'c, 'a>,
        memref: Type<'c>,
    ) -> PackedBuffer<'c, 'a> {
        let i64_type = self.types.i64;
        let rank = memref_rank(memref);
        let element_size = memref_element_size(memref);
        let sizes: Vec<Value> = (0..rank)
            .map(|dim| {
                at.extract(
                    descriptor,
                    &[descriptor::SIZES as i64, dim as i64],
                    i64_type,
                )
            })
            .collect();
        let element_count = sizes
            .iter()
            .fold(self.constant(at, i64_type, 1), |product, size| {
                at.mul(product, *size)
            });
        let data_size = at.mul(element_count, self.constant(at, i64_type, element_size));
        // Padded to a record boundary: (size + alignment - 1) & -alignment.
        let alignment = call_buffer::ALIGNMENT as i64;
        let padded = at.add(data_size, self.constant(at, i64_type, alignment - 1));
        let padded = at.and(padded, self.constant(at, i64_type, -alignment));
        let header_size = self.constant(at, i64_type, call_buffer::record_data(rank as u64) as i64);
        let record_size = at.add(header_size, padded);
        PackedBuffer {
            rank,
            element_size,
            sizes,
            data: self.buffer_data(at, descriptor, memref),
            data_size,
            header_size,
            record_size,
        }
    }

    /// The address of the first element of the memref behind `descriptor`.
    fn buffer_data(
        &mut self,
        at: &Emitter<'c, 'a>,
        descriptor: Value<'c, 'a>,
        memref: Type<'c>,
    ) -> Value<'c, 'a> {
        let (i64_type, ptr) = (self.types.i64, self.types.ptr);
        let element_size = self.constant(at, i64_type, memref_element_size(memref));
        let aligned = at.extract(descriptor, &[descriptor::ALIGNED as i64], ptr);
        let offset = at.extract(descriptor, &[descriptor::OFFSET as i64], i64_type);
        let offset_bytes = at.mul(offset, element_size);
        at.gep_bytes(aligned, offset_bytes)
    }

    /// Writes one record at `cursor`; returns the address right after it.
    fn pack_record(
        &mut self,
        at: &Emitter<'c, 'a>,
        cursor: Value<'c, 'a>,
        buffer: &PackedBuffer<'c, 'a>,
    ) -> Value<'c, 'a> {
        let rank = self.constant(at, self.types.i64, buffer.rank as i64);
        at.store(rank, self.offset(at, cursor, call_buffer::RECORD_RANK));
        let element_size = self.constant(at, self.types.i64, buffer.element_size);
        at.store(
            element_size,
            self.offset(at, cursor, call_buffer::RECORD_ELEMENT_SIZE),
        );
        for (dim, size) in buffer.sizes.iter().enumerate() {
            at.store(
                *size,
                self.offset(at, cursor, call_buffer::record_size(dim as u64)),
            );
        }
        let data = at.gep_bytes(cursor, buffer.header_size);
        at.memcpy(data, buffer.data, buffer.data_size);
        at.gep_bytes(cursor, buffer.record_size)
    }

    /// A heap buffer for a statically shaped memref result, and its descriptor.
    fn allocate_static(
        &mut self,
        at: &Emitter<'c, 'a>,
        memref: Type<'c>,
    ) -> Result<(Value<'c, 'a>, Value<'c, 'a>), String> {
        let shape = static_shape(memref)
            .ok_or_else(|| format!("the result {memref} needs a static shape"))?;
        let bytes = static_size_in_bytes(memref)?;
        let size = self.constant(at, self.types.i64, bytes);
        let pointer = self.call_with_result(at, &functions::MALLOC, &[size])?;
        let descriptor_type = self.descriptor_type(memref);
        let mut descriptor = at.undef(descriptor_type);
        let zero = self.constant(at, self.types.i64, 0);
        descriptor = at.insert(descriptor, pointer, &[descriptor::ALLOCATED as i64]);
        descriptor = at.insert(descriptor, pointer, &[descriptor::ALIGNED as i64]);
        descriptor = at.insert(descriptor, zero, &[descriptor::OFFSET as i64]);
        // Row-major strides; their product is bounded by the checked size.
        let mut stride = 1;
        for (dim, extent) in shape.iter().enumerate().rev() {
            let size = self.constant(at, self.types.i64, *extent);
            descriptor = at.insert(descriptor, size, &[descriptor::SIZES as i64, dim as i64]);
            let stride_value = self.constant(at, self.types.i64, stride);
            descriptor = at.insert(
                descriptor,
                stride_value,
                &[descriptor::STRIDES as i64, dim as i64],
            );
            stride *= extent;
        }
        Ok((at.cast(descriptor, memref), descriptor))
    }

    /// The slots `call_wrapper` writes its result buffer and size to, in the
    /// scope of `at`.
    fn call_frame(&mut self, at: &Emitter<'c, 'a>) -> (Value<'c, 'a>, Value<'c, 'a>) {
        let key = at.prologue.key();
        if let Some(frame) = self.call_frames.get(&key) {
            return *frame;
        }
        let (ptr, i64_type) = (self.types.ptr, self.types.i64);
        let prologue = self.prologue(at);
        let frame = (prologue.alloca(ptr), prologue.alloca(i64_type));
        self.call_frames.insert(key, frame);
        frame
    }
}

/// One buffer of an `executor.call` as it is packed: values computed from its
/// descriptor before the call.
struct PackedBuffer<'c, 'a> {
    rank: usize,
    element_size: i64,
    sizes: Vec<Value<'c, 'a>>,
    /// The address of its first element.
    data: Value<'c, 'a>,
    /// `element_size * product(sizes)`.
    data_size: Value<'c, 'a>,
    /// `call_buffer::record_data(rank)`: rank, element size and sizes.
    header_size: Value<'c, 'a>,
    /// The header and the data padded to `call_buffer::ALIGNMENT`.
    record_size: Value<'c, 'a>,
}

/// The operands of an `executor.call` being lowered.
struct CallSite<'c, 'a> {
    session: Value<'c, 'a>,
    symbol: Value<'c, 'a>,
    buffers: Vec<Value<'c, 'a>>,
    num_inputs: usize,
}

/// The size in bytes of each buffer, when all are statically shaped and the
/// sizes add up within an `i64`.
fn static_sizes_in_bytes(buffers: &[Value<'_, '_>]) -> Option<Vec<i64>> {
    let sizes: Vec<i64> = buffers
        .iter()
        .map(|buffer| static_size_in_bytes(buffer.r#type()).ok())
        .collect::<Option<_>>()?;
    sizes
        .iter()
        .try_fold(0i64, |total, size| total.checked_add(*size))?;
    Some(sizes)
}

/// How many of the call's buffer operands are inputs (`num_input_args`,
/// all of them without it).
pub(super) fn num_call_inputs(call: &Borrowed<'_, '_, executor::CallOperation<'_>>) -> usize {
    let operands = call.inputs().count();
    call.num_input_args()
        .map_or(operands, |count| count.value() as usize)
}
