//! The executor ops as the passes read them: each recognised by the name and
//! read through the accessors that melior generates from `td/ExecutorOps.td`,
//! the file the C++ classes are generated from too.

use std::{mem::ManuallyDrop, ops::Deref};

use melior::ir::{Operation, OperationRef, Value, ValueLike};

use super::ir;
use crate::dialect::executor;

/// What the names of the dialect's ops start with.
const DIALECT_PREFIX: &[u8] = b"executor.";

/// A generated op wrapper over an op that stays owned by its block. The
/// wrapper owns an `Operation` by design (it is made to build ops); here it is
/// never dropped, so it never destroys the op it reads.
pub struct Borrowed<'c, 'a, T> {
    operation: OperationRef<'c, 'a>,
    typed: ManuallyDrop<T>,
}

impl<'c, 'a, T: TryFrom<Operation<'c>>> Borrowed<'c, 'a, T> {
    /// The wrapper of `operation`, whose name the caller has checked to be
    /// the one the wrapper's generated `name()` returns.
    fn of_named(operation: OperationRef<'c, 'a>) -> Self {
        // SAFETY: the owning handle is moved straight into the wrapper, which
        // is kept in a `ManuallyDrop` and never dropped, so the op stays owned
        // by its block alone. The wrapper's `try_from` only compares the name,
        // which the caller checked, so it cannot fail and drop the handle.
        let owned = unsafe { Operation::from_raw(operation.to_raw()) };
        let Ok(typed) = T::try_from(owned) else {
            unreachable!("the op's name was checked")
        };
        Self {
            operation,
            typed: ManuallyDrop::new(typed),
        }
    }
}

impl<'c, 'a, T> Borrowed<'c, 'a, T> {
    pub fn operation(&self) -> OperationRef<'c, 'a> {
        self.operation
    }

    /// A value read through the wrapper, with the lifetime of the op it
    /// belongs to rather than of the wrapper's borrow.
    pub fn anchor(&self, value: impl ValueLike<'c>) -> Value<'c, 'a> {
        // SAFETY: the value is an operand or result of `self.operation`, which
        // lives for 'a; the handle only changes its borrow's lifetime.
        unsafe { Value::from_raw(value.to_raw()) }
    }
}

impl<T> Deref for Borrowed<'_, '_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.typed
    }
}

macro_rules! executor_ops {
    ($($variant:ident($wrapper:ident)),* $(,)?) => {
        /// An op of the executor dialect, as its generated wrapper.
        pub enum ExecutorOp<'c, 'a> {
            $($variant(Borrowed<'c, 'a, executor::$wrapper<'c>>),)*
        }

        impl<'c, 'a> ExecutorOp<'c, 'a> {
            /// The executor op `operation` is, if it is one.
            pub fn of(operation: OperationRef<'c, 'a>) -> Option<Self> {
                // Asked of every op by some passes: the dialect's prefix
                // turns the others away before any name is compared.
                let name = ir::operation_name_bytes(operation);
                if !name.starts_with(DIALECT_PREFIX) {
                    return None;
                }
                $(
                    if name == executor::$wrapper::name().as_bytes() {
                        return Some(Self::$variant(Borrowed::of_named(operation)));
                    }
                )*
                None
            }

            pub fn operation(&self) -> OperationRef<'c, 'a> {
                match self {
                    $(Self::$variant(op) => op.operation(),)*
                }
            }
        }
    };
}

executor_ops! {
    Open(OpenOperation),
    SendBinary(SendBinaryOperation),
    Launch(LaunchOperation),
    LaunchAsync(LaunchAsyncOperation),
    Await(AwaitOperation),
    Call(CallOperation),
    Close(CloseOperation),
}
