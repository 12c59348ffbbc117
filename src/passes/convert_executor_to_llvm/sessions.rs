//! The lowerings of the ops that open, fill and close a session.

use executor_abi::functions;
use melior::ir::Value;

use super::lowering::{Lowering, generated};
use crate::{
    dialect::executor,
    passes::{executor_ops::Borrowed, llvm_builder::Emitter},
};

impl<'c, 'a> Lowering<'c, 'a> {
    //===------------------------------------------------------------------===//
    // executor.open -> __catalyst__executor__open
    //===------------------------------------------------------------------===//

    pub(super) fn lower_open(
        &mut self,
        at: &Emitter<'c, 'a>,
        open: &Borrowed<'c, 'a, executor::OpenOperation<'c>>,
    ) -> Result<Value<'c, 'a>, String> {
        let address = self.string_of(at, generated(open.address())?);
        self.call_with_result(at, &functions::OPEN, &[address])
    }

    //===------------------------------------------------------------------===//
    // executor.send_binary -> __catalyst__executor__send_binary
    //===------------------------------------------------------------------===//

    pub(super) fn lower_send_binary(
        &mut self,
        at: &Emitter<'c, 'a>,
        send: &Borrowed<'c, 'a, executor::SendBinaryOperation<'c>>,
    ) -> Result<(), String> {
        let session = send.anchor(generated(send.session())?);
        let path = self.string_of(at, generated(send.binary_path())?);
        // The attribute has a default value, so the accessor fails only when
        // it was never set: then the format is that default, 0.
        let format = send.format().map_or(0, |format| format.value());
        let format = self.constant(at, self.types.i32, format);
        self.call(at, &functions::SEND_BINARY, &[session, path, format])?;
        Ok(())
    }

    //===------------------------------------------------------------------===//
    // executor.close -> __catalyst__executor__close
    //===------------------------------------------------------------------===//

    pub(super) fn lower_close(
        &mut self,
        at: &Emitter<'c, 'a>,
        close: &Borrowed<'c, 'a, executor::CloseOperation<'c>>,
    ) -> Result<(), String> {
        let session = close.anchor(generated(close.session())?);
        self.call(at, &functions::CLOSE, &[session])?;
        Ok(())
    }
}
