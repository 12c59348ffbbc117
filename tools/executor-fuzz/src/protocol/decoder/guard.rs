//! Running a decoder under guard: its panics caught (the message kept, the
//! hook quiet) and its largest allocation measured against what the input's
//! bytes justify.

use std::{
    cell::{Cell, RefCell},
    panic::{self, AssertUnwindSafe},
    sync::Once,
};

use super::alloc;
use crate::shared::signature::{Kind, Signature, normalize};

thread_local! {
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// A panic hook that, on threads that are catching decoder panics, keeps the
/// message instead of printing it (other threads keep the previous hook).
fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CAPTURING.with(Cell::get) {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let location = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                LAST_PANIC
                    .with(|last| *last.borrow_mut() = Some(format!("{message} at {location}")));
            } else {
                previous(info);
            }
        }));
    });
}

/// A finding of one input.
pub(super) type Found = (Signature, String);

pub(super) fn found(kind: Kind, text: impl AsRef<str>, detail: impl Into<String>) -> Found {
    (
        Signature {
            kind,
            text: normalize(text.as_ref()),
        },
        detail.into(),
    )
}

/// The most memory a decoder may ask for at once on an input of `len`
/// bytes: the 64 MiB it may reserve ahead of a payload, plus a few times
/// what is there.
fn allowed_allocation(len: usize) -> usize {
    (64 << 20) + 16 * len + (1 << 20)
}

/// An allocation's size in words.
fn magnitude(bytes: usize) -> &'static str {
    match bytes {
        0..0x4000_0000 => "hundreds of MiB",
        0x4000_0000..0x1_0000_0000 => "GiBs",
        _ => "more than four GiB",
    }
}

/// Runs a decoder: its result, or the finding it is (a panic, or an
/// allocation larger than its input justifies).
pub(super) fn guarded<T>(what: &str, len: usize, f: impl FnOnce() -> T) -> Result<T, Found> {
    install_panic_hook();
    CAPTURING.with(|c| c.set(true));
    let (result, largest) =
        alloc::largest_allocation_during(|| panic::catch_unwind(AssertUnwindSafe(f)));
    CAPTURING.with(|c| c.set(false));
    match result {
        Ok(value) if largest <= allowed_allocation(len) => Ok(value),
        Ok(_) => Err(found(
            Kind::Allocation,
            // In words: one finding per order of magnitude (digits would be
            // normalized away).
            format!("{what} reserves {} ahead of the bytes", magnitude(largest)),
            format!("{what} asked for {largest} bytes at once on a {len}-byte input"),
        )),
        Err(_) => {
            let message = LAST_PANIC
                .with(|last| last.borrow_mut().take())
                .unwrap_or_default();
            Err(found(
                Kind::DecoderPanic,
                format!("{what}: {message}"),
                format!("{what} panicked: {message}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_decoder_is_a_finding_and_the_hook_stays_quiet() {
        let caught = guarded("test", 0, || panic!("planted {}", 42));
        let (signature, detail) = caught.unwrap_err();
        assert_eq!(signature.kind, Kind::DecoderPanic);
        assert!(
            signature.text.starts_with("test: planted N at "),
            "{}",
            signature.text
        );
        assert!(detail.contains("planted 42"), "{detail}");
        assert_eq!(guarded("test", 0, || 5), Ok(5));
    }
}
