//! The executor ops as the passes read them: each recognised by the name and
//! read through the accessors that melior generates from `td/ExecutorOps.td`,
//! the file the C++ classes are generated from too. Each is also classified
//! by what it does to sessions and tokens ([`SessionEffect`]), which is how
//! the session analysis follows it.

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

/// The handle operand of `op` read through its generated accessor, if its
/// line names one.
macro_rules! handle_operand {
    ($op:ident) => {{
        let _ = $op;
        None
    }};
    ($op:ident, $operand:ident) => {
        Some($op.$operand().map(|value| $op.anchor(value)))
    };
}

/// Whether a line of [`executor_ops!`] names an operand.
macro_rules! names_operand {
    () => {
        false
    };
    ($operand:ident) => {
        true
    };
}

macro_rules! executor_ops {
    ($($variant:ident($wrapper:ident): $effect:ident $(($operand:ident))?),* $(,)?) => {
        // A line names the operand its effect is about exactly when the
        // effect is about one: without it the analysis would not follow the
        // op's session.
        $(const _: () = assert!(
            SessionEffect::$effect.is_about_an_operand() == names_operand!($($operand)?),
            concat!(
                "executor_ops!: the line of ", stringify!($variant),
                " must name the operand its effect is about (and only such a line)"
            ),
        );)*

        /// An op of the executor dialect, as its generated wrapper.
        pub enum ExecutorOp<'c, 'a> {
            $($variant(Borrowed<'c, 'a, executor::$wrapper<'c>>),)*
        }

        /// Which op of the executor dialect, without the op.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum ExecutorKind {
            $($variant,)*
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

            /// The operand its [`SessionEffect`] is about: the session it
            /// uses, or the token it awaits. None for an op with neither
            /// (`executor.open`).
            pub fn handle_operand(&self) -> Option<Result<Value<'c, 'a>, melior::Error>> {
                match self {
                    $(Self::$variant(op) => handle_operand!(op $(, $operand)?),)*
                }
            }
        }

        impl ExecutorKind {
            /// Every executor op.
            pub const ALL: &[Self] = &[$(Self::$variant,)*];

            /// The op's name (`executor.open`, ...).
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => executor::$wrapper::name(),)*
                }
            }

            /// What the op does to sessions and tokens.
            pub fn session_effect(self) -> SessionEffect {
                match self {
                    $(Self::$variant => SessionEffect::$effect,)*
                }
            }
        }
    };
}

/// What an executor op does to sessions and async tokens: how the session
/// analysis follows it. An op is classified once, by its line in the
/// invocation below; an op that only uses its session needs no more.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SessionEffect {
    /// Opens the session at its address, or gets the one open there; its
    /// result is that session.
    Opens,
    /// Uses its session, and changes nothing of it the analysis follows.
    Uses,
    /// Uses its session to load the binary at its path into it.
    Loads,
    /// Uses its session to run a kernel of the object at its path, which
    /// must be loaded in it.
    Runs,
    /// As [`Self::Runs`], without waiting: its result is a token for the
    /// launch, which must be awaited.
    RunsAsync,
    /// Consumes its token: waits for the launch, after which the token is
    /// spent.
    Awaits,
    /// Uses its session, then closes it, which ends its pending launches.
    Closes,
}

impl SessionEffect {
    /// Whether the effect is about an operand of the op: the session it
    /// uses, or the token it awaits.
    pub const fn is_about_an_operand(self) -> bool {
        !matches!(self, Self::Opens)
    }

    /// Whether the op takes a session (its handle operand).
    pub fn uses_session(self) -> bool {
        !matches!(self, Self::Opens | Self::Awaits)
    }

    /// Whether the op's result is a session or a token.
    pub fn produces_handle(self) -> bool {
        matches!(self, Self::Opens | Self::RunsAsync)
    }
}

// Each op: its variant, its generated wrapper, and its effect on sessions
// and tokens with the accessor of the operand the effect is about.
executor_ops! {
    Open(OpenOperation): Opens,
    SendBinary(SendBinaryOperation): Loads(session),
    Launch(LaunchOperation): Runs(session),
    LaunchAsync(LaunchAsyncOperation): RunsAsync(session),
    Await(AwaitOperation): Awaits(token),
    Call(CallOperation): Uses(session),
    Close(CloseOperation): Closes(session),
}
