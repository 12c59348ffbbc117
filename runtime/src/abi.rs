//! The C ABI of `include/executor_runtime.h`. Each function runs its body
//! behind `catch_unwind`; any failure prints one line naming the function, the
//! address and the symbol or path, and ends the program with exit code 1. So
//! does a call that waits for a kernel past `EXECUTOR_LAUNCH_TIMEOUT_MS`
//! (`crate::deadline`).

use std::{
    borrow::Cow,
    ffi::{CStr, c_char, c_void},
    fmt,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{Arc, Once},
    time::{Duration, Instant},
};

use executor_abi::call_buffer;

use crate::{
    deadline::{self, ArmedDeadline},
    error::{Result, RuntimeError},
    executor,
    local::{
        fast_launch,
        launch_site::{self, Description, Fill, LaunchSite, Resolved},
    },
    memref::Descriptor,
    sessions::{self, Session},
};

/// The target of the line `EXECUTOR_LOG=debug` logs for each call. The launch
/// fast path, which logs nothing, runs only while this target's debug lines are
/// off: a filter that names this target (`executor_runtime::abi=debug`) then
/// logs every launch, as `debug` does.
pub const CALL_LOG_TARGET: &str = module_path!();

/// Where a failing call came from, for its one-line message.
struct Call<'a> {
    function: &'static str,
    /// The session the call uses, whose address its report line names.
    session: Option<Arc<Session>>,
    /// The address as the program spelled it, for a call without a session.
    address: Option<&'a str>,
    /// The entry or symbol the call runs.
    symbol: Option<Cow<'a, str>>,
    /// The binary the call loads.
    path: Option<&'a str>,
}

impl<'a> Call<'a> {
    fn new(function: &'static str) -> Self {
        init_host_process();
        Self {
            function,
            session: None,
            address: None,
            symbol: None,
            path: None,
        }
    }

    fn session(&mut self, handle: i64) -> Result<Arc<Session>> {
        let session = sessions::get(handle)?;
        self.session = Some(Arc::clone(&session));
        Ok(session)
    }

    /// The address the call goes to, if it has one yet.
    fn address(&self) -> Option<String> {
        match (&self.session, self.address) {
            (Some(session), _) => Some(session.address.to_string()),
            (None, address) => address.map(str::to_owned),
        }
    }

    /// Runs `body`; on failure reports and exits.
    fn run<T>(mut self, body: impl FnOnce(&mut Self) -> Result<T>) -> T {
        // The clock is read (and the address written out) only for the log.
        let started =
            tracing::enabled!(target: CALL_LOG_TARGET, tracing::Level::DEBUG).then(Instant::now);
        let outcome = catch_unwind(AssertUnwindSafe(|| body(&mut self)));
        if let Some(started) = started {
            tracing::debug!(
                target: CALL_LOG_TARGET,
                function = self.function,
                address = self.address().unwrap_or_default(),
                symbol = self.symbol.as_deref().unwrap_or(""),
                path = self.path.unwrap_or(""),
                elapsed_us = %Microseconds(started.elapsed()),
                "executor call"
            );
        }
        match outcome {
            Ok(Ok(value)) => value,
            Ok(Err(error)) => self.fail(&error.to_string()),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("unknown panic");
                self.fail(&format!("internal error: {message}"))
            }
        }
    }

    fn fail(&self, message: &str) -> ! {
        eprintln!("{}", self.line(message));
        // The fault has its line: closing the sessions at exit adds none.
        sessions::failure_reported();
        std::process::exit(1)
    }

    /// The one line that reports `message` about this call.
    fn line(&self, message: &str) -> String {
        let mut context = Vec::new();
        if let Some(address) = self.address() {
            context.push(format!("address {address}"));
        }
        if let Some(symbol) = &self.symbol {
            context.push(format!("symbol {symbol}"));
        }
        if let Some(path) = self.path {
            context.push(format!("path {path}"));
        }
        format!(
            "executor runtime: {}({}): {message}",
            self.function,
            context.join(", ")
        )
    }

    /// With a launch timeout for `session`'s address, ends the program with
    /// this call's line unless the returned guard is dropped within that
    /// time: taken just before the call waits for its kernel.
    fn deadline(&self, session: &Session) -> Result<Option<ArmedDeadline>> {
        self.deadline_saying(session, |limit| {
            format!("the kernel did not finish within {limit}")
        })
    }

    /// [`Call::deadline`], whose line is `describe`d given the limit ("300
    /// ms (EXECUTOR_LAUNCH_TIMEOUT_MS)").
    fn deadline_saying(
        &self,
        session: &Session,
        describe: impl FnOnce(&str) -> String,
    ) -> Result<Option<ArmedDeadline>> {
        let Some(timeout) = &session.launch_timeout else {
            return Ok(None);
        };
        let limit = format!("{} ms ({})", timeout.duration.as_millis(), timeout.origin);
        let message = self.line(&describe(&limit));
        deadline::arm(timeout.duration, message).map(Some)
    }
}

/// A duration as the debug log shows it: microseconds with one decimal, as
/// precise as a timing that includes the logging itself can be.
struct Microseconds(Duration);

impl fmt::Display for Microseconds {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{:.1}", self.0.as_secs_f64() * 1e6)
    }
}

/// Sets up the host process on the first call: logging, and one-line reports
/// of kernels that crash the embedded executor.
fn init_host_process() {
    static LOGGING: Once = Once::new();
    LOGGING.call_once(|| {
        crate::local::report_kernel_crashes();
        let filter = tracing_subscriber::EnvFilter::try_from_env("EXECUTOR_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init();
    });
}

/// A NUL-terminated string argument.
///
/// # Safety
///
/// `text` must be null or point at a NUL-terminated string that outlives the call.
unsafe fn text<'a>(text: *const c_char, what: &str) -> Result<&'a str> {
    if text.is_null() {
        return Err(RuntimeError::BadArguments(format!(
            "{what} is a null pointer"
        )));
    }
    // SAFETY: per the contract.
    unsafe { CStr::from_ptr(text) }
        .to_str()
        .map_err(|_| RuntimeError::BadArguments(format!("{what} is not UTF-8")))
}

/// The descriptors of one side of a launch.
///
/// # Safety
///
/// With `count > 0`, the three arrays hold `count` entries each and every
/// descriptor pointer points at a descriptor of the given rank.
unsafe fn descriptors(
    count: usize,
    descriptors: *const *mut c_void,
    ranks: *const usize,
    sizes: *const usize,
) -> Result<Vec<Descriptor>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if descriptors.is_null() || ranks.is_null() || sizes.is_null() {
        return Err(RuntimeError::BadArguments(format!(
            "{count} descriptors but a null array"
        )));
    }
    (0..count)
        .map(|index| {
            // SAFETY: per the contract, index < count.
            let (descriptor, rank, size) = unsafe {
                (
                    *descriptors.add(index),
                    *ranks.add(index),
                    *sizes.add(index),
                )
            };
            if descriptor.is_null() {
                return Err(RuntimeError::BadArguments(format!(
                    "descriptor #{index} is a null pointer"
                )));
            }
            // SAFETY: per the contract.
            Ok(unsafe { Descriptor::from_raw(descriptor.cast(), rank, size) })
        })
        .collect()
}

/// What `executor.open` lowers to; see include/executor_runtime.h.
///
/// # Safety
///
/// `addr` must be null (reported as an error) or point at a NUL-terminated
/// string that stays valid for the whole call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__open(addr: *const c_char) -> i64 {
    Call::new("__catalyst__executor__open").run(|call| {
        // SAFETY: `addr` is null or a NUL-terminated string (the contract).
        let address = unsafe { text(addr, "the address") }?;
        call.address = Some(address);
        sessions::open(address)
    })
}

/// What `executor.send_binary` lowers to; see include/executor_runtime.h.
///
/// # Safety
///
/// `path` must be null (reported as an error) or point at a NUL-terminated
/// string that stays valid for the whole call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__send_binary(
    session: i64,
    path: *const c_char,
    format: u32,
) -> i64 {
    Call::new("__catalyst__executor__send_binary").run(|call| {
        let session = call.session(session)?;
        // SAFETY: `path` is null or a NUL-terminated string (the contract).
        let path = unsafe { text(path, "the binary path") }?;
        call.path = Some(path);
        session
            .executor
            .send_binary(path, executor::binary_format(format)?)?;
        Ok(0)
    })
}

/// What `executor.launch` lowers to under Catalyst's entry convention (and
/// Catalyst's own lowering); see include/executor_runtime.h.
///
/// # Safety
///
/// - `entry_symbol` and `object` must each be null (reported as an error) or
///   point at a NUL-terminated string.
/// - For inputs and outputs alike, when the count is above 0, each of the
///   three arrays must be null (reported) or hold that many entries.
/// - Every descriptor pointer must be null (reported) or point at a
///   descriptor of the rank its `*_ranks` entry gives (`3 + 2 * rank` 8-byte
///   words), writable for the outputs, whose elements are of the size its
///   `*_elem_sizes` entry gives. An input's buffer must hold every element its
///   sizes and strides reach; an output's fields are overwritten unread.
/// - All of it must stay valid, and untouched by other threads, for the whole
///   call.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __catalyst__executor__launch(
    session: i64,
    entry_symbol: *const c_char,
    object: *const c_char,
    num_inputs: usize,
    input_descs: *const *mut c_void,
    input_ranks: *const usize,
    input_elem_sizes: *const usize,
    num_outputs: usize,
    output_descs: *const *mut c_void,
    output_ranks: *const usize,
    output_elem_sizes: *const usize,
) {
    let launch = Launch {
        session,
        description: Description {
            entry_symbol,
            object,
            num_inputs,
            input_ranks,
            input_elem_sizes,
            num_outputs,
            output_ranks,
            output_elem_sizes,
            // Catalyst's lowering passes no static sizes to hold results to.
            output_sizes: std::ptr::null(),
        },
        input_descs,
        output_descs,
    };
    // SAFETY: the arguments are what the contract says.
    unsafe { launch.run_without_site() }
}

/// What `executor.launch` lowers to under the default entry convention; see
/// include/executor_runtime.h. Its failures are reported as those of
/// `__catalyst__executor__launch`, which it is with the arguments the site
/// fixes, and a cache.
///
/// # Safety
///
/// - `site` must be null (reported as an error) or point at a launch site
///   (`executor_abi::launch_site`): writable, aligned, its cache zeroed before
///   its first launch, its description unchanged from then on (the lowering
///   emits one per kernel, object and argument signature of a module;
///   launches of it from several threads are fine).
/// - The site's description and the two arrays are what
///   `__catalyst__executor__launch`'s contract says of the same arguments.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __executor__launch_at_site(
    site: *mut LaunchSite,
    session: i64,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
) {
    // The hit path; everything else is the general path's.
    // SAFETY: `site` is null or a launch site (the contract).
    if let Some(site) = unsafe { LaunchSite::from_ptr(site) }
        && let Some(resolved) = site.lookup(session)
        // SAFETY: the entry resolved for this session and this site's entry
        // and object in the current generation, the entry read as UTF-8, for
        // a description that qualified then (the general path fills a site
        // only then) and is the same now; the description and arrays are
        // what `__catalyst__executor__launch`'s contract says (the contract).
        && unsafe {
            fast_launch::run_qualified(
                resolved.address,
                resolved.entry_len,
                &site.description,
                input_descs,
                output_descs,
            )
        }
    {
        return;
    }
    // SAFETY: the contract.
    unsafe { launch_at_site_general(site, session, input_descs, output_descs) }
}

/// The general path of `__executor__launch_at_site`: a function of its own,
/// so that the hit path before it saves few registers and keeps a small
/// frame.
///
/// # Safety
///
/// As `__executor__launch_at_site`'s contract.
#[cold]
#[inline(never)]
unsafe fn launch_at_site_general(
    site: *mut LaunchSite,
    session: i64,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
) {
    // SAFETY: `site` is null or a launch site (the contract).
    let Some(site) = (unsafe { LaunchSite::from_ptr(site) }) else {
        Call::new("__executor__launch_at_site").run(|_| -> Result<()> {
            Err(RuntimeError::BadArguments("a null launch site".into()))
        });
        return;
    };
    let launch = Launch {
        session,
        description: site.description,
        input_descs,
        output_descs,
    };
    // SAFETY: the site fills from the general path; the rest is what
    // `__catalyst__executor__launch`'s contract says (the contract).
    unsafe { launch.run_general(Some(site)) }
}

/// The arguments of a launch, as `__catalyst__executor__launch` takes them.
struct Launch {
    session: i64,
    description: Description,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
}

impl Launch {
    /// Runs the launch from this thread's cache of the sites it ran, or else
    /// on the general path.
    ///
    /// # Safety
    ///
    /// The arguments are what `__catalyst__executor__launch`'s contract says.
    unsafe fn run_without_site(&self) {
        // SAFETY: per the contract.
        let done = unsafe {
            fast_launch::run(
                self.session,
                &self.description,
                self.input_descs,
                self.output_descs,
            )
        };
        if !done {
            // SAFETY: per the contract.
            unsafe { self.run_general(None) }
        }
    }

    /// The general path: checks everything, runs the launch, then caches the
    /// resolved entry (in `site`, or else in this thread's cache) when the
    /// next launch of the site may skip all of this. Reports a failure and
    /// exits.
    ///
    /// # Safety
    ///
    /// The arguments are what `__catalyst__executor__launch`'s contract says.
    unsafe fn run_general(&self, site: Option<&LaunchSite>) {
        Call::new("__catalyst__executor__launch").run(|call| {
            // Before the session is looked up: a close from now on makes what
            // is cached below stale.
            let generation = fast_launch::generation();
            let session = call.session(self.session)?;
            let description = &self.description;
            // SAFETY: the strings, arrays and descriptors are what `text` and
            // `descriptors` require (the contract).
            let (entry, object, inputs, outputs) = unsafe {
                (
                    text(description.entry_symbol, "the entry symbol")?,
                    text(description.object, "the object")?,
                    descriptors(
                        description.num_inputs,
                        self.input_descs,
                        description.input_ranks,
                        description.input_elem_sizes,
                    )?,
                    descriptors(
                        description.num_outputs,
                        self.output_descs,
                        description.output_ranks,
                        description.output_elem_sizes,
                    )?,
                )
            };
            call.symbol = Some(entry.into());
            let _deadline = call.deadline(&session)?;
            session.executor.launch(entry, object, &inputs, &outputs)?;
            let local = session.local();
            if local.is_none() {
                // SAFETY: the output ranks were read from the description
                // above, whose sizes are what the contract says.
                unsafe { check_received_results(&session, description, &outputs) }?;
            }
            if let Some(local) = local
                && session.launch_timeout.is_none()
                && fast_launch::qualifies(entry, description.num_inputs, description.num_outputs)
                && let Ok(address) = local.entry_address(entry, object)
            {
                match site {
                    Some(site) => site.fill(&Fill {
                        generation,
                        session: self.session,
                        resolved: Resolved {
                            address,
                            entry_len: entry.len(),
                        },
                    }),
                    // SAFETY: both were read above as NUL-terminated UTF-8.
                    None => unsafe {
                        fast_launch::remember(
                            generation,
                            self.session,
                            description.entry_symbol,
                            description.object,
                            address,
                        )
                    },
                }
            }
            Ok(())
        })
    }
}

/// Holds the results a server sent to the static sizes of their types,
/// before the lowered code reads any of them: a shorter one would be read
/// past its end. Frees them if they do not fit.
///
/// # Safety
///
/// `description.output_sizes` is null or holds the sizes of `outputs`'
/// types (the launch site's contract), and `outputs` were filled by the
/// remote executor.
unsafe fn check_received_results(
    session: &Session,
    description: &Description,
    outputs: &[Descriptor],
) -> Result<()> {
    let ranks: Vec<usize> = outputs.iter().map(Descriptor::rank).collect();
    // SAFETY: the caller's contract.
    let Some(static_sizes) = (unsafe { description.static_output_sizes(&ranks) }) else {
        return Ok(());
    };
    let sizes: Vec<Vec<i64>> = outputs.iter().map(Descriptor::sizes).collect();
    launch_site::check_static_sizes(static_sizes, &sizes).map_err(|what| {
        for output in outputs {
            // SAFETY: the remote executor malloc'ed each result's buffer
            // (the caller's contract), and the lowered code has not seen it.
            unsafe { output.free_filled() };
        }
        RuntimeError::UnfitReply {
            address: session.address.to_string(),
            what,
        }
    })
}

/// What `executor.launch_async` lowers to; see include/executor_runtime.h.
///
/// # Safety
///
/// `entry_symbol` and `object` must each be null (reported as an error) or
/// point at a NUL-terminated string that stays valid for the whole call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__launch_async(
    session: i64,
    entry_symbol: *const c_char,
    object: *const c_char,
) -> i64 {
    Call::new("__catalyst__executor__launch_async").run(|call| {
        let handle = session;
        let session = call.session(handle)?;
        // SAFETY: both are null or NUL-terminated strings (the contract).
        let (entry, object) = unsafe {
            (
                text(entry_symbol, "the entry symbol")?,
                text(object, "the object")?,
            )
        };
        call.symbol = Some(entry.into());
        let executor_token = session.executor.launch_async(entry, object)?;
        Ok(sessions::add_launch(handle, executor_token, entry))
    })
}

/// What `executor.await` lowers to; see include/executor_runtime.h.
#[unsafe(no_mangle)]
pub extern "C" fn __catalyst__executor__await(token: i64) {
    Call::new("__catalyst__executor__await").run(|call| {
        let (session, executor_token, entry) = sessions::take_launch(token)?;
        call.session = Some(Arc::clone(&session));
        call.symbol = Some(entry.into());
        let _deadline = call.deadline(&session)?;
        session.executor.await_launch(executor_token)
    })
}

/// What `executor.call` lowers to; see include/executor_runtime.h.
///
/// # Safety
///
/// - `symbol` must be null (reported as an error) or point at a
///   NUL-terminated string.
/// - `args_buf` must be null (reported) or point at `args_size` readable
///   bytes, not counting bit 63 of `args_size`, which says the layout is this
///   project's; the contents of this project's layout are checked
///   (docs/runtime-abi.md), Catalyst's are the callee's to read.
/// - `out_buf` and `out_size` must each be null (reported) or point at a
///   writable `void *` and `size_t`. On success they receive a buffer that
///   the caller releases with `__catalyst__executor__free_result`, once.
/// - All of it must stay valid for the whole call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__call_wrapper(
    session: i64,
    symbol: *const c_char,
    args_buf: *const c_char,
    args_size: usize,
    out_buf: *mut *mut c_void,
    out_size: *mut usize,
) -> i32 {
    Call::new("__catalyst__executor__call_wrapper").run(|call| {
        let session = call.session(session)?;
        // SAFETY: `symbol` is null or a NUL-terminated string (the contract).
        let symbol = unsafe { text(symbol, "the symbol") }?;
        call.symbol = Some(symbol.into());
        if args_buf.is_null() || out_buf.is_null() || out_size.is_null() {
            return Err(RuntimeError::BadArguments("a null buffer pointer".into()));
        }
        // Bit 63 of the size tells this project's layout from Catalyst's.
        let (layout, args_len) = call_buffer::decode_args_size(args_size as u64);
        // SAFETY: `args_buf`, not null, points at `args_len` bytes (the contract).
        let arguments =
            unsafe { std::slice::from_raw_parts(args_buf.cast::<u8>(), args_len as usize) };
        let _deadline = call.deadline(&session)?;
        let outputs = session.executor.call(symbol, layout, arguments)?;
        // SAFETY: malloc of at least one byte, checked; the caller releases it
        // with __catalyst__executor__free_result.
        let buffer = unsafe { libc::malloc(outputs.len().max(1)) }.cast::<u8>();
        if buffer.is_null() {
            return Err(RuntimeError::BadArguments(format!(
                "out of memory for {} result bytes",
                outputs.len()
            )));
        }
        // SAFETY: the buffer has room for the outputs; the out-pointers, not
        // null, are writable (the contract).
        unsafe {
            std::ptr::copy_nonoverlapping(outputs.as_ptr(), buffer, outputs.len());
            *out_buf = buffer.cast();
            *out_size = outputs.len();
        }
        Ok(0)
    })
}

/// What the lowering of `executor.call` calls to release `call_wrapper`'s
/// result buffer; see include/executor_runtime.h.
///
/// # Safety
///
/// `buf` must be null (then nothing happens) or a buffer that
/// `__catalyst__executor__call_wrapper` stored in `*out_buf` and that has not
/// been released yet; it must not be used after this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__free_result(buf: *mut c_void) {
    // SAFETY: `buf` is null or call_wrapper's `malloc`ed buffer, released
    // once (the contract).
    unsafe { libc::free(buf) }
}

/// What `executor.close` lowers to; see include/executor_runtime.h.
#[unsafe(no_mangle)]
pub extern "C" fn __catalyst__executor__close(session: i64) -> i64 {
    Call::new("__catalyst__executor__close").run(|call| {
        call.session(session)?;
        let (session, unawaited) = sessions::remove(session)?;
        // Closing waits for the launches never awaited, within the same
        // deadline as an await of them.
        let _deadline = match unawaited.as_slice() {
            [] => None,
            entries => call.deadline_saying(&session, |limit| {
                format!(
                    "async launches never awaited did not finish within {limit}; abandoned: {}",
                    entries.join(", ")
                )
            })?,
        };
        session.executor.close()?;
        Ok(0)
    })
}

#[cfg(test)]
mod tests {
    use std::{ffi::CString, process::Command, ptr::null};

    use super::*;
    use crate::{memref::DenseBuffer, protocol::Response, remote::fake_server::serve};

    /// Set in the copy of the test binary that runs a test's program, which
    /// ends its process.
    const CHILD: &str = "EXECUTOR_RUNTIME_TEST_CHILD";

    /// Runs the test `name` of this binary again in a process of its own,
    /// with [`CHILD`] set; returns its exit code and stderr.
    fn run_in_child(name: &str) -> (Option<i32>, String) {
        let output = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", name, "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    #[test]
    fn a_result_a_server_sends_smaller_than_its_static_type_ends_the_program() {
        if std::env::var_os(CHILD).is_none() {
            let (code, stderr) = run_in_child(
                "abi::tests::a_result_a_server_sends_smaller_than_its_static_type_ends_the_program",
            );
            assert_eq!(code, Some(1), "{stderr}");
            assert!(
                stderr.contains(
                    "symbol _mlir_ciface_k): executor protocol error: the executor at 127.0.0.1:"
                ) && stderr.contains(
                    "sent a reply that does not fit the request: result 0 has sizes [2], where \
                     its type's are [4]"
                ),
                "{stderr}"
            );
            return;
        }
        // A well-formed Launched reply of 2 elements for a memref<4xf32>.
        let short = DenseBuffer {
            element_size: 4,
            sizes: vec![2],
            data: vec![0; 8],
        };
        let (address, _server) = serve(vec![Response::Launched {
            outputs: vec![short],
        }]);
        let address = CString::new(address).unwrap();
        // SAFETY: a NUL-terminated address.
        let session = unsafe { __catalyst__executor__open(address.as_ptr()) };
        let (ranks, elem_sizes, static_sizes) = ([1usize], [4usize], [4i64]);
        let mut site = LaunchSite::unfilled(Description {
            entry_symbol: c"_mlir_ciface_k".as_ptr(),
            object: c"k.o".as_ptr(),
            num_inputs: 0,
            input_ranks: null(),
            input_elem_sizes: null(),
            num_outputs: 1,
            output_ranks: ranks.as_ptr(),
            output_elem_sizes: elem_sizes.as_ptr(),
            output_sizes: static_sizes.as_ptr(),
        });
        // An uninitialized rank-1 descriptor: 5 words.
        let mut result = [0i64; 5];
        let outputs = [result.as_mut_ptr().cast::<c_void>()];
        // SAFETY: the site describes one rank-1 result of 4-byte elements
        // and static size 4; `outputs` points at a slot for its descriptor.
        unsafe { __executor__launch_at_site(&mut site, session, null(), outputs.as_ptr()) };
        eprintln!("the launch returned");
    }
}
