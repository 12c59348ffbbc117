//! The synchronous launch entry points, read top-down: the hit path of a
//! launch site, then the general path, which checks everything, runs the
//! launch on its session's executor and fills the caches.

use std::ffi::{c_char, c_void};

use super::{
    arguments::{descriptors, text},
    fast_path,
    report::Call,
    site_cache::{self, Description, Fill, LaunchSite, Resolved},
    thread_cache,
};
use crate::{
    error::{Result, RuntimeError},
    local::direct_call,
    memref::Descriptor,
    sessions::{self, Session},
    trace,
};

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
    if fast_path::debug_lines_possible() {
        // SAFETY: the contract.
        return unsafe { launch_at_site_if_not_logged(site, session, input_descs, output_descs) };
    }
    // SAFETY: the contract; nothing is logged.
    unsafe { launch_at_site_unlogged(site, session, input_descs, output_descs) }
}

/// `__executor__launch_at_site` once some dispatcher enables debug lines:
/// the general path logs the launch if this thread's dispatcher logs calls.
/// Out of line, so that the hit path keeps no frame.
///
/// # Safety
///
/// As `__executor__launch_at_site`'s contract.
#[cold]
#[inline(never)]
unsafe extern "C" fn launch_at_site_if_not_logged(
    site: *mut LaunchSite,
    session: i64,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
) {
    if fast_path::logging() {
        // SAFETY: the contract.
        return unsafe { launch_at_site_general(site, session, input_descs, output_descs) };
    }
    // SAFETY: the contract; nothing is logged.
    unsafe { launch_at_site_unlogged(site, session, input_descs, output_descs) }
}

/// The hit path of a launch that is not logged, which keeps no frame: it
/// ends in a jump to the entry's call, or to the general path for
/// everything else.
///
/// # Safety
///
/// As `__executor__launch_at_site`'s contract, and the launch is not to be
/// logged.
#[inline(always)]
unsafe fn launch_at_site_unlogged(
    site: *mut LaunchSite,
    session: i64,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
) {
    // SAFETY: `site` is null or a launch site (the contract).
    if let Some(filled) = unsafe { LaunchSite::from_ptr(site) }
        && let Some(resolved) = filled.lookup(session)
    {
        let description = &filled.description;
        // The site was filled with an entry resolved for this session and
        // this site's entry and object in the current generation, its
        // symbol read as UTF-8, for a description that qualified then (the
        // general path fills a site only then) and is the same now; the
        // description and arrays are what `__catalyst__executor__launch`'s
        // contract says (the contract).
        if description.num_inputs | description.num_outputs != 0 {
            // SAFETY: as said above.
            return unsafe {
                launch_with_arguments_at_site(
                    site,
                    session,
                    input_descs,
                    output_descs,
                    resolved.address,
                    resolved.entry_len,
                )
            };
        }
        // SAFETY: as said above; the entry takes no pointer.
        return unsafe {
            direct_call::call_entry(
                resolved.address,
                description.entry_symbol.cast(),
                resolved.entry_len,
                std::ptr::NonNull::dangling().as_ptr(),
                0,
            )
        };
    }
    // SAFETY: the contract.
    unsafe { launch_at_site_general(site, session, input_descs, output_descs) }
}

/// The hit path of `__executor__launch_at_site` for a launch with inputs or
/// a result, or the general path if an array or descriptor is null: a
/// function of its own, so that the launches without either keep no frame
/// (and `extern "C"`, which cannot unwind, so that the call of it is a
/// jump).
///
/// # Safety
///
/// As `__executor__launch_at_site`'s contract, for a launch not to be
/// logged, of a site that holds the entry at `address`, whose symbol is
/// `entry_len` bytes long, for `session`.
#[inline(never)]
unsafe extern "C" fn launch_with_arguments_at_site(
    site: *mut LaunchSite,
    session: i64,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
    address: usize,
    entry_len: usize,
) {
    // SAFETY: `site` is a launch site (the contract).
    let description = unsafe { &(*site).description };
    // SAFETY: the entry resolved for this launch, of a description that
    // qualified (the contract).
    let ran = unsafe {
        fast_path::run_unlogged(address, entry_len, description, input_descs, output_descs)
    };
    if !ran {
        // SAFETY: the contract.
        unsafe { launch_at_site_general(site, session, input_descs, output_descs) }
    }
}

/// The general path of `__executor__launch_at_site`: a function of its own,
/// so that the hit path before it keeps no frame (and `extern "C"`, which
/// cannot unwind, so that the call of it is a jump).
///
/// # Safety
///
/// As `__executor__launch_at_site`'s contract.
#[cold]
#[inline(never)]
unsafe extern "C" fn launch_at_site_general(
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
            thread_cache::run(
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
            let generation = sessions::generation();
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
            if trace::active() {
                call.bytes = Some((bytes(&inputs), bytes(&outputs)));
            }
            let local = session.local();
            if local.is_none() {
                // SAFETY: the output ranks were read from the description
                // above, whose sizes are what the contract says.
                unsafe { check_received_results(&session, description, &outputs) }?;
            }
            if let Some(local) = local
                && session.launch_timeout.is_none()
                && fast_path::qualifies(entry, description.num_inputs, description.num_outputs)
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
                        thread_cache::remember(
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

/// The bytes of the elements `descriptors` describe.
fn bytes(descriptors: &[Descriptor]) -> u64 {
    descriptors
        .iter()
        .map(|descriptor| {
            let elements: i64 = descriptor.sizes().iter().product();
            elements.max(0) as u64 * descriptor.element_size() as u64
        })
        .sum()
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
    site_cache::check_static_sizes(static_sizes, &sizes).map_err(|what| {
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

#[cfg(test)]
mod tests {
    use std::{
        ffi::CString,
        process::Command,
        ptr::null,
        sync::atomic::{AtomicUsize, Ordering},
    };

    use super::*;
    use crate::{
        c_api::__catalyst__executor__open, local::crash, memref::DenseBuffer, protocol::Response,
        remote::fake_server::serve,
    };

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
                "c_api::launch::tests::a_result_a_server_sends_smaller_than_its_static_type_ends_the_program",
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

    /// The session of the sites filled by hand below: never opened, so that
    /// a launch that takes the general path ends the process saying so.
    const SESSION: i64 = 77;

    /// How many times the entries below ran.
    static CALLS: AtomicUsize = AtomicUsize::new(0);

    extern "C" fn count_call() {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    extern "C" fn count_input_call(_input: *mut u8) {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    /// A site of `num_inputs` inputs and no result, filled as the general
    /// path fills one: with the entry at `address` for [`SESSION`], in the
    /// current generation.
    fn filled_site(address: usize, num_inputs: usize) -> LaunchSite {
        let entry = c"_mlir_ciface_k";
        let site = LaunchSite::unfilled(Description::without_results(
            entry.as_ptr(),
            c"k.o".as_ptr(),
            num_inputs,
        ));
        site.fill(&Fill {
            generation: sessions::generation(),
            session: SESSION,
            resolved: Resolved {
                address,
                entry_len: entry.count_bytes(),
            },
        });
        site
    }

    /// Launches through `site` on `session` with the input descriptors
    /// `inputs`; returns how many times an entry ran.
    fn launch(site: &mut LaunchSite, session: i64, inputs: *const *mut c_void) -> usize {
        let before = CALLS.load(Ordering::SeqCst);
        // SAFETY: a site of entries that read no descriptor; no result.
        unsafe { __executor__launch_at_site(site, session, inputs, null()) };
        CALLS.load(Ordering::SeqCst) - before
    }

    /// Runs the test `name` in a child, where it launches through a filled
    /// site after something made the entry the site holds not to be called
    /// directly; the launch must take the general path, which ends the
    /// process (the session was never opened).
    fn assert_general_path_in_child(name: &str) {
        let (code, stderr) = run_in_child(name);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(
            stderr.contains(
                "executor runtime: __catalyst__executor__launch(): no open session with handle 77"
            ),
            "{stderr}"
        );
        assert!(!stderr.contains("the launch returned"), "{stderr}");
    }

    #[test]
    fn a_filled_site_calls_its_entry_directly_with_crashes_reported() {
        // A launch that missed would end this process: no other test's
        // close may make the sites stale meanwhile.
        let _generation = sessions::generation_test_lock();
        crash::report_in_this_process();
        let mut site = filled_site(count_call as *const () as usize, 0);
        assert_eq!(launch(&mut site, SESSION, null()), 1);
        assert_eq!(launch(&mut site, SESSION, null()), 1, "the thread set up");
        let mut descriptor = [0u64; 5];
        let inputs = [descriptor.as_mut_ptr().cast::<c_void>()];
        let mut with_input = filled_site(count_input_call as *const () as usize, 1);
        assert_eq!(launch(&mut with_input, SESSION, inputs.as_ptr()), 1);
    }

    #[test]
    fn a_launch_after_a_session_closed_takes_the_general_path() {
        if std::env::var_os(CHILD).is_none() {
            return assert_general_path_in_child(
                "c_api::launch::tests::a_launch_after_a_session_closed_takes_the_general_path",
            );
        }
        let mut site = filled_site(count_call as *const () as usize, 0);
        assert_eq!(launch(&mut site, SESSION, null()), 1, "the hit path ran it");
        sessions::invalidate_cached_sites();
        launch(&mut site, SESSION, null());
        eprintln!("the launch returned");
    }

    #[test]
    fn a_launch_on_another_session_takes_the_general_path() {
        if std::env::var_os(CHILD).is_none() {
            return assert_general_path_in_child(
                "c_api::launch::tests::a_launch_on_another_session_takes_the_general_path",
            );
        }
        let mut site = filled_site(count_call as *const () as usize, 0);
        assert_eq!(launch(&mut site, SESSION, null()), 1, "the hit path ran it");
        // Filled for the next session; launched on this one.
        let mut other = LaunchSite::unfilled(site.description);
        other.fill(&Fill {
            generation: sessions::generation(),
            session: SESSION + 1,
            resolved: Resolved {
                address: count_call as *const () as usize,
                entry_len: c"_mlir_ciface_k".count_bytes(),
            },
        });
        launch(&mut other, SESSION, null());
        eprintln!("the launch returned");
    }

    #[test]
    fn a_launch_while_calls_are_logged_takes_the_general_path() {
        if std::env::var_os(CHILD).is_none() {
            return assert_general_path_in_child(
                "c_api::launch::tests::a_launch_while_calls_are_logged_takes_the_general_path",
            );
        }
        let mut site = filled_site(count_call as *const () as usize, 0);
        assert_eq!(launch(&mut site, SESSION, null()), 1, "the hit path ran it");
        // Debug lines of another target: launches are not logged, and still
        // hit.
        let elsewhere = tracing_subscriber::fmt()
            .with_env_filter("executor_runtime::remote=debug")
            .with_writer(std::io::stderr)
            .finish();
        tracing::subscriber::with_default(elsewhere, || {
            assert!(fast_path::debug_lines_possible());
            assert_eq!(launch(&mut site, SESSION, null()), 1, "not logged");
        });
        let calls = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(std::io::stderr)
            .finish();
        tracing::subscriber::with_default(calls, || launch(&mut site, SESSION, null()));
        eprintln!("the launch returned");
    }

    #[test]
    fn a_launch_with_a_null_input_descriptor_takes_the_general_path() {
        if std::env::var_os(CHILD).is_none() {
            return assert_general_path_in_child(
                "c_api::launch::tests::a_launch_with_a_null_input_descriptor_takes_the_general_path",
            );
        }
        let mut site = filled_site(count_input_call as *const () as usize, 1);
        let mut descriptor = [0u64; 5];
        let live = [descriptor.as_mut_ptr().cast::<c_void>()];
        assert_eq!(
            launch(&mut site, SESSION, live.as_ptr()),
            1,
            "the hit path ran it"
        );
        let null_descriptor = [std::ptr::null_mut::<c_void>()];
        launch(&mut site, SESSION, null_descriptor.as_ptr());
        eprintln!("the launch returned");
    }

    #[test]
    fn a_launch_with_a_null_input_array_takes_the_general_path() {
        if std::env::var_os(CHILD).is_none() {
            return assert_general_path_in_child(
                "c_api::launch::tests::a_launch_with_a_null_input_array_takes_the_general_path",
            );
        }
        let mut site = filled_site(count_input_call as *const () as usize, 1);
        launch(&mut site, SESSION, null());
        eprintln!("the launch returned");
    }
}
